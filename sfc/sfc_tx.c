/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_tx.c - the SFC's transmit: node-port queues, zero-copy event frames, throttle frames. */
#include "sfc_tx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "ebf_bytes.h"

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
        tx->q[q].big.slot = SFC_NONE;
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

/* The Ethernet and event headers in front of an event frame's pieces. */
#define EV_HLEN (EBF_ETH_HLEN + EBF_EVENT_HLEN)

/* Start an event frame: header mbuf with room for Ethernet + event header. */
static struct rte_mbuf *frame_start(struct sfc_tx *tx)
{
    struct rte_mbuf *h = rte_pktmbuf_alloc(tx->hdr_pool);

    if (h && !rte_pktmbuf_append(h, EV_HLEN)) {
        rte_pktmbuf_free(h);
        h = NULL;
    }
    return h;
}

/* Where rec's piece (fragment header + piece) starts in its frame md: it
 * ends where md's data ends (sfc_tx_keep trimmed md to it), whether or not
 * an event frame's headers were put in front of it since (own_head). */
static uint16_t piece_off(const struct rte_mbuf *md, const struct sfc_frame_rec *rec)
{
    return (uint16_t)(md->data_off + md->data_len - (EBF_FRAG_HLEN + rec->piece_len));
}
/* An indirect mbuf on the piece of rec's frame (fragment header + piece:
 * piece_off). A direct frame gets the
 * fields a chained segment is sent and freed by (buffer, offsets, lengths,
 * priv_size for rte_mbuf_from_indirect, ol_flags with INDIRECT, port) on a
 * raw mbuf, which the pool hands out with refcnt 1, nb_segs 1 and no next:
 * not rte_pktmbuf_reset's dozen stores and attach's copy of the head-only
 * fields (hash, VLAN, tx_offload, dynamic fields) that a segment after the
 * head carries for nothing; any other frame goes through
 * rte_pktmbuf_attach. NULL when the clone pool ran dry. */
static struct rte_mbuf *clone_piece(struct sfc_tx *tx, const struct sfc_frame_rec *rec)
{
    struct rte_mbuf *md = rec->frame, *cl;
    uint16_t off = piece_off(md, rec);

    if (unlikely(!RTE_MBUF_DIRECT(md))) {
        cl = rte_pktmbuf_alloc(tx->clone_pool);
        if (!cl)
            return NULL;
        rte_pktmbuf_attach(cl, md);
    } else {
        cl = rte_mbuf_raw_alloc(tx->clone_pool);
        if (!cl)
            return NULL;
        rte_mbuf_refcnt_update(md, 1);
        cl->buf_addr = md->buf_addr;
        cl->buf_iova = md->buf_iova;
        cl->buf_len = md->buf_len;
        cl->priv_size = md->priv_size;
        cl->ol_flags = md->ol_flags | RTE_MBUF_F_INDIRECT;
        cl->port = md->port;
    }
    cl->data_off = off;
    cl->data_len = (uint16_t)(EBF_FRAG_HLEN + rec->piece_len);
    cl->pkt_len = cl->data_len;
    return cl;
}

/* Whether rec's frame md is the table's alone (refcnt 1) and direct: it
 * may then go out itself, in one chain (DPDK lets a segment be in one
 * chain only); else it is still in an earlier event frame's chain in
 * flight (a redispatch or a replay before the first sending was freed). */
static int own_frame(const struct rte_mbuf *md)
{
    return rte_mbuf_refcnt_read(md) == 1 && RTE_MBUF_DIRECT(md);
}

/* The table's own frame md (own_frame) as one segment of an event frame,
 * its data the off..off+len of its buffer: refcnt 2 (the table's reference
 * and the chain's, whichever is freed last returns it to its pool), next
 * cleared (a chain freed earlier leaves next and nb_segs stale:
 * rte_pktmbuf_prefree_seg resets them only on the last reference). */
static struct rte_mbuf *own_seg(struct rte_mbuf *md, uint16_t off, uint16_t len)
{
    md->data_off = off;
    md->data_len = len;
    md->pkt_len = len;
    rte_mbuf_refcnt_set(md, 2);
    md->nb_segs = 1;
    md->next = NULL;
    return md;
}

/* The segment that carries rec's piece in an event frame: the received
 * frame itself when it is the table's alone (own_frame, own_seg), its data
 * the piece again (a head's headers dropped, own_head); no mbuf is
 * allocated, no field copied. Any other frame gets a clone (clone_piece). */
static struct rte_mbuf *piece_seg(struct sfc_tx *tx, const struct sfc_frame_rec *rec)
{
    struct rte_mbuf *md = rec->frame;

    if (likely(own_frame(md)))
        return own_seg(md, piece_off(md, rec), (uint16_t)(EBF_FRAG_HLEN + rec->piece_len));
    return clone_piece(tx, rec);
}

/*
 * The head of an event frame whose first piece is rec's, with no header
 * mbuf: the received frame itself when it is the table's alone
 * (own_frame) and its headroom before the piece holds the Ethernet and
 * event headers (EV_HLEN; a received frame's headroom plus the headers
 * intake trimmed). Its data becomes headers + piece (the headers written
 * later, write_header or copy_header) by own_seg, and
 * its head-only offload fields are cleared, as rte_pktmbuf_alloc would
 * have them (a received frame's RX flags and stale tx_offload mean nothing
 * to a transmit). Nobody else reads the headroom: the table holds the
 * frame for its piece only (piece_off), and a clone for a later chain
 * points at the piece. NULL when rec's frame cannot be the head (the
 * caller allocates a header mbuf, frame_start).
 */
static struct rte_mbuf *own_head(const struct sfc_frame_rec *rec)
{
    struct rte_mbuf *md = rec->frame;
    uint16_t pb = (uint16_t)(EBF_FRAG_HLEN + rec->piece_len);
    uint32_t end = (uint32_t)md->data_off + md->data_len;

    if (unlikely(!own_frame(md) || end < (uint32_t)pb + EV_HLEN))
        return NULL;
    own_seg(md, (uint16_t)(end - pb - EV_HLEN), (uint16_t)(pb + EV_HLEN));
    md->ol_flags = 0;
    md->tx_offload = 0;
    return md;
}

/* Chain to the event frame h, after its last segment *last, the segment
 * of rec's piece (piece_seg): no payload byte is copied, and no walk of
 * the chain (O(1) per piece, where rte_pktmbuf_chain walks to the end).
 * 0, or -1 when the clone pool ran dry. */
static int chain_piece(struct sfc_tx *tx, const struct sfc_frame_rec *rec, struct rte_mbuf *h,
                       struct rte_mbuf **last)
{
    struct rte_mbuf *seg = piece_seg(tx, rec);

    if (!seg)
        return -1;
    (*last)->next = seg;
    *last = seg;
    h->nb_segs++;              /* bounded by the MTU: sfc_tx_check_ports */
    h->pkt_len += seg->data_len;
    return 0;
}

/* Does the piece of record r start a new event frame after fill bytes? */
static int new_frame(const struct sfc_tx *tx, uint32_t fill, const struct sfc_frame_rec *rec)
{
    return fill + EBF_FRAG_HLEN + rec->piece_len > tx->mtu;
}

/* The event frames of event e: the pieces packed as chain_frame packs them. */
static uint32_t count_frames(const struct sfc_tx *tx, const struct sfc_evtab *tab,
                             const struct sfc_event *e)
{
    const struct sfc_frame_rec *recs = sfc_evtab_records(tab);
    uint32_t nf = 0, fill = tx->mtu;

    for (uint32_t r = e->first_rec; r != SFC_NONE;) {
        const struct sfc_frame_rec *rec = &recs[r];
        if (new_frame(tx, fill, rec)) {
            nf++;
            fill = EBF_EVENT_HLEN;
        }
        fill += EBF_FRAG_HLEN + rec->piece_len;
        r = rec->next;
    }
    return nf;
}

/*
 * One event frame in *out: the pieces from record *r (of the table's
 * records recs, sfc_evtab_records, taken once an event) on while they fit the
 * MTU (one at least), *r advanced past them and their count in *pieces.
 * Its head is the first piece's own frame with the headers in its headroom
 * (own_head), else a header mbuf (frame_start); the other pieces chained
 * after it. 0, or -1 when a pool ran dry: nothing made, *r unchanged.
 */
static int chain_frame(struct sfc_tx *tx, const struct sfc_frame_rec *recs, uint32_t *r,
                       struct rte_mbuf **out, uint16_t *pieces)
{
    uint32_t fill = EBF_EVENT_HLEN, at = *r;
    struct rte_mbuf *h = at != SFC_NONE ? own_head(&recs[at]) : NULL, *last;
    uint16_t n = 0;

    if (h) {
        n = 1;
        fill += EBF_FRAG_HLEN + recs[at].piece_len;
        at = recs[at].next;
    } else if (!(h = frame_start(tx))) {
        return -1;
    }
    last = h;
    while (at != SFC_NONE) {
        const struct sfc_frame_rec *rec = &recs[at];
        if (n > 0 && new_frame(tx, fill, rec))
            break;
        if (chain_piece(tx, rec, h, &last)) {
            rte_pktmbuf_free(h);
            return -1;
        }
        n++;
        fill += EBF_FRAG_HLEN + rec->piece_len;
        at = rec->next;
    }
    *r = at;
    *out = h;
    *pieces = n;
    return 0;
}

/* Write the Ethernet and event headers of frame index of frame_count of
 * event e to node, with n_pieces pieces. Returns the frame's bytes. */
static uint64_t write_header(const struct sfc_tx *tx, const struct sfc_event *e, uint16_t node,
                             struct rte_mbuf *h, uint16_t index, uint16_t frame_count,
                             uint16_t n_pieces)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    uint8_t *p = rte_pktmbuf_mtod(h, uint8_t *);

    memcpy(a.dst_mac, tx->node_mac[node], 6);
    memcpy(a.src_mac, tx->node_port_mac[node], 6);
    struct ebf_event_hdr eh = {
        .n_sources = tx->n_sources, .sfc_id = tx->sfc_id,
        .flags = (e->incomplete ? EBF_EVF_INCOMPLETE : 0) |
                 (e->requeued ? EBF_EVF_REDISPATCHED : 0),
        .event_id = e->event_id,
        .frame_index = index, .frame_count = frame_count, .n_pieces = n_pieces,
        .event_bytes = e->bytes, .present = {e->present[0], e->present[1]},
    };
    ebf_encap_write(p, &a, h->pkt_len - EBF_ETH_HLEN);
    ebf_event_write(p + EBF_ETH_HLEN, &eh);
    return h->pkt_len;
}

/* Where ebf_event_write puts frame_index and n_pieces in the event header. */
#define EV_FRAME_INDEX_OFF 16
#define EV_N_PIECES_OFF 20

/* The headers of frame h, frame index of the event whose frame h0 already
 * has its headers (write_header), with n_pieces pieces: h0's copied, its
 * index and piece count rewritten (the Ethernet encapsulation carries no
 * length, and nothing else of the event header differs between its frames).
 * The bytes are write_header's. Returns the frame's bytes. */
static uint64_t copy_header(const struct rte_mbuf *h0, struct rte_mbuf *h, uint16_t index,
                            uint16_t n_pieces)
{
    uint8_t *p = rte_pktmbuf_mtod(h, uint8_t *);

    memcpy(p, rte_pktmbuf_mtod(h0, const uint8_t *), EV_HLEN);
    ebf_put_be16(p + EBF_ETH_HLEN + EV_FRAME_INDEX_OFF, index);
    ebf_put_be16(p + EBF_ETH_HLEN + EV_N_PIECES_OFF, n_pieces);
    return h->pkt_len;
}

/* Queue frames of q's large event while q has room (one slot kept free);
 * done, the port has none any more. */
static void big_step(struct sfc_tx *tx, struct sfc_evtab *tab, struct sfc_txq *q,
                     struct sfc_tx_sent *out)
{
    struct sfc_tx_big *b = &q->big;
    const struct sfc_event *e = sfc_evtab_event(tab, b->slot);

    while (b->next_index < b->frame_count && q->n + 1u < SFC_TXQ_SIZE) {
        uint16_t pieces;
        if (chain_frame(tx, sfc_evtab_records(tab), &b->next_rec, &q->pkt[q->n], &pieces)) {
            out->clone_fail = 1;
            return;              /* again on the next poll */
        }
        out->bytes += write_header(tx, e, b->node, q->pkt[q->n], b->next_index,
                                   b->frame_count, pieces);
        q->n++;
        b->next_index++;
        out->frames++;
    }
    if (b->next_index == b->frame_count)
        b->slot = SFC_NONE;
}

void sfc_tx_resume(struct sfc_tx *tx, struct sfc_evtab *tab, struct sfc_tx_sent *out)
{
    memset(out, 0, sizeof(*out));
    for (uint16_t i = 0; i < tx->n_txq; i++) {
        struct sfc_txq *q = &tx->q[i];
        if (q->big.slot == SFC_NONE)
            continue;
        const struct sfc_event *e = sfc_evtab_event(tab, q->big.slot);
        if (e->state != SFC_EV_SENT || e->node != q->big.node ||
            e->event_id != q->big.event_id) {
            q->big.slot = SFC_NONE;  /* taken back or released meanwhile */
            continue;
        }
        big_step(tx, tab, q, out);
    }
}

/* Queue all frames of event e whole (chain_frame from its first record
 * to its last: one at least, a header alone for an event of no piece;
 * the caller made sure they fit q), their headers written once their
 * count is known. 0, or -1 when a pool ran dry (nothing queued). */
static int queue_whole(struct sfc_tx *tx, struct sfc_evtab *tab, struct sfc_txq *q,
                       const struct sfc_event *e, uint16_t node, struct sfc_tx_sent *out)
{
    const struct sfc_frame_rec *recs = sfc_evtab_records(tab);
    uint16_t pieces[SFC_TXQ_SIZE];
    uint32_t r = e->first_rec;
    uint16_t nf = 0;

    do {
        if (chain_frame(tx, recs, &r, &q->pkt[q->n + nf], &pieces[nf])) {
            rte_pktmbuf_free_bulk(&q->pkt[q->n], nf);
            out->clone_fail = 1;
            return -1;
        }
        nf++;
    } while (r != SFC_NONE);
    out->bytes += write_header(tx, e, node, q->pkt[q->n], 0, nf, pieces[0]);
    for (uint16_t i = 1; i < nf; i++)
        out->bytes += copy_header(q->pkt[q->n], q->pkt[q->n + i], i, pieces[i]);
    q->n = (uint16_t)(q->n + nf);
    out->frames = nf;
    return 0;
}

/* An event's frames are at most its records (a frame carries one piece at
 * least), or one (a header alone) for an event of none: when that many
 * fit, the event is queued whole without counting its frames first
 * (count_frames walks every record, as queue_whole does again). */
void sfc_tx_event(struct sfc_tx *tx, struct sfc_evtab *tab, uint32_t slot, uint16_t node,
                  struct sfc_tx_sent *out)
{
    struct sfc_txq *q = &tx->q[tx->node_txq[node]];
    const struct sfc_event *e = sfc_evtab_event(tab, slot);
    uint32_t nf = e->n_frames ? e->n_frames : 1;

    memset(out, 0, sizeof(*out));
    if (q->n + nf + 1 > SFC_TXQ_SIZE) {
        nf = count_frames(tx, tab, e);
        nf = nf ? nf : 1;        /* timed out with no complete source: a header alone */
    }
    if (q->n + nf + 1 <= SFC_TXQ_SIZE) {
        out->started = queue_whole(tx, tab, q, e, node, out) == 0;
        return;
    }
    if (q->big.slot != SFC_NONE)
        return;                  /* sfc_tx_room: not reached */
    q->big = (struct sfc_tx_big){.event_id = e->event_id, .slot = slot,
                                 .next_rec = e->first_rec, .node = node,
                                 .frame_count = (uint16_t)nf};
    out->started = 1;
    big_step(tx, tab, q, out);
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
    if (q->big.slot != SFC_NONE && q->big.node == node)
        q->big.slot = SFC_NONE;  /* its event is taken back: sent again whole */
}
