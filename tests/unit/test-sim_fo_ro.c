/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_fo_ro.c - unit tests of per-readout failover in the simulated farm: readouts that detect a death at their own moments, replay ends, the survivor's replay rules, a false death fenced on dead notices; exact counts, the ledger closed. */
#include <check.h>
#include <stdint.h>

#include "test-sim-rig.h"

/* test-sim_fo.c's base farm (sim_rig_base: 4 sources, 2 SFCs of 4
 * nodes, 1 kHz fixed for 1 s, 1 KiB fragments, 100 us trigger time) with
 * failover, two readouts of 2 sources each. Every run's ledger is
 * asserted closed (sim_rig_run_closed). */
static void base(struct sim_conf *c)
{
    sim_rig_base(c, 1);
    sim_rig_set(c, "readouts", "2");
}

/* SFC 1 dies at 0.5 s (its last release frame left at 0.49 s); readout 1
 * hears the release frames 20 ms after readout 0 (ro_release_lag_ms), so
 * it declares the death at 0.611 s, readout 0 at 0.591 s. Each replays
 * its own records: readout 0 SFC 1's 50 unreleased events (ids 491 to
 * 589 of its share), readout 1 those 50 and the 10 more of SFC 1's share
 * it sent it dead meanwhile (591 to 609: readout 0 sent those to SFC 0 as
 * new events: their events complete there with readout 1's replay), 110
 * sendings in all; each readout then sends one replay end to SFC 0. No
 * replayed event times out, none is dropped partial; 5 were decided by
 * SFC 1's nodes after its last release (redecided), 245 before (of
 * record); nothing lost. */
START_TEST(test_lag)
{
    struct sim_conf c;
    struct sim_result r;

    base(&c);
    sim_rig_set(&c, "ro_release_lag_ms", "20");
    sim_rig_fault(&c, "sfc_death 1 0.5");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.sfc_deaths, 1);
    ck_assert_double_eq_tol(r.detected_s, 0.591, 1e-9);
    ck_assert_double_eq_tol(r.detected_last_s, 0.611, 1e-9);
    ck_assert_uint_eq(r.replayed, 50 + 60);
    ck_assert_uint_eq(r.l.replay_acked, 60);
    ck_assert_uint_eq(r.replay_ends_sent, 2);
    ck_assert_uint_eq(r.replay_ends, 2);
    ck_assert_uint_eq(r.replay_partial, 0);
    ck_assert_uint_eq(r.replay_waits, 0);
    ck_assert_uint_eq(r.replay_dup, 0);
    ck_assert_uint_eq(r.l.redecided, 5);
    ck_assert_uint_eq(r.l.gone_decided, 245);
    ck_assert_uint_eq(r.l.incomplete, 0);
    ck_assert_uint_eq(r.notices_due, 0);

    /* without the lag both detect at 0.591 s and replay the same 50 */
    base(&c);
    sim_rig_fault(&c, "sfc_death 1 0.5");
    sim_rig_run_closed(&c, &r);
    ck_assert_double_eq_tol(r.detected_last_s, 0.591, 1e-9);
    ck_assert_uint_eq(r.replayed, 2 * 50);
    ck_assert_uint_eq(r.l.replay_acked, 50);
    ck_assert_uint_eq(r.replay_partial, 0);
}
END_TEST

/* The same with 30% of the release frames lost on the way to each
 * readout (release_loss, seed 1): the readouts last heard SFC 1 at
 * different rounds, readout 0 detects at 0.581 s. 5 events one readout
 * had released and the other replayed reach SFC 0 with one readout's
 * pieces only; at their timeout (the 1 s grace) the replay ends prove
 * them decided by SFC 1 (13.4 rule 1): dropped, replay.partial 5,
 * replay.ended 5; of record at SFC 1's nodes, the ledger closes. The
 * daemon's old rule (replay_lost_piece 0) agrees: no piece was lost here. */
START_TEST(test_partial)
{
    struct sim_conf c;
    struct sim_result r;

    for (int daemon = 0; daemon < 2; daemon++) {
        base(&c);
        sim_rig_set(&c, "ro_release_lag_ms", "20");
        sim_rig_set(&c, "release_loss", "0.3");
        sim_rig_set(&c, "replay_lost_piece", daemon ? "0" : "1");
        sim_rig_fault(&c, "sfc_death 1 0.5");
        sim_rig_run_closed(&c, &r);
        ck_assert_uint_eq(r.l.lost_total, 0);
        ck_assert_uint_eq(r.release_lost, 126);
        ck_assert_double_eq_tol(r.detected_s, 0.581, 1e-9);
        ck_assert_double_eq_tol(r.detected_last_s, 0.611, 1e-9);
        ck_assert_uint_eq(r.replayed, 110);
        ck_assert_uint_eq(r.l.replay_acked, 60);
        ck_assert_uint_eq(r.replay_partial, 5);
        ck_assert_uint_eq(r.replay_ended, 5);
        ck_assert_uint_eq(r.replay_wait_cap, 0);
        ck_assert_uint_eq(r.replay_unsound, 0);
        ck_assert_uint_eq(r.l.redecided, 5);
    }
}
END_TEST

/* test-sim_fo.c's 100 kHz farm (sim_rig_fast: 2 sources, one readout),
 * SFC 1 restarted at 0.1 s for 20 ms, on the default 512 KiB switch
 * ports: the replay burst loses 1,210 frames. The replayed events that lost a piece wait
 * out the survivor's 1 s grace (13.4) and hold its low, so the readout's
 * 32 MiB (32,768 events, 0.33 s of ids) fills and holds the trigger
 * 0.698 s: 43,232 events generated of 100,000. At their timeout the model
 * builds them incomplete (the readout did send them: a piece was lost on
 * the way, replay_unsound 1,058); the daemon's old rule (replay_lost_piece
 * 0) finds them proven decided by the readout's own replay end and drops
 * them (replay.partial = replay.ended = 1,058), which no node decided:
 * the ledger is 1,058 short. */
START_TEST(test_grace)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_fast(&c);
    sim_rig_fault(&c, "sfc_restart 1 0.1 0.02");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.generated, 43232);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.switch_drops, 1210);
    ck_assert_double_eq_tol(r.replay_held_s, 0.698, 0.0005);
    ck_assert_uint_eq(r.replay_unsound, 1058);
    ck_assert_uint_eq(r.replay_partial, 0);

    sim_rig_fast(&c);
    sim_rig_set(&c, "replay_lost_piece", "0");
    sim_rig_fault(&c, "sfc_restart 1 0.1 0.02");
    sim_rig_run(&c, &r);
    ck_assert_uint_eq(r.replay_partial, 1058);
    ck_assert_uint_eq(r.replay_ended, 1058);
    ck_assert_int_eq(r.l.unaccounted, 1058);
    ck_assert_int_eq(r.l.closed, 0);
}
END_TEST

/* SFC 1's release frames muted from 0.305 s for 0.3 s (sfc_mute, the
 * SFC's test action `mute`), its loop running: its rounds of 0.31 to
 * 0.60 s are lost (30); both readouts last heard it at 0.30 s (low 300)
 * and declare it dead at 0.401 s, replaying its 50 unreleased events
 * (its odd ids 301 to 399) to SFC 0: 100 sendings. Its round of 0.61 s
 * comes at the epoch it died in: a false death; each readout sends a
 * dead notice with its low frozen at 300 (13.4 rule 4); with both in,
 * SFC 1 fences at once with X 300: nothing was building, its 50 acks
 * from 300 on are recorded as decided twice (redecided 50, of record at
 * SFC 0), a new epoch announces its join at 66,148 (the 400 ids it
 * heard, 212 ms of ids since at 1 kHz, and the 65,536 at least), past
 * this run. The ledger closes. */
START_TEST(test_muted)
{
    struct sim_conf c;
    struct sim_result r;

    base(&c);
    sim_rig_fault(&c, "sfc_mute 1 0.305 0.3");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.release_muted, 30);
    ck_assert_uint_eq(r.sfc_deaths, 1);
    ck_assert_double_eq_tol(r.detected_s, 0.401, 1e-9);
    ck_assert_double_eq_tol(r.detected_last_s, 0.401, 1e-9);
    ck_assert_uint_eq(r.replayed, 2 * 50);
    ck_assert_uint_eq(r.l.replay_acked, 50);
    ck_assert_uint_eq(r.notices_due, 2);
    ck_assert_uint_eq(r.notices_taken, 2);
    ck_assert_uint_eq(r.fences, 1);
    ck_assert_uint_eq(r.replay_fenced, 0);
    ck_assert_uint_eq(r.fence_acked, 50);
    ck_assert_uint_eq(r.l.redecided, 50);
    ck_assert_uint_eq(r.join_at, 400 + 212 + 65536);
    ck_assert_uint_eq(r.joins, 0);
    ck_assert_uint_eq(r.fence_held, 0);

    /* Readout 1 hears the frames 10 ms after readout 0: it sent SFC 1
     * its pieces of 401 to 409 (5) before it declared it dead at 0.411
     * s, built incomplete there (readout 0 sent its pieces to SFC 0).
     * Readout 0's notice comes at 0.611 s, readout 1's at 0.621 s,
     * within SFC_NOTICE_WAIT_NS (20 ms): X 300, 55 acks recorded (the
     * 50 and the 5), closed; readout 0's second notice is taken too, and
     * readout 1's frame of 0.62 s, heard after the fence but before the
     * new epoch's frame, makes a fourth notice, of the old epoch, ignored. */
    base(&c);
    sim_rig_set(&c, "ro_release_lag_ms", "10");
    sim_rig_fault(&c, "sfc_mute 1 0.305 0.3");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.replayed, 50 + 55);
    ck_assert_uint_eq(r.l.incomplete, 5);
    ck_assert_uint_eq(r.notices_due, 4);
    ck_assert_uint_eq(r.notices_taken, 3);
    ck_assert_uint_eq(r.fence_acked, 55);
    ck_assert_uint_eq(r.l.redecided, 55);
}
END_TEST

/* A finding about 13.4 rule 4: a declaring readout whose notice comes
 * later than SFC_NOTICE_WAIT_NS after the first. Readout 1 hears the
 * frames 30 ms late: its notice reaches SFC 1 at 0.641 s, after the
 * 20 ms wait, so the fence takes its last round's low as X: 400 (its
 * sources' lowest next id: readout 0 last sent it 399), which readout 1
 * did not accept (it holds 300 frozen, as readout 0). Only the acks
 * from 400 on are recorded (401 to 429, 15, built incomplete there);
 * both readouts replayed 301 to 399, complete at SFC 0 and decided
 * there, while SFC 1's decisions of them below X count as of record:
 * 50 ids decided twice, the ledger 50 over. The daemon's rule (X the
 * last low when a readout sent no notice) assumes that readout still
 * routes to the SFC; the same ids would be counted twice by the farm's
 * ledger. */
START_TEST(test_muted_late_notice)
{
    struct sim_conf c;
    struct sim_result r;

    base(&c);
    sim_rig_set(&c, "ro_release_lag_ms", "30");
    sim_rig_fault(&c, "sfc_mute 1 0.305 0.3");
    sim_rig_run(&c, &r);
    ck_assert_double_eq_tol(r.detected_last_s, 0.431, 1e-9);
    ck_assert_uint_eq(r.replayed, 50 + 65);
    ck_assert_uint_eq(r.l.incomplete, 15);
    ck_assert_uint_eq(r.notices_taken, 2);
    ck_assert_uint_eq(r.fences, 1);
    ck_assert_uint_eq(r.fence_acked, 15);
    ck_assert_uint_eq(r.l.redecided, 15);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_int_eq(r.l.unaccounted, -50);
    ck_assert_int_eq(r.l.closed, 0);
}
END_TEST

Suite *sim_fo_ro_suite(void);   /* called by check-main.c, which has no header */

Suite *sim_fo_ro_suite(void)
{
    Suite *s = suite_create("sim_fo_ro");
    TCase *tc = tcase_create("readouts");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lag);
    tcase_add_test(tc, test_partial);
    tcase_add_test(tc, test_grace);
    tcase_add_test(tc, test_muted);
    tcase_add_test(tc, test_muted_late_notice);
    suite_add_tcase(s, tc);
    return s;
}
