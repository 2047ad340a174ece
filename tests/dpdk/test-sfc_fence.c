/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_fence.c - a frozen SFC's fence when the stop falls within a pass of its loop, after the pass's fence check: the pass's release round comes after the fence, whose record keeps the acks taken since the last round (docs/protocol.md 13.6). */
#include <check.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "ebf_idset.h"
#include "sfc_dp.h"
#include "sfc_dp_private.h"
#include "sfc_rig.h"
#include "sfc_stats.h"

/* The ids a record holds: its first partition's counts add up to them. */
static uint64_t idset_n(const struct ebf_idset *s)
{
    uint64_t n = 0;

    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++)
        n += s->count[c];
    return n;
}

/*
 * Events 64 and 128 at the node through a round (the readouts' low 64:
 * the lowmark's bucket of 64 ids), then 64 acked (after that round). The
 * loop stops for 250 ms (the bound 200 ms) within a pass whose round is
 * due: that round runs on waking, before the next pass's fence check.
 * Before, it announced the low 128 and marked 64's ack as taken before
 * it, so the fence that followed (from 128) left 64 out of
 * ledger.fence_acked although the readouts replay it: decided twice,
 * counted once. Now the round fences first, from the last low (64): fences
 * 1, the record holds event 64 (128's ack will join it).
 */
START_TEST(test_stop_within_pass_fences_before_round)
{
    struct rig_opts o = {.timeout_ms = 1000, .release_ms = 10, .sfc_dead_ms = 200};
    struct ebf_ack ack1 = {.event_id = 64, .decision = EBF_DEC_ACCEPT};
    uint64_t ids[8];
    uint8_t to[8];
    struct rig g;

    rig_up_opts(&g, &o);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 8, NULL, 0);
    send_event(&g, 64, ALL);
    send_event(&g, 128, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(node_take(&g, ids, to, 8), 2 * N_SOURCES);
    usleep(12 * 1000);
    poll_n(&g, 2);              /* a round: the low 64 */
    ck_assert_uint_eq(st->release_low, 64);
    credit(&g, 8, &ack1, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    usleep(12 * 1000);          /* the next round due ... */
    uint64_t pass = rte_get_tsc_cycles();
    usleep(250 * 1000);         /* ... and the stop within the pass */
    sfc_dp_release(g.dp, pass);
    ck_assert_uint_eq(st->fences, 1);
    ck_assert_uint_eq(idset_n(&st->ledger_fence_acked), 1);  /* event 64 */
    ck_assert_uint_eq(st->fence_acked_accept, 1);
    ck_assert_uint_eq(st->release_low, 128);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->fences, 1);
    ck_assert_uint_eq(idset_n(&st->ledger_fence_acked), 1);
    rig_down(&g);
}
END_TEST

Suite *sfc_fence_suite(void);

Suite *sfc_fence_suite(void)
{
    Suite *s = suite_create("sfc_fence");
    TCase *tc = tcase_create("sfc_fence");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_stop_within_pass_fences_before_round);
    suite_add_tcase(s, tc);
    return s;
}
