/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_seq.c - unit tests of loopback sequence accounting against injected drops, duplicates, reorders. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_mix.h"
#include "ebf_proto.h"
#include "lb_seq.h"

static struct lb_seq *seq_new(void)
{
    struct lb_seq *s = malloc(sizeof(*s));
    ck_assert_ptr_nonnull(s);
    lb_seq_init(s);
    return s;
}

/* Feed numbers lo..hi-1 in order, received at tsc = 1000 + number. */
static void feed(struct lb_seq *s, uint64_t lo, uint64_t hi)
{
    for (uint64_t x = lo; x < hi; x++)
        lb_seq_add(s, (uint32_t)x, 1000 + x);
}

START_TEST(test_in_order)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 100000);
    lb_seq_finish(s, 100000, 5);
    ck_assert_uint_eq(s->rx, 100000);
    ck_assert_uint_eq(lb_seq_unique(s), 100000);
    ck_assert_uint_eq(s->lost, 0);
    ck_assert_uint_eq(s->dup, 0);
    ck_assert_uint_eq(s->reordered, 0);
    ck_assert_uint_eq(s->late, 0);
    ck_assert_uint_eq(s->bursts, 0);
    free(s);
}
END_TEST

/* Drops 10..12 and 500 of 1000: two bursts, their starts, lengths and times. */
START_TEST(test_drops)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 10);
    feed(s, 13, 500);
    feed(s, 501, 1000);
    lb_seq_finish(s, 1000, 7);
    ck_assert_uint_eq(s->rx, 996);
    ck_assert_uint_eq(s->lost, 4);
    ck_assert_uint_eq(s->bursts, 2);
    ck_assert_uint_eq(s->max_burst, 3);
    ck_assert_uint_eq(s->bursts_kept, 2);
    ck_assert_uint_eq(s->burst[0].first_seq, 10);
    ck_assert_uint_eq(s->burst[0].len, 3);
    ck_assert_uint_eq(s->burst[0].tsc, 1013);    /* frame 13 revealed the gap */
    ck_assert_uint_eq(s->burst[1].first_seq, 500);
    ck_assert_uint_eq(s->burst[1].len, 1);
    ck_assert_uint_eq(s->burst[1].tsc, 1501);
    ck_assert_uint_eq(s->burst_len.count, 2);
    ck_assert_uint_eq(s->burst_len.max, 3);
    ck_assert_uint_eq(s->dup + s->reordered + s->late, 0);
    free(s);
}
END_TEST

/* Head and tail losses: frames 0..4 and 900..999 never arrive. */
START_TEST(test_head_tail)
{
    struct lb_seq *s = seq_new();
    feed(s, 5, 900);
    lb_seq_finish(s, 1000, 77);
    ck_assert_uint_eq(s->lost, 105);
    ck_assert_uint_eq(s->bursts, 2);
    ck_assert_uint_eq(s->burst[0].first_seq, 0);
    ck_assert_uint_eq(s->burst[0].len, 5);
    ck_assert_uint_eq(s->burst[0].tsc, 1005);
    ck_assert_uint_eq(s->burst[1].first_seq, 900);
    ck_assert_uint_eq(s->burst[1].len, 100);
    ck_assert_uint_eq(s->burst[1].tsc, 77);     /* tail: the finish time */
    free(s);
}
END_TEST

/* Nothing arrives: everything is one burst. */
START_TEST(test_all_lost)
{
    struct lb_seq *s = seq_new();
    lb_seq_finish(s, 250, 9);
    ck_assert_uint_eq(s->lost, 250);
    ck_assert_uint_eq(s->bursts, 1);
    ck_assert_uint_eq(s->burst[0].len, 250);
    free(s);
}
END_TEST

/* 50 twice and 99 three times: three duplicates, nothing lost. */
START_TEST(test_duplicates)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 51);
    lb_seq_add(s, 50, 0);
    feed(s, 51, 100);
    lb_seq_add(s, 99, 0);
    lb_seq_add(s, 99, 0);
    lb_seq_add(s, 3, 0);
    lb_seq_finish(s, 100, 0);
    ck_assert_uint_eq(s->rx, 104);
    ck_assert_uint_eq(s->dup, 4);
    ck_assert_uint_eq(lb_seq_unique(s), 100);
    ck_assert_uint_eq(s->lost, 0);
    ck_assert_uint_eq(s->reordered, 0);
    free(s);
}
END_TEST

/* 11 before 10 (distance 1) and 100 after 200 (distance 100): no loss. */
START_TEST(test_reorder)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 10);
    lb_seq_add(s, 11, 0);
    lb_seq_add(s, 10, 0);
    feed(s, 12, 100);
    feed(s, 101, 201);
    lb_seq_add(s, 100, 0);
    feed(s, 201, 300);
    lb_seq_finish(s, 300, 0);
    ck_assert_uint_eq(s->rx, 300);
    ck_assert_uint_eq(s->reordered, 2);
    ck_assert_uint_eq(s->reorder_dist.count, 2);
    ck_assert_uint_eq(s->reorder_dist.min, 1);
    ck_assert_uint_eq(s->reorder_dist.max, 100);
    ck_assert_uint_eq(s->lost, 0);
    ck_assert_uint_eq(s->bursts, 0);
    ck_assert_uint_eq(s->dup, 0);
    free(s);
}
END_TEST

/* A reordered frame in the middle of a gap splits it into two bursts. */
START_TEST(test_reorder_splits_burst)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 10);
    feed(s, 20, 30);            /* gap 10..19 */
    lb_seq_add(s, 15, 0);       /* fills one number */
    feed(s, 30, 40);
    lb_seq_finish(s, 40, 0);
    ck_assert_uint_eq(s->lost, 9);
    ck_assert_uint_eq(s->reordered, 1);
    ck_assert_uint_eq(s->bursts, 2);
    ck_assert_uint_eq(s->burst[0].first_seq, 10);
    ck_assert_uint_eq(s->burst[0].len, 5);
    ck_assert_uint_eq(s->burst[0].tsc, 1020);
    ck_assert_uint_eq(s->burst[1].first_seq, 16);
    ck_assert_uint_eq(s->burst[1].len, 4);
    ck_assert_uint_eq(s->burst[1].tsc, 1020);
    free(s);
}
END_TEST

/* A frame older than the window is late: not received, its number lost. */
START_TEST(test_late)
{
    struct lb_seq *s = seq_new();
    feed(s, 0, 5);
    feed(s, 6, 6 + LB_SEQ_WINDOW + 10);
    lb_seq_add(s, 5, 0);
    lb_seq_finish(s, 6 + LB_SEQ_WINDOW + 10, 0);
    ck_assert_uint_eq(s->late, 1);
    ck_assert_uint_eq(s->lost, 1);
    ck_assert_uint_eq(s->bursts, 1);
    ck_assert_uint_eq(lb_seq_unique(s), 5 + LB_SEQ_WINDOW + 10);
    free(s);
}
END_TEST

/* A jump of three windows settles in one step. */
START_TEST(test_big_jump)
{
    struct lb_seq *s = seq_new();
    lb_seq_add(s, 0, 0);
    lb_seq_add(s, 3 * LB_SEQ_WINDOW, 42);
    lb_seq_finish(s, 3 * LB_SEQ_WINDOW + 1, 0);
    ck_assert_uint_eq(s->lost, 3 * LB_SEQ_WINDOW - 1);
    ck_assert_uint_eq(s->bursts, 1);
    ck_assert_uint_eq(s->burst[0].first_seq, 1);
    ck_assert_uint_eq(s->burst[0].tsc, 42);
    free(s);
}
END_TEST

/*
 * Random drops, duplicates and swaps of neighbours against a model kept as a
 * plain array: the counts match exactly, and burst lengths sum to lost.
 */
START_TEST(test_model)
{
    enum { N = 200000 };
    struct lb_seq *s = seq_new();
    uint8_t *seen = calloc(N, 1);
    uint64_t exp_dup = 0, exp_reordered = 0, rx = 0;
    uint64_t hold = UINT64_MAX;         /* a frame delayed by one slot */
    ck_assert_ptr_nonnull(seen);

    for (uint64_t x = 0; x < N; x++) {
        uint64_t r = ebf_mix64(x + (uint64_t)_i * 1000003u) % 1000;
        if (r < 20)
            continue;                                   /* dropped */
        if (r < 30 && hold == UINT64_MAX) {
            hold = x;                                   /* sent after the next */
            continue;
        }
        lb_seq_add(s, (uint32_t)x, x), rx++;
        seen[x] = 1;
        if (hold != UINT64_MAX) {
            lb_seq_add(s, (uint32_t)hold, x), rx++;
            seen[hold] = 1;
            exp_reordered++;
            hold = UINT64_MAX;
        }
        if (r >= 990) {
            lb_seq_add(s, (uint32_t)x, x), rx++;        /* duplicated */
            exp_dup++;
        }
    }
    uint64_t exp_lost = 0;
    for (uint64_t x = 0; x < N; x++)
        exp_lost += !seen[x];
    lb_seq_finish(s, N, 0);
    ck_assert_uint_eq(s->rx, rx);
    ck_assert_uint_eq(s->dup, exp_dup);
    ck_assert_uint_eq(s->reordered, exp_reordered);
    ck_assert_uint_eq(s->lost, exp_lost);
    ck_assert_uint_eq(s->burst_len.sum, exp_lost);
    ck_assert_uint_eq(lb_seq_unique(s) + s->lost, N);
    free(seen);
    free(s);
}
END_TEST

Suite *lb_seq_suite(void);

Suite *lb_seq_suite(void)
{
    Suite *s = suite_create("lb_seq");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_in_order);
    tcase_add_test(tc, test_drops);
    tcase_add_test(tc, test_head_tail);
    tcase_add_test(tc, test_all_lost);
    tcase_add_test(tc, test_duplicates);
    tcase_add_test(tc, test_reorder);
    tcase_add_test(tc, test_reorder_splits_burst);
    tcase_add_test(tc, test_late);
    tcase_add_test(tc, test_big_jump);
    tcase_add_loop_test(tc, test_model, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
