/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_hist.h - log-bucketed histograms of non-negative integers, mergeable by addition. */
#ifndef EBF_HIST_H
#define EBF_HIST_H

#include <stdint.h>
#include <stdio.h>

/*
 * Bucket b covers [lo(b), lo(b+1)): values 0..15 have a bucket each; above,
 * every power of two is split into 8 sub-buckets, so a percentile read back
 * is within 12.5% of the true value (it reports the bucket's upper bound,
 * capped by the exact maximum). Two histograms with the same layout merge by
 * adding counts, across lcores or processes. One writer at a time.
 */

#define EBF_HIST_SUB 8
#define EBF_HIST_BUCKETS (16 + (64 - 4) * EBF_HIST_SUB)

struct ebf_hist {
    uint64_t count;
    uint64_t sum;
    uint64_t min;
    uint64_t max;
    uint64_t bucket[EBF_HIST_BUCKETS];
};

void ebf_hist_init(struct ebf_hist *h);

/* Bucket index of value v, and the lowest value of bucket b. */
unsigned ebf_hist_bucket(uint64_t v);
uint64_t ebf_hist_bucket_lo(unsigned b);

static inline void ebf_hist_add(struct ebf_hist *h, uint64_t v)
{
    h->count++;
    h->sum += v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->bucket[ebf_hist_bucket(v)]++;
}

void ebf_hist_merge(struct ebf_hist *into, const struct ebf_hist *from);

/* Value at quantile q in [0, 1]: the upper bound of the bucket holding the
 * ceil(q * count)-th value, capped at max; 0 for an empty histogram. */
uint64_t ebf_hist_quantile(const struct ebf_hist *h, double q);

/* Write as "<prefix>.count N", ".sum", ".min", ".max", then
 * "<prefix>.bucket.<b> N" for each non-empty bucket (the stats format). */
void ebf_hist_write(const struct ebf_hist *h, const char *prefix, FILE *f);

#endif /* EBF_HIST_H */
