/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_private.h - the node data plane's state, shared by node_dp.c and its trigger glue node_dp_trigger.c. */
#ifndef NODE_DP_PRIVATE_H
#define NODE_DP_PRIVATE_H

#include "node_dp.h"
#include "node_view.h"

#define FRAME_MAX 9728           /* a chained frame is read whole into scratch */
#define NODE_BURST_MAX 64
/* Acks waiting to leave: a full credit frame's worth and a receive burst's
 * (each frame makes at most one ack): the loop receives only while a burst
 * fits, so queueing an ack never waits on the port. */
#define ACK_QUEUE (EBF_MAX_ACKS + NODE_BURST_MAX)
#define NODE_EV_NONE UINT16_MAX

/* The event index: open addressing on the event id (entries hold the id). */
struct node_idx {
    uint64_t id;
    uint16_t slot;               /* NODE_EV_NONE: empty */
};

/* An event being received. */
struct node_ev {
    uint64_t id;
    uint64_t first_tx_ns;
    uint64_t present[2];
    uint32_t bytes;              /* from the header */
    uint32_t got_bytes;          /* piece bytes received */
    uint16_t n_sources;
    uint16_t flags;
    uint16_t frame_count;
    uint16_t frames_got;
    uint8_t status;              /* EBF_ACKS_* found so far */
    uint8_t used;
    uint32_t src_len[EBF_MAX_SOURCES];
    uint32_t src_got[EBF_MAX_SOURCES];
};

struct node_dp {
    struct node_conf c;
    struct node_stats st;
    struct node_ev *ev;          /* c.credits entries */
    struct node_idx *idx;        /* event id -> ev slot, idx_mask + 1 entries */
    uint32_t idx_mask;
    uint16_t *free_ev;           /* stack of free ev slots */
    uint16_t n_free_ev;
    struct ebf_ack ack[ACK_QUEUE];
    uint16_t n_ack;
    int refusing;                /* the port refused the last credit frame */
    uint16_t max_acks;           /* in one credit frame: node_max_acks(mtu) */
    uint16_t credits_owed;       /* initial grant not yet sent */
    uint32_t seq;
    uint64_t last_tx_tsc;
    uint64_t hb_tsc;
    uint64_t *done;              /* decided ids + 1, indexed by id % DONE_WINDOW */
    struct ebf_ack *done_ack;    /* the ack each of them got */
    int draining;
    uint64_t drain_last, drain_frames;
    const struct ebf_trigger_plugin *tp;
    void *tstate;                /* the plug-in's, for this run */
    int view;                    /* hold frames: the plug-in reads payload */
    int guard;                   /* a loaded plug-in: under the crash guard */
    uint64_t slow_tsc;           /* trigger_timeout_ms in TSC cycles; 0: off */
    struct node_view v;
    struct ebf_trigger_fragment lens[EBF_MAX_SOURCES];  /* built-in: lengths only */
    uint8_t scratch[FRAME_MAX];
};

/* The trigger plug-in's init for this run (a loaded one with its own
 * parameters, the built-in with accept, accept_seed and trigger_us); 0 or
 * -EINVAL (init refused) or -ENOMEM. */
int node_dp_trigger_start(struct node_dp *dp);

/* Release the held frames and the plug-in's state of the run. */
void node_dp_trigger_stop(struct node_dp *dp);

/* The plug-in's decision on e (1: accept); what it did not decide is
 * rejected and counted by reason. The held frames are released after. */
int node_dp_decide(struct node_dp *dp, struct node_ev *e);

#endif /* NODE_DP_PRIVATE_H */
