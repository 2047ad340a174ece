/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_route.c - the readouts' routing function over the live SFC places, and its precomputed table. */
#include <errno.h>
#include <string.h>

#include "ebf_route.h"

/* Bits of places 0 .. n-1; n is 1 .. 64. */
static uint64_t route_mask(uint32_t n)
{
    return n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
}

uint32_t ebf_route_place(uint64_t e, uint32_t n, uint64_t dead)
{
    uint32_t h, n_live, k;

    if (n == 0 || n > EBF_ROUTE_MAX)
        return EBF_ROUTE_NONE;
    dead &= route_mask(n);
    n_live = n - (uint32_t)__builtin_popcountll(dead);
    if (n_live == 0)
        return EBF_ROUTE_NONE;
    h = (uint32_t)(e % n);
    if (!(dead >> h & 1))
        return h;
    k = (uint32_t)((e / n) % n_live);
    for (uint32_t p = 0; p < n; p++) {
        if (dead >> p & 1)
            continue;
        if (k-- == 0)
            return p;
    }
    return EBF_ROUTE_NONE; /* not reached: k < n_live */
}

int ebf_route_set(struct ebf_route *r, uint32_t n, uint64_t dead)
{
    memset(r, 0, sizeof(*r));
    if (n == 0 || n > EBF_ROUTE_MAX)
        return -EINVAL;
    r->n = n;
    r->dead = dead & route_mask(n);
    for (uint32_t p = 0; p < n; p++)
        if (!(r->dead >> p & 1))
            r->live[r->n_live++] = (uint8_t)p;
    return 0;
}
