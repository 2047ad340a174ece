/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_workers.c - an SFC of 2 workers builds exactly the events of an SFC of 1: same seed, same faults, same counts, same ledger; a node killed under it; the workers sharing one readout link. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "farm.h"
#include "node_decide.h"
#include "summary.h"

#define READOUTS 2u
#define NODES 4u
#define SOURCES 8u
#define EVENTS 40000u
#define FAULTS "drop=0.002,dup=0.002,reorder=0.02,window=8,corrupt=0.001,corrupt_header=0.001"

/* The demo shaped as 2 readouts into one SFC of `workers` workers (memif
 * links per readout and worker), 4 nodes, 1 KiB fragments at 20,000
 * events/s, with or without the seeded fault mix. */
static void run_shape(uint16_t workers, int faults, uint64_t kill_node_after, uint16_t readouts,
                      int shared, struct farm_result *r, struct ledger *l)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");
    struct farm_conf c;

    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    farm_conf_default(&c);
    c.kill_node_after = kill_node_after;
    c.build_dir = dir;
    c.events = EVENTS;
    c.sources = SOURCES;
    c.readouts = readouts;
    c.sfcs = 1;
    c.sfc_workers = workers;
    c.sfc_shared = shared && workers > 1;
    c.nodes = NODES;
    c.timeout_ms = 2000;
    c.rate = 20000;
    c.seed = 7;
    if (faults)
        snprintf(c.faults, sizeof(c.faults), "%s", FAULTS);
    int rc = farm_run(&c, r);
    ck_assert_msg(rc == 0, "farm run (%u workers) failed: %s", workers, r->error);
    ledger_close(r, l);
}

static void run_killing(uint16_t workers, int faults, uint64_t kill_node_after,
                        struct farm_result *r, struct ledger *l)
{
    run_shape(workers, faults, kill_node_after, READOUTS, 0, r, l);
}

static void run(uint16_t workers, int faults, struct farm_result *r, struct ledger *l)
{
    run_killing(workers, faults, 0, r, l);
}

static uint64_t sfc_u64(const struct farm_result *r, const char *key)
{
    ck_assert_uint_eq(r->n_sfcs, 1);
    return ebf_kv_u64(&r->sfcs[0].kv, key, 0);  /* a zero entry is left out */
}

static void kv_idset(const struct ebf_kv *kv, const char *prefix, struct ebf_idset *s)
{
    char key[96];

    ebf_idset_init(s);
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        snprintf(key, sizeof(key), "%s.count.%u", prefix, c);
        s->count[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.id_sum.%u", prefix, c);
        s->id_sum[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.hash_sum.%u", prefix, c);
        s->hash_sum[c] = ebf_kv_u64(kv, key, 0);
    }
}

/* The SFC's counters that do not depend on how its events were split:
 * equal in both runs, key by key. */
static const char *const same_keys[] = {
    "rx.frames", "rx.reject.bad_checksum", "rx.reject.bad_field", "events.complete",
    "events.incomplete", "events.sent", "tx.frames", "ack.events", "ack.accept", "ack.reject",
    "ack.incomplete", "acked_digest", "lost_digest", "rx.drop.late", "rx.drop.refused_event",
};

static void assert_same_sfc(const struct farm_result *a, const struct farm_result *b)
{
    char key[64];

    for (unsigned i = 0; i < sizeof(same_keys) / sizeof(same_keys[0]); i++)
        ck_assert_msg(sfc_u64(a, same_keys[i]) == sfc_u64(b, same_keys[i]), "%s: %llu and %llu",
                      same_keys[i], (unsigned long long)sfc_u64(a, same_keys[i]),
                      (unsigned long long)sfc_u64(b, same_keys[i]));
    /* A duplicate is dropped as such whether its event is still building
     * or already sent: the sum is what the readouts duplicated. */
    ck_assert_uint_eq(sfc_u64(a, "rx.drop.duplicate") + sfc_u64(a, "rx.drop.duplicate_sent"),
                      sfc_u64(b, "rx.drop.duplicate") + sfc_u64(b, "rx.drop.duplicate_sent"));
    for (unsigned s = 0; s < SOURCES; s++) {
        uint64_t v[2][4];
        const struct farm_result *x[2] = {a, b};
        for (unsigned k = 0; k < 2; k++) {
            static const char *const pre[] = {"missing.source.", "seq.gap.", "seq.reorder.",
                                              "seq.dup."};
            for (unsigned j = 0; j < 4; j++) {
                snprintf(key, sizeof(key), "%s%u", pre[j], s);
                v[k][j] = sfc_u64(x[k], key);
            }
        }
        ck_assert_uint_eq(v[0][0], v[1][0]);
        /* Frames a source's sequence lost for good (gaps not made up by
         * a reorder), and repeats: per worker or not, the same. */
        ck_assert_uint_eq(v[0][1] - v[0][2], v[1][1] - v[1][2]);
        ck_assert_uint_eq(v[0][3], v[1][3]);
    }
    struct ebf_idset ia, ib;
    kv_idset(&a->sfcs[0].kv, "ledger.acked", &ia);
    kv_idset(&b->sfcs[0].kv, "ledger.acked", &ib);
    ebf_idset_merge(&ia, &ib, -1);
    ck_assert_msg(ebf_idset_empty(&ia), "the two runs acked different ids");
}

static void assert_same_ledger(const struct ledger *a, const struct ledger *b)
{
    ck_assert(a->closed && b->closed);
    ck_assert_uint_eq(a->generated, EVENTS);
    ck_assert_uint_eq(b->generated, a->generated);
    ck_assert_uint_eq(b->accepted, a->accepted);
    ck_assert_uint_eq(b->rejected, a->rejected);
    ck_assert_uint_eq(b->lost_total, a->lost_total);
    ck_assert_uint_eq(b->incomplete, a->incomplete);
}

/* Each worker sent to its own nodes, and every frame went to the worker
 * of its event: place k + w (one SFC) took the frames of events with
 * e % 2 == w, per readout half of them with no faults. */
static void assert_split(const struct farm_result *r)
{
    uint64_t total = 0;

    for (unsigned i = 0; i < r->n_ro; i++) {
        uint64_t f0 = ebf_kv_u64(&r->ro[i].kv, "sfc.frames.0", 0);
        uint64_t f1 = ebf_kv_u64(&r->ro[i].kv, "sfc.frames.1", 0);
        ck_assert_uint_eq(f0, EVENTS / 2 * (SOURCES / READOUTS));
        ck_assert_uint_eq(f1, EVENTS / 2 * (SOURCES / READOUTS));
        total += f0 + f1;
    }
    ck_assert_uint_eq(sfc_u64(r, "rx.frames"), total);
    /* Node i is served by worker i % 2, which holds the events with
     * e % 2 == worker: the nodes of each worker acked EVENTS / 2. */
    uint64_t w[2] = {0, 0};
    char key[64];
    for (unsigned n = 0; n < NODES; n++) {
        snprintf(key, sizeof(key), "node.acked.%u", n);
        w[n % 2] += sfc_u64(r, key);
    }
    ck_assert_uint_eq(w[0], EVENTS / 2);
    ck_assert_uint_eq(w[1], EVENTS / 2);
    ck_assert_uint_eq(ebf_kv_u64(&r->sfc, "lcore.busy_cycles.1", 0) > 0, 1);
}

static uint64_t expected_accepts(void)
{
    uint64_t n = 0;

    for (uint64_t e = 0; e < EVENTS; e++)
        n += (uint64_t)node_decide(e, 0, 0.1);
    return n;
}

/* No faults: both runs decide every event, nothing lost; the 2-worker run
 * splits frames and events exactly by (e / 1) % 2. */
START_TEST(test_two_workers_clean)
{
    static struct farm_result r1, r2;
    static struct ledger l1, l2;

    run(1, 0, &r1, &l1);
    run(2, 0, &r2, &l2);
    assert_same_ledger(&l1, &l2);
    ck_assert_uint_eq(l2.lost_total, 0);
    ck_assert_uint_eq(l2.accepted, expected_accepts());
    assert_same_sfc(&r1, &r2);
    ck_assert_uint_eq(sfc_u64(&r2, "ack.events"), EVENTS);
    assert_split(&r2);
    farm_result_free(&r1);
    farm_result_free(&r2);
}
END_TEST

/* The seeded mix of drops, duplicates, reorders and corruptions on both
 * readouts: the 2-worker SFC counts and builds exactly what the 1-worker
 * one does, and the ledgers are the same and closed. */
START_TEST(test_two_workers_faults)
{
    static struct farm_result r1, r2;
    static struct ledger l1, l2;

    run(1, 1, &r1, &l1);
    run(2, 1, &r2, &l2);
    ck_assert_uint_gt(sfc_u64(&r1, "rx.reject.bad_checksum"), 0);
    ck_assert_uint_gt(sfc_u64(&r1, "events.incomplete"), 0);
    assert_same_ledger(&l1, &l2);
    assert_same_sfc(&r1, &r2);
    farm_result_free(&r1);
    farm_result_free(&r2);
}
END_TEST

/* Node 0 killed after 15,000 events: worker 0 (nodes 0 and 2) takes back
 * what node 0 held and sends it to node 2; worker 1 and its nodes go on.
 * Every event decided once, nothing lost, the ledger closed. */
START_TEST(test_two_workers_node_killed)
{
    static struct farm_result r;
    static struct ledger l;

    run_killing(2, 0, 15000, &r, &l);
    ck_assert(l.closed);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts());
    ck_assert_uint_eq(l.nodes_silent, 1);
    ck_assert_uint_eq(l.nodes_dead, 1);
    ck_assert_uint_eq(sfc_u64(&r, "ack.events"), EVENTS);
    /* Worker 1's nodes acked exactly its half. */
    ck_assert_uint_eq(sfc_u64(&r, "node.acked.1") + sfc_u64(&r, "node.acked.3"), EVENTS / 2);
    ck_assert_uint_eq(sfc_u64(&r, "node.acked.0") + sfc_u64(&r, "node.acked.2"), EVENTS / 2);
    farm_result_free(&r);
}
END_TEST

/* One readout on one memif link to the SFC, its 2 workers sharing it
 * (worker 0 hands each frame to the worker its destination MAC names),
 * with the seeded faults: the same counts and ledger as 1 worker, each
 * worker's nodes acked half, nothing lost to the distribution. */
START_TEST(test_two_workers_shared_link)
{
    static struct farm_result r1, r2;
    static struct ledger l1, l2;

    run_shape(1, 1, 0, 1, 0, &r1, &l1);
    run_shape(2, 1, 0, 1, 1, &r2, &l2);
    ck_assert_uint_gt(sfc_u64(&r1, "events.incomplete"), 0);
    assert_same_ledger(&l1, &l2);
    assert_same_sfc(&r1, &r2);
    ck_assert_uint_eq(sfc_u64(&r2, "rx.drop.dist_ring_full"), 0);
    ck_assert_uint_eq(sfc_u64(&r2, "rx.drop.dist_left"), 0);
    ck_assert_uint_gt(sfc_u64(&r2, "dist.handed"), 0);
    ck_assert_uint_eq(sfc_u64(&r1, "dist.handed"), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r2.sfc, "lcore.busy_cycles.1", 0) > 0, 1);
    farm_result_free(&r1);
    farm_result_free(&r2);
}
END_TEST

Suite *farm_workers_suite(void);

Suite *farm_workers_suite(void)
{
    Suite *s = suite_create("farm_workers");
    TCase *tc = tcase_create("farm");

    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_two_workers_clean);
    tcase_add_test(tc, test_two_workers_faults);
    tcase_add_test(tc, test_two_workers_node_killed);
    tcase_add_test(tc, test_two_workers_shared_link);
    suite_add_tcase(s, tc);
    return s;
}
