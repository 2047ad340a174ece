/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_decide.c - Check unit tests of the emulated trigger's decision: exact answers for known ids. */
#include <check.h>
#include <stdint.h>

#include "node_decide.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

/*
 * Expected values computed outside the library from the definition in
 * node_decide.h: draw = splitmix64(id ^ splitmix64(seed)) mod 10^6, accepted
 * when draw < accept * 10^6.
 */
static const double fractions[] = {0, 0.25, 0.5, 0.75, 1.0};
#define N_FRACTIONS (sizeof(fractions) / sizeof(fractions[0]))

static const struct {
    uint64_t seed, id;
    uint32_t draw;
    int want[N_FRACTIONS];       /* the decision at each of fractions[] */
} table[] = {
    {0x0ull, 0x0ull, 947055, {0, 0, 0, 0, 1}},
    {0x0ull, 0x1ull, 732430, {0, 0, 0, 1, 1}},
    {0x0ull, 0x2ull, 332857, {0, 0, 1, 1, 1}},
    {0x0ull, 0x3ull, 870529, {0, 0, 0, 0, 1}},
    {0x0ull, 0x2aull, 985307, {0, 0, 0, 0, 1}},
    {0x0ull, 0x3e8ull, 353772, {0, 0, 1, 1, 1}},
    {0x0ull, 0x75bcd15ull, 570130, {0, 0, 0, 1, 1}},
    {0x0ull, 0x8000000000000000ull, 93069, {0, 1, 1, 1, 1}},
    {0x0ull, 0xffffffffffffffffull, 59696, {0, 1, 1, 1, 1}},
    {0x5eedull, 0x0ull, 484328, {0, 0, 1, 1, 1}},
    {0x5eedull, 0x1ull, 193684, {0, 1, 1, 1, 1}},
    {0x5eedull, 0x2ull, 429943, {0, 0, 1, 1, 1}},
    {0x5eedull, 0x3ull, 197154, {0, 1, 1, 1, 1}},
    {0x5eedull, 0x2aull, 764251, {0, 0, 0, 0, 1}},
    {0x5eedull, 0x3e8ull, 301121, {0, 0, 1, 1, 1}},
    {0x5eedull, 0x75bcd15ull, 110644, {0, 1, 1, 1, 1}},
    {0x5eedull, 0x8000000000000000ull, 466477, {0, 0, 1, 1, 1}},
    {0x5eedull, 0xffffffffffffffffull, 84348, {0, 1, 1, 1, 1}},
};
#define N_TABLE (sizeof(table) / sizeof(table[0]))

/* One row: the decision at every fraction, and the edge at the draw itself
 * (accept * 10^6 == draw rejects, one more accepts). */
START_TEST(test_decide_table)
{
    uint64_t seed = table[_i].seed, id = table[_i].id;
    double draw = table[_i].draw;

    for (unsigned k = 0; k < N_FRACTIONS; k++)
        ck_assert_msg(node_decide(id, seed, fractions[k]) == table[_i].want[k],
                      "seed 0x%llx id 0x%llx accept %g: want %d", (unsigned long long)seed,
                      (unsigned long long)id, fractions[k], table[_i].want[k]);
    ck_assert_int_eq(node_decide(id, seed, draw / 1e6), 0);
    ck_assert_int_eq(node_decide(id, seed, (draw + 1) / 1e6), 1);
}
END_TEST

static const struct {
    uint64_t seed;
    double accept;
    unsigned accepted;           /* of the ids 1..100000 */
} counts[] = {
    {0x0ull, 0.1, 10052},
    {0x0ull, 0.25, 24901},
    {0x0ull, 0.5, 50056},
    {0x0ull, 0.9, 90085},
    {0x5eedull, 0.1, 10056},
    {0x5eedull, 0.25, 25040},
    {0x5eedull, 0.5, 49917},
    {0x5eedull, 0.9, 90033},
};
#define N_COUNTS (sizeof(counts) / sizeof(counts[0]))

/* Over the ids a run of 100000 events has, the exact number accepted. */
START_TEST(test_decide_counts)
{
    unsigned n = 0;

    for (uint64_t id = 1; id <= 100000; id++)
        n += (unsigned)node_decide(id, counts[_i].seed, counts[_i].accept);
    ck_assert_uint_eq(n, counts[_i].accepted);
}
END_TEST

/* 0 rejects every event and 1 accepts every event, whatever the seed. */
START_TEST(test_decide_all_or_none)
{
    static const uint64_t seeds[] = {0, 1, 0x5eed, UINT64_MAX};

    for (unsigned s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++)
        for (uint64_t id = 0; id < 20000; id++) {
            ck_assert_int_eq(node_decide(id, seeds[s], 0), 0);
            ck_assert_int_eq(node_decide(id, seeds[s], 1), 1);
        }
}
END_TEST

/* The seed changes the decisions: two seeds agree on about half the ids
 * at accept 0.5, not on all. */
START_TEST(test_decide_seed)
{
    unsigned same = 0;

    for (uint64_t id = 1; id <= 1000; id++)
        same += node_decide(id, 0, 0.5) == node_decide(id, 0x5eed, 0.5);
    ck_assert_uint_eq(same, 471);
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

Suite *node_decide_suite(void);   /* called by check-main.c, which has no header */

Suite *node_decide_suite(void)
{
    Suite *s = suite_create("node_decide");
    TCase *tc = tcase_create("decide");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_loop_test(tc, test_decide_table, 0, N_TABLE);
    tcase_add_loop_test(tc, test_decide_counts, 0, N_COUNTS);
    tcase_add_test(tc, test_decide_all_or_none);
    tcase_add_test(tc, test_decide_seed);
    suite_add_tcase(s, tc);
    return s;
}
