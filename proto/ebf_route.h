/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_route.h - the SFC place of an event over the live places: the readouts' one routing function (docs/protocol.md 13.1). */
#ifndef EBF_ROUTE_H
#define EBF_ROUTE_H

#include <stdint.h>

#define EBF_ROUTE_MAX 256              /* places a dead set can name */
#define EBF_ROUTE_NONE UINT32_MAX      /* every place is dead */
#define EBF_ROUTE_WORDS (EBF_ROUTE_MAX / 64)

/* A set of places 0 .. EBF_ROUTE_MAX - 1: place p is bit p % 64 of
 * w[p / 64]. All zero is the empty set. */
struct ebf_places {
    uint64_t w[EBF_ROUTE_WORDS];
};

/* 1 when place p is in s (0 for p at or above EBF_ROUTE_MAX). */
static inline int ebf_places_has(const struct ebf_places *s, uint32_t p)
{
    return p < EBF_ROUTE_MAX && (s->w[p / 64] >> (p % 64) & 1);
}

/* Puts place p (below EBF_ROUTE_MAX) into s. */
static inline void ebf_places_add(struct ebf_places *s, uint32_t p)
{
    s->w[p / 64] |= UINT64_C(1) << (p % 64);
}

/* Takes place p (below EBF_ROUTE_MAX) out of s. */
static inline void ebf_places_del(struct ebf_places *s, uint32_t p)
{
    s->w[p / 64] &= ~(UINT64_C(1) << (p % 64));
}

/* The places in s below n. */
static inline uint32_t ebf_places_count(const struct ebf_places *s, uint32_t n)
{
    uint32_t c = 0;

    for (uint32_t i = 0; i < EBF_ROUTE_WORDS && 64 * i < n; i++) {
        uint64_t w = n - 64 * i >= 64 ? s->w[i] : s->w[i] & ((UINT64_C(1) << (n - 64 * i)) - 1);
        c += (uint32_t)__builtin_popcountll(w);
    }
    return c;
}

/* The set of one word of places 0 .. 63 (bit p: place p). */
static inline struct ebf_places ebf_places_of(uint64_t bits)
{
    return (struct ebf_places){.w = {bits}};
}

/*
 * The route of event e over n places with dead set `dead`: the home place
 * e % n when it lives, else the live places, in increasing order, taken
 * in turn by e / n. Every readout computes the same place for the same
 * (e, n, dead), so readouts that learn of a death at different moments
 * still agree once they know it; events of live home places never move.
 * A precomputed table (struct ebf_route) makes it one division while no
 * place is dead and two while one is; no allocation, any thread, one
 * writer per table.
 */
struct ebf_route {
    uint32_t n;                        /* places, 1 .. EBF_ROUTE_MAX */
    uint32_t n_live;                   /* places not dead */
    struct ebf_places dead;            /* the dead places */
    uint16_t live[EBF_ROUTE_MAX];      /* the live places, increasing */
};

/* The place of event e over n places (1 .. EBF_ROUTE_MAX) with dead set
 * dead (places at or above n ignored; NULL: none dead); EBF_ROUTE_NONE
 * when all are dead or n is out of range. The reference form: no table. */
uint32_t ebf_route_place(uint64_t e, uint32_t n, const struct ebf_places *dead);

/* Sets r to n places with dead set dead (places at or above n ignored;
 * NULL: none dead). 0, or -EINVAL when n is 0 or above EBF_ROUTE_MAX (r
 * then routes nothing). */
int ebf_route_set(struct ebf_route *r, uint32_t n, const struct ebf_places *dead);

/* The place of event e by table r: equal to ebf_route_place(e, r->n,
 * r->dead). */
static inline uint32_t ebf_route_of(const struct ebf_route *r, uint64_t e)
{
    uint32_t h;

    if (r->n_live == 0)
        return EBF_ROUTE_NONE;
    h = (uint32_t)(e % r->n);
    if (!(r->dead.w[h / 64] >> (h % 64) & 1))
        return h;
    return r->live[(e / r->n) % r->n_live];
}

#endif
