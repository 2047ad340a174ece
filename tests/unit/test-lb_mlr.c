/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_mlr.c - unit tests of MLRsearch, RFC 2544 repetitions and invalid-trial reasons on the emulated device with a known loss curve. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lb_emu.h"
#include "lb_mlr.h"
#include "lb_rate.h"
#include "lb_reason.h"
#include "lb_search.h"

#define T_TIMEOUT 30

/* One goal of the defaults over 1 s trials, loads 1000 .. 1e6 fps. */
static struct lb_mlr_conf conf1(void)
{
    struct lb_mlr_conf c = {.min_fps = 1000, .max_fps = 1e6, .n_goals = 1, .max_trials = 100};
    lb_mlr_goal_default(&c.goal[0], 1.0);
    return c;
}

/* The final bracket holds the known answer and is as narrow as the goal. */
static void assert_brackets(const struct lb_mlr_goal_result *g, double answer, double width)
{
    ck_assert(g->found);
    ck_assert_msg(g->lower_fps <= answer && answer < g->upper_fps, "%.0f .. %.0f vs %.0f",
                  g->lower_fps, g->upper_fps, answer);
    ck_assert_msg(g->upper_fps - g->lower_fps <= width * g->upper_fps, "%.0f .. %.0f too wide",
                  g->lower_fps, g->upper_fps);
}

/*
 * Zero loss on a device that forwards 612345 fps: the bracket holds it
 * within 0.5 %, the conditional throughput is the lower bound (its trials
 * lost nothing), the first trial is at max for the coarsest duration (1/4)
 * and every trial of the final target is 1 s. The answer is exact: the
 * same search twice gives the same history.
 */
START_TEST(test_mlr_zero_loss)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 612345};
    struct lb_mlr_result r, r2;

    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    assert_brackets(&r.goal[0], 612345, 0.005);
    ck_assert(r.goal[0].loss_quantile == 0);
    ck_assert(r.goal[0].conditional_fps == r.goal[0].lower_fps);
    ck_assert(!r.timed_out);
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert_uint_eq(e.trials, r.n_trials);
    ck_assert(r.trial[0].fps == 1e6 && r.trial[0].duration == 0.25 && r.trial[0].target == 2);
    /* max lost 1 - 153086 / 250000 in its 0.25 s: the forwarding hint puts
     * the second trial at floor(1e6 * 153086 / 250000) = 612344 */
    ck_assert(r.trial[1].fps == 612344);
    double last_pre = 0;
    for (unsigned i = 0; i < r.n_trials; i++) {
        const struct lb_mlr_trial *t = &r.trial[i];
        ck_assert(t->duration == (t->target == 0 ? 1.0 : t->target == 1 ? 0.5 : 0.25));
        if (t->target == 0)
            ck_assert(i > 0 && last_pre > 0);   /* finals come after a preceding target */
        else
            last_pre = t->fps;
    }
    ck_assert(r.trial[r.n_trials - 1].duration == 1.0);
    struct lb_emu e2 = {.capacity_fps = 612345};
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e2, &r2), 0);
    ck_assert_uint_eq(r2.n_trials, r.n_trials);
    for (unsigned i = 0; i < r.n_trials; i++)
        ck_assert(r2.trial[i].fps == r.trial[i].fps);
    ck_assert(memcmp(&r2.goal[0], &r.goal[0], sizeof(r.goal[0])) == 0);
    lb_mlr_free(&r);
    lb_mlr_free(&r2);
}
END_TEST

/*
 * Two goals at once: zero loss, and 10 % loss. The device loses 1 - C / L
 * above C = 500000, so the 10 % goal's answer is the highest load losing
 * at most 10 %: C / 0.9 = 555555.6; its conditional throughput is the lower
 * bound less its loss, at most C. The first goal's answer stays C.
 */
START_TEST(test_mlr_two_goals)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 500000};
    struct lb_mlr_result r;

    c.n_goals = 2;
    lb_mlr_goal_default(&c.goal[1], 1.0);
    c.goal[1].loss_ratio = 0.1;
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    assert_brackets(&r.goal[0], 500000, 0.005);
    assert_brackets(&r.goal[1], 500000 / 0.9, 0.005);
    const struct lb_mlr_goal_result *g = &r.goal[1];
    ck_assert(g->loss_quantile > 0 && g->loss_quantile <= 0.1);
    ck_assert(fabs(g->conditional_fps - g->lower_fps * (1 - g->loss_quantile)) < 1e-6);
    ck_assert(g->conditional_fps <= 500000 + 1);
    ck_assert(g->conditional_fps >= 500000 * (1 - 0.005) - 1);
    lb_mlr_free(&r);
}
END_TEST

/*
 * A duration sum of 3 s with 1 s trials and an exceed ratio of 0.5: a load
 * is a lower bound after 2 good seconds (missing 1 s could be bad: 1 <=
 * 1.5), an upper bound after 2 bad ones, so the final bounds each have two
 * final trials.
 */
START_TEST(test_mlr_duration_sum)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 300000};
    struct lb_mlr_result r;

    c.goal[0].duration_sum = 3;
    c.goal[0].exceed_ratio = 0.5;
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    assert_brackets(&r.goal[0], 300000, 0.005);
    unsigned at_lo = 0, at_hi = 0;
    for (unsigned i = 0; i < r.n_trials; i++) {
        at_lo += r.trial[i].duration == 1 && r.trial[i].fps == r.goal[0].lower_fps;
        at_hi += r.trial[i].duration == 1 && r.trial[i].fps == r.goal[0].upper_fps;
    }
    ck_assert_uint_eq(at_lo, 2);
    ck_assert_uint_eq(at_hi, 2);
    lb_mlr_free(&r);
}
END_TEST

/*
 * A sender that cannot go above 400000 fps on a device that could carry
 * 700000: trials above the sender's limit are invalid (counted as all
 * lost), so the answer is the sender's limit, and the invalid count is the
 * number of trials above it.
 */
START_TEST(test_mlr_invalid_sender)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 700000, .sender_fps = 400000};
    struct lb_mlr_result r;
    unsigned above = 0;

    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    assert_brackets(&r.goal[0], 400000, 0.005);
    for (unsigned i = 0; i < r.n_trials; i++) {
        above += r.trial[i].fps > 400000;
        ck_assert_int_eq(r.trial[i].valid, !(r.trial[i].fps > 400000));
    }
    ck_assert_uint_gt(above, 0);
    ck_assert_uint_eq(r.invalid, above);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_SENDER);
    lb_mlr_free(&r);
}
END_TEST

/*
 * The sender probe on the device of the last test: one 1 s trial at the
 * configured 1e6 fps, invalid (tx_slow) at 400000, so the search's max
 * load is 400000 * (1 - 0.01) = 396000; every search trial is then valid
 * (one per target at the max, 0.25, 0.5, 1 s) and the result is the max
 * load, sender-bound. The device could carry 700000: the figure is the
 * sender's, and says so.
 */
START_TEST(test_mlr_probe_sender)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 700000, .sender_fps = 400000};
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, lb_emu_trial, &e, &p), 0);
    ck_assert(p.ran && p.fps == 1e6 && p.duration == 1.0 && p.achieved_fps == 400000);
    ck_assert(!p.valid && p.reason == LB_INVALID_TX_SLOW && p.capped);
    ck_assert(p.max_fps == 396000 && c.max_fps == 396000 && c.max_is_sender);
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    ck_assert_uint_eq(r.n_trials, 3);
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert_uint_eq(e.trials, 4);
    for (unsigned i = 0; i < r.n_trials; i++)
        ck_assert(r.trial[i].fps == 396000 && r.trial[i].valid);
    const struct lb_mlr_goal_result *g = &r.goal[0];
    ck_assert(g->found && g->lower_fps == 396000 && g->upper_fps == 0);
    ck_assert(g->conditional_fps == 396000);
    ck_assert_int_eq(g->bound_by, LB_MLR_BY_SENDER);
    ck_assert_str_eq(lb_mlr_bound_name(LB_MLR_BY_SENDER), "sender");
    ck_assert_str_eq(lb_mlr_bound_name(LB_MLR_BY_MAX_LOAD), "max_load");
    ck_assert_str_eq(lb_mlr_bound_name(LB_MLR_BY_LOSS), "loss");
    lb_mlr_free(&r);
}
END_TEST

/* The emulated device whose sender reaches probe_fps in its first trial and
 * later_fps after; reason and stall_s, when set, replace an invalid
 * trial's. */
struct fickle {
    struct lb_emu e;
    double probe_fps, later_fps;
    int reason;
    double stall_s;
    unsigned calls;
};

static int fickle_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct fickle *f = ctx;
    f->e.sender_fps = f->calls++ ? f->later_fps : f->probe_fps;
    int rc = lb_emu_trial(&f->e, req, out);
    if (rc == 0 && !out->valid && f->reason) {
        out->reason = f->reason;
        out->stall_s = f->stall_s;
    }
    return rc;
}

/*
 * A sender slower after the probe (400000, then 390000): the trial at the
 * max load 396000 is invalid, so the upper bound is the sender's, not the
 * device's (capacity 700000): the bracket holds 390000 within the width,
 * sender-bound, and the only invalid trials are those above 390000.
 */
START_TEST(test_mlr_probe_slower)
{
    struct lb_mlr_conf c = conf1();
    struct fickle f = {.e = {.capacity_fps = 700000}, .probe_fps = 400000, .later_fps = 390000};
    struct lb_mlr_probe p;
    struct lb_mlr_result r;
    unsigned above = 0;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, fickle_trial, &f, &p), 0);
    ck_assert(p.capped && c.max_fps == 396000);
    ck_assert_int_eq(lb_mlr_search(&c, fickle_trial, &f, &r), 0);
    assert_brackets(&r.goal[0], 390000, 0.005);
    ck_assert(r.goal[0].upper_fps <= 396000);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_SENDER);
    for (unsigned i = 0; i < r.n_trials; i++) {
        above += r.trial[i].fps > 390000;
        ck_assert_int_eq(r.trial[i].valid, !(r.trial[i].fps > 390000));
    }
    ck_assert_uint_gt(above, 0);
    ck_assert_uint_eq(r.invalid, above);
    lb_mlr_free(&r);
}
END_TEST

/*
 * The device below the sender's reach (capacity 300000, sender 400000):
 * the probe caps the max load at 396000, the device's loss makes the upper
 * bound (loss-bound), the bracket holds 300000 and no trial is invalid.
 */
START_TEST(test_mlr_probe_loss)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu e = {.capacity_fps = 300000, .sender_fps = 400000};
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, lb_emu_trial, &e, &p), 0);
    ck_assert(p.capped && c.max_fps == 396000);
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &e, &r), 0);
    assert_brackets(&r.goal[0], 300000, 0.005);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_LOSS);
    ck_assert_uint_eq(r.invalid, 0);
    lb_mlr_free(&r);
}
END_TEST

/*
 * The probe leaves the max load alone when the sender offered it (a device
 * faster than max: the result is max-load-bound), and when the sender lost
 * its CPU for long enough to explain the miss (400000 of 1e6 fps with 0.7
 * of its 1 s stalled: 1.33e6 while on its CPU): the search then runs as
 * without a probe, and trials above the sender are invalid. With 0.2 s
 * stalled its reach, 500000, misses the load anyway: the max load is then
 * 495000.
 */
START_TEST(test_mlr_probe_keeps)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu fast = {.capacity_fps = 2e6};
    struct fickle f = {.e = {.capacity_fps = 700000}, .probe_fps = 400000, .later_fps = 400000,
                       .reason = LB_INVALID_TX_PREEMPTED, .stall_s = 0.7};
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, lb_emu_trial, &fast, &p), 0);
    ck_assert(p.valid && !p.capped && p.max_fps == 1e6 && c.max_fps == 1e6 && !c.max_is_sender);
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &fast, &r), 0);
    ck_assert(r.goal[0].found && r.goal[0].lower_fps == 1e6 && r.goal[0].upper_fps == 0);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_MAX_LOAD);
    lb_mlr_free(&r);
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, fickle_trial, &f, &p), 0);
    ck_assert(!p.valid && p.reason == LB_INVALID_TX_PREEMPTED && !p.capped);
    ck_assert(fabs(p.reach_fps - 400000 / 0.3) < 1e-6);
    ck_assert(c.max_fps == 1e6 && !c.max_is_sender);
    ck_assert_int_eq(lb_mlr_search(&c, fickle_trial, &f, &r), 0);
    assert_brackets(&r.goal[0], 400000, 0.005);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_SENDER);
    ck_assert_uint_gt(r.invalid, 0);
    lb_mlr_free(&r);
    f.calls = 0;
    f.stall_s = 0.2;
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, fickle_trial, &f, &p), 0);
    ck_assert(p.reason == LB_INVALID_TX_PREEMPTED && p.stall_s == 0.2);
    ck_assert(fabs(p.reach_fps - 500000) < 1e-6 && p.capped && c.max_fps == 495000);
    c.max_fps = 1e6;
    c.max_is_sender = 0;
    c.n_goals = 0;                              /* a bad conf runs no trial */
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, lb_emu_trial, &fast, &p), -EINVAL);
    ck_assert(!p.ran && fast.trials == 4);
}
END_TEST

/* The ends: a device faster than max (one trial per target at max, the
 * durations growing 0.25, 0.5, 1 s); one slower than min (nothing found,
 * min is the upper bound). */
START_TEST(test_mlr_ends)
{
    struct lb_mlr_conf c = conf1();
    struct lb_emu fast = {.capacity_fps = 2e6}, slow = {.capacity_fps = 10};
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &fast, &r), 0);
    ck_assert_uint_eq(r.n_trials, 3);
    ck_assert(r.trial[0].duration == 0.25 && r.trial[1].duration == 0.5 &&
              r.trial[2].duration == 1.0);
    ck_assert(r.goal[0].found && r.goal[0].lower_fps == 1e6 && r.goal[0].upper_fps == 0);
    ck_assert(r.goal[0].conditional_fps == 1e6);
    lb_mlr_free(&r);
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &slow, &r), 0);
    ck_assert(!r.goal[0].found && r.goal[0].upper_fps == 1000);
    lb_mlr_free(&r);
    c.max_trials = 2;                           /* not enough to finish */
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &slow, &r), 0);
    ck_assert(r.timed_out && r.n_trials == 2);
    lb_mlr_free(&r);
    c.goal[0].exceed_ratio = 1;                 /* out of range */
    ck_assert_int_eq(lb_mlr_search(&c, lb_emu_trial, &slow, &r), -EINVAL);
}
END_TEST

/*
 * RFC 2544 binary search on the emulated device, by hand: 1e6 fails, 5e5
 * passes, 7.5e5, 6.25e5 fail, 5.625e5, 5.9375e5, 6.09375e5 pass, 6.171875e5
 * fails; the bracket is then 7812.5 < 1 % of 1e6: 609375 after 8 trials.
 */
START_TEST(test_binary_on_emu)
{
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 1e4, .max_trials = 20};
    struct lb_emu e = {.capacity_fps = 612345, .default_s = 1};
    struct lb_search_result r;

    ck_assert_int_eq(lb_search_throughput(&c, lb_emu_trial, &e, &r), 0);
    ck_assert(r.found && r.fps == 609375);
    ck_assert_uint_eq(r.trials, 8);
}
END_TEST

/*
 * RFC 2544 frame-loss steps on the emulated device, by hand: 1 s trials at
 * 100 %, 90 % ... of 1e6 fps against a capacity of 612345 lose 387655 of
 * 1e6, 287655 of 900000, 187655 of 800000, 87655 of 700000, then nothing
 * at 600000 and 500000: two clean steps end it after 6 points.
 */
START_TEST(test_loss_on_emu)
{
    struct lb_search_conf c = {.max_fps = 1e6, .max_trials = 20};
    struct lb_emu e = {.capacity_fps = 612345, .default_s = 1};
    struct lb_loss_point p[10];
    static const double lost[] = {387655, 287655, 187655, 87655, 0, 0};

    ck_assert_int_eq(lb_search_loss(&c, 0, lb_emu_trial, &e, p), 6);
    for (int i = 0; i < 6; i++) {
        ck_assert(p[i].pct == 100 - 10 * i);
        ck_assert(p[i].fps == 1e6 * (10 - i) / 10.0);
        ck_assert(p[i].loss_ratio == lost[i] / p[i].fps);
        ck_assert(p[i].valid);
    }
}
END_TEST

/*
 * Back-to-back on a device that forwards half the offered 1e6 fps and
 * holds 1000 frames: a burst of n frames loses n - round(n / 2) - 1000,
 * nothing up to n = 2001 (2001 - 1001 = 1000), one frame at 2002: the
 * search on [1, 10000] with a resolution of 1 frame finds 2001.
 */
START_TEST(test_b2b_on_emu)
{
    struct lb_search_conf c = {.max_fps = 1e6, .max_trials = 40};
    struct lb_emu e = {.capacity_fps = 500000, .buffer = 1000, .default_s = 1};
    struct lb_search_result r;

    ck_assert_int_eq(lb_search_b2b(&c, 10000, 1, lb_emu_trial, &e, &r), 0);
    ck_assert(r.found && r.fps == 2001);
    ck_assert_uint_eq(r.invalid, 0);
}
END_TEST

static unsigned searches;
static void count_search(void *arg)
{
    (void)arg;
    searches++;
}

/*
 * --repeat: 5 throughput searches give 5 figures (all 609375: the device is
 * deterministic, so the spread is 0) from 40 trials in 5 searches; 4
 * latency trials; 3 back-to-back searches.
 */
START_TEST(test_repeat)
{
    struct lb_search_conf c = {.max_fps = 1e6, .resolution_fps = 1e4, .max_trials = 20,
                               .on_search = count_search};
    struct lb_emu e = {.capacity_fps = 612345, .default_s = 1};
    struct lb_repeat r;
    double v[5];

    searches = 0;
    ck_assert_int_eq(lb_search_repeat(&c, LB_REPEAT_THROUGHPUT, 5, 0, 0, lb_emu_trial, &e, v, &r),
                     0);
    ck_assert_uint_eq(r.n, 5);
    ck_assert_uint_eq(r.found, 5);
    ck_assert_uint_eq(r.trials, 40);
    ck_assert_uint_eq(e.trials, 40);
    ck_assert_uint_eq(searches, 5);
    for (int i = 0; i < 5; i++)
        ck_assert(v[i] == 609375);
    ck_assert(r.mean == 609375 && r.stddev == 0 && r.min == 609375 && r.max == 609375);
    e.trials = 0;
    c.max_fps = 609375;
    ck_assert_int_eq(lb_search_repeat(&c, LB_REPEAT_LATENCY, 4, 0, 0, lb_emu_trial, &e, v, &r), 0);
    ck_assert_uint_eq(e.trials, 4);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_uint_eq(r.found, 0);              /* the emulation measures no latency */
    e.trials = 0;
    searches = 0;
    ck_assert_int_eq(lb_search_repeat(&c, LB_REPEAT_B2B, 3, 1000, 1, lb_emu_trial, &e, v, &r), 0);
    ck_assert_uint_eq(searches, 3);
    ck_assert_uint_eq(r.n, 3);
    ck_assert_uint_eq(r.trials, e.trials);
    /* spread of known values: 1, 2, 3, 4 -> mean 2.5, sample sd sqrt(5/3) */
    lb_repeat_stats((double[]){1, 2, 3, 4}, 4, &r);
    ck_assert(r.mean == 2.5 && r.min == 1 && r.max == 4);
    ck_assert(fabs(r.stddev - sqrt(5.0 / 3)) < 1e-12);
}
END_TEST

/* Why a trial is invalid: each reason from the facts that make it, in the
 * order of the checks. */
START_TEST(test_invalid_reason)
{
    struct lb_tx_facts f = {.requested_fps = 1e6, .achieved_fps = 995000, .tolerance = 0.01,
                            .scheduled = 1000000, .duration_s = 1};

    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_NONE);
    f.stopped = 1;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_STOPPED);
    f.stopped = 0;
    f.achieved_fps = 1.02e6;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_TX_AHEAD);
    f.achieved_fps = 9e5;
    f.refused = 10001;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_TX_REFUSED);
    f.refused = 10000;                          /* at tolerance: not the reason */
    f.nombuf = 20000;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_TX_NOMBUF);
    f.nombuf = 0;
    f.stall_s = 0.011;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_TX_PREEMPTED);
    f.stall_s = 0.001;
    ck_assert_int_eq(lb_invalid_reason(&f), LB_INVALID_TX_SLOW);
    ck_assert_str_eq(lb_invalid_name(LB_INVALID_TX_PREEMPTED), "tx_preempted");
    ck_assert_str_eq(lb_invalid_name(LB_INVALID_NONE), "none");
    ck_assert_str_eq(lb_invalid_name(LB_INVALID_MAX), "unknown");
}
END_TEST

Suite *lb_mlr_suite(void);   /* called by check-main.c, which has no header */

Suite *lb_mlr_suite(void)
{
    Suite *s = suite_create("lb_mlr");
    TCase *tc = tcase_create("search");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_mlr_zero_loss);
    tcase_add_test(tc, test_mlr_two_goals);
    tcase_add_test(tc, test_mlr_duration_sum);
    tcase_add_test(tc, test_mlr_invalid_sender);
    tcase_add_test(tc, test_mlr_probe_sender);
    tcase_add_test(tc, test_mlr_probe_slower);
    tcase_add_test(tc, test_mlr_probe_loss);
    tcase_add_test(tc, test_mlr_probe_keeps);
    tcase_add_test(tc, test_mlr_ends);
    tcase_add_test(tc, test_binary_on_emu);
    tcase_add_test(tc, test_loss_on_emu);
    tcase_add_test(tc, test_b2b_on_emu);
    tcase_add_test(tc, test_repeat);
    tcase_add_test(tc, test_invalid_reason);
    suite_add_tcase(s, tc);
    return s;
}
