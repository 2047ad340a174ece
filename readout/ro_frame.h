/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_frame.h - the frames of a fragment: mbufs, headers and payload; the one-frame fast path, inline. */
#ifndef RO_FRAME_H
#define RO_FRAME_H

#include <signal.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "ro_gen.h"
#include "ro_link.h"

/*
 * A fragment of one source of an event becomes frames in the generator's
 * transmit queue (g->q), flushed to the SFC's port (ro_link_flush) when
 * the queue holds a burst. ro_frame_emit builds any fragment: pieces of at
 * most g->max_piece, the encapsulation, the payload per event or prebuilt.
 * ro_frame_emit_fast, inline here so that the generator's per-event loop
 * keeps it in line, makes the one frame of a fragment that g->fast serves
 * (ro_frame_fast_setup). The generator's lcore only.
 */

/* Build the frames of local source s's fragment of event e toward SFC sfc
 * into the queue (flushing when it fills). Returns 0, -ENOMEM (no mbuf),
 * -EMSGSIZE (an mbuf without room for the frame: the pool's data room is
 * below the MTU's frame; counted in tx_no_room), or -EINTR from the
 * flush. */
int ro_frame_emit(struct ro_gen *g, const volatile sig_atomic_t *force, uint16_t s, uint64_t e,
                  uint16_t sfc, uint64_t now_ns);

/* Whether ro_frame_emit_fast may make this run's frames (g->fast.len set),
 * and its words made: the prebuilt payload kept in tagged mbufs (g->tags:
 * no fault stage), raw Ethernet, one fixed size that fits one frame and
 * the pool's mbufs. */
void ro_frame_fast_setup(struct ro_gen *g, const struct ro_conf *c);

/* One mbuf for a frame: from the spares, which are refilled a burst at a
 * time (rte_pktmbuf_alloc_bulk), else alone when the pool has fewer left.
 * NULL when the pool is empty. */
static inline __attribute__((always_inline)) struct rte_mbuf *ro_frame_mbuf(struct ro_gen *g)
{
    struct ro_txq *q = &g->q;

    if (q->n_spare == 0 && rte_pktmbuf_alloc_bulk(g->c->pool, q->spare, g->c->burst) == 0)
        q->n_spare = g->c->burst;
    if (q->n_spare)
        return q->spare[--q->n_spare];
    return rte_pktmbuf_alloc(g->c->pool);
}

/*
 * ro_frame_emit for a run that g->fast serves (ro_frame_fast_setup): the fragment
 * is one frame, its mbuf has room, the payload is prebuilt and a tag says
 * whether the mbuf holds it already; raw Ethernet. The same frame and
 * counts as ro_frame_emit, with the header's words made once per run
 * (ro_fast_write) and nothing looked up per frame that does not change.
 */
static inline int ro_frame_emit_fast(struct ro_gen *g, const volatile sig_atomic_t *force,
                                     uint16_t s, uint64_t e, uint16_t sfc, uint64_t now_ns)
{
    struct ro_txq *q = &g->q;
    struct ro_stats *st = g->st;
    struct rte_mbuf *m = ro_frame_mbuf(g);
    uint32_t len = g->fast.len;
    uint16_t flen = g->fast_flen;

    if (unlikely(!m))           /* every mbuf queued or in the driver: push and retry */
        return ro_frame_emit(g, force, s, e, sfc, now_ns);
    uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
    uint64_t *tag = rte_mbuf_to_priv(m);
    m->data_len = flen;
    m->pkt_len = flen;
    memcpy(p, g->eth_hdr[sfc], EBF_ETH_HLEN);
    if (*tag != g->fast.tag[s]) {
        struct ebf_frag_hdr h = {.offset = 0, .piece_len = (uint16_t)len};
        ro_payload_copy(&g->pay, p + EBF_ETH_HLEN, &h, s);
        *tag = g->fast.tag[s];
    }
    ro_fast_write(&g->fast, p + EBF_ETH_HLEN, s, g->seq[sfc][s]++, e, now_ns);
    g->q_sfc = sfc;
    q->pkt[q->n++] = m;
    st->frames++;
    st->bytes += flen;
    st->payload_bytes += len;
    return q->n == g->c->burst ? ro_link_flush(g, force) : 0;
}

#endif /* RO_FRAME_H */
