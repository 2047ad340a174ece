/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_cycles.h - busy-cycle accounting of a poll loop: TSC cycles of the passes that did work and of the idle ones. */
#ifndef EBF_CYCLES_H
#define EBF_CYCLES_H

#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "ebf_idle.h"
#include "ebf_lcore_stats.h"

/*
 * A pass of a poll loop is the time between two calls of
 * ebf_cycles_pass_end() on its lcore: the polling, the work, and the
 * back-off of an idle pass. Each pass reads the TSC once, at its end, after
 * the back-off, so a pass that did work (busy) is charged with what it did
 * and an idle pass with its polling and its sleep. Busy cycles over the
 * frames or events handled are the lcore's cost per frame or event, whatever
 * held the rate back (a slow generator, cores shared with other processes):
 * per-core capacity.
 *
 * One struct ebf_cycles per lcore (cache-aligned, written by that lcore
 * only; others see copies that it makes, as in a snapshot). Counting is on
 * between ebf_cycles_start() and ebf_cycles_stop(), so the counters cover
 * one run.
 *
 * EBF_CYCLES_TSC() reads the cycle counter: rte_rdtsc(), unless a test
 * defines it before including this header to drive the accounting with a
 * counter of its own.
 */
#ifndef EBF_CYCLES_TSC
#include <rte_cycles.h>
#define EBF_CYCLES_TSC() rte_rdtsc()
#endif

struct ebf_cycles {
    uint64_t busy_cycles;        /* passes that did work */
    uint64_t idle_cycles;        /* passes that did none, their back-off included */
    uint64_t busy_passes, idle_passes;
    uint64_t last;               /* the TSC at the end of the last pass */
    int on;                      /* counting */
} __rte_cache_aligned;

/* Zero c and count from now (one TSC read). */
static inline void ebf_cycles_start(struct ebf_cycles *c)
{
    memset(c, 0, sizeof(*c));
    c->last = EBF_CYCLES_TSC();
    c->on = 1;
}

/* Stop counting: the counters keep their values (no TSC read). */
static inline void ebf_cycles_stop(struct ebf_cycles *c)
{
    c->on = 0;
}

/* Charge the pass that ends now to busy when it did work, else to idle. */
static inline void ebf_cycles_note(struct ebf_cycles *c, unsigned work)
{
    if (!c->on)
        return;
    uint64_t now = EBF_CYCLES_TSC(), d = now - c->last;

    c->last = now;
    if (work) {
        c->busy_cycles += d;
        c->busy_passes++;
    } else {
        c->idle_cycles += d;
        c->idle_passes++;
    }
}

/*
 * The end of a pass that did work (0: none): back off if it was idle
 * (ebf_idle_note), then charge the pass, its sleep included. Every poll
 * loop calls this once per pass; c may be NULL (back-off only).
 */
static inline void ebf_cycles_pass_end(struct ebf_cycles *c, struct ebf_idle *idle,
                                       unsigned work)
{
    ebf_idle_note(idle, work);
    if (c)
        ebf_cycles_note(c, work);
}

/* Copy the n loops' counters (n <= EBF_LCORE_STATS_MAX) and the TSC rate
 * into out: on the lcore that owns them, or once they have stopped. */
static inline void ebf_cycles_read(const struct ebf_cycles *c, unsigned n, uint64_t tsc_hz,
                                   struct ebf_lcore_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->tsc_hz = tsc_hz;
    out->n = (uint16_t)(n < EBF_LCORE_STATS_MAX ? n : EBF_LCORE_STATS_MAX);
    for (unsigned i = 0; i < out->n; i++) {
        out->busy_cycles[i] = c[i].busy_cycles;
        out->idle_cycles[i] = c[i].idle_cycles;
        out->busy_passes[i] = c[i].busy_passes;
        out->idle_passes[i] = c[i].idle_passes;
    }
}

#endif /* EBF_CYCLES_H */
