/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_stats.h - the spread of a benchmark's runs: median, min and max, and ratios per pair. */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

/* The figures of n runs of one side. */
struct bench_spread {
    double median;               /* the middle run; the mean of the two middle ones for even n */
    double min;
    double max;
};

/* The spread of v[0..n) (v is not reordered). n == 0 gives all zeros.
 * Returns 0, or -1 when n exceeds BENCH_MAX_PAIRS. */
int bench_spread_of(const double *v, size_t n, struct bench_spread *out);

/* ratio[i] = subject[i] / reference[i] for each pair; a reference of 0 (or
 * less) gives a ratio of 0, which the caller reports as a failed pair. */
void bench_ratios(const double *subject, const double *reference, size_t n, double *ratio);

#define BENCH_MAX_PAIRS 100

#endif /* BENCH_STATS_H */
