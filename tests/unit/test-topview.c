/* SPDX-License-Identifier: BSD-3-Clause */
/* test-topview.c - unit tests of top's view: rates, per-component rates, windowed percentiles, the whole frame. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"
#include "test-snapshot.h"
#include "topview.h"

/* --- top's numbers -------------------------------------------------------- */

START_TEST(test_top_rate)
{
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 16), 0);
    ebf_metrics_counter(&ms, "rx.frames", 1000);
    ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", 10);
    Ebfarm__Snapshot *a = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 1000000000);
    ebf_metrics_counter(&ms, "rx.frames", 3000);
    ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", 16);
    Ebfarm__Snapshot *b = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 3000000000);
    ebf_metrics_counter(&ms, "rx.frames", 500);
    Ebfarm__Snapshot *c = received(&ms, "sfc", "sfc0", 2, EBF_S_RUNNING, 5000000000);

    ck_assert_double_eq(top_rate(a, b, "rx.frames", NULL), 1000.0);
    ck_assert_double_eq(top_rate(a, b, "lost", "no_node"), 3.0);
    ck_assert_double_eq(top_rate(b, c, "rx.frames", NULL), 250.0);  /* new run: from 0 */
    ck_assert_double_eq(top_rate(NULL, b, "rx.frames", NULL), -1);
    ck_assert_double_eq(top_rate(b, b, "rx.frames", NULL), -1);      /* no time passed */
    ck_assert_double_eq(top_rate(a, b, "tx.frames", NULL), -1);
    ck_assert_double_eq(top_rate(b, c, "lost", "no_node"), -1);      /* gone from c */
    drop(a);
    drop(b);
    drop(c);
    ebf_metrics_free(&ms);
}
END_TEST

START_TEST(test_top_rates_per_component)
{
    struct ebf_metrics ms;
    struct top_rates r;

    ck_assert_int_eq(ebf_metrics_init(&ms, 16), 0);
    ebf_metrics_counter(&ms, "rx.frames", 0);
    ebf_metrics_counter(&ms, "events.sent", 0);
    ebf_metrics_counter(&ms, "tx.payload_bytes", 0);
    Ebfarm__Snapshot *a = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 2000000000);
    ebf_metrics_counter(&ms, "rx.frames", 400000);
    ebf_metrics_counter(&ms, "events.sent", 50000);
    ebf_metrics_counter(&ms, "tx.payload_bytes", 500000000);
    Ebfarm__Snapshot *b = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 4000000000);

    top_rates("sfc", a, b, &r);
    ck_assert_double_eq(r.frames, 200000.0);
    ck_assert_double_eq(r.events, 25000.0);
    ck_assert_double_eq_tol(r.gbit, 2.0, 1e-12);
    top_rates("readout", a, b, &r);     /* a readout has other counters */
    ck_assert_double_eq(r.frames, -1);
    ck_assert_double_eq(r.events, -1);
    ck_assert_double_eq(r.gbit, -1);
    drop(a);
    drop(b);
    ebf_metrics_free(&ms);
}
END_TEST

/* Percentiles of the last interval, not of the run; the run's when the
 * interval is empty. */
START_TEST(test_top_hist_window)
{
    struct ebf_metrics ms;
    struct ebf_hist h, w;

    ck_assert_int_eq(ebf_metrics_init(&ms, 4), 0);
    ebf_hist_init(&h);
    hist_fill(&h, 1000, 100);
    ebf_metrics_hist(&ms, "e2e_ns", &h);
    Ebfarm__Snapshot *a = received(&ms, "node", "node0", 1, EBF_S_RUNNING, 1000000000);
    hist_fill(&h, 3000, 98);
    hist_fill(&h, 100000, 2);
    ebf_metrics_hist(&ms, "e2e_ns", &h);
    Ebfarm__Snapshot *b = received(&ms, "node", "node0", 1, EBF_S_RUNNING, 2000000000);
    const Ebfarm__Histogram *ha = ebf_pb_find_hist(a, "e2e_ns");
    const Ebfarm__Histogram *hb = ebf_pb_find_hist(b, "e2e_ns");

    ck_assert_int_eq(top_hist_window(ha, hb, &w), 1);
    ck_assert_uint_eq(w.count, 100);
    ck_assert_uint_eq(w.sum, 98 * 3000 + 2 * 100000);
    ck_assert_uint_eq(ebf_hist_quantile(&w, 0.5), 3071);     /* [2816, 3072) */
    ck_assert_uint_eq(ebf_hist_quantile(&w, 0.98), 3071);
    ck_assert_uint_eq(ebf_hist_quantile(&w, 0.99), 100000);  /* capped by max */
    /* The whole run: half of it is the first interval's 1000s. */
    ck_assert_int_eq(top_hist_window(NULL, hb, &w), 0);
    ck_assert_uint_eq(w.count, 200);
    ck_assert_uint_eq(ebf_hist_quantile(&w, 0.5), 1023);     /* [960, 1024) */
    /* Nothing new: the run's. */
    ck_assert_int_eq(top_hist_window(hb, hb, &w), 0);
    ck_assert_uint_eq(w.count, 200);
    /* Counts went down (a new run): the newer snapshot alone. */
    ck_assert_int_eq(top_hist_window(hb, ha, &w), 0);
    ck_assert_uint_eq(w.count, 100);
    ck_assert_uint_eq(ebf_hist_quantile(&w, 0.99), 1000);
    drop(a);
    drop(b);
    ebf_metrics_free(&ms);
}
END_TEST

static const char expected_frame[] =
    "farm test: 5 processes\n"
    "NAME         ROLE     STATE        RUN   FRAMES/S   EVENTS/S   GBIT/S\n"
    "sfc0         sfc      RUNNING        7     200.0k      25.0k     2.00\n"
    "    building 12  ready 0  credits 0:32 1:30  unacked 0:2 1:0  mempool rx:123\n"
    "    latency build last p50 3.1us p99 100.0us, run p50 1.0us p99 3.1us\n"
    "    reject bad_checksum 3  drop late 2  lost event_table_full 4, no_node 1\n"
    "node0        node     RUNNING        7        800        100     0.00\n"
    "    credits 32\n"
    "    latency e2e last -, run p50 1.0us p99 1.0us\n"
    "ro0          readout  RUNNING        7          -          -        -\n"
    "sfc1         sfc      STALE          6          -          -        -\n"
    "    lost no_node 2\n"
    "ro1          readout  NO_DATA        -          -          -        -\n"
    "totals: generated 505, accepted 10, rejected 90, lost 5 (no counters from sfc1, ro1)\n";

/* The same in 11 rows (of 14): the queue and latency lines dropped, the problem
 * lines kept (at 80x24 with 10 processes every detail line went, problems
 * too, while rows stayed empty). */
static const char expected_problems[] =
    "farm test: 5 processes\n"
    "NAME         ROLE     STATE        RUN   FRAMES/S   EVENTS/S   GBIT/S\n"
    "sfc0         sfc      RUNNING        7     200.0k      25.0k     2.00\n"
    "    reject bad_checksum 3  drop late 2  lost event_table_full 4, no_node 1\n"
    "node0        node     RUNNING        7        800        100     0.00\n"
    "ro0          readout  RUNNING        7          -          -        -\n"
    "sfc1         sfc      STALE          6          -          -        -\n"
    "    lost no_node 2\n"
    "ro1          readout  NO_DATA        -          -          -        -\n"
    "totals: generated 505, accepted 10, rejected 90, lost 5 (no counters from sfc1, ro1)\n"
    "dropped detail lines: queues, latency\n";

static Ebfarm__Snapshot *sfc_snap(struct ebf_metrics *ms, uint64_t t, uint64_t k,
                                  struct ebf_hist *h)
{
    ebf_metrics_counter(ms, "rx.frames", 1000 + 400000 * k);
    ebf_metrics_counter_l(ms, "rx.reject", "reason", "bad_checksum", 3 * k);
    ebf_metrics_counter_l(ms, "rx.drop", "reason", "late", 2 * k);
    ebf_metrics_counter_l(ms, "lost", "reason", "event_table_full", 4 * k);
    ebf_metrics_counter_l(ms, "lost", "reason", "no_node", k);
    ebf_metrics_counter(ms, "events.sent", 100 + 50000 * k);
    ebf_metrics_counter(ms, "ack.accept", 10 * k);     /* the decisions of record */
    ebf_metrics_counter(ms, "ack.reject", 90 * k);
    ebf_metrics_counter(ms, "tx.payload_bytes", 500000000 * k);
    ebf_metrics_gauge(ms, "events_building", NULL, NULL, 12);
    ebf_metrics_gauge(ms, "ready_queue", NULL, NULL, 0);
    ebf_metrics_gauge(ms, "node_credits", "node", "0", 32);
    ebf_metrics_gauge(ms, "node_unacked", "node", "0", 2);
    ebf_metrics_gauge(ms, "node_credits", "node", "1", 30);
    ebf_metrics_gauge(ms, "node_unacked", "node", "1", 0);
    ebf_metrics_gauge(ms, "mempool_in_use", "pool", "rx", 123);
    ebf_metrics_hist(ms, "build_ns", h);
    return received(ms, "sfc", "sfc0", 7, EBF_S_RUNNING, t);
}

/* A whole frame: rates, queues, live and fallback percentiles, problems by
 * reason, a stale process, one without data, and the totals: decided as
 * the SFCs acked, the stale SFC and the readout without data named and
 * left out (acct.h). */
START_TEST(test_top_frame)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    char *text = NULL;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_hist_init(&h);
    hist_fill(&h, 1000, 100);
    Ebfarm__Snapshot *s0 = sfc_snap(&ms, 1000000000, 0, &h);
    hist_fill(&h, 3000, 98);
    hist_fill(&h, 100000, 2);
    Ebfarm__Snapshot *s1 = sfc_snap(&ms, 3000000000, 1, &h);

    ebf_hist_init(&h);
    hist_fill(&h, 1000, 10);
    Ebfarm__Snapshot *n[2];
    for (unsigned k = 0; k < 2; k++) {
        ebf_metrics_counter(&ms, "rx.frames", 800 * k);
        ebf_metrics_counter(&ms, "events", 100 * k);
        ebf_metrics_counter(&ms, "accepted", 10 * k);
        ebf_metrics_counter(&ms, "rejected", 90 * k);
        ebf_metrics_counter(&ms, "payload_bytes", 0);
        ebf_metrics_counter_l(&ms, "rx.reject", "reason", "bad_checksum", 0);
        ebf_metrics_gauge(&ms, "credits", NULL, NULL, 32);
        ebf_metrics_hist(&ms, "e2e_ns", &h);
        n[k] = received(&ms, "node", "node0", 7, EBF_S_RUNNING, 2000000000 + 1000000000 * k);
    }
    ebf_metrics_counter(&ms, "events", 500);
    ebf_metrics_counter(&ms, "events_abandoned", 5);
    Ebfarm__Snapshot *ro = received(&ms, "readout", "ro0", 7, EBF_S_RUNNING, 3000000000);
    ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", 2);
    Ebfarm__Snapshot *old = received(&ms, "sfc", "sfc1", 6, EBF_S_CONFIGURED, 100);

    const struct top_proc p[] = {
        {"sfc0", "sfc", s0, s1, 0, 0, 0, 0, 0},  {"node0", "node", n[0], n[1], 0, 0, 0, 0, 0},
        {"ro0", "readout", NULL, ro, 0, 0, 0, 0, 0}, {"sfc1", "sfc", NULL, old, 1, 0, 0, 0, 0},
        {"ro1", "readout", NULL, NULL, 0, 0, 0, 0, 0},
    };
    CAPTURE(text, top_frame(m_, "test", p, 5));
    ck_assert_str_eq(text, expected_frame);
    free(text);
    CAPTURE(text, top_frame_fit(m_, "test", p, 5, 0, 11));
    ck_assert_str_eq(text, expected_problems);
    free(text);
    CAPTURE(text, top_frame_fit(m_, "test", p, 5, 0, 13));    /* the latency lines fit too */
    ck_assert_ptr_nonnull(strstr(text, "\n    latency build last p50 3.1us"));
    ck_assert_ptr_nonnull(strstr(text, "\ndropped detail lines: queues\n"));
    ck_assert_ptr_null(strstr(text, "    building 12"));
    free(text);
    drop(s0);
    drop(s1);
    drop(n[0]);
    drop(n[1]);
    drop(ro);
    drop(old);
    ebf_metrics_free(&ms);
}
END_TEST

/* At 40x10: narrower columns, GBIT/S, RUN and ROLE dropped and named,
 * no detail lines (said so), the node its SFC declared dead marked. */
static const char expected_small[] =
    "farm test: 4 processes\n"
    "NAME  STATE      FRAMES/S EVENTS/S\n"
    "sfc0  RUNNING      200.0k    25.0k\n"
    "node0 RUNNING           -        -\n"
    "node1 STALE             -        - dead\n"
    "ro0   NO_DATA           -        -\n"
    "totals: generated ?, accepted 10,\n"        /* wrapped at 40 */
    "  rejected 90, lost 5\n"
    "  (no counters from node1, ro0)\n"
    "dropped columns: GBIT/S RUN ROLE\n"
    "dropped detail lines: too few rows\n";

START_TEST(test_top_frame_small)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    char *text = NULL;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_hist_init(&h);
    Ebfarm__Snapshot *s0 = sfc_snap(&ms, 1000000000, 0, &h);
    ebf_metrics_gauge(&ms, "node_epoch", "node", "0", 1000);
    ebf_metrics_gauge(&ms, "node_alive", "node", "0", 1);
    ebf_metrics_gauge(&ms, "node_epoch", "node", "1", 2000);
    ebf_metrics_gauge(&ms, "node_alive", "node", "1", 0);
    Ebfarm__Snapshot *s1 = sfc_snap(&ms, 3000000000, 1, &h);
    ebf_metrics_free(&ms);
    ck_assert_int_eq(ebf_metrics_init(&ms, 8), 0);
    ebf_metrics_gauge(&ms, "epoch", NULL, NULL, 1000);
    Ebfarm__Snapshot *n0 = received(&ms, "node", "node0", 7, EBF_S_RUNNING, 3000000000);
    ebf_metrics_gauge(&ms, "epoch", NULL, NULL, 2000);
    Ebfarm__Snapshot *n1 = received(&ms, "node", "node1", 7, EBF_S_RUNNING, 1000000000);
    const struct top_proc p[] = {
        {"sfc0", "sfc", s0, s1, 0, 0, 0, 0, 0}, {"node0", "node", NULL, n0, 0, 0, 0, 0, 0},
        {"node1", "node", NULL, n1, 1, 0, 0, 0, 0}, {"ro0", "readout", NULL, NULL, 0, 0, 0, 0, 0},
    };

    ck_assert_ptr_null(top_node_mark(p, 4, &p[0]));
    ck_assert_ptr_null(top_node_mark(p, 4, &p[1]));
    ck_assert_str_eq(top_node_mark(p, 4, &p[2]), "dead");
    CAPTURE(text, top_frame_fit(m_, "test", p, 4, 40, 10));
    ck_assert_str_eq(text, expected_small);
    free(text);
    drop(s0);
    drop(s1);
    drop(n0);
    drop(n1);
    ebf_metrics_free(&ms);
}
END_TEST

/* A node whose epoch changed within a run is marked rejoined. */
START_TEST(test_top_node_rejoined)
{
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 8), 0);
    ebf_metrics_gauge(&ms, "epoch", NULL, NULL, 1000);
    Ebfarm__Snapshot *a = received(&ms, "node", "node0", 7, EBF_S_RUNNING, 1000000000);
    ebf_metrics_gauge(&ms, "epoch", NULL, NULL, 5000);
    Ebfarm__Snapshot *b = received(&ms, "node", "node0", 7, EBF_S_RUNNING, 2000000000);
    Ebfarm__Snapshot *c = received(&ms, "node", "node0", 8, EBF_S_RUNNING, 3000000000);
    const struct top_proc p[] = {
        {"node0", "node", a, b, 0, 0, 0, 0, 0}, {"node0", "node", a, c, 0, 0, 0, 0, 0},
        {"node0", "node", b, b, 0, 0, 0, 0, 0},
        {"node0", "node", b, b, 0, 1, 0, 0, 0},      /* the caller saw another epoch earlier */
    };

    ck_assert_str_eq(top_node_mark(p, 1, &p[0]), "rejoined");
    ck_assert_ptr_null(top_node_mark(p, 1, &p[1]));   /* a new run: a new epoch */
    ck_assert_ptr_null(top_node_mark(p, 1, &p[2]));
    ck_assert_str_eq(top_node_mark(p, 1, &p[3]), "rejoined");
    drop(a);
    drop(b);
    drop(c);
    ebf_metrics_free(&ms);
}
END_TEST

/* An SFC's per-node gauges named by node (its k-th node in file order at
 * its place), not by the SFC's index: sfc0 serves nodeA and nodeC. */
START_TEST(test_node_names)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    char *text = NULL;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_hist_init(&h);
    Ebfarm__Snapshot *s0 = sfc_snap(&ms, 1000000000, 0, &h);
    Ebfarm__Snapshot *s1 = sfc_snap(&ms, 3000000000, 1, &h);
    const struct top_proc p[] = {
        {"sfc0", "sfc", s0, s1, 0, 0, 1, 0, 0}, {"nodeA", "node", NULL, NULL, 0, 0, 1, 0, 0},
        {"nodeB", "node", NULL, NULL, 0, 0, 1, 1, 0}, {"nodeC", "node", NULL, NULL, 0, 0, 1, 0, 0},
    };
    CAPTURE(text, top_frame(m_, "test", p, 4));
    ck_assert_msg(strstr(text, "\n    building 12  ready 0  credits nodeA:32 nodeC:30  unacked "
                               "nodeA:2 nodeC:0  mempool rx:123\n") != NULL, "%s", text);
    free(text);
    drop(s0);
    drop(s1);
    ebf_metrics_free(&ms);
}
END_TEST

Suite *topview_suite(void);

Suite *topview_suite(void)
{
    Suite *s = suite_create("topview");
    TCase *tc = tcase_create("top");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_top_rate);
    tcase_add_test(tc, test_top_rates_per_component);
    tcase_add_test(tc, test_top_hist_window);
    tcase_add_test(tc, test_top_frame);
    tcase_add_test(tc, test_top_frame_small);
    tcase_add_test(tc, test_top_node_rejoined);
    tcase_add_test(tc, test_node_names);
    suite_add_tcase(s, tc);
    return s;
}
