/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_tx.h - the SFC's transmit: a queue per node port, events as zero-copy chains of the received frames, throttle frames to the readouts. */
#ifndef SFC_TX_H
#define SFC_TX_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ebf_param.h"
#include "sfc_conf.h"
#include "sfc_evtab.h"

#define SFC_TXQ_SIZE 1024
/* An event of at most this many frames is queued whole (with room for one
 * more frame); a larger one goes out over as many polls as it needs, one
 * at a time per port, its node's credit held from its first frame. */
_Static_assert(SFC_TXQ_SIZE - 1 >= EBF_EVENT_QUEUE_FRAMES, "an event of "
               "EBF_EVENT_QUEUE_FRAMES frames must fit the queue toward a node");

/* A large event part sent: where its next frame starts. */
struct sfc_tx_big {
    uint64_t event_id;
    uint32_t slot;               /* SFC_NONE: no large event in progress */
    uint32_t next_rec;           /* the record the next frame starts with */
    uint16_t node;
    uint16_t next_index, frame_count;
};

/* Frames waiting for one port to take them. */
struct sfc_txq {
    uint16_t port;
    uint16_t queue;              /* the port's tx queue: the worker's on a shared port, else 0 */
    uint16_t n;
    uint16_t refused;            /* the first this many were refused (and counted) before */
    struct sfc_tx_big big;       /* the large event going out on this port, if any */
    struct rte_mbuf *pkt[SFC_TXQ_SIZE];
};

/* One data plane's transmit side; one lcore only. */
struct sfc_tx {
    struct sfc_txq *q;           /* one per distinct node port of the nodes served */
    uint16_t n_txq;
    uint16_t mtu, n_sources, sfc_id;
    struct rte_mempool *hdr_pool, *clone_pool;
    uint16_t node_txq[SFC_MAX_NODES];   /* node i's queue */
    uint64_t txq_nodes[SFC_MAX_NODES];  /* per queue: bit i for node i on its port */
    uint8_t node_mac[SFC_MAX_NODES][6];
    uint8_t node_port_mac[SFC_MAX_NODES][6];    /* our MAC on each node's port */
};

/* What sending one event (or the next part of large ones) did. */
struct sfc_tx_sent {
    uint16_t frames;             /* event frames queued (0: a pool ran dry, nothing queued) */
    uint16_t clone_fail;         /* 1 when the clone pool ran dry */
    uint16_t started;            /* 1: the event is sent (whole, or its first part queued) */
    uint64_t bytes;              /* bytes of the frames queued */
};

/* What the throttle frames of one step did. */
struct sfc_tx_throttled {
    uint32_t frames, fail, spared;
};

/* Whether every node port of c takes multi-segment frames of c->mtu: 0,
 * or -1 with err naming the port, what it lacks and what is needed. */
int sfc_tx_check_ports(const struct sfc_conf *c, char *err, size_t len);

/* A queue per distinct port of the nodes c serves (node_mask), on a
 * shared node port (shared_port; UINT32_MAX: none) the worker's tx queue;
 * each node's queue and our MAC
 * on its port. 0, or -ENOMEM. */
int sfc_tx_init(struct sfc_tx *tx, const struct sfc_conf *c, uint32_t shared_port);
/* Frees the frames still queued and the queues. */
void sfc_tx_fini(struct sfc_tx *tx);

/*
 * A received frame m the table is to keep, trimmed to its fragment header
 * and piece (the hlen bytes of headers before it dropped, and any padding
 * after the piece): what its event frame chains, so that the table keeps
 * it with data offset 0 and sfc_tx_event chains m itself (or, while m is
 * still in an earlier chain, a clone). m has one segment (intake drops the
 * others) and its piece passed ebf_frag_parse on the bytes after hlen, so
 * lies within m.
 */
static inline void sfc_tx_keep(struct rte_mbuf *m, uint16_t hlen, uint16_t piece_len)
{
    m->data_off = (uint16_t)(m->data_off + hlen);
    m->data_len = (uint16_t)(EBF_FRAG_HLEN + piece_len);
    m->pkt_len = m->data_len;
}

/*
 * Queue the frames of event slot of tab for node: chains of the received
 * frames themselves (kept by sfc_tx_keep; refcnt raised to 2, the table's
 * and the chain's), each frame's Ethernet and event headers in the
 * headroom of its first piece's frame, or, for a piece whose frame is
 * still in an earlier chain in flight (a redispatch), an indirect clone
 * (behind a header mbuf when it is a frame's first): no payload byte
 * copied, a new frame whenever the next piece would pass the MTU. An event that fits the
 * queue is queued whole; a larger one (sfc_tx_room let it in) becomes the
 * port's large event: as many of its frames as fit now, the rest by
 * sfc_tx_resume on later polls. out->started 1 when the event is sent
 * (the caller marks it SENT and spends the credit); 0 when a pool ran dry
 * (nothing queued, the event stays READY). The table keeps an event within
 * SFC_EVENT_RECS_MAX records, so within the 65,535 frames of frame_count.
 */
void sfc_tx_event(struct sfc_tx *tx, struct sfc_evtab *tab, uint32_t slot, uint16_t node,
                  struct sfc_tx_sent *out);

/* Queue the next frames of each port's large event, as many as fit; a
 * large event whose slot no longer holds it SENT to its node (taken back,
 * released) is forgotten. out: the frames and bytes queued. */
void sfc_tx_resume(struct sfc_tx *tx, struct sfc_evtab *tab, struct sfc_tx_sent *out);

/* Hand each queue to its port; what a port refuses stays queued. Returns
 * the frames sent; *refused += frames refused for the first time. */
unsigned sfc_tx_flush(struct sfc_tx *tx, uint64_t *refused);

/* Free the frames still queued for node (it is gone); the other nodes of
 * its port keep theirs, in order. */
void sfc_tx_purge(struct sfc_tx *tx, uint16_t node);

/* Throttle frame h from src_mac to each of the n readouts of d, on its
 * port, with d[i].on; what the port refuses is freed and counted. */
void sfc_tx_throttle(struct sfc_tx *tx, const uint8_t *src_mac, struct ebf_throttle_hdr h,
                     const struct sfc_ro_dest *d, unsigned n, struct sfc_tx_throttled *out);

/* Whether node's queue has room for an event of at most n_frames frames:
 * room for all of them (and one more), or, for an event larger than the
 * queue, no other large event going out on the port. */
static inline int sfc_tx_room(const struct sfc_tx *tx, uint16_t node, uint32_t n_frames)
{
    const struct sfc_txq *q = &tx->q[tx->node_txq[node]];

    if (n_frames + 1 > SFC_TXQ_SIZE)
        return q->big.slot == SFC_NONE;
    return (uint32_t)q->n + n_frames + 1 <= SFC_TXQ_SIZE;
}

/* The nodes on node's port (bit i: node i). */
static inline uint64_t sfc_tx_port_nodes(const struct sfc_tx *tx, uint16_t node)
{
    return tx->txq_nodes[tx->node_txq[node]];
}

#endif /* SFC_TX_H */
