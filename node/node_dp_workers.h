/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_workers.h - the node's trigger workers: complete events to N lcores over rings, their decisions handed back in order of completion. */
#ifndef NODE_DP_WORKERS_H
#define NODE_DP_WORKERS_H

#include <stdint.h>

#include "ebf_idle.h"
#include "ebf_lcore_stats.h"
#include "node_dp_trigger.h"
#include "node_evtab.h"

#define NODE_WORKERS_BURST 32    /* decisions taken from one worker in one poll */

struct node_worker;

/* A decision handed back: the event's slot and its decision word. */
struct node_decided {
    uint16_t slot;
    uint32_t outcome;            /* NODE_DEC_*, node_tally.h */
};

/* The workers of a run. The receive lcore gives and polls; each worker
 * reads the slots it is given (in ev) and nothing else of the loop's. */
struct node_dp_workers {
    struct node_worker *w;       /* n workers; NULL: none */
    uint16_t n;
    uint16_t n_deciding;         /* events at the workers */
};

/* Worker w's event slots among n workers (0 past the last): credits
 * split evenly. */
uint16_t node_dp_workers_slots(uint16_t n, uint16_t credits, unsigned w);

/*
 * Start n workers (at most credits) on free EAL lcores, deciding with t
 * the events of ev they are given, idling as idle says. 0 (n == 0: none),
 * -ENOMEM, or -ERANGE when EAL has too few free lcores. On failure, stop
 * frees what was made.
 */
int node_dp_workers_start(struct node_dp_workers *ws, uint16_t n, uint16_t credits,
                          const struct node_dp_trigger *t, const struct node_ev *ev,
                          const struct ebf_idle *idle);

/* Stop the workers and free them. */
void node_dp_workers_stop(struct node_dp_workers *ws);

/* Hand the complete event in slot to the least loaded worker (one has
 * room: the workers' slots add up to the credits). */
void node_dp_workers_give(struct node_dp_workers *ws, uint16_t slot);

/* The decisions back from the workers, in order of completion, into out
 * (room for n * NODE_WORKERS_BURST). Returns how many. */
unsigned node_dp_workers_poll(struct node_dp_workers *ws, struct node_decided *out);

/* Each worker's busy and idle cycles appended to out. */
void node_dp_workers_cycles(const struct node_dp_workers *ws, struct ebf_lcore_stats *out);

#endif /* NODE_DP_WORKERS_H */
