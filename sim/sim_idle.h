/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_idle.h - the poll loops' idle back-off (lib/ebf_idle.c) as a wake-up delay: how late an idle daemon sees a frame. */
#ifndef SIM_IDLE_H
#define SIM_IDLE_H

#include <stdint.h>

/*
 * A daemon run with `idle: backoff` (lib/ebf_idle.c) polls flat out for
 * its spin and pause passes after its last work, then sleeps 1 us,
 * doubling each empty pass up to a cap (200 us); every sleep takes what it
 * asks plus the kernel's overshoot (the timer slack, 50 us by default, and
 * the wake-up). A frame that arrives while it sleeps waits for the end of
 * that sleep. The doubling sleeps are one fixed sequence after the last
 * work, so a frame within them waits a known time; once at the cap, the
 * phase of the sleeps against a frame is lost in their jitter (tens of
 * microseconds each), and the wait is uniform over one capped sleep.
 * Times in ps. max_sleep_ps 0: the loop spins (`idle: spin`), no wait.
 */
struct sim_idle {
    uint64_t spin_ps;            /* the spin and pause passes before the first sleep */
    uint64_t extra_ps;           /* what a sleep takes beyond what it asks */
    uint64_t max_sleep_ps;       /* the sleep cap; 0: no back-off */
};

/* The back-off of a cap of max_sleep_us (0: none), each sleep extra_us
 * longer than asked, after spin_us of polling. */
void sim_idle_init(struct sim_idle *w, double max_sleep_us, double extra_us, double spin_us);

/* The delay from a frame's arrival, idle_ps after the loop's last work,
 * to the loop's next poll; u (uniform in [0, 1)) places the arrival
 * within a capped sleep. 0 without back-off or within the spin. */
uint64_t sim_idle_wake(const struct sim_idle *w, uint64_t idle_ps, double u);

/* 1 when a frame idle_ps after the last work finds the loop at its cap
 * (sim_idle_wake then uses u), else 0. */
int sim_idle_capped(const struct sim_idle *w, uint64_t idle_ps);

#endif /* SIM_IDLE_H */
