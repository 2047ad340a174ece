/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_kernel.h - the kernel reference: the same frame sizes and rates as UDP through kernel sockets. */
#ifndef LB_KERNEL_H
#define LB_KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "lb_report.h"
#include "lb_search.h"

/*
 * For --compare-kernel: a UDP sender socket in the TX network namespace and
 * a receiver socket in the RX one (a veth cable), so frames cross the same
 * cable through the kernel stack. A UDP payload of frame_size - 46 bytes
 * makes Ethernet frames of frame_size bytes with the FCS; it carries the
 * trial id, a sequence number and a CLOCK_MONOTONIC stamp, and the receiver
 * accounts it with lb_seq exactly like the DPDK receiver. The sender paces
 * on the same absolute schedule (lb_sched, in nanoseconds) with the same
 * bursts and hold as the DPDK sender, one sendmmsg() per burst, sleeping
 * (1 ns timer slack) until shortly before a send and spinning the rest; it
 * measures the time it lost its CPU (stall_ms, reason tx_preempted) and
 * runs such a trial again up to retries times. The receiver is a thread on
 * recvmmsg(). Control thread code, no DPDK.
 */

struct lb_kernel {
    int tx_fd, rx_fd;
    uint32_t dst_ip;             /* host order */
    uint16_t port;
    unsigned frame_size;
    double trial_s, tolerance, drain_s;
    unsigned burst;              /* frames per sendmmsg(), 1..64 (--burst) */
    double hold_us;              /* a due frame waits this for its burst (--tx-hold) */
    unsigned retries;            /* attempts after a tx_preempted one (--retries) */
    int poisson;
    uint64_t seed;
    FILE *live;
    const volatile int *stop;
    const char *mode;
    struct lb_report *report;
    uint32_t next_trial;
    int last_trial;
};

/*
 * Open the sockets: the sender in network namespace tx_netns, the receiver
 * bound to port in rx_netns (NULL or "" for the current one). Returns 0, or
 * -errno with a message on stderr naming what failed.
 */
int lb_kernel_open(struct lb_kernel *k, const char *tx_netns, const char *rx_netns);
void lb_kernel_close(struct lb_kernel *k);

/* lb_trial_fn over the kernel sockets; records the trial as path "kernel". */
int lb_kernel_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out);

#endif /* LB_KERNEL_H */
