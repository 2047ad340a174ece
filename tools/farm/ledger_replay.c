/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_replay.c - the ledger's terms after an SFC failover: the dead places' nodes' decisions below the watermark, the replayed ones, redecided. */
#include "ledger_replay.h"

#include <stdio.h>
#include <string.h>

#include "ebf_mix.h"
#include "ledger_failover.h"
#include "node_stats.h"
#include "sfc_stats.h"

void ledger_kv_idset(const struct ebf_kv *kv, const char *prefix, struct ebf_idset *s)
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

int ledger_node_of_gone_sfc(const struct farm_result *r, unsigned i)
{
    if (!r->sfcs_gone || !r->n_places || r->node_place[i] < 0)
        return 0;
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (r->sfcs[k].gone && r->sfcs[k].place == r->node_place[i])
            return 1;
    return 0;
}

/* The readouts' own counters: each one's, or with none listed the summed. */
static unsigned readouts(const struct farm_result *r, const struct ebf_kv **kv)
{
    unsigned n = 0;

    for (unsigned i = 0; i < r->n_ro; i++)
        if (!r->ro[i].gone)
            kv[n++] = &r->ro[i].kv;
    if (r->n_ro == 0)
        kv[n++] = &r->readout;
    return n;
}

/* Whether some readout routed around place p, and the highest watermark
 * any of them accepted from it (*mark). */
static int place_dead(const struct ebf_kv *const *kv, unsigned n, int p, uint64_t *mark)
{
    char key[64];
    int dead = 0;

    *mark = 0;
    for (unsigned i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "%s.%d", LEDGER_RO_DEAD_FROM, p);
        dead |= ebf_kv_u64(kv[i], key, UINT64_MAX) != UINT64_MAX;
        snprintf(key, sizeof(key), "%s.%d", LEDGER_RO_LOW, p);
        uint64_t low = ebf_kv_u64(kv[i], key, 0);
        *mark = low > *mark ? low : *mark;
    }
    return dead;
}

/* Node i's share of the terms: its acks minus its record at or above X. */
static void dead_node(const struct ebf_kv *kv, struct ledger_replay *x)
{
    struct ebf_idset acks, after;

    ledger_kv_idset(kv, NODE_NAME(LEDGER_ACKS), &acks);
    ledger_kv_idset(kv, NODE_NAME(LEDGER_AFTER), &after);
    ebf_idset_merge(&x->dead, &acks, 1);
    ebf_idset_merge(&x->dead, &after, -1);
    x->redecided += ledger_fo_count(&after);
    ledger_kv_idset(kv, NODE_NAME(LEDGER_AFTER_ACCEPTED), &after);
    x->redecided_accepted += ledger_fo_count(&after);
    x->dead_digest += ebf_kv_u64(kv, NODE_NAME(DECIDED_DIGEST), 0) -
                      ebf_kv_u64(kv, NODE_NAME(LEDGER_AFTER_DIGEST), 0);
    x->evicted |= ebf_kv_u64(kv, NODE_NAME(LEDGER_AFTER_EVICTED), 0) != 0;
}

/* The marks the live nodes of place p took while the run went on. */
static uint64_t place_marks(const struct farm_result *r, int p)
{
    uint64_t m = 0;

    for (unsigned i = 0; i < r->n_nodes; i++)
        if (!r->node[i].gone && r->node_place[i] == p)
            m += ebf_kv_u64(&r->node[i].kv, LEDGER_NODE_MARKS, 0);
    return m;
}

/* a - b, or 0 when b is larger (counters of a killed run may disagree). */
static uint64_t sub0(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* Restarted SFC k (alive, its place's nodes marked): the nodes as a dead
 * place's, less what the new incarnation acked or took late. */
static void restarted_place(const struct farm_result *r, unsigned k, struct ledger_replay *x)
{
    const struct ebf_kv *kv = &r->sfcs[k].kv;
    uint64_t acc = 0, rej = 0;
    struct ebf_idset s;

    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct ebf_kv *n = &r->node[i].kv;
        if (r->node[i].gone || r->node_place[i] != r->sfcs[k].place)
            continue;
        dead_node(n, x);
        ledger_kv_idset(n, NODE_NAME(LEDGER_ACKS), &s);
        ebf_idset_merge(&x->restarted, &s, 1);
        acc += ebf_kv_u64(n, NODE_NAME(ACCEPTED), 0);
        rej += ebf_kv_u64(n, NODE_NAME(REJECTED), 0);
    }
    ledger_kv_idset(kv, SFC_NAME(LEDGER_ACKED), &s);
    ebf_idset_merge(&x->dead, &s, -1);
    ebf_idset_merge(&x->restarted, &s, -1);
    ledger_kv_idset(kv, SFC_NAME(LEDGER_LATE), &s);
    ebf_idset_merge(&x->dead, &s, -1);
    ebf_idset_merge(&x->restarted, &s, -1);
    x->dead_digest -= ebf_kv_u64(kv, SFC_NAME(ACKED_DIGEST), 0);
    x->old_accepted += sub0(acc, ebf_kv_u64(kv, SFC_NAME(ACK_ACCEPT), 0));
    x->old_rejected += sub0(rej, ebf_kv_u64(kv, SFC_NAME(ACK_REJECT), 0));
    if (r->sfcs[k].place < 64)
        x->dead_places |= 1ull << r->sfcs[k].place;
    x->n_restarted++;
}

/* The live SFCs' fences and what they leave decided twice. */
static void fence_terms(const struct farm_result *r, struct ledger_replay *x)
{
    x->fences = ebf_kv_u64(&r->sfc, SFC_NAME(FENCES), 0);
    x->fenced = ebf_kv_u64(&r->sfc, SFC_NAME(REPLAY_FENCED), 0);
    x->partial = ebf_kv_u64(&r->sfc, SFC_NAME(REPLAY_PARTIAL), 0);
    x->ended = ebf_kv_u64(&r->sfc, SFC_NAME(REPLAY_ENDED), 0);
    x->wait_cap = ebf_kv_u64(&r->sfc, SFC_NAME(REPLAY_WAIT_CAP), 0);
    x->unsound = ebf_kv_u64(&r->sfc, SFC_NAME(REPLAY_UNSOUND), 0);
    ledger_kv_idset(&r->sfc, LEDGER_SFC_FENCE_ACKED, &x->fence_ids);
    x->fence_count = ledger_fo_count(&x->fence_ids);
    x->fence_accepted = ebf_kv_u64(&r->sfc, SFC_NAME(FENCE_ACKED_ACCEPT), 0);
    x->fence_digest = ebf_kv_u64(&r->sfc, SFC_NAME(FENCE_ACKED_DIGEST), 0);
    x->fence_overflow = ebf_kv_u64(&r->sfc, SFC_NAME(FENCE_OVERFLOW), 0) != 0;
}

/* 1 when SFC k lives at a place whose nodes took marks (it restarted). */
static int sfc_restarted(const struct farm_result *r, unsigned k)
{
    return !r->sfcs[k].gone && r->sfcs[k].place >= 0 && place_marks(r, r->sfcs[k].place) > 0;
}

void ledger_replay_terms(const struct farm_result *r, struct ledger_replay *x)
{
    const struct ebf_kv *kv[FF_MAX_READOUTS + 1];
    unsigned n = readouts(r, kv), restarted = 0;
    struct ebf_idset s;
    uint64_t mark;

    memset(x, 0, sizeof(*x));
    fence_terms(r, x);
    if (!r->n_places)
        return;
    for (unsigned k = 0; k < r->n_sfcs; k++) {
        restarted += sfc_restarted(r, k);
        if (!r->sfcs[k].gone)
            continue;
        if (r->sfcs[k].place < 0 || !place_dead(kv, n, r->sfcs[k].place, &mark))
            return;             /* a gone SFC no readout routed around: sfc_lost */
        if (x->n_dead++ == 0)
            x->mark = mark;
        if (r->sfcs[k].place < 64)
            x->dead_places |= 1ull << r->sfcs[k].place;
    }
    if (!x->n_dead && !restarted && !x->fences)
        return;
    x->on = 1;
    for (unsigned i = 0; i < r->n_nodes; i++)
        if (!r->node[i].gone && ledger_node_of_gone_sfc(r, i))
            dead_node(&r->node[i].kv, x);
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (sfc_restarted(r, k))
            restarted_place(r, k, x);
    ledger_kv_idset(&r->sfc, LEDGER_SFC_REPLAY_ACKED, &s);
    x->replayed = ledger_fo_count(&s);
    for (unsigned i = 0; i < n; i++)
        x->dropped += ebf_kv_u64(kv[i], LEDGER_RO_DROPPED, 0);
}

uint64_t ledger_replay_full(const struct farm_result *r, const struct ledger_replay *x,
                            const uint64_t *missing, unsigned n, uint64_t *digest)
{
    uint64_t d = 0;

    if (!x->on || n == 0 || n > x->dropped)
        return 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t p = missing[i] % r->n_places;
        if (p >= 64 || !(x->dead_places >> p & 1))
            return 0;
        d += ebf_mix64(missing[i]);
    }
    *digest += d;
    return n;
}
