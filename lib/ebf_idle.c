/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_idle.c - the slow path of the idle back-off. */
#include "ebf_idle.h"

#include <errno.h>
#include <string.h>
#include <time.h>

void ebf_idle_init(struct ebf_idle *b, enum ebf_idle_mode mode)
{
    memset(b, 0, sizeof(*b));
    b->mode = mode;
    b->spin = 256;
    b->pause = 1024;
    b->max_sleep_us = 200;
    b->sleep_us = 1;
}

int ebf_idle_parse(const char *s, enum ebf_idle_mode *mode)
{
    if (strcmp(s, "spin") == 0)
        *mode = EBF_IDLE_SPIN;
    else if (strcmp(s, "backoff") == 0)
        *mode = EBF_IDLE_BACKOFF;
    else
        return -EINVAL;
    return 0;
}

static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

void ebf_idle_wait(struct ebf_idle *b)
{
    uint32_t n = ++b->empty;

    if (n <= b->spin)
        return;
    if (n <= b->spin + b->pause) {
        cpu_pause();
        return;
    }
    struct timespec ts = {0, (long)b->sleep_us * 1000};
    nanosleep(&ts, NULL);
    b->sleeps++;
    if (b->sleep_us < b->max_sleep_us)
        b->sleep_us = b->sleep_us * 2 > b->max_sleep_us ? b->max_sleep_us : b->sleep_us * 2;
}
