/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_faults.c - whole farms under injected faults: every count against a model of what the seeded faults did. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farm.h"
#include "node_decide.h"
#include "ro_fault.h"
#include "summary.h"

#define EVENTS 20000u
#define SOURCES 8u
#define FAULT_SEED 7u
#define FRAMES (EVENTS * SOURCES)   /* 1024-byte fragments: one frame each */
#define NONE RO_FAULT_NO_SILENCE

/*
 * What the readout's fault stage does to the run's frames, replayed from
 * the same spec and seed (readout/ro_fault_tx.h), and what the SFC must
 * then see: the frames in the order they leave the readout, their sequence
 * numbers through the SFC's per-source tracker (docs/protocol.md, section
 * 11), and the events that miss a source.
 */
struct model {
    struct ro_fault_stats fs;
    uint64_t sent;                          /* frames on the link */
    uint64_t rejected_payload, rejected_header;
    uint64_t gap[SOURCES], reorder[SOURCES], dup[SOURCES];
    uint64_t missing[SOURCES];              /* events delivered without source s */
    uint64_t incomplete;                    /* events missing at least one source */
    uint64_t withheld;                      /* events missing every source */
    uint64_t accepted;                      /* of the decision function */
};

struct arrival {
    uint32_t g;                  /* frame index: event g / SOURCES, source g % SOURCES */
    int bad;                     /* corrupted: the SFC's parser rejects it */
};

struct seq_state {
    uint32_t next;
    uint64_t seen;
};

/* The SFC's tracker for one frame of source s (docs/protocol.md, 11). */
static void seq_note(struct model *m, struct seq_state *q, unsigned s, uint32_t seq)
{
    uint32_t ahead = seq - q->next;

    if (ahead < 0x80000000u) {
        m->gap[s] += ahead;
        q->seen = ahead >= 63 ? 1 : (q->seen << (ahead + 1)) | 1;
        q->next = seq + 1;
        return;
    }
    uint32_t back = q->next - 1 - seq;
    if (back < 64 && !(q->seen & (1ull << back))) {
        q->seen |= 1ull << back;
        m->reorder[s]++;
    } else {
        m->dup[s]++;
    }
}

static void model_run(const char *spec, uint32_t silence_source, uint64_t silence_event,
                      struct model *m)
{
    static struct arrival out[2 * FRAMES];
    static struct arrival held[2 * FRAMES];
    static uint64_t due[2 * FRAMES];
    static uint8_t lost[FRAMES];
    struct ro_fault_conf fc;
    struct ro_fault_plan pl;
    struct seq_state seq[SOURCES];
    char err[256];
    unsigned n = 0, nh = 0;
    uint64_t idx = 0;

    memset(m, 0, sizeof(*m));
    memset(lost, 0, sizeof(lost));
    memset(seq, 0, sizeof(seq));
    ro_fault_conf_init(&fc);
    ck_assert_msg(ro_fault_parse(spec, &fc, err, sizeof(err)) == 0, "%s", err);
    fc.silence_source = silence_source;
    fc.silence_event = silence_event;
    fc.seed = FAULT_SEED;
    ro_fault_plan_init(&pl, &fc);
    for (uint32_t g = 0; g < FRAMES; g++) {
        uint32_t s = g % SOURCES, arg;
        m->fs.frames_in++;
        if (s == fc.silence_source && g / SOURCES >= fc.silence_event) {
            m->fs.silenced_frames++;
            lost[g] = 1;
            continue;
        }
        idx++;
        enum ro_fault_kind k = ro_fault_decide(&pl, &arg);
        if (k != RO_FK_NONE)
            m->fs.n[k]++;
        switch (k) {
        case RO_FK_DROP:
            m->fs.dropped_source[s]++;
            lost[g] = 1;
            break;
        case RO_FK_DUP:
            out[n++] = (struct arrival){g, 0};
            if (fc.dup_frames == 0) {
                out[n++] = (struct arrival){g, 0};
                break;
            }
            held[nh] = (struct arrival){g, 0};
            due[nh++] = idx + fc.dup_frames;
            break;
        case RO_FK_REORDER:
            held[nh] = (struct arrival){g, 0};
            due[nh++] = idx + arg;
            break;
        case RO_FK_CORRUPT_PAYLOAD:
        case RO_FK_CORRUPT_HEADER:
            out[n++] = (struct arrival){g, 1};
            lost[g] = 1;
            break;
        default:
            ck_assert_msg(k == RO_FK_NONE, "the model has no %s", ro_fault_key(k));
            out[n++] = (struct arrival){g, 0};
            break;
        }
        unsigned j = 0;
        for (unsigned i = 0; i < nh; i++) {
            if (due[i] <= idx)
                out[n++] = held[i];
            else
                held[j] = held[i], due[j++] = due[i];
        }
        nh = j;
    }
    for (unsigned i = 0; i < nh; i++)   /* the end of the run lets every held frame out */
        out[n++] = held[i];
    m->sent = n;
    /* A source numbers every frame it builds, sent or not: frame g is the
     * (g / SOURCES)-th of its source. Corrupted frames never reach the
     * tracker: the parser rejects them first. */
    for (unsigned i = 0; i < n; i++)
        if (!out[i].bad)
            seq_note(m, &seq[out[i].g % SOURCES], out[i].g % SOURCES, out[i].g / SOURCES);
    m->rejected_payload = m->fs.n[RO_FK_CORRUPT_PAYLOAD];
    m->rejected_header = m->fs.n[RO_FK_CORRUPT_HEADER];
    for (uint32_t e = 0; e < EVENTS; e++) {
        unsigned miss = 0;
        for (uint32_t s = 0; s < SOURCES; s++)
            if (lost[e * SOURCES + s]) {
                m->missing[s]++;
                miss++;
            }
        m->incomplete += miss > 0 && miss < SOURCES;
        m->withheld += miss == SOURCES;
    }
}

static uint64_t expected_accepts(uint64_t events, double accept)
{
    uint64_t n = 0;
    for (uint64_t e = 0; e < events; e++)
        n += (uint64_t)node_decide(e, 0, accept);
    return n;
}

static uint64_t kv_at(const struct ebf_kv *kv, const char *prefix, unsigned i)
{
    char key[64];
    snprintf(key, sizeof(key), "%s%u", prefix, i);
    return ebf_kv_u64(kv, key, 0);
}

static uint64_t sum_nodes(const struct farm_result *r, const char *key)
{
    uint64_t s = 0;
    for (unsigned i = 0; i < r->n_nodes; i++)
        s += ebf_kv_u64(&r->node[i].kv, key, UINT64_MAX / 64);
    return s;
}

/* The readouts' payload of the next run (a test's own: each runs forked). */
static enum ff_payload payload = FF_PAYLOAD_PREBUILT;

static void run(struct farm_conf *c, const char *spec, uint32_t silence_source,
                uint64_t silence_event, struct farm_result *r, struct ledger *l)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");
    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    farm_conf_default(c);
    c->build_dir = dir;
    c->events = EVENTS;
    c->sources = SOURCES;
    snprintf(c->faults, sizeof(c->faults), "%s", spec);
    c->silence_source = silence_source;
    c->silence_event = silence_event;
    c->seed = FAULT_SEED;
    c->payload = payload;
    c->timeout_ms = 2000;       /* see test-farm.c: no spurious incomplete event */
    int rc = farm_run(c, r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r->error);
    ledger_close(r, l);
}

/*
 * Every count the model fixes: the readout's fault counters, the frames on
 * the link and at the SFC, its rejects, its per-source sequence tracker,
 * the events it built incomplete and the sources they missed, and the
 * ledger: every event decided once by the decision function, none lost.
 */
static void assert_model(const struct farm_result *r, const struct ledger *l,
                         const struct model *m)
{
    const struct ebf_kv *ro = &r->readout, *sfc = &r->sfc;

    ck_assert_uint_eq(ebf_kv_u64(ro, "events", 0), EVENTS);
    ck_assert_uint_eq(ebf_kv_u64(ro, "frames", 0), FRAMES);
    ck_assert_uint_eq(ebf_kv_u64(ro, "fault.frames_in", 0), m->fs.frames_in);
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        char key[64];
        snprintf(key, sizeof(key), "fault.%s", ro_fault_counter(k));
        ck_assert_msg(ebf_kv_u64(ro, key, UINT64_MAX) == m->fs.n[k], "%s = %llu, model %llu", key,
                      (unsigned long long)ebf_kv_u64(ro, key, UINT64_MAX),
                      (unsigned long long)m->fs.n[k]);
    }
    ck_assert_uint_eq(ebf_kv_u64(ro, "fault.silenced_frames", UINT64_MAX), m->fs.silenced_frames);
    ck_assert_uint_eq(ebf_kv_u64(ro, "fault.dup_failed", UINT64_MAX), 0);
    ck_assert_uint_eq(ebf_kv_u64(ro, "fault.hold_full", UINT64_MAX), 0);
    ck_assert_uint_eq(ebf_kv_u64(ro, "fault.withheld_events", UINT64_MAX), m->withheld);
    for (unsigned s = 0; s < SOURCES; s++)
        ck_assert_uint_eq(kv_at(ro, "fault.dropped.source.", s), m->fs.dropped_source[s]);

    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.frames", 0), m->sent);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.reject.bad_checksum", 0), m->rejected_payload);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.reject.bad_field", 0), m->rejected_header);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.drop.duplicate", 0) +
                      ebf_kv_u64(sfc, "rx.drop.duplicate_sent", 0), m->fs.n[RO_FK_DUP]);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.drop.late", 0), 0);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "rx.drop.stale", 0), 0);
    for (unsigned s = 0; s < SOURCES; s++) {
        ck_assert_uint_eq(kv_at(sfc, "seq.gap.", s), m->gap[s]);
        ck_assert_uint_eq(kv_at(sfc, "seq.reorder.", s), m->reorder[s]);
        ck_assert_uint_eq(kv_at(sfc, "seq.dup.", s), m->dup[s]);
        ck_assert_uint_eq(kv_at(sfc, "missing.source.", s), m->missing[s]);
    }
    ck_assert_uint_eq(ebf_kv_u64(sfc, "events.incomplete", 0), m->incomplete);
    ck_assert_uint_eq(ebf_kv_u64(sfc, "events.complete", 0), EVENTS - m->incomplete);

    ck_assert_uint_eq(l->generated, EVENTS);
    ck_assert_uint_eq(l->incomplete, m->incomplete);
    ck_assert_uint_eq(l->lost_total, 0);
    ck_assert_uint_eq(l->accepted + l->rejected, EVENTS);
    ck_assert_uint_eq(l->accepted, expected_accepts(EVENTS, 0.1));
    ck_assert_uint_eq(sum_nodes(r, "events"), EVENTS);     /* each decided once */
    ck_assert_uint_eq(sum_nodes(r, "dup_events"), 0);
    ck_assert_uint_eq(sum_nodes(r, "incomplete"), m->incomplete);
    ck_assert_uint_eq(sum_nodes(r, "events_bad"), 0);      /* nothing corrupt got through */
    ck_assert(l->digest_match);
    ck_assert(l->ids_match);
    ck_assert(l->nodes_agree);
    ck_assert(l->closed);
}

/* Replay spec (and a silence) into m, run the farm under it, and check
 * every count the model fixes. */
static void fault_case(const char *spec, uint32_t silence_source, uint64_t silence_event,
                       struct model *m, struct farm_result *r, struct ledger *l)
{
    struct farm_conf c;

    model_run(spec, silence_source, silence_event, m);
    run(&c, spec, silence_source, silence_event, r, l);
    assert_model(r, l, m);
}

/* 1% of the frames dropped: every one is a sequence gap of its source
 * (those after a source's last frame cannot be seen) and a missing source
 * of its event. */
START_TEST(test_faults_drop)
{
    struct farm_result r;
    struct ledger l;
    struct model m;

    fault_case("drop=0.01", NONE, 0, &m, &r, &l);
    ck_assert_uint_gt(m.fs.n[RO_FK_DROP], FRAMES / 200);
    uint64_t gaps = 0;
    for (unsigned s = 0; s < SOURCES; s++)
        gaps += m.gap[s] - m.reorder[s];
    ck_assert_uint_le(m.fs.n[RO_FK_DROP] - gaps, SOURCES);    /* only trailing drops unseen */
    farm_result_free(&r);
}
END_TEST

/* 1% duplicates, each copy 64 frames (8 events) after its original: every
 * copy is dropped by the SFC, most after their event was sent; no event
 * is decided twice. */
START_TEST(test_faults_dup)
{
    struct farm_result r;
    struct ledger l;
    struct model m;
    const char *spec = "dup=0.01,dup_frames=64";

    fault_case(spec, NONE, 0, &m, &r, &l);
    uint64_t dups = 0;
    for (unsigned s = 0; s < SOURCES; s++)
        dups += m.dup[s];
    ck_assert_uint_eq(dups, m.fs.n[RO_FK_DUP]);
    ck_assert_uint_eq(m.incomplete, 0);
    ck_assert_uint_gt(ebf_kv_u64(&r.sfc, "rx.drop.duplicate_sent", 0), 0);
    farm_result_free(&r);
}
END_TEST

/* 2% of the frames held back 1..8 frames: every event still complete,
 * every overtaken frame counted as a reorder of its source, none lost. */
START_TEST(test_faults_reorder)
{
    struct farm_result r;
    struct ledger l;
    struct model m;
    const char *spec = "reorder=0.02,window=8";

    fault_case(spec, NONE, 0, &m, &r, &l);
    uint64_t reorders = 0;
    for (unsigned s = 0; s < SOURCES; s++) {
        ck_assert_uint_eq(m.gap[s], m.reorder[s]);       /* nothing lost */
        reorders += m.reorder[s];
    }
    ck_assert_uint_gt(reorders, 0);
    ck_assert_uint_eq(m.incomplete, 0);
    farm_result_free(&r);
}
END_TEST

/* Every node's verify.* counter 0: every piece it got was clean. */
static void assert_verified_clean(const struct farm_result *r)
{
    for (unsigned i = 0; i < r->n_nodes; i++)
        for (unsigned j = 0; j < r->node[i].kv.n; j++) {
            const struct ebf_kv_pair *p = &r->node[i].kv.pair[j];
            if (!strncmp(p->key, "verify.", 7))
                ck_assert_msg(strcmp(p->val, "0") == 0, "node%u %s = %s", i, p->key, p->val);
        }
}

/* No fault (no fault stage: with the prebuilt payload, frames keep their
 * bytes between uses), with the prebuilt payload (the default, _i 0) and
 * the per-event one (_i 1): every frame through, every event complete and
 * decided once, verified clean by the nodes, the ledger closed. */
START_TEST(test_faults_none_both_payloads)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    payload = _i ? FF_PAYLOAD_PER_EVENT : FF_PAYLOAD_PREBUILT;
    run(&c, "", NONE, 0, &r, &l);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "frames", 0), FRAMES);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), FRAMES);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), EVENTS);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS);
    ck_assert_uint_eq(l.accepted, expected_accepts(EVENTS, 0.1));
    ck_assert_uint_eq(sum_nodes(&r, "events"), EVENTS);
    ck_assert_uint_eq(sum_nodes(&r, "events_bad"), 0);
    assert_verified_clean(&r);
    ck_assert(l.digest_match && l.ids_match && l.nodes_agree && l.closed);
    farm_result_free(&r);
}
END_TEST

/* Corrupted payloads and headers: each corrupted frame rejected with its
 * reason (bad_checksum, bad_field), none accepted into an event; the same
 * counts (one model) with the prebuilt payload (_i 0) and the per-event
 * one (_i 1). */
START_TEST(test_faults_corrupt)
{
    struct farm_result r;
    struct ledger l;
    struct model m;
    const char *spec = "corrupt_payload=0.005,corrupt_header=0.005";

    payload = _i ? FF_PAYLOAD_PER_EVENT : FF_PAYLOAD_PREBUILT;
    fault_case(spec, NONE, 0, &m, &r, &l);
    ck_assert_uint_gt(m.rejected_payload, 0);
    ck_assert_uint_gt(m.rejected_header, 0);
    assert_verified_clean(&r);      /* every piece they got verified */
    farm_result_free(&r);
}
END_TEST

/* Source 3 goes silent from event 12000: every later event is delivered
 * incomplete with source 3 missing, and only those. */
START_TEST(test_faults_silent_source)
{
    struct farm_result r;
    struct ledger l;
    struct model m;

    fault_case("", 3, 12000, &m, &r, &l);
    ck_assert_uint_eq(m.incomplete, EVENTS - 12000);
    ck_assert_uint_eq(kv_at(&r.sfc, "missing.source.", 3), EVENTS - 12000);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "fault.silenced_fragments", 0), EVENTS - 12000);
    farm_result_free(&r);
}
END_TEST

/* The demo's mix (docs/demo.md) at ten times its rates, and source 5
 * silent for the last 2000 events: each fault under its own counter. */
START_TEST(test_faults_mixed)
{
    struct farm_result r;
    struct ledger l;
    struct model m;
    const char *spec = "drop=0.002,dup=0.002,reorder=0.02,corrupt=0.001,corrupt_header=0.001";

    fault_case(spec, 5, EVENTS - 2000, &m, &r, &l);
    for (unsigned k = 0; k < RO_FK_MAX; k++)
        if (k != RO_FK_DELAY)
            ck_assert_msg(m.fs.n[k] > 0, "the mix has no %s", ro_fault_key(k));
    ck_assert_uint_eq(m.fs.silenced_frames, 2000);
    farm_result_free(&r);
}
END_TEST

/* One source, 1% of its frames dropped: each drop withholds a whole event
 * from the SFC; the readout accounts for them, and the ledger counts them
 * lost as "withheld", by id. */
START_TEST(test_faults_withheld)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    struct ro_fault_conf fc;
    struct ro_fault_plan pl;
    const char *dir = getenv("EBFARM_BUILD_DIR");
    char err[128];
    uint64_t drops = 0;

    ro_fault_conf_init(&fc);
    ck_assert_int_eq(ro_fault_parse("drop=0.01", &fc, err, sizeof(err)), 0);
    fc.seed = FAULT_SEED;
    ro_fault_plan_init(&pl, &fc);
    for (unsigned i = 0; i < EVENTS; i++) {
        uint32_t arg;
        drops += ro_fault_decide(&pl, &arg) == RO_FK_DROP;
    }
    ck_assert_uint_gt(drops, 0);
    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    farm_conf_default(&c);
    c.build_dir = dir;
    c.events = EVENTS;
    c.sources = 1;
    c.seed = FAULT_SEED;
    c.timeout_ms = 2000;
    snprintf(c.faults, sizeof(c.faults), "drop=0.01");
    int rc = farm_run(&c, &r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r.error);
    ledger_close(&r, &l);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "fault.dropped", 0), drops);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "fault.withheld_events", 0), drops);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), EVENTS - drops);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), EVENTS - drops);
    ck_assert_uint_eq(l.generated, EVENTS);
    ck_assert_uint_eq(l.accepted + l.rejected, EVENTS - drops);
    ck_assert_uint_eq(l.lost_total, drops);
    unsigned i = 0;
    while (i < l.n_lost && strcmp(l.lost_name[i], "withheld") != 0)
        i++;
    ck_assert_uint_lt(i, l.n_lost);
    ck_assert_uint_eq(l.lost[i], drops);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.closed);
    farm_result_free(&r);
}
END_TEST

/* Every node stalled (SIGSTOP) mid-run: the SFC's queue fills, it
 * throttles the readout, which holds; the nodes resume and nothing is
 * lost or refused. */
START_TEST(test_faults_nodes_stalled)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    const char *dir = getenv("EBFARM_BUILD_DIR");

    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    farm_conf_default(&c);
    c.build_dir = dir;
    c.events = 60000;
    c.timeout_ms = 2000;
    c.stall_nodes_after = 10000;
    c.stall_ms = 800;           /* longer than a throttle hold: it is refreshed */
    int rc = farm_run(&c, &r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r.error);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.generated, 60000);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "events", 0), 60000);
    ck_assert_uint_ge(ebf_kv_u64(&r.readout, "throttle.holds", 0), 1);
    ck_assert_uint_ge(ebf_kv_u64(&r.readout, "throttle.held_ns", 0), 700000000ull);
    ck_assert_uint_ge(ebf_kv_u64(&r.sfc, "throttle.on", 0), 1);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "throttle.tx_fail", 0), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "throttle.frames", 0),
                      ebf_kv_u64(&r.sfc, "throttle.frames", 0));
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), 60000ull * 8);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "lost.event_table_full", 0), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), 60000);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, 60000);
    ck_assert_uint_eq(l.accepted, expected_accepts(60000, c.accept));
    ck_assert(l.ids_match);
    ck_assert(l.closed);
    farm_result_free(&r);
}
END_TEST

Suite *farm_faults_suite(void);

Suite *farm_faults_suite(void)
{
    Suite *s = suite_create("farm_faults");
    TCase *tc = tcase_create("faults");

    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_faults_drop);
    tcase_add_test(tc, test_faults_dup);
    tcase_add_test(tc, test_faults_reorder);
    tcase_add_loop_test(tc, test_faults_none_both_payloads, 0, 2);
    tcase_add_loop_test(tc, test_faults_corrupt, 0, 2);
    tcase_add_test(tc, test_faults_silent_source);
    tcase_add_test(tc, test_faults_mixed);
    tcase_add_test(tc, test_faults_withheld);
    tcase_add_test(tc, test_faults_nodes_stalled);
    suite_add_tcase(s, tc);
    return s;
}
