/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_route.c - the readouts' routing function: home places kept, the dead share spread, the table equal to the reference. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "ebf_route.h"

/* The dead set of one word of places (bit p: place p 0 .. 63). */
#define D(bits) (&(struct ebf_places){{(uint64_t)(bits)}})

/* No place dead: e % n, as before failover. */
START_TEST(test_route_all_live)
{
    struct ebf_route r;

    ck_assert_int_eq(ebf_route_set(&r, 4, NULL), 0);
    ck_assert_uint_eq(r.n_live, 4);
    for (uint64_t e = 0; e < 1000; e++) {
        ck_assert_uint_eq(ebf_route_place(e, 4, NULL), e % 4);
        ck_assert_uint_eq(ebf_route_of(&r, e), e % 4);
    }
    ck_assert_uint_eq(ebf_route_place(UINT64_MAX, 1, NULL), 0);
}
END_TEST

/* The example of docs/protocol.md 13.1: n = 4, place 1 dead. */
START_TEST(test_route_protocol_example)
{
    const uint64_t dead = 1u << 1;
    const uint64_t e[] = {0, 2, 3, 1, 5, 9, 13, 17};
    const uint32_t want[] = {0, 2, 3, 0, 2, 3, 0, 2};

    for (unsigned i = 0; i < sizeof(e) / sizeof(e[0]); i++)
        ck_assert_uint_eq(ebf_route_place(e[i], 4, D(dead)), want[i]);
}
END_TEST

/* Live shares untouched; the dead share spread exactly evenly over the
 * survivors; the table agrees with the reference for every dead set of
 * 5 places. */
START_TEST(test_route_spread_and_table)
{
    const uint32_t n = 5;

    for (uint64_t dead = 0; dead < (1u << n); dead++) {
        struct ebf_route r;
        uint64_t count[5] = {0};
        uint32_t n_live = n - (uint32_t)__builtin_popcountll(dead);

        ck_assert_int_eq(ebf_route_set(&r, n, D(dead)), 0);
        ck_assert_uint_eq(r.n_live, n_live);
        /* n * n_live * 4 consecutive ids: each dead home's n_live * 4 ids
         * split exactly evenly */
        uint64_t span = (uint64_t)n * (n_live ? n_live : 1) * 4;
        for (uint64_t e = 1000000; e < 1000000 + span; e++) {
            uint32_t p = ebf_route_place(e, n, D(dead));
            ck_assert_uint_eq(ebf_route_of(&r, e), p);
            if (!n_live) {
                ck_assert_uint_eq(p, EBF_ROUTE_NONE);
                continue;
            }
            ck_assert_uint_lt(p, n);
            ck_assert(!(dead >> p & 1));
            if (!(dead >> (e % n) & 1))
                ck_assert_uint_eq(p, e % n);
            count[p]++;
        }
        if (!n_live)
            continue;
        uint64_t each = span / n_live;
        for (uint32_t p = 0; p < n; p++)
            ck_assert_uint_eq(count[p], (dead >> p & 1) ? 0 : each);
    }
}
END_TEST

/* A second death moves only what went to the newly dead place: every
 * event routed to a live place before is routed there after, unless that
 * place is the one that died. */
START_TEST(test_route_second_death)
{
    const uint32_t n = 3;

    for (uint64_t e = 0; e < 3000; e++) {
        uint32_t a = ebf_route_place(e, n, D(1u << 0));
        uint32_t b = ebf_route_place(e, n, D((1u << 0) | (1u << 2)));

        ck_assert_uint_eq(b, 1);
        if (a != 2)
            ck_assert_uint_eq(a, b);
    }
    ck_assert_uint_eq(ebf_route_place(7, n, D(7)), EBF_ROUTE_NONE);
}
END_TEST

/* Bad sizes and bits beyond n. */
START_TEST(test_route_limits)
{
    struct ebf_route r;

    ck_assert_uint_eq(ebf_route_place(5, 0, NULL), EBF_ROUTE_NONE);
    ck_assert_uint_eq(ebf_route_place(5, EBF_ROUTE_MAX + 1, NULL), EBF_ROUTE_NONE);
    ck_assert_int_eq(ebf_route_set(&r, 0, NULL), -EINVAL);
    ck_assert_uint_eq(ebf_route_of(&r, 5), EBF_ROUTE_NONE);
    ck_assert_int_eq(ebf_route_set(&r, EBF_ROUTE_MAX + 1, NULL), -EINVAL);
    /* bits at or above n are ignored */
    ck_assert_int_eq(ebf_route_set(&r, 2, D(~UINT64_C(0) << 2)), 0);
    ck_assert_uint_eq(r.n_live, 2);
    ck_assert_uint_eq(ebf_route_place(3, 2, D(~UINT64_C(0) << 2)), 1);
    /* 64 places, the last dead: its events spread over 0 .. 62 */
    ck_assert_int_eq(ebf_route_set(&r, 64, D(UINT64_C(1) << 63)), 0);
    ck_assert_uint_eq(r.n_live, 63);
    ck_assert_uint_eq(ebf_route_of(&r, 63), 0);
    ck_assert_uint_eq(ebf_route_of(&r, 64 * 62 + 63), 62);
    ck_assert_uint_eq(ebf_route_of(&r, 64 * 63 + 63), 0);
}
END_TEST

/* Beyond one word (EBF_ROUTE_MAX 256): the LHCb design's 175 places with
 * places 3, 64 and 170 dead. Live shares stay home; each dead place's
 * share spreads evenly over the 172 survivors; the table equals the
 * reference; 256 places route, 257 do not. */
START_TEST(test_route_wide)
{
    const uint32_t n = 175;
    struct ebf_places dead = {{0}};
    struct ebf_route r;
    uint64_t count[175] = {0};

    ebf_places_add(&dead, 3);
    ebf_places_add(&dead, 64);
    ebf_places_add(&dead, 170);
    ebf_places_add(&dead, 200);  /* at or above n: ignored */
    ck_assert_uint_eq(ebf_places_count(&dead, n), 3);
    ck_assert_int_eq(ebf_route_set(&r, n, &dead), 0);
    ck_assert_uint_eq(r.n_live, 172);
    ck_assert_uint_eq(r.live[3], 4);
    ck_assert_uint_eq(r.live[62], 63);
    ck_assert_uint_eq(r.live[63], 65);
    ck_assert_uint_eq(r.live[171], 174);
    /* n * 172 ids: every home place once per n, each dead share 172 ids */
    for (uint64_t e = 0; e < (uint64_t)n * 172; e++) {
        uint32_t p = ebf_route_place(e, n, &dead);
        ck_assert_uint_eq(ebf_route_of(&r, e), p);
        if (!ebf_places_has(&dead, (uint32_t)(e % n)))
            ck_assert_uint_eq(p, e % n);
        count[p]++;
    }
    for (uint32_t p = 0; p < n; p++)
        ck_assert_uint_eq(count[p], ebf_places_has(&dead, p) ? 0 : 172 + 3);
    /* event 170 (e / n = 0) to the first survivor, 170 + 175 to the second */
    ck_assert_uint_eq(ebf_route_of(&r, 170), 0);
    ck_assert_uint_eq(ebf_route_of(&r, 170 + 175), 1);
    ck_assert_int_eq(ebf_route_set(&r, 256, &dead), 0);
    ck_assert_uint_eq(r.n_live, 252);
    ck_assert_uint_eq(ebf_route_of(&r, 255), 255);
    ck_assert_uint_eq(ebf_route_place(200, 256, &dead), 0);
    ck_assert_int_eq(ebf_route_set(&r, 257, &dead), -EINVAL);
}
END_TEST

Suite *ebf_route_suite(void);

Suite *ebf_route_suite(void)
{
    Suite *s = suite_create("route");
    TCase *tc = tcase_create("route");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_route_all_live);
    tcase_add_test(tc, test_route_protocol_example);
    tcase_add_test(tc, test_route_spread_and_table);
    tcase_add_test(tc, test_route_second_death);
    tcase_add_test(tc, test_route_limits);
    tcase_add_test(tc, test_route_wide);
    suite_add_tcase(s, tc);
    return s;
}
