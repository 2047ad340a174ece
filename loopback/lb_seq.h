/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_seq.h - per-stream sequence accounting: received, lost, duplicated, reordered, loss bursts. */
#ifndef LB_SEQ_H
#define LB_SEQ_H

#include <stdint.h>

#include "ebf_hist.h"

/*
 * One struct per stream (the sender's fragment `source`), written by the one
 * receiving lcore, on every frame. No allocation: the state is a fixed bitmap
 * window of LB_SEQ_WINDOW sequence numbers below the highest seen.
 *
 * Definitions (docs/loopback.md repeats them):
 * - rx: frames of the trial handed to lb_seq_add(), whatever they were.
 * - dup: a sequence number already received (within the window).
 * - late: older than the window; it cannot be told from a duplicate, so it is
 *   neither counted as received nor as reordered: its number stays lost.
 * - reordered: a number below the highest seen that fills a gap; its
 *   distance (highest seen - seq) goes into the reorder histogram.
 * - unique = rx - dup - late; after lb_seq_finish(), lost = sent - unique.
 * - A loss burst is a run of consecutive lost numbers. Runs are closed when
 *   they leave the window (so a reordered frame that fills a gap in time
 *   shortens or splits the run), and at lb_seq_finish(); the sum of all burst
 *   lengths equals lost. The time of a burst is the receive time of the first
 *   frame after the gap in which it starts (its detection), or the finish time
 *   for a tail loss; the first LB_SEQ_BURSTS_KEPT bursts are kept in order.
 * The 32-bit wire sequence number is extended to 64 bits as the value
 * nearest to the next expected one.
 */

#define LB_SEQ_WINDOW 65536u         /* bits of history, a power of two */
#define LB_SEQ_GAPS 256u             /* open gaps remembered for burst times */
#define LB_SEQ_BURSTS_KEPT 64u

struct lb_burst {
    uint64_t first_seq;
    uint64_t len;
    uint64_t tsc;                    /* detection time, receiver TSC */
};

struct lb_seq_gap {
    uint64_t start, end;             /* [start, end) was missing at detection */
    uint64_t tsc;
};

struct lb_seq {
    uint64_t next;                   /* highest seen + 1; 0 before any frame */
    uint64_t rx, dup, late, reordered;
    uint64_t lost;                   /* closed lost numbers so far */
    uint64_t gap_open;               /* numbers missing in gaps, not yet closed */
    uint64_t bursts;                 /* closed loss bursts */
    uint64_t max_burst;
    uint64_t run_start, run_len;     /* the loss run being closed */
    uint64_t gaps_dropped;           /* gaps not remembered: their bursts have tsc 0 */
    unsigned gap_head, gap_n;
    unsigned bursts_kept;
    struct lb_seq_gap gap[LB_SEQ_GAPS];
    struct lb_burst burst[LB_SEQ_BURSTS_KEPT];
    struct ebf_hist burst_len;       /* lengths of closed bursts */
    struct ebf_hist reorder_dist;    /* distances of reordered frames */
    uint64_t bits[LB_SEQ_WINDOW / 64];
};

void lb_seq_init(struct lb_seq *s);

/* Account one frame with wire sequence number seq received at tsc. */
void lb_seq_add(struct lb_seq *s, uint32_t seq, uint64_t tsc);

/*
 * End of the trial: the sender sent numbers 0 .. sent-1. Closes every open
 * run and counts the numbers never seen after the highest one received as a
 * tail burst at time tsc. Afterwards lost is the count of numbers below
 * max(sent, highest + 1) never received (late ones included), which is
 * sent - lb_seq_unique() whenever no number at or above sent arrived.
 * Call once; lb_seq_init() starts the next trial.
 */
void lb_seq_finish(struct lb_seq *s, uint64_t sent, uint64_t tsc);

static inline uint64_t lb_seq_unique(const struct lb_seq *s)
{
    return s->rx - s->dup - s->late;
}

#endif /* LB_SEQ_H */
