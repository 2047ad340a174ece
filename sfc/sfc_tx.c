/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_tx.c - the SFC's transmit: node-port queues, zero-copy event frames, throttle frames. */
#include "sfc_tx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

/* The segments of the longest event frame at mtu: its header mbuf and one
 * piece of 1 byte per fragment header that fits. */
static uint16_t max_segs(uint16_t mtu)
{
    return (uint16_t)(1 + ((mtu ? mtu : 1500) - EBF_EVENT_HLEN) / (EBF_FRAG_HLEN + 1));
}

static int check_port(uint16_t port, uint16_t mtu, char *err, size_t len)
{
    struct rte_eth_dev_info info;
    char name[RTE_ETH_NAME_MAX_LEN] = "?";
    uint16_t segs = max_segs(mtu);

    rte_eth_dev_get_name_by_port(port, name);
    if (rte_eth_dev_info_get(port, &info) != 0) {
        snprintf(err, len, "node port %u (%s): cannot read its device info", port, name);
        return -1;
    }
    if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
        snprintf(err, len, "node port %u (%s, driver %s) does not offer multi-segment transmit "
                 "(RTE_ETH_TX_OFFLOAD_MULTI_SEGS): the SFC sends each event frame as a chain "
                 "of mbufs; use a driver that offers it (net_memif, net_ring, net_af_packet, "
                 "most NICs)", port, name, info.driver_name);
    else if (info.tx_desc_lim.nb_seg_max < segs || info.tx_desc_lim.nb_mtu_seg_max < segs)
        snprintf(err, len, "node port %u (%s, driver %s) takes at most %u segments per frame; "
                 "an event frame at MTU %u can have %u", port, name, info.driver_name,
                 info.tx_desc_lim.nb_seg_max < info.tx_desc_lim.nb_mtu_seg_max
                     ? info.tx_desc_lim.nb_seg_max : info.tx_desc_lim.nb_mtu_seg_max,
                 mtu ? mtu : 1500, segs);
    else
        return 0;
    return -1;
}

int sfc_tx_check_ports(const struct sfc_conf *c, char *err, size_t len)
{
    for (uint16_t i = 0; i < c->n_nodes; i++)
        if (check_port(c->node[i].port, c->mtu, err, len) != 0)
            return -1;
    return 0;
}

int sfc_tx_init(struct sfc_tx *tx, const struct sfc_conf *c, uint32_t shared_port)
{
    struct rte_ether_addr ea;

    memset(tx, 0, sizeof(*tx));
    tx->q = rte_zmalloc("sfc_txq", sizeof(*tx->q) * c->n_nodes, RTE_CACHE_LINE_SIZE);
    if (!tx->q)
        return -ENOMEM;
    tx->mtu = c->mtu;
    tx->n_sources = c->n_sources;
    tx->sfc_id = c->sfc_id;
    tx->hdr_pool = c->hdr_pool;
    tx->clone_pool = c->clone_pool;
    for (uint16_t i = 0; i < c->n_nodes; i++) {
        uint16_t q = 0;
        if (c->node_mask && !(c->node_mask >> i & 1))
            continue;           /* another worker's: never polled, never sent to */
        while (q < tx->n_txq && tx->q[q].port != c->node[i].port)
            q++;
        if (q == tx->n_txq) {
            tx->q[tx->n_txq].port = c->node[i].port;
            if (shared_port == c->node[i].port)
                tx->q[tx->n_txq].queue = c->worker;    /* a tx queue per worker */
            tx->n_txq++;
        }
        tx->node_txq[i] = q;
        tx->txq_nodes[q] |= 1ull << i;
        memcpy(tx->node_mac[i], c->node[i].mac, 6);
        rte_eth_macaddr_get(c->node[i].port, &ea);
        memcpy(tx->node_port_mac[i], ea.addr_bytes, 6);
    }
    return 0;
}

void sfc_tx_fini(struct sfc_tx *tx)
{
    if (!tx->q)
        return;
    for (uint16_t q = 0; q < tx->n_txq; q++)
        rte_pktmbuf_free_bulk(tx->q[q].pkt, tx->q[q].n);
    rte_free(tx->q);
    tx->q = NULL;
}

/* --- Event frames ---------------------------------------------------------- */

/* Start an event frame: header mbuf with room for Ethernet + event header. */
static struct rte_mbuf *frame_start(struct sfc_tx *tx)
{
    struct rte_mbuf *h = rte_pktmbuf_alloc(tx->hdr_pool);

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
static int chain_piece(struct sfc_tx *tx, const struct sfc_frame_rec *rec, struct rte_mbuf *h,
                       struct rte_mbuf **last)
{
    uint32_t pb = EBF_FRAG_HLEN + rec->piece_len;
    struct rte_mbuf *cl = rte_pktmbuf_clone(rec->frame, tx->clone_pool);

    if (!cl)
        return -1;
    rte_pktmbuf_adj(cl, rec->data_off);
    if (cl->data_len > pb)
        rte_pktmbuf_trim(cl, (uint16_t)(cl->data_len - pb));
    (*last)->next = cl;
    *last = cl;
    h->nb_segs++;              /* bounded by the MTU: sfc_tx_check_ports */
    h->pkt_len += cl->data_len;
    return 0;
}

/*
 * Chain every piece of event e into event frames at pkt[0..], a new frame
 * whenever the next piece would pass the MTU; pieces[i] is the count of
 * frame i. Returns the frames made (0 for an event with no piece), or -1
 * when a pool ran dry: then every frame made is freed.
 */
static int chain_pieces(struct sfc_tx *tx, const struct sfc_evtab *tab, const struct sfc_event *e,
                        struct rte_mbuf **pkt, uint16_t *pieces)
{
    uint16_t nf = 0;
    uint32_t fill = 0;
    struct rte_mbuf *last = NULL;

    for (uint32_t r = e->first_rec; r != SFC_NONE;) {
        const struct sfc_frame_rec *rec = sfc_evtab_rec(tab, r);
        uint32_t pb = EBF_FRAG_HLEN + rec->piece_len;
        if (nf == 0 || fill + pb > tx->mtu) {
            struct rte_mbuf *h = frame_start(tx);
            if (!h)
                goto fail;
            pkt[nf] = h;
            pieces[nf++] = 0;
            fill = EBF_EVENT_HLEN;
            last = h;
        }
        if (chain_piece(tx, rec, pkt[nf - 1], &last))
            goto fail;
        pieces[nf - 1]++;
        fill += pb;
        r = rec->next;
    }
    return nf;
fail:
    for (uint16_t i = 0; i < nf; i++)
        rte_pktmbuf_free(pkt[i]);
    return -1;
}

/* Write the Ethernet and event headers of the nf frames of event e to
 * node. Returns the bytes of the frames. */
static uint64_t write_headers(const struct sfc_tx *tx, const struct sfc_event *e, uint16_t node,
                              struct rte_mbuf **pkt, const uint16_t *pieces, uint16_t nf)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    uint64_t bytes = 0;

    memcpy(a.dst_mac, tx->node_mac[node], 6);
    memcpy(a.src_mac, tx->node_port_mac[node], 6);
    struct ebf_event_hdr eh = {
        .n_sources = tx->n_sources, .sfc_id = tx->sfc_id,
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
        bytes += h->pkt_len;
    }
    return bytes;
}

void sfc_tx_event(struct sfc_tx *tx, struct sfc_evtab *tab, uint32_t slot, uint16_t node,
                  struct sfc_tx_sent *out)
{
    struct sfc_txq *q = &tx->q[tx->node_txq[node]];
    const struct sfc_event *e = sfc_evtab_event(tab, slot);
    struct rte_mbuf **pkt = q->pkt + q->n;
    uint16_t pieces[SFC_TXQ_SIZE];
    int nf = chain_pieces(tx, tab, e, pkt, pieces);

    out->frames = 0;
    out->clone_fail = nf < 0;
    out->bytes = 0;
    if (nf < 0)
        return;
    if (nf == 0) {               /* timed out with no complete source */
        struct rte_mbuf *h = frame_start(tx);
        if (!h)
            return;
        pkt[nf] = h;
        pieces[nf++] = 0;
    }
    out->bytes = write_headers(tx, e, node, pkt, pieces, (uint16_t)nf);
    out->frames = (uint16_t)nf;
    q->n = (uint16_t)(q->n + nf);
}

unsigned sfc_tx_flush(struct sfc_tx *tx, uint64_t *refused)
{
    unsigned work = 0;

    for (uint16_t i = 0; i < tx->n_txq; i++) {
        struct sfc_txq *q = &tx->q[i];
        if (q->n == 0)
            continue;
        uint16_t k = rte_eth_tx_burst(q->port, q->queue, q->pkt, q->n);
        if (k < q->n)
            memmove(q->pkt, q->pkt + k, (size_t)(q->n - k) * sizeof(q->pkt[0]));
        /* tx.refused: each frame once, at the first try the port refused
         * it; the first `refused` frames of the queue were counted before. */
        uint16_t counted = q->refused > k ? (uint16_t)(q->refused - k) : 0;
        q->n = (uint16_t)(q->n - k);
        *refused += (uint64_t)(q->n - counted);
        q->refused = q->n;
        work += k;
    }
    return work;
}

void sfc_tx_purge(struct sfc_tx *tx, uint16_t node)
{
    struct sfc_txq *q = &tx->q[tx->node_txq[node]];
    uint16_t k = 0, refused = 0;

    for (uint16_t i = 0; i < q->n; i++) {
        struct rte_mbuf *m = q->pkt[i];
        if (memcmp(rte_pktmbuf_mtod(m, const uint8_t *), tx->node_mac[node], 6) == 0) {
            rte_pktmbuf_free(m);
        } else {
            refused += i < q->refused;      /* counted as refused before: stays so */
            q->pkt[k++] = m;
        }
    }
    q->n = k;
    q->refused = refused;
}

/* --- Throttle frames ------------------------------------------------------- */

void sfc_tx_throttle(struct sfc_tx *tx, const uint8_t *src_mac, struct ebf_throttle_hdr h,
                     const struct sfc_ro_dest *d, unsigned n, struct sfc_tx_throttled *out)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    int on = h.on;

    memset(out, 0, sizeof(*out));
    memcpy(a.src_mac, src_mac, 6);
    for (unsigned i = 0; i < n; i++) {
        struct rte_mbuf *m = rte_pktmbuf_alloc(tx->hdr_pool);
        uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_THROTTLE_LEN)
                       : NULL;
        if (!p) {
            rte_pktmbuf_free(m);
            out->fail++;
            continue;
        }
        memcpy(a.dst_mac, d[i].mac, 6);
        h.on = d[i].on;
        out->spared += on && !h.on;
        ebf_encap_write(p, &a, EBF_THROTTLE_LEN);
        ebf_throttle_write(p + EBF_ETH_HLEN, &h);
        if (rte_eth_tx_burst(d[i].port, 0, &m, 1) != 1) {
            rte_pktmbuf_free(m);
            out->fail++;
            continue;
        }
        out->frames++;
    }
}
