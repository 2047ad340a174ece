/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_fo_view.c - the failover view: live SFCs and their shares, drained and gone ones, the readouts' and SFCs' sums (replay.unsound among them), the exact text and JSON. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farm_fo_view.h"

static void put(struct ebf_kv *kv, const char *key, uint64_t v)
{
    kv->pair = realloc(kv->pair, (kv->n + 1) * sizeof(kv->pair[0]));
    ck_assert_ptr_nonnull(kv->pair);
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
}

/* Two readouts (one counting deaths as fo.deaths, one as release.deaths),
 * three SFCs: sfc0 live, sfc1 drained from 70000, sfc2 gone; sfc0 and sfc1
 * each with a fence record of 7 ids, a node with a mark's record of 5,
 * another that gave no counters. */
static void farm(struct farm_fo_view *v, struct ebf_kv *ro0, struct ebf_kv *ro1,
                 struct ebf_kv *sfc, struct ebf_kv *node)
{
    memset(node, 0, sizeof(*node));
    put(node, "ledger.acks_after_release.count.3", 5);  /* a restart's mark: 5 ids */
    put(node, "ledger.acks_after_release.count.40", 5);
    memset(ro0, 0, sizeof(*ro0));
    memset(ro1, 0, sizeof(*ro1));
    memset(sfc, 0, sizeof(*sfc));
    put(ro0, "release.frames", 10);
    put(ro0, "fo.deaths", 1);
    put(ro0, "replay.replayed", 30);
    put(ro0, "replay.dropped", 2);
    put(ro0, "replay.held_bytes", 1500000);
    put(ro0, "replay.peak_bytes", 2500000);
    put(ro0, "fo.false_deaths", 1);
    put(ro0, "fo.recoveries", 1);
    put(ro0, "fo.recover_ns", 150000000);
    put(ro0, "fo.recover_max_ns", 150000000);
    put(ro1, "release.deaths", 1);
    put(ro1, "replay.replayed", 12);
    put(ro1, "replay.held_bytes", 2000000);
    put(ro1, "replay.peak_bytes", 2100000);
    put(ro1, "fo.recoveries", 1);     /* one each: the sum 2, as deaths (the most was 1) */
    put(ro1, "fo.recover_ns", 120000000);
    put(ro1, "fo.recover_max_ns", 250500000);
    put(sfc, "release.frames", 5);
    put(sfc, "release.leaves", 1);
    put(sfc, "release.joins", 2);
    put(sfc, "replay.partial", 3);
    put(sfc, "replay.ended", 2);
    put(sfc, "replay.wait_cap", 1);
    put(sfc, "replay.waits", 1);
    put(sfc, "replay.ends", 4);
    put(sfc, "replay.unsound", 5);    /* built incomplete: sfc0 and sfc1 sum 10 */
    put(sfc, "ledger.fence_acked.count.0", 3);  /* a record of 3 + 4 ids (partition 0) */
    put(sfc, "ledger.fence_acked.count.15", 4);
    put(sfc, "ledger.fence_acked.count.16", 7); /* partition 1: the same ids, not counted */
    farm_fo_view_init(v);
    farm_fo_view_add(v, FARM_READOUT, "ro0", ro0, 0);
    farm_fo_view_add(v, FARM_READOUT, "ro1", ro1, 0);
    farm_fo_view_add(v, FARM_SFC, "sfc0", sfc, 0);
    farm_fo_view_add(v, FARM_SFC, "sfc1", sfc, 70000);
    farm_fo_view_add(v, FARM_SFC, "sfc2", NULL, 0);
    farm_fo_view_add(v, FARM_NODE, "node0", node, 0);
    farm_fo_view_add(v, FARM_NODE, "node1", NULL, 0);
    farm_fo_view_end(v);
}

START_TEST(test_view)
{
    struct ebf_kv a, b, s, n;
    struct farm_fo_view v;
    char buf[1024];

    farm(&v, &a, &b, &s, &n);
    ck_assert(v.on);
    ck_assert_uint_eq(v.n_sfcs, 3);
    ck_assert_uint_eq(v.n_live, 1);
    ck_assert(v.sfc[0].state == FARM_FO_LIVE && v.sfc[0].share == 1.0);
    ck_assert(v.sfc[1].state == FARM_FO_DRAINED && v.sfc[1].share == 0);
    ck_assert_uint_eq(v.sfc[1].leave_at, 70000);
    ck_assert(v.sfc[2].state == FARM_FO_GONE && v.sfc[2].share == 0);
    ck_assert_uint_eq(v.deaths, 2);
    ck_assert_uint_eq(v.replayed, 42);
    ck_assert_uint_eq(v.dropped, 2);
    ck_assert_uint_eq(v.held_bytes, 2000000);
    ck_assert_uint_eq(v.peak_bytes, 2500000);
    ck_assert_uint_eq(v.joins, 4);
    ck_assert_uint_eq(v.leaves, 2);
    ck_assert_uint_eq(v.false_deaths, 1);
    ck_assert_uint_eq(v.recoveries, 2);
    ck_assert_uint_eq(v.recover_ns, 150000000);
    ck_assert_uint_eq(v.recover_max_ns, 250500000);
    ck_assert_uint_eq(v.redecided_marked, 19);
    ck_assert_uint_eq(v.unsound, 10);
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    farm_fo_view_text(f, &v, "failover: ");
    fclose(f);
    ck_assert_str_eq(buf, "failover: SFCs live 1 of 3 (sfc0 100%, sfc1 drained from event 70000, "
                          "sfc2 gone); deaths seen 2, recovered 2 (sums over 2 readouts; 1 heard "
                          "alive after); time to recover last 150.0 ms, longest 250.5 ms "
                          "(slowest readout); joins 4, leaves 2; replayed 42, replay dropped 2; redecided so "
                          "far 19 (fences, restarts); replay buffer 2.0 MB, peak 2.5 MB (largest "
                          "readout); partial replays dropped 6 (4 proven by 8 replay ends, 2 at "
                          "the 5 s cap), kept 2; replays built incomplete 10 (replay.unsound: "
                          "pieces lost on the way; decided, in the ledger)\n");
    json_t *j = farm_fo_view_json(&v);
    char *t = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    ck_assert_str_eq(t, "{\"live\":1,\"sfcs\":[{\"name\":\"sfc0\",\"state\":\"live\",\"share\":1.0,"
                        "\"leave_at\":0},{\"name\":\"sfc1\",\"state\":\"drained\",\"share\":0.0,"
                        "\"leave_at\":70000},{\"name\":\"sfc2\",\"state\":\"gone\",\"share\":0.0,"
                        "\"leave_at\":0}],\"deaths\":2,\"false_deaths\":1,\"recovered\":2,\"recover_ns\":150000000,"
                        "\"recover_max_ns\":250500000,\"joins\":4,\"leaves\":2,\"replayed\":42,"
                        "\"replay_dropped\":2,\"redecided_marked\":19,"
                        "\"replay_held_bytes\":2000000,\"replay_peak_bytes\":2500000,"
                        "\"replay_partial\":6,\"replay_ended\":4,\"replay_wait_cap\":2,"
                        "\"replay_waits\":2,\"replay_ends\":8,\"replay_unsound\":10}");
    free(t);
    json_decref(j);
    ebf_kv_free(&a);
    ebf_kv_free(&b);
    ebf_kv_free(&s);
    ebf_kv_free(&n);
}
END_TEST

/* Without release frames anywhere (failover off): no line, JSON null. */
START_TEST(test_off)
{
    struct ebf_kv kv = {0};
    struct farm_fo_view v;
    char buf[64] = "";

    put(&kv, "events", 100);
    farm_fo_view_init(&v);
    farm_fo_view_add(&v, FARM_READOUT, "ro0", &kv, 0);
    farm_fo_view_add(&v, FARM_SFC, "sfc0", &kv, 0);
    farm_fo_view_end(&v);
    ck_assert(!v.on);
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    farm_fo_view_text(f, &v, "failover: ");
    farm_fo_view_summary(f, &v);
    farm_fo_view_prom(f, &v, "demo");
    fclose(f);
    ck_assert_str_eq(buf, "");
    json_t *j = farm_fo_view_json(&v);
    ck_assert(json_is_null(j));
    json_decref(j);
    ebf_kv_free(&kv);
}
END_TEST

/* The Prometheus gauges of the view: the live SFC set, each SFC's share
 * and state, the largest replay buffer's level and peak, exactly. */
START_TEST(test_prom)
{
    struct ebf_kv a, b, s, n;
    struct farm_fo_view v;
    char buf[4096];

    farm(&v, &a, &b, &s, &n);
    FILE *f = fmemopen(buf, sizeof(buf), "w");
    farm_fo_view_prom(f, &v, "demo");
    fclose(f);
    ck_assert_str_eq(buf,
        "# HELP ebfarm_farm_sfcs_live SFCs that take a share of the events now (failover on).\n"
        "# TYPE ebfarm_farm_sfcs_live gauge\n"
        "ebfarm_farm_sfcs_live{farm=\"demo\"} 1\n"
        "# HELP ebfarm_farm_sfc_share The share of the events each SFC takes now: 1/live for a "
        "live one, 0 for one drained or gone.\n"
        "# TYPE ebfarm_farm_sfc_share gauge\n"
        "ebfarm_farm_sfc_share{farm=\"demo\",sfc=\"sfc0\",state=\"live\"} 1\n"
        "ebfarm_farm_sfc_share{farm=\"demo\",sfc=\"sfc1\",state=\"drained\"} 0\n"
        "ebfarm_farm_sfc_share{farm=\"demo\",sfc=\"sfc2\",state=\"gone\"} 0\n"
        "# HELP ebfarm_farm_replay_held_bytes The largest readout's replay buffer level, bytes.\n"
        "# TYPE ebfarm_farm_replay_held_bytes gauge\n"
        "ebfarm_farm_replay_held_bytes{farm=\"demo\"} 2000000\n"
        "# HELP ebfarm_farm_replay_peak_bytes The largest readout's replay buffer peak, bytes.\n"
        "# TYPE ebfarm_farm_replay_peak_bytes gauge\n"
        "ebfarm_farm_replay_peak_bytes{farm=\"demo\"} 2500000\n"
        "# HELP ebfarm_farm_sfc_deaths_seen SFC deaths the readouts declared, summed over them.\n"
        "# TYPE ebfarm_farm_sfc_deaths_seen gauge\n"
        "ebfarm_farm_sfc_deaths_seen{farm=\"demo\"} 2\n"
        "# HELP ebfarm_farm_sfc_false_deaths SFC deaths by silence after which the SFC was heard "
        "again at the same epoch (alive), summed over the readouts.\n"
        "# TYPE ebfarm_farm_sfc_false_deaths gauge\n"
        "ebfarm_farm_sfc_false_deaths{farm=\"demo\"} 1\n"
        "# HELP ebfarm_farm_replayed_events Events the readouts replayed to live SFCs, summed.\n"
        "# TYPE ebfarm_farm_replayed_events gauge\n"
        "ebfarm_farm_replayed_events{farm=\"demo\"} 42\n"
        "# HELP ebfarm_farm_failovers_recovered Failovers the readouts recovered (a dead SFC's "
        "unreleased events all replayed), summed over them like sfc_deaths_seen.\n"
        "# TYPE ebfarm_farm_failovers_recovered gauge\n"
        "ebfarm_farm_failovers_recovered{farm=\"demo\"} 2\n"
        "# HELP ebfarm_farm_recover_seconds Time to recover from an SFC death: from its last "
        "release frame to the end of its replay, the slowest readout's.\n"
        "# TYPE ebfarm_farm_recover_seconds gauge\n"
        "ebfarm_farm_recover_seconds{farm=\"demo\",which=\"last\"} 0.150000\n"
        "ebfarm_farm_recover_seconds{farm=\"demo\",which=\"longest\"} 0.250500\n"
        "# HELP ebfarm_farm_redecided_marked Events decided twice as known so far: fenced SFCs' "
        "replayed acks and restarted SFCs' nodes' marked records (the stop adds the places "
        "still dead).\n"
        "# TYPE ebfarm_farm_redecided_marked gauge\n"
        "ebfarm_farm_redecided_marked{farm=\"demo\"} 19\n");
    ebf_kv_free(&a);
    ebf_kv_free(&b);
    ebf_kv_free(&s);
    ebf_kv_free(&n);
}
END_TEST

Suite *farm_fo_view_suite(void);

Suite *farm_fo_view_suite(void)
{
    Suite *s = suite_create("farm_fo_view");
    TCase *tc = tcase_create("farm_fo_view");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_view);
    tcase_add_test(tc, test_off);
    tcase_add_test(tc, test_prom);
    suite_add_tcase(s, tc);
    return s;
}
