/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_search.c - binary searches and load steps of RFC 2544 over a trial callback. */
#include "lb_search.h"

#include <string.h>

int lb_trial_pass(const struct lb_trial_out *o, double loss_ratio)
{
    return o->valid && (double)o->lost <= loss_ratio * (double)o->sent;
}

int lb_search_throughput(const struct lb_search_conf *c, lb_trial_fn fn, void *ctx,
                         struct lb_search_result *r)
{
    double lo = 0, hi = c->max_fps, fps = c->max_fps;

    memset(r, 0, sizeof(*r));
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
