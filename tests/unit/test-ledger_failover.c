/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ledger_failover.c - the failover ledger: each id once, redecided counted, a missing or doubled id named. */
#include <check.h>
#include <stdint.h>

#include "ledger_failover.h"

static struct ebf_idset live, replay, dead, after, lost;

/* 200 events over 2 places; place 1 (odd ids) dies: its nodes decided the
 * odd ids below 150, the highest watermark a readout accepted was 131, so
 * the survivor replayed and decided the odd ids from 131 on; place 0 acked
 * every even id. */
static void run(void)
{
    ebf_idset_init(&live);
    ebf_idset_init(&replay);
    ebf_idset_init(&dead);
    ebf_idset_init(&after);
    ebf_idset_init(&lost);
    for (uint64_t e = 0; e < 200; e++) {
        if (e % 2 == 0) {
            ebf_idset_add(&live, e);
            continue;
        }
        if (e < 150)
            ebf_idset_add(&dead, e);
        if (e < 150 && e >= 131)
            ebf_idset_add(&after, e);
        if (e >= 131)
            ebf_idset_add(&replay, e);
    }
}

static int close_it(struct ledger_fo_out *o)
{
    struct ledger_fo_in in = {.id_lo = 0, .n = 200, .acked_live = &live, .replay_acked = &replay,
                              .dead_acks = &dead, .after_release = &after, .lost = &lost};

    return ledger_failover_close(&in, o);
}

START_TEST(test_fo_closes)
{
    struct ledger_fo_out o;

    run();
    ck_assert_uint_eq(ledger_fo_count(&replay), 35);
    ck_assert_int_eq(close_it(&o), 1);
    ck_assert_uint_eq(o.redecided, 10);
    ck_assert_int_eq(o.unaccounted, 0);
    ck_assert_int_eq(o.listed, 1);
    ck_assert_uint_eq(o.n_missing + o.n_extra, 0);
}
END_TEST

/* A replayed event no survivor acked is missing; one acked twice is
 * extra; a lost one named in lost closes again. */
START_TEST(test_fo_names_ids)
{
    struct ledger_fo_out o;

    run();
    ebf_idset_init(&replay);
    for (uint64_t e = 131; e < 199; e += 2)
        ebf_idset_add(&replay, e);
    ebf_idset_add(&replay, 5);
    ck_assert_int_eq(close_it(&o), 0);
    ck_assert_int_eq(o.listed, 1);
    ck_assert_uint_eq(o.n_missing, 1);
    ck_assert_uint_eq(o.missing[0], 199);
    ck_assert_uint_eq(o.n_extra, 1);
    ck_assert_uint_eq(o.extra[0], 5);
    ck_assert_int_eq(o.unaccounted, 0);             /* one each way */
    /* without the double ack, 199 named lost: closed */
    ebf_idset_init(&replay);
    for (uint64_t e = 131; e < 199; e += 2)
        ebf_idset_add(&replay, e);
    ebf_idset_add(&lost, 199);
    ck_assert_int_eq(close_it(&o), 1);
    ck_assert_uint_eq(o.redecided, 10);
    ebf_idset_add(&lost, 7);                        /* 7 lost and decided: extra */
    ck_assert_int_eq(close_it(&o), 0);
    ck_assert_int_eq(o.unaccounted, -1);
    ck_assert_uint_eq(o.extra[0], 7);
}
END_TEST

Suite *ledger_failover_suite(void);

Suite *ledger_failover_suite(void)
{
    Suite *s = suite_create("ledger_failover");
    TCase *tc = tcase_create("ledger_failover");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_fo_closes);
    tcase_add_test(tc, test_fo_names_ids);
    suite_add_tcase(s, tc);
    return s;
}
