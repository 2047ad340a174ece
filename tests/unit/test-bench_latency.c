/* SPDX-License-Identifier: BSD-3-Clause */
/* test-bench_latency.c - the latency case's plan: which process spins on which CPU, and what the result says when the CPUs do not go round. */
#include <check.h>
#include <string.h>

#include "bench_latency.h"

static void plan_on(unsigned n, struct bench_lat_plan *p)
{
    struct bench_cpus c = {.n = n};
    for (unsigned i = 0; i < n; i++)
        c.cpu[i] = 2 * i;        /* CPUs 0, 2, 4 ...: not their index */
    bench_latency_plan(&c, p);
}

/* 5 CPUs: every process spins alone, the control threads on the first. */
START_TEST(test_five)
{
    struct bench_lat_plan p;
    plan_on(5, &p);
    ck_assert_int_eq(p.pinned, 1);
    ck_assert_str_eq(p.cpus, "other=0,sfc0=2,node0=4,node1=6,ro0=8");
    ck_assert_str_eq(p.spin, "sfc0=spin,node0=spin,node1=spin,ro0=spin,other=spin");
    ck_assert_str_eq(p.note, "");
}
END_TEST

/* 4 CPUs: the paced readout spins beside the control threads. */
START_TEST(test_four)
{
    struct bench_lat_plan p;
    plan_on(4, &p);
    ck_assert_int_eq(p.pinned, 1);
    ck_assert_str_eq(p.cpus, "other=0,sfc0=2,node0=4,node1=6");
    ck_assert_str_eq(p.spin, "sfc0=spin,node0=spin,node1=spin,other=spin");
    ck_assert_str_eq(p.note, "4 CPUs: the readout spins on CPU 0 beside the control threads");
}
END_TEST

/* 3 and 2 CPUs: only what has a CPU of its own spins; not pinned. */
START_TEST(test_too_few)
{
    struct bench_lat_plan p;
    plan_on(3, &p);
    ck_assert_int_eq(p.pinned, 0);
    ck_assert_str_eq(p.cpus, "other=0,sfc0=2,node0=4");
    ck_assert_str_eq(p.spin, "sfc0=spin,node0=spin,other=backoff");
    ck_assert_str_eq(p.note, "3 CPUs, 4 needed: only sfc0 and node0 spin, on CPUs of their "
                             "own; the rest back off on CPU 0 with the control threads");
    plan_on(2, &p);
    ck_assert_int_eq(p.pinned, 0);
    ck_assert_str_eq(p.cpus, "other=0,sfc0=2");
    ck_assert_str_eq(p.spin, "sfc0=spin,other=backoff");
    ck_assert_str_eq(p.note, "2 CPUs, 4 needed: only sfc0 spins, on a CPU of its own; the "
                             "rest back off on CPU 0 with the control threads");
    plan_on(1, &p);
    ck_assert_int_eq(p.pinned, 0);
    ck_assert_str_eq(p.cpus, "");
    ck_assert_str_eq(p.spin, "backoff");
    ck_assert_str_eq(p.note, "1 CPU: nothing spins, both sides back off");
}
END_TEST

Suite *bench_latency_suite(void);

Suite *bench_latency_suite(void)
{
    Suite *s = suite_create("bench_latency");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_five);
    tcase_add_test(tc, test_four);
    tcase_add_test(tc, test_too_few);
    suite_add_tcase(s, tc);
    return s;
}
