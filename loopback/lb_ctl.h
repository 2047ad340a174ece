/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_ctl.h - the receiver's trial summary and the control connection between a TX and an RX process. */
#ifndef LB_CTL_H
#define LB_CTL_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_hist.h"
#include "lb_reason.h"
#include "lb_seq.h"

/*
 * When the TX and RX ports are in two processes (a memif pair, or a cable
 * between two hosts), the TX side drives the trials and the RX side serves
 * them over one stream connection: a UNIX socket path, or tcp:HOST:PORT.
 * Line protocol, one request and one reply at a time:
 *   hello                 -> hello <rx driver> <tsc hz>
 *   start <trial> <streams> -> ok
 *   peek                  -> live <unique> <lost so far> <p99 cycles>
 *   stop <sent0> [<sent1> ...] -> the summary as "key value" lines, then "end"
 *   quit                  -> bye
 * Control thread only; never on the fast path.
 */

/* What the receiver found in one trial, summed over streams. */
struct lb_rx_sum {
    uint64_t rx, unique, lost, dup, reordered, late, bursts, max_burst;
    uint64_t drop[LB_RX_DROP_MAX];
    uint64_t lat_invalid;
    uint64_t imissed, rx_nombuf, ierrors;    /* RX port counter deltas */
    uint64_t first_tsc;
    uint64_t loop_p99;                       /* cycles */
    unsigned n_bursts;
    struct lb_burst burst[8];
    struct ebf_hist lat;                     /* cycles */
};

/* Sum per-stream accounting into s (counts and the first bursts). */
void lb_rx_sum_streams(struct lb_rx_sum *s, const struct lb_seq *seq, unsigned streams);

void lb_rx_sum_write(FILE *f, const struct lb_rx_sum *s);

/* Read lines up to "end"; returns 0 or -EPROTO. */
int lb_rx_sum_read(FILE *f, struct lb_rx_sum *s);

/* Listen on addr (a path, or tcp:HOST:PORT) and accept one connection.
 * Returns the connected fd or -errno. */
int lb_ctl_accept(const char *addr, unsigned timeout_ms);

/* Connect to addr, retrying until timeout_ms. Returns the fd or -errno. */
int lb_ctl_connect(const char *addr, unsigned timeout_ms);

/* Whether addr is a UNIX socket (same host: one TSC). */
int lb_ctl_is_local(const char *addr);

#endif /* LB_CTL_H */
