/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_evq.h - the simulator's event queue: timestamped events in virtual time, in a binary heap. */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include <stdint.h>

/*
 * Events are popped in order of their time (ps of virtual time); events at
 * the same time come out in the order they were pushed (a sequence number
 * breaks the tie), so that a run is the same on every machine. The heap
 * grows by doubling; nothing else allocates. Single-threaded.
 */

struct sim_ev {
    uint64_t t;                  /* virtual time, ps */
    uint64_t seq;                /* push order: the tie-break */
    uint64_t arg;                /* the handler's argument (an event id, ...) */
    uint64_t t0;                 /* a second one (when the event was triggered, ps) */
    uint32_t obj;                /* which source, SFC, node or port */
    uint16_t kind;               /* what happens (the model's enum) */
    uint16_t aux;                /* a second small argument */
    uint32_t x;                  /* a third (a fragment frame's sequence number) */
};

struct sim_evq {
    struct sim_ev *h;
    uint64_t n, cap;
    uint64_t seq;                /* next push's sequence number */
    uint64_t pushed, popped;     /* events in all */
    uint64_t peak;               /* most events held at once */
};

/* An empty queue; 0 or -ENOMEM. */
int sim_evq_init(struct sim_evq *q, uint64_t cap);
void sim_evq_fini(struct sim_evq *q);

/* Push ev (its seq is set here); 0 or -ENOMEM (the queue is unchanged). */
int sim_evq_push(struct sim_evq *q, struct sim_ev ev);

/* Pop the earliest event into *ev; 1, or 0 when the queue is empty. */
int sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);

/* Time of the earliest event, UINT64_MAX when empty. */
static inline uint64_t sim_evq_next_t(const struct sim_evq *q)
{
    return q->n ? q->h[0].t : UINT64_MAX;
}

#endif /* SIM_EVQ_H */
