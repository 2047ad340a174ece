/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp.h - trigger node data plane: receive events, verify, decide, ack with credit. */
#ifndef NODE_DP_H
#define NODE_DP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "ebf_idle.h"
#include "ebf_lcore_stats.h"
#include "ebf_proto.h"
#include "node_stats.h"
#include "node_store.h"
#include "node_trigger.h"

struct node_conf {
    uint16_t port;
    uint16_t node_id;
    uint32_t epoch;
    uint8_t mac[6];
    uint8_t sfc_mac[6];
    uint16_t credits;            /* event slots granted at start */
    double trigger_us;           /* busy time per event */
    double accept;               /* fraction accepted, from the event id */
    uint64_t accept_seed;
    uint16_t ack_batch;          /* acks per credit frame, at most EBF_MAX_ACKS and
                                  * node_max_acks(mtu) */
    uint16_t mtu;                /* of the port; 0: 1500 */
    double heartbeat_ms;         /* empty credit frame when silent this long */
    struct rte_mempool *pool;
    uint16_t burst;
    struct ebf_idle idle;
    double drain_quiet_ms;       /* at stop: input quiet this long ends the run */
    const struct node_trigger *trigger;  /* NULL or built-in: the emulation
                                  * with accept, accept_seed and trigger_us */
    double trigger_timeout_ms;   /* a longer decide counts as trigger.slow; 0: off */
    uint32_t run;                /* the run number the plug-in sees */
    struct node_store_conf store;    /* accepted events to files; dir "": off */
    uint16_t workers;            /* trigger workers on lcores of their own; 0: the
                                  * receive lcore decides (at most credits and
                                  * NODE_WORKERS_MAX) */
    uint32_t max_event;          /* the largest event held whole: sizes the pool
                                  * (main.c) and storage blocks; 0: no sizing */
    uint32_t view_frames;        /* frames the events held for the plug-in or
                                  * storage may hold in all; 0: node_view_frames */
    /* The ledger's release watermark of run ledger_mark_run (configure key
     * ledger_mark, given by the farm tool at the stop when this node's SFC
     * died: docs/protocol.md 13.6); ledger_mark_on 0: none. */
    uint64_t ledger_mark;
    uint32_t ledger_mark_run;
    uint8_t ledger_mark_on;
};

/* Mbufs of the pool left to the port when frames are held: its receive
 * ring (1024), a burst, the credit frames and the pool's lcore cache. */
#define NODE_VIEW_RESERVE 1536

/* The held-frame budget of c: c->view_frames, or the pool's mbufs less
 * NODE_VIEW_RESERVE (half a small pool), so that the port can always
 * receive: an event that would hold more is rejected as view_overflow. */
uint32_t node_view_frames(const struct node_conf *c);

#define NODE_WORKERS_MAX 15      /* the lcore table lists receive + workers */

struct node_dp;

/* The acks one credit frame holds at mtu (0: 1500): EBF_MAX_ACKS, or fewer
 * when a frame of that many would pass the MTU. */
uint16_t node_max_acks(uint16_t mtu);

/* NULL with errno set (EINVAL: the trigger plug-in's init refused). The
 * port must be started. */
struct node_dp *node_dp_create(const struct node_conf *conf);
void node_dp_destroy(struct node_dp *dp);

/* One pass of the poll loop; returns the work done. */
unsigned node_dp_poll(struct node_dp *dp);

/* Grant the initial credits, run until *stop, then finish what arrives until
 * the input has been quiet for drain_quiet_ms and flush every ack. */
void node_dp_run(struct node_dp *dp, const volatile sig_atomic_t *stop);

/* The drain as steps: begin, then drain_poll until *done (input quiet for
 * drain_quiet_ms and every ack sent; partial events counted). */
void node_dp_drain_begin(struct node_dp *dp);
unsigned node_dp_drain_poll(struct node_dp *dp, int *done);

/* The run begins (number run, of farm): storage starts, its files named
 * for run. 0, or -errno with err saying why. */
int node_dp_begin(struct node_dp *dp, uint32_t run, const char *farm, char *err, size_t len);

/* 1 with why when the data plane failed on its own (the storage's writer). */
int node_dp_failed(struct node_dp *dp, char *why, size_t len);

/* The storage's counters and gauges (all 0 with storage off). */
void node_dp_store_stats(struct node_dp *dp, struct node_store_stats *out);

/* Worker w's event slots (0 past the last worker): credits split evenly. */
uint16_t node_dp_worker_slots(const struct node_dp *dp, unsigned w);

/* The receive lcore's cycles in out (loop 0, as read before) followed by
 * each worker's busy and idle cycles. */
void node_dp_worker_cycles(const struct node_dp *dp, struct ebf_lcore_stats *out);

void node_dp_gauges(const struct node_dp *dp, struct node_gauges *g);

const struct node_stats *node_dp_stats(const struct node_dp *dp);

/*
 * The ledger's records after an SFC's death (docs/protocol.md 13.6) into
 * s: the records node_dp_mark took, plus, when on, the ids dp decided at
 * or above x now (node_evtab_after: after_ids, after_accepted,
 * after_digest; x is the stop's mark for an SFC that stayed dead). On the
 * data-plane lcore, or once the run is over.
 */
void node_dp_after(const struct node_dp *dp, int on, uint64_t x, struct node_snap *s);

/*
 * The ids dp decided at or above x so far added to its mark records, once
 * (the farm tool's mark for an SFC of this node that died and restarts
 * while the run goes on: its old incarnation's decisions at or above its
 * last release watermark x, which the readouts replayed). The events it
 * holds then are the old incarnation's too: their decisions at or above x
 * join the records as they are made, until it holds none or its link comes
 * back (the new SFC's events stay out). On the data-plane lcore.
 */
void node_dp_mark(struct node_dp *dp, uint64_t x);

/*
 * The SFC of dp, marked (node_dp_mark) and restarted, is up: grant it
 * anew, within a second, every slot that no event holds, as a memif link
 * that came back does (a link that never went down, af_packet, says
 * nothing of the new SFC, which would wait for credits for ever). Once a
 * mark: nothing when the link's return granted anew already. On the
 * data-plane lcore.
 */
void node_dp_sfc_new(struct node_dp *dp);

#endif /* NODE_DP_H */
