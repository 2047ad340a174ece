/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ledger_replay.c - the ledger after an SFC failover from synthetic final counters: closed, redecided exact, lost 0; a replay drop named; a doubled id found. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "ebf_mix.h"
#include "farm_collect.h"
#include "farm_demo.h"
#include "ledger.h"
#include "summary.h"
#include "test-kv.h"

#define N 1000                   /* events 0..999 */
#define MARK 601                 /* the highest low of place 1 a readout accepted */
#define DIED 640                 /* node1 decided place 1's ids below this */

/* What one process decided: ids, accept/reject counts, digest. */
struct side {
    struct ebf_idset ids, acc;
    uint64_t accepted, rejected, digest;
};

static void side_add(struct side *s, uint64_t id)
{
    int accept = id % 4 < 2;     /* ids 0, 1 mod 4 accepted */

    ebf_idset_add(&s->ids, id);
    if (accept)
        ebf_idset_add(&s->acc, id);
    s->accepted += accept;
    s->rejected += !accept;
    s->digest += ebf_mix64(id);
}

/*
 * Two readouts, two SFC places (event e at e % 2), node0 of sfc0, node1
 * of sfc1. sfc1 was killed: the readouts routed around place 1 (ro0
 * accepted its watermark 601 last, ro1 590) and replayed its events from
 * 601 on to sfc0, which acked them all (replay_acked: the 200 odd ids
 * 601..999) besides its own even ids. node1 decided the odd ids below 640
 * before the death; those from 601 on (20, 10 accepted) were decided
 * again by node0. skip: odd ids at or above the mark that sfc0 did not
 * build (a readout had dropped them unreleased); dropped: ro1's count of
 * such drops.
 */
static void farm_of(struct farm_result *r, const uint64_t *skip, unsigned n_skip,
                    uint64_t dropped)
{
    struct side live = {0}, replay = {0}, dead = {0}, after = {0};
    uint64_t id_digest = 0;

    memset(r, 0, sizeof(*r));
    for (uint64_t id = 0; id < N; id++) {
        int skipped = 0;
        for (unsigned i = 0; i < n_skip; i++)
            skipped |= skip[i] == id;
        id_digest += ebf_mix64(id);
        if (id % 2 == 0) {
            side_add(&live, id);
            continue;
        }
        if (id < DIED)
            side_add(&dead, id);
        if (id < DIED && id >= MARK)
            side_add(&after, id);
        if (id >= MARK && !skipped)
            side_add(&replay, id);
    }
    for (unsigned i = 0; i < 2; i++) {
        struct farm_part_result *x = &r->ro[i];
        snprintf(x->name, sizeof(x->name), "ro%u", i);
        x->place = -1;
        put(&x->kv, "events", N);
        put(&x->kv, "first_event", 0);
        put(&x->kv, "id_digest", id_digest);
        put(&x->kv, "fo.dead_from.1", 700 + i);
        put(&x->kv, "release.low.1", i ? 590 : MARK);
        put(&x->kv, "release.low.0", 990);
        put(&x->kv, "replay.dropped", i ? dropped : 0);
        put(&r->readout, "events", N);
    }
    r->n_ro = 2;
    struct side all = live;                 /* sfc0: its own and the replayed */
    ebf_idset_merge(&all.ids, &replay.ids, 1);
    all.accepted += replay.accepted;
    all.rejected += replay.rejected;
    all.digest += replay.digest;
    for (unsigned k = 0; k < 2; k++) {
        struct farm_part_result *x = &r->sfcs[k];
        struct farm_node_result *n = &r->node[k];
        const struct side *s = k ? &dead : &all;
        snprintf(x->name, sizeof(x->name), "sfc%u", k);
        x->place = (int)k;
        x->gone = k == 1;
        snprintf(n->name, sizeof(n->name), "node%u", k);
        r->node_place[k] = (int)k;
        put(&n->kv, "events", s->accepted + s->rejected);
        put(&n->kv, "accepted", s->accepted);
        put(&n->kv, "rejected", s->rejected);
        put(&n->kv, "decided_digest", s->digest);
        put_idset(&n->kv, "ledger.acks", &s->ids);
    }
    put_idset(&r->node[1].kv, "ledger.acks_after_release", &after.ids);
    put_idset(&r->node[1].kv, "ledger.accepted_after_release", &after.acc);
    put(&r->node[1].kv, "ledger.after_release_digest", after.digest);
    put(&r->node[1].kv, "ledger.after_release_evicted", 0);
    r->sfcs_gone = 1;
    r->n_sfcs = 2;
    r->n_places = 2;
    r->n_nodes = 2;
    put(&r->sfc, "ack.accept", all.accepted);
    put(&r->sfc, "ack.reject", all.rejected);
    put(&r->sfc, "acked_digest", all.digest);
    put_idset(&r->sfc, "ledger.acked", &all.ids);
    put_idset(&r->sfc, "ledger.replay_acked", &replay.ids);
    struct ebf_idset none;
    ebf_idset_init(&none);
    put_idset(&r->sfc, "ledger.lost", &none);
    put_idset(&r->sfc, "ledger.late", &none);
}

#define JOIN 800                 /* the restarted sfc1 took place 1 back from this id */

/* The counters of one process that decided s into kv. */
static void put_side(struct ebf_kv *kv, const char *ids, const struct side *s, int sfc)
{
    put(kv, sfc ? "ack.accept" : "accepted", s->accepted);
    put(kv, sfc ? "ack.reject" : "rejected", s->rejected);
    put(kv, sfc ? "acked_digest" : "decided_digest", s->digest);
    put_idset(kv, ids, &s->ids);
}

/*
 * farm_of's farm, but sfc1 was restarted (ebfarm restart) and took its
 * place back at JOIN: it lives at the stop, its new incarnation acked the
 * odd ids from JOIN on (node1 decided them), sfc0 acked the replayed odd
 * ids MARK..JOIN-1; node1 took one mark at the restart (ledger.marks 1:
 * its record at or above MARK then, the odd ids MARK..DIED-1).
 */
static void farm_restarted(struct farm_result *r)
{
    struct side live = {0}, replay = {0}, old = {0}, after = {0}, fresh = {0};
    struct ebf_idset none;

    for (uint64_t id = 0; id < N; id++) {
        if (id % 2 == 0)
            side_add(&live, id);
        else if (id >= JOIN)
            side_add(&fresh, id);
        else if (id >= MARK)
            side_add(&replay, id);
        if (id % 2 && id < DIED)
            side_add(&old, id);
        if (id % 2 && id < DIED && id >= MARK)
            side_add(&after, id);
    }
    struct side node1 = old, sfc0 = live, all;
    ebf_idset_merge(&node1.ids, &fresh.ids, 1);
    node1.accepted += fresh.accepted;
    node1.rejected += fresh.rejected;
    node1.digest += fresh.digest;
    ebf_idset_merge(&sfc0.ids, &replay.ids, 1);
    sfc0.accepted += replay.accepted;
    sfc0.rejected += replay.rejected;
    sfc0.digest += replay.digest;
    all = sfc0;
    ebf_idset_merge(&all.ids, &fresh.ids, 1);
    all.accepted += fresh.accepted;
    all.rejected += fresh.rejected;
    all.digest += fresh.digest;
    farm_of(r, NULL, 0, 0);
    r->sfcs_gone = 0;
    r->sfcs[1].gone = 0;
    ebf_idset_init(&none);
    struct ebf_kv *kv[] = {&r->node[0].kv, &r->node[1].kv, &r->sfc};
    for (unsigned i = 0; i < 3; i++) {
        ebf_kv_free(kv[i]);
        memset(kv[i], 0, sizeof(*kv[i]));
    }
    put_side(&r->node[0].kv, "ledger.acks", &sfc0, 0);
    put_side(&r->node[1].kv, "ledger.acks", &node1, 0);
    put(&r->node[1].kv, "ledger.marks", 1);
    put_idset(&r->node[1].kv, "ledger.acks_after_release", &after.ids);
    put_idset(&r->node[1].kv, "ledger.accepted_after_release", &after.acc);
    put(&r->node[1].kv, "ledger.after_release_digest", after.digest);
    put_side(&r->sfcs[1].kv, "ledger.acked", &fresh, 1);
    put_idset(&r->sfcs[1].kv, "ledger.late", &none);
    put_side(&r->sfc, "ledger.acked", &all, 1);
    put_idset(&r->sfc, "ledger.replay_acked", &replay.ids);
    put_idset(&r->sfc, "ledger.lost", &none);
    put_idset(&r->sfc, "ledger.late", &none);
}

/* The restarted SFC's old incarnation closes as a dead place: each id
 * once, lost 0, redecided 20 (node1's decisions at or above the mark),
 * replayed 100 (the odd ids MARK..JOIN-1), the nodes' acks agree; the
 * SFCs' replay.unsound 3 is named in the ledger line, no term of it. */
START_TEST(test_replay_restarted)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    farm_restarted(&r);
    put(&r.sfc, "replay.unsound", 3);      /* built incomplete: decided, named only */
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.sfcs_gone, 0);
    ck_assert_uint_eq(l.sfcs_restarted, 1);
    ck_assert_uint_eq(l.replay_unsound, 3);
    ck_assert_uint_eq(l.generated, N);
    ck_assert_uint_eq(l.redecided, 20);
    ck_assert_uint_eq(l.replayed, 100);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted, 500);
    ck_assert_uint_eq(l.rejected, 500);
    ck_assert_int_eq(l.unaccounted, 0);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_text(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "  ledger   generated 1000 (failed over: 1 SFC(s) killed and "
                              "restarted, 0 fence(s); replayed 100, redecided 20; replay.fenced 0 "
                              "built again, replay.partial 0 decided before: 0 proven by replay "
                              "ends, 0 at the 5 s cap; replay.unsound 3 built incomplete, pieces "
                              "lost on the way: decided, in the ledger) = accepted 500 + "
                              "rejected 500 + lost 0; ") != NULL, "%s", buf);
    free(buf);
    farm_result_free(&r);
}
END_TEST

/* Without the mark (a node that refused it), the restarted SFC's old
 * incarnation's decisions are in no term: not closed, the ids missing. */
START_TEST(test_replay_restarted_unmarked)
{
    struct farm_result r;
    struct ledger l;

    farm_restarted(&r);
    for (unsigned i = 0; i < r.node[1].kv.n; i++)
        if (strcmp(r.node[1].kv.pair[i].key, "ledger.marks") == 0)
            snprintf(r.node[1].kv.pair[i].val, sizeof(r.node[1].kv.pair[i].val), "0");
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 0);
    ck_assert(!l.ids_match);
    ck_assert(!l.closed);
    farm_result_free(&r);
}
END_TEST

/* Each id once: closed, lost 0, redecided 20 (10 of them accepted at
 * node1, counted once: node0's decision is the one of record). sfc0's 7
 * replays built incomplete (replay.unsound) are named exactly in the
 * ledger line, the ledger's and the failover section's JSON and the
 * summary's failover section, and change no count. */
START_TEST(test_replay_closes)
{
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    farm_of(&r, NULL, 0, 0);
    /* sfc0 built 7 replayed events incomplete (their missing pieces lost on
     * the way): decided, in its acks; named, no term of the sum. */
    put(&r.sfc, "replay.unsound", 7);
    put(&r.sfcs[0].kv, "replay.unsound", 7);
    put(&r.sfcs[0].kv, "release.frames", 40);
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.replay_unsound, 7);
    ck_assert_uint_eq(l.generated, N);
    ck_assert_uint_eq(l.release_mark, MARK);
    ck_assert_uint_eq(l.redecided, 20);
    ck_assert_uint_eq(l.replayed, 200);
    ck_assert_uint_eq(l.gone_decided, 320);
    ck_assert_uint_eq(l.sfc_lost, 0);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted, 500);     /* ids 0, 1 mod 4 */
    ck_assert_uint_eq(l.rejected, 500);
    ck_assert_int_eq(l.unaccounted, 0);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.nodes_agree);
    ck_assert(l.closed);
    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_json(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"sfc_gone\": {\"name\": \"sfc1\", \"sfcs\": 1, "
                              "\"sfcs_restarted\": 0, "
                              "\"decided_by_its_nodes\": 320, \"failover\": true, "
                              "\"release_mark\": 601, \"replayed\": 200, \"redecided\": 20, "
                              "\"record_complete\": true, \"replay_unsound\": 7}") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "\"replay_ends\": 0, \"replay_unsound\": 7}") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "\"lost\": {}") != NULL, "%s", buf);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    summary_text(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "  ledger   generated 1000 (SFC sfc1 gone, 1 SFC(s), failed over: "
                              "320 of its events decided by its nodes, watermark 601; replayed "
                              "200, redecided 20; replay.unsound 7 built incomplete, pieces lost on "
                              "the way: decided, in the ledger) = accepted 500 + rejected 500 + "
                              "lost 0; ")
                  != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "lost by reason: replay_full 0\n") != NULL, "%s", buf);
    ck_assert_msg(strstr(buf, "\n           replays built incomplete 7 (replay.unsound: pieces "
                              "lost on the way; decided, in the ledger)\n  rate ") != NULL, "%s",
                  buf);
    free(buf);
    farm_result_free(&r);
}
END_TEST

/* Three replayed ids no survivor built: with ro1's three replay drops
 * they are lost as replay_full (closed); without, missing and named. */
START_TEST(test_replay_full_named)
{
    static const uint64_t skip[] = {701, 703, 705};
    struct farm_result r;
    struct ledger l;

    farm_of(&r, skip, 3, 3);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.replay_full, 3);
    ck_assert_uint_eq(l.lost_total, 3);
    ck_assert_uint_eq(l.n_lost, 1);
    ck_assert_str_eq(l.lost_name[0], "replay_full");
    ck_assert_uint_eq(l.accepted + l.rejected, 997);
    ck_assert_uint_eq(l.redecided, 20);
    ck_assert(l.digest_match);
    ck_assert(l.closed);
    farm_result_free(&r);
    farm_of(&r, skip, 3, 2);                /* two drops cannot explain three ids */
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.replay_full, 0);
    ck_assert(!l.closed);
    ck_assert(!l.ids_match);
    ck_assert_int_eq(l.unaccounted, 3);
    ck_assert_uint_eq(l.n_missing, 3);
    ck_assert_uint_eq(l.missing[0] + l.missing[1] + l.missing[2], 701 + 703 + 705);
    farm_result_free(&r);
}
END_TEST

/* Seventeen replayed ids no survivor built, with seventeen drops: more
 * than the 16 ids the ledger shows, all named replay_full and counted once
 * each (a list cut at 16 named 16 and left one id in no bucket, its digest
 * out of the sum: unaccounted 1). */
START_TEST(test_replay_full_seventeen)
{
    uint64_t skip[17], sum = 0;
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    for (unsigned i = 0; i < 17; i++)
        skip[i] = 701 + 2 * i;
    farm_of(&r, skip, 17, 17);
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.replay_full, 17);
    ck_assert_uint_eq(l.lost_total, 17);
    ck_assert_uint_eq(l.accepted + l.rejected, N - 17);
    ck_assert_int_eq(l.unaccounted, 0);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert(l.closed);
    ck_assert_uint_eq(l.n_missing, 17);
    for (unsigned i = 0; i < l.n_missing; i++) {
        ck_assert_uint_eq(l.missing[i], skip[i]);
        sum += l.missing[i];
    }
    ck_assert_uint_eq(sum, 17 * 701 + 2 * (16 * 17 / 2));
    farm_conf_default(&c);
    FILE *f = open_memstream(&buf, &len);
    summary_json(f, &c, &r, &l);
    fclose(f);
    ck_assert_msg(strstr(buf, "\"lost_ids\": {\"replay_full\": [701, 703, 705, 707, 709, 711, "
                              "713, 715, 717, 719, 721, 723, 725, 727, 729, 731, 733]}") != NULL,
                  "%s", buf);
    free(buf);
    farm_result_free(&r);
    farm_of(&r, skip, 17, 16);              /* sixteen drops cannot explain seventeen ids */
    ledger_close(&r, &l);
    ck_assert_uint_eq(l.replay_full, 0);
    ck_assert(!l.closed);
    ck_assert_int_eq(l.unaccounted, 17);
    farm_result_free(&r);
}
END_TEST

/* Without the nodes' record at or above the mark, the ids node1 decided
 * there are counted twice: extra, not closed. Without the readouts'
 * dead_from the gone SFC's ids are sfc_lost as before (no failover). */
START_TEST(test_replay_needs_records)
{
    struct farm_result r;
    struct ledger l;

    farm_of(&r, NULL, 0, 0);
    for (unsigned i = 0; i < r.node[1].kv.n; i++)
        if (strncmp(r.node[1].kv.pair[i].key, "ledger.acks_after_release.", 26) == 0)
            snprintf(r.node[1].kv.pair[i].key, sizeof(r.node[1].kv.pair[i].key), "x");
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 1);
    ck_assert_uint_eq(l.redecided, 0);
    ck_assert(!l.ids_match);
    ck_assert_uint_eq(l.n_extra, 20);       /* the 20 doubled ids, all listed */
    ck_assert(!l.closed);
    farm_result_free(&r);
    farm_of(&r, NULL, 0, 0);
    for (unsigned k = 0; k < 2; k++)
        for (unsigned i = 0; i < r.ro[k].kv.n; i++)
            if (strcmp(r.ro[k].kv.pair[i].key, "fo.dead_from.1") == 0)
                snprintf(r.ro[k].kv.pair[i].key, sizeof(r.ro[k].kv.pair[i].key), "x");
    ledger_close(&r, &l);
    ck_assert_int_eq(l.failover, 0);
    ck_assert_uint_eq(l.lost_total, l.sfc_lost);
    ck_assert(!l.closed);                   /* sfc0's replayed acks are not its ids */
    farm_result_free(&r);
}
END_TEST

Suite *ledger_replay_suite(void);

Suite *ledger_replay_suite(void)
{
    Suite *s = suite_create("ledger_replay");
    TCase *tc = tcase_create("replay");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_replay_closes);
    tcase_add_test(tc, test_replay_restarted);
    tcase_add_test(tc, test_replay_restarted_unmarked);
    tcase_add_test(tc, test_replay_full_named);
    tcase_add_test(tc, test_replay_full_seventeen);
    tcase_add_test(tc, test_replay_needs_records);
    suite_add_tcase(s, tc);
    return s;
}
