/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_replay.c - the readout's replay buffer bookkeeping: release by (low, next_seq), replay to a survivor, the bound, drop when full. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "ro_replay.h"

/* Two sources; events 10, 11, 12, ... alternate between places 0 and 1;
 * on each place each event takes one frame per source, so the event's
 * last sequence number on its place is its index on that place. */
static void push_n(struct ro_replay *rb, unsigned n, uint32_t bytes)
{
    uint32_t next[2] = {0, 0};

    for (unsigned i = 0; i < n; i++) {
        uint16_t place = (uint16_t)(i % 2);
        uint32_t seq[2] = {next[place], next[place]};

        ck_assert_int_eq(ro_replay_push(rb, 10 + i, place, bytes, seq), 0);
        next[place]++;
    }
}

/* A record is released only when below low and all its frames arrived,
 * and only by its own place; the head trims past released records. */
START_TEST(test_replay_release_rule)
{
    struct ro_replay rb;

    ck_assert_int_eq(ro_replay_init(&rb, 16, 1 << 20, 2), 0);
    ck_assert_uint_eq(rb.cap, 16);
    push_n(&rb, 6, 100); /* place 0: ids 10, 12, 14 (seq 0, 1, 2); place 1: 11, 13, 15 */
    ck_assert_uint_eq(rb.held_events, 6);
    ck_assert_uint_eq(rb.held_bytes, 600);

    /* place 0 got seq 0 and 1 of both sources, holds nothing below 14 */
    const uint32_t a[2] = {2, 2};
    ck_assert_uint_eq(ro_replay_release(&rb, 0, 14, a), 2);  /* 10, 12 */
    ck_assert_uint_eq(rb.held_events, 4);
    ck_assert_uint_eq(rb.head, 1);                           /* 11 still held */
    /* low above 14 but source 1's frame of 14 not arrived: not released */
    const uint32_t b[2] = {3, 2};
    ck_assert_uint_eq(ro_replay_release(&rb, 0, 100, b), 0);
    /* the same numbers from place 1 release place 1's records only */
    ck_assert_uint_eq(ro_replay_release(&rb, 1, 14, a), 2);  /* 11, 13 */
    ck_assert_uint_eq(rb.head, 4);                           /* 14 is the head */
    ck_assert_uint_eq(rb.released, 4);
    ck_assert_uint_eq(rb.held_bytes, 200);
    ck_assert_uint_eq(rb.peak_bytes, 600);
    ro_replay_fini(&rb);
}
END_TEST

/* Sequence numbers compare wrapping: a record sent at 2^32 - 1 is
 * released by next_seq 0. */
START_TEST(test_replay_seq_wraps)
{
    struct ro_replay rb;
    const uint32_t q[1] = {UINT32_MAX};
    const uint32_t before[1] = {UINT32_MAX};
    const uint32_t after[1] = {0};

    ck_assert_int_eq(ro_replay_init(&rb, 4, 1000, 1), 0);
    ck_assert_int_eq(ro_replay_push(&rb, 7, 3, 10, q), 0);
    ck_assert_uint_eq(ro_replay_release(&rb, 3, 8, before), 0);
    ck_assert_uint_eq(ro_replay_release(&rb, 3, 8, after), 1);
    ck_assert_uint_eq(rb.held_events, 0);
    ck_assert_uint_eq(rb.head, rb.tail);
    ro_replay_fini(&rb);
}
END_TEST

/* Place 1 dies: its unreleased records come back in id order, move to
 * the survivor with new sequence numbers, and are released by it. */
START_TEST(test_replay_dead_place)
{
    struct ro_replay rb;
    struct ro_replay_rec *r;
    uint32_t cursor = 0, n = 0;
    const uint64_t want[] = {11, 13, 15};

    ck_assert_int_eq(ro_replay_init(&rb, 8, 1 << 20, 2), 0);
    push_n(&rb, 6, 100);
    while ((r = ro_replay_next_of(&rb, 1, &cursor)) != NULL) {
        uint32_t seq[2] = {3 + n, 3 + n}; /* place 0's next numbers */

        ck_assert_uint_lt(n, 3);
        ck_assert_uint_eq(r->id, want[n]);
        ro_replay_moved(&rb, r, 0, seq);
        n++;
    }
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(rb.replayed, 3);
    cursor = 0;
    ck_assert_ptr_null(ro_replay_next_of(&rb, 1, &cursor));
    /* the survivor got everything up to seq 5 and holds nothing below 16 */
    const uint32_t all[2] = {6, 6};
    ck_assert_uint_eq(ro_replay_release(&rb, 0, 16, all), 6);
    ck_assert_uint_eq(rb.held_events, 0);
    ck_assert_uint_eq(rb.held_bytes, 0);
    ro_replay_fini(&rb);
}
END_TEST

/* The bound: records and bytes; ids must increase; drop frees the oldest
 * unreleased one. */
/* ro_replay_next_in: the records of a set of places in id order, with
 * releases (and the head's trim) between calls. */
START_TEST(test_replay_next_in)
{
    struct ro_replay rb;
    struct ro_replay_rec *r;
    uint32_t cur;

    ck_assert_int_eq(ro_replay_init(&rb, 16, 1 << 20, 2), 0);
    push_n(&rb, 6, 100); /* place 0: 10, 12, 14; place 1: 11, 13, 15 */
    cur = rb.head;
    r = ro_replay_next_in(&rb, 1u << 1, &cur);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->id, 11);
    /* place 0 releases 10 and 12: the head moves to 11 (not released) */
    const uint32_t a[2] = {2, 2};
    ck_assert_uint_eq(ro_replay_release(&rb, 0, 13, a), 2);
    r = ro_replay_next_in(&rb, 1u << 1, &cur);
    ck_assert_uint_eq(r->id, 13);
    ro_replay_moved(&rb, r, 0, a);      /* 13 now on place 0: not seen again */
    r = ro_replay_next_in(&rb, 1u << 1, &cur);
    ck_assert_uint_eq(r->id, 15);
    ck_assert_ptr_null(ro_replay_next_in(&rb, 1u << 1, &cur));
    /* both places, from the head: 11 (place 1), 13 (moved to 0), 14, 15 */
    uint64_t want[] = {11, 13, 14, 15};
    cur = rb.head;
    for (unsigned i = 0; i < 4; i++) {
        r = ro_replay_next_in(&rb, 3, &cur);
        ck_assert_ptr_nonnull(r);
        ck_assert_uint_eq(r->id, want[i]);
    }
    ck_assert_ptr_null(ro_replay_next_in(&rb, 3, &cur));
    /* a cursor the head passed restarts at the head */
    cur = rb.head;
    const uint32_t all[2] = {9, 9};
    ck_assert_uint_eq(ro_replay_release(&rb, 1, 12, all), 1);     /* 11: the head moves */
    r = ro_replay_next_in(&rb, 3, &cur);
    ck_assert_uint_eq(r->id, 13);
    ck_assert_uint_eq(rb.replayed, 1);
    ro_replay_fini(&rb);
}
END_TEST

START_TEST(test_replay_bound_and_drop)
{
    struct ro_replay rb;
    const uint32_t q[1] = {0};
    const uint32_t one[1] = {1};
    uint64_t id = 0;

    ck_assert_int_eq(ro_replay_init(&rb, 3, 250, 1), 0);
    ck_assert_uint_eq(rb.cap, 4);
    ck_assert_int_eq(ro_replay_push(&rb, 1, 0, 100, q), 0);
    ck_assert_int_eq(ro_replay_push(&rb, 1, 0, 100, q), -EINVAL);
    ck_assert_int_eq(ro_replay_push(&rb, 2, 1, 100, q), 0);
    ck_assert_int_eq(ro_replay_fits(&rb, 50), 1);
    ck_assert_int_eq(ro_replay_fits(&rb, 51), 0);
    ck_assert_int_eq(ro_replay_push(&rb, 3, 0, 51, q), -ENOSPC);
    /* place 1 releases id 2 (not the head): the bytes come back at once */
    ck_assert_uint_eq(ro_replay_release(&rb, 1, 3, one), 1);
    ck_assert_uint_eq(rb.head, 0);
    ck_assert_int_eq(ro_replay_push(&rb, 3, 0, 150, q), 0);
    ck_assert_int_eq(ro_replay_fits(&rb, 1), 0);
    ck_assert_int_eq(ro_replay_drop_oldest(&rb, &id), 1);
    ck_assert_uint_eq(id, 1);
    ck_assert_uint_eq(rb.dropped, 1);
    ck_assert_uint_eq(rb.head, 2);                           /* 1 and 2 trimmed */
    ck_assert_uint_eq(rb.held_bytes, 150);
    ck_assert_int_eq(ro_replay_drop_oldest(&rb, &id), 1);
    ck_assert_uint_eq(id, 3);
    ck_assert_int_eq(ro_replay_drop_oldest(&rb, &id), 0);
    /* the record ring is the other bound: 4 records of 1 byte */
    ro_replay_fini(&rb);
    ck_assert_int_eq(ro_replay_init(&rb, 4, 1000, 1), 0);
    for (uint64_t e = 0; e < 4; e++)
        ck_assert_int_eq(ro_replay_push(&rb, e, 0, 1, q), 0);
    ck_assert_int_eq(ro_replay_fits(&rb, 1), 0);
    ro_replay_fini(&rb);
    ck_assert_int_eq(ro_replay_init(&rb, 0, 1, 1), -EINVAL);
    ck_assert_int_eq(ro_replay_init(&rb, 1, 1, RO_REPLAY_MAX_SRC + 1), -EINVAL);
    ck_assert_ptr_null(rb.rec);
}
END_TEST

Suite *ro_replay_suite(void);

Suite *ro_replay_suite(void)
{
    Suite *s = suite_create("ro_replay");
    TCase *tc = tcase_create("ro_replay");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_replay_release_rule);
    tcase_add_test(tc, test_replay_seq_wraps);
    tcase_add_test(tc, test_replay_dead_place);
    tcase_add_test(tc, test_replay_bound_and_drop);
    tcase_add_test(tc, test_replay_next_in);
    suite_add_tcase(s, tc);
    return s;
}
