/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_route.h - the SFC place of an event over the live places: the readouts' one routing function (docs/protocol.md 13.1). */
#ifndef EBF_ROUTE_H
#define EBF_ROUTE_H

#include <stdint.h>

#define EBF_ROUTE_MAX 64               /* places a dead set can name */
#define EBF_ROUTE_NONE UINT32_MAX      /* every place is dead */

/*
 * The route of event e over n places with dead set `dead` (bit p: place p
 * is dead): the home place e % n when it lives, else the live places, in
 * increasing order, taken in turn by e / n. Every readout computes the
 * same place for the same (e, n, dead), so readouts that learn of a death
 * at different moments still agree once they know it; events of live home
 * places never move. A precomputed table (struct ebf_route) makes it one
 * division while no place is dead and two while one is; no allocation,
 * any thread, one writer per table.
 */
struct ebf_route {
    uint32_t n;                        /* places, 1 .. EBF_ROUTE_MAX */
    uint32_t n_live;                   /* places not dead */
    uint64_t dead;                     /* bit p: place p is dead */
    uint8_t live[EBF_ROUTE_MAX];       /* the live places, increasing */
};

/* The place of event e over n places (1 .. EBF_ROUTE_MAX) with dead set
 * dead (bits at or above n ignored); EBF_ROUTE_NONE when all are dead or
 * n is out of range. The reference form: no table. */
uint32_t ebf_route_place(uint64_t e, uint32_t n, uint64_t dead);

/* Sets r to n places with dead set dead (bits at or above n ignored).
 * 0, or -EINVAL when n is 0 or above EBF_ROUTE_MAX (r then routes
 * nothing). */
int ebf_route_set(struct ebf_route *r, uint32_t n, uint64_t dead);

/* The place of event e by table r: equal to ebf_route_place(e, r->n,
 * r->dead). */
static inline uint32_t ebf_route_of(const struct ebf_route *r, uint64_t e)
{
    uint32_t h;

    if (r->n_live == 0)
        return EBF_ROUTE_NONE;
    h = (uint32_t)(e % r->n);
    if (!(r->dead >> h & 1))
        return h;
    return r->live[(e / r->n) % r->n_live];
}

#endif
