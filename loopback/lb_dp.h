/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_dp.h - the loopback data plane: a paced TX lcore loop and an RX lcore loop that accounts every frame. */
#ifndef LB_DP_H
#define LB_DP_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "ebf_cycles.h"
#include "ebf_hist.h"
#include "ebf_idle.h"
#include "lb_reason.h"
#include "lb_seq.h"

/*
 * Frames are ebfarm fragment frames over raw Ethernet (docs/protocol.md):
 * source = stream, seq = the stream's sequence number, event_id = the trial
 * id, one piece of frame_size - 4 - 54 pattern bytes, and tx_ns carries the
 * sender's TSC at transmit (not nanoseconds): latency = receiver TSC - tx_ns,
 * valid only when both ports share a TSC (one host). The CRC32C is computed
 * after the stamp, so the farm's parser accepts the frames. With udp set
 * (--queues > 1), the fragment rides in IPv4/UDP to LB_UDP_PORT from
 * 10.201.1.(1 + stream), port LB_UDP_PORT + 1 + stream, so that a NIC's RSS
 * (or af_packet's fanout hash) puts each stream on one queue. Frames too
 * short for that (under LB_MIN_FRAME_UDP: 64 bytes hold Ethernet, the
 * fragment header and the FCS, not IPv4/UDP) carry instead an 802.1Q tag
 * with VLAN ID 1 + stream (vlan set): the kernel's flow hash, and so
 * af_packet's fanout, includes the VLAN ID; most NICs' RSS does not.
 *
 * lb_tx_run() runs on the TX lcore for one trial. struct lb_rx is owned by
 * the RX lcore running lb_rx_loop() for the whole run; other threads talk to
 * it only through lb_rx_command() and read its published live counters.
 */

#define LB_MAX_FRAME 9018            /* largest frame, FCS included */
#define LB_MIN_FRAME 64
#define LB_MAX_STREAMS 8
#define LB_BURST_MAX 64
#define LB_MAX_QUEUES 4              /* --queues: TX and RX queues, an lcore each */
#define LB_UDP_PORT 50510            /* IPv4/UDP frames (--queues > 1) go to this port */
#define LB_MIN_FRAME_UDP (14 + 28 + 40 + 4)  /* Ethernet, IPv4, UDP, fragment header, FCS */
#define LB_RX_TRIAL_SLEEP_US 50      /* --idle backoff: an idle receiver's longest sleep in a trial */

struct lb_tx_conf {
    uint16_t port;
    struct rte_mempool *pool;
    uint16_t burst;                  /* frames per tx burst, <= LB_BURST_MAX */
    double hold_us;                  /* a due frame waits up to this for its burst to fill */
    uint8_t src_mac[6], dst_mac[6];
    unsigned frame_size;             /* LB_MIN_FRAME .. LB_MAX_FRAME */
    double fps;
    uint64_t count;                  /* frames to send */
    int poisson;
    uint64_t seed;
    uint64_t trial_id;
    uint16_t streams;                /* frames go round-robin over sources */
    uint16_t stream0;                /* ... stream0 .. stream0 + streams - 1 */
    uint16_t queue;                  /* the TX queue */
    int udp;                         /* IPv4/UDP frames whose source address and port
                                      * depend on the stream: an RSS hash spreads them */
    int vlan;                        /* without udp: an 802.1Q tag, VLAN ID 1 + stream
                                      * (--queues with frames under LB_MIN_FRAME_UDP) */
    enum ebf_idle_mode idle;         /* backoff: sleep while waiting for the schedule */
    const volatile int *stop;
};

struct lb_tx_stats {
    uint64_t scheduled;              /* frames given a sequence number */
    uint64_t per_stream[LB_MAX_STREAMS];
    uint64_t accepted;               /* taken by the TX port */
    uint64_t drop[LB_TX_DROP_MAX];
    uint64_t t0, last_tsc;           /* schedule start, last tx_burst return */
    double tsc_per_frame;
    uint64_t count;                  /* frames the trial asked for */
    uint64_t stall_cycles;           /* sum of passes (or overshot waits) longer than
                                      * LB_STALL_US: the lcore was not running */
    uint64_t max_pass_cycles;        /* the longest of them */
    struct ebf_hist lag;             /* cycles a burst went out after its first frame was due */
    struct ebf_hist hold;            /* cycles from a burst's first stamp to tx_burst return */
    uint64_t live_accepted;          /* published for the live line (relaxed atomic) */
    struct ebf_cycles cycles;        /* the TX loop's passes: a burst sent (busy), a wait
                                      * for the schedule (idle) */
};

/*
 * Send c->count frames on the absolute schedule of c->fps from now, in
 * bursts: the frames due go out when c->burst of them are due, when the
 * first has waited c->hold_us, or when they are the last (one tx_burst per
 * frame would cost a system call per frame on net_af_packet). Never
 * retries a refused frame: it is counted, freed, and its number is lost at
 * the receiver (attributed to tx_refused). Returns 0, or -EINVAL for a bad
 * conf. st is reset first; st->cycles counts the trial's passes (st must be
 * cache-aligned).
 */
int lb_tx_run(const struct lb_tx_conf *c, struct lb_tx_stats *st);

enum lb_rx_cmd {
    LB_RX_NONE,
    LB_RX_START,                     /* reset the trial state, count frames of trial_id */
    LB_RX_STOP,                      /* finish every stream with the sent counts */
    LB_RX_QUIT,                      /* leave lb_rx_loop() */
};

struct lb_rx_result {
    uint64_t trial_id;
    uint64_t drop[LB_RX_DROP_MAX];
    uint64_t lat_invalid;            /* stamp after the receive time */
    uint64_t bytes;
    uint64_t first_tsc, last_tsc;
    struct ebf_hist lat;             /* TSC cycles, transmit to receive */
    struct ebf_hist loop;            /* cycles from rx_burst return to the frames done */
    struct lb_seq seq[LB_MAX_STREAMS];
    struct ebf_cycles cycles;        /* the RX loop's passes from START to STOP */
};

struct lb_rx {
    /* set before lb_rx_loop() starts */
    uint16_t port, queue;
    uint16_t streams;
    int check_crc;
    enum ebf_idle_mode idle;
    /* mailbox: written by the controlling thread */
    uint32_t cmd_seq __rte_cache_aligned;
    enum lb_rx_cmd cmd;
    uint64_t cmd_trial;
    uint64_t cmd_sent[LB_MAX_STREAMS];
    /* written by the RX lcore */
    uint32_t ack_seq __rte_cache_aligned;
    uint64_t live_rx, live_lost, live_p99;       /* relaxed atomics */
    uint64_t between;                            /* frames outside trials */
    int active;
    uint64_t next_pub;
    struct lb_rx_result r __rte_cache_aligned;
};

/* Zero the struct's state; set port, streams, check_crc, idle afterwards. */
void lb_rx_init(struct lb_rx *rx);

/* The RX lcore's loop (an lcore_function_t): poll, account, serve the
 * mailbox, until LB_RX_QUIT. With --idle backoff it sleeps when idle: from
 * START to STOP after 64 empty polls and for at most LB_RX_TRIAL_SLEEP_US
 * (the port's ring holds the frames meanwhile; a receiver that spins on a
 * shared CPU is preempted for longer than one that sleeps), between trials
 * as any poll loop does; each trial starts awake, not with the back-off of
 * the idle time before it. */
int lb_rx_loop(void *arg);

/*
 * From the controlling thread: post a command and wait until the RX lcore
 * has carried it out (sleeping 50 us between looks). After LB_RX_STOP, rx->r
 * is stable until the next LB_RX_START. sent may be NULL except for STOP.
 */
void lb_rx_command(struct lb_rx *rx, enum lb_rx_cmd cmd, uint64_t trial,
                   const uint64_t *sent);

/* Write a frame of c's layout for stream c->stream0 into buf (len =
 * frame_size - 4): headers and pattern, seq 0, stamp 0. Used by lb_tx_run()
 * and by tests. */
void lb_frame_template(uint8_t *buf, const struct lb_tx_conf *c);

#endif /* LB_DP_H */
