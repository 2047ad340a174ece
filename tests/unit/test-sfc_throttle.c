/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_throttle.c - unit tests of the SFC's throttle: hysteresis on events and records, the refresh, the workers' shared want, the staged drain's clock. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sfc_drain.h"
#include "sfc_throttle.h"

#define REFRESH 1000

static void mk(struct sfc_throttle *t, uint16_t worker, uint8_t quiet, struct sfc_share *share)
{
    struct sfc_throttle_conf c = {
        .on = 0.75, .off = 0.5, .capacity = 100, .max_frames = 1000, .refresh_tsc = REFRESH,
        .worker = worker, .quiet = quiet, .share = share,
    };
    sfc_throttle_init(t, &c);
}

/* On at exactly 75 of 100 events held, not at 74; off at exactly 50, not
 * at 51; each turn sends one frame with the fill per mille and the next
 * sequence number. */
START_TEST(test_events_hysteresis)
{
    struct sfc_throttle t;
    struct sfc_throttle_step s;

    mk(&t, 0, 0, NULL);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 74, 0, 1, &s), 0);
    ck_assert_uint_eq(s.send + s.turned_on + s.turned_off, 0);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 75, 0, 2, &s), 1);
    ck_assert_uint_eq(s.send, 1);
    ck_assert_uint_eq(s.on, 1);
    ck_assert_uint_eq(s.turned_on, 1);
    ck_assert_uint_eq(s.fill, 750);
    ck_assert_uint_eq(s.seq, 0);
    ck_assert_int_eq(sfc_throttle_is_on(&t), 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 51, 0, 3, &s), 0);     /* held, not refreshed yet */
    ck_assert_int_eq(sfc_throttle_is_on(&t), 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 50, 0, 4, &s), 1);
    ck_assert_uint_eq(s.send, 1);
    ck_assert_uint_eq(s.on, 0);
    ck_assert_uint_eq(s.turned_off, 1);
    ck_assert_uint_eq(s.turned_on, 0);
    ck_assert_uint_eq(s.fill, 500);
    ck_assert_uint_eq(s.seq, 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 74, 0, 5, &s), 0);     /* off stays off */
    ck_assert_int_eq(sfc_throttle_is_on(&t), 0);
}
END_TEST

/* Records turn it on alone (750 of 1000), and it stays on until both
 * events and records are at or below the off threshold. */
START_TEST(test_records_hysteresis)
{
    struct sfc_throttle t;
    struct sfc_throttle_step s;

    mk(&t, 0, 0, NULL);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 0, 749, 1, &s), 0);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 0, 750, 2, &s), 1);
    ck_assert_uint_eq(s.turned_on, 1);
    ck_assert_uint_eq(s.fill, 750);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 50, 501, 3, &s), 0);
    ck_assert_int_eq(sfc_throttle_is_on(&t), 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 51, 500, 4, &s), 0);
    ck_assert_int_eq(sfc_throttle_is_on(&t), 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 50, 500, 5, &s), 1);
    ck_assert_uint_eq(s.turned_off, 1);
}
END_TEST

/* While on, "on" goes again every refresh_tsc since the last frame. */
START_TEST(test_refresh)
{
    struct sfc_throttle t;
    struct sfc_throttle_step s;

    mk(&t, 0, 0, NULL);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 80, 0, 100, &s), 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 80, 0, 100 + REFRESH - 1, &s), 0);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 90, 0, 100 + REFRESH, &s), 1);
    ck_assert_uint_eq(s.send, 1);
    ck_assert_uint_eq(s.on, 1);
    ck_assert_uint_eq(s.turned_on, 0);  /* a refresh is no transition */
    ck_assert_uint_eq(s.fill, 900);
    ck_assert_uint_eq(s.seq, 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t, 90, 0, 100 + 2 * REFRESH - 1, &s), 0);
}
END_TEST

/* An off threshold above the on one is taken as the on one. */
START_TEST(test_off_clamped)
{
    struct sfc_throttle t;
    struct sfc_throttle_conf c = {.on = 0.6, .off = 0.9, .capacity = 100, .max_frames = 1000};

    sfc_throttle_init(&t, &c);
    ck_assert_uint_eq(t.on_events, 60);
    ck_assert_uint_eq(t.off_events, 60);
    ck_assert_uint_eq(t.on_records, 600);
    ck_assert_uint_eq(t.off_records, 600);
    c.on = c.off = 0;           /* defaults: 0.75, 0.5 */
    sfc_throttle_init(&t, &c);
    ck_assert_uint_eq(t.on_events, 75);
    ck_assert_uint_eq(t.off_events, 50);
}
END_TEST

/* Two workers: on while either wants it, numbered by one sequence; only
 * worker 0 counts the turns; a quiet worker (a shared readout port) sends
 * nothing and takes no number. */
START_TEST(test_shared_workers)
{
    struct sfc_share share = {.n = 2};
    struct sfc_throttle t0, t1;
    struct sfc_throttle_step s;

    mk(&t0, 0, 0, &share);
    mk(&t1, 1, 0, &share);
    ck_assert_uint_eq(sfc_throttle_poll(&t1, 75, 0, 1, &s), 1);
    ck_assert_uint_eq(s.turned_on, 0);  /* worker 1's turn: not counted */
    ck_assert_uint_eq(s.seq, 0);
    ck_assert_uint_eq(sfc_throttle_poll(&t0, 0, 0, 2, &s), 1);     /* hears worker 1 */
    ck_assert_uint_eq(s.turned_on, 1);
    ck_assert_uint_eq(s.on, 1);
    ck_assert_uint_eq(s.fill, 0);
    ck_assert_uint_eq(s.seq, 1);
    ck_assert_uint_eq(sfc_throttle_poll(&t1, 50, 0, 3, &s), 1);
    ck_assert_uint_eq(s.on, 0);
    ck_assert_uint_eq(s.turned_off, 0);
    ck_assert_uint_eq(sfc_throttle_poll(&t0, 0, 0, 4, &s), 1);
    ck_assert_uint_eq(s.turned_off, 1);
    ck_assert_uint_eq(share.throttle_seq, 4);

    struct sfc_throttle q;
    mk(&q, 1, 1, &share);
    ck_assert_uint_eq(sfc_throttle_poll(&q, 80, 0, 5, &s), 1);
    ck_assert_uint_eq(s.send, 0);
    ck_assert_uint_eq(share.throttle_seq, 4);
}
END_TEST

/* The drain: quiet once the input count has not moved for quiet_tsc; acks
 * waited for until timeout_tsc after intake ended, or none left. */
START_TEST(test_drain_clock)
{
    struct sfc_drain d;

    sfc_drain_init(&d, 100, 1000);
    ck_assert_int_eq(d.phase, SFC_DRAIN_RUNNING);
    sfc_drain_begin(&d, 10, 5);
    ck_assert_int_eq(d.phase, SFC_DRAIN_QUIET);
    ck_assert_int_eq(sfc_drain_quiet(&d, 109, 5), 0);
    ck_assert_int_eq(sfc_drain_quiet(&d, 110, 6), 0);   /* input moved: from 110 on */
    ck_assert_int_eq(sfc_drain_quiet(&d, 209, 6), 0);
    ck_assert_int_eq(sfc_drain_quiet(&d, 210, 6), 1);
    sfc_drain_acks(&d, 210);
    ck_assert_int_eq(d.phase, SFC_DRAIN_ACKS);
    ck_assert_int_eq(sfc_drain_over(&d, 1210, 3), 0);
    ck_assert_int_eq(sfc_drain_over(&d, 1211, 3), 1);
    ck_assert_int_eq(d.phase, SFC_DRAIN_DONE);
    sfc_drain_begin(&d, 0, 0);
    sfc_drain_acks(&d, 0);
    ck_assert_int_eq(sfc_drain_over(&d, 1, 0), 1);      /* nothing left */
}
END_TEST

Suite *sfc_throttle_suite(void);

Suite *sfc_throttle_suite(void)
{
    Suite *s = suite_create("throttle");
    TCase *tc = tcase_create("hysteresis");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_events_hysteresis);
    tcase_add_test(tc, test_records_hysteresis);
    tcase_add_test(tc, test_refresh);
    tcase_add_test(tc, test_off_clamped);
    tcase_add_test(tc, test_shared_workers);
    suite_add_tcase(s, tc);
    tc = tcase_create("drain");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_drain_clock);
    suite_add_tcase(s, tc);
    return s;
}
