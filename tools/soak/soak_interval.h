/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_interval.h - one interval of a soak: the difference of two samples as rates, losses, latency percentiles and its ledger. */
#ifndef SOAK_INTERVAL_H
#define SOAK_INTERVAL_H

#include <stdint.h>

#include "soak_sample.h"

/* Percentiles of the values recorded in an interval, in ns. */
struct soak_pct {
    uint64_t count;
    uint64_t p50, p90, p99, p999, max;
};

struct soak_interval {
    unsigned index;              /* 1, 2, ...; the interval after the stop is the last */
    double t0, t1;               /* seconds since the soak began */
    struct soak_counts d;        /* every count's difference, t1 less t0 */
    /* The interval's ledger. */
    uint64_t generated, decided, lost, incomplete;
    int64_t in_flight;           /* at t1: generated - decided - lost, all so far; the
                                  * processes' snapshots may be up to a period apart */
    double events_per_s, frames_per_s;   /* generated and readout frames per second */
    double throttle_s;           /* time the readouts were held */
    struct soak_pct lat[SOAK_H_MAX];
    /* Levels and memory at t1. */
    double credits, ready, building, unacked, mempool;
    unsigned nodes_alive;
    int fo_on;                   /* failover on: the sample's fo_on */
    double replay_bytes, recover_s;  /* the sample's failover levels (soak_sample.h) */
    unsigned n_mem;
    struct soak_mem mem[FARM_MAX_PROCS];
};

/*
 * The values recorded between two cumulative histograms (cur holds prev:
 * every bucket at least as full) into out: bucket counts, count and sum
 * less prev's; max is the upper bound of the highest bucket the interval
 * filled, capped at cur's max; min the lower bound of its lowest. Returns
 * 0, or -1 when cur does not hold prev (out is then empty).
 */
int soak_hist_diff(const struct ebf_hist *prev, const struct ebf_hist *cur, struct ebf_hist *out);

/* p50, p90, p99, p99.9 and max of h (ebf_hist_quantile: bucket upper bounds). */
void soak_pct_of(const struct ebf_hist *h, struct soak_pct *p);

/*
 * Interval index from sample a to sample b (b taken after a): the
 * differences of every count, the rates over b->t - a->t (0 when no time
 * passed), percentiles of every histogram's difference, and b's levels.
 * Returns 0, or -1 when a count or a histogram went down (not from the
 * same accumulator) or the counts did not fit.
 */
int soak_interval_of(const struct soak_sample *a, const struct soak_sample *b, unsigned index,
                     struct soak_interval *iv);

#endif /* SOAK_INTERVAL_H */
