/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_rate.h - rate units, line rates, the absolute TSC send schedule and the achieved-rate check. */
#ifndef LB_RATE_H
#define LB_RATE_H

#include <stdint.h>

/*
 * Pure arithmetic, no DPDK: any thread. Frame sizes are Ethernet frame
 * bytes with the 4-byte FCS, as in RFC 2544 (64 .. 1518, 9000). On the wire
 * each frame also costs 20 bytes of preamble, start delimiter and gap:
 * "layer 1" counts them, "layer 2" does not.
 */

#define LB_L1_OVERHEAD 20

enum lb_unit {
    LB_UNIT_FPS,                 /* frames per second */
    LB_UNIT_L2_MBPS,             /* Mbit/s of frame bytes (FCS included) */
    LB_UNIT_L1_MBPS,             /* Mbit/s on the wire (frame + 20 bytes) */
    LB_UNIT_PCT,                 /* percent of the link speed, at layer 1 */
};

struct lb_rate {
    double value;
    enum lb_unit unit;
};

/*
 * Parse a rate: a number with an optional k/M/G multiplier, then a unit:
 * "fps" or "pps" (also no unit), "mbps" (layer 2), "mbps-l1", or "%".
 * Examples: "100000", "1.5Mfps", "800mbps", "800mbps-l1", "50%". Returns 0
 * or -EINVAL.
 */
int lb_rate_parse(const char *s, struct lb_rate *r);

/* The rate in frames/s for frames of frame_size bytes on a link of
 * link_mbps (needed for LB_UNIT_PCT only; 0 makes a percentage 0). */
double lb_rate_fps(const struct lb_rate *r, unsigned frame_size, double link_mbps);

/* Frames/s that fill a link of link_mbps with frames of frame_size bytes. */
double lb_line_fps(double link_mbps, unsigned frame_size);

/* Bits/s of fps frames of frame_size bytes, at layer 2 and layer 1. */
double lb_l2_bps(double fps, unsigned frame_size);
double lb_l1_bps(double fps, unsigned frame_size);

/*
 * The absolute send schedule: frame i is due at t0 + offset(i), computed from
 * t0 each time (constant rate: i * hz / fps) or accumulated from t0 (Poisson:
 * exponential gaps from a seeded generator), never from "now", so late
 * sending does not shift later frames and the schedule does not drift.
 */
struct lb_sched {
    uint64_t t0;                 /* TSC of frame 0 */
    double tsc_per_frame;        /* mean gap in TSC cycles */
    int poisson;
    uint64_t rng;                /* Poisson: generator state */
    double acc;                  /* Poisson: offset of the next frame, cycles */
    uint64_t i;                  /* index of the next frame */
};

void lb_sched_init(struct lb_sched *s, uint64_t t0, uint64_t hz, double fps, int poisson,
                   uint64_t seed);

/* TSC at which the next frame is due. */
static inline uint64_t lb_sched_due(const struct lb_sched *s)
{
    if (s->poisson)
        return s->t0 + (uint64_t)s->acc;
    return s->t0 + (uint64_t)((double)s->i * s->tsc_per_frame);
}

/* Step to the following frame. */
void lb_sched_next(struct lb_sched *s);

/*
 * When a burst being held is full or its hold ends, whichever is first: s
 * is the schedule at the first frame not yet in the burst, k the frames
 * still missing from it, left the frames of the trial still to number,
 * hold_end the time the burst's first frame stops waiting. Both senders
 * (lb_dp.c, lb_kernel.c) wait for this.
 */
uint64_t lb_sched_fill_due(const struct lb_sched *s, unsigned k, uint64_t left, uint64_t hold_end);

/*
 * Whether a trial achieved its requested rate: |achieved - requested| <=
 * tolerance * requested. A trial that fails is invalid: it says nothing about
 * the link, only that the sender could not offer the load.
 */
int lb_rate_valid(double requested_fps, double achieved_fps, double tolerance);

/* What the sender of a trial did, for lb_invalid_reason(). */
struct lb_tx_facts {
    double requested_fps, achieved_fps, tolerance;
    uint64_t scheduled;          /* frames given a number */
    uint64_t refused, nombuf;    /* of those, not taken by the port / no mbuf */
    double duration_s;           /* first to last send */
    double stall_s;              /* time in sender passes that took longer than
                                  * LB_STALL_US: the lcore was not running */
    int stopped;
};

#define LB_STALL_US 100

/*
 * Nanoseconds the calling thread has waited on a run queue so far
 * (runnable, not running: preempted, or woken late), from
 * /proc/thread-self/schedstat; 0 when the kernel does not say. A sender
 * reads it before and after a trial: the difference is time it lost its
 * CPU, inside system calls too, where its own pass timing cannot see it.
 * A file read: not for the fast path.
 */
uint64_t lb_run_delay_ns(void);

/*
 * Why a trial is invalid (enum lb_invalid, lb_reason.h), or LB_INVALID_NONE
 * when it is valid: stopped; valid by lb_rate_valid; faster than asked;
 * refused or no-mbuf frames above tolerance * scheduled; stalls above
 * tolerance * duration (the lcore was preempted); else too slow on its CPU.
 */
int lb_invalid_reason(const struct lb_tx_facts *f);

/* Achieved rate of n frames sent from schedule start t0 to last_tsc, at a
 * requested gap of tsc_per_frame: n / (last - t0 + gap) * hz. 0 if n = 0. */
double lb_achieved_fps(uint64_t n, uint64_t t0, uint64_t last_tsc, double tsc_per_frame,
                       uint64_t hz);

#endif /* LB_RATE_H */
