/* SPDX-License-Identifier: BSD-3-Clause */
/* snapsub.h - subscribe to every metrics endpoint of a farm and keep each process's newest two snapshots. */
#ifndef SNAPSUB_H
#define SNAPSUB_H

#include <stddef.h>
#include <stdint.h>

#include <zmq.h>

#include "ebfarm.pb-c.h"
#include "farm_types.h"

/*
 * One ZMQ_SUB socket per process of a farm that is up, connected to its
 * metrics endpoint and subscribed to every message (a daemon sends one
 * packed ebfarm.Snapshot per period, no topic frame). The caller polls the
 * sockets (snapsub_pollitems, with its own items after them) and calls
 * snapsub_recv for those that are readable. Single-threaded.
 */

struct snapsub_proc {
    char name[FF_NAME_MAX];
    const char *component;           /* "sfc", "node", "readout" */
    void *sub;
    Ebfarm__Snapshot *cur, *prev;    /* newest and the one before; NULL until received */
    double cur_at;                   /* snapsub_now() when cur arrived */
    uint64_t received;               /* snapshots taken */
    uint64_t bad;                    /* messages that were not snapshots */
};

struct snapsub {
    void *zctx;
    unsigned n;
    double period_s;                 /* the farm's metrics period */
    struct snapsub_proc p[FARM_MAX_PROCS];
};

/* Seconds on a monotonic clock. */
double snapsub_now(void);

/*
 * Connect to every process of st. The metrics period comes from the farm
 * file st was brought up from (1 s when it cannot be read). Returns 0, or
 * -1 with err naming the endpoint; nothing is left open then.
 */
int snapsub_open(struct snapsub *ss, const struct farm_state *st, char *err, size_t len);
void snapsub_close(struct snapsub *ss);

/* items[i] for process i, i < ss->n, polling for input. */
void snapsub_pollitems(const struct snapsub *ss, zmq_pollitem_t *items);

/* Take every message waiting on process i's socket, without blocking;
 * returns how many snapshots were taken. */
unsigned snapsub_recv(struct snapsub *ss, unsigned i);

/* Whether process i's newest snapshot arrived within 3 periods of now. */
int snapsub_fresh(const struct snapsub *ss, unsigned i, double now);

#endif /* SNAPSUB_H */
