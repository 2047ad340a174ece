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

/* The id records: the readout's range minus the SFCs' acked and lost ids;
 * then, when every node reported, every ack the nodes sent against the acks
 * the SFCs took and the late ones they ignored. */
static void ledger_ids(const struct farm_result *r, struct ledger *l)
{
    struct ebf_idset d, x;

    ebf_idset_init(&d);
    ebf_idset_add_range(&d, l->id_lo, l->generated);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_ACKED), &x);
    ebf_idset_merge(&d, &x, -1);
    kv_idset(&r->sfc, SFC_NAME(LEDGER_LOST), &x);
    ebf_idset_merge(&d, &x, -1);
    if (!l->readouts_gone) {
        kv_idset(&r->readout, RO_FAULT_NAME(LEDGER_WITHHELD), &x);
        ebf_idset_merge(&d, &x, -1);
    }
    l->ids_match = ebf_idset_empty(&d);
    l->ids_listed = ebf_idset_list(&d, l->missing, &l->n_missing, l->extra, &l->n_extra,
                                   LEDGER_MAX_IDS);
    if (!l->nodes_reported)
        return;
    ebf_idset_init(&d);
    for (unsigned i = 0; i < r->n_nodes; i++) {
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
 * so its counts add up to n and its id sums to n * lo + n (n - 1) / 2.
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
    l->id_lo = n ? (sum - n * (n - 1) / 2) / n : 0;
    l->gone_from = l->id_lo + n;
    l->range_digest = 0;
    for (uint64_t id = l->id_lo; id < l->gone_from; id++)
        l->range_digest += ebf_mix64(id);
}

void ledger_close(const struct farm_result *r, struct ledger *l)
{
    memset(l, 0, sizeof(*l));
    l->readouts_gone = r->readouts_gone;
    snprintf(l->readout_gone, sizeof(l->readout_gone), "%s", r->readout_gone);
    if (l->readouts_gone) {
        seen_range(r, l);
    } else {
        l->generated = ebf_kv_u64(&r->readout, RO_NAME(EVENTS), 0) +
                       ebf_kv_u64(&r->readout, RO_NAME(EVENTS_ABANDONED), 0);
        l->id_lo = ebf_kv_u64(&r->readout, RO_NAME(FIRST_EVENT), 0);
        l->range_digest = ebf_kv_u64(&r->readout, RO_NAME(ID_DIGEST), 0);
    }
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
    uint64_t withheld = ebf_kv_u64(&r->readout, RO_FAULT_NAME(WITHHELD_EVENTS), UINT64_MAX);
    if (!l->readouts_gone && withheld != UINT64_MAX && l->n_lost < LEDGER_MAX_REASONS) {
        snprintf(l->lost_name[l->n_lost], sizeof(l->lost_name[0]), "withheld");
        l->lost[l->n_lost++] = withheld;
        l->lost_total += withheld;
    }
    uint64_t got = ebf_kv_u64(&r->sfc, SFC_NAME(ACKED_DIGEST), 0) +
                   ebf_kv_u64(&r->sfc, SFC_NAME(LOST_DIGEST), 0);
    if (!l->readouts_gone)
        got += ebf_kv_u64(&r->readout, RO_FAULT_NAME(WITHHELD_DIGEST), 0);
    l->digest_match = l->range_digest == got;
    ledger_ids(r, l);
    l->unaccounted = (int64_t)(l->generated - (l->accepted + l->rejected + l->lost_total));
    ledger_store_close(r, l->accepted, &l->store);
    l->closed = l->unaccounted == 0 && l->digest_match && l->ids_match &&
                (!l->nodes_reported || (l->nodes_agree && (!l->store.on || l->store.balanced)));
}
