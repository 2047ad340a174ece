/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_interval.c - one interval of a soak: the difference of two samples as rates, losses, latency percentiles and its ledger. */
#include "soak_interval.h"

#include <string.h>

int soak_hist_diff(const struct ebf_hist *prev, const struct ebf_hist *cur, struct ebf_hist *out)
{
    int lo = -1, hi = -1;

    memset(out, 0, sizeof(*out));
    if (cur->count < prev->count || cur->sum < prev->sum)
        return -1;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        if (cur->bucket[b] < prev->bucket[b]) {
            memset(out, 0, sizeof(*out));
            return -1;
        }
        out->bucket[b] = cur->bucket[b] - prev->bucket[b];
        if (out->bucket[b]) {
            lo = lo < 0 ? (int)b : lo;
            hi = (int)b;
        }
    }
    out->count = cur->count - prev->count;
    out->sum = cur->sum - prev->sum;
    if (hi < 0)
        return 0;
    out->min = ebf_hist_bucket_lo((unsigned)lo);
    out->max = hi + 1 < EBF_HIST_BUCKETS ? ebf_hist_bucket_lo((unsigned)hi + 1) - 1 : UINT64_MAX;
    if (out->max > cur->max)
        out->max = cur->max;
    if (out->min < cur->min && prev->count == 0)
        out->min = cur->min;
    return 0;
}

void soak_pct_of(const struct ebf_hist *h, struct soak_pct *p)
{
    p->count = h->count;
    p->p50 = ebf_hist_quantile(h, 0.50);
    p->p90 = ebf_hist_quantile(h, 0.90);
    p->p99 = ebf_hist_quantile(h, 0.99);
    p->p999 = ebf_hist_quantile(h, 0.999);
    p->max = h->count ? h->max : 0;
}

int soak_interval_of(const struct soak_sample *a, const struct soak_sample *b, unsigned index,
                     struct soak_interval *iv)
{
    struct ebf_hist d;
    int rc = 0;

    memset(iv, 0, sizeof(*iv));
    iv->index = index;
    iv->t0 = a->t;
    iv->t1 = b->t;
    for (unsigned i = 0; i < b->c.n; i++) {
        uint64_t was = soak_counts_get(&a->c, b->c.c[i].name);
        if (b->c.c[i].v < was)
            rc = -1;
        rc |= soak_counts_add(&iv->d, b->c.c[i].name, b->c.c[i].v - was);
    }
    for (unsigned i = 0; i < a->c.n; i++)
        if (a->c.c[i].v && soak_counts_get(&b->c, a->c.c[i].name) == 0)
            rc = -1;                 /* a count that vanished went down */
    iv->generated = soak_counts_get(&iv->d, "generated");
    /* with the decisions of killed SFCs' incarnations their samples missed */
    iv->decided = soak_counts_get(&iv->d, "accepted") + soak_counts_get(&iv->d, "rejected") +
                  soak_counts_get(&iv->d, "fo.decided");
    iv->lost = soak_counts_sum(&iv->d, "lost.");
    iv->incomplete = soak_counts_get(&iv->d, "incomplete");
    iv->in_flight = (int64_t)soak_counts_get(&b->c, "generated") -
                    (int64_t)(soak_counts_get(&b->c, "accepted") +
                              soak_counts_get(&b->c, "rejected") +
                              soak_counts_get(&b->c, "fo.decided") +
                              soak_counts_sum(&b->c, "lost."));
    double dt = b->t - a->t;
    if (dt > 0) {
        iv->events_per_s = (double)iv->generated / dt;
        iv->frames_per_s = (double)soak_counts_get(&iv->d, "frames") / dt;
    }
    iv->throttle_s = (double)soak_counts_get(&iv->d, "throttle_held_ns") / 1e9;
    for (unsigned k = 0; k < SOAK_H_MAX; k++) {
        rc |= soak_hist_diff(&a->h[k], &b->h[k], &d);
        soak_pct_of(&d, &iv->lat[k]);
    }
    iv->credits = b->credits;
    iv->ready = b->ready;
    iv->building = b->building;
    iv->unacked = b->unacked;
    iv->mempool = b->mempool;
    iv->nodes_alive = b->nodes_alive;
    iv->fo_on = b->fo_on;
    iv->replay_bytes = b->replay_bytes;
    iv->recover_s = b->recover_s;
    iv->n_mem = b->n_mem;
    memcpy(iv->mem, b->mem, sizeof(b->mem[0]) * b->n_mem);
    return rc ? -1 : 0;
}
