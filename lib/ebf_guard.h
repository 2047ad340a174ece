/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_guard.h - a grace period over the poll loops: wait until every loop has passed a point where it holds no port's memory. */
#ifndef EBF_GUARD_H
#define EBF_GUARD_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Quiescent-state scheme for memory that a poll loop may be using inside a
 * burst (a memif peer's rings: see ebf_unmap.c). A poll loop goes online
 * once (ebf_guard_online) before its first pass and offline
 * (ebf_guard_offline) after its last; between passes, where it holds no
 * port memory, it reports (ebf_guard_pass, from ebf_idle_note: a load and,
 * when the epoch moved, a store). Another thread that is about to free such
 * memory first makes it unreachable for new bursts (memif clears its
 * connected flag), then calls ebf_guard_sync: once that returns 0, every
 * burst that began before the call has ended. Threads that never went
 * online cost nothing and are not waited for. DPDK-free.
 */

#define EBF_GUARD_SLOTS 128          /* poll loops online at once */

struct ebf_guard_slot {
    _Atomic uint64_t seen;           /* the epoch last passed; 0: offline */
    _Atomic int used;
} __attribute__((aligned(64)));

extern _Atomic uint64_t ebf_guard_epoch;
extern __thread struct ebf_guard_slot *ebf_guard_self;

/* The calling thread's loop is online from now: 0, or -ENOSPC when
 * EBF_GUARD_SLOTS loops are online already (the loop then runs unguarded).
 * Calling it twice is harmless. */
int ebf_guard_online(void);

/* The calling thread's loop has left its last pass: not waited for again. */
void ebf_guard_offline(void);

/* Wait until every online loop has passed ebf_guard_pass after this call
 * began, or went offline: 0; -ETIMEDOUT after timeout_ms (a loop stuck
 * inside a pass, or a stopped process). *waited_us, if not NULL, is the
 * time spent. Not to be called from an online loop (it would wait for
 * itself). */
int ebf_guard_sync(unsigned timeout_ms, uint64_t *waited_us);

/* Between passes: the calling loop holds no port memory (fast path). */
static inline void ebf_guard_pass(void)
{
    struct ebf_guard_slot *s = ebf_guard_self;

    if (s) {
        uint64_t e = atomic_load_explicit(&ebf_guard_epoch, memory_order_acquire);
        if (atomic_load_explicit(&s->seen, memory_order_relaxed) != e)
            atomic_store_explicit(&s->seen, e, memory_order_release);
    }
}

#endif /* EBF_GUARD_H */
