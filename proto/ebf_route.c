/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_route.c - the readouts' routing function over the live SFC places, and its precomputed table. */
#include <errno.h>
#include <string.h>

#include "ebf_route.h"

/* The places of d below n (d NULL: none). */
static struct ebf_places below(const struct ebf_places *d, uint32_t n)
{
    struct ebf_places r = {{0}};

    for (uint32_t p = 0; d && p < n; p++)
        if (ebf_places_has(d, p))
            ebf_places_add(&r, p);
    return r;
}

uint32_t ebf_route_place(uint64_t e, uint32_t n, const struct ebf_places *dead)
{
    uint32_t h, n_live, k;
    struct ebf_places d;

    if (n == 0 || n > EBF_ROUTE_MAX)
        return EBF_ROUTE_NONE;
    d = below(dead, n);
    n_live = n - ebf_places_count(&d, n);
    if (n_live == 0)
        return EBF_ROUTE_NONE;
    h = (uint32_t)(e % n);
    if (!ebf_places_has(&d, h))
        return h;
    k = (uint32_t)((e / n) % n_live);
    for (uint32_t p = 0; p < n; p++) {
        if (ebf_places_has(&d, p))
            continue;
        if (k-- == 0)
            return p;
    }
    return EBF_ROUTE_NONE; /* not reached: k < n_live */
}

int ebf_route_set(struct ebf_route *r, uint32_t n, const struct ebf_places *dead)
{
    memset(r, 0, sizeof(*r));
    if (n == 0 || n > EBF_ROUTE_MAX)
        return -EINVAL;
    r->n = n;
    r->dead = below(dead, n);
    for (uint32_t p = 0; p < n; p++)
        if (!ebf_places_has(&r->dead, p))
            r->live[r->n_live++] = (uint16_t)p;
    return 0;
}
