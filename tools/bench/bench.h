/* SPDX-License-Identifier: BSD-3-Clause */
/* bench.h - `ebfarm bench`: every case run as alternated subject/reference pairs into results. */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>

#include "bench_cap.h"
#include "bench_env.h"
#include "bench_report.h"

/* A measurement and its reference, as `ebfarm bench` runs them. */
struct bench_case_def {
    const char *name;            /* the result's name: bench_case_name() */
    const char *unit;
    const char *reference;       /* the reference's name */
    bench_side_fn side;
};

/* Run def as env->o->pairs pairs, subject then reference each time (A B A
 * B ...), into r. progress (may be NULL) gets a line per run. Returns 0, or
 * -1 with the failed run's reason in err. */
int bench_run_case(struct bench_env *env, const struct bench_case_def *def,
                   struct bench_result *r, FILE *progress, char *err, size_t len);

/* Results of a bench run at most: one per case, two of latency. */
#define BENCH_RESULTS_MAX (BENCH_CASE_MAX + 1)

/* Run every case o asks for into r (room for BENCH_RESULTS_MAX results) and,
 * with sfc_capacity unless --no-sweeps, the sweeps into sw (room for
 * BENCH_SWEEPS; *n_sweeps of them; their SVG figures into --svg DIR):
 * finds the build directory and dpdk-testpmd, makes and removes the
 * scratch directory. Returns the number of results, or -1 with err set. */
int bench_run_all(const struct bench_opts *o, struct bench_result *r, struct bench_sweep *sw,
                  int *n_sweeps, FILE *progress, char *err, size_t len);

/* The device name of the metadata. */
#define BENCH_DRIVER "net_null, net_memif (sfc_cycles, latency), net_ring (sfc_capacity)"

#endif /* BENCH_H */
