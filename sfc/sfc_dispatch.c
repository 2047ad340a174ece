/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dispatch.c - the SFC's node side: complete events out on credit as zero-copy frames, credits and acks back. */
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_mix.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

/* --- Credits and acks ------------------------------------------------------ */

static int node_of(const struct sfc_dp *dp, uint16_t port, uint16_t node_id,
                   const uint8_t *src_mac)
{
    if (node_id >= dp->c.n_nodes || dp->c.node[node_id].port != port ||
        memcmp(dp->c.node[node_id].mac, src_mac, 6) != 0)
        return -1;
    return node_id;
}

/* Parse a frame received on a node port into h and acks. Returns the node it
 * came from, or -1 when it is not a valid unicast credit frame of a known
 * node (counted under its reason). */
static int credit_frame(struct sfc_dp *dp, uint16_t port, struct rte_mbuf *m,
                        struct ebf_credit_hdr *h, struct ebf_ack *acks)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    struct ebf_l2l3 l;
    enum ebf_reason r = ebf_parse_l2l3(p, m->data_len, dp->c.udp_port, &l);

    if (r == EBF_R_OK && l.type != EBF_T_CREDIT) {
        dp->st.drop[SFC_DROP_WRONG_TYPE]++;
        return -1;
    }
    if (r == EBF_R_OK)
        r = ebf_credit_parse(p + l.hlen, l.len, h, acks);
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return -1;
    }
    if (l.dst_mac[0] & 1) {
        dp->st.drop[SFC_DROP_NOT_UNICAST]++;    /* broadcast or multicast */
        return -1;
    }
    int node = node_of(dp, port, h->node_id, l.src_mac);
    if (node < 0)
        dp->st.drop[SFC_DROP_UNKNOWN_NODE]++;
    return node;
}

/* One ack from node (heard as sfc_node_heard said): the event it held is
 * released and its credit returns; an ack of an event the node does not
 * hold is late (the event went to another node, whose ack counts) or
 * unknown. */
static void take_ack(struct sfc_dp *dp, uint16_t node, const struct ebf_ack *ack,
                     enum sfc_heard heard, uint64_t now)
{
    uint64_t id = ack->event_id;
    uint32_t slot = heard == SFC_HEARD_OK ? sfc_evtab_find_sent(dp->tab, id, node) : SFC_NONE;

    if (slot == SFC_NONE) {
        if (heard != SFC_HEARD_OK || dp->live[node].was_dead) {
            /* Its event went to another node: that node's ack counts. */
            dp->st.late_acks++;
            dp->st.late_ack_digest += ebf_mix64(id);
            ebf_idset_add(&dp->st.ledger_late, id);
        } else {
            dp->st.ack_unknown++;
        }
        return;
    }
    struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
    uint64_t since = now - sfc_evtab_cold(dp->tab, slot)->ready_tick;
    ebf_hist_add(&dp->st.ack_ns, tsc_to_ns(dp, since));
    dp->st.acks++;
    dp->st.node_acked[node]++;
    if (ack->decision == EBF_DEC_ACCEPT)
        dp->st.acked_accept++;
    else
        dp->st.acked_reject++;
    if (ack->status)
        dp->st.ack_status_errors++;
    dp->st.acked_incomplete += e->incomplete;
    dp->st.acked_digest += ebf_mix64(id);
    ebf_idset_add(&dp->st.ledger_acked, id);
    sfc_evtab_release(dp->tab, slot);
    sfc_credit_ack(dp->credit, node);
}

/* A credit frame: its acks, then the credits it grants (none from an
 * incarnation older than the node's current epoch). */
static void handle_credit(struct sfc_dp *dp, uint16_t port, struct rte_mbuf *m, uint64_t now)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    int node = credit_frame(dp, port, m, &h, acks);

    if (node < 0)
        return;
    dp->st.credit_frames++;
    enum sfc_heard heard = sfc_node_heard(dp, (uint16_t)node, h.epoch, now);
    for (unsigned i = 0; i < h.n_acks; i++)
        take_ack(dp, (uint16_t)node, &acks[i], heard, now);
    if (heard == SFC_HEARD_OLD_EPOCH)
        return;                 /* its slots belong to a past incarnation */
    uint32_t took = sfc_credit_grant(dp->credit, (uint16_t)node, h.credits);
    dp->st.credits_granted += took;
    dp->st.credits_clamped += h.credits - took;
}

unsigned sfc_poll_nodes(struct sfc_dp *dp, uint64_t now)
{
    struct rte_mbuf *pkts[BURST_MAX];
    unsigned work = 0;

    dp->polls++;
    for (uint16_t q = 0; q < dp->n_txq; q++) {
        uint16_t port = dp->txq[q].port, n;
        struct sfc_dist *d = dp->c.node_dist && dp->c.node_dist->port == port
                                 ? dp->c.node_dist : NULL;
        /* A port whose nodes are all dead is polled now and then only, to
         * hear a node come back: its peer may be gone, and a memif PMD
         * unmaps the shared rings of a vanished peer from its interrupt
         * thread, unsynchronised with a burst in progress (DPDK 22.11).
         * A shared port is always read: it serves other workers' nodes. */
        if (dp->q_alive[q] == 0 && !d && (dp->polls & 1023) != 0)
            continue;
        if (d)
            n = sfc_dist_take(d, dp, pkts, dp->c.burst);
        else
            n = rte_eth_rx_burst(port, 0, pkts, dp->c.burst);
        for (uint16_t i = 0; i < n; i++)
            handle_credit(dp, port, pkts[i], now);
        if (n)
            rte_pktmbuf_free_bulk(pkts, n);
        work += n;
    }
    return work;
}

/* --- Event frames ---------------------------------------------------------- */

/* Start an event frame: header mbuf with room for Ethernet + event header. */
static struct rte_mbuf *frame_start(struct sfc_dp *dp)
{
    struct rte_mbuf *h = rte_pktmbuf_alloc(dp->c.hdr_pool);

    if (h && !rte_pktmbuf_append(h, EBF_ETH_HLEN + EBF_EVENT_HLEN)) {
        rte_pktmbuf_free(h);
        h = NULL;
    }
    return h;
}

/* Chain to the event frame h, after its last segment *last, an indirect
 * clone of the received frame that rec holds, trimmed to fragment header +
 * piece: no payload byte is copied, and no walk of the chain (O(1) per
 * piece, where rte_pktmbuf_chain walks to the end). 0, or -1 when the
 * clone pool ran dry. */
static int chain_piece(struct sfc_dp *dp, const struct sfc_frame_rec *rec, struct rte_mbuf *h,
                       struct rte_mbuf **last)
{
    uint32_t pb = EBF_FRAG_HLEN + rec->piece_len;
    struct rte_mbuf *cl = rte_pktmbuf_clone(rec->frame, dp->c.clone_pool);

    if (!cl)
        return -1;
    rte_pktmbuf_adj(cl, rec->data_off);
    if (cl->data_len > pb)
        rte_pktmbuf_trim(cl, (uint16_t)(cl->data_len - pb));
    (*last)->next = cl;
    *last = cl;
    h->nb_segs++;              /* bounded by the MTU: sfc_dp_check_node_ports */
    h->pkt_len += cl->data_len;
    return 0;
}

/*
 * Chain every piece of event e into event frames at pkt[0..], a new frame
 * whenever the next piece would pass the MTU; pieces[i] is the count of
 * frame i. Returns the frames made (0 for an event with no piece), or -1
 * when a pool ran dry: then every frame made is freed and clone_fail counted.
 */
static int chain_pieces(struct sfc_dp *dp, const struct sfc_event *e, struct rte_mbuf **pkt,
                        uint16_t *pieces)
{
    uint16_t nf = 0;
    uint32_t fill = 0;
    struct rte_mbuf *last = NULL;

    for (uint32_t r = e->first_rec; r != SFC_NONE;) {
        const struct sfc_frame_rec *rec = sfc_evtab_rec(dp->tab, r);
        uint32_t pb = EBF_FRAG_HLEN + rec->piece_len;
        if (nf == 0 || fill + pb > dp->c.mtu) {
            struct rte_mbuf *h = frame_start(dp);
            if (!h)
                goto fail;
            pkt[nf] = h;
            pieces[nf++] = 0;
            fill = EBF_EVENT_HLEN;
            last = h;
        }
        if (chain_piece(dp, rec, pkt[nf - 1], &last))
            goto fail;
        pieces[nf - 1]++;
        fill += pb;
        r = rec->next;
    }
    return nf;
fail:
    for (uint16_t i = 0; i < nf; i++)
        rte_pktmbuf_free(pkt[i]);
    dp->st.clone_fail++;
    return -1;
}

/* Write the Ethernet and event headers of the nf frames of event e to node. */
static void write_headers(struct sfc_dp *dp, const struct sfc_event *e, uint16_t node,
                          struct rte_mbuf **pkt, const uint16_t *pieces, uint16_t nf)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.dst_mac, dp->c.node[node].mac, 6);
    memcpy(a.src_mac, dp->node_port_mac[node], 6);
    struct ebf_event_hdr eh = {
        .n_sources = dp->c.n_sources, .sfc_id = dp->c.sfc_id,
        .flags = e->incomplete ? EBF_EVF_INCOMPLETE : 0, .event_id = e->event_id,
        .frame_count = nf, .event_bytes = e->bytes,
        .present = {e->present[0], e->present[1]},
    };
    for (uint16_t i = 0; i < nf; i++) {
        struct rte_mbuf *h = pkt[i];
        uint8_t *p = rte_pktmbuf_mtod(h, uint8_t *);
        ebf_encap_write(p, &a, h->pkt_len - EBF_ETH_HLEN);
        eh.frame_index = i;
        eh.n_pieces = pieces[i];
        ebf_event_write(p + EBF_ETH_HLEN, &eh);
        dp->st.bytes_tx += h->pkt_len;
    }
}

/*
 * Append the frames of event slot for node to its txq: header mbufs chained
 * to indirect clones of the received frames. No payload byte is copied.
 * Returns frames queued, or 0 when pools ran dry (nothing queued, the event
 * stays READY).
 */
static uint16_t build_event(struct sfc_dp *dp, uint32_t slot, uint16_t node, struct txq *q)
{
    struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
    struct rte_mbuf **pkt = q->pkt + q->n;
    uint16_t pieces[TXQ_SIZE];
    int nf = chain_pieces(dp, e, pkt, pieces);

    if (nf < 0)
        return 0;
    if (nf == 0) {               /* timed out with no complete source */
        struct rte_mbuf *h = frame_start(dp);
        if (!h)
            return 0;
        pkt[nf] = h;
        pieces[nf++] = 0;
    }
    write_headers(dp, e, node, pkt, pieces, (uint16_t)nf);
    q->n = (uint16_t)(q->n + nf);
    return (uint16_t)nf;
}

/* --- Dispatch -------------------------------------------------------------- */

static void count_missing(struct sfc_dp *dp, const struct sfc_event *e)
{
    for (unsigned s = 0; s < dp->c.n_sources; s++)
        if (!ebf_present_test(e->present, s))
            dp->st.missing_by_source[s]++;
}

/* Event e went to node in nf frames at now: count it, and from here on its
 * ready_tick is when it was sent. */
static void count_sent(struct sfc_dp *dp, uint32_t slot, struct sfc_event *e, uint16_t node,
                       uint16_t nf, uint64_t now)
{
    dp->st.frames_tx += nf;
    dp->st.events_sent++;
    dp->st.node_sent[node]++;
    dp->st.payload_bytes_sent += e->bytes;
    if (e->incomplete && !e->requeued) {
        dp->st.events_incomplete++;
        count_missing(dp, e);
    }
    struct sfc_event_cold *cold = sfc_evtab_cold(dp->tab, slot);
    ebf_hist_add(&dp->st.dispatch_ns, tsc_to_ns(dp, now - cold->ready_tick));
    cold->ready_tick = now;
}

/* A node with credit whose port's queue has room for event e, or -1. A
 * node whose queue is full is passed over (and the other nodes of its
 * port with it) for this event: one slow port does not hold up the rest. */
static int pick_node(struct sfc_dp *dp, const struct sfc_event *e)
{
    uint64_t skip = 0;

    for (;;) {
        int node = sfc_credit_pick_skip(dp->credit, skip);
        if (node < 0)
            return -1;
        const struct txq *q = &dp->txq[dp->node_txq[node]];
        if ((uint32_t)q->n + e->n_frames + 1 <= TXQ_SIZE)
            return node;
        skip |= dp->txq_nodes[dp->node_txq[node]];
        dp->st.tx_queue_full++;
    }
}

unsigned sfc_dispatch(struct sfc_dp *dp, uint64_t now)
{
    unsigned sent = 0;
    uint32_t slot;

    while ((slot = sfc_evtab_ready_peek(dp->tab)) != SFC_NONE) {
        struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        int node = pick_node(dp, e);
        if (node < 0)
            break;
        struct txq *q = &dp->txq[dp->node_txq[node]];
        uint16_t nf = build_event(dp, slot, (uint16_t)node, q);
        if (nf == 0)
            break;
        count_sent(dp, slot, e, (uint16_t)node, nf, now);
        sfc_evtab_mark_sent(dp->tab, slot, (uint16_t)node);
        sfc_credit_consume(dp->credit, (uint16_t)node);
        sent++;
    }
    return sent;
}

unsigned sfc_flush_tx(struct sfc_dp *dp)
{
    unsigned work = 0;

    for (uint16_t i = 0; i < dp->n_txq; i++) {
        struct txq *q = &dp->txq[i];
        if (q->n == 0)
            continue;
        uint16_t k = rte_eth_tx_burst(q->port, q->queue, q->pkt, q->n);
        if (k < q->n)
            memmove(q->pkt, q->pkt + k, (size_t)(q->n - k) * sizeof(q->pkt[0]));
        /* tx.refused: each frame once, at the first try the port refused
         * it; the first `refused` frames of the queue were counted before. */
        uint16_t counted = q->refused > k ? (uint16_t)(q->refused - k) : 0;
        q->n = (uint16_t)(q->n - k);
        dp->st.tx_refused += (uint64_t)(q->n - counted);
        q->refused = q->n;
        work += k;
    }
    return work;
}
