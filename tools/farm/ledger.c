/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger.c - closing a run's ledger from the final counters of its processes. */
#include "ledger.h"

#include <stdlib.h>
#include <string.h>

#include "ebf_idset.h"
#include "ebf_mix.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

/* An id record from its stats keys "<prefix>.count.<cell>" ... (0 if absent). */
static void kv_idset(const struct ebf_kv *kv, const char *prefix, struct ebf_idset *r)
{
    char key[96];

    ebf_idset_init(r);
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        snprintf(key, sizeof(key), "%s.count.%u", prefix, c);
        r->count[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.id_sum.%u", prefix, c);
        r->id_sum[c] = ebf_kv_u64(kv, key, 0);
        snprintf(key, sizeof(key), "%s.hash_sum.%u", prefix, c);
        r->hash_sum[c] = ebf_kv_u64(kv, key, 0);
    }
}

/* The counters the ledger takes withheld events from: the readout's, or
 * with several the first one's (ledger.h). */
static const struct ebf_kv *withheld_kv(const struct farm_result *r)
{
    return r->n_ro > 1 ? &r->ro[0].kv : &r->readout;
}

/* 1 when node i's SFC is gone: its decisions reached no SFC's counters. */
static int node_of_gone_sfc(const struct farm_result *r, unsigned i)
{
    if (!r->sfcs_gone || !r->n_places || r->node_place[i] < 0)
        return 0;
    for (unsigned k = 0; k < r->n_sfcs; k++)
        if (r->sfcs[k].gone && r->sfcs[k].place == r->node_place[i])
            return 1;
    return 0;
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
 * their nodes decided into the ledger, the rest lost as sfc_lost. */
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
    for (unsigned i = 0; i < r->n_nodes; i++) {
        if (!node_of_gone_sfc(r, i))
            continue;
        uint64_t a = ebf_kv_u64(&r->node[i].kv, NODE_NAME(ACCEPTED), 0);
        uint64_t j = ebf_kv_u64(&r->node[i].kv, NODE_NAME(REJECTED), 0);
        l->accepted += a;
        l->rejected += j;
        l->gone_decided += a + j;
    }
    l->sfc_lost = n >= l->gone_decided ? n - l->gone_decided : 0;
    return digest;
}

/* The id records: the readout's range minus the SFCs' acked and lost ids
 * (and a gone SFC's ids, g); then, when every node reported, every ack the
 * nodes of live SFCs sent against the acks the SFCs took and the late ones
 * they ignored. */
static void ledger_ids(const struct farm_result *r, struct ledger *l, const struct ebf_idset *g)
{
    struct ebf_idset d, x;

    ebf_idset_init(&d);
    ebf_idset_add_range(&d, l->id_lo, l->generated);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &x);
    ebf_idset_merge(&d, &x, -1);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_LOST), &x);
    ebf_idset_merge(&d, &x, -1);
    ebf_idset_merge(&d, g, -1);
    if (!l->readouts_gone) {
        kv_idset(withheld_kv(r), RO_FAULT_NAME(LEDGER_WITHHELD), &x);
        ebf_idset_merge(&d, &x, -1);
    }
    l->ids_match = ebf_idset_empty(&d);
    l->ids_listed = ebf_idset_list(&d, l->missing, &l->n_missing, l->extra, &l->n_extra,
                                   LEDGER_MAX_IDS);
    if (!l->nodes_reported)
        return;
    ebf_idset_init(&d);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        if (node_of_gone_sfc(r, i))
            continue;
        kv_idset(&r->node[i].kv, NODE_NAME(LEDGER_ACKS), &x);
        ebf_idset_merge(&d, &x, 1);
    }
    kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &x);
    ebf_idset_merge(&d, &x, -1);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_LATE), &x);
    ebf_idset_merge(&d, &x, -1);
    l->nodes_agree = ebf_idset_empty(&d);
}

/* With a readout gone, the ids the SFCs saw (acked or lost) taken as the
 * range lo .. lo + n - 1: partition 0 of their record holds each id once,
 * so its counts add up to n and its id sums to n * lo + n (n - 1) / 2
 * (modulo 2^64).
 * ledger_ids then checks that they are that range; the digest the
 * readout would have sent is that of the range. */
static void seen_range(const struct farm_result *r, struct ledger *l)
{
    struct ebf_idset s, x;
    uint64_t n = 0, sum = 0;

    kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &s);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_LOST), &x);
    ebf_idset_merge(&s, &x, 1);
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

/* The generated range: the readout's, or with several the longest. */
static void readouts_range(const struct farm_result *r, struct ledger *l)
{
    const struct ebf_kv *best = &r->readout;
    uint64_t most = 0;

    for (unsigned i = 0; r->n_ro > 1 && i < r->n_ro; i++) {
        const struct ebf_kv *kv = &r->ro[i].kv;
        uint64_t n = ebf_kv_u64(kv, RO_NAME(EVENTS), 0) +
                     ebf_kv_u64(kv, RO_NAME(EVENTS_ABANDONED), 0);
        if (i == 0 || n > most) {
            best = kv;
            most = n;
        }
    }
    l->generated = ebf_kv_u64(best, RO_NAME(EVENTS), 0) +
                   ebf_kv_u64(best, RO_NAME(EVENTS_ABANDONED), 0);
    l->id_lo = ebf_kv_u64(best, RO_NAME(FIRST_EVENT), 0);
    l->range_digest = ebf_kv_u64(best, RO_NAME(ID_DIGEST), 0);
}

/* Whether every readout withheld the same events (their records agree). */
static int withheld_agree(const struct farm_result *r)
{
    struct ebf_idset a, b;

    if (r->n_ro < 2)
        return 1;
    kv_idset(&r->ro[0].kv, RO_FAULT_NAME(LEDGER_WITHHELD), &a);
    for (unsigned i = 1; i < r->n_ro; i++) {
        kv_idset(&r->ro[i].kv, RO_FAULT_NAME(LEDGER_WITHHELD), &b);
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

void ledger_close(const struct farm_result *r, struct ledger *l)
{
    struct ebf_idset gone_ids;

    memset(l, 0, sizeof(*l));
    l->readouts_gone = r->readouts_gone;
    snprintf(l->readout_gone, sizeof(l->readout_gone), "%s", r->readout_gone);
    sfcs_gone_note(r, l);
    if (l->readouts_gone) {
        seen_range(r, l);
        readouts_lost(r, l);
    } else {
        readouts_range(r, l);
    }
    l->withheld_agree = l->readouts_gone || withheld_agree(r);
    /* The SFC takes one ack per event, from the node that holds it: that
     * is the decision of record, also when a node died or answered late. */
    l->accepted = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_ACCEPT), 0);
    l->rejected = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_REJECT), 0);
    l->incomplete = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_INCOMPLETE), 0);
    l->late_acks = ebf_kv_u64(&r->sfc, SFC_NAME(ACK_LATE_DEAD), 0);
    l->nodes_dead = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_DECLARED_DEAD), 0);
    l->redispatched = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REDISPATCHED), 0);
    l->rejoins = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REJOINS), 0);
    l->revived = ebf_kv_u64(&r->sfc, SFC_NAME(NODE_REVIVED), 0);
    l->nodes_silent = r->nodes_silent;
    uint64_t gone_digest = gone_sfcs(r, l, &gone_ids);
    /* A restarted node (a rejoin) took its past incarnation's record along. */
    l->nodes_reported = r->nodes_silent == 0 && l->rejoins == 0;
    size_t lost = strlen(SFC_NAME(LOST));
    for (unsigned i = 0; i < r->sfc.n && l->n_lost < LEDGER_MAX_REASONS; i++) {
        const struct ebf_kv_pair *p = &r->sfc.pair[i];
        if (strncmp(p->key, SFC_NAME(LOST), lost) != 0 || p->key[lost] != '.')
            continue;
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "%s", p->key + lost + 1);
        l->lost[l->n_lost] = strtoull(p->val, NULL, 0);
        l->lost_total += l->lost[l->n_lost];
        l->n_lost++;
    }
    /* Events the readout's fault injection withheld entirely (no frame left
     * intact): no SFC saw them, the readout accounts for them. */
    if (l->sfcs_gone && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "sfc_lost");
        l->lost[l->n_lost++] = l->sfc_lost;
        l->lost_total += l->sfc_lost;
    }
    uint64_t withheld = ebf_kv_u64(withheld_kv(r), RO_FAULT_NAME(WITHHELD_EVENTS), UINT64_MAX);
    if (!l->readouts_gone && withheld != UINT64_MAX && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "withheld");
        l->lost[l->n_lost++] = withheld;
        l->lost_total += withheld;
    }
    uint64_t got = ebf_kv_u64(&r->sfc, SFC_NAME(ACKED_DIGEST), 0) +
                   ebf_kv_u64(&r->sfc, SFC_NAME(LOST_DIGEST), 0) + gone_digest;
    if (!l->readouts_gone)
        got += ebf_kv_u64(withheld_kv(r), RO_FAULT_NAME(WITHHELD_DIGEST), 0);
    l->digest_match = l->range_digest == got;
    ledger_ids(r, l, &gone_ids);
    l->unaccounted = (int64_t)(l->generated - (l->accepted + l->rejected + l->lost_total));
    ledger_store_close(r, l->accepted, &l->store);
    l->closed = l->unaccounted == 0 && l->digest_match && l->ids_match && l->withheld_agree &&
                (!l->nodes_reported || (l->nodes_agree && (!l->store.on || l->store.balanced)));
}
