/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_failover.c - failover in whole farms of 4 readouts, 2 SFCs and 4 nodes: an SFC killed mid-run loses no event to its death; an SFC frozen 3 s, or stopped 500 ms within a release round, fences itself, rejoins and loses nothing; an SFC declared dead while alive (its release frames muted) fences on the readouts' notices, rejoins and loses nothing. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "farm.h"
#include "ledger.h"

#define READOUTS 4u
#define SFCS 2u
#define NODES 4u
#define SOURCES 8u              /* 2 per readout */
#define AFTER 30000u            /* the SFC is killed or frozen then */

/* The demo shaped as 4 readouts into 2 SFCs (memif links per pair), 4
 * nodes (node i serves SFC i % 2), 1 KiB fragments at 25,000 events/s,
 * failover on (64 MiB per readout). */
static void run(struct farm_conf *c, uint64_t events, struct farm_result *r)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");

    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    c->build_dir = dir;
    c->events = events;
    c->sources = SOURCES;
    c->readouts = READOUTS;
    c->sfcs = SFCS;
    c->nodes = NODES;
    c->timeout_ms = 2000;
    c->rate = 25000;
    c->replay_mb = 64;
    int rc = farm_run(c, r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r->error);
}

/* Adds, with sign, the id record of stats keys "<prefix>.count.<cell>" ... */
static void kv_idset_merge(const struct ebf_kv *kv, const char *prefix, struct ebf_idset *into,
                           int sign)
{
    struct ebf_idset s;
    char key[96];

    ebf_idset_init(&s);
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        snprintf(key, sizeof(key), "%s.count.%u", prefix, c);
        s.count[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.id_sum.%u", prefix, c);
        s.id_sum[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.hash_sum.%u", prefix, c);
        s.hash_sum[c] = ebf_kv_u64(kv, key, 0);
    }
    ebf_idset_merge(into, &s, sign);
}

/* The SFC at place k in the readouts' lists. */
static const struct farm_part_result *sfc_at(const struct farm_result *r, unsigned k)
{
    for (unsigned i = 0; i < r->n_sfcs; i++)
        if (r->sfcs[i].place == (int)k)
            return &r->sfcs[i];
    ck_abort_msg("no SFC at place %u", k);
    return NULL;
}

/* Every SFC's own losses, by reason: none. */
static void assert_sfc_lost_nothing(const struct farm_part_result *x)
{
    static const char *const reasons[] = {"lost.event_table_full", "lost.stopped_building",
                                          "lost.no_node", "lost.stopped_unacked"};

    for (unsigned i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
        ck_assert_msg(ebf_kv_u64(&x->kv, reasons[i], 0) == 0, "%s: %s %llu", x->name,
                      reasons[i], (unsigned long long)ebf_kv_u64(&x->kv, reasons[i], 0));
}

/*
 * Every generated id reached a node: want - decided, where decided is the
 * given record (the SFCs' acks, the dead SFC's nodes' own records), lists
 * no missing id. Ids decided twice (redecided) are the extras, as many as
 * the counts say; when they are too many to list, no cell may count an id
 * missing. Returns the redecided count the totals give.
 */
static uint64_t assert_every_id_decided(struct ebf_idset *decided, uint64_t n_decided,
                                        uint64_t events)
{
    static uint64_t missing[64], extra[64];
    struct ebf_idset d;
    unsigned nm = 0, ne = 0;

    ck_assert_uint_ge(n_decided, events);
    ebf_idset_init(&d);
    ebf_idset_add_range(&d, 0, events);
    ebf_idset_merge(&d, decided, -1);
    if (ebf_idset_list(&d, missing, &nm, extra, &ne, 64)) {
        ck_assert_msg(nm == 0, "%u ids reached no node, the first %llu", nm,
                      (unsigned long long)missing[0]);
        ck_assert_uint_eq(ne, n_decided - events);
    } else {
        for (unsigned c = 0; c < EBF_IDSET_CELLS; c++)
            ck_assert_msg((int64_t)d.count[c] <= 0, "cell %u counts an id missing", c);
    }
    return n_decided - events;
}

/* Before the checks, the fence terms of a run with both SFCs alive (the
 * ledger's redecided are the fence records' ids; the id records' are
 * the acks beyond one per event): what a ledger that does not close
 * needs to be told apart. */
static void print_fence_terms(const char *tag, const struct farm_part_result *x0,
                              const struct farm_part_result *x1, const struct ledger *l,
                              uint64_t acks, uint64_t redecided)
{
    fprintf(stderr, "failover %s terms: fences %llu+%llu, replay.fenced %llu, replay.partial "
            "%llu, acks %llu (SFC 1 %llu), redecided %llu by the id records, %llu by the "
            "ledger, fence_overflow %llu+%llu, ledger accepted %llu rejected %llu\n", tag,
            (unsigned long long)ebf_kv_u64(&x0->kv, "fences", 0),
            (unsigned long long)ebf_kv_u64(&x1->kv, "fences", 0),
            (unsigned long long)l->replay_fenced, (unsigned long long)l->replay_partial,
            (unsigned long long)acks, (unsigned long long)ebf_kv_u64(&x1->kv, "ack.events", 0),
            (unsigned long long)redecided, (unsigned long long)l->redecided,
            (unsigned long long)ebf_kv_u64(&x0->kv, "ledger.fence_overflow", 0),
            (unsigned long long)ebf_kv_u64(&x1->kv, "ledger.fence_overflow", 0),
            (unsigned long long)l->accepted, (unsigned long long)l->rejected);
}

/*
 * SFC 1 killed after 30,000 events (SIGSTOP, SIGKILL once every readout
 * declared it dead): each readout declared it dead once, from an event
 * near the kill, replayed what it had not released to SFC 0 and sent it
 * the dead share from then on; nothing was given up or dropped. Every
 * generated id was decided: by SFC 0's nodes (its acks), or by SFC 1's
 * nodes before it died; the ids decided by both are the redecided ones.
 */
START_TEST(test_failover_sfc_killed)
{
    const uint64_t events = 100000;
    struct farm_conf c;
    struct farm_result r;
    struct ebf_idset decided;

    farm_conf_default(&c);
    c.kill_sfc_after = AFTER;
    run(&c, events, &r);
    ck_assert_uint_eq(r.sfcs_gone, 1);
    const struct farm_part_result *x = sfc_at(&r, 0);
    ck_assert(!x->gone && sfc_at(&r, 1)->gone);
    uint64_t replayed = 0, peak = 0;
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r.ro[i].kv;
        ck_assert_uint_eq(ebf_kv_u64(kv, "events", 0), events);
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfcs_gone", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfc_gone_frames", 0), 0);
        /* one death at the kill; on a starved machine an SFC may also
         * have fenced itself before (a 50 ms stall): each such pause is a
         * death more, its share replayed, and dead_from the first one's */
        uint64_t deaths = ebf_kv_u64(kv, "fo.deaths", 0);
        uint64_t from = ebf_kv_u64(kv, "fo.dead_from.1", 0);
        ck_assert_uint_ge(deaths, 1);
        ck_assert_uint_lt(from, AFTER + 10000);
        if (deaths == 1)        /* the kill's: near it (a readout may lag 4096 of each SFC) */
            ck_assert_uint_ge(from + 2 * 4096, AFTER);
        if (ebf_kv_u64(&x->kv, "fences", 0) == 0)
            ck_assert_uint_eq(ebf_kv_u64(kv, "fo.dead_from.0", 0), UINT64_MAX);
        ck_assert_uint_gt(ebf_kv_u64(kv, "replay.replayed", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "replay.dropped", 0), 0);
        replayed += ebf_kv_u64(kv, "replay.replayed", 0);
        if (ebf_kv_u64(kv, "replay.peak_bytes", 0) > peak)
            peak = ebf_kv_u64(kv, "replay.peak_bytes", 0);
    }
    assert_sfc_lost_nothing(x);
    ck_assert_uint_eq(ebf_kv_u64(&x->kv, "events.incomplete", 0), 0);
    ck_assert_uint_gt(ebf_kv_u64(&x->kv, "replay.pieces", 0), 0);
    /* what SFC 0 acked, and what SFC 1's nodes decided by their records */
    ebf_idset_init(&decided);
    kv_idset_merge(&x->kv, "ledger.acked", &decided, 1);
    uint64_t n = ebf_kv_u64(&x->kv, "ack.events", 0);
    for (unsigned i = 0; i < r.n_nodes; i++) {
        if (r.node_place[i] != 1)
            continue;
        ck_assert(!r.node[i].gone);
        kv_idset_merge(&r.node[i].kv, "ledger.acks", &decided, 1);
        n += ebf_kv_u64(&r.node[i].kv, "events", 0);
    }
    uint64_t redecided = assert_every_id_decided(&decided, n, events);
    /* an id decided twice was replayed: at most every readout's replays */
    ck_assert_uint_le(redecided, replayed / READOUTS + 1);
    /* the ledger closes by docs/protocol.md 13.6 with nothing lost, and
     * names as redecided exactly the ids decided twice: the dead place's
     * nodes' records at or above the watermark the stop gave them */
    struct ledger l;
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.generated, events);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, events);
    ck_assert_uint_eq(l.redecided, redecided);
    ck_assert_uint_gt(l.replayed, 0);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    fprintf(stderr, "failover killed: replayed %llu (all readouts), redecided %llu, replay.dup "
            "%llu, replay.partial %llu, replay.peak_bytes %llu (the largest readout's)\n",
            (unsigned long long)replayed,
            (unsigned long long)redecided,
            (unsigned long long)ebf_kv_u64(&x->kv, "replay.dup", 0),
            (unsigned long long)ebf_kv_u64(&x->kv, "replay.partial", 0),
            (unsigned long long)peak);
    farm_result_free(&r);
}
END_TEST

/*
 * The checks of a run whose SFC 1 stopped after 30,000 events (frozen,
 * or stalled in a round): every readout declared it dead once and
 * replayed its share to SFC 0; it fenced itself once on waking (a new
 * epoch), and every readout took it back at the same join id (no join
 * late). Both SFCs end alive and lose nothing; every generated id was
 * decided, by their acks; the ledger closes with the ids acked twice as
 * redecided (the fenced SFC's ledger.fence_acked).
 */
static void assert_fenced_closes(const char *tag, struct farm_result *r, uint64_t events)
{
    struct ebf_idset decided;

    ck_assert_uint_eq(r->sfcs_gone, 0);
    const struct farm_part_result *x0 = sfc_at(r, 0), *x1 = sfc_at(r, 1);
    /* the stop fenced SFC 1 (a starved machine may add a fence of
     * either SFC: each is a death and a join more at every readout) */
    uint64_t fences = ebf_kv_u64(&x1->kv, "fences", 0) + ebf_kv_u64(&x0->kv, "fences", 0);
    ck_assert_uint_ge(ebf_kv_u64(&x1->kv, "fences", 0), 1);
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r->ro[i].kv;
        ck_assert_uint_eq(ebf_kv_u64(kv, "events", 0), events);
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfcs_gone", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfc_gone_frames", 0), 0);
        uint64_t deaths = ebf_kv_u64(kv, "fo.deaths", 0), joins = ebf_kv_u64(kv, "fo.joins", 0);
        ck_assert_uint_ge(deaths, 1);
        ck_assert_uint_le(deaths, fences);
        /* every death joined again, but that of a fence more (a starved
         * machine) late enough that its join id, 65,536 ids on at least,
         * lies past the run's end */
        ck_assert_uint_le(joins, deaths);
        ck_assert_uint_ge(joins + (fences - 1), deaths);
        ck_assert_uint_eq(ebf_kv_u64(kv, "fo.join_late", 0), 0);
        ck_assert_uint_gt(ebf_kv_u64(kv, "replay.replayed", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "replay.dropped", 0), 0);
    }
    assert_sfc_lost_nothing(x0);
    assert_sfc_lost_nothing(x1);
    ebf_idset_init(&decided);
    kv_idset_merge(&x0->kv, "ledger.acked", &decided, 1);
    kv_idset_merge(&x1->kv, "ledger.acked", &decided, 1);
    uint64_t n = ebf_kv_u64(&x0->kv, "ack.events", 0) + ebf_kv_u64(&x1->kv, "ack.events", 0);
    uint64_t redecided = assert_every_id_decided(&decided, n, events);
    /* the ledger closes with the fenced SFC alive: its acks the readouts
     * replayed (ledger.fence_acked) are the ids decided twice, counted
     * once; the events its fence dropped and the replays dropped partial
     * are named, none lost */
    struct ledger l;
    ledger_close(r, &l);
    print_fence_terms(tag, x0, x1, &l, n, redecided);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.sfcs_gone, 0);
    ck_assert_uint_eq(l.fences, fences);
    ck_assert_uint_eq(l.replay_fenced, ebf_kv_u64(&x0->kv, "replay.fenced", 0) +
                                           ebf_kv_u64(&x1->kv, "replay.fenced", 0));
    ck_assert_uint_eq(l.replay_partial, ebf_kv_u64(&x0->kv, "replay.partial", 0) +
                                            ebf_kv_u64(&x1->kv, "replay.partial", 0));
    ck_assert_uint_eq(l.generated, events);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, events);
    ck_assert_uint_eq(l.redecided, redecided);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    fprintf(stderr, "failover %s: replay.fenced %llu, replay.partial %llu, redecided %llu, "
            "SFC 1 acked %llu\n", tag, (unsigned long long)l.replay_fenced,
            (unsigned long long)l.replay_partial, (unsigned long long)redecided,
            (unsigned long long)ebf_kv_u64(&x1->kv, "ack.events", 0));
    /* SFC 1 built its share again after the join */
    ck_assert_uint_gt(ebf_kv_u64(&x1->kv, "ack.events", 0), AFTER / SFCS);
}

/* SFC 1 frozen 3 s (SIGSTOP, SIGCONT) after 30,000 events. */
START_TEST(test_failover_sfc_frozen)
{
    const uint64_t events = 250000;
    struct farm_conf c;
    struct farm_result r;

    farm_conf_default(&c);
    c.freeze_sfc_after = AFTER;
    c.freeze_ms = 3000;
    run(&c, events, &r);
    assert_fenced_closes("frozen", &r, events);
    farm_result_free(&r);
}
END_TEST

/*
 * SFC 1's loop stopped 500 ms after 30,000 events within a release round,
 * after the round's low and before its first frame (the action stall,
 * where a SIGSTOP may stop it; not 3 s: the order's reply waits for the
 * loop, and the farm tool for the reply 3 s): no readout took that round,
 * so they hold SFC 1 dead at the low of the round before and replay every
 * event from there; the fence's record starts at that low (the last one
 * told), not at the round's, or the acks between the two would be
 * decided twice unnamed. It closes as a freeze does.
 */
START_TEST(test_failover_sfc_stalled)
{
    const uint64_t events = 250000;
    struct farm_conf c;
    struct farm_result r;

    farm_conf_default(&c);
    c.stall_sfc_after = AFTER;
    c.stall_sfc_ms = 500;
    run(&c, events, &r);
    ck_assert_uint_eq(ebf_kv_u64(&sfc_at(&r, 1)->kv, "release.stalls", 0), 1);
    assert_fenced_closes("stalled", &r, events);
    farm_result_free(&r);
}
END_TEST

/*
 * SFC 1 sends no release frame for 300 ms after 30,000 events (the
 * action mute) while its loop runs on: every readout declares it dead
 * (100 ms of silence), then hears it again at the same epoch (a false
 * death) and answers with dead notices; SFC 1 fences on them (not on a
 * pause), takes a new epoch and rejoins, and builds its share again.
 * Every generated id was decided; the ledger closes with lost 0 and the
 * ids decided twice named as redecided (the fence's record from the
 * readouts' frozen lows).
 */
START_TEST(test_failover_sfc_muted)
{
    const uint64_t events = 200000;
    struct farm_conf c;
    struct farm_result r;
    struct ebf_idset decided;

    farm_conf_default(&c);
    c.mute_sfc_after = AFTER;
    c.mute_ms = 300;
    run(&c, events, &r);
    ck_assert_uint_eq(r.sfcs_gone, 0);
    const struct farm_part_result *x0 = sfc_at(&r, 0), *x1 = sfc_at(&r, 1);
    uint64_t fences = ebf_kv_u64(&x1->kv, "fences", 0) + ebf_kv_u64(&x0->kv, "fences", 0);
    ck_assert_uint_ge(ebf_kv_u64(&x1->kv, "release.muted", 0), 1);
    ck_assert_uint_ge(ebf_kv_u64(&x1->kv, "release.notices", 0), 1);
    ck_assert_uint_ge(ebf_kv_u64(&x1->kv, "fence_notices", 0), 1);
    for (unsigned i = 0; i < READOUTS; i++) {
        const struct ebf_kv *kv = &r.ro[i].kv;
        ck_assert_uint_eq(ebf_kv_u64(kv, "events", 0), events);
        ck_assert_uint_eq(ebf_kv_u64(kv, "sfcs_gone", 0), 0);
        ck_assert_uint_ge(ebf_kv_u64(kv, "fo.deaths", 0), 1);
        ck_assert_uint_ge(ebf_kv_u64(kv, "fo.false_deaths", 0), 1);
        ck_assert_uint_ge(ebf_kv_u64(kv, "fo.notices", 0), 1);
        ck_assert_uint_eq(ebf_kv_u64(kv, "fo.joins", 0), ebf_kv_u64(kv, "fo.deaths", 0));
        ck_assert_uint_eq(ebf_kv_u64(kv, "fo.join_late", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "fo.out", 0), 0);
        ck_assert_uint_eq(ebf_kv_u64(kv, "replay.dropped", 0), 0);
    }
    assert_sfc_lost_nothing(x0);
    assert_sfc_lost_nothing(x1);
    ebf_idset_init(&decided);
    kv_idset_merge(&x0->kv, "ledger.acked", &decided, 1);
    kv_idset_merge(&x1->kv, "ledger.acked", &decided, 1);
    uint64_t n = ebf_kv_u64(&x0->kv, "ack.events", 0) + ebf_kv_u64(&x1->kv, "ack.events", 0);
    uint64_t redecided = assert_every_id_decided(&decided, n, events);
    struct ledger l;
    ledger_close(&r, &l);
    fprintf(stderr, "failover muted: notices %llu\n",
            (unsigned long long)ebf_kv_u64(&x1->kv, "release.notices", 0));
    print_fence_terms("muted", x0, x1, &l, n, redecided);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.fences, fences);
    ck_assert_uint_eq(l.generated, events);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, events);
    ck_assert_uint_eq(l.redecided, redecided);
    ck_assert(l.ids_match);
    ck_assert(l.closed);
    /* SFC 1 built its share again after the join */
    ck_assert_uint_gt(ebf_kv_u64(&x1->kv, "ack.events", 0), AFTER / SFCS + 20000);
    farm_result_free(&r);
}
END_TEST

Suite *farm_failover_suite(void);

Suite *farm_failover_suite(void)
{
    Suite *s = suite_create("farm_failover");
    TCase *tc = tcase_create("farm_failover");

    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_failover_sfc_killed);
    tcase_add_test(tc, test_failover_sfc_frozen);
    tcase_add_test(tc, test_failover_sfc_stalled);
    tcase_add_test(tc, test_failover_sfc_muted);
    suite_add_tcase(s, tc);
    return s;
}
