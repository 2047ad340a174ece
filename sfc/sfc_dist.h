/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dist.h - workers on a shared port: worker 0's lcore receives it and hands each frame to its owner worker over a ring. */
#ifndef SFC_DIST_H
#define SFC_DIST_H

#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "sfc_conf.h"

#define SFC_DIST_RING_DEFAULT 1024   /* frames a ring to one worker holds */

/*
 * One port shared by the W workers of an SFC (sfc_workers.h): the readout
 * port when there is one and W > 1, or the one node port of every node.
 * Worker 0's lcore receives the port (it is the one the run-control plug
 * polls; a separate lcore would cost an lcore more and leave worker 0's
 * own frames a hop longer) and hands every frame to its owner worker over
 * that worker's ring (single producer, single consumer, burst enqueue);
 * its own frames it keeps, with no hop. The owner of a frame:
 *
 * - readout side: the worker its destination MAC names (the readouts send
 *   worker w's events to the SFC's MAC with w added to its fourth byte);
 *   any other frame worker 0's, which counts it under its reason;
 * - node side: the worker that serves the node its source MAC is (node i
 *   to worker i % W); a stranger's frame worker 0's.
 *
 * While any ring has less room than one receive burst, the port is not
 * read (dist.held): the link backs up, as for one data plane whose table
 * is full, and nothing is lost (an event none of whose frames arrived
 * would be missing from the ledger). So a ring overflows only when it is
 * smaller than a burst (dist_ring below --burst, tests only): the rest of
 * the burst is dropped under rx.drop dist_ring_full, counted with
 * rx.frames by worker 0. Frames handed over are counted by their owner
 * (rx.frames) and by worker 0 (dist.handed). The shared port goes at the
 * pace of its slowest worker.
 *
 * Transmit on a shared node port: worker w on tx queue w (the port is
 * configured with W tx queues, and with as many rx queues as the device
 * offers up to W, all read by worker 0). On a shared readout port only worker 0
 * transmits (throttle frames for all: the throttle is on while any
 * worker wants it).
 */
enum sfc_dist_kind { SFC_DIST_READOUT, SFC_DIST_NODES };

struct sfc_dist {
    uint16_t port;
    uint16_t n;                  /* workers */
    uint16_t n_rxq;              /* rx queues the port was started with: each is read */
    uint32_t room;               /* a ring with less free room holds the port: a burst,
                                  * or the whole ring when it is smaller */
    uint8_t kind;                /* enum sfc_dist_kind */
    uint8_t mac[6];              /* readout side: worker 0's MAC */
    uint16_t n_nodes;            /* node side: the nodes on the port */
    uint8_t owner[SFC_MAX_NODES];
    uint8_t node_mac[SFC_MAX_NODES][6];
    volatile int feed_done;      /* worker 0 has stopped reading the port (drain) */
    struct rte_ring *ring[SFC_WORKERS_MAX];     /* [w], w >= 1: to worker w */
};

/* The shared side of conf (its workers > 1) on port: NULL with errno set
 * (ENOMEM). ring_size: frames per ring (0: SFC_DIST_RING_DEFAULT). */
struct sfc_dist *sfc_dist_create(const struct sfc_conf *conf, enum sfc_dist_kind kind,
                                 uint16_t port, uint32_t ring_size);
/* Frees the rings and the frames still in them. */
void sfc_dist_destroy(struct sfc_dist *d);

/* Whether port can give W workers a tx queue each: 0, or -1 with err naming
 * the port, the queues it offers (or was started with) and the W it
 * needs. */
int sfc_dist_check_txq(uint16_t port, uint16_t workers, char *err, size_t len);

/* The rx queues to start a shared node port of W workers with: as many
 * as it has tx queues when the device offers them (net_af_packet with
 * qpairs spreads its input over every queue pair's socket: each is read),
 * else 1. */
uint16_t sfc_dist_rxqs(uint16_t port, uint16_t workers);

/* Let worker w's MAC (mac + w in its fourth byte, w >= 1) through the port's
 * filter: a MAC address each, else promiscuous; virtual ports need
 * neither. */
void sfc_dist_macs(const struct sfc_dist *d);

/* What worker 0's receive of a shared port did, for its counters. */
struct sfc_dist_counts {
    uint32_t handed;             /* frames handed to other workers (dist.handed) */
    uint32_t held;               /* 1: not read, a ring was full (dist.held) */
    uint32_t ring_full;          /* frames dropped, their ring full (rx.drop dist_ring_full) */
    uint64_t ring_full_bytes;    /* their bytes (they count as received: rx.frames, rx.bytes) */
};

/* Frames for worker w: worker 0 receives the port, keeps its own in pkts
 * and hands the others over; worker w >= 1 takes its ring. What it did in
 * k (zeroed first). Returns the frames in pkts. */
uint16_t sfc_dist_take(struct sfc_dist *d, uint16_t w, struct rte_mbuf **pkts, uint16_t max,
                       struct sfc_dist_counts *k);

/* At the stop, worker w >= 1: the frames still in its ring, which its
 * table could not take, freed. Returns how many (rx.drop dist_left), their
 * bytes in *bytes. */
unsigned sfc_dist_flush(struct sfc_dist *d, uint16_t w, uint64_t *bytes);

/* Worker 0 no longer reads the port (the drain): the rings get no more. */
static inline void sfc_dist_feed_end(struct sfc_dist *d)
{
    d->feed_done = 1;
}

static inline int sfc_dist_fed(const struct sfc_dist *d)
{
    return d->feed_done;
}

/* Frames still in worker w's ring. */
unsigned sfc_dist_pending(const struct sfc_dist *d, uint16_t w);

#endif /* SFC_DIST_H */
