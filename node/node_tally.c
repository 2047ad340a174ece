/* SPDX-License-Identifier: BSD-3-Clause */
/* node_tally.c - a decided event counted in the node's counters. */
#include "node_tally.h"

#include "ebf_mix.h"

/* The trigger's part of outcome: 1 when accepted, *stream its stream. */
static int trigger_outcome(struct node_stats *st, uint32_t outcome, uint16_t *stream)
{
    st->trigger_slow += (outcome & NODE_DEC_SLOW) != 0;
    if (outcome & NODE_DEC_FAILED) {
        st->trigger_fail[NODE_DEC_REASON(outcome)]++;
        *stream = 0;
        return 0;
    }
    *stream = (uint16_t)outcome;
    return (outcome & NODE_DEC_ACCEPT) != 0;
}

int node_tally_decided(struct node_stats *st, const struct node_ev *e, uint32_t outcome,
                       uint64_t now_ns, uint16_t *stream)
{
    int accept = trigger_outcome(st, outcome, stream);

    if (e->first_tx_ns != UINT64_MAX && now_ns > e->first_tx_ns)
        ebf_hist_add(&st->e2e_ns, now_ns - e->first_tx_ns);
    st->events++;
    st->accepted += accept;
    st->rejected += !accept;
    st->incomplete += (e->flags & EBF_EVF_INCOMPLETE) != 0;
    st->payload_bytes += e->got_bytes;
    st->decided_digest += ebf_mix64(e->id);
    for (unsigned v = 0; v < NODE_V_MAX; v++)
        st->verify[v] += (e->status & node_verify_bit(v)) != 0;
    st->events_bad += e->status != 0;
    st->bad_coverage += e->cover_bad;
    return accept;
}
