/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_drain.h - the SFC's staged drain at the stop, as a state machine: quiet input, then acks, then done; no DPDK. */
#ifndef SFC_DRAIN_H
#define SFC_DRAIN_H

#include <stdint.h>

enum sfc_drain_phase {
    SFC_DRAIN_RUNNING = 0,       /* not draining */
    SFC_DRAIN_QUIET,             /* taking input until it has been quiet quiet_tsc */
    SFC_DRAIN_ACKS,              /* no input; waiting for acks until end */
    SFC_DRAIN_DONE,
};

struct sfc_drain {
    int phase;                   /* enum sfc_drain_phase */
    uint64_t last_rx, frames, end;
    uint64_t quiet_tsc, timeout_tsc;
};

static inline void sfc_drain_init(struct sfc_drain *d, uint64_t quiet_tsc, uint64_t timeout_tsc)
{
    *d = (struct sfc_drain){.quiet_tsc = quiet_tsc, .timeout_tsc = timeout_tsc};
}

/* The stop: input counted frames so far at now. */
static inline void sfc_drain_begin(struct sfc_drain *d, uint64_t now, uint64_t frames)
{
    d->phase = SFC_DRAIN_QUIET;
    d->last_rx = now;
    d->frames = frames;
}

/* Input has counted frames at now: 1 when it has not changed for
 * quiet_tsc (intake may end), else 0. */
static inline int sfc_drain_quiet(struct sfc_drain *d, uint64_t now, uint64_t frames)
{
    if (frames != d->frames) {
        d->frames = frames;
        d->last_rx = now;
    }
    return now - d->last_rx >= d->quiet_tsc;
}

/* Intake ended at now: acks are waited for until timeout_tsc from now. */
static inline void sfc_drain_acks(struct sfc_drain *d, uint64_t now)
{
    d->end = now + d->timeout_tsc;
    d->phase = SFC_DRAIN_ACKS;
}

/* With held events still in the table at now: 1 (and done) when none is
 * left or the wait is over, else 0. */
static inline int sfc_drain_over(struct sfc_drain *d, uint64_t now, uint32_t held)
{
    if (held != 0 && now <= d->end)
        return 0;
    d->phase = SFC_DRAIN_DONE;
    return 1;
}

#endif /* SFC_DRAIN_H */
