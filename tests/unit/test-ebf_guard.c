/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_guard.c - unit tests of the poll loops' grace period: a sync waits for every online loop's next pass, skips offline ones, gives up on a stuck one. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "ebf_guard.h"

/* A poll loop that, while the port is connected, "bursts" on its memory:
 * inside is 1 from its connected check to the burst's end. */
struct loop {
    _Atomic int connected;
    _Atomic int inside;
    _Atomic int stop;
    _Atomic int stuck;           /* stop passing (a loop stuck in a pass) */
    _Atomic int online;
    _Atomic uint64_t bursts;
};

static void *loop_main(void *arg)
{
    struct loop *l = arg;

    ck_assert_int_eq(ebf_guard_online(), 0);
    ck_assert_int_eq(ebf_guard_online(), 0);     /* twice: harmless */
    atomic_store(&l->online, 1);
    while (!atomic_load(&l->stop)) {
        if (atomic_load(&l->connected)) {
            atomic_store(&l->inside, 1);
            for (volatile int i = 0; i < 200; i++)
                ;
            atomic_fetch_add(&l->bursts, 1);
            atomic_store(&l->inside, 0);
        }
        while (atomic_load(&l->stuck) && !atomic_load(&l->stop))
            usleep(100);
        ebf_guard_pass();
    }
    ebf_guard_offline();
    atomic_store(&l->online, 0);
    return NULL;
}

static void start(struct loop *l, pthread_t *th)
{
    ck_assert_int_eq(pthread_create(th, NULL, loop_main, l), 0);
    while (!atomic_load(&l->online))
        usleep(100);
}

/* No loop online: the sync returns at once. */
START_TEST(test_none)
{
    uint64_t us = 1u << 30;

    ck_assert_int_eq(ebf_guard_sync(1000, &us), 0);
    ck_assert_uint_lt(us, 100000);
}
END_TEST

/* The memif pattern, 500 times over two loops: clear the connected flag,
 * sync; then no burst may still be inside (it would be using the memory
 * about to be unmapped). */
START_TEST(test_no_burst_survives_sync)
{
    struct loop a = {0}, b = {0};
    pthread_t ta, tb;

    start(&a, &ta);
    start(&b, &tb);
    for (int i = 0; i < 500; i++) {
        atomic_store(&a.connected, 1);
        atomic_store(&b.connected, 1);
        while (atomic_load(&a.bursts) == 0 || atomic_load(&b.bursts) == 0)
            ;
        atomic_store(&a.connected, 0);
        atomic_store(&b.connected, 0);
        ck_assert_int_eq(ebf_guard_sync(5000, NULL), 0);
        ck_assert_int_eq(atomic_load(&a.inside), 0);
        ck_assert_int_eq(atomic_load(&b.inside), 0);
        atomic_store(&a.bursts, 0);
        atomic_store(&b.bursts, 0);
    }
    atomic_store(&a.stop, 1);
    atomic_store(&b.stop, 1);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
}
END_TEST

/* A loop that stops passing is given up after the timeout (-ETIMEDOUT, at
 * least that long); once it passes again, or has gone offline, a sync
 * returns 0. */
START_TEST(test_stuck_then_offline)
{
    struct loop a = {0};
    pthread_t ta;
    uint64_t us = 0;

    start(&a, &ta);
    atomic_store(&a.stuck, 1);
    usleep(2000);
    ck_assert_int_eq(ebf_guard_sync(50, &us), -ETIMEDOUT);
    ck_assert_uint_ge(us, 50000);
    atomic_store(&a.stuck, 0);
    ck_assert_int_eq(ebf_guard_sync(5000, NULL), 0);
    atomic_store(&a.stop, 1);
    pthread_join(ta, NULL);
    ck_assert_int_eq(atomic_load(&a.online), 0);
    ck_assert_int_eq(ebf_guard_sync(0, &us), 0);
}
END_TEST

Suite *ebf_guard_suite(void);

Suite *ebf_guard_suite(void)
{
    Suite *s = suite_create("ebf_guard");
    TCase *tc = tcase_create("guard");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_none);
    tcase_add_test(tc, test_no_burst_survives_sync);
    tcase_add_test(tc, test_stuck_then_offline);
    suite_add_tcase(s, tc);
    return s;
}
