/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_place.c - the CPUs a bench case puts its processes on: the tool's own, in order. */
#include "bench_place.h"

#include "farm_place.h"

void bench_cpus_get(struct bench_cpus *c)
{
    uint64_t m = farm_place_online();

    c->n = 0;
    for (unsigned i = 0; i < 64; i++)
        if (m >> i & 1)
            c->cpu[c->n++] = i;
}
