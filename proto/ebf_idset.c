/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_idset.c - the ledger's id record: ranges, merges and listing the ids of a difference. */
#include "ebf_idset.h"

#include <stdlib.h>
#include <string.h>

void ebf_idset_init(struct ebf_idset *s)
{
    memset(s, 0, sizeof(*s));
}

void ebf_idset_add_range(struct ebf_idset *s, uint64_t lo, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        ebf_idset_add(s, lo + i);
}

void ebf_idset_merge(struct ebf_idset *into, const struct ebf_idset *from, int sign)
{
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
        if (sign >= 0) {
            into->count[c] += from->count[c];
            into->id_sum[c] += from->id_sum[c];
            into->hash_sum[c] += from->hash_sum[c];
        } else {
            into->count[c] -= from->count[c];
            into->id_sum[c] -= from->id_sum[c];
            into->hash_sum[c] -= from->hash_sum[c];
        }
    }
}

int ebf_idset_empty(const struct ebf_idset *s)
{
    for (unsigned c = 0; c < EBF_IDSET_CELLS; c++)
        if (s->count[c] || s->id_sum[c] || s->hash_sum[c])
            return 0;
    return 1;
}

/* Modular inverse of an odd number modulo 2^64 (Newton's iteration). */
static uint64_t inv_odd(uint64_t a)
{
    uint64_t x = a;             /* correct to 3 bits for any odd a */
    for (int i = 0; i < 5; i++)
        x *= 2 - a * x;
    return x;
}

int ebf_idset_range_lo(uint64_t n, uint64_t sum, uint64_t *lo)
{
    *lo = 0;
    if (n == 0)
        return 0;
    /* n (n - 1) / 2 modulo 2^64: halve the even factor first. */
    uint64_t tri = (n & 1) ? n * ((n - 1) / 2) : (n / 2) * (n - 1);
    uint64_t d = sum - tri;                     /* n lo, modulo 2^64 */
    unsigned tz = (unsigned)__builtin_ctzll(n);
    if (tz && (d & ((1ull << tz) - 1)))
        return -1;
    *lo = (d >> tz) * inv_odd(n >> tz);
    if (tz)
        *lo &= ~0ull >> tz;                     /* the smallest of the 2^tz solutions */
    return 0;
}

/*
 * Does cell c hold copies of a single id? It does when count is m in
 * [-4, 4] \ {0}, id_sum = m * id and hash_sum = m * hash(id) for an id
 * whose cell in this partition is c. Sets *id and *m.
 */
static int pure(const struct ebf_idset *d, unsigned c, uint64_t *id, int64_t *m)
{
    int64_t k = (int64_t)d->count[c];

    if (k == 0 || k > 4 || k < -4)
        return 0;
    uint64_t mk = (uint64_t)k, s = d->id_sum[c];
    unsigned tz = (unsigned)__builtin_ctzll(mk);
    if (tz && (s & ((1ull << tz) - 1)))
        return 0;
    uint64_t base = (s >> tz) * inv_odd(mk >> tz);
    if (tz)
        base &= ~0ull >> tz;    /* solutions: base + j * 2^(64 - tz) */
    for (uint64_t j = 0; j < (1ull << tz); j++) {
        uint64_t cand = base + (tz ? j << (64 - tz) : 0);
        if (ebf_idset_cell(cand, c / EBF_IDSET_PART_CELLS) == c &&
            mk * ebf_idset_hash(cand) == d->hash_sum[c] && mk * cand == s) {
            *id = cand;
            *m = k;
            return 1;
        }
    }
    return 0;
}

static void take(struct ebf_idset *d, uint64_t id, int64_t m)
{
    uint64_t mk = (uint64_t)m, hs = ebf_idset_hash(id);

    for (unsigned k = 0; k < EBF_IDSET_PARTS; k++) {
        unsigned c = ebf_idset_cell(id, k);
        d->count[c] -= mk;
        d->id_sum[c] -= mk * id;
        d->hash_sum[c] -= mk * hs;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ebf_idset_list(struct ebf_idset *d, uint64_t *missing, unsigned *n_missing,
                   uint64_t *extra, unsigned *n_extra, unsigned max)
{
    int progress = 1, cut = 0;

    *n_missing = *n_extra = 0;
    while (progress) {
        progress = 0;
        for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
            uint64_t id;
            int64_t m;
            if (!pure(d, c, &id, &m))
                continue;
            take(d, id, m);
            for (int64_t i = 0; i < (m > 0 ? m : -m); i++) {
                if (m > 0 && *n_missing < max)
                    missing[(*n_missing)++] = id;
                else if (m < 0 && *n_extra < max)
                    extra[(*n_extra)++] = id;
                else
                    cut = 1;    /* peeled, but beyond max: not listed */
            }
            progress = 1;
        }
    }
    qsort(missing, *n_missing, sizeof(uint64_t), cmp_u64);
    qsort(extra, *n_extra, sizeof(uint64_t), cmp_u64);
    return ebf_idset_empty(d) && !cut;
}
