/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_idle.h - idle back-off for poll loops: spin, then pause, then a capped sleep. */
#ifndef EBF_IDLE_H
#define EBF_IDLE_H

#include <stdint.h>

#include "ebf_guard.h"

/*
 * A poll loop calls ebf_idle_note(b, work) once per iteration with the amount
 * of work it did. In EBF_IDLE_SPIN (the production default) nothing else
 * happens. In EBF_IDLE_BACKOFF an idle loop first spins for `spin` empty
 * iterations, then issues a CPU pause for `pause` more, then sleeps, doubling
 * the sleep from 1 us up to max_sleep_us, so that several poll-mode processes
 * can share a few cores. Any work resets it. One struct per lcore. Each call
 * is also the loop's quiescent point (ebf_guard_pass): it holds no port
 * memory there.
 */

enum ebf_idle_mode {
    EBF_IDLE_SPIN = 0,
    EBF_IDLE_BACKOFF = 1,
};

struct ebf_idle {
    enum ebf_idle_mode mode;
    uint32_t spin;               /* empty iterations before pausing */
    uint32_t pause;              /* further iterations with a CPU pause */
    uint32_t max_sleep_us;       /* sleep cap */
    uint32_t empty;              /* consecutive empty iterations */
    uint32_t sleep_us;           /* next sleep */
    uint64_t sleeps;             /* how often it slept */
};

/* Defaults: spin 256, pause 1024, sleep up to 200 us. */
void ebf_idle_init(struct ebf_idle *b, enum ebf_idle_mode mode);

/* Parse "spin" or "backoff"; returns 0 or -EINVAL. */
int ebf_idle_parse(const char *s, enum ebf_idle_mode *mode);

/* Slow part of ebf_idle_note: pause or sleep. */
void ebf_idle_wait(struct ebf_idle *b);

static inline void ebf_idle_note(struct ebf_idle *b, unsigned work)
{
    ebf_guard_pass();
    if (work) {
        b->empty = 0;
        b->sleep_us = 1;
    } else if (b->mode == EBF_IDLE_BACKOFF) {
        ebf_idle_wait(b);
    }
}

#endif /* EBF_IDLE_H */
