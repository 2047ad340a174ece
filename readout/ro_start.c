/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_start.c - a run's common start instant (wall clock, from START) as this readout's TSC. */
#include "ro_start.h"

uint64_t ro_start_tsc(uint64_t at_ns, uint64_t now_ns, uint64_t now_tsc, uint64_t hz,
                      uint64_t *late_ns)
{
    *late_ns = 0;
    if (at_ns == 0)
        return now_tsc;
    if (at_ns <= now_ns) {
        *late_ns = now_ns - at_ns;
        return now_tsc;
    }
    /* 128-bit product: exact to the cycle, no overflow for any hz. */
    unsigned __int128 d = (unsigned __int128)(at_ns - now_ns) * hz;
    return now_tsc + (uint64_t)(d / 1000000000u);
}
