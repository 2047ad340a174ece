/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_multi.c - whole farms of 4 readouts, 2 SFCs and 4 nodes: per-SFC events, frames and sequences exactly. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebf_idset.h"
#include "farm.h"
#include "node_decide.h"
#include "summary.h"

#define READOUTS 4u
#define SFCS 2u
#define NODES 4u
#define SOURCES 8u              /* 2 per readout */
#define EVENTS 100000u

/* The demo shaped as 4 readouts into 2 SFCs (memif links per pair), 4
 * nodes (node i serves SFC i % 2), 1 KiB fragments: one frame each, at
 * 25,000 events/s (4 s). */
static void run(struct farm_conf *c, struct farm_result *r, struct ledger *l)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");

    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    c->build_dir = dir;
    c->events = EVENTS;
    c->sources = SOURCES;
    c->readouts = READOUTS;
    c->sfcs = SFCS;
    c->nodes = NODES;
    c->timeout_ms = 2000;
    /* One trigger rate for all: unpaced readouts on two shared cores drift
     * apart by more than an SFC holds, and a throttle holds them all. */
    c->rate = 25000;
    int rc = farm_run(c, r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r->error);
    ledger_close(r, l);
}

static uint64_t kv_at(const struct ebf_kv *kv, const char *prefix, unsigned i)
{
    char key[64];

    snprintf(key, sizeof(key), "%s%u", prefix, i);
    return ebf_kv_u64(kv, key, 0);     /* a zero entry is left out */
}

/* An id record from its stats keys "<prefix>.count.<cell>" ... */
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

/* The SFC at place k in the readouts' lists: sfc<k> in the demo. */
static const struct farm_part_result *sfc_at(const struct farm_result *r, unsigned k)
{
    for (unsigned i = 0; i < r->n_sfcs; i++)
        if (r->sfcs[i].place == (int)k)
            return &r->sfcs[i];
    ck_abort_msg("no SFC at place %u", k);
    return NULL;
}

/* Frames every readout's port took toward the SFC at place k. */
static uint64_t frames_sent_to(const struct farm_result *r, unsigned k)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < r->n_ro; i++)
        n += kv_at(&r->ro[i].kv, "sfc.frames.", k);
    return n;
}

/* SFC k acked exactly the ids e < EVENTS with e % SFCS == k, each once. */
static void assert_sfc_built_its_ids(const struct farm_part_result *x, unsigned k)
{
    struct ebf_idset want, got;

    ebf_idset_init(&want);
    for (uint64_t e = k; e < EVENTS; e += SFCS)
        ebf_idset_add(&want, e);
    kv_idset(&x->kv, "ledger.acked", &got);
    ebf_idset_merge(&want, &got, -1);
    ck_assert_msg(ebf_idset_empty(&want), "%s did not ack exactly the ids mapping to it", x->name);
}

static uint64_t expected_accepts(uint64_t events, double accept)
{
    uint64_t n = 0;

    for (uint64_t e = 0; e < events; e++)
        n += (uint64_t)node_decide(e, 0, accept);
    return n;
}

/* What every clean or faulted 4x2x4 run must show, per SFC: the frames it
 * received are the frames the readouts sent to it, it built and acked
 * exactly its ids, and with no frame lost its sequences have no gap. */
static void assert_per_sfc(const struct farm_result *r, int no_loss)
{
    ck_assert_uint_eq(r->n_ro, READOUTS);
    ck_assert_uint_eq(r->n_sfcs, SFCS);
    ck_assert_uint_eq(r->n_places, SFCS);
    for (unsigned k = 0; k < SFCS; k++) {
        const struct farm_part_result *x = sfc_at(r, k);
        ck_assert_uint_eq(ebf_kv_u64(&x->kv, "rx.frames", 0), frames_sent_to(r, k));
        ck_assert_uint_eq(ebf_kv_u64(&x->kv, "ack.events", 0), EVENTS / SFCS);
        assert_sfc_built_its_ids(x, k);
        for (unsigned s = 0; s < SOURCES && no_loss; s++) {
            ck_assert_uint_eq(kv_at(&x->kv, "seq.gap.", s), 0);
            ck_assert_uint_eq(kv_at(&x->kv, "seq.resync.", s), 0);
        }
    }
}

/* 4 readouts, 2 SFCs, 4 nodes, 100,000 events: every event decided once,
 * nothing lost, no sequence gap at either SFC, each SFC built exactly the
 * events whose id maps to it from every frame sent to it. */
START_TEST(test_multi_clean)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts(EVENTS, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert(l.closed);
    assert_per_sfc(&r, 1);
    for (unsigned k = 0; k < SFCS; k++) {
        /* one 1 KiB frame per fragment, 8 fragments per event, half the events */
        ck_assert_uint_eq(frames_sent_to(&r, k), (uint64_t)EVENTS / SFCS * SOURCES);
        for (unsigned s = 0; s < SOURCES; s++)
            ck_assert_uint_eq(kv_at(&sfc_at(&r, k)->kv, "seq.dup.", s), 0);
    }
    for (unsigned i = 0; i < READOUTS; i++) {
        ck_assert_uint_eq(ebf_kv_u64(&r.ro[i].kv, "events", 0), EVENTS);
        ck_assert_uint_eq(ebf_kv_u64(&r.ro[i].kv, "frames", 0), (uint64_t)EVENTS * SOURCES / READOUTS);
        ck_assert_uint_eq(ebf_kv_u64(&r.ro[i].kv, "sfcs_gone", 1), 0);
    }
    farm_result_free(&r);
}
END_TEST

/* A seeded mix of duplicates and reorders (nothing lost): every readout
 * replays the same decisions; each duplicate is dropped once by its SFC
 * and counted once in a per-(source, SFC) sequence, each reordered frame
 * is a reorder there, and still no event is lost or incomplete. */
START_TEST(test_multi_faults)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    uint64_t dup = 0, reorder = 0, seq_dup = 0, seq_reorder = 0, sfc_dup = 0;

    farm_conf_default(&c);
    snprintf(c.faults, sizeof(c.faults), "dup=0.01,reorder=0.01,window=4");
    c.seed = 7;
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts(EVENTS, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert(l.closed);
    assert_per_sfc(&r, 0);
    for (unsigned i = 0; i < READOUTS; i++) {
        dup += ebf_kv_u64(&r.ro[i].kv, "fault.duplicated", 0);
        reorder += ebf_kv_u64(&r.ro[i].kv, "fault.reordered", 0);
        /* one seed, the same frames: the same decisions on every readout */
        ck_assert_uint_eq(ebf_kv_u64(&r.ro[i].kv, "fault.duplicated", 0),
                          ebf_kv_u64(&r.ro[0].kv, "fault.duplicated", 1));
    }
    ck_assert_uint_gt(dup, 0);
    ck_assert_uint_gt(reorder, 0);
    for (unsigned k = 0; k < SFCS; k++) {
        const struct ebf_kv *kv = &sfc_at(&r, k)->kv;
        sfc_dup += ebf_kv_u64(kv, "rx.drop.duplicate", 0) +
                   ebf_kv_u64(kv, "rx.drop.duplicate_sent", 0);
        for (unsigned s = 0; s < SOURCES; s++) {
            seq_dup += kv_at(kv, "seq.dup.", s);
            seq_reorder += kv_at(kv, "seq.reorder.", s);
            /* a gap is only ever a frame held back, filled by its reorder */
            ck_assert_uint_eq(kv_at(kv, "seq.gap.", s), kv_at(kv, "seq.reorder.", s));
        }
    }
    ck_assert_uint_eq(sfc_dup, dup);
    ck_assert_uint_eq(seq_dup, dup);
    ck_assert_uint_le(seq_reorder, reorder);
    farm_result_free(&r);
}
END_TEST

/* Node 0 (of SFC 0) killed after 30,000 events: its SFC re-dispatches
 * what it held to node 2, the ledger still closes with nothing lost. */
START_TEST(test_multi_node_killed)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.kill_node_after = 30000;
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts(EVENTS, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.nodes_silent, 1);
    ck_assert_uint_eq(l.nodes_dead, 1);
    ck_assert(l.closed);
    assert_per_sfc(&r, 1);
    farm_result_free(&r);
}
END_TEST

/* The events the nodes of the SFC at place k decided, by their own counters. */
static uint64_t decided_by_nodes_of(const struct farm_result *r, unsigned k)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < r->n_nodes; i++)
        if (r->node_place[i] == (int)k) {
            ck_assert(!r->node[i].gone);
            n += ebf_kv_u64(&r->node[i].kv, "events", 0);
        }
    return n;
}

/*
 * SFC 1 killed after 30,000 events (SIGSTOP, SIGKILL once every readout
 * gave it up): every readout stops sending to it within its
 * --sfc-timeout-ms and goes on serving SFC 0; the staged stop still gives
 * the ledger, which counts SFC 1's ids (the odd ones) as decided where its
 * nodes' own records say and the rest as sfc_lost, exactly, and closes.
 */
START_TEST(test_multi_sfc_killed)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    const uint64_t after = 30000, odd = EVENTS / SFCS;

    farm_conf_default(&c);
    c.kill_sfc_after = after;
    double t0 = (double)time(NULL);
    run(&c, &r, &l);
    ck_assert_double_le((double)time(NULL) - t0, 60);
    ck_assert_uint_eq(r.sfcs_gone, 1);
    ck_assert_str_eq(l.sfc_gone, "sfc1");
    ck_assert_uint_eq(l.generated, EVENTS);
    uint64_t decided = decided_by_nodes_of(&r, 1);
    ck_assert_uint_gt(decided, 0);
    ck_assert_uint_lt(decided, odd);
    ck_assert_uint_eq(l.gone_decided, decided);
    ck_assert_uint_eq(l.sfc_lost, odd - decided);
    ck_assert_uint_eq(l.lost_total, l.sfc_lost);        /* no other loss */
    ck_assert_uint_eq(l.accepted + l.rejected + l.lost_total, EVENTS);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    /* SFC 0 built every even id from every frame sent to it */
    const struct farm_part_result *x = sfc_at(&r, 0);
    ck_assert(!x->gone && sfc_at(&r, 1)->gone);
    ck_assert_uint_eq(ebf_kv_u64(&x->kv, "rx.frames", 0), frames_sent_to(&r, 0));
    ck_assert_uint_eq(frames_sent_to(&r, 0), (uint64_t)odd * SOURCES);
    ck_assert_uint_eq(ebf_kv_u64(&x->kv, "ack.events", 0), EVENTS / SFCS);
    assert_sfc_built_its_ids(x, 0);
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r.ro[i].kv;
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfcs_gone", 0), 1);
        ck_assert_uint_eq(kv_at(kv, "sfc.gone.", 1), 1);
        ck_assert_uint_eq(kv_at(kv, "sfc.gone.", 0), 0);
        /* every frame toward SFC 1 was taken by its port or counted */
        ck_assert_uint_eq(kv_at(kv, "sfc.frames.", 1) + ebf_kv_u64(kv, "sfc_gone_frames", 0),
                          odd * (SOURCES / READOUTS));
        /* given up soon after the stop: its ring (2048 frames) filled and
         * --sfc-timeout-ms passed */
        uint64_t from = kv_at(kv, "sfc.gone_from.", 1);
        ck_assert_uint_ge(from, after);
        ck_assert_uint_lt(from, after + 10000);
    }
    farm_result_free(&r);
}
END_TEST

Suite *farm_multi_suite(void);

Suite *farm_multi_suite(void)
{
    Suite *s = suite_create("farm_multi");
    TCase *tc = tcase_create("farm_multi");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_multi_clean);
    tcase_add_test(tc, test_multi_faults);
    tcase_add_test(tc, test_multi_node_killed);
    tcase_add_test(tc, test_multi_sfc_killed);
    suite_add_tcase(s, tc);
    return s;
}
