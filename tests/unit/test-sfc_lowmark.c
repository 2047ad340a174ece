/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_lowmark.c - the lowest id an SFC holds: exact to the bucket, never above the truth, ids below and above the window. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "sfc_lowmark.h"

#define W (1u << SFC_LOWMARK_SHIFT)

static struct sfc_lowmark *mk(void)
{
    struct sfc_lowmark *m = malloc(sizeof(*m));

    ck_assert_ptr_nonnull(m);
    sfc_lowmark_init(m);
    return m;
}

/* Events held in id order and freed out of order: low is the first id of
 * the lowest held id's bucket. */
START_TEST(test_lowmark_basic)
{
    struct sfc_lowmark *m = mk();

    ck_assert_uint_eq(sfc_lowmark_low(m), SFC_LOWMARK_NONE);
    for (uint64_t e = 1000; e < 1300; e++)
        sfc_lowmark_add(m, e);
    ck_assert_uint_eq(sfc_lowmark_low(m), 1000 / W * W);     /* 960 */
    for (uint64_t e = 1000; e < 1100; e++)
        if (e != 1050)
            sfc_lowmark_remove(m, e);
    ck_assert_uint_eq(sfc_lowmark_low(m), 1050 / W * W);     /* 1024 */
    sfc_lowmark_remove(m, 1050);
    ck_assert_uint_eq(sfc_lowmark_low(m), 1100 / W * W);     /* 1088 */
    for (uint64_t e = 1100; e < 1300; e++)
        sfc_lowmark_remove(m, e);
    ck_assert_uint_eq(sfc_lowmark_low(m), SFC_LOWMARK_NONE);
    /* empty: the window restarts anywhere */
    sfc_lowmark_add(m, 7);
    ck_assert_uint_eq(sfc_lowmark_low(m), 0);
    free(m);
}
END_TEST

/* A replayed old id below the base is counted apart; its minimum stays
 * until every such id is gone. */
START_TEST(test_lowmark_under)
{
    struct sfc_lowmark *m = mk();

    sfc_lowmark_add(m, 100000);
    ck_assert_uint_eq(sfc_lowmark_low(m), 100000 / W * W);
    sfc_lowmark_add(m, 500);
    sfc_lowmark_add(m, 700);
    ck_assert_uint_eq(sfc_lowmark_low(m), 500);
    sfc_lowmark_remove(m, 500);
    ck_assert_uint_eq(sfc_lowmark_low(m), 500);              /* conservative until all go */
    sfc_lowmark_remove(m, 700);
    ck_assert_uint_eq(sfc_lowmark_low(m), 100000 / W * W);
    ck_assert_uint_eq(m->under, 0);
    free(m);
}
END_TEST

/* An id beyond the window holds the base where it is until it is gone;
 * every count returns to zero. */
START_TEST(test_lowmark_over)
{
    struct sfc_lowmark *m = mk();
    const uint64_t far = (uint64_t)SFC_LOWMARK_BUCKETS * W + 5000;

    sfc_lowmark_add(m, 10);
    sfc_lowmark_add(m, far);
    ck_assert_uint_eq(m->over, 1);
    sfc_lowmark_add(m, 3000);
    sfc_lowmark_remove(m, 10);
    ck_assert_uint_eq(sfc_lowmark_low(m), 0);                /* base held at 0 */
    sfc_lowmark_remove(m, 3000);
    ck_assert_uint_eq(sfc_lowmark_low(m), (uint64_t)SFC_LOWMARK_BUCKETS * W);
    sfc_lowmark_remove(m, far);
    ck_assert_uint_eq(m->over, 0);
    ck_assert_uint_eq(m->held, 0);
    ck_assert_uint_eq(sfc_lowmark_low(m), SFC_LOWMARK_NONE);
    free(m);
}
END_TEST

/* Against a brute-force minimum over a pseudo-random hold/free pattern
 * (ids older than 3000 below the newest freed, like timeouts): never
 * above the truth, and the first id of its bucket. */
START_TEST(test_lowmark_random)
{
    struct sfc_lowmark *m = mk();
    static uint8_t held[200000];
    uint64_t x = 12345, next = 0, tail = 0;

    for (unsigned step = 0; step < 400000; step++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        if ((x >> 33) % 3 != 0 && next < sizeof(held)) {
            held[next] = 1;
            sfc_lowmark_add(m, next++);
        } else if (next) {
            uint64_t id = next - 1 - (x >> 40) % (next < 3000 ? next : 3000);

            if (held[id]) {
                held[id] = 0;
                sfc_lowmark_remove(m, id);
            }
        }
        for (; tail + 3000 < next; tail++)       /* the oldest time out */
            if (held[tail]) {
                held[tail] = 0;
                sfc_lowmark_remove(m, tail);
            }
        if (step % 97 == 0) {
            uint64_t truth = SFC_LOWMARK_NONE;

            for (uint64_t i = tail; i < next; i++)
                if (held[i]) {
                    truth = i;
                    break;
                }
            uint64_t low = sfc_lowmark_low(m);
            if (truth == SFC_LOWMARK_NONE) {
                ck_assert_uint_eq(low, SFC_LOWMARK_NONE);
            } else {
                ck_assert_uint_le(low, truth);
                ck_assert_uint_eq(low, truth / W * W);
            }
        }
    }
    ck_assert_uint_eq(next, sizeof(held));
    sfc_lowmark_low(m);
    ck_assert_uint_ge(m->base, (sizeof(held) - 3000) / W - 1);  /* the window moved along */
    ck_assert_uint_eq(m->under + m->over, 0);
    free(m);
}
END_TEST

Suite *sfc_lowmark_suite(void);

Suite *sfc_lowmark_suite(void)
{
    Suite *s = suite_create("sfc_lowmark");
    TCase *tc = tcase_create("sfc_lowmark");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lowmark_basic);
    tcase_add_test(tc, test_lowmark_under);
    tcase_add_test(tc, test_lowmark_over);
    tcase_add_test(tc, test_lowmark_random);
    suite_add_tcase(s, tc);
    return s;
}
