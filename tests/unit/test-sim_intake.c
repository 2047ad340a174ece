/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_intake.c - unit tests of a simulated SFC's back-pressure: its sfc_throttle and its intake pause, exact counts. */
#include <check.h>
#include <stdint.h>

#include "test-sim-rig.h"

/*
 * One SFC of 4 nodes of 8 credits, a table of 64 events, 4 sources of
 * 1 KiB (one frame each), 1 kHz fixed for 1 s; the nodes take 10 ms an
 * event (fixed), 400 events/s together: the SFC's table fills. The
 * throttle (sfc_throttle) is on at 48 events held, off at 32; the intake
 * pauses at 56 complete and unacked events (7/8), rx_ring frames wait.
 */
static void slow(struct sim_conf *c, const char *rx_ring, const char *link_us)
{
    sim_conf_defaults(c);
    sim_rig_set(c, "trigger", "fixed");
    sim_rig_set(c, "trigger_us", "10000");
    sim_rig_set(c, "capacity", "64");
    sim_rig_set(c, "rx_ring", rx_ring);
    sim_rig_set(c, "link_latency_us", link_us);
}

/* 1 us links: the readouts hear the throttle at once; the table stays at
 * most 48 held, the intake never pauses, nothing is lost; the triggers
 * wait 0.59 s of the second (436 of 1,000 made). */
START_TEST(test_throttle)
{
    struct sim_conf c;
    struct sim_result r;

    slow(&c, "1024", "1");
    sim_rig_run(&c, &r);
    ck_assert_int_eq(r.l.closed, 1);
    ck_assert_uint_eq(r.l.generated, 436);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.throttle_on, 16);
    ck_assert_uint_eq(r.evtab_peak, 48);
    ck_assert_uint_eq(r.intake_pauses, 0);
    ck_assert_msg(r.held_s > 0.592 && r.held_s < 0.593, "%f", r.held_s);
}
END_TEST

/* 10 ms links: the readouts hear the throttle 20 ms late and go on
 * sending. Without the intake pause (rx_ring 0) the table fills: 60
 * events event_table_full. With it the SFC stops reading its port at 56
 * and the frames wait in its ring (111 at most of 1,024): nothing lost.
 * With a ring of 16 the NIC misses 597 frames: 15 events built
 * incomplete, and 138 whose every frame was missed reach no SFC: no
 * process knows them, and the ledger does not close. */
START_TEST(test_intake_pause)
{
    struct sim_conf c;
    struct sim_result r;

    slow(&c, "0", "10000");
    sim_rig_run(&c, &r);
    ck_assert_int_eq(r.l.closed, 1);
    ck_assert_uint_eq(r.l.generated, 440);
    ck_assert_uint_eq(r.l.lost[SIM_LOST_TABLE_FULL], 60);
    ck_assert_uint_eq(r.l.lost_total, 60);
    ck_assert_uint_eq(r.evtab_peak, 64);

    slow(&c, "1024", "10000");
    sim_rig_run(&c, &r);
    ck_assert_int_eq(r.l.closed, 1);
    ck_assert_uint_eq(r.l.generated, 420);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.intake_pauses, 5);
    ck_assert_uint_eq(r.rx_ring_peak, 111);
    ck_assert_uint_eq(r.rx_missed, 0);
    ck_assert_uint_eq(r.evtab_peak, 49);

    slow(&c, "16", "10000");
    sim_rig_run(&c, &r);
    ck_assert_uint_eq(r.l.generated, 520);
    ck_assert_uint_eq(r.rx_missed, 597);
    ck_assert_uint_eq(r.rx_ring_peak, 16);
    ck_assert_uint_eq(r.l.incomplete, 15);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_int_eq(r.l.unaccounted, 138);
    ck_assert_int_eq(r.l.closed, 0);
}
END_TEST

Suite *sim_intake_suite(void);   /* called by check-main.c, which has no header */

Suite *sim_intake_suite(void)
{
    Suite *s = suite_create("sim_intake");
    TCase *tc = tcase_create("intake");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_throttle);
    tcase_add_test(tc, test_intake_pause);
    suite_add_tcase(s, tc);
    return s;
}
