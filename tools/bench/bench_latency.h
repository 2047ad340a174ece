/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_latency.h - the end-to-end latency of a paced demo farm: spinning on pinned cores against backing off. */
#ifndef BENCH_LATENCY_H
#define BENCH_LATENCY_H

#include <stdio.h>

#include "bench_env.h"
#include "bench_report.h"

/* Results of the case: end-to-end p50 and p99. */
#define BENCH_LATENCY_RESULTS 2

/*
 * `ebfarm demo --rate 10000` (1 readout, 1 SFC, 2 nodes; 50,000 events,
 * 3,000 with --quick), run env->o->pairs times with every process spinning
 * (--idle spin), each on a CPU of its own (--cpus), alternated with the
 * same farm on the same CPUs backing off (--idle backoff). The summary's
 * end-to-end histogram gives p50 and p99 (latency_ns.end_to_end, readout
 * transmit to node decision, microseconds) into r[0] (latency_p50) and
 * r[1] (latency_p99), reference "idle_backoff"; ratio below 1: spinning is
 * faster. With fewer than 4 CPUs only as many processes spin as have a
 * CPU of their own (the SFC first, then the nodes, then the readout) and
 * the rest back off on the first CPU: the results say pinned false and
 * why in their note. Returns BENCH_LATENCY_RESULTS, or -1 with err.
 */
int bench_latency_run(struct bench_env *env, struct bench_result *r, FILE *progress, char *err,
                      size_t len);

#endif /* BENCH_LATENCY_H */
