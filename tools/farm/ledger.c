/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger.c - closing a run's ledger from the final counters of its processes. */
#include "ledger.h"

#include <string.h>

#include "acct.h"
#include "ebf_idset.h"
#include "ebf_mix.h"
#include "ledger_replay.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

/* The counters the ledger takes withheld events from: the readout's, or
 * with several the first one's (ledger.h). */
static const struct ebf_kv *withheld_kv(const struct farm_result *r)
{
    return r->n_ro > 1 ? &r->ro[0].kv : &r->readout;
}

/* 1 when id goes to an SFC that is gone. */
static int to_gone_sfc(const struct farm_result *r, uint64_t id)
{
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (r->sfcs[k].gone && r->sfcs[k].place >= 0 &&
            id % r->n_places == (uint64_t)r->sfcs[k].place)
            return 1;
    return 0;
}

/* The generated ids of the gone SFCs into g, their digest returned; what
 * their nodes decided is in the ledger already (acct_combine), the rest
 * is lost as sfc_lost. */
static uint64_t gone_sfcs(const struct farm_result *r, struct ledger *l, struct ebf_idset *g)
{
    uint64_t digest = 0, n = 0;

    ebf_idset_init(g);
    if (!r->sfcs_gone || !r->n_places)
        return 0;
    for (uint64_t id = l->id_lo; id < l->id_lo + l->generated; id++)
        if (to_gone_sfc(r, id)) {
            ebf_idset_add(g, id);
            digest += ebf_mix64(id);
            n++;
        }
    l->sfc_lost = n >= l->gone_decided ? n - l->gone_decided : 0;
    return digest;
}

/* 1 when a readout rejoined the run (ebfarm restart: its counters begin
 * at a first event above 0, its past incarnation's are gone). */
static int readout_rejoined(const struct farm_result *r)
{
    for (unsigned i = 0; i < r->n_ro; i++)
        if (ebf_kv_u64(&r->ro[i].kv, RO_NAME(FIRST_EVENT), 0) > 0)
            return 1;
    return r->n_ro <= 1 && ebf_kv_u64(&r->readout, RO_NAME(FIRST_EVENT), 0) > 0;
}

/* The id records: the readout's range minus the SFCs' acked and lost ids
 * (and a gone SFC's ids, g); then, when every node reported, every ack the
 * nodes of live SFCs sent against the acks the SFCs took, the late ones
 * they ignored and those restarted SFCs' nodes sent their old
 * incarnations (fx->restarted). */
static void ledger_ids(const struct farm_result *r, struct ledger *l, const struct ebf_idset *g,
                       const struct ledger_replay *fx)
{
    struct ebf_idset d, x;

    ebf_idset_init(&d);
    ebf_idset_add_range(&d, l->id_lo, l->generated);
    ebf_idset_merge(&d, &fx->fence_ids, 1);     /* acked twice: once counted */
    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &x);
    ebf_idset_merge(&d, &x, -1);
    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_LOST), &x);
    ebf_idset_merge(&d, &x, -1);
    ebf_idset_merge(&d, g, -1);
    if (!l->readouts_gone && !readout_rejoined(r)) {
        ledger_kv_idset(withheld_kv(r), RO_FAULT_NAME(LEDGER_WITHHELD), &x);
        ebf_idset_merge(&d, &x, -1);
    }
    l->ids_match = ebf_idset_empty(&d);
    l->ids_listed = ebf_idset_list(&d, l->missing, &l->n_missing, l->extra, &l->n_extra,
                                   LEDGER_LIST_IDS);
    if (!l->nodes_reported)
        return;
    ebf_idset_init(&d);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        if (ledger_node_of_gone_sfc(r, i))
            continue;
        ledger_kv_idset(&r->node[i].kv, NODE_NAME(LEDGER_ACKS), &x);
        ebf_idset_merge(&d, &x, 1);
    }
    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &x);
    ebf_idset_merge(&d, &x, -1);
    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_LATE), &x);
    ebf_idset_merge(&d, &x, -1);
    ebf_idset_merge(&d, &fx->restarted, -1);    /* restarted SFCs' old incarnations */
    l->nodes_agree = ebf_idset_empty(&d);
}

/* With a readout gone, the ids the SFCs saw (acked or lost, and after a
 * failover fo the dead places' decisions below the watermark, which no
 * live SFC acked) taken as the range lo .. lo + n - 1: partition 0 of their record holds each id once,
 * so its counts add up to n and its id sums to n * lo + n (n - 1) / 2
 * (modulo 2^64).
 * ledger_ids then checks that they are that range; the digest the
 * readout would have sent is that of the range. */
static void seen_range(const struct farm_result *r, const struct ledger_replay *fo,
                       struct ledger *l)
{
    struct ebf_idset s, x;
    uint64_t n = 0, sum = 0;

    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &s);
    ledger_kv_idset(&r->sfc, SFC_NAME(LEDGER_LOST), &x);
    ebf_idset_merge(&s, &x, 1);
    if (fo->on)     /* a failed-over place's decisions below the watermark were seen too */
        ebf_idset_merge(&s, &fo->dead, 1);
    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++) {
        n += s.count[c];
        sum += s.id_sum[c];
    }
    l->generated = n;
    /* Modulo 2^64 throughout: n (n - 1) / 2 overflows beyond 4.3e9 ids. A
     * sum no range has leaves id_lo 0, and the id records then disagree. */
    ebf_idset_range_lo(n, sum, &l->id_lo);
    l->gone_from = l->id_lo + n;
    l->range_digest = 0;
    for (uint64_t id = l->id_lo; id < l->gone_from; id++)
        l->range_digest += ebf_mix64(id);
}

/* The run's processes as the farm's accounting takes them (acct.h): each
 * readout (with one, the readouts' counters; none when one is gone: the
 * range is then the SFCs', seen_range), the SFCs' summed counters and
 * each gone SFC at its place, and the nodes at their SFC's place (places
 * only when an SFC is gone and the farm's shape is known). */
static unsigned ledger_parts(const struct farm_result *r, struct acct_part *p)
{
    int places = r->sfcs_gone && r->n_places;
    unsigned n = 0;

    for (unsigned i = 0; !r->readouts_gone && r->n_ro > 1 && i < r->n_ro; i++) {
        acct_part_init(&p[n], ACCT_READOUT, r->ro[i].name, -1);
        acct_part_kv(&p[n++], &r->ro[i].kv);
    }
    if (!r->readouts_gone && r->n_ro <= 1) {
        acct_part_init(&p[n], ACCT_READOUT, "readout", -1);
        acct_part_kv(&p[n++], &r->readout);
    }
    acct_part_init(&p[n], ACCT_SFC, "sfc", -1);
    acct_part_kv(&p[n++], &r->sfc);
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (r->sfcs[k].gone)
            acct_part_init(&p[n++], ACCT_SFC, r->sfcs[k].name, places ? r->sfcs[k].place : -1);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        acct_part_init(&p[n], ACCT_NODE, r->node[i].name, places ? r->node_place[i] : -1);
        if (!r->node[i].gone)
            acct_part_kv(&p[n], &r->node[i].kv);
        n++;
    }
    return n;
}

/* The generated range: the furthest readout's (t->best_readout, a part
 * index of ledger_parts: the readouts come first). */
static void readouts_range(const struct farm_result *r, const struct acct_totals *t,
                           struct ledger *l)
{
    const struct ebf_kv *best = r->n_ro > 1 && t->best_readout >= 0 ? &r->ro[t->best_readout].kv
                                                                    : &r->readout;

    l->generated = t->generated;
    l->id_lo = ebf_kv_u64(best, RO_NAME(FIRST_EVENT), 0);
    l->range_digest = ebf_kv_u64(best, RO_NAME(ID_DIGEST), 0);
}

/* Whether every readout withheld the same events (their records agree). */
static int withheld_agree(const struct farm_result *r)
{
    struct ebf_idset a, b;

    if (r->n_ro < 2)
        return 1;
    ledger_kv_idset(&r->ro[0].kv, RO_FAULT_NAME(LEDGER_WITHHELD), &a);
    for (unsigned i = 1; i < r->n_ro; i++) {
        ledger_kv_idset(&r->ro[i].kv, RO_FAULT_NAME(LEDGER_WITHHELD), &b);
        ebf_idset_merge(&b, &a, -1);
        if (!ebf_idset_empty(&b))
            return 0;
    }
    return 1;
}

/* Each gone readout and the event it was lost from: 1 + the highest id
 * any live SFC heard from its sources. */
static void readouts_lost(const struct farm_result *r, struct ledger *l)
{
    char key[64];

    for (unsigned i = 0; i < r->n_ro && l->n_ro_lost < LEDGER_MAX_REASONS; i++) {
        const struct farm_part_result *x = &r->ro[i];
        uint64_t from = 0;
        if (!x->gone)
            continue;
        for (unsigned k = 0; k < r->n_sfcs; k++)
            for (unsigned s = x->first_source; s < x->first_source + x->n_sources; s++) {
                snprintf(key, sizeof(key), "%s.%u", SFC_NAME(NEXT_EVENT_SOURCE), s);
                uint64_t v = r->sfcs[k].gone ? 0 : ebf_kv_u64(&r->sfcs[k].kv, key, 0);
                from = v > from ? v : from;
            }
        snprintf(l->ro_lost[l->n_ro_lost], sizeof(l->ro_lost[0]), "%s", x->name);
        l->ro_lost_from[l->n_ro_lost++] = x->n_sources ? from : l->gone_from;
    }
}

/* The first gone SFC's name, and how many. */
static void sfcs_gone_note(const struct farm_result *r, struct ledger *l)
{
    l->sfcs_gone = r->sfcs_gone;
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (r->sfcs[k].gone) {
            snprintf(l->sfc_gone, sizeof(l->sfc_gone), "%s", r->sfcs[k].name);
            return;
        }
}

/* The ledger's buckets from the farm's accounting: decided (the SFCs'
 * acks, a gone SFC's nodes' decisions), lost by reason (the SFCs'), then
 * sfc_lost and the readouts' withheld events. */
static void ledger_buckets(const struct acct_totals *t, struct ledger *l)
{
    /* The SFC takes one ack per event, from the node that holds it: that
     * is the decision of record, also when a node died or answered late. */
    l->accepted = t->accepted;
    l->rejected = t->rejected;
    l->incomplete = t->incomplete;
    for (unsigned i = 0; i < t->n_lost && l->n_lost < LEDGER_MAX_REASONS; i++) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "%s", t->lost_name[i]);
        l->lost[l->n_lost++] = t->lost_by[i];
        l->lost_total += t->lost_by[i];
    }
    if (l->failover && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "replay_full");
        l->lost[l->n_lost++] = l->replay_full;
        l->lost_total += l->replay_full;
    }
    if (l->sfcs_gone && !l->failover && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "sfc_lost");
        l->lost[l->n_lost++] = l->sfc_lost;
        l->lost_total += l->sfc_lost;
    }
    /* Events the readout's fault injection withheld entirely (no frame left
     * intact): no SFC saw them, the readout accounts for them. */
    if (t->has_withheld && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "withheld");
        l->lost[l->n_lost++] = t->withheld;
        l->lost_total += t->withheld;
    }
}

/* A failover's terms into l (x on): the dead places' decisions below the
 * watermark stand for their ids (*gone, *gone_digest), the decisions at
 * or above it were made again by a survivor and leave the counts; a
 * restarted SFC's old incarnations' decisions join them. */
static void failover_terms(const struct ledger_replay *x, struct acct_totals *t, struct ledger *l,
                           struct ebf_idset *gone, uint64_t *gone_digest)
{
    l->failover = 1;
    l->sfcs_restarted = x->n_restarted;
    l->redecided = x->redecided;
    l->replayed = x->replayed;
    l->release_mark = x->mark;
    l->mark_evicted = x->evicted;
    t->accepted += x->old_accepted;
    t->rejected += x->old_rejected;
    t->accepted -= x->redecided_accepted;
    t->rejected -= x->redecided - x->redecided_accepted;
    *gone = x->dead;
    *gone_digest = x->dead_digest;
}

/* A live SFC's fences: its acks the readouts replayed (ledger.fence_acked)
 * were decided again by a survivor; the survivor's decision is the one
 * counted, theirs join redecided. */
static void fence_terms(const struct ledger_replay *x, struct acct_totals *t, struct ledger *l)
{
    l->fences = x->fences;
    l->replay_fenced = x->fenced;
    l->replay_partial = x->partial;
    l->replay_ended = x->ended;
    l->replay_wait_cap = x->wait_cap;
    l->replay_unsound = x->unsound;
    l->redecided += x->fence_count;
    l->mark_evicted |= x->fence_overflow;
    t->accepted -= x->fence_accepted;
    t->rejected -= x->fence_count - x->fence_accepted;
}

/* With a failover, the ids still missing are named lost as replay_full
 * when the readouts' drops explain them (ledger_replay_full). */
static void failover_residual(const struct farm_result *r, const struct ledger_replay *x,
                              struct ledger *l, uint64_t *got)
{
    if (!l->failover || l->ids_match || !l->ids_listed || l->n_extra || !l->n_missing)
        return;
    l->replay_full = ledger_replay_full(r, x, l->missing, l->n_missing, got);
    l->ids_match = l->replay_full != 0;
}

void ledger_close(const struct farm_result *r, struct ledger *l)
{
    struct acct_part p[FF_MAX_READOUTS + 1 + FF_MAX_SFCS + FARM_MAX_NODES];
    struct acct_totals t;
    struct ebf_idset gone_ids;
    struct ledger_replay x;
    uint64_t gone_digest;

    memset(l, 0, sizeof(*l));
    acct_combine(p, ledger_parts(r, p), &t);
    l->readouts_gone = r->readouts_gone;
    snprintf(l->readout_gone, sizeof(l->readout_gone), "%s", r->readout_gone);
    sfcs_gone_note(r, l);
    /* With a readout gone or restarted, no readout's counters cover the
     * run: the range is the one the SFCs saw. */
    int seen = l->readouts_gone || readout_rejoined(r);
    ledger_replay_terms(r, &x);
    if (seen)
        seen_range(r, &x, l);
    else
        readouts_range(r, &t, l);
    if (l->readouts_gone)
        readouts_lost(r, l);
    l->withheld_agree = seen || withheld_agree(r);
    l->late_acks = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_LATE_DEAD), 0);
    l->late_accepted = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_LATE_ACCEPTED), 0);
    l->nodes_dead = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_DECLARED_DEAD), 0);
    l->redispatched = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REDISPATCHED), 0);
    l->rejoins = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REJOINS), 0);
    l->revived = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REVIVED), 0);
    l->nodes_silent = r->nodes_silent;
    l->gone_decided = t.gone_decided;
    /* Stored copies: a redecided event accepted twice is stored twice, and
     * so is one a node accepted late (after its SFC declared it dead and
     * redispatched the event: the copy sent again is marked). */
    uint64_t store_accepted = t.accepted + l->late_accepted;
    store_accepted += x.old_accepted;
    if (x.on)
        failover_terms(&x, &t, l, &gone_ids, &gone_digest);
    else
        gone_digest = gone_sfcs(r, l, &gone_ids);
    fence_terms(&x, &t, l);
    gone_digest -= x.fence_digest;
    /* A restarted node (a rejoin) took its past incarnation's record along. */
    l->nodes_reported = r->nodes_silent == 0 && l->rejoins == 0;
    uint64_t got = ebf_kv_u64(&r->sfc, SFC_NAME(ACKED_DIGEST), 0) +
                   ebf_kv_u64(&r->sfc, SFC_NAME(LOST_DIGEST), 0) + gone_digest;
    if (!seen)
        got += ebf_kv_u64(withheld_kv(r), RO_FAULT_NAME(WITHHELD_DIGEST), 0);
    ledger_ids(r, l, &gone_ids, &x);
    failover_residual(r, &x, l, &got);
    ledger_buckets(&t, l);
    l->digest_match = l->range_digest == got;
    l->unaccounted = (int64_t)(l->generated - (l->accepted + l->rejected + l->lost_total));
    ledger_store_close(r, store_accepted, &l->store);
    l->closed = l->unaccounted == 0 && l->digest_match && l->ids_match && l->withheld_agree &&
                (!l->nodes_reported || (l->nodes_agree && (!l->store.on || l->store.balanced)));
}
