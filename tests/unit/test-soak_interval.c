/* SPDX-License-Identifier: BSD-3-Clause */
/* test-soak_interval.c - unit tests of the soak's samples and intervals: histogram differences, percentiles, rates, restarts, intervals adding up. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "ebf_idset.h"
#include "soak_interval.h"
#include "soak_sample.h"
#include "test-snapshot.h"

/* --- histogram differences and percentiles -------------------------------- */

START_TEST(test_hist_diff_percentiles)
{
    struct ebf_hist prev, cur, d;
    struct soak_pct p;

    ebf_hist_init(&prev);
    hist_fill(&prev, 100, 10);
    hist_fill(&prev, 30000, 1);          /* before the interval: the run's max */
    cur = prev;
    hist_fill(&cur, 5000, 90);           /* the interval: 90 x 5000, 10 x 20000 */
    hist_fill(&cur, 20000, 10);
    ck_assert_int_eq(soak_hist_diff(&prev, &cur, &d), 0);
    ck_assert_uint_eq(d.count, 100);
    ck_assert_uint_eq(d.sum, 90 * 5000 + 10 * 20000);
    ck_assert_uint_eq(d.bucket[ebf_hist_bucket(5000)], 90);
    ck_assert_uint_eq(d.bucket[ebf_hist_bucket(20000)], 10);
    ck_assert_uint_eq(d.bucket[ebf_hist_bucket(100)], 0);
    /* 5000 is in [4608, 5120), 20000 in [18432, 20480): the interval's max
     * is that bucket's upper bound, not the run's 30000. */
    ck_assert_uint_eq(d.min, 4608);
    ck_assert_uint_eq(d.max, 20479);
    soak_pct_of(&d, &p);
    ck_assert_uint_eq(p.count, 100);
    ck_assert_uint_eq(p.p50, 5119);
    ck_assert_uint_eq(p.p90, 5119);
    ck_assert_uint_eq(p.p99, 20479);
    ck_assert_uint_eq(p.p999, 20479);
    ck_assert_uint_eq(p.max, 20479);
}
END_TEST

START_TEST(test_hist_diff_capped_and_empty)
{
    struct ebf_hist prev, cur, d;
    struct soak_pct p;

    ebf_hist_init(&prev);
    cur = prev;
    hist_fill(&cur, 19000, 3);           /* max 19000 lies inside its bucket */
    ck_assert_int_eq(soak_hist_diff(&prev, &cur, &d), 0);
    ck_assert_uint_eq(d.max, 19000);
    ck_assert_uint_eq(d.min, 19000);     /* from an empty start: cur's own min */
    soak_pct_of(&d, &p);
    ck_assert_uint_eq(p.p50, 19000);
    /* Nothing recorded in between: every figure 0. */
    ck_assert_int_eq(soak_hist_diff(&cur, &cur, &d), 0);
    soak_pct_of(&d, &p);
    ck_assert_uint_eq(p.count, 0);
    ck_assert_uint_eq(p.p99, 0);
    ck_assert_uint_eq(p.max, 0);
    /* A histogram that went down is refused, and out is empty. */
    ck_assert_int_eq(soak_hist_diff(&cur, &prev, &d), -1);
    ck_assert_uint_eq(d.count, 0);
    hist_fill(&prev, 100, 3);            /* same count, other buckets */
    cur.sum = prev.sum = 0;
    ck_assert_int_eq(soak_hist_diff(&prev, &cur, &d), -1);
}
END_TEST

/* --- samples from snapshots ------------------------------------------------ */

static struct ebf_metrics ms;

static Ebfarm__Snapshot *readout(uint64_t events, uint64_t frames, uint64_t held_ns,
                                 uint64_t withheld)
{
    ebf_metrics_counter(&ms, "events", events);
    ebf_metrics_counter(&ms, "events_abandoned", 0);
    ebf_metrics_counter(&ms, "frames", frames);
    ebf_metrics_counter(&ms, "throttle.held_ns", held_ns);
    ebf_metrics_counter(&ms, "fault.withheld_events", withheld);
    return received(&ms, "readout", "ro0", 1, EBF_S_RUNNING, 1);
}

static Ebfarm__Snapshot *sfc(uint64_t acc, uint64_t rej, uint64_t no_node, uint64_t missing3,
                             uint64_t bad_crc)
{
    ebf_metrics_counter(&ms, "ack.accept", acc);
    ebf_metrics_counter(&ms, "ack.reject", rej);
    ebf_metrics_counter(&ms, "events.incomplete", missing3);
    ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", no_node);
    ebf_metrics_counter_l(&ms, "lost", "reason", "event_table_full", 0);
    ebf_metrics_counter_l(&ms, "rx.reject", "reason", "bad_checksum", bad_crc);
    ebf_metrics_counter_l(&ms, "missing.source", "source", "3", missing3);
    ebf_metrics_gauge(&ms, "ready_queue", NULL, NULL, 7);
    ebf_metrics_gauge(&ms, "node_credits", "node", "0", 10);
    ebf_metrics_gauge(&ms, "node_credits", "node", "1", 12);
    ebf_metrics_gauge(&ms, "mempool_in_use", "pool", "rx", 100);
    ebf_metrics_gauge(&ms, "mempool_in_use", "pool", "hdr", 5);
    return received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 1);
}

/* A node's snapshot: its e2e histogram holds n1 values v1 and n2 values v2. */
static Ebfarm__Snapshot *node(double epoch, uint64_t events, unsigned n1, uint64_t v1, unsigned n2,
                              uint64_t v2)
{
    struct ebf_hist h;

    ebf_hist_init(&h);
    hist_fill(&h, v1, n1);
    hist_fill(&h, v2, n2);
    ebf_metrics_counter(&ms, "events", events);
    ebf_metrics_gauge(&ms, "epoch", NULL, NULL, epoch);
    ebf_metrics_hist(&ms, "e2e_ns", &h);
    return received(&ms, "node", "node0", 1, EBF_S_RUNNING, 1);
}

static struct soak_acc acc;
static struct soak_sample s0, s1, s2, s3;

static void sample(Ebfarm__Snapshot *ro, Ebfarm__Snapshot *sf, Ebfarm__Snapshot *nd, double t,
                   struct soak_sample *s)
{
    struct soak_proc_in in[3] = {
        {"ro0", "readout", ro, 11, 1000, 0, 0, 0, 0},
        {"sfc0", "sfc", sf, 12, 2000, 0, 0, 0, 0},
        {"node0", "node", nd, 13, 500, 0, 0, 0, 0},
    };
    ck_assert_int_eq(soak_sample_take(&acc, in, 3, t, s), 0);
    drop(ro);
    drop(sf);
    drop(nd);
}

START_TEST(test_interval_rates_and_ledger)
{
    struct soak_interval iv;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    soak_acc_init(&acc, 3);
    sample(readout(1000, 8000, 0, 0), sfc(100, 850, 0, 0, 0), node(5, 950, 950, 2000, 0, 0), 10,
           &s0);
    sample(readout(3000, 24000, 250000000, 4), sfc(290, 2600, 6, 40, 3),
           node(5, 2890, 950, 2000, 1940, 9000), 20, &s1);
    ck_assert_uint_eq(soak_counts_get(&s1.c, "generated"), 3000);
    ck_assert_uint_eq(soak_counts_get(&s1.c, "lost.withheld"), 4);
    ck_assert_double_eq(s1.credits, 22);
    ck_assert_double_eq(s1.ready, 7);
    ck_assert_double_eq(s1.mempool, 105);
    ck_assert_double_eq(s1.mem[1].mempool, 105);
    ck_assert_uint_eq(s1.mem[1].rss_kb, 2000);
    ck_assert_int_eq(soak_interval_of(&s0, &s1, 2, &iv), 0);
    ck_assert_uint_eq(iv.index, 2);
    ck_assert_double_eq(iv.events_per_s, 200);
    ck_assert_double_eq(iv.frames_per_s, 1600);
    ck_assert_uint_eq(iv.generated, 2000);
    ck_assert_uint_eq(iv.decided, 190 + 1750);
    ck_assert_uint_eq(iv.lost, 6 + 4);
    ck_assert_uint_eq(iv.incomplete, 40);
    ck_assert_int_eq(iv.in_flight, 3000 - 2890 - 10);
    ck_assert_double_eq(iv.throttle_s, 0.25);
    ck_assert_uint_eq(soak_counts_get(&iv.d, "reject.bad_checksum"), 3);
    ck_assert_uint_eq(soak_counts_get(&iv.d, "missing.3"), 40);
    ck_assert_uint_eq(soak_counts_get(&iv.d, "lost.no_node"), 6);
    ck_assert_uint_eq(iv.lat[SOAK_H_E2E].count, 2890 - 950);
    ck_assert_uint_eq(iv.lat[SOAK_H_E2E].p99, 9000);    /* only 9000s in the interval */
    ck_assert_uint_eq(iv.lat[SOAK_H_BUILD].count, 0);
    /* No time passed: no rates. */
    ck_assert_int_eq(soak_interval_of(&s1, &s1, 3, &iv), 0);
    ck_assert_double_eq(iv.events_per_s, 0);
    ck_assert_uint_eq(iv.generated, 0);
    /* Backwards (not from one accumulator): refused. */
    ck_assert_int_eq(soak_interval_of(&s1, &s0, 4, &iv), -1);
    ebf_metrics_free(&ms);
}
END_TEST

/* A node killed and started again counts from 0 in a new epoch: the
 * sample keeps what it had counted, so no count goes down, and the
 * intervals still add up to the totals. */
/* The decisions of a killed SFC's incarnation that its last sample missed
 * ("fo.decided", added by the soak after a restart) are decided in the
 * interval and out of flight: after the staged stop nothing is in flight. */
START_TEST(test_killed_incarnation_not_in_flight)
{
    struct soak_interval iv;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    soak_acc_init(&acc, 3);
    sample(readout(1000, 8000, 0, 0), sfc(100, 850, 0, 0, 0), node(5, 950, 950, 2000, 0, 0), 10,
           &s0);
    sample(readout(3000, 24000, 0, 0), sfc(290, 2600, 0, 0, 0),
           node(5, 2890, 950, 2000, 1940, 9000), 20, &s1);
    ck_assert_int_eq(soak_counts_add(&s1.c, "fo.decided", 110), 0);
    ck_assert_int_eq(soak_interval_of(&s0, &s1, 2, &iv), 0);
    ck_assert_uint_eq(iv.generated, 2000);
    ck_assert_uint_eq(iv.decided, 190 + 1750 + 110);
    ck_assert_int_eq(iv.in_flight, 3000 - 2890 - 110);
    ck_assert_int_eq(iv.in_flight, 0);
    ebf_metrics_free(&ms);
}
END_TEST

START_TEST(test_restart_keeps_counts)
{
    struct soak_interval a, b, c;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    soak_acc_init(&acc, 3);
    sample(readout(0, 0, 0, 0), sfc(0, 0, 0, 0, 0), node(5, 0, 0, 0, 0, 0), 0, &s0);
    sample(readout(500, 4000, 0, 0), sfc(50, 440, 0, 0, 0), node(5, 490, 490, 1000, 0, 0), 5, &s1);
    /* Restarted: epoch 6, its counts from 0 again, already past 100. */
    sample(readout(1000, 8000, 0, 0), sfc(100, 890, 0, 0, 0), node(6, 500, 500, 3000, 0, 0), 10,
           &s2);
    ck_assert_uint_eq(acc.p[2].restarts, 1);
    ck_assert_uint_eq(soak_counts_get(&s2.c, "node_events"), 990);
    ck_assert_uint_eq(s2.h[SOAK_H_E2E].count, 990);
    /* The node gone (no snapshot): its counts stay. */
    struct soak_proc_in in[3] = {{"ro0", "readout", NULL, 11, 0, 0, 0, 0, 0},
                                 {"sfc0", "sfc", NULL, 12, 0, 0, 0, 0, 0},
                                 {"node0", "node", NULL, 0, 0, 0, 0, 0, 0}};
    ck_assert_int_eq(soak_sample_take(&acc, in, 3, 15, &s3), 0);
    ck_assert_uint_eq(soak_counts_get(&s3.c, "node_events"), 990);
    ck_assert_uint_eq(soak_counts_get(&s3.c, "generated"), 1000);
    ck_assert_int_eq(soak_interval_of(&s0, &s1, 1, &a), 0);
    ck_assert_int_eq(soak_interval_of(&s1, &s2, 2, &b), 0);
    ck_assert_int_eq(soak_interval_of(&s2, &s3, 3, &c), 0);
    ck_assert_uint_eq(b.lat[SOAK_H_E2E].count, 500);
    ck_assert_uint_eq(b.lat[SOAK_H_E2E].p50, 3000);
    ck_assert_uint_eq(a.generated + b.generated + c.generated, 1000);
    ck_assert_uint_eq(a.decided + b.decided + c.decided, 990);
    ck_assert_uint_eq(soak_counts_get(&b.d, "node_events"), 500);
    ck_assert_uint_eq(c.n_mem, 3);
    ck_assert_int_eq(c.mem[2].pid, 0);
    ebf_metrics_free(&ms);
}
END_TEST

/* Memory from each process's own snapshot (any host), /proc's figure
 * when it carries none; the e2e of a node whose readouts are on another
 * host's clock left out. */
START_TEST(test_rss_from_snapshot_and_clocks_apart)
{
    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    soak_acc_init(&acc, 3);
    ebf_metrics_gauge(&ms, EBF_METRIC_RSS_BYTES, NULL, NULL, 64.0 * 1048576);
    Ebfarm__Snapshot *a = node(5, 10, 700, 1500, 0, 0);
    Ebfarm__Snapshot *b = node(8, 10, 1000, 3000, 0, 0);
    Ebfarm__Snapshot *c = sfc(1, 2, 0, 0, 0);
    struct soak_proc_in in[3] = {{"node0", "node", a, 1, 0, 0, 0, 0, 0},
                                 {"node1", "node", b, 2, 4096, 0, 1, 0, 0},
                                 {"sfc0", "sfc", c, 3, 2000, 0, 0, 0, 0}};
    ck_assert_int_eq(soak_sample_take(&acc, in, 3, 1, &s0), 0);
    ck_assert_uint_eq(s0.mem[0].rss_kb, 65536);      /* its gauge: 64 MiB */
    ck_assert_uint_eq(s0.mem[1].rss_kb, 4096);       /* no gauge: /proc's */
    ck_assert_uint_eq(s0.mem[2].rss_kb, 2000);
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].count, 700);  /* node1's 1000 left out */
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].max, 1500);
    ck_assert_uint_eq(soak_counts_get(&s0.c, "node_events"), 20);   /* counts stay */
    drop(a);
    drop(b);
    drop(c);
    ebf_metrics_free(&ms);
}
END_TEST

/* Two nodes' histograms merge exactly: one bucket layout everywhere, so
 * the farm's histogram is bucket for bucket the one of all their values. */
START_TEST(test_merge_across_processes)
{
    struct ebf_hist all;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    soak_acc_init(&acc, 2);
    Ebfarm__Snapshot *a = node(5, 10, 700, 1500, 300, 90000);
    Ebfarm__Snapshot *b = node(8, 10, 1000, 1501, 5, 7000000);
    struct soak_proc_in in[2] = {{"node0", "node", a, 1, 0, 0, 0, 0, 0},
                                 {"node1", "node", b, 2, 0, 0, 0, 0, 0}};
    ck_assert_int_eq(soak_sample_take(&acc, in, 2, 1, &s0), 0);
    ebf_hist_init(&all);
    hist_fill(&all, 1500, 700);
    hist_fill(&all, 90000, 300);
    hist_fill(&all, 1501, 1000);
    hist_fill(&all, 7000000, 5);
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].count, all.count);
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].sum, all.sum);
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].min, 1500);
    ck_assert_uint_eq(s0.h[SOAK_H_E2E].max, 7000000);
    ck_assert_mem_eq(s0.h[SOAK_H_E2E].bucket, all.bucket, sizeof(all.bucket));
    ck_assert_uint_eq(ebf_hist_quantile(&s0.h[SOAK_H_E2E], 0.99),
                      ebf_hist_quantile(&all, 0.99));
    drop(a);
    drop(b);
    ebf_metrics_free(&ms);
}
END_TEST

/* Histograms never saturate: bucket counts are 64-bit, so an interval of
 * a run past 2^32 values in one bucket is still exact. */
START_TEST(test_hist_diff_past_32_bits)
{
    static struct ebf_hist prev, cur, d;

    ebf_hist_init(&prev);
    hist_fill(&prev, 3000, 1);
    for (int i = 0; i < 33; i++)
        ebf_hist_merge(&prev, &prev);            /* 2^33 values of 3000 */
    cur = prev;
    hist_fill(&cur, 3000, 5);
    hist_fill(&cur, 70000, 1);
    ck_assert_uint_eq(prev.count, 1ull << 33);
    ck_assert_int_eq(soak_hist_diff(&prev, &cur, &d), 0);
    ck_assert_uint_eq(d.count, 6);
    ck_assert_uint_eq(d.bucket[ebf_hist_bucket(3000)], 5);
    ck_assert_uint_eq(d.sum, 5 * 3000 + 70000);
    ck_assert_uint_eq(ebf_hist_quantile(&d, 0.5), 3071);    /* [2816, 3072) */
    ck_assert_uint_eq(d.max, 70000);
}
END_TEST

/* A readout's failover counters and an id record of n ids (all in cell 2,
 * partition 0, and once more in each other partition, as a record has
 * them) at an SFC (fence) and a node (a restart's mark). */
static Ebfarm__Snapshot *fo_readout(uint64_t deaths, uint64_t replayed, uint64_t held,
                                    uint64_t recover_ns)
{
    ebf_metrics_counter(&ms, "events", 1000);
    ebf_metrics_counter(&ms, "release.frames", 50);
    ebf_metrics_counter(&ms, "fo.deaths", deaths);
    ebf_metrics_counter(&ms, "fo.recoveries", deaths);
    ebf_metrics_counter(&ms, "replay.replayed", replayed);
    ebf_metrics_counter(&ms, "replay.held_bytes", held);
    ebf_metrics_counter(&ms, "fo.recover_ns", recover_ns);
    return received(&ms, "readout", "ro0", 1, EBF_S_RUNNING, 1);
}

static Ebfarm__Snapshot *with_record(const char *component, const char *name, const char *rec,
                                     uint64_t n)
{
    uint64_t count[EBF_IDSET_CELLS] = {0}, sum[EBF_IDSET_CELLS] = {0};

    count[2] = count[EBF_IDSET_PART_CELLS + 5] = count[2 * EBF_IDSET_PART_CELLS + 9] = n;
    ebf_metrics_id_record(&ms, rec, count, sum, sum, EBF_IDSET_CELLS);
    return received(&ms, component, name, 1, EBF_S_RUNNING, 1);
}

/* The failover figures of two samples: the readouts' deaths, recoveries
 * and replays and the records' ids as the interval's counts, the replay
 * buffer and the time to recover as levels at its end, fo_on from the
 * readout's release frames. */
START_TEST(test_failover_counts)
{
    struct soak_interval iv;

    ck_assert_int_eq(ebf_metrics_init(&ms, 256), 0);
    soak_acc_init(&acc, 3);
    sample(fo_readout(0, 0, 1000000, 0),
           with_record("sfc", "sfc0", "ledger.fence_acked", 0),
           with_record("node", "node0", "ledger.acks_after_release", 0), 10, &s0);
    sample(fo_readout(2, 3000, 4000000, 120000000),
           with_record("sfc", "sfc0", "ledger.fence_acked", 7),
           with_record("node", "node0", "ledger.acks_after_release", 5), 20, &s1);
    ck_assert_int_eq(s1.fo_on, 1);
    ck_assert_double_eq(s1.replay_bytes, 4000000);
    ck_assert_double_eq(s1.recover_s, 0.12);
    ck_assert_int_eq(soak_interval_of(&s0, &s1, 2, &iv), 0);
    ck_assert_int_eq(iv.fo_on, 1);
    ck_assert_uint_eq(soak_counts_get(&iv.d, SOAK_FO_DEATHS), 2);
    ck_assert_uint_eq(soak_counts_get(&iv.d, SOAK_FO_RECOVERIES), 2);
    ck_assert_uint_eq(soak_counts_get(&iv.d, SOAK_FO_REPLAYED), 3000);
    ck_assert_uint_eq(soak_counts_get(&iv.d, SOAK_FO_REDECIDED), 12);
    ck_assert_double_eq(iv.replay_bytes, 4000000);
    ck_assert_double_eq(iv.recover_s, 0.12);
    ebf_metrics_free(&ms);
}
END_TEST

START_TEST(test_counts)
{
    static struct soak_counts c;
    char name[16];

    memset(&c, 0, sizeof(c));
    ck_assert_int_eq(soak_counts_add(&c, "lost.a", 2), 0);
    ck_assert_int_eq(soak_counts_add(&c, "lost.b", 3), 0);
    ck_assert_int_eq(soak_counts_add(&c, "lost.a", 5), 0);
    ck_assert_int_eq(soak_counts_add(&c, "lostx", 100), 0);
    ck_assert_uint_eq(soak_counts_get(&c, "lost.a"), 7);
    ck_assert_uint_eq(soak_counts_get(&c, "none"), 0);
    ck_assert_uint_eq(soak_counts_sum(&c, "lost."), 10);
    ck_assert_uint_eq(c.n, 3);
    for (unsigned i = c.n; i < SOAK_MAX_COUNTS; i++) {
        snprintf(name, sizeof(name), "x%u", i);
        ck_assert_int_eq(soak_counts_add(&c, name, 1), 0);
    }
    ck_assert_int_eq(soak_counts_add(&c, "one_more", 1), -1);
    ck_assert_int_eq(soak_counts_add(&c, "lost.b", 1), 0);   /* an existing name still adds */
    ck_assert_uint_eq(soak_counts_get(&c, "lost.b"), 4);
}
END_TEST

Suite *soak_interval_suite(void);
Suite *soak_interval_suite(void)
{
    Suite *s = suite_create("soak_interval");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_hist_diff_percentiles);
    tcase_add_test(tc, test_hist_diff_capped_and_empty);
    tcase_add_test(tc, test_interval_rates_and_ledger);
    tcase_add_test(tc, test_killed_incarnation_not_in_flight);
    tcase_add_test(tc, test_restart_keeps_counts);
    tcase_add_test(tc, test_merge_across_processes);
    tcase_add_test(tc, test_rss_from_snapshot_and_clocks_apart);
    tcase_add_test(tc, test_hist_diff_past_32_bits);
    tcase_add_test(tc, test_counts);
    tcase_add_test(tc, test_failover_counts);
    suite_add_tcase(s, tc);
    return s;
}
