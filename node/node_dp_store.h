/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_store.h - the node's storage stage: accepted events into the store, in order, waiting for blocks (back-pressure); the stored ones handed back. */
#ifndef NODE_DP_STORE_H
#define NODE_DP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "node_evtab.h"
#include "node_store.h"
#include "node_view.h"

/* Storage of one data plane; receive lcore only, but begin (control
 * thread, before the run). Off (conf's dir "") it stores nothing. */
struct node_dp_store {
    const struct node_store_conf *conf;
    struct node_store *store;    /* NULL: off, or before the run */
    struct node_view *v;         /* the held frames events are copied from */
    uint16_t node_id;
    uint16_t credits;
    uint16_t *wait;              /* slots of accepted events waiting for storage, FIFO */
    uint16_t wait_head, wait_n;
    uint64_t bp_since;           /* TSC when events began to wait; 0: none waits */
    uint64_t bp_cycles;          /* TSC cycles with events waiting */
    uint64_t waits;              /* accepted events that had to wait */
    uint64_t tick_tsc, next_tick;    /* partial blocks go to the writer this often */
    int finishing;
};

/* Ready storage by conf (kept, not copied) for credits event slots of
 * node_id, copying from v. 0 or -ENOMEM. */
int node_dp_store_init(struct node_dp_store *s, const struct node_store_conf *conf,
                       uint16_t node_id, uint16_t credits, struct node_view *v);
void node_dp_store_free(struct node_dp_store *s);

/* 1 when storage is on and started. */
static inline int node_dp_store_on(const struct node_dp_store *s)
{
    return s->store != NULL;
}

/* The run begins (number run, of farm): the store starts, its files named
 * for run. 0 (also with storage off), or -errno with err saying why. */
int node_dp_store_begin(struct node_dp_store *s, uint32_t run, const char *farm, char *err,
                        size_t len);

/* 1 with why when the store's writer failed. */
int node_dp_store_failed(struct node_dp_store *s, char *why, size_t len);

/* Accepted e (in slot): 1 when it is done (stored or lost at storage,
 * counted by the store), 0 when it waits behind others or for a block
 * (the caller keeps its slot and its ack). */
int node_dp_store_event(struct node_dp_store *s, const struct node_ev *e, uint16_t slot);

/* Waiting events of ev stored as blocks come free: their slots, in order,
 * into done (at most max). Returns how many. */
unsigned node_dp_store_take(struct node_dp_store *s, const struct node_ev *ev, uint16_t *done,
                            unsigned max);

/* Partial blocks to the writer when they have waited long enough (at
 * once when the store failed, to be counted lost). */
void node_dp_store_tick(struct node_dp_store *s);

/* The drain: 1 once nothing waits and the writer closed every file. */
int node_dp_store_drained(struct node_dp_store *s);

/* The storage's counters and gauges (all 0 with storage off). */
void node_dp_store_read(struct node_dp_store *s, struct node_store_stats *out);

#endif /* NODE_DP_STORE_H */
