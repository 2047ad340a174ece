/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_farm.c - unit tests of the simulated farm: the ledger closes under every fault kind, exact counts, same seed same result. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "farmfile_types.h"
#include "test-sim-rig.h"

/*
 * The base farm (sim_rig_base, failover off): 4 sources, 2 SFCs with 4
 * nodes each, 1 kHz fixed triggers for 1 s (events 0..999, at 0, 1, ...,
 * 999 ms), 1 KiB fragments (one frame each), a fixed 100 us trigger time,
 * 10 GbE, 1 us links. Nothing is near a limit: every event is decided a
 * few hundred us after its trigger.
 */

/* The ledger of a base farm's run closed over its 1,000 events. */
static void closed(const struct sim_result *r)
{
    ck_assert_uint_eq(r->l.generated, 1000);
    sim_rig_closed(r);
}

START_TEST(test_no_fault)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 1000);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.incomplete, 0);
    ck_assert_uint_eq(r.frames, 4000);
    ck_assert_uint_eq(r.switch_drops, 0);
    ck_assert_uint_eq(r.latency_ns.count, 1000);
    ck_assert(r.latency_ns.min >= 100000);   /* the trigger time at least */
}
END_TEST

/* SFC 1 dies at 0.5 s: its ids (odd) below 500 were decided by its nodes
 * before (250), the other 250 are lost with it; SFC 0 takes its 500. */
START_TEST(test_sfc_death)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_fault(&c, "sfc_death 1 0.5");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.gone_decided, 250);
    ck_assert_uint_eq(r.l.lost[SIM_LOST_SFC], 250);
    ck_assert_uint_eq(r.l.lost_total, 250);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 750);
    ck_assert_uint_eq(r.sfc_gone_frames, 4 * 250 - r.dead_sfc_frames);
}
END_TEST

/* Node 0 dies at 0.5 s; its SFC declares it dead 300 ms later and sends
 * every event it held again: none lost. */
START_TEST(test_node_death)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_fault(&c, "node_death 0 0.5");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 1000);
    ck_assert_uint_eq(r.l.nodes_dead, 1);
    ck_assert_uint_ge(r.l.redispatched, 1);
    ck_assert_uint_eq(r.l.redispatched, r.dead_node_events);
    ck_assert_uint_eq(r.l.revived, 0);
}
END_TEST

/* Node 0 dies at 0.3 s and starts again at 0.7 s with a new epoch: its
 * SFC declared it dead at 0.6 s (its events went to the others) and
 * takes it back with fresh credits; nothing lost, and it decides again.
 * At 7 ms an event, SFC 0's 4 nodes take 571 events/s of its 500, 3 take
 * 429: without the restart its backlog grows to the end. */
START_TEST(test_node_restart)
{
    struct sim_conf c;
    struct sim_result r, d;

    sim_rig_base(&c, 0);
    sim_rig_set(&c, "trigger_us", "7000");
    sim_rig_fault(&c, "node_death 0 0.3");
    sim_rig_run(&c, &d);
    sim_rig_fault(&c, "node_restart 0 0.7");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.nodes_dead, 1);
    ck_assert_uint_eq(r.l.rejoins, 1);
    ck_assert_uint_eq(r.l.redispatched, d.l.redispatched);
    ck_assert_uint_eq(r.l.late_acks, 0);
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, 1000);
    ck_assert_uint_eq(r.dead_node_events, d.dead_node_events);
    /* node 0 takes events again from 0.7 s: the backlog shrinks */
    ck_assert_uint_lt(r.latency_ns.sum, d.latency_ns.sum);
}
END_TEST

/* Node 5 stalls 0.5 s from 0.3 s: declared dead at 0.6 s, its events
 * sent again; when it wakes it decides them anyway: each a late ack. A
 * stall shorter than the node timeout only delays. */
START_TEST(test_node_stall)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_fault(&c, "node_stall 5 0.3 0.5");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.nodes_dead, 1);
    ck_assert_uint_ge(r.l.redispatched, 1);
    ck_assert_uint_eq(r.l.late_acks, r.l.redispatched);
    ck_assert_uint_eq(r.l.revived, 1);  /* its first late ack: alive again */

    sim_rig_base(&c, 0);
    sim_rig_fault(&c, "node_stall 5 0.3 0.1");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_eq(r.l.nodes_dead, 0);
    ck_assert_uint_eq(r.l.late_acks, 0);
    ck_assert(r.latency_ns.max > 90000000);  /* an event waited out the stall */
}
END_TEST

/* Source 2's link is down from 0.5 s for 0.1 s: the 100 events triggered
 * then lack its fragment, time out and are decided incomplete. */
START_TEST(test_link_loss)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_fault(&c, "link_loss 2 0.5 0.1");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.link_lost, 100);
    ck_assert_uint_eq(r.timed_out, 100);
    ck_assert_uint_eq(r.l.incomplete, 100);
    ck_assert_uint_eq(r.l.lost_total, 0);
}
END_TEST

/*
 * Incast: 100 sources send their 1,000-byte fragment of each event at the
 * same instant to one SFC whose switch port has 10 KiB. A frame is 1,106
 * bytes on the wire (1,000 + 40 fragment header + 8 UDP + 20 IPv4 + 14
 * Ethernet + 24 FCS, preamble, gap): 9 fit (9,954), the 10th would need
 * 11,060 > 10,240. The port drains in 8 us, long before the next event: 91
 * drops per event, every event incomplete.
 */
START_TEST(test_incast)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_set(&c, "sfcs", "1");
    sim_rig_set(&c, "sources", "100");
    sim_rig_set(&c, "frag_bytes", "1000");
    sim_rig_set(&c, "switch_buffer_kb", "10");
    sim_rig_set(&c, "timeout_ms", "10");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.switch_drops, 91000);
    ck_assert_uint_eq(r.l.incomplete, 1000);
    ck_assert_uint_eq(r.port_peak, 9954);
    /* every frame found what was ahead of it: the 91 dropped a full port */
    ck_assert_uint_eq(r.port_occ.count, 100000);
    ck_assert_uint_eq(r.port_occ.min, 0);
    ck_assert_uint_eq(r.port_occ.max, 9954);

    /* Paced over 100 us, source s 1 us after source s - 1: a frame leaves
     * the port in 0.885 us, before the next arrives: nothing drops. */
    sim_rig_set(&c, "ro_spread_us", "100");
    sim_rig_run(&c, &r);
    closed(&r);
    ck_assert_uint_eq(r.switch_drops, 0);
    ck_assert_uint_eq(r.l.incomplete, 0);
    ck_assert_uint_eq(r.port_peak, 1106);
}
END_TEST

/*
 * Throttle: one node of one credit taking 10 ms per event against 1 kHz
 * of triggers; a table of 64 events throttles at 48 held and releases at
 * 32. The readouts are held most of the time, nothing is lost, and about
 * 100 events a second are generated (the node's pace) plus what the table
 * holds when the triggers stop.
 */
START_TEST(test_throttle)
{
    struct sim_conf c;
    struct sim_result r;

    sim_rig_base(&c, 0);
    sim_rig_set(&c, "sfcs", "1");
    sim_rig_set(&c, "nodes_per_sfc", "1");
    sim_rig_set(&c, "credits", "1");
    sim_rig_set(&c, "capacity", "64");
    sim_rig_set(&c, "trigger_us", "10000");
    sim_rig_set(&c, "timeout_ms", "1000");
    sim_rig_set(&c, "drain_s", "5");
    sim_rig_run(&c, &r);
    ck_assert_int_eq(r.l.closed, 1);
    ck_assert_uint_eq(r.l.lost_total, 0);
    ck_assert_uint_ge(r.throttle_on, 2);
    ck_assert(r.held_s > 0.5 && r.held_s < 1.0);
    ck_assert_uint_ge(r.l.generated, 100);
    ck_assert_uint_le(r.l.generated, 100 + 48 + 2);
    ck_assert_uint_le(r.evtab_peak, 48 + 2);   /* the readouts hear it a link later */
    ck_assert_uint_eq(r.l.accepted + r.l.rejected, r.l.generated);
}
END_TEST

/* Same seed, same result (all but the wall time); another seed differs. */
START_TEST(test_determinism)
{
    struct sim_conf c;
    struct sim_result a, b;

    sim_rig_base(&c, 0);
    sim_rig_set(&c, "trigger", "exponential");
    sim_rig_set(&c, "arrivals", "poisson");
    sim_rig_run(&c, &a);
    sim_rig_run(&c, &b);
    a.wall_s = b.wall_s = 0;
    ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
    sim_rig_set(&c, "seed", "2");
    sim_rig_run(&c, &b);
    ck_assert_uint_ne(a.latency_ns.sum, b.latency_ns.sum);
}
END_TEST

/* Keys, values and faults the configuration refuses, with the message. */
START_TEST(test_conf_refused)
{
    struct sim_conf c;
    char err[1024];

    sim_conf_defaults(&c);
    ck_assert_int_eq(sim_conf_set(&c, "link_gpbs", "10", err, sizeof(err)), -22);
    ck_assert_ptr_nonnull(strstr(err, "key 'sim.link_gpbs' is not allowed (allowed: sources, "));
    ck_assert_int_eq(sim_conf_set(&c, "link_gbps", "fast", err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.link_gbps': \"fast\" is not a number");
    ck_assert_int_eq(sim_conf_set(&c, "sources", "200", err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.sources': 200 is out of range (allowed: 1 to 128)");
    ck_assert_int_eq(sim_conf_set(&c, "trigger", "gauss", err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.trigger': \"gauss\" is not allowed (allowed: fixed, "
                          "exponential, lognormal)");
    ck_assert_int_eq(sim_conf_fault(&c, "node_stall 1 0.5", err, sizeof(err)), -22);
    ck_assert_ptr_nonnull(strstr(err, "\"node_stall 1 0.5\" is not a fault"));
    sim_rig_set(&c, "frag_bytes", "1000000");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.frag_bytes': 1000000 bytes are 699 frames at MTU 1500 (the "
                          "model takes at most 512 frames a fragment)");
    sim_rig_set(&c, "frag_bytes", "1024");
    sim_rig_fault(&c, "node_death 4 0.5");
    ck_assert_int_eq(sim_conf_check(&c, err, sizeof(err)), -22);
    ck_assert_str_eq(err, "key 'sim.faults[0]': node 4 does not exist (allowed: 0 to 3)");
}
END_TEST

/* The farm file's sim: keys (farmfile_types.h) are the simulator's. */
START_TEST(test_conf_keys)
{
    static const char *const ff[] = {
#define NAME(k) #k,
        FF_SIM_KEYS(NAME)
#undef NAME
    };
    struct sim_conf c;
    char err[1024], unknown[128];
    unsigned commas = 0;

    sim_conf_defaults(&c);
    for (unsigned i = 0; i < sizeof(ff) / sizeof(ff[0]); i++) {
        err[0] = '\0';
        sim_conf_set(&c, ff[i], "1", err, sizeof(err));
        snprintf(unknown, sizeof(unknown), "key 'sim.%s' is not allowed (allowed: sources", ff[i]);
        ck_assert_msg(strncmp(err, unknown, strlen(unknown)) != 0, "%s", err);
    }
    for (const char *p = sim_conf_keys(); *p; p++)
        commas += *p == ',';
    ck_assert_uint_eq(commas + 1, sizeof(ff) / sizeof(ff[0]));
}
END_TEST

Suite *sim_farm_suite(void);

Suite *sim_farm_suite(void)
{
    Suite *s = suite_create("sim_farm");
    TCase *tc = tcase_create("farm");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_no_fault);
    tcase_add_test(tc, test_sfc_death);
    tcase_add_test(tc, test_node_death);
    tcase_add_test(tc, test_node_stall);
    tcase_add_test(tc, test_node_restart);
    tcase_add_test(tc, test_link_loss);
    tcase_add_test(tc, test_incast);
    tcase_add_test(tc, test_throttle);
    tcase_add_test(tc, test_determinism);
    tcase_add_test(tc, test_conf_refused);
    tcase_add_test(tc, test_conf_keys);
    suite_add_tcase(s, tc);
    return s;
}
