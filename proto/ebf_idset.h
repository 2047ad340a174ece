/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_idset.h - the ledger's id record: an exact, bounded, mergeable digest of a multiset of event ids. */
#ifndef EBF_IDSET_H
#define EBF_IDSET_H

#include <stdint.h>

#include "ebf_mix.h"

/*
 * An invertible Bloom lookup table (IBLT) of event ids. Every id added
 * updates one cell in each of EBF_IDSET_PARTS partitions of
 * EBF_IDSET_PART_CELLS cells: the cell's count (+1), its id sum (+id) and
 * its hash sum (+ebf_idset_hash(id)), all modulo 2^64. Records therefore
 * add and subtract cell by cell: the nodes' and the SFC's records can be
 * summed, and subtracted from the record of the readout's id range. The
 * difference of two records holds only the ids whose multiplicity differs;
 * when there are few (up to about 30 with these sizes) they are listed
 * exactly by peeling cells that hold a single id; when there are more, the
 * difference is still detected (counts and hash sums do not vanish), just
 * not listed completely. The record is 3 * 48 u64 whatever the run length.
 *
 * Adding is a few multiply/xor and three cache lines: fit for the fast path.
 * No allocation; any thread, one writer per record.
 */

#define EBF_IDSET_PARTS 3
#define EBF_IDSET_PART_CELLS 16
#define EBF_IDSET_CELLS (EBF_IDSET_PARTS * EBF_IDSET_PART_CELLS)

struct ebf_idset {
    uint64_t count[EBF_IDSET_CELLS];
    uint64_t id_sum[EBF_IDSET_CELLS];
    uint64_t hash_sum[EBF_IDSET_CELLS];
};

/* The check hash of an id (distinct from the cell choice). */
static inline uint64_t ebf_idset_hash(uint64_t id)
{
    return ebf_mix64(id ^ 0x6c6564676572ull);   /* "ledger" */
}

/* Cell of id in partition k. */
static inline unsigned ebf_idset_cell(uint64_t id, unsigned k)
{
    uint64_t h = ebf_mix64(id ^ 0x69647365ull); /* "idse" */
    return k * EBF_IDSET_PART_CELLS + (unsigned)((h >> (16 * k)) % EBF_IDSET_PART_CELLS);
}

void ebf_idset_init(struct ebf_idset *s);

/* Add id once (several adds of one id count as many). */
static inline void ebf_idset_add(struct ebf_idset *s, uint64_t id)
{
    uint64_t hs = ebf_idset_hash(id);

    for (unsigned k = 0; k < EBF_IDSET_PARTS; k++) {
        unsigned c = ebf_idset_cell(id, k);
        s->count[c]++;
        s->id_sum[c] += id;
        s->hash_sum[c] += hs;
    }
}

/* Take id out once: the inverse of ebf_idset_add. */
static inline void ebf_idset_remove(struct ebf_idset *s, uint64_t id)
{
    uint64_t hs = ebf_idset_hash(id);

    for (unsigned k = 0; k < EBF_IDSET_PARTS; k++) {
        unsigned c = ebf_idset_cell(id, k);
        s->count[c]--;
        s->id_sum[c] -= id;
        s->hash_sum[c] -= hs;
    }
}

/* Add every id of [lo, lo + n). */
void ebf_idset_add_range(struct ebf_idset *s, uint64_t lo, uint64_t n);

/*
 * The first id lo of n consecutive ids lo .. lo + n - 1 whose id sum,
 * modulo 2^64 as a record adds them, is sum: solves sum = n lo + n (n - 1) / 2
 * modulo 2^64, exact for any n (10^10 ids and more, where n (n - 1) / 2 no
 * longer fits in 64 bits). With n = 2^k m (m odd), lo is determined modulo
 * 2^(64 - k): *lo is the smallest solution. Returns 0, or -1 when no lo
 * fits (*lo is then 0).
 */
int ebf_idset_range_lo(uint64_t n, uint64_t sum, uint64_t *lo);

/* into += from (sign > 0) or into -= from (sign < 0). */
void ebf_idset_merge(struct ebf_idset *into, const struct ebf_idset *from, int sign);

/* Whether every cell is zero (the two records subtracted were equal). */
int ebf_idset_empty(const struct ebf_idset *s);

/*
 * List the ids of a difference record d = want - got: ids with a positive
 * multiplicity (in want more often than in got: missing) go to missing,
 * negative ones (in got more often: extra, for example decided twice) to
 * extra, each as many times as it differs, at most max each, in increasing
 * order. Returns 1 when d was listed completely: d consumed and every id
 * in the lists. 0 when some ids could not be listed: too many differences
 * to peel, or more than max of one kind (the first max peeled are then
 * kept, not the lowest), with *n_missing and *n_extra set to what was
 * listed.
 */
int ebf_idset_list(struct ebf_idset *d, uint64_t *missing, unsigned *n_missing,
                   uint64_t *extra, unsigned *n_extra, unsigned max);

#endif /* EBF_IDSET_H */
