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

Suite *ebf_idset_suite(void);

Suite *ebf_idset_suite(void)
{
    Suite *s = suite_create("idset");
    TCase *tc = tcase_create("idset");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_idset_closes);
    tcase_add_test(tc, test_idset_lists_mismatch);
    tcase_add_test(tc, test_idset_too_many);
    tcase_add_test(tc, test_idset_multiplicity);
    suite_add_tcase(s, tc);
    return s;
}
