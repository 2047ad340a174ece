/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_search.c - unit tests of rate units, the send schedule and the RFC 2544 searches on simulated links. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lb_rate.h"
#include "lb_report.h"
#include "lb_search.h"

/* A simulated link: drops what exceeds threshold_fps over a 1 s trial, holds a
 * burst of at most buffer frames at any rate, and a sender that cannot go
 * faster than sender_fps. */
struct sim {
    double threshold_fps;
    double sender_fps;
    uint64_t buffer;
    unsigned trials;
    double rates[64];
};

static int sim_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct sim *s = ctx;
    double fps = req->fps < s->sender_fps ? req->fps : s->sender_fps;
    if (s->trials < 64)
        s->rates[s->trials] = req->fps;
    s->trials++;
    out->achieved_fps = fps;
    out->valid = lb_rate_valid(req->fps, fps, 0.01);
    if (req->count) {
        out->sent = req->count;
        out->lost = req->count > s->buffer ? req->count - s->buffer : 0;
    } else {
        out->sent = (uint64_t)req->fps;
        out->lost = fps > s->threshold_fps ? (uint64_t)(fps - s->threshold_fps) : 0;
    }
    return 0;
}

START_TEST(test_rate_parse)
{
    struct lb_rate r;
    ck_assert_int_eq(lb_rate_parse("100000", &r), 0);
    ck_assert(r.unit == LB_UNIT_FPS && r.value == 100000);
    ck_assert_int_eq(lb_rate_parse("1.5Mfps", &r), 0);
    ck_assert(r.unit == LB_UNIT_FPS && r.value == 1.5e6);
    ck_assert_int_eq(lb_rate_parse("800mbps", &r), 0);
    ck_assert(r.unit == LB_UNIT_L2_MBPS && r.value == 800);
    ck_assert_int_eq(lb_rate_parse("800mbps-l1", &r), 0);
    ck_assert(r.unit == LB_UNIT_L1_MBPS);
    ck_assert_int_eq(lb_rate_parse("50%", &r), 0);
    ck_assert(r.unit == LB_UNIT_PCT && r.value == 50);
    ck_assert_int_eq(lb_rate_parse("fast", &r), -EINVAL);
    ck_assert_int_eq(lb_rate_parse("10 furlongs", &r), -EINVAL);
    ck_assert_int_eq(lb_rate_parse("-3", &r), -EINVAL);
}
END_TEST

/* The line-rate table of DESIGN.md, and unit conversions for 64-byte frames. */
START_TEST(test_rate_convert)
{
    ck_assert_int_eq((int)lround(lb_line_fps(10000, 64)), 14880952);
    ck_assert_int_eq((int)lround(lb_line_fps(10000, 1518)), 812744);
    ck_assert_int_eq((int)lround(lb_line_fps(100000, 64) / 1e4), 14881);
    struct lb_rate r = {.value = 50, .unit = LB_UNIT_PCT};
    ck_assert_int_eq((int)lround(lb_rate_fps(&r, 64, 10000)), 7440476);
    r = (struct lb_rate){.value = 512, .unit = LB_UNIT_L2_MBPS};
    ck_assert_int_eq((int)lround(lb_rate_fps(&r, 64, 0)), 1000000);
    r = (struct lb_rate){.value = 672, .unit = LB_UNIT_L1_MBPS};
    ck_assert_int_eq((int)lround(lb_rate_fps(&r, 64, 0)), 1000000);
    ck_assert_int_eq((int)lround(lb_l2_bps(1e6, 64)), 512000000);
    ck_assert_int_eq((int)lround(lb_l1_bps(1e6, 64)), 672000000);
}
END_TEST

/* Constant schedule: frame i due at exactly t0 + i * hz / fps, no drift
 * after a million frames; Poisson: mean gap within 1% over 200000 frames. */
START_TEST(test_schedule)
{
    struct lb_sched s;
    lb_sched_init(&s, 1000, 3000000000ull, 7e6, 0, 1);
    ck_assert_uint_eq(lb_sched_due(&s), 1000);
    for (int i = 0; i < 1000000; i++)
        lb_sched_next(&s);
    ck_assert_uint_eq(lb_sched_due(&s), 1000 + 428571428);      /* 1e6 * 3e9 / 7e6 */
    lb_sched_init(&s, 0, 1000000000ull, 1e5, 1, 42);
    uint64_t prev = 0, backwards = 0;
    for (int i = 0; i < 200000; i++) {
        lb_sched_next(&s);
        backwards += lb_sched_due(&s) < prev;
        prev = lb_sched_due(&s);
    }
    ck_assert_uint_eq(backwards, 0);
    double mean = (double)lb_sched_due(&s) / 200000.0;
    ck_assert_msg(fabs(mean - 10000.0) < 100.0, "mean gap %f", mean);
}
END_TEST

/* A held burst's wait (both senders): 1 frame per 1000 ns from t0 = 0,
 * burst 32, the first due frame 0 held until 50000. Full when frame 31 is
 * due (31000) if the hold is longer; at the hold's end if shorter; at the
 * trial's last frame when fewer are left than the burst needs. */
START_TEST(test_fill_due)
{
    struct lb_sched s;
    lb_sched_init(&s, 0, 1000000000ull, 1e6, 0, 1);
    lb_sched_next(&s);                                   /* frame 0 is in the burst */
    ck_assert_uint_eq(lb_sched_fill_due(&s, 31, 1000, 50000), 31000);
    ck_assert_uint_eq(lb_sched_fill_due(&s, 31, 1000, 20000), 20000);
    ck_assert_uint_eq(lb_sched_fill_due(&s, 31, 5, 50000), 5000);   /* frames 1..5 left */
    ck_assert_uint_eq(lb_sched_fill_due(&s, 1, 1000, 50000), 1000);
    ck_assert_uint_eq(lb_sched_due(&s), 1000);           /* s itself not moved */
}
END_TEST

START_TEST(test_valid)
{
    ck_assert(lb_rate_valid(1e6, 0.995e6, 0.01));
    ck_assert(!lb_rate_valid(1e6, 0.98e6, 0.01));
    ck_assert(!lb_rate_valid(1e6, 1.02e6, 0.01));
    ck_assert(!lb_rate_valid(0, 0, 0.01));
    /* 1000 frames at 1 per 100 cycles, last sent at 99900: exactly on time. */
    ck_assert_int_eq((int)lround(lb_achieved_fps(1000, 0, 99900, 100, 1000000)), 10000);
    ck_assert_int_eq((int)lround(lb_achieved_fps(1000, 0, 199900, 100, 1000000)), 5000);
}
END_TEST

/* A link that drops above 123456 fps: the search ends within the resolution
 * below it, after the number of halvings the bracket needs. */
START_TEST(test_search_converges)
{
    struct sim s = {.threshold_fps = 123456, .sender_fps = 1e12, .buffer = 0};
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 1000, .loss_ratio = 0,
                               .max_trials = 64};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_throughput(&c, sim_trial, &s, &r), 0);
    ck_assert(r.found);
    ck_assert(r.fps <= 123456 && r.fps > 123456 - 1000);
    ck_assert_uint_eq(r.trials, 11);            /* 1e6 / 2^10 < 1000 */
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert(s.rates[0] == 1e6 && s.rates[1] == 5e5 && s.rates[2] == 2.5e5);
}
END_TEST

/* Allowed loss 10%: the rate where loss reaches 10% is 123456 / 0.9. */
START_TEST(test_search_partial_loss)
{
    struct sim s = {.threshold_fps = 123456, .sender_fps = 1e12};
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 100, .loss_ratio = 0.1,
                               .max_trials = 64};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_throughput(&c, sim_trial, &s, &r), 0);
    ck_assert(r.found);
    ck_assert(r.fps <= 123456 / 0.9 && r.fps > 123456 / 0.9 - 100);
}
END_TEST

/* A link faster than the sender: trials above the sender's 50000 fps are
 * invalid, so the result is the sender's limit, not the link's. */
START_TEST(test_search_sender_limited)
{
    struct sim s = {.threshold_fps = 1e9, .sender_fps = 50000};
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 500, .loss_ratio = 0,
                               .max_trials = 64};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_throughput(&c, sim_trial, &s, &r), 0);
    ck_assert(r.found);
    ck_assert(r.fps <= 50000 / 0.99 && r.fps > 50000 - 500);
    ck_assert_uint_ge(r.invalid, 4);
}
END_TEST

/* Nothing passes: not found. At max: one trial. */
START_TEST(test_search_edges)
{
    struct sim s = {.threshold_fps = 0, .sender_fps = 1e12};
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 1e4, .max_trials = 64};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_throughput(&c, sim_trial, &s, &r), 0);
    ck_assert(!r.found);
    ck_assert_uint_eq(r.trials, 8);           /* 1e6 / 2^7 < 1e4 */
    s = (struct sim){.threshold_fps = 2e6, .sender_fps = 1e12};
    ck_assert_int_eq(lb_search_throughput(&c, sim_trial, &s, &r), 0);
    ck_assert(r.found && r.fps == 1e6);
    ck_assert_uint_eq(r.trials, 1);
}
END_TEST

/* Loss curve: 100% .. 30% lose, 20% and 10% do not: 10 points, the last two
 * clean. Threshold at 75%: stops after 70% and 60%. */
START_TEST(test_loss_steps)
{
    struct sim s = {.threshold_fps = 250000, .sender_fps = 1e12};
    struct lb_search_conf c = {.max_fps = 1e6, .max_trials = 64};
    struct lb_loss_point p[10];
    ck_assert_int_eq(lb_search_loss(&c, 0, sim_trial, &s, p), 10);
    ck_assert(p[0].pct == 100 && fabs(p[0].loss_ratio - 0.75) < 1e-6);
    ck_assert(p[9].pct == 10 && p[9].loss_ratio == 0);
    s = (struct sim){.threshold_fps = 750000, .sender_fps = 1e12};
    ck_assert_int_eq(lb_search_loss(&c, 0, sim_trial, &s, p), 5);
    ck_assert(p[4].pct == 60 && p[3].loss_ratio == 0 && p[2].loss_ratio > 0);
    ck_assert_int_eq(lb_search_loss(&c, 1, sim_trial, &s, p), 10);
}
END_TEST

/* Back-to-back: a buffer of 4321 frames is found exactly with resolution 1. */
START_TEST(test_b2b)
{
    struct sim s = {.threshold_fps = 0, .sender_fps = 1e12, .buffer = 4321};
    struct lb_search_conf c = {.max_fps = 1e6, .max_trials = 64};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_b2b(&c, 100000, 1, sim_trial, &s, &r), 0);
    ck_assert(r.found);
    ck_assert(r.fps == 4321);
}
END_TEST

/* Latency summary of 1..10000 cycles at 2 ns per cycle: each percentile is
 * the upper bound of its bucket (capped at the maximum), times 2. */
START_TEST(test_latency_percentiles)
{
    struct ebf_hist h;
    struct lb_latency l;
    ebf_hist_init(&h);
    for (uint64_t v = 1; v <= 10000; v++)
        ebf_hist_add(&h, v);
    lb_latency_from_hist(&h, 2.0, &l);
    ck_assert(l.valid);
    ck_assert_uint_eq(l.count, 10000);
    ck_assert(l.min == 2 && l.max == 20000);
    ck_assert(l.p50 == 2 * 5119.0);            /* rank 5000 in [4608, 5120) */
    ck_assert(l.p90 == 2 * 9215.0);            /* rank 9000 in [8192, 9216) */
    ck_assert(l.p99 == 20000);                 /* rank 9900 in [9216, 10240), capped */
    ck_assert(l.p999 == 20000 && l.p9999 == 20000);
    ck_assert(fabs(l.mean - 10001.0) < 1e-9);
    ebf_hist_init(&h);
    lb_latency_from_hist(&h, 2.0, &l);
    ck_assert(!l.valid && l.count == 0);
}
END_TEST

Suite *lb_search_suite(void);

Suite *lb_search_suite(void)
{
    Suite *s = suite_create("lb_search");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_rate_parse);
    tcase_add_test(tc, test_rate_convert);
    tcase_add_test(tc, test_schedule);
    tcase_add_test(tc, test_fill_due);
    tcase_add_test(tc, test_valid);
    tcase_add_test(tc, test_search_converges);
    tcase_add_test(tc, test_search_partial_loss);
    tcase_add_test(tc, test_search_sender_limited);
    tcase_add_test(tc, test_search_edges);
    tcase_add_test(tc, test_loss_steps);
    tcase_add_test(tc, test_b2b);
    tcase_add_test(tc, test_latency_percentiles);
    suite_add_tcase(s, tc);
    return s;
}
