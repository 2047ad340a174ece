/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ratelim.h - a log rate limit: at most N lines a window, and a count of what was left out. */
#ifndef EBF_RATELIM_H
#define EBF_RATELIM_H

#include <stdint.h>

/*
 * Lines about events that a peer can cause at will (refused control
 * requests) go through a limit: at most `burst` lines in each window of
 * `window_s` seconds; the rest are counted, and the count is reported once
 * the window they fell in has ended:
 *
 *   if (ebf_ratelim_take(&rl, now)) log(...);
 *   ...
 *   uint64_t n = ebf_ratelim_report(&rl, now, 0);   (periodically)
 *   if (n) log("suppressed %llu more ...", n);
 *
 * Time is the caller's (seconds, any monotonic origin), so tests can drive
 * it. DPDK-free; not thread-safe: one thread owns a limiter.
 */
struct ebf_ratelim {
    unsigned burst;              /* lines per window */
    double window_s;
    double start;                /* the current window's start */
    unsigned used;               /* lines taken in it */
    int open;                    /* a window has started */
    uint64_t suppressed;         /* left out in the current window */
    uint64_t due;                /* left out in earlier windows, not reported yet */
};

/* A limiter of burst lines (at least 1) per window_s (above 0) seconds. */
void ebf_ratelim_init(struct ebf_ratelim *r, unsigned burst, double window_s);

/* An event at time now: 1 when its line may be written, 0 when it is
 * left out (and counted). */
int ebf_ratelim_take(struct ebf_ratelim *r, double now);

/* The count left out since the last report when the window they fell in
 * has ended by now (or at once with force: at exit); then 0 until more are
 * left out. */
uint64_t ebf_ratelim_report(struct ebf_ratelim *r, double now, int force);

#endif /* EBF_RATELIM_H */
