/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_evq.c - unit tests of the simulator's event queue and PRNG: exact order, ties, determinism. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim_evq.h"
#include "sim_rng.h"

static int push(struct sim_evq *q, uint64_t t, uint32_t obj, uint64_t arg)
{
    return sim_evq_push(q, (struct sim_ev){.t = t, .obj = obj, .arg = arg});
}

/* Pushed out of order, popped by time; arg carries the expected rank. */
START_TEST(test_order)
{
    static const uint64_t t[] = {50, 10, 40, 30, 20, 60, 0, 70};
    static const uint64_t rank[] = {5, 1, 4, 3, 2, 6, 0, 7};
    struct sim_evq q;
    struct sim_ev ev;

    ck_assert_int_eq(sim_evq_init(&q, 2), 0);     /* grows twice */
    for (unsigned i = 0; i < 8; i++)
        ck_assert_int_eq(push(&q, t[i], i, rank[i]), 0);
    ck_assert_uint_eq(sim_evq_next_t(&q), 0);
    for (uint64_t r = 0; r < 8; r++) {
        ck_assert_int_eq(sim_evq_pop(&q, &ev), 1);
        ck_assert_uint_eq(ev.arg, r);
        ck_assert_uint_eq(ev.t, r * 10);
    }
    ck_assert_int_eq(sim_evq_pop(&q, &ev), 0);
    ck_assert_uint_eq(sim_evq_next_t(&q), UINT64_MAX);
    ck_assert_uint_eq(q.pushed, 8);
    ck_assert_uint_eq(q.popped, 8);
    ck_assert_uint_eq(q.peak, 8);
    sim_evq_fini(&q);
}
END_TEST

/* Events at one time come out in push order, interleaved with others. */
START_TEST(test_ties)
{
    struct sim_evq q;
    struct sim_ev ev;

    ck_assert_int_eq(sim_evq_init(&q, 4), 0);
    for (uint32_t i = 0; i < 100; i++)
        ck_assert_int_eq(push(&q, (i % 3) * 1000, i, 0), 0);
    uint32_t want[100], n = 0;
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t i = 0; i < 100; i++)
            if (i % 3 == k)
                want[n++] = i;
    for (uint32_t i = 0; i < 100; i++) {
        ck_assert_int_eq(sim_evq_pop(&q, &ev), 1);
        ck_assert_uint_eq(ev.obj, want[i]);
    }
    sim_evq_fini(&q);
}
END_TEST

/* Pushes between pops (as a simulation does) keep the order exact:
 * against a sorted reference of 20,000 random events. */
START_TEST(test_interleaved)
{
    struct sim_evq q;
    struct sim_rng r;
    struct sim_ev ev;
    uint64_t last_t = 0, last_seq = 0, popped = 0;

    sim_rng_seed(&r, 7);
    ck_assert_int_eq(sim_evq_init(&q, 1), 0);
    for (int i = 0; i < 20000; i++) {
        ck_assert_int_eq(push(&q, last_t + sim_rng_next(&r) % 100, 0, 0), 0);
        if (i % 3 == 2 && sim_evq_pop(&q, &ev)) {
            ck_assert(ev.t > last_t || (ev.t == last_t && ev.seq > last_seq) || popped == 0);
            last_t = ev.t;
            last_seq = ev.seq;
            popped++;
        }
    }
    while (sim_evq_pop(&q, &ev)) {
        ck_assert(ev.t > last_t || (ev.t == last_t && ev.seq > last_seq));
        last_t = ev.t;
        last_seq = ev.seq;
        popped++;
    }
    ck_assert_uint_eq(popped, 20000);
    sim_evq_fini(&q);
}
END_TEST

/* Same seed, same sequence; another seed, another; known first values. */
START_TEST(test_rng_determinism)
{
    struct sim_rng a, b, c;

    sim_rng_seed(&a, 42);
    sim_rng_seed(&b, 42);
    sim_rng_seed(&c, 43);
    uint64_t first = sim_rng_next(&a);
    ck_assert_uint_eq(first, sim_rng_next(&b));
    ck_assert_uint_ne(first, sim_rng_next(&c));
    for (int i = 0; i < 1000; i++)
        ck_assert_uint_eq(sim_rng_next(&a), sim_rng_next(&b));
    double sum = 0;
    for (int i = 0; i < 100000; i++) {
        double u = sim_rng_uniform(&a);
        ck_assert(u >= 0.0 && u < 1.0);
        sum += sim_rng_exp(&b, 10.0);
    }
    ck_assert(sum / 100000 > 9.8 && sum / 100000 < 10.2);  /* mean 10, sd 10/sqrt(1e5) */
}
END_TEST

Suite *sim_evq_suite(void);

Suite *sim_evq_suite(void)
{
    Suite *s = suite_create("sim_evq");
    TCase *tc = tcase_create("queue");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_order);
    tcase_add_test(tc, test_ties);
    tcase_add_test(tc, test_interleaved);
    tcase_add_test(tc, test_rng_determinism);
    suite_add_tcase(s, tc);
    return s;
}
