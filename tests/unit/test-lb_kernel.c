/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_kernel.c - Check unit tests of the loopback's kernel reference over UDP on 127.0.0.1: every frame numbered, sent in bursts and counted exactly. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "lb_kernel.h"
#include "lb_reason.h"

static struct lb_report rep;
static volatile int no_stop;

/* The kernel reference on 127.0.0.1 (no network namespaces), 64-byte
 * frames, sending burst frames per sendmmsg() or after hold_us. */
static void open_local(struct lb_kernel *k, unsigned burst, double hold_us)
{
    memset(&rep, 0, sizeof(rep));
    *k = (struct lb_kernel){
        .tx_fd = -1, .rx_fd = -1, .dst_ip = 0x7f000001u,
        .port = (uint16_t)(40000 + getpid() % 20000), .frame_size = 64, .trial_s = 1,
        .tolerance = 0.5, .drain_s = 0.05, .stop = &no_stop, .mode = "throughput",
        .report = &rep, .burst = burst, .hold_us = hold_us,
    };
    ck_assert_int_eq(lb_kernel_open(k, NULL, NULL), 0);
}

/* One trial of n frames at fps: every frame sent, taken and received once. */
static void check_trial(struct lb_kernel *k, double fps, uint64_t n)
{
    struct lb_trial_req req = {.fps = fps, .count = n};
    struct lb_trial_out out;

    ck_assert_int_eq(lb_kernel_trial(k, &req, &out), 0);
    ck_assert_uint_eq(rep.n_trials, 1);
    const struct lb_trial_rec *t = &rep.trial[0];
    ck_assert_str_eq(t->path, "kernel");
    ck_assert_uint_eq(t->frame_size, 64);
    ck_assert_uint_eq(t->sent, n);
    ck_assert_uint_eq(t->tx_accepted, n);
    ck_assert_uint_eq(t->tx_refused, 0);
    ck_assert_uint_eq(t->rx, n);
    ck_assert_uint_eq(t->unique, n);
    ck_assert_uint_eq(t->lost, 0);
    ck_assert_uint_eq(t->dup + t->late + t->stale + t->foreign, 0);
    ck_assert_uint_eq(t->lat.count, n);
    ck_assert_uint_eq(out.sent, n);
    ck_assert_uint_eq(out.lost, 0);
    ck_assert_int_eq(t->retried, 0);
    lb_kernel_close(k);
    lb_report_free(&rep);
}

/* 3000 frames at 30 kfps: a gap of 33 us, so the 50 us hold sends bursts
 * of one or two frames. */
START_TEST(test_kernel_short_hold)
{
    struct lb_kernel k;
    open_local(&k, 32, 50);
    check_trial(&k, 30000, 3000);
}
END_TEST

/* 3000 frames at 20 kfps in bursts of 64 held up to 5 ms: a burst fills
 * in 3.2 ms, so all are full but the last (3000 = 46 * 64 + 56). */
START_TEST(test_kernel_full_bursts)
{
    struct lb_kernel k;
    open_local(&k, 64, 5000);
    check_trial(&k, 20000, 3000);
}
END_TEST

Suite *lb_kernel_suite(void);

Suite *lb_kernel_suite(void)
{
    Suite *s = suite_create("lb_kernel");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_kernel_short_hold);
    tcase_add_test(tc, test_kernel_full_bursts);
    suite_add_tcase(s, tc);
    return s;
}
