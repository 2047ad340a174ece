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
#include "ro_fault.h"
#include "summary.h"

#define READOUTS 4u
#define SFCS 2u
#define NODES 4u
#define SOURCES 8u              /* 2 per readout */
#define EVENTS 100000u
#define FAULT_SEED 7u

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

/*
 * The fault model: every readout's fault stage sees the same frames (2
 * sources of 1 KiB: one frame each, frame g is event g / 2, local source
 * g % 2) and, with one seed, makes the same decisions, replayed here from
 * the spec (readout/ro_fault_tx.h); the frames leave each readout in the
 * order computed, SFC e % 2 tracks them per (source, SFC) with sequence
 * number e / 2 (docs/protocol.md, section 11).
 */
#define LOCAL (SOURCES / READOUTS)
#define RO_FRAMES (EVENTS * LOCAL)

struct model {
    struct ro_fault_stats fs;                   /* one readout's */
    uint64_t sent[SFCS], bad_payload[SFCS], bad_header[SFCS], dups[SFCS];
    uint64_t gap[LOCAL][SFCS], reorder[LOCAL][SFCS], dup[LOCAL][SFCS];
    uint64_t missing[LOCAL];                    /* delivered events without local source j */
    uint64_t incomplete[SFCS], withheld;
    uint64_t accepted;                          /* over the events not withheld */
};

struct arrival {
    uint32_t g;
    int bad, copy;
};

struct tracker {
    uint32_t next;
    uint64_t seen;
};

static void track(struct model *m, struct tracker *q, unsigned j, unsigned k, uint32_t seq)
{
    uint32_t ahead = seq - q->next;

    if (ahead < 0x80000000u) {
        m->gap[j][k] += ahead;
        q->seen = ahead >= 63 ? 1 : (q->seen << (ahead + 1)) | 1;
        q->next = seq + 1;
        return;
    }
    uint32_t back = q->next - 1 - seq;
    if (back < 64 && !(q->seen & (1ull << back))) {
        q->seen |= 1ull << back;
        m->reorder[j][k]++;
    } else {
        m->dup[j][k]++;
    }
}

/* One readout's frames through the fault stage, in the order they leave. */
static unsigned model_faults(const char *spec, struct model *m, struct arrival *out,
                             uint8_t *lost)
{
    static struct arrival held[RO_FRAMES];
    static uint64_t due[RO_FRAMES];
    struct ro_fault_conf fc;
    struct ro_fault_plan pl;
    char err[256];
    unsigned n = 0, nh = 0;

    ro_fault_conf_init(&fc);
    ck_assert_msg(ro_fault_parse(spec, &fc, err, sizeof(err)) == 0, "%s", err);
    fc.seed = FAULT_SEED;
    ro_fault_plan_init(&pl, &fc);
    for (uint32_t g = 0; g < RO_FRAMES; g++) {
        uint32_t arg;
        enum ro_fault_kind k = ro_fault_decide(&pl, &arg);
        m->fs.frames_in++;
        if (k != RO_FK_NONE)
            m->fs.n[k]++;
        switch (k) {
        case RO_FK_DROP:
            lost[g] = 1;
            break;
        case RO_FK_DUP:
            ck_assert_uint_eq(fc.dup_frames, 0);
            out[n++] = (struct arrival){g, 0, 0};
            out[n++] = (struct arrival){g, 0, 1};
            break;
        case RO_FK_REORDER:
            held[nh] = (struct arrival){g, 0, 0};
            due[nh++] = g + 1 + arg;            /* the stage's index counts from 1 */
            break;
        case RO_FK_CORRUPT_PAYLOAD:
        case RO_FK_CORRUPT_HEADER:
            out[n++] = (struct arrival){g, k == RO_FK_CORRUPT_PAYLOAD ? 1 : 2, 0};
            lost[g] = 1;
            break;
        default:
            ck_assert_msg(k == RO_FK_NONE, "the model has no %s", ro_fault_key(k));
            out[n++] = (struct arrival){g, 0, 0};
            break;
        }
        unsigned w = 0;
        for (unsigned i = 0; i < nh; i++) {
            if (due[i] <= (uint64_t)g + 1)
                out[n++] = held[i];
            else
                held[w] = held[i], due[w++] = due[i];
        }
        nh = w;
    }
    for (unsigned i = 0; i < nh; i++)
        out[n++] = held[i];
    return n;
}

static void model_run(const char *spec, struct model *m)
{
    static struct arrival out[2 * RO_FRAMES];
    static uint8_t lost[RO_FRAMES];
    struct tracker q[LOCAL][SFCS];

    memset(m, 0, sizeof(*m));
    memset(lost, 0, sizeof(lost));
    memset(q, 0, sizeof(q));
    unsigned n = model_faults(spec, m, out, lost);
    for (unsigned i = 0; i < n; i++) {
        uint32_t g = out[i].g, e = g / LOCAL, j = g % LOCAL, k = e % SFCS;
        m->sent[k]++;
        m->dups[k] += out[i].copy;
        if (out[i].bad) {
            *(out[i].bad == 1 ? &m->bad_payload[k] : &m->bad_header[k]) += 1;
            continue;                           /* the parser rejects it first */
        }
        track(m, &q[j][k], j, k, e / SFCS);
    }
    for (uint32_t e = 0; e < EVENTS; e++) {
        unsigned miss = 0;
        for (unsigned j = 0; j < LOCAL; j++)
            miss += lost[e * LOCAL + j];
        if (miss == LOCAL) {
            m->withheld++;
            continue;
        }
        for (unsigned j = 0; j < LOCAL; j++)
            m->missing[j] += lost[e * LOCAL + j];
        m->incomplete[e % SFCS] += miss > 0;
        m->accepted += (uint64_t)node_decide(e, 0, 0.1);
    }
}

/*
 * The demo's mix at ten times its rates (drops, duplicates, reorders,
 * corrupted payloads and headers), seed 7, on every readout: each SFC's
 * frames, rejects, duplicates, per-(source, SFC) gaps, reorders and
 * repeats, its incomplete events and their missing sources, and the
 * ledger (withheld events: every readout lost both its fragments) are
 * exactly what the replayed faults make them.
 */
START_TEST(test_multi_faults)
{
    const char *spec = "drop=0.002,dup=0.002,reorder=0.02,window=8,corrupt=0.001,"
                       "corrupt_header=0.001";
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    static struct model m;

    model_run(spec, &m);
    for (unsigned k = RO_FK_DROP; k <= RO_FK_CORRUPT_HEADER; k++)
        if (k != RO_FK_DELAY)
            ck_assert_msg(m.fs.n[k] > 0, "the mix has no %s", ro_fault_key(k));
    farm_conf_default(&c);
    snprintf(c.faults, sizeof(c.faults), "%s", spec);
    c.seed = FAULT_SEED;
    run(&c, &r, &l);
    for (unsigned i = 0; i < READOUTS; i++)
        for (unsigned k = 0; k < RO_FK_MAX; k++) {
            char key[64];
            snprintf(key, sizeof(key), "fault.%s", ro_fault_counter(k));
            ck_assert_msg(ebf_kv_u64(&r.ro[i].kv, key, UINT64_MAX) == m.fs.n[k],
                          "ro%u %s = %llu, model %llu", i, key,
                          (unsigned long long)ebf_kv_u64(&r.ro[i].kv, key, UINT64_MAX),
                          (unsigned long long)m.fs.n[k]);
        }
    for (unsigned k = 0; k < SFCS; k++) {
        const struct ebf_kv *kv = &sfc_at(&r, k)->kv;
        ck_assert_uint_eq(frames_sent_to(&r, k), READOUTS * m.sent[k]);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.frames", 0), READOUTS * m.sent[k]);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.reject.bad_checksum", 0),
                          READOUTS * m.bad_payload[k]);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.reject.bad_field", 0), READOUTS * m.bad_header[k]);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.drop.duplicate", 0) +
                          ebf_kv_u64(kv, "rx.drop.duplicate_sent", 0), READOUTS * m.dups[k]);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.drop.late", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "events.incomplete", 0), m.incomplete[k]);
        for (unsigned s = 0; s < SOURCES; s++) {
            unsigned j = s % LOCAL;
            ck_assert_uint_eq(kv_at(kv, "seq.gap.", s), m.gap[j][k]);
            ck_assert_uint_eq(kv_at(kv, "seq.reorder.", s), m.reorder[j][k]);
            ck_assert_uint_eq(kv_at(kv, "seq.dup.", s), m.dup[j][k]);
            ck_assert_uint_eq(kv_at(kv, "seq.resync.", s), 0);
        }
    }
    for (unsigned s = 0; s < SOURCES; s++)
        ck_assert_uint_eq(kv_at(&r.sfc, "missing.source.", s), m.missing[s % LOCAL]);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.incomplete, m.incomplete[0] + m.incomplete[1]);
    ck_assert_uint_eq(l.lost_total, m.withheld);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS - m.withheld);
    ck_assert_uint_eq(l.accepted, m.accepted);
    ck_assert(l.withheld_agree);
    ck_assert(l.closed);
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
    /* SFC 0's own losses (events its table refused while the readouts
     * were stuck on SFC 1 for up to 2 s), each under its reason */
    uint64_t other = 0;
    for (unsigned i = 0; i < l.n_lost; i++)
        if (strcmp(l.lost_name[i], "sfc_lost") != 0)
            other += l.lost[i];
    ck_assert_uint_eq(other, ebf_kv_u64(&r.sfc, "lost.event_table_full", 0) +
                      ebf_kv_u64(&r.sfc, "lost.stopped_building", 0) +
                      ebf_kv_u64(&r.sfc, "lost.no_node", 0) +
                      ebf_kv_u64(&r.sfc, "lost.stopped_unacked", 0));
    ck_assert_uint_eq(l.lost_total, l.sfc_lost + other);
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
    ck_assert_uint_eq(ebf_kv_u64(&x->kv, "ack.events", 0) + other, EVENTS / SFCS);
    if (other == 0)
        assert_sfc_built_its_ids(x, 0);
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r.ro[i].kv;
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfcs_gone", 0), 1);
        ck_assert_uint_eq(kv_at(kv, "sfc.gone.", 1), 1);
        ck_assert_uint_eq(kv_at(kv, "sfc.gone.", 0), 0);
        /* every frame toward SFC 1 was taken by its port or counted */
        ck_assert_uint_eq(kv_at(kv, "sfc.frames.", 1) + ebf_kv_u64(kv, "sfc_gone_frames", 0),
                          odd * (SOURCES / READOUTS));
        /* given up soon after the stop (when ro0 had generated 30,000; a
         * readout may be behind it by what an SFC holds, 4096 events of
         * each SFC): its ring (2048 frames) filled, --sfc-timeout-ms passed */
        uint64_t from = kv_at(kv, "sfc.gone_from.", 1);
        ck_assert_uint_ge(from + 2 * 4096, after);
        ck_assert_uint_lt(from, after + 10000);
    }
    farm_result_free(&r);
}
END_TEST

/*
 * Failover's first half on (replay_mb 64): the same clean run, and each
 * SFC sends its release frames (every 10 ms, none refused) which every
 * readout takes (none refused, none counted as another frame); each
 * readout's replay buffer recorded every event it sent, and every record
 * is either released by its SFC or still held at the end (the last
 * rounds come after the readout stopped listening): released + held =
 * events, exactly, with most released and the peak within the bound.
 */
START_TEST(test_multi_release)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.replay_mb = 64;
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts(EVENTS, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert(l.closed);
    assert_per_sfc(&r, 1);
    for (unsigned k = 0; k < SFCS; k++) {
        ck_assert_uint_gt(ebf_kv_u64(&sfc_at(&r, k)->kv, "release.frames", 0), 0);
        ck_assert_msg(ebf_kv_u64(&sfc_at(&r, k)->kv, "release.tx_fail", 0) == 0,
                      "SFC %u: release.tx_fail %llu of %llu", k,
                      (unsigned long long)ebf_kv_u64(&sfc_at(&r, k)->kv, "release.tx_fail", 0),
                      (unsigned long long)ebf_kv_u64(&sfc_at(&r, k)->kv, "release.frames", 0));
    }
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r.ro[i].kv;
        uint64_t released = ebf_kv_u64(kv, "replay.released", 0);

        ck_assert_uint_eq(ebf_kv_u64(kv, "events", 0), EVENTS);
        ck_assert_uint_gt(ebf_kv_u64(kv, "release.frames", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "release.rejected", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "rx.other", 0), 0);
        ck_assert_uint_eq(released + ebf_kv_u64(kv, "replay.held_events", 0), EVENTS);
        ck_assert_uint_gt(released, EVENTS / 2);
        ck_assert_uint_le(ebf_kv_u64(kv, "replay.peak_bytes", 0), 64ull << 20);
        ck_assert_uint_gt(ebf_kv_u64(kv, "replay.peak_bytes", 0), 0);
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
    tcase_add_test(tc, test_multi_release);
    suite_add_tcase(s, tc);
    return s;
}
