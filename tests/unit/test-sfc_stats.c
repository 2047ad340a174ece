/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_stats.c - the counters of an SFC's workers summed: plain counters add, id records and histograms merge, the highest event id per source stays the highest, gauges of disjoint nodes add. */
#include <check.h>
#include <string.h>

#include "sfc_stats.h"

static struct sfc_stats a, b;

static void init(struct sfc_stats *s)
{
    memset(s, 0, sizeof(*s));
    ebf_hist_init(&s->build_ns);
    ebf_hist_init(&s->build_timeout_ns);
    ebf_hist_init(&s->dispatch_ns);
    ebf_hist_init(&s->ack_ns);
    ebf_idset_init(&s->ledger_acked);
    ebf_idset_init(&s->ledger_lost);
    ebf_idset_init(&s->ledger_late);
}

/* Worker 0 acked the even ids, worker 1 the odd ones: the sum is each
 * counter's sum, the records the union, next_by_source the higher. */
START_TEST(test_stats_add)
{
    init(&a);
    init(&b);
    for (uint64_t e = 0; e < 10; e++) {
        struct sfc_stats *s = e % 2 ? &b : &a;
        s->acks++;
        s->rx_frames += 4;
        s->acked_digest += e;
        ebf_idset_add(&s->ledger_acked, e);
        ebf_hist_add(&s->ack_ns, 100 * (e + 1));
        s->next_by_source[1] = e + 1;
    }
    a.drop[SFC_DROP_DUPLICATE] = 3;
    b.drop[SFC_DROP_DUPLICATE] = 4;
    a.seq.gap[5] = 1;
    b.seq.gap[5] = 2;
    a.node_sent[0] = 5;
    b.node_sent[1] = 5;
    a.payload_bytes_sent = 10;
    b.payload_bytes_sent = 20;
    a.next_by_source[2] = 7;             /* only worker 0 heard source 2 */
    b.lost[SFC_LOST_STOPPED_UNACKED] = 2;
    ebf_idset_add(&b.ledger_lost, 11);
    ebf_idset_add(&b.ledger_lost, 13);
    sfc_stats_add(&a, &b);
    ck_assert_uint_eq(a.acks, 10);
    ck_assert_uint_eq(a.rx_frames, 40);
    ck_assert_uint_eq(a.acked_digest, 45);
    ck_assert_uint_eq(a.drop[SFC_DROP_DUPLICATE], 7);
    ck_assert_uint_eq(a.seq.gap[5], 3);
    ck_assert_uint_eq(a.node_sent[0], 5);
    ck_assert_uint_eq(a.node_sent[1], 5);
    ck_assert_uint_eq(a.payload_bytes_sent, 30);
    ck_assert_uint_eq(a.next_by_source[1], 10);
    ck_assert_uint_eq(a.next_by_source[2], 7);
    ck_assert_uint_eq(a.lost[SFC_LOST_STOPPED_UNACKED], 2);
    ck_assert_uint_eq(a.ack_ns.count, 10);
    ck_assert_uint_eq(a.ack_ns.min, 100);
    ck_assert_uint_eq(a.ack_ns.max, 1000);
    ck_assert_uint_eq(a.ack_ns.sum, 5500);
    struct ebf_idset want;
    ebf_idset_init(&want);
    ebf_idset_add_range(&want, 0, 10);
    ebf_idset_merge(&want, &a.ledger_acked, -1);
    ck_assert(ebf_idset_empty(&want));
    ebf_idset_init(&want);
    ebf_idset_add(&want, 11);
    ebf_idset_add(&want, 13);
    ebf_idset_merge(&want, &a.ledger_lost, -1);
    ck_assert(ebf_idset_empty(&want));
    ck_assert(ebf_idset_empty(&a.ledger_late));
}
END_TEST

/* Each worker serves its own nodes: levels and credits add, alive and
 * throttled are any, epochs the highest, the shared pools not added. */
START_TEST(test_gauges_add)
{
    struct sfc_gauges x = {.building = 3, .ready = 1, .unacked = 2, .free_slots = 10,
                           .free_records = 100, .n_nodes = 4, .hdr_in_use = 7,
                           .clone_in_use = 9, .throttled = 0};
    struct sfc_gauges y = {.building = 1, .ready = 0, .unacked = 4, .free_slots = 12,
                           .free_records = 90, .n_nodes = 4, .hdr_in_use = 7,
                           .clone_in_use = 9, .throttled = 1, .draining = 1};

    x.credits[0] = 5;
    x.alive[0] = 1;
    x.epoch[0] = 3;
    y.credits[1] = 6;
    y.inflight[1] = 2;
    y.alive[1] = 1;
    y.epoch[1] = 4;
    sfc_gauges_add(&x, &y);
    ck_assert_uint_eq(x.building, 4);
    ck_assert_uint_eq(x.ready, 1);
    ck_assert_uint_eq(x.unacked, 6);
    ck_assert_uint_eq(x.free_slots, 22);
    ck_assert_uint_eq(x.free_records, 190);
    ck_assert_uint_eq(x.n_nodes, 4);
    ck_assert_uint_eq(x.credits[0], 5);
    ck_assert_uint_eq(x.credits[1], 6);
    ck_assert_uint_eq(x.inflight[1], 2);
    ck_assert_uint_eq(x.alive[0], 1);
    ck_assert_uint_eq(x.alive[1], 1);
    ck_assert_uint_eq(x.alive[2], 0);
    ck_assert_uint_eq(x.epoch[0], 3);
    ck_assert_uint_eq(x.epoch[1], 4);
    ck_assert_uint_eq(x.hdr_in_use, 7);
    ck_assert_uint_eq(x.clone_in_use, 9);
    ck_assert_int_eq(x.throttled, 1);
    ck_assert_int_eq(x.draining, 1);
}
END_TEST

Suite *sfc_stats_suite(void);

Suite *sfc_stats_suite(void)
{
    Suite *s = suite_create("sfc_stats");
    TCase *tc = tcase_create("sum");

    tcase_add_test(tc, test_stats_add);
    tcase_add_test(tc, test_gauges_add);
    suite_add_tcase(s, tc);
    return s;
}
