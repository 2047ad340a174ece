/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_search.c - binary searches and load steps of RFC 2544 over a trial callback. */
#include "lb_search.h"

#include <math.h>
#include <string.h>

int lb_trial_pass(const struct lb_trial_out *o, double loss_ratio)
{
    return o->valid && (double)o->lost <= loss_ratio * (double)o->sent;
}

static void started(const struct lb_search_conf *c)
{
    if (c->on_search)
        c->on_search(c->on_search_arg);
}

int lb_search_throughput(const struct lb_search_conf *c, lb_trial_fn fn, void *ctx,
                         struct lb_search_result *r)
{
    double lo = 0, hi = c->max_fps, fps = c->max_fps;

    memset(r, 0, sizeof(*r));
    started(c);
    while (r->trials < c->max_trials) {
        struct lb_trial_req req = {.fps = fps, .count = 0};
        struct lb_trial_out out;
        memset(&out, 0, sizeof(out));
        int rc = fn(ctx, &req, &out);
        if (rc)
            return rc;
        r->trials++;
        r->invalid += !out.valid;
        if (lb_trial_pass(&out, c->loss_ratio)) {
            lo = fps;
            r->found = 1;
            r->fps = fps;
        } else {
            hi = fps;
        }
        if (lo >= hi || hi - lo <= c->resolution_fps)
            break;
        fps = (lo + hi) / 2;
    }
    return 0;
}

int lb_search_loss(const struct lb_search_conf *c, int all, lb_trial_fn fn, void *ctx,
                   struct lb_loss_point pts[10])
{
    int n = 0, clean = 0;

    started(c);
    for (int step = 10; step >= 1; step--) {
        struct lb_trial_req req = {.fps = c->max_fps * step / 10.0, .count = 0};
        struct lb_trial_out out;
        memset(&out, 0, sizeof(out));
        int rc = fn(ctx, &req, &out);
        if (rc)
            return rc;
        struct lb_loss_point *p = &pts[n++];
        p->pct = step * 10.0;
        p->fps = req.fps;
        p->loss_ratio = out.sent ? (double)out.lost / (double)out.sent : 0;
        p->valid = out.valid;
        clean = out.valid && out.lost == 0 ? clean + 1 : 0;
        if (clean == 2 && !all)
            break;
    }
    return n;
}

int lb_search_b2b(const struct lb_search_conf *c, uint64_t max_count, uint64_t resolution,
                  lb_trial_fn fn, void *ctx, struct lb_search_result *r)
{
    uint64_t lo = 0, hi = max_count + 1, count = max_count;

    memset(r, 0, sizeof(*r));
    started(c);
    if (resolution == 0)
        resolution = 1;
    while (r->trials < c->max_trials && count > 0) {
        struct lb_trial_req req = {.fps = c->max_fps, .count = count};
        struct lb_trial_out out;
        memset(&out, 0, sizeof(out));
        int rc = fn(ctx, &req, &out);
        if (rc)
            return rc;
        r->trials++;
        r->invalid += !out.valid;
        if (lb_trial_pass(&out, 0)) {
            lo = count;
            r->found = 1;
            r->fps = (double)count;
        } else {
            hi = count;
        }
        if (hi - lo <= resolution)
            break;
        count = lo + (hi - lo) / 2;
    }
    return 0;
}

void lb_repeat_stats(const double *v, unsigned n, struct lb_repeat *r)
{
    double sum = 0, sq = 0;

    r->n = r->found = n;
    r->mean = r->stddev = r->min = r->max = 0;
    if (n == 0)
        return;
    r->min = r->max = v[0];
    for (unsigned i = 0; i < n; i++) {
        sum += v[i];
        r->min = fmin(r->min, v[i]);
        r->max = fmax(r->max, v[i]);
    }
    r->mean = sum / n;
    for (unsigned i = 0; i < n; i++)
        sq += (v[i] - r->mean) * (v[i] - r->mean);
    r->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0;
}

/* One repetition: its figure into *v (see lb_search_repeat). */
static int repeat_one(const struct lb_search_conf *c, enum lb_repeat_kind kind, uint64_t b2b_max,
                      uint64_t resolution, lb_trial_fn fn, void *ctx, double *v,
                      struct lb_repeat *r)
{
    struct lb_search_result res;
    int rc;

    if (kind == LB_REPEAT_LATENCY) {
        struct lb_trial_req req = {.fps = c->max_fps, .phase = "repeat"};
        struct lb_trial_out out;
        memset(&out, 0, sizeof(out));
        out.p99_ns = -1;
        rc = fn(ctx, &req, &out);
        r->trials++;
        r->invalid += !out.valid;
        *v = out.p99_ns;
        return rc;
    }
    rc = kind == LB_REPEAT_B2B ? lb_search_b2b(c, b2b_max, resolution, fn, ctx, &res)
                               : lb_search_throughput(c, fn, ctx, &res);
    r->trials += res.trials;
    r->invalid += res.invalid;
    *v = res.found ? res.fps : 0;
    return rc;
}

int lb_search_repeat(const struct lb_search_conf *c, enum lb_repeat_kind kind, unsigned n,
                     uint64_t b2b_max, uint64_t resolution, lb_trial_fn fn, void *ctx,
                     double *values, struct lb_repeat *r)
{
    double kept[n ? n : 1];
    unsigned k = 0, trials = 0, invalid = 0;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    for (unsigned i = 0; i < n && rc == 0; i++) {
        rc = repeat_one(c, kind, b2b_max, resolution, fn, ctx, &values[i], r);
        if (rc == 0 && (kind == LB_REPEAT_LATENCY ? values[i] >= 0 : values[i] > 0))
            kept[k++] = values[i];
    }
    trials = r->trials;
    invalid = r->invalid;
    lb_repeat_stats(kept, k, r);
    r->n = n;
    r->trials = trials;
    r->invalid = invalid;
    return rc;
}
