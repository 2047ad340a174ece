/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_mlr_margin.c - unit tests of the sender probe's margin (and its option) and of a max load the sender is known to miss, on an emulated device whose sender varies from trial to trial. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lb_emu.h"
#include "lb_mlr.h"
#include "lb_opts.h"
#include "lb_rate.h"
#include "lb_reason.h"
#include "lb_search.h"

#define T_TIMEOUT 30
#define N_REACH 6

/*
 * The emulated device (capacity 700000 fps) with a sender that reaches
 * reach[i % N_REACH] fps on its i-th trial, the probe being trial 0: a
 * trial asked for more gets that much, and is invalid (tx_slow) when it
 * misses the load by more than the tolerance 0.01, as lb_rate_valid
 * judges the real sender. The figures vary as the veth cable's sender
 * did: 1.5 to 4.3 % below the probe's reach.
 */
struct varying {
    struct lb_emu e;
    double reach[N_REACH];
    unsigned calls;
};

static const struct varying varying0 = {
    .e = {.capacity_fps = 700000},
    .reach = {400000, 388000, 393000, 383000, 394000, 386000},
};

static int varying_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct varying *v = ctx;
    double reach = v->reach[v->calls++ % N_REACH];
    int rc = lb_emu_trial(&v->e, req, out);
    if (rc)
        return rc;
    out->achieved_fps = fmin(req->fps, reach);
    out->valid = lb_rate_valid(req->fps, out->achieved_fps, 0.01);
    out->reason = out->valid ? LB_INVALID_NONE : LB_INVALID_TX_SLOW;
    return 0;
}

/* One goal of the defaults over 1 s trials, loads 1000 .. 1e6 fps. */
static struct lb_mlr_conf conf1(void)
{
    struct lb_mlr_conf c = {.min_fps = 1000, .max_fps = 1e6, .n_goals = 1, .max_trials = 100};
    lb_mlr_goal_default(&c.goal[0], 1.0);
    return c;
}

/*
 * With the margin 0.05 the probe (400000 reached of 1e6) caps the max load
 * at floor(400000 * 0.95) = 380000, below every later reach: the search's
 * three trials (one per target, 0.25, 0.5, 1 s) are all at 380000 and all
 * valid, and the result is 380000 exactly, sender-bound. The probe says
 * which margin it took (the larger of margin and tolerance).
 */
START_TEST(test_margin_valid)
{
    struct lb_mlr_conf c = conf1();
    struct varying v = varying0;
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0.05, varying_trial, &v, &p), 0);
    ck_assert(!p.valid && p.reason == LB_INVALID_TX_SLOW && p.achieved_fps == 400000);
    ck_assert(p.capped && p.margin == 0.05 && p.max_fps == 380000 && c.max_fps == 380000);
    ck_assert_int_eq(lb_mlr_search(&c, varying_trial, &v, &r), 0);
    ck_assert_uint_eq(r.n_trials, 3);
    ck_assert_uint_eq(r.invalid, 0);
    for (unsigned i = 0; i < r.n_trials; i++)
        ck_assert(r.trial[i].fps == 380000 && r.trial[i].valid &&
                  r.trial[i].achieved_fps == 380000);
    const struct lb_mlr_goal_result *g = &r.goal[0];
    ck_assert(g->found && g->lower_fps == 380000 && g->upper_fps == 0);
    ck_assert(g->conditional_fps == 380000);
    ck_assert_int_eq(g->bound_by, LB_MLR_BY_SENDER);
    lb_mlr_free(&r);
}
END_TEST

/*
 * The same sender with the tolerance alone (margin 0, or any margin below
 * it): the max load is 396000 and the first trial there (388000 reached,
 * 2 % short) is invalid, as on the cable. A margin below the tolerance
 * changes nothing; a negative or whole margin is refused before any trial.
 */
START_TEST(test_margin_tolerance_only)
{
    struct lb_mlr_conf c = conf1();
    struct varying v = varying0;
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0.005, varying_trial, &v, &p), 0);
    ck_assert(p.capped && p.margin == 0.01 && c.max_fps == 396000);
    ck_assert_int_eq(lb_mlr_search(&c, varying_trial, &v, &r), 0);
    ck_assert(r.trial[0].fps == 396000 && !r.trial[0].valid);
    ck_assert(r.trial[0].achieved_fps == 388000);
    ck_assert_uint_gt(r.invalid, 0);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_SENDER);
    lb_mlr_free(&r);
    unsigned calls = v.calls;
    c = conf1();
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, -0.1, varying_trial, &v, &p), -EINVAL);
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 1, varying_trial, &v, &p), -EINVAL);
    ck_assert(!p.ran && v.calls == calls && c.max_fps == 1e6);
}
END_TEST

/* How many of r's trials were asked at fps. */
static unsigned trials_at(const struct lb_mlr_result *r, double fps)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->n_trials; i++)
        n += r->trial[i].fps == fps;
    return n;
}

/*
 * A goal whose exceed ratio (0.5, duration sum 3 s) lets a short invalid
 * trial leave a load undecided for the longer targets. Once a trial at the
 * max load the probe capped (396000, tolerance alone) is invalid, the
 * sender is known to miss it, so the search never asks it again: one trial
 * there of 13, 5 invalid (all inside the sender's variation: 391980 asked,
 * 383000 and 386000 reached; 392981 asked, 383000 and 386000 reached),
 * bounds 391480 .. 392981, sender-bound. The same max load given as the
 * configured one (not the sender's) is asked 3 times (0.25, 0.5, 1 s),
 * every time invalid: 7 invalid of 13.
 */
START_TEST(test_sender_missed_max)
{
    struct lb_mlr_conf c = conf1();
    struct varying v = varying0;
    struct lb_mlr_probe p;
    struct lb_mlr_result r;

    c.goal[0].exceed_ratio = 0.5;
    c.goal[0].duration_sum = 3;
    ck_assert_int_eq(lb_mlr_probe(&c, 0.01, 0, varying_trial, &v, &p), 0);
    ck_assert(c.max_fps == 396000 && c.max_is_sender);
    ck_assert_int_eq(lb_mlr_search(&c, varying_trial, &v, &r), 0);
    ck_assert_uint_eq(r.n_trials, 13);
    ck_assert_uint_eq(trials_at(&r, 396000), 1);
    ck_assert(r.trial[0].fps == 396000 && !r.trial[0].valid && r.trial[0].target == 2);
    ck_assert_uint_eq(r.invalid, 5);
    ck_assert(r.goal[0].lower_fps == 391480 && r.goal[0].upper_fps == 392981);
    ck_assert_int_eq(r.goal[0].bound_by, LB_MLR_BY_SENDER);
    lb_mlr_free(&r);
    v = varying0;
    v.calls = 1;                                /* no probe: the same later reaches */
    c.max_is_sender = 0;
    ck_assert_int_eq(lb_mlr_search(&c, varying_trial, &v, &r), 0);
    ck_assert_uint_eq(r.n_trials, 13);
    ck_assert_uint_eq(trials_at(&r, 396000), 3);
    ck_assert_uint_eq(r.invalid, 7);
    ck_assert(r.goal[0].lower_fps == 393985 && r.goal[0].upper_fps == 394991);
    lb_mlr_free(&r);
}
END_TEST

/* A sender whose every trial after the probe reaches between 0 and 4.5 %
 * less than the probe (a 32-bit LCG, seed given), on a device of capacity
 * 300000 .. 800000 fps from the same generator. */
struct random_sender {
    struct lb_emu e;
    uint32_t x;
    unsigned calls;
};

static double lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return (double)(*x >> 8) / (double)(1u << 24);
}

static int random_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct random_sender *v = ctx;
    double reach = v->calls++ ? 400000 * (1 - 0.045 * lcg(&v->x)) : 400000;
    int rc = lb_emu_trial(&v->e, req, out);
    if (rc)
        return rc;
    out->achieved_fps = fmin(req->fps, reach);
    out->valid = lb_rate_valid(req->fps, out->achieved_fps, 0.01);
    out->reason = out->valid ? LB_INVALID_NONE : LB_INVALID_TX_SLOW;
    return 0;
}

/* 200 searches (probe, then the default goal) with the given margin: the
 * invalid trials and all trials, summed. */
static void random_searches(double margin, unsigned *invalid, unsigned *trials)
{
    *invalid = *trials = 0;
    for (uint32_t seed = 1; seed <= 200; seed++) {
        struct random_sender v = {.x = seed * 2654435761u};
        v.e.capacity_fps = 300000 + 500000 * lcg(&v.x);
        struct lb_mlr_conf c = conf1();
        struct lb_mlr_probe p;
        struct lb_mlr_result r;
        ck_assert_int_eq(lb_mlr_probe(&c, 0.01, margin, random_trial, &v, &p), 0);
        ck_assert(p.capped && c.max_fps == floor(400000 * (1 - fmax(0.01, margin))));
        ck_assert_int_eq(lb_mlr_search(&c, random_trial, &v, &r), 0);
        ck_assert(r.goal[0].found && !r.timed_out);
        *invalid += r.invalid;
        *trials += r.n_trials;
        lb_mlr_free(&r);
    }
}

/*
 * Over 200 such senders and devices: with the margin 0.05 no search trial
 * is invalid (the max load, 380000, is below every later reach, the
 * lowest 382000), 783 trials in all; with the tolerance alone (max load
 * 396000) 361 of 1475 are, and the searches take nearly twice the trials.
 */
START_TEST(test_margin_random)
{
    unsigned inv, n;

    random_searches(0.05, &inv, &n);
    ck_assert_uint_eq(inv, 0);
    ck_assert_uint_eq(n, 783);
    random_searches(0.01, &inv, &n);
    ck_assert_uint_eq(inv, 361);
    ck_assert_uint_eq(n, 1475);
}
END_TEST

/* --probe-margin: 0.05 by default, 0 to 0.5, anything else refused. */
START_TEST(test_margin_option)
{
    struct lb_opts o;
    char *ok[] = {"loopback", "--tx", "net_null0", "--rx", "net_null1", "--search", "mlr",
                  "--probe-margin", "0.1", NULL};
    char *zero[] = {"loopback", "--tx", "net_null0", "--rx", "net_null1", "--probe-margin", "0",
                    NULL};
    char *big[] = {"loopback", "--tx", "net_null0", "--rx", "net_null1", "--probe-margin", "0.6",
                   NULL};

    lb_opts_default(&o);
    ck_assert(o.probe_margin == 0.05);
    ck_assert_int_eq(lb_opts_parse(9, ok, &o), 0);
    ck_assert(o.probe_margin == 0.1 && o.mlr);
    lb_opts_default(&o);
    ck_assert_int_eq(lb_opts_parse(7, zero, &o), 0);
    ck_assert(o.probe_margin == 0);
    lb_opts_default(&o);
    ck_assert_int_eq(lb_opts_parse(7, big, &o), -EINVAL);
}
END_TEST

Suite *lb_mlr_margin_suite(void);   /* called by check-main.c, which has no header */

Suite *lb_mlr_margin_suite(void)
{
    Suite *s = suite_create("lb_mlr_margin");
    TCase *tc = tcase_create("margin");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_margin_valid);
    tcase_add_test(tc, test_margin_tolerance_only);
    tcase_add_test(tc, test_sender_missed_max);
    tcase_add_test(tc, test_margin_option);
    tcase_add_test(tc, test_margin_random);
    suite_add_tcase(s, tc);
    return s;
}
