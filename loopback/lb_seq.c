/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_seq.c - sequence accounting over a sliding bitmap window. */
#include "lb_seq.h"

#include <string.h>

#define WIN LB_SEQ_WINDOW

void lb_seq_init(struct lb_seq *s)
{
    memset(s, 0, sizeof(*s));
    ebf_hist_init(&s->burst_len);
    ebf_hist_init(&s->reorder_dist);
}

static inline int bit_get(const struct lb_seq *s, uint64_t x)
{
    return (int)((s->bits[(x % WIN) >> 6] >> (x & 63)) & 1u);
}

static inline void bit_put(struct lb_seq *s, uint64_t x, int v)
{
    uint64_t m = (uint64_t)1 << (x & 63);
    if (v)
        s->bits[(x % WIN) >> 6] |= m;
    else
        s->bits[(x % WIN) >> 6] &= ~m;
}

/* Time of the gap holding number x: forget gaps that end at or before x. */
static uint64_t gap_tsc(struct lb_seq *s, uint64_t x)
{
    while (s->gap_n && s->gap[s->gap_head].end <= x) {
        s->gap_head = (s->gap_head + 1) % LB_SEQ_GAPS;
        s->gap_n--;
    }
    if (s->gap_n && s->gap[s->gap_head].start <= x)
        return s->gap[s->gap_head].tsc;
    return 0;
}

static void gap_push(struct lb_seq *s, uint64_t start, uint64_t end, uint64_t tsc)
{
    if (s->gap_n == LB_SEQ_GAPS) {
        s->gaps_dropped++;
        return;
    }
    struct lb_seq_gap *g = &s->gap[(s->gap_head + s->gap_n) % LB_SEQ_GAPS];
    g->start = start;
    g->end = end;
    g->tsc = tsc;
    s->gap_n++;
}

static void run_close(struct lb_seq *s)
{
    if (s->run_len == 0)
        return;
    s->bursts++;
    if (s->run_len > s->max_burst)
        s->max_burst = s->run_len;
    ebf_hist_add(&s->burst_len, s->run_len);
    if (s->bursts_kept < LB_SEQ_BURSTS_KEPT) {
        struct lb_burst *b = &s->burst[s->bursts_kept++];
        b->first_seq = s->run_start;
        b->len = s->run_len;
        b->tsc = gap_tsc(s, s->run_start);
    }
    s->run_len = 0;
}

/* n lost numbers starting at x, in order after what the run holds. */
static void run_extend(struct lb_seq *s, uint64_t x, uint64_t n)
{
    if (s->run_len && s->run_start + s->run_len != x)
        run_close(s);
    if (s->run_len == 0)
        s->run_start = x;
    s->run_len += n;
    s->lost += n;
    s->gap_open -= n;
}

/*
 * Move the window so that it ends at new_next: every number that leaves it
 * is settled, received (closing a loss run) or lost (extending it). Numbers
 * at or above the old next never had a bit: they leave as lost in one step.
 */
static void slide(struct lb_seq *s, uint64_t new_next)
{
    uint64_t old = s->next;
    uint64_t lo = old >= WIN ? old - WIN : 0, hi = new_next >= WIN ? new_next - WIN : 0;
    uint64_t mid = hi < old ? hi : old;

    for (uint64_t l = lo; l < mid; l++) {
        if (bit_get(s, l)) {
            run_close(s);
            bit_put(s, l, 0);
        } else {
            run_extend(s, l, 1);
        }
    }
    uint64_t beyond = lo > old ? lo : old;
    if (hi > beyond)
        run_extend(s, beyond, hi - beyond);
    s->next = new_next;
}

void lb_seq_add(struct lb_seq *s, uint32_t seq, uint64_t tsc)
{
    int64_t d = (int32_t)(seq - (uint32_t)s->next);

    s->rx++;
    if (d < 0 && (uint64_t)-d > s->next) {
        s->late++;              /* before number 0: an older wrap, or garbage */
        return;
    }
    uint64_t x = s->next + (uint64_t)d;
    if (d >= 0) {
        if (x > s->next) {
            s->gap_open += x - s->next;
            gap_push(s, s->next, x, tsc);
        }
        slide(s, x + 1);
        bit_put(s, x, 1);
        return;
    }
    if (s->next >= WIN && x < s->next - WIN) {
        s->late++;
        return;
    }
    if (bit_get(s, x)) {
        s->dup++;
        return;
    }
    bit_put(s, x, 1);
    s->reordered++;
    s->gap_open--;
    ebf_hist_add(&s->reorder_dist, s->next - 1 - x);
}

void lb_seq_finish(struct lb_seq *s, uint64_t sent, uint64_t tsc)
{
    uint64_t end = sent > s->next ? sent : s->next;

    if (end > s->next) {
        s->gap_open += end - s->next;
        gap_push(s, s->next, end, tsc);
    }
    /* Slide the whole window out: [0, end) is then settled. */
    uint64_t old = s->next;
    s->next = end;
    if (old < end) {
        /* Numbers [old, end) were never seen and have no bits: settle the
         * window first, then them. */
        s->next = old;
        slide(s, old + WIN);
        run_extend(s, old, end - old);
    } else {
        slide(s, end + WIN);
    }
    run_close(s);
    s->next = end;
}
