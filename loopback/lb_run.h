/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_run.h - one loopback trial over DPDK ports: start the receiver, send, drain, stop, record. */
#ifndef LB_RUN_H
#define LB_RUN_H

#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "ebf_idle.h"
#include "lb_ctl.h"
#include "lb_dp.h"
#include "lb_report.h"
#include "lb_search.h"

/*
 * Called from the main lcore only. The RX side is either a local struct
 * lb_rx whose lcore runs lb_rx_loop(), or a control connection to an RX
 * process (lb_ctl.h) that serves the same commands.
 */
struct lb_runner {
    uint16_t tx_port, rx_port;   /* rx_port unused with a remote receiver */
    struct rte_mempool *tx_pool;
    unsigned queues;             /* TX and RX queues, an lcore each; 0 means 1 */
    unsigned tx_lcore[LB_MAX_QUEUES];
    struct lb_rx *rx;            /* local receiver (of queue 0), or NULL */
    struct lb_rx *rxq[LB_MAX_QUEUES];   /* local receivers of every queue (rxq[0] = rx) */
    FILE *ctl;                   /* remote receiver, or NULL */
    int latency_valid;           /* both ends share one TSC */
    uint8_t src_mac[6], dst_mac[6];
    uint16_t burst, streams;
    double hold_us;              /* lb_tx_conf.hold_us */
    unsigned retries;            /* --retries: attempts after a tx_preempted one */
    double trial_s, tolerance, drain_s;
    int poisson;
    uint64_t seed;
    enum ebf_idle_mode idle;
    FILE *live;                  /* live lines, or NULL */
    const volatile int *stop;
    /* what the next trials are for */
    unsigned frame_size;
    const char *mode;
    struct lb_report *report;
    uint64_t next_trial_id;
    int last_trial;              /* report index of the last trial */
};

/* lb_trial_fn over DPDK: run one trial, add its record to the report. A
 * trial invalid because the sender lost its CPU (tx_preempted) says nothing
 * about the link: it is run again, up to retries times, each attempt kept
 * in the report (the ones given up marked retried); the search sees the
 * last. */
int lb_run_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out);

/* Summarise a local receiver's trial (after LB_RX_STOP) and its port's
 * counter deltas. */
void lb_run_rx_sum(const struct lb_rx *rx, const struct rte_eth_stats *before,
                   const struct rte_eth_stats *after, struct lb_rx_sum *s);

/* Serve a TX process over fd until it says quit: the RX role's main loop. */
int lb_run_serve(struct lb_rx *rx, int fd, const char *driver);

/* Cost of one rte_rdtsc() in cycles: the least of many back-to-back pairs. */
uint64_t lb_tsc_read_cycles(void);

#endif /* LB_RUN_H */
