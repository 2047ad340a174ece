/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_release.c - the SFC's release stage: the period, the watermark, each readout's records from the guard. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sfc_release.h"

#define MS 1000000ull

static const uint8_t MAC_A[6] = {2, 0, 0, 0, 0, 0xa}, MAC_B[6] = {2, 0, 0, 0, 0, 0xb};

/* Due at once, then every period; a loop that fell behind does not get a
 * burst of rounds. */
START_TEST(test_release_period)
{
    struct sfc_release rel;

    sfc_release_init(&rel, 1, 0, 10 * MS);
    ck_assert_int_eq(sfc_release_due(&rel, 5 * MS), 1);     /* next at 10 */
    ck_assert_int_eq(sfc_release_due(&rel, 10 * MS - 1), 0);
    ck_assert_int_eq(sfc_release_due(&rel, 10 * MS), 1);    /* next at 20 */
    ck_assert_int_eq(sfc_release_due(&rel, 100 * MS), 1);   /* behind: next at 110 */
    ck_assert_int_eq(sfc_release_due(&rel, 105 * MS), 0);
    ck_assert_int_eq(sfc_release_due(&rel, 110 * MS), 1);
    ck_assert_uint_eq(rel.rounds, 4);
}
END_TEST

/* Two readouts: A owns sources 0 and 2, B source 1. The watermark is the
 * least of the lowest held id and each bound source's next id; each
 * readout's frame carries its own sources' next sequence numbers. */
START_TEST(test_release_low_and_make)
{
    static struct sfc_guard g; /* off the stack */
    struct sfc_guard_conf c = {0};
    struct sfc_seq_stats st;
    struct sfc_release rel;
    struct ebf_release_hdr h;
    uint64_t next_by_source[3] = {500, 480, 510};

    sfc_guard_init(&g, &c);
    ck_assert_uint_eq(sfc_release_low(&g, SFC_RELEASE_NONE_HELD, next_by_source, 3), 0);
    ck_assert_uint_eq(sfc_release_low(&g, 42, next_by_source, 3), 42);
    sfc_guard_readout_add(&g, MAC_A);
    sfc_guard_readout_add(&g, MAC_B);
    ck_assert_int_eq(sfc_guard_source(&g, 0, MAC_A), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 1, MAC_B), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 2, MAC_A), SFC_DROP_MAX);
    memset(&st, 0, sizeof(st));
    for (uint32_t q = 0; q < 7; q++)
        sfc_guard_seq(&g, &st, 0, q);
    for (uint32_t q = 0; q < 3; q++)
        sfc_guard_seq(&g, &st, 1, q);
    sfc_guard_seq(&g, &st, 2, 0);
    sfc_guard_seq(&g, &st, 2, 4);                      /* 1..3 a gap: next is 5 */

    ck_assert_uint_eq(sfc_release_low(&g, SFC_RELEASE_NONE_HELD, next_by_source, 3), 480);
    ck_assert_uint_eq(sfc_release_low(&g, 470, next_by_source, 3), 470);
    ck_assert_uint_eq(sfc_release_low(&g, 480, next_by_source, 2), 480);

    sfc_release_init(&rel, 3, 2, 10 * MS);
    ck_assert_uint_eq(sfc_release_make(&rel, &g, 0, 3, 480, 0, 0, &h), 2);
    ck_assert_uint_eq(h.place, 3);
    ck_assert_uint_eq(h.epoch, 2);
    ck_assert_uint_eq(h.seq, 0);
    ck_assert_uint_eq(h.low, 480);
    ck_assert_uint_eq(h.src[0].source, 0);
    ck_assert_uint_eq(h.src[0].next_seq, 7);
    ck_assert_uint_eq(h.src[1].source, 2);
    ck_assert_uint_eq(h.src[1].next_seq, 5);
    ck_assert_uint_eq(sfc_release_make(&rel, &g, 1, 3, 480, EBF_RELF_JOIN, 9000, &h), 1);
    ck_assert_uint_eq(h.seq, 1);
    ck_assert_uint_eq(h.flags, EBF_RELF_JOIN);
    ck_assert_uint_eq(h.at, 9000);
    ck_assert_uint_eq(h.src[0].source, 1);
    ck_assert_uint_eq(h.src[0].next_seq, 3);
    ck_assert_uint_eq(sfc_release_make(&rel, &g, 2, 3, 480, 0, 0, &h), 0); /* no such readout */
    /* the frame the readout parses says the same */
    uint8_t buf[EBF_RELEASE_LEN_MAX];
    struct ebf_release_hdr p;
    ck_assert_uint_eq(sfc_release_make(&rel, &g, 0, 3, 480, 0, 0, &h), 2);
    size_t len = ebf_release_write(buf, &h);
    ck_assert_int_eq(ebf_release_parse(buf, len, &p), EBF_R_OK);
    ck_assert_uint_eq(p.n_src, 2);
    ck_assert_uint_eq(p.src[1].next_seq, 5);
    ck_assert_uint_eq(p.seq, 3);
}
END_TEST

/* Leave (the drain's entry point) is announced until changed; a join
 * until its time; a new epoch is newer and restarts the numbering; the
 * join id covers the ids made since and the margin. */
START_TEST(test_release_announce)
{
    struct sfc_release rel;
    uint64_t at = 99;

    sfc_release_init(&rel, 1, 7, 10 * MS);
    ck_assert_uint_eq(sfc_release_flags(&rel, 0, &at), 0);
    ck_assert_uint_eq(at, 0);
    sfc_release_leave(&rel, 5000);
    ck_assert_uint_eq(sfc_release_flags(&rel, UINT64_MAX - 1, &at), EBF_RELF_LEAVE);
    ck_assert_uint_eq(at, 5000);
    sfc_release_announce(&rel, EBF_RELF_JOIN, 9000, 200 * MS);
    ck_assert_uint_eq(sfc_release_flags(&rel, 200 * MS - 1, &at), EBF_RELF_JOIN);
    ck_assert_uint_eq(at, 9000);
    ck_assert_uint_eq(sfc_release_flags(&rel, 200 * MS, &at), 0);
    ck_assert_uint_eq(at, 0);
    ck_assert_uint_eq(sfc_release_flags(&rel, 100 * MS, &at), 0);      /* gone for good */

    rel.seq = 41;
    sfc_release_new_epoch(&rel, 7);             /* not newer: + 1 */
    ck_assert_uint_eq(rel.epoch, 8);
    ck_assert_uint_eq(rel.seq, 0);
    sfc_release_new_epoch(&rel, 300);
    ck_assert_uint_eq(rel.epoch, 300);
    ck_assert(ebf_release_newer(300, 0, 8, 41));

    /* 100k ids/s, heard 3 s ago, margin 0.2 s (20000 ids, raised to 65536) */
    ck_assert_uint_eq(sfc_release_join_id(1000, 100000, 3.0, 0.2), 1000 + 320000 + 65536 - 20000);
    /* slow: the margin is at least 65536 ids */
    ck_assert_uint_eq(sfc_release_join_id(1000, 100, 1.0, 0.2), 1000 + 120 + 65536 - 20);
    ck_assert_uint_eq(sfc_release_join_id(1000, 0, 1.0, 0.2), 1000 + 65536);
}
END_TEST

/* Dead notices: another place's or epoch's are ignored; with readouts 0
 * and 1 known, one notice (low 500) is not due before the wait, then due
 * with X the last round's low (readout 1 sent none, so it accepted that);
 * both noticing (lows 500, 700) is due at once with X 700, and clears. */
START_TEST(test_notice)
{
    struct sfc_notices n;
    struct ebf_release_hdr h = {.place = 2, .flags = EBF_RELF_DEAD, .epoch = 3, .low = 500};
    uint64_t x = 0;

    memset(&n, 0, sizeof(n));
    h.place = 1;
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 0, 1000), 0);
    h.place = 2;
    h.epoch = 2;
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 0, 1000), 0);
    h.epoch = 3;
    h.flags = EBF_RELF_JOIN;
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 0, 1000), 0);
    ck_assert_uint_eq(n.ignored, 3);
    ck_assert_int_eq(sfc_notice_due(&n, 3, 900, 1000 + SFC_NOTICE_WAIT_NS, &x), 0);
    h.flags = EBF_RELF_DEAD;
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 0, 1000), 1);
    ck_assert_int_eq(sfc_notice_due(&n, 3, 900, 1000 + SFC_NOTICE_WAIT_NS - 1, &x), 0);
    ck_assert_int_eq(sfc_notice_due(&n, 3, 900, 1000 + SFC_NOTICE_WAIT_NS, &x), 1);
    ck_assert_uint_eq(x, 900);
    ck_assert_int_eq(sfc_notice_due(&n, 3, 900, 1000 + 2 * SFC_NOTICE_WAIT_NS, &x), 0);
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 0, 5000), 1);
    h.low = 700;
    ck_assert_int_eq(sfc_notice_take(&n, &h, 2, 3, 1, 5001), 1);
    ck_assert_int_eq(sfc_notice_due(&n, 3, 900, 5002, &x), 1);
    ck_assert_uint_eq(x, 700);
    ck_assert_uint_eq(n.taken, 3);
    ck_assert_uint_eq(n.since_ns, 0);
}
END_TEST

Suite *sfc_release_suite(void);

Suite *sfc_release_suite(void)
{
    Suite *s = suite_create("sfc_release");
    TCase *tc = tcase_create("sfc_release");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_release_period);
    tcase_add_test(tc, test_release_low_and_make);
    tcase_add_test(tc, test_release_announce);
    tcase_add_test(tc, test_notice);
    suite_add_tcase(s, tc);
    return s;
}
