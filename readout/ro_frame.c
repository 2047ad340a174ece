/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_frame.c - the frames of a fragment: sizes, pieces, headers and payload, and the fast path's setup. */
#include "ro_frame.h"

#include <errno.h>
#include <string.h>

#include "ebf_mix.h"
#include "ebf_param.h"

uint32_t ro_max_piece(const struct ro_conf *c)
{
    return ebf_piece_max(c->encap, c->mtu);     /* as the checks of fragment sizes count */
}

uint32_t ro_frag_size(const struct ro_conf *c, uint16_t source, uint64_t event_id)
{
    if (c->size_dist == RO_SIZE_LOGNORMAL)
        return ro_size_lognormal(c->seed, source, event_id, c->size_mu, c->size_sigma,
                                 c->size_min, c->size_max);
    if (c->size_max <= c->size_min)
        return c->size_min;
    uint64_t r = ebf_mix64(c->seed ^ ebf_mix64(event_id) ^ ((uint64_t)source << 40));
    return c->size_min + (uint32_t)(r % ((uint64_t)c->size_max - c->size_min + 1));
}

/* The payload and header of the piece h of local source s into frame m at
 * frag. Per event: filled and checksummed in one pass. Prebuilt: the bytes
 * are copied unless m holds them already (its tag, when g->tags), the
 * header's CRC combined with theirs. */
static inline void put_piece(struct ro_gen *g, struct rte_mbuf *m, uint8_t *frag,
                             struct ebf_frag_hdr *h, uint16_t s)
{
    if (g->tags) {
        uint64_t *tag = rte_mbuf_to_priv(m), want = ro_payload_tag(&g->pay, h, s);
        if (*tag != want) {
            ro_payload_copy(&g->pay, frag, h, s);
            *tag = want;
        }
        ro_payload_header(&g->pay, frag, h, s);
        return;
    }
    if (g->tag_pool)
        ro_tag_clear(m);        /* its bytes are this frame's, maybe changed on the way */
    if (g->c->payload == RO_PAYLOAD_PREBUILT)
        ro_payload_write(&g->pay, frag, h, s);
    else
        ebf_frag_write_pattern(frag, h);
}

/* The addresses of a UDP frame toward SFC sfc. */
static void frame_addr(const struct ro_conf *c, uint16_t sfc, struct ebf_addr *a)
{
    memset(a, 0, sizeof(*a));
    a->encap = c->encap;
    a->udp_port = c->udp_port;
    a->src_ip = c->src_ip;
    a->dst_ip = c->sfc_ip[sfc];
    memcpy(a->src_mac, c->src_mac, 6);
    memcpy(a->dst_mac, c->sfc_mac[sfc], 6);
}

/* A fresh mbuf with flen bytes of data at *p (one segment: no walk to the
 * last one as rte_pktmbuf_append does); when the pool is out, the queue
 * is pushed and the mbuf asked for again. 0, -ENOMEM, -EMSGSIZE (no room:
 * counted in tx_no_room) or -EINTR from the flush. */
static int frame_take(struct ro_gen *g, const volatile sig_atomic_t *force, size_t flen,
                      struct rte_mbuf **mp, uint8_t **p)
{
    struct rte_mbuf *m = ro_frame_mbuf(g);

    if (!m) {
        /* Every mbuf is queued or in the driver: push and retry. */
        int rc = g->q.n ? ro_link_flush(g, force) : 0;
        if (rc)
            return rc;
        m = ro_frame_mbuf(g);
        if (!m)
            return -ENOMEM;
    }
    if (flen > rte_pktmbuf_tailroom(m)) {
        rte_pktmbuf_free(m);
        g->st->tx_no_room++;
        return -EMSGSIZE;
    }
    *p = rte_pktmbuf_mtod(m, uint8_t *);
    m->data_len = (uint16_t)(m->pkt_len = (uint32_t)flen);
    *mp = m;
    return 0;
}

int ro_frame_emit(struct ro_gen *g, const volatile sig_atomic_t *force, uint16_t s, uint64_t e,
                  uint16_t sfc, uint64_t now_ns)
{
    uint16_t source = (uint16_t)(g->c->source_base + s);
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    struct ro_txq *q = &g->q;
    uint32_t len = ro_frag_size(c, source, e), max_piece = g->max_piece;
    struct ebf_addr a;
    size_t hlen = g->hlen;

    g->q_sfc = sfc;
    if (c->encap != EBF_ENCAP_ETH)     /* raw Ethernet copies eth_hdr[sfc] instead */
        frame_addr(c, sfc, &a);
    for (uint32_t off = 0; off < len;) {
        uint16_t piece = (uint16_t)(len - off < max_piece ? len - off : max_piece);
        size_t flen = hlen + EBF_FRAG_HLEN + piece;
        struct rte_mbuf *m;
        uint8_t *p;
        int rc = frame_take(g, force, flen, &m, &p);
        if (rc)
            return rc;
        if (c->encap == EBF_ENCAP_ETH)
            memcpy(p, g->eth_hdr[sfc], EBF_ETH_HLEN);   /* no length in it: made once */
        else
            ebf_encap_write(p, &a, EBF_FRAG_HLEN + piece);
        struct ebf_frag_hdr h = {
            .source = source, .seq = g->seq[sfc][s]++, .event_id = e, .frag_len = len,
            .offset = off, .piece_len = piece, .flags = g->frag_flags, .tx_ns = now_ns,
        };
        put_piece(g, m, p + hlen, &h, s);
        q->pkt[q->n++] = m;
        st->frames++;
        st->bytes += flen;
        st->payload_bytes += piece;
        off += piece;
        if (q->n == c->burst && (rc = ro_link_flush(g, force)))
            return rc;
    }
    return 0;
}

void ro_frame_fast_setup(struct ro_gen *g, const struct ro_conf *c)
{
    uint32_t len = c->size_min;
    size_t flen = EBF_ETH_HLEN + EBF_FRAG_HLEN + (size_t)len;
    size_t room = rte_pktmbuf_data_room_size(c->pool);

    if (!g->tags || c->encap != EBF_ENCAP_ETH || c->size_dist != RO_SIZE_UNIFORM ||
        c->size_max > c->size_min || len > g->max_piece || room < RTE_PKTMBUF_HEADROOM ||
        flen > room - RTE_PKTMBUF_HEADROOM)
        return;
    if (ro_fast_init(&g->fast, &g->pay, c->source_base, c->n_sources, len) == 0)
        g->fast_flen = (uint16_t)flen;
}
