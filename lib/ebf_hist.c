/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_hist.c - log-bucketed histogram arithmetic. */
#include "ebf_hist.h"

#include <inttypes.h>
#include <string.h>

void ebf_hist_init(struct ebf_hist *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

unsigned ebf_hist_bucket(uint64_t v)
{
    if (v < 16)
        return (unsigned)v;
    unsigned msb = 63u - (unsigned)__builtin_clzll(v);      /* >= 4 */
    unsigned sub = (unsigned)(v >> (msb - 3)) & (EBF_HIST_SUB - 1);
    return 16 + (msb - 4) * EBF_HIST_SUB + sub;
}

uint64_t ebf_hist_bucket_lo(unsigned b)
{
    if (b < 16)
        return b;
    unsigned msb = (b - 16) / EBF_HIST_SUB + 4;
    uint64_t sub = (b - 16) % EBF_HIST_SUB;
    return ((uint64_t)EBF_HIST_SUB + sub) << (msb - 3);
}

void ebf_hist_merge(struct ebf_hist *into, const struct ebf_hist *from)
{
    into->count += from->count;
    into->sum += from->sum;
    if (from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
        into->bucket[b] += from->bucket[b];
}

uint64_t ebf_hist_quantile(const struct ebf_hist *h, double q)
{
    if (h->count == 0)
        return 0;
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    uint64_t rank = (uint64_t)(q * (double)h->count + 0.999999999);
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        seen += h->bucket[b];
        if (seen >= rank) {
            uint64_t hi = b + 1 < EBF_HIST_BUCKETS ? ebf_hist_bucket_lo(b + 1) - 1 : UINT64_MAX;
            if (hi > h->max)
                hi = h->max;
            if (hi < h->min)
                hi = h->min;
            return hi;
        }
    }
    return h->max;
}

void ebf_hist_write(const struct ebf_hist *h, const char *prefix, FILE *f)
{
    fprintf(f, "%s.count %" PRIu64 "\n", prefix, h->count);
    fprintf(f, "%s.sum %" PRIu64 "\n", prefix, h->sum);
    fprintf(f, "%s.min %" PRIu64 "\n", prefix, h->count ? h->min : 0);
    fprintf(f, "%s.max %" PRIu64 "\n", prefix, h->max);
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
        if (h->bucket[b])
            fprintf(f, "%s.bucket.%u %" PRIu64 "\n", prefix, b, h->bucket[b]);
}
