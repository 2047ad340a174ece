/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_failover.c - the readout's view of the SFC places: death by silence, the route around it, stale frames, joins and leaves at event ids, a false death counted. */
#include <check.h>
#include <errno.h>
#include <stdint.h>

#include "ro_failover.h"

#define MS 1000000ull

static int hear(struct ro_failover *fo, uint16_t place, uint16_t epoch, uint32_t seq,
                uint8_t flags, uint64_t at, uint64_t next_id, uint64_t now_ns)
{
    struct ebf_release_hdr h = {.place = place, .flags = flags, .epoch = epoch, .seq = seq,
                                .at = at};

    return ro_failover_offer(fo, &h, next_id, now_ns);
}

/* ro_failover_poll's places as one word (these tests have at most 64),
 * its count checked against them. */
static uint64_t poll_bits(struct ro_failover *fo, uint64_t now_ns)
{
    struct ebf_places died;
    uint32_t n = ro_failover_poll(fo, now_ns, &died);

    ck_assert_uint_eq(n, (uint32_t)__builtin_popcountll(died.w[0]));
    return died.w[0];
}

/* Two places heard every 10 ms; place 1 goes silent at 20 ms: dead at
 * 120 ms exactly, its events then go to place 0; a place never heard is
 * never declared dead here. */
START_TEST(test_failover_detect)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 3, 100 * MS), 0);
    for (uint32_t t = 0; t <= 20; t += 10) {
        ck_assert_int_eq(hear(&fo, 0, 0, t, 0, 0, 0, t * MS), 1);
        ck_assert_int_eq(hear(&fo, 1, 0, t, 0, 0, 0, t * MS), 1);
    }
    ck_assert_uint_eq(ro_failover_place(&fo, 4), 1);
    for (uint32_t t = 30; t <= 110; t += 10)
        hear(&fo, 0, 0, t, 0, 0, 0, t * MS);
    ck_assert_uint_eq(poll_bits(&fo, 120 * MS - 1), 0);
    ck_assert_uint_eq(poll_bits(&fo, 120 * MS), 1u << 1);
    for (uint64_t t = 130; t < 210; t += 10)   /* polled every 10 ms: not our stall */
        ck_assert_uint_eq(poll_bits(&fo, t * MS), 0);
    ck_assert_uint_eq(poll_bits(&fo, 210 * MS), 1u << 0);  /* 0 silent since 110 */
    ck_assert_uint_eq(fo.deaths, 2);
    ck_assert_uint_eq(fo.out.w[0], 3);
    /* place 2 never heard: still routed to; every event goes there */
    for (uint64_t e = 100; e < 110; e++)
        ck_assert_uint_eq(ro_failover_place(&fo, e), 2);
}
END_TEST

/* Stale frames refresh nothing; a new epoch is newer whatever its seq; a
 * dead place heard again stays out until it joins. */
START_TEST(test_failover_stale_and_fenced)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    ck_assert_int_eq(hear(&fo, 0, 0, 5, 0, 0, 0, 0), 1);
    ck_assert_int_eq(hear(&fo, 1, 0, 5, 0, 0, 0, 0), 1);
    ck_assert_int_eq(hear(&fo, 1, 0, 5, 0, 0, 0, 90 * MS), 0);   /* the same seq */
    ck_assert_int_eq(hear(&fo, 1, 0, 4, 0, 0, 0, 90 * MS), 0);   /* an older one */
    ck_assert_uint_eq(fo.stale, 2);
    ck_assert_int_eq(hear(&fo, 0, 0, 6, 0, 0, 0, 90 * MS), 1);
    ck_assert_uint_eq(poll_bits(&fo, 100 * MS), 1u << 1);
    ck_assert_int_eq(hear(&fo, 1, 1, 0, 0, 0, 0, 150 * MS), 1);  /* restarted: epoch 1 */
    ck_assert_uint_eq(fo.out.w[0], 1u << 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 1001), 0);
    ck_assert_int_eq(hear(&fo, 7, 0, 1, 0, 0, 0, 0), 0);         /* no such place */
}
END_TEST

/* A place declared dead by silence and then heard at the same epoch was
 * alive: counted once in false_deaths (the next frames not again), each
 * of its frames at that epoch makes a dead notice due to it, and it
 * stays out until it joins (it fenced on the notice: a newer epoch, no
 * more notices); one heard again at a newer epoch (fenced or
 * restarted) is not counted; a join clears the mark, so a frame after the
 * join counts nothing; a reborn place (new epoch while routed to) is not
 * a death by silence. */
START_TEST(test_failover_false_death)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 3, 100 * MS), 0);
    for (uint16_t p = 0; p < 3; p++)
        ck_assert_int_eq(hear(&fo, p, 4, 1, 0, 0, 0, 0), 1);
    for (uint32_t t = 10; t <= 100; t += 10)
        hear(&fo, 0, 4, 1 + t, 0, 0, 0, t * MS);
    ck_assert_uint_eq(poll_bits(&fo, 100 * MS), (1u << 1) | (1u << 2));
    ck_assert_uint_eq(fo.false_deaths, 0);
    struct ebf_places due;
    ck_assert_uint_eq(ro_failover_notices(&fo, &due), 0);
    ck_assert_int_eq(hear(&fo, 1, 4, 2, 0, 0, 0, 105 * MS), 1);    /* place 1 alive */
    ck_assert_uint_eq(ro_failover_notices(&fo, &due), 1);           /* tell it */
    ck_assert_uint_eq(due.w[0], 1u << 1);
    ck_assert_uint_eq(ro_failover_notices(&fo, &due), 0);           /* once per frame */
    ck_assert_int_eq(hear(&fo, 1, 4, 3, 0, 0, 0, 106 * MS), 1);
    ck_assert_int_eq(hear(&fo, 2, 5, 0, 0, 0, 0, 107 * MS), 1);    /* place 2 fenced */
    ck_assert_uint_eq(ro_failover_notices(&fo, &due), 1);
    ck_assert_uint_eq(due.w[0], 1u << 1);                           /* 2: no notice */
    ck_assert_uint_eq(fo.false_deaths, 1);
    ck_assert_uint_eq(fo.out.w[0], (1u << 1) | (1u << 2));         /* both out still */
    ck_assert_uint_eq(ro_failover_place(&fo, 1), 0);
    ck_assert_int_eq(hear(&fo, 1, 5, 0, EBF_RELF_JOIN, 500, 10, 110 * MS), 1);
    ck_assert_uint_eq(ro_failover_notices(&fo, &due), 0);   /* it fenced: epoch 5, no notice */
    ck_assert_uint_eq(ro_failover_place(&fo, 502), 1);             /* joined: 502 % 3 */
    ck_assert_int_eq(hear(&fo, 1, 5, 1, 0, 0, 0, 120 * MS), 1);
    ck_assert_uint_eq(fo.false_deaths, 1);
    /* place 0 restarts while routed to: dead (reborn), not by silence */
    ck_assert_int_eq(hear(&fo, 0, 9, 0, 0, 0, 0, 130 * MS), 1);
    ck_assert_uint_eq(poll_bits(&fo, 131 * MS), 1u << 0);
    ck_assert_int_eq(hear(&fo, 0, 9, 1, 0, 0, 0, 140 * MS), 1);
    ck_assert_uint_eq(fo.false_deaths, 1);
}
END_TEST

/* A place heard at a new epoch while still routed to (restarted or
 * fenced within the detection bound) is out at once, reported once by the
 * next poll for replay, and its join (in the same frame) brings it back
 * at the join id. */
START_TEST(test_failover_reborn)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    ck_assert_int_eq(hear(&fo, 0, 0, 1, 0, 0, 0, 0), 1);
    ck_assert_int_eq(hear(&fo, 1, 0, 1, 0, 0, 0, 0), 1);
    ck_assert_int_eq(hear(&fo, 1, 1, 0, EBF_RELF_JOIN, 5000, 100, 50 * MS), 1);
    ck_assert_uint_eq(fo.out.w[0], 1u << 1);
    ck_assert_uint_eq(fo.deaths, 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 101), 0);
    ck_assert_uint_eq(poll_bits(&fo, 60 * MS), 1u << 1);
    ck_assert_uint_eq(poll_bits(&fo, 61 * MS), 0);           /* reported once */
    ck_assert_int_eq(hear(&fo, 1, 1, 1, EBF_RELF_JOIN, 5000, 200, 70 * MS), 1);
    ck_assert_uint_eq(fo.deaths, 1);                                /* same epoch: no death */
    ck_assert_uint_eq(ro_failover_place(&fo, 4999), 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 5001), 1);
    ck_assert_uint_eq(fo.joins, 1);
    ck_assert_uint_eq(fo.out.w[0], 0);
}
END_TEST

/* A join at id 2000 while every place is out applies early; with a
 * place live, a join at 3000 switches exactly there, a leave likewise; an
 * id already passed is counted late and ignored. */
START_TEST(test_failover_join_leave)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    hear(&fo, 0, 0, 1, 0, 0, 0, 0);
    hear(&fo, 1, 0, 1, 0, 0, 0, 0);
    ck_assert_uint_eq(poll_bits(&fo, 100 * MS), 3);
    ck_assert_uint_eq(ro_failover_place(&fo, 1001), EBF_ROUTE_NONE);
    hear(&fo, 0, 1, 0, 0, 0, 1500, 110 * MS);
    hear(&fo, 1, 1, 0, EBF_RELF_JOIN, 2000, 1500, 110 * MS);
    ck_assert_uint_eq(fo.next_change, 2000);
    /* every place out: 1's join applies early, at 1999 (0 still out) */
    ck_assert_uint_eq(ro_failover_place(&fo, 1999), 1);
    ck_assert_uint_eq(fo.join_early, 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 2000), 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 2001), 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 2002), 1);
    ck_assert_uint_eq(fo.joins, 1);
    ck_assert_uint_eq(fo.next_change, RO_FO_NEVER);
    /* the same announcement repeated after the switch changes nothing */
    hear(&fo, 1, 1, 1, EBF_RELF_JOIN, 2000, 2003, 120 * MS);
    ck_assert_uint_eq(fo.join_late, 0);
    ck_assert_uint_eq(fo.next_change, RO_FO_NEVER);
    /* a join id already passed is late and ignored */
    hear(&fo, 0, 1, 1, EBF_RELF_JOIN, 1000, 2003, 120 * MS);
    ck_assert_uint_eq(fo.join_late, 1);
    ck_assert_uint_eq(fo.next_change, RO_FO_NEVER);
    hear(&fo, 0, 1, 2, EBF_RELF_JOIN, 3000, 2003, 120 * MS);
    hear(&fo, 1, 1, 2, EBF_RELF_LEAVE, 4000, 2003, 120 * MS);
    ck_assert_uint_eq(fo.next_change, 3000);
    ck_assert_uint_eq(ro_failover_place(&fo, 2999), 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 3000), 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 3001), 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 4001), 0);               /* 1 left */
    ck_assert_uint_eq(fo.leaves, 1);
    /* drained before its join: place 1 out, a join at 5000 due, then a
     * leave at 5000 is taken (not a repeat of the state it is in): in at
     * 5000 by the join and out by the leave of the same id */
    hear(&fo, 1, 1, 3, EBF_RELF_JOIN, 5000, 4100, 120 * MS);
    hear(&fo, 1, 1, 4, EBF_RELF_LEAVE, 6000, 4100, 120 * MS);
    ck_assert_uint_eq(fo.next_change, 5000);
    ck_assert_uint_eq(ro_failover_place(&fo, 5001), 1);               /* 1 back */
    ck_assert_uint_eq(ro_failover_place(&fo, 6001), 0);               /* and out */
    ck_assert_uint_eq(fo.joins, 3);
    ck_assert_uint_eq(fo.leaves, 2);
    /* undrained before its leave: in with a leave at 8000 due, a join at
     * 9000 is taken: out from 8000, in again from 9000 */
    hear(&fo, 1, 1, 5, EBF_RELF_JOIN, 7000, 6100, 120 * MS);
    ck_assert_uint_eq(ro_failover_place(&fo, 7001), 1);
    hear(&fo, 1, 1, 6, EBF_RELF_LEAVE, 8000, 7100, 120 * MS);
    hear(&fo, 1, 1, 7, EBF_RELF_JOIN, 9000, 7100, 120 * MS);
    ck_assert_uint_eq(ro_failover_place(&fo, 8001), 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 9001), 1);
    ck_assert_uint_eq(fo.join_late, 1);
    hear(&fo, 1, 1, 8, EBF_RELF_LEAVE, 10000, 9100, 120 * MS);
    ck_assert_uint_eq(ro_failover_place(&fo, 10001), 0);
    ck_assert_uint_eq(fo.joins, 5);
    ck_assert_uint_eq(fo.leaves, 4);
    /* a place out by leave is not declared dead when silent */
    uint64_t died = 0;
    for (uint64_t t = 130; t <= 400; t += 10)
        died |= poll_bits(&fo, t * MS);
    ck_assert_uint_eq(died, 1u << 0);
    ck_assert_int_eq(ro_failover_init(&fo, 0, 1), -EINVAL);
}
END_TEST

/* The readout's own stall (no poll for over half the bound) is not the
 * places' silence: after a 300 ms gap nothing dies; a place silent for
 * the bound of polled time after it does. */
START_TEST(test_failover_own_stall)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    ck_assert_int_eq(hear(&fo, 0, 0, 1, 0, 0, 0, 0), 1);
    ck_assert_int_eq(hear(&fo, 1, 0, 1, 0, 0, 0, 0), 1);
    ck_assert_uint_eq(poll_bits(&fo, 10 * MS), 0);
    ck_assert_uint_eq(poll_bits(&fo, 310 * MS), 0);     /* stalled 300 ms */
    ck_assert_uint_eq(fo.own_stalls, 1);
    ck_assert_uint_eq(poll_bits(&fo, 340 * MS), 0);
    ck_assert_int_eq(hear(&fo, 0, 0, 2, 0, 0, 0, 350 * MS), 1);
    for (uint64_t t = 360; t < 400; t += 10)
        ck_assert_uint_eq(poll_bits(&fo, t * MS), 0);
    /* place 1: last heard at 0, moved on by 300 ms: silent 100 ms at 400 */
    ck_assert_uint_eq(poll_bits(&fo, 400 * MS), 1u << 1);
    ck_assert_uint_eq(fo.deaths, 1);
    /* a frame heard after the last poll is not moved by a stall: it is
     * never in the future (a place silent since is dead 100 ms later) */
    ck_assert_int_eq(hear(&fo, 0, 0, 3, 0, 0, 0, 405 * MS), 1);
    ck_assert_uint_eq(poll_bits(&fo, 500 * MS), 0);     /* stalled 100 ms */
    ck_assert_uint_eq(fo.own_stalls, 2);
    ck_assert_uint_eq(fo.last_ns[0], 405 * MS);
    ck_assert_uint_eq(poll_bits(&fo, 504 * MS), 0);
    ck_assert_uint_eq(poll_bits(&fo, 505 * MS), 1u << 0);
}
END_TEST

/* Every place out and a join pending: it applies at once (join_early),
 * from the event asked; with none pending the route stays none. */
START_TEST(test_failover_join_early)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    hear(&fo, 0, 0, 1, 0, 0, 0, 0);
    hear(&fo, 1, 0, 1, 0, 0, 0, 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 10), 0);
    ck_assert_uint_eq(poll_bits(&fo, 100 * MS), 3);
    ck_assert_uint_eq(ro_failover_place(&fo, 11), EBF_ROUTE_NONE);
    ck_assert_int_eq(ro_failover_join_early(&fo, 11), 0);
    hear(&fo, 0, 1, 0, EBF_RELF_JOIN, 90000, 12, 110 * MS);
    ck_assert_uint_eq(fo.join_at[0], 90000);
    ck_assert_uint_eq(ro_failover_place(&fo, 12), 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 13), 0);
    ck_assert_uint_eq(fo.join_early, 1);
    ck_assert_uint_eq(fo.joins, 1);
    ck_assert_uint_eq(fo.out.w[0], 1u << 1);
    ck_assert_uint_eq(fo.next_change, RO_FO_NEVER);
    ck_assert_int_eq(ro_failover_join_early(&fo, 14), 1);   /* a place live: nothing */
    ck_assert_uint_eq(fo.join_early, 1);
}
END_TEST

/* keep_last (the readout's setting): places silent all at once are this
 * readout's starvation, not their deaths (a starved machine declared both
 * SFCs of the demo dead and the route then sent events nowhere); one
 * silent while another is heard dies as before, and the last one left
 * is kept, unless another place's join is pending. */
START_TEST(test_failover_keep_last)
{
    struct ro_failover fo;

    ck_assert_int_eq(ro_failover_init(&fo, 2, 100 * MS), 0);
    fo.keep_last = 1;
    hear(&fo, 0, 0, 1, 0, 0, 0, 0);
    hear(&fo, 1, 0, 1, 0, 0, 0, 0);
    for (uint64_t t = 10; t <= 150; t += 10)
        ck_assert_uint_eq(poll_bits(&fo, t * MS), 0);
    ck_assert_uint_eq(fo.all_silent, 6);
    ck_assert_uint_eq(fo.out.w[0], 0);
    hear(&fo, 0, 0, 2, 0, 0, 0, 155 * MS);
    ck_assert_uint_eq(poll_bits(&fo, 160 * MS), 1u << 1);
    for (uint64_t t = 170; t <= 400; t += 10)
        ck_assert_uint_eq(poll_bits(&fo, t * MS), 0);
    ck_assert_uint_eq(fo.out.w[0], 1u << 1);
    ck_assert_uint_eq(ro_failover_place(&fo, 7), 0);
    /* place 1 fenced and announced its join: the last live one, silent,
     * dies now, and the join applies early (the demo's starved survivor) */
    hear(&fo, 1, 1, 0, EBF_RELF_JOIN, 9000, 8, 405 * MS);
    ck_assert_uint_eq(fo.join_at[1], 9000);
    ck_assert_uint_eq(poll_bits(&fo, 500 * MS), 1u << 0);
    ck_assert_uint_eq(ro_failover_place(&fo, 9), 1);
    ck_assert_uint_eq(fo.join_early, 1);
}
END_TEST

Suite *ro_failover_suite(void);

Suite *ro_failover_suite(void)
{
    Suite *s = suite_create("ro_failover");
    TCase *tc = tcase_create("ro_failover");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_failover_detect);
    tcase_add_test(tc, test_failover_stale_and_fenced);
    tcase_add_test(tc, test_failover_join_leave);
    tcase_add_test(tc, test_failover_reborn);
    tcase_add_test(tc, test_failover_own_stall);
    tcase_add_test(tc, test_failover_join_early);
    tcase_add_test(tc, test_failover_keep_last);
    tcase_add_test(tc, test_failover_false_death);
    suite_add_tcase(s, tc);
    return s;
}
