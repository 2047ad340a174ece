/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_hist.c - unit tests of the log-bucketed histogram: buckets, quantiles, merge. */
#include <check.h>
#include <stdint.h>

#include "ebf_hist.h"

/* Every value lands in the bucket whose range holds it. */
START_TEST(test_bucket_bounds)
{
    static const uint64_t vals[] = {0, 1, 15, 16, 17, 18, 31, 32, 33, 100, 1000, 4095, 4096,
                                    123456789, UINT64_MAX / 3, UINT64_MAX};
    for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        unsigned b = ebf_hist_bucket(vals[i]);
        ck_assert_uint_lt(b, EBF_HIST_BUCKETS);
        ck_assert_uint_le(ebf_hist_bucket_lo(b), vals[i]);
        if (b + 1 < EBF_HIST_BUCKETS)
            ck_assert_uint_gt(ebf_hist_bucket_lo(b + 1), vals[i]);
    }
    ck_assert_uint_eq(ebf_hist_bucket(15), 15);
    ck_assert_uint_eq(ebf_hist_bucket(16), 16);
    ck_assert_uint_eq(ebf_hist_bucket(17), 16);
    ck_assert_uint_eq(ebf_hist_bucket(18), 17);
    ck_assert_uint_eq(ebf_hist_bucket(UINT64_MAX), EBF_HIST_BUCKETS - 1);
}
END_TEST

/* Bucket lower bounds rise strictly and each is at most 12.5% above the last. */
START_TEST(test_bucket_monotonic)
{
    for (unsigned b = 1; b < EBF_HIST_BUCKETS; b++) {
        uint64_t lo = ebf_hist_bucket_lo(b), prev = ebf_hist_bucket_lo(b - 1);
        ck_assert_uint_gt(lo, prev);
        ck_assert_uint_eq(ebf_hist_bucket(lo), b);
        ck_assert_uint_eq(ebf_hist_bucket(lo - 1), b - 1);
        if (prev >= 16)
            ck_assert_uint_le((lo - prev) * 8, prev);
    }
}
END_TEST

/* Exact values below 16 come back exactly. */
START_TEST(test_quantile_small_exact)
{
    struct ebf_hist h;
    ebf_hist_init(&h);
    for (uint64_t v = 1; v <= 10; v++)
        ebf_hist_add(&h, v);
    ck_assert_uint_eq(h.count, 10);
    ck_assert_uint_eq(h.sum, 55);
    ck_assert_uint_eq(h.min, 1);
    ck_assert_uint_eq(h.max, 10);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 0.0), 1);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 0.5), 5);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 0.9), 9);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 0.91), 10);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 1.0), 10);
}
END_TEST

/* 1..100000: every quantile within 12.5% above the true one, never below. */
START_TEST(test_quantile_error_bound)
{
    static const double qs[] = {0.5, 0.9, 0.99, 0.999, 0.9999};
    struct ebf_hist h;
    ebf_hist_init(&h);
    for (uint64_t v = 1; v <= 100000; v++)
        ebf_hist_add(&h, v);
    for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
        uint64_t truth = (uint64_t)(qs[i] * 100000 + 0.5);
        uint64_t got = ebf_hist_quantile(&h, qs[i]);
        ck_assert_uint_ge(got, truth);
        ck_assert_uint_le(got, truth + truth / 8);
    }
    ck_assert_uint_eq(ebf_hist_quantile(&h, 1.0), 100000);
}
END_TEST

/* Merging two halves equals adding everything to one histogram. */
START_TEST(test_merge)
{
    struct ebf_hist a, b, all;
    ebf_hist_init(&a);
    ebf_hist_init(&b);
    ebf_hist_init(&all);
    for (uint64_t v = 0; v < 5000; v++) {
        uint64_t x = v * v * 7 + 3;
        ebf_hist_add(v & 1 ? &a : &b, x);
        ebf_hist_add(&all, x);
    }
    ebf_hist_merge(&a, &b);
    ck_assert_uint_eq(a.count, all.count);
    ck_assert_uint_eq(a.sum, all.sum);
    ck_assert_uint_eq(a.min, all.min);
    ck_assert_uint_eq(a.max, all.max);
    for (unsigned i = 0; i < EBF_HIST_BUCKETS; i++)
        ck_assert_uint_eq(a.bucket[i], all.bucket[i]);
    ck_assert_uint_eq(ebf_hist_quantile(&a, 0.99), ebf_hist_quantile(&all, 0.99));
}
END_TEST

START_TEST(test_empty)
{
    struct ebf_hist h;
    ebf_hist_init(&h);
    ck_assert_uint_eq(ebf_hist_quantile(&h, 0.5), 0);
    ck_assert_uint_eq(h.count, 0);
}
END_TEST

Suite *ebf_hist_suite(void);

Suite *ebf_hist_suite(void)
{
    Suite *s = suite_create("hist");
    TCase *tc = tcase_create("hist");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_bucket_bounds);
    tcase_add_test(tc, test_bucket_monotonic);
    tcase_add_test(tc, test_quantile_small_exact);
    tcase_add_test(tc, test_quantile_error_bound);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    return s;
}
