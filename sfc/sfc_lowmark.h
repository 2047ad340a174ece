/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_lowmark.h - the lowest event id an SFC holds, kept by counts per id bucket: the release watermark's held part (docs/protocol.md 13.2). */
#ifndef SFC_LOWMARK_H
#define SFC_LOWMARK_H

#include <stdint.h>

#define SFC_LOWMARK_SHIFT 6                    /* 64 ids a bucket */
#define SFC_LOWMARK_BUCKETS 65536u             /* a window of 4 Mi ids above the base */
#define SFC_LOWMARK_NONE UINT64_MAX            /* nothing held */

/*
 * Every held event is added once when the SFC starts holding it and
 * removed once when it stops (decided, lost, dropped). sfc_lowmark_low
 * says a number no greater than the lowest id held: exact to the bucket
 * (64 ids), never above the truth, which is what a release needs. Ids
 * below the window's base (a replay of an old id) are counted apart with
 * their minimum; ids above the window are counted apart too, and while any
 * is held the base does not move, so each id is removed from where it
 * was added. Add and remove are O(1); low scans empty buckets forward
 * from the base, amortised O(1) per bucket. DPDK-free; one thread; no
 * allocation (the struct is 256 KiB: embed it in a heap object).
 */
struct sfc_lowmark {
    uint64_t base;                     /* the window's first bucket (id >> SHIFT) */
    uint64_t held;                     /* in the buckets */
    uint64_t under, under_min;         /* ids below the base: how many, their least */
    uint64_t over;                     /* ids at or above the window's end */
    uint32_t count[SFC_LOWMARK_BUCKETS];   /* by bucket - base, ring-indexed */
};

/* An empty mark. */
void sfc_lowmark_init(struct sfc_lowmark *m);

/* The SFC now holds an event of this id. */
void sfc_lowmark_add(struct sfc_lowmark *m, uint64_t id);

/* The SFC no longer holds an event of this id (added before). */
void sfc_lowmark_remove(struct sfc_lowmark *m, uint64_t id);

/* A number <= the lowest id held (the first id of its bucket, or the
 * least under-base id), or SFC_LOWMARK_NONE when nothing is held; moves
 * the base up past empty buckets. */
uint64_t sfc_lowmark_low(struct sfc_lowmark *m);

#endif
