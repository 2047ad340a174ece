/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_idle.c - unit tests of the simulated idle back-off: the wake-up delay of lib/ebf_idle.c's rule, exactly, and what it adds to a farm's latency. */
#include <check.h>
#include <stdint.h>

#include "sim_idle.h"
#include "test-sim-rig.h"

#define US 1000000ull            /* ps */

/*
 * Cap 200 us, each sleep 70 us longer than asked, 100 us of polling first.
 * The sleeps after the last work: 1 us (ends at 100 + 71 = 171 us), 2
 * (243), 4 (317), 8 (395), 16 (481), 32 (583), 64 (717), 128 (915); then
 * 200 each (270 us with the overshoot), at the cap from 915 us on.
 */
static const struct {
    uint64_t idle;               /* since the last work */
    double u;
    uint64_t wake;               /* delay to the next poll */
    int capped;
} rule[] = {
    {0, 0.5, 0, 0},
    {99 * US, 0.5, 0, 0},            /* still polling */
    {100 * US, 0.5, 71 * US, 0},     /* the first sleep has begun: its end */
    {170 * US, 0.5, 1 * US, 0},
    {171 * US, 0.5, 72 * US, 0},     /* the second, 2 us + 70 */
    {500 * US, 0.5, 83 * US, 0},     /* in the 32 us sleep, 481 to 583 */
    {914 * US, 0.9, 1 * US, 0},      /* the last of the doubling ones */
    {915 * US, 0.0, 0, 1},           /* at the cap: u of 270 us */
    {915 * US, 0.5, 135 * US, 1},
    {10000 * US, 0.25, 67500000, 1},
};

START_TEST(test_rule)
{
    struct sim_idle w;

    sim_idle_init(&w, 200, 70, 100);
    for (unsigned i = 0; i < sizeof(rule) / sizeof(rule[0]); i++) {
        uint64_t d = sim_idle_wake(&w, rule[i].idle, rule[i].u);
        ck_assert_msg(d == rule[i].wake, "case %u: wake %ju ps, want %ju", i, (uintmax_t)d,
                      (uintmax_t)rule[i].wake);
        ck_assert_int_eq(sim_idle_capped(&w, rule[i].idle), rule[i].capped);
    }
    sim_idle_init(&w, 0, 70, 100);   /* idle: spin */
    ck_assert_uint_eq(sim_idle_wake(&w, 10000 * US, 0.5), 0);
    ck_assert_int_eq(sim_idle_capped(&w, 10000 * US), 0);
}
END_TEST

/* One source, one SFC, one node: 100 fixed triggers a second for 10 s,
 * a fixed 1000 us trigger time, one 1 KiB frame an event. */
static void farm(struct sim_conf *c, int backoff, struct sim_result *r)
{
    sim_conf_defaults(c);
    c->sources = 1;
    c->nodes_per_sfc = 1;
    c->rate_hz = 100;
    c->duration_s = 10;
    c->trigger = SIM_DIST_FIXED;
    c->trigger_us = 1000;
    if (backoff) {
        c->idle_sleep_us = 200;
        c->idle_extra_us = 70;
        c->idle_spin_us = 100;
    }
    sim_rig_run(c, r);
    ck_assert_int_eq(r->l.closed, 1);
    ck_assert_uint_eq(r->l.accepted + r->l.rejected, 1000);
}

/*
 * 10 ms between events: the SFC and the node have slept at the cap for
 * about 9 ms when an event comes, so each event but the first finds both
 * asleep (two wake-ups; the model's daemons start polling at time 0, and
 * event 0 comes within their spin) and waits for each between 0 and 270 us: its latency is the
 * spinning farm's (every event the same) plus 0 to 540 us, 270 on
 * average (the mean of 1,000 sums of two uniform waits lies within 3.5
 * us of that, one standard deviation; 20 us is 5.7 of them).
 */
START_TEST(test_farm_latency)
{
    struct sim_conf c;
    static struct sim_result spin, bo;

    farm(&c, 0, &spin);
    ck_assert_uint_eq(spin.wakes, 0);
    ck_assert_uint_eq(spin.latency_ns.min, spin.latency_ns.max);
    farm(&c, 1, &bo);
    ck_assert_uint_eq(bo.wakes, 2 * 999);
    ck_assert_uint_ge(bo.latency_ns.min, spin.latency_ns.min);
    ck_assert_uint_le(bo.latency_ns.max, spin.latency_ns.min + 540000);
    double mean = (double)bo.latency_ns.sum / (double)bo.latency_ns.count;
    ck_assert_msg(mean > (double)spin.latency_ns.min + 250000 &&
                  mean < (double)spin.latency_ns.min + 290000,
                  "mean latency %.0f ns, the spinning farm's %ju", mean,
                  (uintmax_t)spin.latency_ns.min);
    /* what the latencies gained is what the wake-ups waited (ns, each
     * latency truncated to whole ns: 1,000 of them at most) */
    int64_t gained = (int64_t)(bo.latency_ns.sum - 1000 * spin.latency_ns.min);
    int64_t waited = (int64_t)(bo.wake_ps / 1000);
    ck_assert_msg(gained - waited <= 1000 && waited - gained <= 1000, "gained %jd ns, waited %jd",
                  (intmax_t)gained, (intmax_t)waited);
}
END_TEST

Suite *sim_idle_suite(void);

Suite *sim_idle_suite(void)
{
    Suite *s = suite_create("sim_idle");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_rule);
    tcase_add_test(tc, test_farm_latency);
    suite_add_tcase(s, tc);
    return s;
}
