/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_search.h - RFC 2544 search drivers over an abstract "run one trial" callback. */
#ifndef LB_SEARCH_H
#define LB_SEARCH_H

#include <stdint.h>

/*
 * The drivers decide which trials to run; the callback runs one (over DPDK
 * ports, kernel sockets, or a simulated link in tests) and reports what the
 * search needs. The callback keeps whatever else it wants to report. No
 * DPDK, no allocation: any thread.
 */

struct lb_trial_req {
    double fps;                  /* requested rate */
    uint64_t count;              /* frames to send; 0: fps * duration_s */
    double duration_s;           /* trial length; 0: the callback's own */
    const char *phase;           /* what the search runs it for (reports); NULL: "search" */
};

struct lb_trial_out {
    double achieved_fps;
    uint64_t sent;               /* frames the sender scheduled */
    uint64_t lost;               /* lost at the receiver, by sequence number */
    int valid;                   /* the sender achieved the rate (lb_rate_valid) */
    int reason;                  /* why not: enum lb_invalid (lb_reason.h), 0 when valid */
    double stall_s;              /* how long the sender lost its CPU in the trial */
    double p99_ns;               /* latency p99 of the trial; < 0: not measured */
};

/* Run one trial; return 0, or -errno to abort the search. */
typedef int (*lb_trial_fn)(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out);

/* A trial passes when it is valid and lost <= loss_ratio * sent. */
int lb_trial_pass(const struct lb_trial_out *o, double loss_ratio);

struct lb_search_conf {
    double max_fps;              /* first rate tried: the line rate, or a cap */
    double resolution_fps;       /* stop when the bracket is this narrow */
    double loss_ratio;           /* allowed loss: 0 for RFC 2544 zero loss */
    unsigned max_trials;
    void (*on_search)(void *arg);    /* called as each search starts (reports), or NULL */
    void *on_search_arg;
};

struct lb_search_result {
    int found;                   /* some rate passed */
    double fps;                  /* the highest rate that passed */
    unsigned trials;
    unsigned invalid;            /* trials where the sender missed the rate */
};

/*
 * Throughput (RFC 2544 26.1): try max_fps; while the bracket (highest pass,
 * lowest fail) is wider than resolution_fps, try its middle. An invalid trial
 * counts as a fail: a rate the sender cannot offer is not a rate the link was
 * shown to carry. Returns 0 or the callback's error.
 */
int lb_search_throughput(const struct lb_search_conf *c, lb_trial_fn fn, void *ctx,
                         struct lb_search_result *r);

/* One point of the frame-loss curve. */
struct lb_loss_point {
    double pct;                  /* offered load, percent of max_fps */
    double fps;
    double loss_ratio;           /* lost / sent */
    int valid;
};

/*
 * Frame-loss rate (RFC 2544 26.3): offered loads 100%, 90%, ... 10% of
 * max_fps, stopping after two successive valid trials without loss, or after
 * all ten when all is set. Fills up to 10 points; returns their count, or the
 * callback's error.
 */
int lb_search_loss(const struct lb_search_conf *c, int all, lb_trial_fn fn, void *ctx,
                   struct lb_loss_point pts[10]);

/*
 * Back-to-back (RFC 2544 26.4): the longest burst of frames at max_fps that
 * passes (zero loss whatever loss_ratio says), by binary search on the burst
 * length in [1, max_count] down to resolution frames. r->fps is set to the
 * burst length found. Returns 0 or the callback's error.
 */
int lb_search_b2b(const struct lb_search_conf *c, uint64_t max_count, uint64_t resolution,
                  lb_trial_fn fn, void *ctx, struct lb_search_result *r);

/* RFC 2544 repetitions: what is repeated, and the spread of the figures. */
enum lb_repeat_kind {
    LB_REPEAT_THROUGHPUT,        /* n throughput searches: the rates found */
    LB_REPEAT_LATENCY,           /* n trials at c->max_fps: their p99 latencies */
    LB_REPEAT_B2B,               /* n back-to-back searches: the bursts found */
};

struct lb_repeat {
    unsigned n;                  /* repetitions run */
    unsigned found;              /* of which gave a figure (found, or latency measured) */
    unsigned trials, invalid;    /* trials over all repetitions */
    double mean, stddev, min, max;   /* over the figures found; stddev of the sample */
};

/* Mean, sample standard deviation (0 for one value), min and max of n
 * values into r (n, found = n; trials untouched). */
void lb_repeat_stats(const double *v, unsigned n, struct lb_repeat *r);

/*
 * n repetitions of kind; values[i] the figure of repetition i (0 for a
 * search that found nothing, -1 for a latency not measured; those are left
 * out of the stats). b2b_max and resolution as lb_search_b2b's. Returns 0
 * or the callback's error.
 */
int lb_search_repeat(const struct lb_search_conf *c, enum lb_repeat_kind kind, unsigned n,
                     uint64_t b2b_max, uint64_t resolution, lb_trial_fn fn, void *ctx,
                     double *values, struct lb_repeat *r);

#endif /* LB_SEARCH_H */
