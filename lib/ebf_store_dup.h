/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_dup.h - event ids stored more than once across a run's files: replayed copies dropped, unmarked ones reported (docs/storage.md). */
#ifndef EBF_STORE_DUP_H
#define EBF_STORE_DUP_H

#include <stddef.h>
#include <stdint.h>

/*
 * After an SFC's death an event may be decided twice (docs/protocol.md
 * 13.6): by the dead SFC's node, and again by a survivor's from replayed
 * pieces; both may store it. The survivor's record carries
 * EBF_STORE_REC_REPLAYED. Reading a run's files, each id is kept once:
 * a copy not marked replayed when there is one, else the first read; the
 * other copies are dropped. Two copies of one id neither of which is
 * marked cannot be explained: they are reported, not dropped. Plain data,
 * one thread, no DPDK.
 */
struct ebf_store_dups {
    struct ebf_store_seen {
        uint64_t id;
        uint64_t order;          /* the records' reading order */
        uint16_t flags;
    } *v;
    size_t n, cap;
};

struct ebf_store_dup_count {
    uint64_t records;            /* records added */
    uint64_t replayed;           /* of them marked replayed */
    uint64_t distinct;           /* ids: the events once each */
    uint64_t dropped;            /* replayed copies of an id kept otherwise */
    uint64_t unmarked;           /* copies beyond the first of an id stored unmarked */
    uint64_t first_unmarked;     /* the lowest such id (valid when unmarked) */
};

/* Note one record read (its event id and record flags): 0, or -ENOMEM. */
int ebf_store_dups_add(struct ebf_store_dups *d, uint64_t id, uint16_t flags);

/* The counts over every record added (sorts d). */
void ebf_store_dups_count(struct ebf_store_dups *d, struct ebf_store_dup_count *c);

void ebf_store_dups_free(struct ebf_store_dups *d);

#endif /* EBF_STORE_DUP_H */
