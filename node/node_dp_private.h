/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_private.h - the node data plane's state, shared by node_dp.c and its trigger glue node_dp_trigger.c. */
#ifndef NODE_DP_PRIVATE_H
#define NODE_DP_PRIVATE_H

#include "node_dp.h"
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
#define NODE_EV_NONE UINT16_MAX

/* A decision as one word (what a worker hands back): the stream in bits
 * 0-15, accept, slow, failed and the failure reason (enum
 * node_trigger_fail) above. */
#define NODE_DEC_ACCEPT (1u << 16)
#define NODE_DEC_SLOW (1u << 17)
#define NODE_DEC_FAILED (1u << 18)
#define NODE_DEC_FAIL(r) (NODE_DEC_FAILED | ((uint32_t)(r) << 19))
#define NODE_DEC_REASON(o) (((o) >> 19) & 0xf)

/* What one decide builds the plug-in's view of an event in: one per
 * lcore that decides. */
struct node_decide_scratch {
    struct ebf_trigger_piece tp[NODE_VIEW_PIECES];
    struct ebf_trigger_fragment frags[EBF_MAX_SOURCES];
};

struct node_worker;

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
    uint8_t waiting;             /* accepted, waiting for a storage block */
    uint16_t stream;             /* the plug-in's output stream */
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
    struct ebf_ack *ack;         /* ack_cap entries */
    uint16_t ack_cap;
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
    struct node_decide_scratch dx;   /* the receive lcore's decides (no workers) */
    struct node_worker *w;       /* c.workers trigger workers; NULL: none */
    uint16_t n_deciding;         /* events at the workers */
    struct node_store *store;    /* NULL: storage off */
    uint16_t *wait;              /* slots of accepted events waiting for storage, FIFO */
    uint16_t wait_head, wait_n;
    uint64_t bp_since;           /* TSC when events began to wait; 0: none waits */
    uint64_t bp_cycles;          /* TSC cycles with events waiting */
    uint64_t store_waits;        /* accepted events that had to wait */
    uint64_t tick_tsc, next_tick;    /* partial blocks go to the writer this often */
    int store_finishing;
    uint8_t scratch[FRAME_MAX];
};

/* The trigger plug-in's init for this run (a loaded one with its own
 * parameters, the built-in with accept, accept_seed and trigger_us); 0 or
 * -EINVAL (init refused) or -ENOMEM. */
int node_dp_trigger_start(struct node_dp *dp);

/* Release the held frames and the plug-in's state of the run. */
void node_dp_trigger_stop(struct node_dp *dp);

/* The plug-in's decision on e in x's buffers, as one word (NODE_DEC_*):
 * safe on several lcores at once, each with its own x; counts nothing. */
uint32_t node_dp_decide_in(struct node_dp *dp, struct node_ev *e, struct node_decide_scratch *x);

/* Count a decision word (trigger.fail, trigger.slow); 1: accepted, *stream
 * its output stream. */
int node_dp_decided(struct node_dp *dp, uint32_t outcome, uint16_t *stream);

/* Trigger workers (node_dp_workers.c): start c.workers on free EAL lcores
 * (0, or -ERANGE when too few are free, -ENOMEM), stop and free them. */
int node_dp_workers_start(struct node_dp *dp);
void node_dp_workers_stop(struct node_dp *dp);
/* Hand complete event e to the least loaded worker (one has room: the
 * workers' slots add up to the credits). */
void node_dp_workers_give(struct node_dp *dp, struct node_ev *e);
/* Decisions back from the workers, in order of completion: each is passed
 * to done. Returns the work done. */
unsigned node_dp_workers_poll(struct node_dp *dp,
                              void (*done)(struct node_dp *, struct node_ev *, uint32_t));

/* Release e's held frames. */
void node_dp_release(struct node_dp *dp, struct node_ev *e);

/* Storage of accepted events (node_dp_store.c). */
int node_dp_store_init(struct node_dp *dp);
void node_dp_store_free(struct node_dp *dp);
/* e accepted: into storage, or waiting for it. 1 when e is done (stored
 * or lost at storage, counted), 0 when it waits (keep its slot and ack). */
int node_dp_store_event(struct node_dp *dp, struct node_ev *e);
/* Events waiting for storage, in order, as blocks come free: each one
 * done is passed to complete. Returns the work done. */
unsigned node_dp_store_poll(struct node_dp *dp, void (*complete)(struct node_dp *, struct node_ev *));
/* The drain: 1 once nothing waits and the writer closed every file. */
int node_dp_store_drained(struct node_dp *dp);

#endif /* NODE_DP_PRIVATE_H */
