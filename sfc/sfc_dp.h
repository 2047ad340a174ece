/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.h - the SFC data plane: receive, build, dispatch on credit, hold until acked. */
#ifndef SFC_DP_H
#define SFC_DP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "ebf_idle.h"
#include "ebf_proto.h"
#include "sfc_stats.h"

#define SFC_MAX_READOUTS 16      /* readout MACs: --readout-mac, or learned for throttle frames */
#define SFC_WORKERS_MAX 16       /* data planes of one SFC, an lcore each (--workers) */

/* Worker w's MAC: the SFC's with w added to its fourth byte, as the
 * readouts address worker w (the farm file's ff_worker_mac). */
static inline void sfc_worker_mac(const uint8_t mac[6], uint16_t w, uint8_t out[6])
{
    for (int i = 0; i < 6; i++)
        out[i] = mac[i];
    out[3] = (uint8_t)(mac[3] + w);
}

struct sfc_share;                /* what the data planes of one SFC share (sfc_workers.c) */
struct sfc_dist;                 /* a port the workers share (sfc_dist.h) */

/* The SFC's payload-CRC policy. The nodes check every piece end to end
 * whatever the SFC does, so a corrupted frame the SFC lets through is still
 * counted, by the node (and its ack's status), under its reason. */
enum sfc_verify {
    SFC_VERIFY_FULL = 0,         /* every fragment frame */
    SFC_VERIFY_SAMPLED,          /* the first and then every verify_every-th frame of each source */
    SFC_VERIFY_NONE,             /* none: headers only */
};

struct sfc_node_conf {
    uint16_t port;
    uint8_t mac[6];
};

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
    uint8_t verify;              /* enum sfc_verify: which fragment CRCs are checked */
    uint32_t verify_every;       /* SFC_VERIFY_SAMPLED: every Nth frame of each source */
    struct rte_mempool *hdr_pool;    /* event frame headers */
    struct rte_mempool *clone_pool;  /* indirect mbufs: zero-copy payload */
    struct ebf_idle idle;
    double drain_quiet_ms;       /* at stop: input idle this long ends intake */
    double drain_timeout_ms;     /* at stop: give up on acks after this */
    double node_timeout_ms;      /* a node silent this long is dead; 0: never */
    double throttle_on;          /* throttle the readouts at this fill (0.75) */
    double throttle_off;         /* and release them at this fill (0.5) */
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
};

struct sfc_dp;

/*
 * The SFC sends every event frame as a chain of mbufs (a header mbuf, then
 * the received fragments, not copied): each node port must offer
 * multi-segment transmit (ebf_port_start enables it when offered) and take as many segments per frame as an event frame of
 * conf->mtu can have. Returns 0, or -1 with err naming the port, what it
 * lacks and what is needed.
 */
int sfc_dp_check_node_ports(const struct sfc_conf *conf, char *err, size_t len);

/* Create the data plane (event table, credit scheduler, tx buffers); NULL
 * with errno set (ENOTSUP, logged: a node port failed
 * sfc_dp_check_node_ports). Ports must be started by the caller. */
struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf);
void sfc_dp_destroy(struct sfc_dp *dp);

/*
 * One pass of the poll loop: credits and acks, intake (unless back-pressure
 * holds it), timeouts, dispatch, transmit. Returns the work done (0: idle).
 */
unsigned sfc_dp_poll(struct sfc_dp *dp, int intake);

/*
 * Run until *stop, then drain: take input until it has been quiet for
 * drain_quiet_ms, time out what is still building, dispatch and wait for
 * acks up to drain_timeout_ms; whatever is left is lost with its reason.
 */
void sfc_dp_run(struct sfc_dp *dp, const volatile sig_atomic_t *stop);

/*
 * The drain as steps, for a caller that must keep answering requests:
 * begin, then call drain_poll until *done. Same stages as sfc_dp_run.
 */
void sfc_dp_drain_begin(struct sfc_dp *dp);
unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done);

void sfc_dp_gauges(const struct sfc_dp *dp, struct sfc_gauges *g);

const struct sfc_stats *sfc_dp_stats(const struct sfc_dp *dp);

#endif /* SFC_DP_H */
