/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_ratelim.c - unit tests of the log rate limit: lines per window, counts of what was left out. */
#include <check.h>
#include <stdint.h>

#include "ebf_ratelim.h"

/* N events in one window: burst lines, the rest counted and reported only
 * once the window has ended (or when forced). */
START_TEST(test_one_window)
{
    struct ebf_ratelim r;
    unsigned lines = 0;

    ebf_ratelim_init(&r, 10, 10);
    for (int i = 0; i < 10000; i++)
        lines += (unsigned)ebf_ratelim_take(&r, 100 + i * 1e-4);
    ck_assert_uint_eq(lines, 10);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 109.9, 0), 0);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 110, 0), 9990);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 111, 0), 0);
}
END_TEST

START_TEST(test_force)
{
    struct ebf_ratelim r;

    ebf_ratelim_init(&r, 2, 60);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(ebf_ratelim_take(&r, 1), i < 2);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 2, 0), 0);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 2, 1), 3);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 2, 1), 0);
}
END_TEST

/* A new window opens at the first event after the last one ended: burst
 * lines again; what the old window left out is due at once. */
START_TEST(test_windows)
{
    struct ebf_ratelim r;

    ebf_ratelim_init(&r, 3, 1);
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(ebf_ratelim_take(&r, 0.5), i < 3);
    /* Taken before anyone reported: the 4 are kept for the next report. */
    ck_assert_int_eq(ebf_ratelim_take(&r, 1.5), 1);
    ck_assert_int_eq(ebf_ratelim_take(&r, 1.6), 1);
    ck_assert_int_eq(ebf_ratelim_take(&r, 1.7), 1);
    ck_assert_int_eq(ebf_ratelim_take(&r, 1.8), 0);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 1.9, 0), 4);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 2.5, 0), 1);
    /* A quiet spell, then the full burst again. */
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(ebf_ratelim_take(&r, 100), i < 3);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 101, 0), 1);
}
END_TEST

/* Nonsense settings become the smallest sane ones: 1 line, a 1 s window. */
START_TEST(test_init_bounds)
{
    struct ebf_ratelim r;

    ebf_ratelim_init(&r, 0, 0);
    ck_assert_uint_eq(r.burst, 1);
    ck_assert(r.window_s == 1);
    ck_assert_int_eq(ebf_ratelim_take(&r, 5), 1);
    ck_assert_int_eq(ebf_ratelim_take(&r, 5.5), 0);
    ck_assert_int_eq(ebf_ratelim_take(&r, 6), 1);
    ck_assert_uint_eq(ebf_ratelim_report(&r, 6, 0), 1);
}
END_TEST

Suite *ebf_ratelim_suite(void);

Suite *ebf_ratelim_suite(void)
{
    Suite *s = suite_create("ebf_ratelim");
    TCase *tc = tcase_create("ratelim");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_one_window);
    tcase_add_test(tc, test_force);
    tcase_add_test(tc, test_windows);
    tcase_add_test(tc, test_init_bounds);
    suite_add_tcase(s, tc);
    return s;
}
