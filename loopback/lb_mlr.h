/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_mlr.h - MLRsearch (draft-ietf-bmwg-mlrsearch) over the abstract trial callback: conditional throughput per search goal. */
#ifndef LB_MLR_H
#define LB_MLR_H

#include <stdint.h>

#include "lb_search.h"

/*
 * Pure and deterministic given the callback's answers: no DPDK, no clock.
 * Any thread; the result owns a malloc'd history (lb_mlr_free).
 *
 * A goal (the draft's "search goal"): a trial is bad when it is invalid or
 * its loss ratio exceeds loss_ratio. A load is a lower bound of a target
 * when, even if all the duration still missing to duration_sum were bad,
 * the bad share stays <= exceed_ratio; an upper bound when, even if all
 * of it were good, the bad share exceeds it (CSIT's estimates(), short
 * trials included). Each goal is reached through LB_MLR_PRECEDING coarser
 * targets first: width doubled and trial duration shortened geometrically
 * towards initial_duration per step, a single trial each, so trials grow
 * longer as the bracket narrows. Loads are whole frames per second.
 */

#define LB_MLR_MAX_GOALS 4
#define LB_MLR_PRECEDING 2

struct lb_mlr_goal {
    double loss_ratio;           /* --goal-loss */
    double exceed_ratio;         /* --goal-exceed, in [0, 1) */
    double final_duration;       /* --goal-duration, s */
    double duration_sum;         /* --goal-duration-sum, s, >= final_duration */
    double width;                /* --goal-width: relative width of the final bracket */
    double initial_duration;     /* s: trials of the coarsest preceding target */
};

struct lb_mlr_conf {
    double min_fps, max_fps;
    int max_is_sender;           /* max_fps is the sender's measured reach (lb_mlr_probe);
                                  * an invalid trial there makes it an upper bound for
                                  * every target, so it is not asked again */
    unsigned n_goals;
    struct lb_mlr_goal goal[LB_MLR_MAX_GOALS];
    unsigned max_trials;         /* the search stops (timed_out) after this many */
};

/* One trial of the history. */
struct lb_mlr_trial {
    double fps, duration;        /* intended load and duration */
    double loss_ratio;           /* lost / sent */
    double achieved_fps;
    int valid;
    unsigned goal, target;       /* which goal; target 0 = final, k = k-th preceding */
};

/* What a goal's result is bound by (reports): the draft's max load is a
 * search parameter, and a result at it says nothing of the loads above. */
enum lb_mlr_bound {
    LB_MLR_BY_LOSS,              /* the upper bound: trials that lost more than the goal allows */
    LB_MLR_BY_SENDER,            /* the sender: max_fps was its reach (max_is_sender) and is a
                                  * lower bound, or every bad trial at the upper bound is invalid */
    LB_MLR_BY_MAX_LOAD,          /* max_fps, the configured maximum, is a lower bound */
};

/* "loss", "sender", "max_load"; "unknown" out of range. */
const char *lb_mlr_bound_name(unsigned b);

struct lb_mlr_goal_result {
    int found;                   /* a relevant lower bound exists */
    double lower_fps;            /* relevant lower bound */
    double upper_fps;            /* relevant upper bound; 0: max_fps was a lower bound */
    double loss_quantile;        /* the pessimistic loss ratio at the lower bound */
    double conditional_fps;      /* lower_fps * (1 - loss_quantile) */
    int bound_by;                /* enum lb_mlr_bound */
};

struct lb_mlr_result {
    unsigned n_trials, cap, invalid;
    struct lb_mlr_trial *trial;  /* every trial, in order */
    int timed_out;               /* max_trials reached before every goal was met */
    struct lb_mlr_goal_result goal[LB_MLR_MAX_GOALS];
};

/* Fill a goal with the defaults: zero loss, zero exceed, one trial of
 * duration s at a time, width 0.005, initial duration s / 4. */
void lb_mlr_goal_default(struct lb_mlr_goal *g, double duration_s);

/* 0, or -EINVAL naming nothing: a goal out of range (see struct). */
int lb_mlr_check(const struct lb_mlr_conf *c);

/*
 * Run the search: fn gets req->fps (whole) and req->duration_s; r is reset
 * first. Returns 0 (also when timed out or nothing was found: see r), the
 * callback's error, -EINVAL for a bad conf, or -ENOMEM.
 */
int lb_mlr_search(const struct lb_mlr_conf *c, lb_trial_fn fn, void *ctx,
                  struct lb_mlr_result *r);

void lb_mlr_free(struct lb_mlr_result *r);

/* The sender-capacity probe of one search (not one of its trials). */
struct lb_mlr_probe {
    int ran;
    double fps, duration;        /* asked: the configured max_fps, the longest final duration */
    double achieved_fps;
    double stall_s;              /* how long the sender lost its CPU */
    double reach_fps;            /* achieved_fps while it had its CPU */
    int valid, reason;           /* the trial's validity, enum lb_invalid (lb_reason.h) */
    double margin;               /* the share below the reach a cap takes: max(tolerance, margin) */
    double max_fps;              /* the max load the search then uses */
    int capped;                  /* max_fps is the sender's reach, below the configured one */
};

/*
 * Before a search: one trial at c->max_fps as long as the longest final
 * trial of c's goals, phase "sender probe". Its reach is the rate it
 * achieved while it had its CPU: achieved / (1 - stall / duration), the
 * stall at most 90 % of the trial. When the sender could not offer the
 * load for a reason of its own (tx_slow, tx_refused, tx_nombuf), or lost
 * its CPU (tx_preempted) but would have missed the load even with it (its
 * reach below the load less the tolerance), the search's max load becomes
 * its reach less the margin, max(min_fps, floor(reach * (1 - m))) with m =
 * max(tolerance, margin), and c->max_is_sender is set: a trial asked for
 * that much stays valid when the sender then reaches up to about m +
 * tolerance less than in the probe (its own trial-to-trial variation, which
 * the margin is there to cover; the tolerance still decides validity).
 * margin in [0, 1). p says what happened. Returns 0, -EINVAL (a bad conf
 * or margin, no trial run) or the callback's error.
 */
int lb_mlr_probe(struct lb_mlr_conf *c, double tolerance, double margin, lb_trial_fn fn,
                 void *ctx, struct lb_mlr_probe *p);

#endif /* LB_MLR_H */
