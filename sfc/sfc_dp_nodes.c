/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_nodes.c - the SFC data plane's side toward the nodes: credit frames, acks, dead nodes. */
#include "sfc_dp.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_mix.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

/* One ack from node (taken: its events count, as sfc_nodes_heard said):
 * the event it held is released and its credit returns; an ack of an
 * event the node does not hold is late (the event went to another node,
 * whose ack counts) or unknown. */
static void take_ack(struct sfc_dp *dp, uint16_t node, const struct ebf_ack *ack, int taken,
                     uint64_t now)
{
    uint64_t id = ack->event_id;
    uint32_t slot = taken ? sfc_evtab_find_sent(dp->tab, id, node) : SFC_NONE;

    if (slot == SFC_NONE) {
        if (!taken || sfc_nodes_was_dead(&dp->nodes, node)) {
            dp->st.late_acks++;     /* its event went to another node: that ack counts */
            dp->st.late_accepted += ack->decision == EBF_DEC_ACCEPT;
            dp->st.late_ack_digest += ebf_mix64(id);
            ebf_idset_add(&dp->st.ledger_late, id);
        } else {
            dp->st.ack_unknown++;
        }
        return;
    }
    const struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
    uint64_t since = now - sfc_evtab_cold(dp->tab, slot)->ready_tick;
    ebf_hist_add(&dp->st.ack_ns, tsc_to_ns(dp, since));
    dp->st.acks++;
    dp->st.node_acked[node]++;
    dp->st.acked_accept += ack->decision == EBF_DEC_ACCEPT;
    dp->st.acked_reject += ack->decision != EBF_DEC_ACCEPT;
    dp->st.ack_status_errors += ack->status != 0;
    dp->st.acked_incomplete += e->incomplete;
    dp->st.acked_digest += ebf_mix64(id);
    ebf_idset_add(&dp->st.ledger_acked, id);
    if (e->replayed)
        ebf_idset_add(&dp->st.ledger_replay_acked, id);
    if (dp->low)
        sfc_dp_fence_ack(dp, id, ack->decision == EBF_DEC_ACCEPT,
                         sfc_evtab_cold(dp->tab, slot)->fenced);
    sfc_evtab_release(dp->tab, slot);
    sfc_credit_ack(dp->nodes.credit, node);
}

/* Node is gone (declared dead): nothing queued for it, every event it has
 * not acked back at the head of the ready queue. Returns those events. */
static unsigned node_gone(struct sfc_dp *dp, uint16_t node)
{
    unsigned n;

    sfc_tx_purge(&dp->tx, node);
    n = sfc_nodes_take_back(dp->tab, dp->c.capacity, node);
    dp->st.nodes_dead++;
    dp->st.redispatched += n;
    return n;
}

/* A credit frame: what it says of its node, its acks, then the credits it
 * grants (none from an incarnation older than the node's epoch). */
static void handle_credit(struct sfc_dp *dp, uint16_t port, struct rte_mbuf *m, uint64_t now)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    enum ebf_reason r;
    enum sfc_drop d;
    int node = sfc_nodes_parse(&dp->nodes, port, rte_pktmbuf_mtod(m, const uint8_t *),
                               m->data_len, dp->c.udp_port, &h, acks, &r, &d);

    if (node < 0) {
        if (r != EBF_R_OK)
            dp->st.reject[r]++;
        else
            dp->st.drop[d]++;
        return;
    }
    dp->st.credit_frames++;
    enum sfc_heard heard = sfc_nodes_heard(&dp->nodes, (uint16_t)node, h.epoch, now);
    if (heard == SFC_HEARD_REJOIN_DEAD)
        node_gone(dp, (uint16_t)node);
    dp->st.rejoins += heard >= SFC_HEARD_REJOIN;
    dp->st.revived += heard == SFC_HEARD_LATE;
    for (unsigned i = 0; i < h.n_acks; i++)
        take_ack(dp, (uint16_t)node, &acks[i], heard == SFC_HEARD_OK || heard >= SFC_HEARD_REJOIN,
                 now);
    if (heard == SFC_HEARD_OLD_EPOCH)
        return;                 /* its slots belong to a past incarnation */
    uint32_t took = sfc_credit_grant(dp->nodes.credit, (uint16_t)node, h.credits);
    dp->st.credits_granted += took;
    dp->st.credits_clamped += h.credits - took;
}

unsigned sfc_dp_nodes_poll(struct sfc_dp *dp, uint64_t now)
{
    struct rte_mbuf *pkts[SFC_BURST_MAX];
    unsigned work = 0;

    dp->polls++;
    for (uint16_t q = 0; q < dp->tx.n_txq; q++) {
        uint16_t port = dp->tx.q[q].port, n;
        struct sfc_dist *d = dp->c.node_dist && dp->c.node_dist->port == port
                                 ? dp->c.node_dist : NULL;
        if (sfc_nodes_port_quiet(&dp->nodes, q) && !d && (dp->polls & 1023) != 0)
            continue;
        n = d ? sfc_dp_take_shared(dp, d, pkts) : rte_eth_rx_burst(port, 0, pkts, dp->c.burst);
        for (uint16_t i = 0; i < n; i++)
            handle_credit(dp, port, pkts[i], now);
        if (n)
            rte_pktmbuf_free_bulk(pkts, n);
        work += n;
    }
    return work;
}

unsigned sfc_dp_nodes_check(struct sfc_dp *dp, uint64_t now)
{
    uint16_t dead[SFC_MAX_NODES];
    unsigned n = sfc_nodes_check(&dp->nodes, now, dead), work = n;

    for (unsigned i = 0; i < n; i++)
        work += node_gone(dp, dead[i]);
    return work;
}
