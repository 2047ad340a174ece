/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_place.h - the CPUs a bench case puts its processes on: the tool's own, in order. */
#ifndef BENCH_PLACE_H
#define BENCH_PLACE_H

#include <stdint.h>

/* The CPUs this tool may run on (of CPUs 0..63), lowest first. */
struct bench_cpus {
    unsigned n;
    unsigned cpu[64];
};

void bench_cpus_get(struct bench_cpus *c);

/* The mask of CPU cpu. */
static inline uint64_t bench_cpu_bit(unsigned cpu)
{
    return 1ull << cpu;
}

#endif /* BENCH_PLACE_H */
