/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_skew.c - unit tests of the simulated readouts' start skew: readout r of R sends each event r / (R - 1) of ro_skew_us late, and an event's latency counts from the earliest send. */
#include <check.h>
#include <stdint.h>

#include "test-sim-rig.h"

/* Eight sources, one SFC, one node, spinning: 100 fixed triggers a
 * second for 2 s, a fixed 1000 us trigger time, one 1 KiB frame a
 * fragment; readouts of them with skew_us between the first and last. */
static void farm(struct sim_conf *c, uint32_t readouts, double skew_us, struct sim_result *r)
{
    sim_conf_defaults(c);
    c->sources = 8;
    c->nodes_per_sfc = 1;
    c->rate_hz = 100;
    c->duration_s = 2;
    c->trigger = SIM_DIST_FIXED;
    c->trigger_us = 1000;
    c->readouts = readouts;
    c->ro_skew_us = skew_us;
    sim_rig_run(c, r);
    ck_assert_int_eq(r->l.closed, 1);
    ck_assert_uint_eq(r->l.accepted + r->l.rejected, 200);
}

/*
 * Every event alike, 10 ms apart (nothing queues): four readouts 3 ms
 * apart from first to last add exactly 3 ms to each event's latency less
 * what the unskewed event spent waiting for the last source's frame on
 * the SFC's port (8 frames of 1,106 bytes at 10 Gbit/s arrive one after
 * another: the last of them, source 7's, comes 7 frame times after the
 * first; skewed, it comes after readout 3's frames alone, 1 frame time
 * after source 6's); one readout with any skew, or a skew of 0, changes
 * nothing.
 */
START_TEST(test_skew_latency)
{
    struct sim_conf c;
    static struct sim_result base, one, skew;

    farm(&c, 1, 0, &base);
    ck_assert_uint_eq(base.latency_ns.min, base.latency_ns.max);
    farm(&c, 1, 3000, &one);
    ck_assert_uint_eq(one.latency_ns.min, base.latency_ns.min);
    ck_assert_uint_eq(one.latency_ns.max, base.latency_ns.max);
    farm(&c, 4, 0, &one);
    ck_assert_uint_eq(one.latency_ns.min, base.latency_ns.min);
    farm(&c, 4, 3000, &skew);
    ck_assert_uint_eq(skew.latency_ns.min, skew.latency_ns.max);
    int64_t gained = (int64_t)skew.latency_ns.min - (int64_t)base.latency_ns.min;
    ck_assert_msg(gained > 3000000 - 10000 && gained <= 3000000, "gained %jd ns",
                  (intmax_t)gained);
}
END_TEST

/* More readouts than sources is refused. */
START_TEST(test_check)
{
    struct sim_conf c;
    char err[256] = "";

    sim_conf_defaults(&c);
    c.sources = 4;
    c.readouts = 5;
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.readouts': 5 readouts for 4 sources (each sends at least one)");
}
END_TEST

Suite *sim_skew_suite(void);

Suite *sim_skew_suite(void)
{
    Suite *s = suite_create("sim_skew");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_skew_latency);
    tcase_add_test(tc, test_check);
    suite_add_tcase(s, tc);
    return s;
}
