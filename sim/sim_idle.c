/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_idle.c - the idle back-off's wake-up delay (lib/ebf_idle.c's rule in virtual time). */
#include "sim_idle.h"

#define PS_PER_US 1000000.0

void sim_idle_init(struct sim_idle *w, double max_sleep_us, double extra_us, double spin_us)
{
    w->max_sleep_ps = (uint64_t)(max_sleep_us * PS_PER_US);
    w->extra_ps = (uint64_t)(extra_us * PS_PER_US);
    w->spin_ps = (uint64_t)(spin_us * PS_PER_US);
}

/* Walk the doubling sleeps (1 us, 2, 4, ... below the cap, as
 * ebf_idle_wait) from the end of the spin: *end is the end of the sleep
 * that idle_ps falls in, or the start of the capped ones; returns 1 when
 * idle_ps falls in a doubling sleep. */
static int ramp(const struct sim_idle *w, uint64_t idle_ps, uint64_t *end)
{
    uint64_t t = w->spin_ps, s = (uint64_t)PS_PER_US;

    while (s < w->max_sleep_ps) {
        t += s + w->extra_ps;
        if (idle_ps < t) {
            *end = t;
            return 1;
        }
        s *= 2;
    }
    *end = t;
    return 0;
}

int sim_idle_capped(const struct sim_idle *w, uint64_t idle_ps)
{
    uint64_t end;

    if (!w->max_sleep_ps || idle_ps < w->spin_ps)
        return 0;
    return !ramp(w, idle_ps, &end);
}

uint64_t sim_idle_wake(const struct sim_idle *w, uint64_t idle_ps, double u)
{
    uint64_t end;

    if (!w->max_sleep_ps || idle_ps < w->spin_ps)
        return 0;
    if (ramp(w, idle_ps, &end))
        return end - idle_ps;
    return (uint64_t)(u * (double)(w->max_sleep_ps + w->extra_ps));
}
