/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_workers.h - an SFC of W data planes (workers), an lcore each: their ports, their run phases, their counters summed. */
#ifndef SFC_WORKERS_H
#define SFC_WORKERS_H

#include <stddef.h>

#include "ebf_lcore_stats.h"
#include "sfc_dp.h"

/*
 * A W-worker SFC is W data planes (sfc_dp) in one process, each on its own
 * lcore with its own event table, readout ports and node ports:
 *
 * - readout ports: --port and the --readout-port list, in that order, are
 *   cut into W equal runs; worker w takes run w (a memif link per readout
 *   and worker: the readouts send event e to worker (e / n_sfcs) % W of SFC
 *   e % n_sfcs, each with its own sequence numbers, docs/daemons.md); one
 *   readout port alone is shared (sfc_dist.h: worker 0 receives it and
 *   hands worker w the frames to its MAC, the SFC's + w in the fourth
 *   byte);
 * - node ports: the distinct node ports, in the order the --node options
 *   first name them, go round robin: port q to worker q % W, with every
 *   node on it; one node port alone is shared, node i served by worker
 *   i % W (a tx queue per worker, sfc_dist.h). A node is served by one
 *   worker only, so its credits are its worker's and no node is ever sent
 *   more events than it granted;
 * - the throttle: on while any worker's table wants it (sfc_share);
 * - capacity and mbufs (frame records) are the SFC's: each worker holds
 *   1/W of them.
 *
 * Worker 0 runs on the calling lcore (the daemon's main lcore, polled by
 * the run-control plug); workers 1 .. W-1 on EAL worker lcores, launched
 * at begin and ended by their drain or at destroy. With W <= 1 this is one
 * data plane and nothing else: the behaviour of an SFC without workers.
 */
struct sfc_workers;

/* Whether conf's ports can be cut or shared for conf->workers: 0, or -1
 * with err saying what is wrong and what is needed. */
int sfc_workers_check(const struct sfc_conf *conf, char *err, size_t len);

/* The tx queues conf's node port must be started with: W when the
 * workers share one node port (a queue each, sfc_dist.h), else 1. */
uint16_t sfc_workers_node_txqs(const struct sfc_conf *conf);

/* The data planes (not launched). NULL with errno set: EINVAL (logged: the
 * ports do not cut), ERANGE (logged: too few EAL lcores), or what
 * sfc_dp_create set. */
struct sfc_workers *sfc_workers_create(const struct sfc_conf *conf);
void sfc_workers_destroy(struct sfc_workers *g);

/* The run begins: workers 1 .. W-1 start on their lcores. 0, or -1 with
 * err set. */
int sfc_workers_begin(struct sfc_workers *g, char *err, size_t len);

/* One pass of worker 0; the others follow intake (pause) on their own. */
unsigned sfc_workers_poll(struct sfc_workers *g, int intake);

/* The staged drain: each worker drains on its own; done once all are. */
void sfc_workers_drain_begin(struct sfc_workers *g);
unsigned sfc_workers_drain_poll(struct sfc_workers *g, int *done);

/* Counters summed over the workers (ids and histograms merged, the
 * highest event id per source the highest of any); gauges likewise (pools
 * are shared: counted once). Exact once the workers have drained. */
void sfc_workers_stats(const struct sfc_workers *g, struct sfc_stats *out);
void sfc_workers_gauges(const struct sfc_workers *g, struct sfc_gauges *out);

/* The busy and idle cycles of workers 1 .. W-1, appended to out (worker 0's
 * are the plug's lcore). */
void sfc_workers_cycles(const struct sfc_workers *g, struct ebf_lcore_stats *out);

unsigned sfc_workers_count(const struct sfc_workers *g);
struct sfc_dp *sfc_workers_dp(struct sfc_workers *g, unsigned w);

/* A leave or join (sfc_dp_leave) announced by worker 0, which sends the
 * release frames. 0 or -errno with err. */
int sfc_workers_leave(struct sfc_workers *g, enum sfc_leave how, uint64_t at, char *err,
                      size_t len);

#endif /* SFC_WORKERS_H */
