/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_mlr.c - MLRsearch: targets, load classification, bound selection, conditional throughput. */
#include "lb_mlr.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lb_reason.h"

/* A target: the final one of a goal, or one of its coarser precedents. */
struct target {
    double loss, exceed, duration, sum, width;
};

/* The draft's load statistics of one load for one target. */
struct load_stat {
    double good_long, bad_long, good_short, bad_short;
};

static const char *const phase_names[LB_MLR_MAX_GOALS][LB_MLR_PRECEDING + 1] = {
    {"mlr g0 final", "mlr g0 pre1", "mlr g0 pre2"},
    {"mlr g1 final", "mlr g1 pre1", "mlr g1 pre2"},
    {"mlr g2 final", "mlr g2 pre1", "mlr g2 pre2"},
    {"mlr g3 final", "mlr g3 pre1", "mlr g3 pre2"},
};

void lb_mlr_goal_default(struct lb_mlr_goal *g, double duration_s)
{
    g->loss_ratio = 0;
    g->exceed_ratio = 0;
    g->final_duration = duration_s;
    g->duration_sum = duration_s;
    g->width = 0.005;
    g->initial_duration = duration_s / 4;
}

int lb_mlr_check(const struct lb_mlr_conf *c)
{
    if (c->n_goals < 1 || c->n_goals > LB_MLR_MAX_GOALS || !(c->min_fps >= 1) ||
        !(c->max_fps >= c->min_fps) || c->max_trials < 1)
        return -EINVAL;
    for (unsigned i = 0; i < c->n_goals; i++) {
        const struct lb_mlr_goal *g = &c->goal[i];
        if (!(g->loss_ratio >= 0 && g->loss_ratio < 1) ||
            !(g->exceed_ratio >= 0 && g->exceed_ratio < 1) || !(g->width > 0 && g->width < 1) ||
            !(g->initial_duration > 0) || g->final_duration < g->initial_duration ||
            g->duration_sum < g->final_duration)
            return -EINVAL;
    }
    return 0;
}

/* Target k of goal g: 0 the final one; k > 0 with k times doubled width,
 * the duration k/P of the way (geometrically) to the initial one, and a
 * single trial's duration as its sum. */
static void target_of(const struct lb_mlr_goal *g, unsigned k, struct target *t)
{
    t->loss = g->loss_ratio;
    t->exceed = g->exceed_ratio;
    t->duration = g->final_duration;
    t->sum = g->duration_sum;
    t->width = g->width;
    if (k == 0)
        return;
    t->duration = g->final_duration *
                  pow(g->initial_duration / g->final_duration, (double)k / LB_MLR_PRECEDING);
    t->sum = t->duration;
    t->width = fmin(0.5, g->width * (double)(1u << k));
}

/* The loss ratio a trial counts with: an invalid one (a load never
 * offered) counts as all lost. */
static double trial_loss(const struct lb_mlr_trial *x)
{
    return x->valid ? x->loss_ratio : 1.0;
}

static void stat_of(const struct lb_mlr_result *r, double fps, const struct target *t,
                    struct load_stat *s)
{
    memset(s, 0, sizeof(*s));
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_mlr_trial *x = &r->trial[i];
        if (x->fps != fps)
            continue;
        int bad = trial_loss(x) > t->loss;
        if (x->duration >= t->duration)
            *(bad ? &s->bad_long : &s->good_long) += x->duration;
        else
            *(bad ? &s->bad_short : &s->good_short) += x->duration;
    }
}

/* CSIT's estimates(): *lower when the load is a lower bound whatever the
 * missing trials say, *upper when it is an upper bound whatever they say. */
static void classify(const struct load_stat *s, const struct target *t, int *lower, int *upper)
{
    double coeff = t->exceed;
    double decrease = s->good_short * coeff / (1.0 - coeff);
    double excess = s->bad_long + fmax(0.0, s->bad_short - decrease);
    double dursum = fmax(s->good_long + excess, t->sum);
    double limit = dursum * coeff;

    *upper = !(excess <= limit);
    *lower = (dursum - s->good_long) <= limit;
}

/* The distinct loads measured so far, ascending; returns how many. */
static unsigned loads(const struct lb_mlr_result *r, double *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < r->n_trials; i++) {
        unsigned k = 0;
        while (k < n && v[k] != r->trial[i].fps)
            k++;
        if (k < n)
            continue;
        k = n++;
        while (k > 0 && v[k - 1] > r->trial[i].fps) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = r->trial[i].fps;
    }
    return n;
}

/* Whether fps is the max load the sender probe capped (c->max_is_sender)
 * and a trial there was invalid: the sender missed even its own reach less
 * the margin there, so fps is an upper bound for every target, whatever
 * the trial's duration and the goal's exceed ratio (asking it again, longer,
 * would only add invalid trials). */
static int sender_missed(const struct lb_mlr_conf *c, const struct lb_mlr_result *r, double fps)
{
    if (!c->max_is_sender || fps != c->max_fps)
        return 0;
    for (unsigned i = 0; i < r->n_trials; i++)
        if (r->trial[i].fps == fps && !r->trial[i].valid)
            return 1;
    return 0;
}

/* Relevant bounds of target t: *hi the least upper bound (0: none), *lo
 * the greatest lower bound below it (0: none); *pending an undecided load
 * between them that has trials of t's duration (0: none), the highest. */
static void bounds(const struct lb_mlr_conf *c, const struct lb_mlr_result *r,
                   const struct target *t, double *v, double *lo, double *hi, double *pending)
{
    unsigned n = loads(r, v);
    struct load_stat s;
    int lower, upper;

    *lo = *hi = *pending = 0;
    for (unsigned i = 0; i < n && *hi == 0; i++) {
        stat_of(r, v[i], t, &s);
        classify(&s, t, &lower, &upper);
        if (upper || sender_missed(c, r, v[i]))
            *hi = v[i];
    }
    for (unsigned i = 0; i < n; i++) {
        if (*hi && v[i] >= *hi)
            break;
        stat_of(r, v[i], t, &s);
        classify(&s, t, &lower, &upper);
        if (lower)
            *lo = v[i], *pending = 0;
        else if (!upper && s.good_long + s.bad_long > 0)
            *pending = v[i];     /* measured at t's duration, needs more */
    }
}

/* The forwarding hint at fps: the worst share of the load that did not get
 * through, from what was achieved and lost (an invalid trial's sender
 * reached only achieved_fps of it). */
static double worst_loss(const struct lb_mlr_result *r, double fps)
{
    double w = 0;
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_mlr_trial *x = &r->trial[i];
        if (x->fps != fps)
            continue;
        double got = x->valid ? 1 : fmin(1, x->achieved_fps / fps);
        w = fmax(w, 1 - got * (1 - x->loss_ratio));
    }
    return w;
}

/*
 * The next load for target t, or 0 when the target is met (or cannot be:
 * min_fps an upper bound). A missing bound is first looked for where the
 * coarser target (NULL for the coarsest) found its own, then by external
 * search: ext counts its steps, each doubling the relative step.
 */
static double next_load(const struct lb_mlr_conf *c, const struct lb_mlr_result *r,
                        const struct target *t, const struct target *coarser, double *v,
                        unsigned *ext)
{
    double lo, hi, pending, clo = 0, chi = 0, step;

    bounds(c, r, t, v, &lo, &hi, &pending);
    if (pending)
        return pending;
    if (coarser)
        bounds(c, r, coarser, v, &clo, &chi, &pending);
    if (hi == 0) {
        if (lo >= c->max_fps)
            return 0;
        if (chi > lo)
            return chi;
        if (lo == 0)
            return clo ? clo : c->max_fps;
        step = fmin(0.99, t->width * (double)(1u << (*ext)++));
        return fmin(c->max_fps, ceil(lo / (1 - step)));
    }
    if (lo == 0) {
        if (hi <= c->min_fps)
            return 0;
        if (clo > 0 && clo < hi)
            return clo;
        step = fmin(0.99, fmax(t->width * (double)(1u << (*ext)++), worst_loss(r, hi)));
        return fmax(c->min_fps, floor(hi * (1 - step)));
    }
    *ext = 0;
    if (hi - lo <= t->width * hi)
        return 0;
    double mid = round(sqrt(lo * hi));
    return mid > lo && mid < hi ? mid : 0;
}

static int measure(const struct lb_mlr_conf *c, lb_trial_fn fn, void *ctx, struct lb_mlr_result *r,
                   double fps, const struct target *t, unsigned g, unsigned k)
{
    (void)c;
    if (r->n_trials == r->cap) {
        unsigned cap = r->cap ? r->cap * 2 : 32;
        struct lb_mlr_trial *n = realloc(r->trial, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        r->trial = n;
        r->cap = cap;
    }
    struct lb_trial_req req = {.fps = fps, .duration_s = t->duration, .phase = phase_names[g][k]};
    struct lb_trial_out out;
    memset(&out, 0, sizeof(out));
    int rc = fn(ctx, &req, &out);
    if (rc)
        return rc;
    r->trial[r->n_trials++] = (struct lb_mlr_trial){
        .fps = fps, .duration = t->duration,
        .loss_ratio = out.sent ? (double)out.lost / (double)out.sent : 0,
        .achieved_fps = out.achieved_fps, .valid = out.valid, .goal = g, .target = k,
    };
    r->invalid += !out.valid;
    return 0;
}

/* CSIT's pessimistic_loss_ratio(): the exceed-ratio quantile of the long
 * trials' loss ratios at fps, weighted by duration, missing duration as
 * full loss. */
static double loss_quantile(const struct lb_mlr_result *r, double fps, const struct target *t)
{
    struct load_stat s;
    stat_of(r, fps, t, &s);
    double remaining = fmax(t->sum, s.good_long + s.bad_long) * (1.0 - t->exceed);
    double prev = -1, ret = -1;

    for (;;) {
        double next = 2, dur = 0;      /* the next distinct loss ratio above prev */
        for (unsigned i = 0; i < r->n_trials; i++) {
            const struct lb_mlr_trial *x = &r->trial[i];
            double l = trial_loss(x);
            if (x->fps != fps || x->duration < t->duration || l <= prev)
                continue;
            if (l < next)
                next = l, dur = 0;
            if (l == next)
                dur += x->duration;
        }
        if (next > 1)
            return remaining > 0 ? 1.0 : ret;
        if (ret >= 0 && remaining <= 0)
            return ret;
        ret = next;
        remaining -= dur;
        prev = next;
    }
}

/* What bounds goal result o: the max load when it is a lower bound, else
 * loss when a valid trial at the upper bound lost more than t allows,
 * else the sender (only invalid trials made it an upper bound). */
static int bound_by(const struct lb_mlr_conf *c, const struct lb_mlr_result *r,
                    const struct lb_mlr_goal_result *o, const struct target *t)
{
    if (o->upper_fps == 0)
        return c->max_is_sender ? LB_MLR_BY_SENDER : LB_MLR_BY_MAX_LOAD;
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_mlr_trial *x = &r->trial[i];
        if (x->fps == o->upper_fps && x->valid && x->loss_ratio > t->loss)
            return LB_MLR_BY_LOSS;
    }
    return LB_MLR_BY_SENDER;
}

static void goal_result(const struct lb_mlr_conf *c, struct lb_mlr_result *r, unsigned g,
                        double *v)
{
    struct target t;
    struct lb_mlr_goal_result *o = &r->goal[g];
    double pending;

    target_of(&c->goal[g], 0, &t);
    memset(o, 0, sizeof(*o));
    bounds(c, r, &t, v, &o->lower_fps, &o->upper_fps, &pending);
    o->found = o->lower_fps > 0;
    if (o->found || o->upper_fps > 0)
        o->bound_by = bound_by(c, r, o, &t);
    if (!o->found)
        return;
    o->loss_quantile = loss_quantile(r, o->lower_fps, &t);
    o->conditional_fps = o->lower_fps * (1.0 - o->loss_quantile);
}

int lb_mlr_search(const struct lb_mlr_conf *c, lb_trial_fn fn, void *ctx, struct lb_mlr_result *r)
{
    int rc = lb_mlr_check(c), busy = 1;

    memset(r, 0, sizeof(*r));
    if (rc)
        return rc;
    double *v = malloc(sizeof(double) * (c->max_trials + 1));
    if (!v)
        return -ENOMEM;
    /* Trials for one goal can unsettle another's bounds: go round until a
     * pass over every goal and target needs no trial. */
    for (unsigned pass = 0; busy && rc == 0 && pass < 8; pass++) {
        busy = 0;
        for (unsigned g = 0; g < c->n_goals && rc == 0; g++)
            for (int k = LB_MLR_PRECEDING; k >= 0 && rc == 0; k--) {
                struct target t, ct;
                unsigned ext = 0;
                double fps;
                target_of(&c->goal[g], (unsigned)k, &t);
                target_of(&c->goal[g], (unsigned)k + 1, &ct);
                const struct target *coarser = k < LB_MLR_PRECEDING ? &ct : NULL;
                while (rc == 0 && (fps = next_load(c, r, &t, coarser, v, &ext)) > 0) {
                    if (r->n_trials >= c->max_trials) {
                        r->timed_out = 1;
                        rc = 1;
                        break;
                    }
                    rc = measure(c, fn, ctx, r, fps, &t, g, (unsigned)k);
                    busy = 1;
                }
            }
    }
    if (rc == 1)
        rc = 0;
    for (unsigned g = 0; g < c->n_goals; g++)
        goal_result(c, r, g, v);
    free(v);
    return rc;
}

void lb_mlr_free(struct lb_mlr_result *r)
{
    free(r->trial);
    r->trial = NULL;
    r->n_trials = r->cap = 0;
}

const char *lb_mlr_bound_name(unsigned b)
{
    static const char *const names[] = {"loss", "sender", "max_load"};
    return b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}

int lb_mlr_probe(struct lb_mlr_conf *c, double tolerance, double margin, lb_trial_fn fn,
                 void *ctx, struct lb_mlr_probe *p)
{
    struct lb_trial_out out;
    double d = 0;

    memset(p, 0, sizeof(*p));
    int rc = lb_mlr_check(c);
    if (rc || !(margin >= 0 && margin < 1))
        return rc ? rc : -EINVAL;
    for (unsigned g = 0; g < c->n_goals; g++)
        d = fmax(d, c->goal[g].final_duration);
    struct lb_trial_req req = {.fps = c->max_fps, .duration_s = d, .phase = "sender probe"};
    memset(&out, 0, sizeof(out));
    rc = fn(ctx, &req, &out);
    if (rc)
        return rc;
    double lost_share = d > 0 ? fmin(0.9, fmax(0, out.stall_s / d)) : 0;
    *p = (struct lb_mlr_probe){.ran = 1, .fps = c->max_fps, .duration = d,
                               .achieved_fps = out.achieved_fps, .stall_s = out.stall_s,
                               .reach_fps = out.achieved_fps / (1 - lost_share),
                               .valid = out.valid, .reason = out.reason,
                               .margin = fmax(tolerance, margin),
                               .max_fps = c->max_fps};
    int own = out.reason == LB_INVALID_TX_SLOW || out.reason == LB_INVALID_TX_REFUSED ||
              out.reason == LB_INVALID_TX_NOMBUF ||
              (out.reason == LB_INVALID_TX_PREEMPTED &&
               p->reach_fps < c->max_fps * (1 - tolerance));
    double reach = fmax(c->min_fps, floor(p->reach_fps * (1 - p->margin)));
    if (!out.valid && own && reach < c->max_fps) {
        p->max_fps = c->max_fps = reach;
        p->capped = c->max_is_sender = 1;
    }
    return 0;
}
