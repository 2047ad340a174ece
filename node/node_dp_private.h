/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_private.h - the node data plane's state: the loop's own fields and the stages it composes, each embedded by value. */
#ifndef NODE_DP_PRIVATE_H
#define NODE_DP_PRIVATE_H

#include "node_dp.h"
#include "node_dp_store.h"
#include "node_dp_trigger.h"
#include "node_dp_workers.h"
#include "node_evtab.h"
#include "node_view.h"

#define FRAME_MAX 9728           /* a chained frame is read whole into scratch */
#define NODE_BURST_MAX 64
/* Acks waiting to leave (ack_cap): one per credit slot (events finished
 * and not acked, those storage completes included, hold the SFC's credit,
 * so there are never more), a full credit frame's worth and a receive
 * burst's (each frame makes at most one ack, duplicates included): the
 * loop receives only while a burst fits, so queueing an ack never waits on
 * the port. */
#define ACK_QUEUE_EXTRA (EBF_MAX_ACKS + NODE_BURST_MAX)

/* The ledger's records taken at the marks the farm tool gave while the
 * run went on (an SFC of this node restarted: node_dp_mark). */
struct node_dp_mark {
    struct ebf_idset ids, accepted;  /* decided at or above each mark, then */
    uint64_t digest;             /* sum of ebf_mix64 over ids */
    uint64_t evicted;            /* 1: a window may have lost some of them */
    uint64_t marks;              /* the marks taken */
    uint64_t x;                  /* the last mark */
    int open;                    /* events held at the mark are still being decided:
                                  * their decisions at or above x join the records */
};

/* Lcore: decision a joins the mark's records while one is open. */
void node_dp_mark_ack(struct node_dp *dp, const struct ebf_ack *a);

/*
 * The loop (node_dp.c) owns the counters (st), the acks and credit frames,
 * and composes the stages: the event table (evt), the held frames (v), the
 * trigger (trig), its workers (ws) and storage (sto). A stage takes only
 * its own struct and hands back what it finished; the loop alone counts,
 * acks and frees.
 */
struct node_dp {
    struct node_conf c;
    struct node_stats st;
    struct node_evtab evt;
    struct ebf_ack *ack;         /* ack_cap entries */
    uint16_t ack_cap;
    uint16_t n_ack;
    int refusing;                /* the port refused the last credit frame */
    uint16_t max_acks;           /* in one credit frame: node_max_acks(mtu) */
    uint16_t credits_owed;       /* initial grant not yet sent */
    uint32_t seq;
    uint64_t last_tx_tsc;
    uint64_t hb_tsc;
    int draining;
    uint64_t drain_last, drain_frames;
    int view;                    /* hold frames: the plug-in or storage reads payload */
    struct node_view v;
    struct node_dp_trigger trig;
    struct node_decide_scratch dx;   /* the receive lcore's decides (no workers) */
    struct node_dp_workers ws;
    struct node_dp_store sto;
    struct node_dp_mark mark;    /* control's requests, on the receive lcore */
    uint64_t link_tsc;           /* when the link was last looked at (node_dp_relink) */
    int relinked;                /* the link was down and restarted: grant anew once up */
    int regrant_due;             /* marked (node_dp_mark), not granted anew since */
    uint8_t scratch[FRAME_MAX];
};

#endif /* NODE_DP_PRIVATE_H */
