/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_conf.h - what one SFC data plane is configured with: ports, nodes, limits, pools, workers. */
#ifndef SFC_CONF_H
#define SFC_CONF_H

#include <stdint.h>

#include "ebf_idle.h"
#include "ebf_proto.h"
#include "sfc_guard.h"
#include "sfc_nodes.h"
#include "sfc_stats.h"
#include "sfc_throttle.h"

#define SFC_BURST_MAX 64         /* frames per receive burst (--burst) */

struct rte_mempool;

/* Worker w's MAC: the SFC's with w added to its fourth byte, as the
 * readouts address worker w (the farm file's ff_worker_mac). */
static inline void sfc_worker_mac(const uint8_t mac[6], uint16_t w, uint8_t out[6])
{
    for (int i = 0; i < 6; i++)
        out[i] = mac[i];
    out[3] = (uint8_t)(mac[3] + w);
}

struct sfc_dist;                 /* a port the workers share (sfc_dist.h) */
struct rte_ring;

/* A replay end (docs/protocol.md 13.4.1) that worker 0 took, as it hands
 * it to the other workers (sfc_dp_replay.c): the dead place, the first id
 * routed around it, the sources the end speaks for (bit s of src[s / 64]). */
struct sfc_end_rec {
    uint64_t low;
    uint64_t src[EBF_MAX_SOURCES / 64];
    uint16_t place;
    uint16_t pad[3];
};

#define SFC_END_RING 256         /* replay ends a worker's ring holds */

struct sfc_conf {
    uint16_t sfc_id;
    uint16_t rx_port;            /* readout-facing port */
    uint16_t n_more_rx;          /* further readout-facing ports (a memif link per readout) */
    uint16_t more_rx[SFC_MAX_READOUTS];
    uint8_t mac[6];              /* ours on rx_port; all zero: the port's */
    uint16_t n_sources;
    uint16_t udp_port;           /* UDP encapsulated fragments */
    uint16_t n_nodes;
    struct sfc_node_conf node[SFC_MAX_NODES];
    uint16_t n_readouts;         /* 0: fragments from any MAC, throttle whoever sent */
    uint8_t readout_mac[SFC_MAX_READOUTS][6];   /* the only sources of fragments */
    uint32_t capacity;           /* events held at once */
    uint32_t max_frames;         /* frame records (<= rx mbufs) */
    uint32_t max_credits;        /* credits + in-flight per node */
    double timeout_ms;           /* building -> incomplete */
    uint16_t mtu;
    uint16_t burst;
    uint32_t max_event;          /* fragment bytes of one event at most; 0: no limit */
    uint8_t verify;              /* enum sfc_verify: which fragment CRCs are checked */
    uint32_t verify_every;       /* SFC_VERIFY_SAMPLED: every Nth frame of each source */
    struct rte_mempool *hdr_pool;    /* headers of event frames a piece cannot head; throttle frames */
    struct rte_mempool *clone_pool;  /* indirect mbufs: zero-copy payload */
    struct ebf_idle idle;
    double drain_quiet_ms;       /* at stop: input idle this long ends intake */
    double drain_timeout_ms;     /* at stop: give up on acks after this */
    double node_timeout_ms;      /* a node silent this long is dead; 0: never */
    double throttle_on;          /* throttle the readouts at this fill (0.75) */
    double throttle_off;         /* and release them at this fill (0.5) */
    uint32_t release_ms;         /* a release frame to each readout this often; 0: none
                                  * (failover off, the default) */
    uint32_t sfc_dead_ms;        /* the readouts' detection bound (13.4): the fence
                                  * comes at it less two release periods; 0: 100 */
    uint64_t join_at;            /* a restarted SFC's join id, announced for 1 s from the
                                  * run's first release round; 0: none */
    /* Workers (sfc_workers.h): W data planes of one SFC, each on its own
     * readout ports and node ports. The command line's conf has workers
     * (0 or 1: one data plane, as before); each worker's conf also says
     * which it is, the nodes it serves and what it shares with the others. */
    uint16_t workers;
    uint16_t worker;             /* this data plane's place, 0 .. workers - 1 */
    uint64_t node_mask;          /* bit i: this data plane serves node i; 0: every node */
    struct sfc_share *share;     /* NULL: a data plane alone */
    /* Shared ports (sfc_dist.h): the readout port (rx_port) and the node
     * port that all workers use, NULL when each worker has its own. */
    struct sfc_dist *ro_dist, *node_dist;
    uint32_t dist_ring;          /* frames per distribution ring (0: 1024) */
    /* Replay ends worker 0 takes, handed to worker w (w >= 1) over
     * end_ring[w] (single producer, single consumer, SFC_END_RING
     * records of struct sfc_end_rec); NULL: a data plane alone. */
    struct rte_ring *end_ring[SFC_WORKERS_MAX];
};

#endif /* SFC_CONF_H */
