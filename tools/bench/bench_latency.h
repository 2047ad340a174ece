/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_latency.h - the end-to-end latency of a paced demo farm: spinning on pinned cores against backing off. */
#ifndef BENCH_LATENCY_H
#define BENCH_LATENCY_H

#include <stdio.h>

#include "bench_env.h"
#include "bench_place.h"
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
/* Where the case puts the processes and which spin. */
struct bench_lat_plan {
    int pinned;                  /* every process spins on a CPU of its own */
    char cpus[160];              /* the demo's --cpus, "" for none */
    char spin[160];              /* the subject's --idle (the reference's: backoff) */
    char note[256];              /* "" or why the result is not what it should be */
};

/* The plan on the CPUs c (bench_cpus_get): CPU c[0] for the control
 * threads and whoever has no CPU of its own; sfc0, node0, node1, ro0 a
 * CPU each, in that order, as far as they go. */
void bench_latency_plan(const struct bench_cpus *c, struct bench_lat_plan *p);

int bench_latency_run(struct bench_env *env, struct bench_result *r, FILE *progress, char *err,
                      size_t len);

#endif /* BENCH_LATENCY_H */
