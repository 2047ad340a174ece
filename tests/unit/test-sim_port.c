/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim_port.c - unit tests of the simulated switch port: exactly the frames that must drop, drop. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "sim_port.h"

#define US 1000000ull            /* ps */

/*
 * 1 Gbit/s: a byte takes 8 ns, a 1,000-byte frame 8 us. Buffer 3,000 bytes:
 * three such frames fit. Latency 1 us.
 *   t=0: five frames. Frames 0-2 fit (held 1,000, 2,000, 3,000 bytes), 3
 *        and 4 drop. Frame 0 leaves at 8 us, 1 at 16, 2 at 24.
 *   t=4 us: frame 5; frame 0 still holds its bytes (its last bit leaves at
 *        8 us): 3,000 + 1,000 > 3,000, drops.
 *   t=8 us: frame 6; frame 0 has left (2,000 held): fits, queued after
 *        frame 2, leaves at 32 us.
 *   t=8 us: frame 7 of 500 bytes: 3,000 held, 3,500 > 3,000, drops.
 *   t=24 us: frame 8 of 500 bytes: frames 1, 2 left, only 6 held (1,000):
 *        fits, leaves at 32 + 4 = 36 us.
 *   t=100 us: frame 9, the port idle and empty: leaves at 108 us.
 */
static const struct {
    uint64_t t;
    uint32_t len;
    int rc;
    uint64_t arrive;             /* last bit at the far end, when sent */
} pattern[] = {
    {0, 1000, 0, 9 * US},
    {0, 1000, 0, 17 * US},
    {0, 1000, 0, 25 * US},
    {0, 1000, -ENOBUFS, 0},
    {0, 1000, -ENOBUFS, 0},
    {4 * US, 1000, -ENOBUFS, 0},
    {8 * US, 1000, 0, 33 * US},
    {8 * US, 500, -ENOBUFS, 0},
    {24 * US, 500, 0, 37 * US},
    {100 * US, 1000, 0, 109 * US},
};

START_TEST(test_tail_drop)
{
    struct sim_port p;
    uint64_t arrive;

    ck_assert_int_eq(sim_port_init(&p, 1000000000ull, 1 * US, 3000), 0);
    for (unsigned i = 0; i < sizeof(pattern) / sizeof(pattern[0]); i++) {
        arrive = 0;
        int rc = sim_port_send(&p, pattern[i].t, pattern[i].len, &arrive);
        ck_assert_msg(rc == pattern[i].rc, "frame %u: rc %d, want %d", i, rc, pattern[i].rc);
        if (rc == 0)
            ck_assert_msg(arrive == pattern[i].arrive, "frame %u: arrives %ju, want %ju", i,
                          (uintmax_t)arrive, (uintmax_t)pattern[i].arrive);
    }
    ck_assert_uint_eq(p.frames, 6);
    ck_assert_uint_eq(p.bytes, 5500);
    ck_assert_uint_eq(p.drops, 4);
    ck_assert_uint_eq(p.drop_bytes, 3500);
    ck_assert_uint_eq(p.peak_occ, 3000);
    sim_port_fini(&p);
}
END_TEST

/*
 * Incast: n senders each offer one 1,500-byte frame at t=0 to a port with
 * a buffer of b bytes: exactly floor(b / 1500) fit, the rest drop; at 10
 * Gbit/s frame k leaves at (k + 1) * 1.2 us.
 */
static const struct {
    uint32_t n, buffer, sent;
} incast[] = {
    {10, 15000, 10},
    {10, 14999, 9},
    {200, 64 * 1024, 43},
    {200, 1500, 1},
    {200, 1499, 0},
};

START_TEST(test_incast)
{
    struct sim_port p;
    uint64_t arrive, last = 0;
    uint32_t sent = 0;

    ck_assert_int_eq(sim_port_init(&p, 10000000000ull, 0, incast[_i].buffer), 0);
    for (uint32_t k = 0; k < incast[_i].n; k++)
        if (sim_port_send(&p, 0, 1500, &arrive) == 0) {
            sent++;
            ck_assert_uint_eq(arrive, sent * 1200000ull);
            last = arrive;
        }
    ck_assert_uint_eq(sent, incast[_i].sent);
    ck_assert_uint_eq(p.drops, incast[_i].n - incast[_i].sent);
    ck_assert_uint_eq(last, sent * 1200000ull);
    sim_port_fini(&p);
}
END_TEST

/* A link (buffer 0) never drops and serialises back to back. */
START_TEST(test_link)
{
    struct sim_port p;
    uint64_t arrive;

    ck_assert_int_eq(sim_port_init(&p, 1000000000ull, 5 * US, 0), 0);
    for (int k = 0; k < 1000; k++)
        ck_assert_int_eq(sim_port_send(&p, 0, 1000, &arrive), 0);
    ck_assert_uint_eq(arrive, 1000 * 8 * US + 5 * US);
    ck_assert_uint_eq(p.drops, 0);
    sim_port_fini(&p);
}
END_TEST

Suite *sim_port_suite(void);

Suite *sim_port_suite(void)
{
    Suite *s = suite_create("sim_port");
    TCase *tc = tcase_create("port");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_tail_drop);
    tcase_add_loop_test(tc, test_incast, 0, (int)(sizeof(incast) / sizeof(incast[0])));
    tcase_add_test(tc, test_link);
    suite_add_tcase(s, tc);
    return s;
}
