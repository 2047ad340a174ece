/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_fo.c - unit tests of failover and dropped acks in the simulated farm: exact counts, the ledger closed. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "test-sim-rig.h"

/*
 * The base farm of test-sim_farm.c (sim_rig_base: 4 sources, 2 SFCs of 4
 * nodes, 1 kHz fixed for 1 s, 1 KiB fragments, fixed 100 us trigger
 * time, 10 GbE) with failover on: release frames every 10 ms, death
 * after 100 ms of silence, 32 MiB replay buffers. Every run's ledger is
 * asserted closed (sim_rig_run_closed).
 */

/* Failover on and no fault: every event goes where it would without
 * (the route with nothing dead is e % n), decided the same; release
 * frames every 10 ms from each SFC, all of it released at the end. */
START_TEST(test_no_fault_same)
{
    struct sim_conf c;
    struct sim_result off, on;

    sim_rig_base(&c, 0);
    sim_rig_run_closed(&c, &off);
    sim_rig_base(&c, 1);
    sim_rig_run_closed(&c, &on);
    ck_assert_uint_eq(on.l.accepted, off.l.accepted);
    ck_assert_uint_eq(on.l.rejected, off.l.rejected);
    ck_assert_uint_eq(on.latency_ns.sum, off.latency_ns.sum);
    ck_assert_uint_eq(on.l.lost_total, 0);
    ck_assert_uint_eq(on.sfc_deaths, 0);
    ck_assert_uint_eq(on.replayed, 0);
    /* 2 SFCs from t = 0 every 10 ms until the readouts' buffers are
     * empty: the round at 1.000 s releases the last event, and the
     * readouts hear it after the SFCs' round of 1.010 s was scheduled */
    ck_assert_uint_eq(on.release_frames, 2 * 102);
    /* an event is held from its sending to the next release after its
     * decision: at 1 kHz, 10 to 11 events of 1 KiB */
    ck_assert_uint_eq(on.replay_peak_events, 11);
    ck_assert_uint_eq(on.replay_peak_bytes, 11 * 1024);
}
END_TEST

/* SFC 1 dies at 0.5 s. Without failover its later events (250) are lost;
 * with it the readouts hear its last release at 0.49 s, declare it dead
 * 100 ms later, replay what it held to SFC 0 and route its share there:
 * nothing lost. */
START_TEST(test_sfc_death)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 1);
    sim_rig_fault(&c, "sfc_death 1 0.5");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.generated, 1000);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 1000);
    ck_assert_uint_eq(r.sfc_deaths, 1);
    ck_assert(r.died_s == 0.5);
    ck_assert_msg(r.detected_s > 0.589 && r.detected_s < 0.592, "%f", r.detected_s);
    /* its last release (0.49 s) had low 490: 491..499 it held for the
     * readouts (5) and 501..589 sent to it dead (45) are replayed */
    ck_assert_uint_eq(r.replayed, 50);
    ck_assert_uint_eq(r.l.replay_acked, 50);
    /* its nodes had decided 491..499 before it died: decided twice,
     * counted once (at SFC 0); its odd ids below 490 are of record */
    ck_assert_uint_eq(r.l.redecided, 5);
    ck_assert_uint_eq(r.l.gone_decided, 245);
    ck_assert_uint_eq(r.dead_sfc_frames, 4 * 45);
    /* 50 events over SFC 0's 4 nodes at 100 us each, after the detection */
    ck_assert_msg(r.recovered_s > 0.592 && r.recovered_s < 0.593, "%f", r.recovered_s);

    /* paced 1 ms apart, the 50th replay leaves 49 ms after the first */
    sim_rig_set(&c, "replay_gap_us", "1000");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.replay_acked, 50);
    ck_assert_msg(r.recovered_s > 0.640 && r.recovered_s < 0.641, "%f", r.recovered_s);

    /* the same pace between the new events: the same replays, and the
     * new events triggered during the 49 ms no longer wait behind them */
    struct sim_result q;
    sim_rig_set(&c, "replay_interleave", "1");
    sim_rig_run_closed(&c, &q);
    ck_assert_uint_eq(q.l.lost_total, 0);
    ck_assert_uint_eq(q.l.replay_acked, 50);
    ck_assert_msg(q.recovered_s > 0.640 && q.recovered_s < 0.641, "%f", q.recovered_s);
    ck_assert_uint_lt(q.latency_ns.sum, r.latency_ns.sum);
    ck_assert_uint_eq(q.latency_ns.count, r.latency_ns.count);
}
END_TEST

/* Both SFCs die: no place is left. SFC 0's last low was 690: its ids
 * from 690 on (its nodes decided 690..699 before it died, unreleased)
 * and every id after have no place: 310 sfc_lost. */
START_TEST(test_all_dead)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 1);
    sim_rig_fault(&c, "sfc_death 1 0.5");
    sim_rig_fault(&c, "sfc_death 0 0.7");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.sfc_deaths, 2);
    ck_assert_uint_eq(r.l.lost[SIM_LOST_SFC], r.l.lost_total);
    ck_assert_uint_eq(r.l.lost_total, 310);
}
END_TEST

/* A node stalls for 0.5 s: the events it holds keep its SFC's low down,
 * so the readouts' buffers grow; with a buffer of 16 events the trigger
 * is held until the SFC declares the node dead and sends them elsewhere. */
START_TEST(test_replay_full)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 1);
    sim_rig_set(&c, "replay_mb", "0.015625");
    sim_rig_fault(&c, "node_stall 5 0.3 0.5");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.replay_peak_events, 16);
    ck_assert_uint_eq(r.replay_dropped, 0);
    ck_assert_msg(r.replay_held_s > 0.25 && r.replay_held_s < 0.31, "%f", r.replay_held_s);
    ck_assert_uint_lt(r.l.generated, 1000);
}
END_TEST

/* Acks through the SFC's switch port: 100 sources paced over the whole
 * period into a port that holds one fragment frame; an ack that arrives
 * while a frame is in it is dropped: its event stays unacked and its
 * credit is gone for the rest of the run. */
START_TEST(test_ack_drop)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_set(&c, "sfcs", "1");
    sim_rig_set(&c, "sources", "100");
    sim_rig_set(&c, "frag_bytes", "1000");
    sim_rig_set(&c, "switch_buffer_kb", "1.1");
    sim_rig_set(&c, "ro_spread_us", "1000");
    sim_rig_set(&c, "trigger", "exponential");
    sim_rig_set(&c, "ack_port", "1");
    sim_rig_run_closed(&c, &r);
    /* 4 nodes of 8 credits: after 32 dropped acks no credit is left */
    ck_assert_uint_eq(r.ack_drops, 32);
    ck_assert_uint_eq(r.l.lost[SIM_LOST_UNACKED], 32);
    ck_assert_uint_eq(r.l.lost[SIM_LOST_NO_NODE], 655);
    ck_assert_uint_eq(r.l.lost_total, 32 + 655);
}
END_TEST

/* SFC 1 dies at 0.5 s and starts again, a new epoch, as `ebfarm
 * restart` has it: its old incarnation is gone, the new one announces a
 * join 65,536 ids ahead (past this run's end). After 300 ms the readouts
 * had declared it dead (at 0.59 s) and replayed what it held. After 20 ms
 * its new epoch is heard while it is routed to: a death too
 * (ro_failover), so its old incarnation's events are replayed, none freed
 * by the new one's releases. Either way the old incarnation's decisions
 * below its last release's low are of record, those above were replayed
 * and decided again (redecided, counted once): the ledger closes. */
START_TEST(test_sfc_restart)
{
    struct sim_conf c;
    struct sim_result r;
    char err[256];

    sim_rig_base(&c, 1);
    sim_rig_fault(&c, "sfc_restart 1 0.5 0.3");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.sfc_deaths, 1);
    ck_assert_uint_eq(r.sfc_restarts, 1);
    ck_assert_uint_eq(r.replayed, 50);
    ck_assert_uint_eq(r.l.redecided, 5);
    ck_assert_uint_eq(r.l.gone_decided, 245);
    ck_assert_uint_eq(r.join_at, 800 + 65536);   /* triggered 0..799 at 0.8 s */
    ck_assert_uint_eq(r.joins, 0);

    sim_rig_base(&c, 1);
    sim_rig_fault(&c, "sfc_restart 1 0.5 0.02");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.sfc_deaths, 1);
    ck_assert_uint_eq(r.sfc_restarts, 1);
    /* 491..499 it held (5), 501..519 sent to it dead (10) */
    ck_assert_uint_eq(r.replayed, 15);
    ck_assert_uint_eq(r.freed_by_restart, 0);
    ck_assert_uint_eq(r.l.redecided, 5);
    ck_assert_uint_eq(r.l.gone_decided, 245);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 1000);

    /* 5 ms trigger times: node 5 (SFC 1's) stalls from 0.3 s for 0.45 s;
     * declared dead, its events go to the other nodes, and it decides them
     * too once awake, after SFC 1 died (0.7 s) and before its restart (0.9
     * s): those decisions are duplicates, not of record (sim_node_taken;
     * counted, the ledger would count one event twice: unaccounted -1) */
    sim_rig_base(&c, 1);
    sim_rig_set(&c, "trigger_us", "5000");
    sim_rig_fault(&c, "node_stall 5 0.3 0.45");
    sim_rig_fault(&c, "sfc_restart 1 0.7 0.2");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.nodes_dead, 1);
    ck_assert_uint_eq(r.l.redispatched, 1);
    ck_assert_uint_eq(r.l.redecided, 30);

    sim_rig_base(&c, 0);                 /* it needs failover */
    sim_rig_fault(&c, "sfc_restart 1 0.5 0.02");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.faults[0]': sfc_restart needs sim.failover: 1");
}
END_TEST

/* The base farm at 100 kHz (sim_rig_fast: 2 sources, 10 us trigger
 * time) for 1 s, so that a join id is reached. SFC 1 restarts at 0.1 s,
 * back 20 ms later: its join id is the readouts' next id then (12,000)
 * plus 65,536 (half a second of ids is fewer); from there its share is
 * its own again. */
START_TEST(test_sfc_rejoin)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_fast(&c);
    /* lossless ports (memif rings): on the default 512 KiB ports the
     * replay burst loses 1,210 frames, its events wait out the survivor's
     * 1 s replay grace (13.4), hold its low, fill the readout's 32 MiB
     * (0.33 s of ids here) and hold the trigger 0.7 s: sim_fo_ro test_grace */
    sim_rig_set(&c, "switch_buffer_kb", "65536");
    sim_rig_fault(&c, "sfc_restart 1 0.1 0.02");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.generated, 100000);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.join_at, 12000 + 65536);
    ck_assert_uint_eq(r.joins, 1);
    ck_assert_uint_eq(r.joined_decided, (100000 - 77536) / 2);
}
END_TEST

/* SFC 1 drained at 0.1 s and undrained at 0.8 s (`ebfarm drain`,
 * `undrain`): its leave id is the highest id it heard plus 200 ms of ids,
 * at least 65,536; no event is replayed, none lost; from its join id its
 * share is its own again. */
START_TEST(test_sfc_drain)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_fast(&c);
    sim_rig_set(&c, "duration_s", "1.6");
    sim_rig_fault(&c, "sfc_drain 1 0.1");
    sim_rig_fault(&c, "sfc_undrain 1 0.9");
    sim_rig_run_closed(&c, &r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.replayed, 0);
    ck_assert_uint_eq(r.sfc_deaths, 0);
    ck_assert_uint_eq(r.leaves, 1);
    ck_assert_uint_eq(r.joins, 1);
    /* heard up to 9,999 at 0.1 s: 10,000 + 20,000 (200 ms) + 45,536 */
    ck_assert_uint_eq(r.leave_at, 75537);
    /* heard up to 75,535 (its last id before the leave) at 0.75535 s:
     * 75,536 + the 14,465 ids of the 144.65 ms since + 65,536 */
    ck_assert_uint_eq(r.join_at, 155537);
    ck_assert_uint_eq(r.joined_decided, 2232);
}
END_TEST

/* Failover names at most 256 SFCs (the readouts' dead set); its faults
 * need it. */
START_TEST(test_conf)
{
    struct sim_conf c;
    char err[512];

    sim_rig_base(&c, 1);
    sim_rig_set(&c, "sfcs", "257");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.failover': 257 SFCs are more than the 256 places a "
                          "readout's dead set can name (EBF_ROUTE_MAX, docs/protocol.md 13.1)");
    sim_rig_set(&c, "sfcs", "256");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), 0);
    sim_rig_set(&c, "sfc_dead_ms", "5");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);

    sim_rig_base(&c, 0);                 /* a drain needs failover; a bad target is named */
    sim_rig_fault(&c, "sfc_drain 1 0.5");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.faults[0]': sfc_drain needs sim.failover: 1");
    sim_rig_base(&c, 1);
    sim_rig_fault(&c, "sfc_undrain 2 0.5");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.faults[0]': SFC 2 does not exist (allowed: 0 to 1)");
    ck_assert_int_eq(sim_conf_fault(&c, "sfc_drain 1", err, sizeof(err)), -22);
    sim_rig_base(&c, 0);         /* a mute too */
    sim_rig_fault(&c, "sfc_mute 1 0.5 0.1");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.faults[0]': sfc_mute needs sim.failover: 1");
    ck_assert_int_eq(sim_conf_fault(&c, "sfc_mute 1 0.5", err, sizeof(err)), -22);
}
END_TEST

Suite *sim_fo_suite(void);   /* called by check-main.c, which has no header */

Suite *sim_fo_suite(void)
{
    Suite *s = suite_create("sim_fo");
    TCase *tc = tcase_create("failover");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_no_fault_same);
    tcase_add_test(tc, test_sfc_death);
    tcase_add_test(tc, test_all_dead);
    tcase_add_test(tc, test_replay_full);
    tcase_add_test(tc, test_ack_drop);
    tcase_add_test(tc, test_sfc_restart);
    tcase_add_test(tc, test_sfc_rejoin);
    tcase_add_test(tc, test_sfc_drain);
    tcase_add_test(tc, test_conf);
    suite_add_tcase(s, tc);
    return s;
}
