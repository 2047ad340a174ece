/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_guard.c - the grace period over the poll loops: slots, going online and offline, the wait. */
#include "ebf_guard.h"

#include <errno.h>
#include <stddef.h>
#include <time.h>

_Atomic uint64_t ebf_guard_epoch = 1;    /* 0 marks an offline slot */
__thread struct ebf_guard_slot *ebf_guard_self;

static struct ebf_guard_slot slots[EBF_GUARD_SLOTS];

static uint64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Claim a free slot and publish the current epoch in it; the full fence
 * orders that store before the loop's first burst (a sync that missed the
 * slot began before it, and its unreachable memory is already so). */
int ebf_guard_online(void)
{
    if (ebf_guard_self)
        return 0;
    for (unsigned i = 0; i < EBF_GUARD_SLOTS; i++) {
        int free_slot = 0;
        if (!atomic_compare_exchange_strong(&slots[i].used, &free_slot, 1))
            continue;
        atomic_store(&slots[i].seen, atomic_load(&ebf_guard_epoch));
        atomic_thread_fence(memory_order_seq_cst);
        ebf_guard_self = &slots[i];
        return 0;
    }
    return -ENOSPC;
}

void ebf_guard_offline(void)
{
    struct ebf_guard_slot *s = ebf_guard_self;

    if (!s)
        return;
    ebf_guard_self = NULL;
    atomic_store_explicit(&s->seen, 0, memory_order_release);
    atomic_store_explicit(&s->used, 0, memory_order_release);
}

/* A new epoch e, then each online slot in turn until it has seen e or gone
 * offline. Sleeps 20 us between looks: the waiter is a control thread. */
int ebf_guard_sync(unsigned timeout_ms, uint64_t *waited_us)
{
    uint64_t e = atomic_fetch_add(&ebf_guard_epoch, 1) + 1;
    uint64_t t0 = now_us(), end = t0 + (uint64_t)timeout_ms * 1000u;
    const struct timespec nap = {0, 20000};
    int rc = 0;

    for (unsigned i = 0; i < EBF_GUARD_SLOTS && rc == 0; i++) {
        for (;;) {
            uint64_t v = atomic_load(&slots[i].seen);
            if (v == 0 || v >= e)
                break;
            if (now_us() >= end) {
                rc = -ETIMEDOUT;
                break;
            }
            nanosleep(&nap, NULL);
        }
    }
    if (waited_us)
        *waited_us = now_us() - t0;
    return rc;
}
