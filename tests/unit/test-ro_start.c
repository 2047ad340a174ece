/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_start.c - Check unit tests of a run's common start instant as a readout's TSC: ahead, none, past. */
#include <check.h>
#include <stdint.h>

#include "ro_start.h"

#define T_TIMEOUT 30
#define T_HZ 2500000000ull          /* a 2.5 GHz TSC */
#define T_NOW_NS 1800000000123456789ull
#define T_NOW_TSC 987654321000ull

/* An instant ahead is now_tsc plus the wait in cycles, exact to the cycle. */
START_TEST(test_start_ahead)
{
    uint64_t late = 99;

    ck_assert_uint_eq(ro_start_tsc(T_NOW_NS + 50000000, T_NOW_NS, T_NOW_TSC, T_HZ, &late),
                      T_NOW_TSC + 125000000);      /* 50 ms at 2.5 GHz */
    ck_assert_uint_eq(late, 0);
    ck_assert_uint_eq(ro_start_tsc(T_NOW_NS + 1, T_NOW_NS, T_NOW_TSC, T_HZ, &late),
                      T_NOW_TSC + 2);              /* 2.5 cycles, rounded down */
    /* 60 s at 2.5 GHz: the product (1.5e20) is beyond 64 bits */
    ck_assert_uint_eq(ro_start_tsc(T_NOW_NS + RO_START_AHEAD_MAX_NS, T_NOW_NS, T_NOW_TSC, T_HZ,
                                   &late), T_NOW_TSC + 150000000000ull);
    ck_assert_uint_eq(late, 0);
}
END_TEST

/* No instant (an old controller, a restart rejoining): at once, not late. */
START_TEST(test_start_none)
{
    uint64_t late = 99;

    ck_assert_uint_eq(ro_start_tsc(0, T_NOW_NS, T_NOW_TSC, T_HZ, &late), T_NOW_TSC);
    ck_assert_uint_eq(late, 0);
}
END_TEST

/* An instant already past: at once, counted late by how much; the very
 * instant is not late. */
START_TEST(test_start_late)
{
    uint64_t late = 99;

    ck_assert_uint_eq(ro_start_tsc(T_NOW_NS - 3000000, T_NOW_NS, T_NOW_TSC, T_HZ, &late),
                      T_NOW_TSC);
    ck_assert_uint_eq(late, 3000000);
    ck_assert_uint_eq(ro_start_tsc(T_NOW_NS, T_NOW_NS, T_NOW_TSC, T_HZ, &late), T_NOW_TSC);
    ck_assert_uint_eq(late, 0);
    ck_assert_uint_eq(ro_start_tsc(1, T_NOW_NS, T_NOW_TSC, T_HZ, &late), T_NOW_TSC);
    ck_assert_uint_eq(late, T_NOW_NS - 1);
}
END_TEST

Suite *ro_start_suite(void);   /* called by check-main.c, which has no header */

Suite *ro_start_suite(void)
{
    Suite *s = suite_create("ro_start");
    TCase *tc = tcase_create("instant");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_start_ahead);
    tcase_add_test(tc, test_start_none);
    tcase_add_test(tc, test_start_late);
    suite_add_tcase(s, tc);
    return s;
}
