/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_idset.c - the ledger's id record: sums, ranges, exact listing of the ids that differ. */
#include <check.h>
#include <string.h>

#include "ebf_idset.h"

#define MAXL 64

struct listing {
    uint64_t missing[MAXL], extra[MAXL];
    unsigned n_missing, n_extra;
    int complete;
};

/* want = the range [0, n); got as built by the caller: list want - got. */
static void diff_range(uint64_t n, const struct ebf_idset *got, struct listing *l)
{
    struct ebf_idset d;

    ebf_idset_init(&d);
    ebf_idset_add_range(&d, 0, n);
    ebf_idset_merge(&d, got, -1);
    l->complete = ebf_idset_list(&d, l->missing, &l->n_missing, l->extra, &l->n_extra, MAXL);
}

/* Two nodes and the SFC's lost ids account for 0..99999 exactly once. */
START_TEST(test_idset_closes)
{
    struct ebf_idset n0, n1, lost, sum;
    struct listing l;

    ebf_idset_init(&n0);
    ebf_idset_init(&n1);
    ebf_idset_init(&lost);
    for (uint64_t id = 0; id < 100000; id++) {
        if (id % 1000 == 999)
            ebf_idset_add(&lost, id);
        else
            ebf_idset_add(id % 3 ? &n0 : &n1, id);
    }
    ebf_idset_init(&sum);
    ebf_idset_merge(&sum, &n0, 1);
    ebf_idset_merge(&sum, &n1, 1);
    ebf_idset_merge(&sum, &lost, 1);
    diff_range(100000, &sum, &l);
    ck_assert_int_eq(l.complete, 1);
    ck_assert_uint_eq(l.n_missing, 0);
    ck_assert_uint_eq(l.n_extra, 0);
}
END_TEST

/* Ids missing, decided twice, decided three times and out of range are
 * listed exactly, in order. */
START_TEST(test_idset_lists_mismatch)
{
    static const uint64_t gone[] = {0, 7, 4242, 65535, 65536, 99999};
    static const uint64_t twice[] = {3, 70000};
    struct ebf_idset got;
    struct listing l;

    ebf_idset_init(&got);
    for (uint64_t id = 0; id < 100000; id++) {
        int skip = 0;
        for (unsigned i = 0; i < 6; i++)
            skip |= id == gone[i];
        if (!skip)
            ebf_idset_add(&got, id);
    }
    ebf_idset_add(&got, 3);
    ebf_idset_add(&got, 70000);
    ebf_idset_add(&got, 5);            /* 5 three times: extra twice */
    ebf_idset_add(&got, 5);
    ebf_idset_add(&got, 123456789);    /* never generated */
    diff_range(100000, &got, &l);
    ck_assert_int_eq(l.complete, 1);
    ck_assert_uint_eq(l.n_missing, 6);
    for (unsigned i = 0; i < 6; i++)
        ck_assert_uint_eq(l.missing[i], gone[i]);
    ck_assert_uint_eq(l.n_extra, 5);
    static const uint64_t want_extra[] = {3, 5, 5, 70000, 123456789};
    for (unsigned i = 0; i < 5; i++)
        ck_assert_uint_eq(l.extra[i], want_extra[i]);
    (void)twice;
}
END_TEST

/* Far too many differences: detected, not completely listed. */
START_TEST(test_idset_too_many)
{
    struct ebf_idset got;
    struct listing l;

    ebf_idset_init(&got);
    ebf_idset_add_range(&got, 0, 50000);
    diff_range(100000, &got, &l);
    ck_assert_int_eq(l.complete, 0);
    ck_assert_uint_lt(l.n_missing, 50000);
    ck_assert_uint_eq(l.n_extra, 0);
}
END_TEST

/* More differing ids than the lists hold, each peeled: the first max
 * kept, and the listing says it is not complete (the ledger names a loss
 * only from a complete one). */
START_TEST(test_idset_more_than_max)
{
    uint64_t missing[16], extra[16], sum = 0;
    unsigned n_missing, n_extra;
    struct ebf_idset d;

    ebf_idset_init(&d);
    for (uint64_t id = 9600; id <= 9632; id += 2)    /* 17 ids */
        ebf_idset_add(&d, id);
    ck_assert_int_eq(ebf_idset_list(&d, missing, &n_missing, extra, &n_extra, 16), 0);
    ck_assert(ebf_idset_empty(&d));         /* every one peeled */
    ck_assert_uint_eq(n_missing, 16);
    ck_assert_uint_eq(n_extra, 0);
    for (unsigned i = 0; i < n_missing; i++) {
        ck_assert(missing[i] >= 9600 && missing[i] <= 9632 && missing[i] % 2 == 0);
        sum += missing[i];
    }
    ck_assert_uint_lt(sum, 17 * 9616);      /* one of the 17 left out */
    struct ebf_idset got;
    ebf_idset_init(&got);
    for (uint64_t id = 9600; id <= 9632; id += 2)
        ebf_idset_add(&got, id);
    ebf_idset_init(&d);
    ebf_idset_merge(&d, &got, -1);          /* the same 17, now extra */
    ck_assert_int_eq(ebf_idset_list(&d, missing, &n_missing, extra, &n_extra, 16), 0);
    ck_assert_uint_eq(n_extra, 16);
}
END_TEST

/* A lone id with multiplicity 2 and 4 in a cell of its own decodes. */
START_TEST(test_idset_multiplicity)
{
    struct ebf_idset d;
    struct listing l;

    ebf_idset_init(&d);
    for (int i = 0; i < 4; i++)
        ebf_idset_add(&d, 0x8000000000000001ull);
    l.complete = ebf_idset_list(&d, l.missing, &l.n_missing, l.extra, &l.n_extra, MAXL);
    ck_assert_int_eq(l.complete, 1);
    ck_assert_uint_eq(l.n_missing, 4);
    ck_assert_uint_eq(l.missing[3], 0x8000000000000001ull);
    ck_assert(ebf_idset_empty(&d));
}
END_TEST

/* The id sum of lo .. lo + n - 1 modulo 2^64, as a record adds it, summed
 * with 128-bit arithmetic (the reference). */
static uint64_t range_sum(uint64_t lo, uint64_t n)
{
    unsigned __int128 s = (unsigned __int128)n * lo + (unsigned __int128)n * (n - 1) / 2;
    return (uint64_t)s;
}

/* The first id of a range from its count and id sum, at 10^10 ids and
 * beyond, where n (n - 1) / 2 does not fit in 64 bits. */
START_TEST(test_idset_range_lo_at_scale)
{
    static const uint64_t ns[] = {1, 2, 3, 1000, 4294967296ull, 4294967297ull, 6100000000ull,
                                  10000000000ull, 10000000001ull, 1000000000000ull};
    static const uint64_t los[] = {0, 1, 7, 65536, 4294967295ull, 10000000000ull,
                                   (1ull << 40) + 3};
    uint64_t lo;

    for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
        for (unsigned k = 0; k < sizeof(los) / sizeof(los[0]); k++) {
            /* n = 2^k m fixes lo modulo 2^(64 - k): the smallest solution. */
            uint64_t want = los[k] & (~0ull >> __builtin_ctzll(ns[i]));
            ck_assert_int_eq(ebf_idset_range_lo(ns[i], range_sum(los[k], ns[i]), &lo), 0);
            ck_assert_msg(lo == want, "n %llu: lo %llu, expected %llu",
                          (unsigned long long)ns[i], (unsigned long long)lo,
                          (unsigned long long)want);
        }
    /* No range of 2 ids sums to an even number... */
    ck_assert_int_eq(ebf_idset_range_lo(2, 10, &lo), -1);
    ck_assert_uint_eq(lo, 0);
    ck_assert_int_eq(ebf_idset_range_lo(2, 11, &lo), 0);
    ck_assert_uint_eq(lo, 5);
    ck_assert_int_eq(ebf_idset_range_lo(0, 99, &lo), 0);
    ck_assert_uint_eq(lo, 0);
    /* Against a record's partition 0, for a range across 2^32. */
    struct ebf_idset r;
    uint64_t n = 0, sum = 0;
    ebf_idset_init(&r);
    ebf_idset_add_range(&r, (1ull << 32) - 500, 1000);
    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++) {
        n += r.count[c];
        sum += r.id_sum[c];
    }
    ck_assert_uint_eq(n, 1000);
    ck_assert_int_eq(ebf_idset_range_lo(n, sum, &lo), 0);
    ck_assert_uint_eq(lo, (1ull << 32) - 500);
}
END_TEST

/* Records stay exact when their cells hold 10^10 ids and more: counts, id
 * sums and hash sums wrap modulo 2^64 and still cancel cell by cell, and a
 * single id missing among 200 x 2^33 (1.7e12) is found and named. */
START_TEST(test_idset_exact_at_scale)
{
    struct ebf_idset a, b;
    uint64_t missing[4], extra[4];
    unsigned n_missing, n_extra;

    ebf_idset_init(&a);
    for (uint64_t k = 0; k < 200; k++)
        ebf_idset_add(&a, 10000000000ull + k * 7919);
    for (int i = 0; i < 33; i++)                 /* every id 2^33 times */
        ebf_idset_merge(&a, &a, 1);
    uint64_t total = 0;
    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++)
        total += a.count[c];
    ck_assert_uint_eq(total, 200ull << 33);
    b = a;
    ebf_idset_merge(&b, &a, -1);
    ck_assert(ebf_idset_empty(&b));
    b = a;
    ebf_idset_init(&a);
    ebf_idset_add(&a, 10000000000ull + 77 * 7919);
    ebf_idset_merge(&b, &a, -1);                 /* b: one copy of that id fewer */
    ebf_idset_init(&a);
    for (uint64_t k = 0; k < 200; k++)
        ebf_idset_add(&a, 10000000000ull + k * 7919);
    for (int i = 0; i < 33; i++)
        ebf_idset_merge(&a, &a, 1);
    ebf_idset_merge(&a, &b, -1);                 /* want - got */
    ck_assert_int_eq(ebf_idset_list(&a, missing, &n_missing, extra, &n_extra, 4), 1);
    ck_assert_uint_eq(n_missing, 1);
    ck_assert_uint_eq(n_extra, 0);
    ck_assert_uint_eq(missing[0], 10000000000ull + 77 * 7919);
}
END_TEST

Suite *ebf_idset_suite(void);

Suite *ebf_idset_suite(void)
{
    Suite *s = suite_create("idset");
    TCase *tc = tcase_create("idset");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_idset_closes);
    tcase_add_test(tc, test_idset_lists_mismatch);
    tcase_add_test(tc, test_idset_too_many);
    tcase_add_test(tc, test_idset_more_than_max);
    tcase_add_test(tc, test_idset_multiplicity);
    tcase_add_test(tc, test_idset_range_lo_at_scale);
    tcase_add_test(tc, test_idset_exact_at_scale);
    suite_add_tcase(s, tc);
    return s;
}
