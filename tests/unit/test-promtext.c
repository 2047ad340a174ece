/* SPDX-License-Identifier: BSD-3-Clause */
/* test-promtext.c - unit tests of the Prometheus text exposition: families, escaping, histogram buckets, decimals. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"
#include "promtext.h"
#include "test-snapshot.h"

/* --- Prometheus text ------------------------------------------------------ */

static const char expected_exposition[] =
    "# HELP ebfarm_up 1 when the process's metrics snapshot arrived within 3 periods, else 0.\n"
    "# TYPE ebfarm_up gauge\n"
    "ebfarm_up{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 1\n"
    "ebfarm_up{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\"} 1\n"
    "ebfarm_up{farm=\"demo\",component=\"readout\",process=\"ro0\"} 0\n"
    "# HELP ebfarm_state 1 for the run-control state of the process's latest snapshot.\n"
    "# TYPE ebfarm_state gauge\n"
    "ebfarm_state{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",state=\"RUNNING\"} 1\n"
    "ebfarm_state{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\",state=\"DRAINING\"} 1\n"
    "# HELP ebfarm_run_number The run number of the process's latest snapshot.\n"
    "# TYPE ebfarm_run_number gauge\n"
    "ebfarm_run_number{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 7\n"
    "ebfarm_run_number{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\"} 7\n"
    "# HELP ebfarm_rx_frames_total sfc: Frames read from the readout port. "
    "node: Frames read from the node's port.\n"
    "# TYPE ebfarm_rx_frames_total counter\n"
    "ebfarm_rx_frames_total{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 100\n"
    "ebfarm_rx_frames_total{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\"} 40\n"
    "# HELP ebfarm_rx_reject_total Frames that failed to parse, by reason.\n"
    "# TYPE ebfarm_rx_reject_total counter\n"
    "ebfarm_rx_reject_total{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",reason=\"bad_checksum\"} 3\n"
    "ebfarm_rx_reject_total{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",reason=\"truncated\"} 0\n"
    "# HELP ebfarm_node_credits Credits the SFC holds for each node.\n"
    "# TYPE ebfarm_node_credits gauge\n"
    "ebfarm_node_credits{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",node=\"0\"} 32\n"
    "# HELP ebfarm_ready_queue Built events waiting for a node credit.\n"
    "# TYPE ebfarm_ready_queue gauge\n"
    "ebfarm_ready_queue{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 1.5\n"
    "# HELP ebfarm_build_seconds Time from the readout's transmit of an event's first piece to its "
    "completion at the SFC.\n"
    "# TYPE ebfarm_build_seconds histogram\n"
    "ebfarm_build_seconds_bucket{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",le=\"0.000000022\"} 1\n"
    "ebfarm_build_seconds_bucket{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",le=\"0.000001024\"} 4\n"
    "ebfarm_build_seconds_bucket{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\",le=\"+Inf\"} 4\n"
    "ebfarm_build_seconds_sum{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 0.00000302\n"
    "ebfarm_build_seconds_count{farm=\"demo\",run=\"7\",component=\"sfc\",process=\"sfc0\"} 4\n"
    "# HELP ebfarm_events_total Events the node decided.\n"
    "# TYPE ebfarm_events_total counter\n"
    "ebfarm_events_total{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\"} 10\n"
    "# HELP ebfarm_odd_name_x_total ebfarm counter 'odd.name-x' (docs/daemons.md).\n"
    "# TYPE ebfarm_odd_name_x_total counter\n"
    "ebfarm_odd_name_x_total{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\",why=\"a\\\"b\\\\c\\n\"} 5\n"
    "ebfarm_odd_name_x_total{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\",ebfarm_instance=\"i\"} 6\n"
    "# HELP ebfarm_mempool_in_use Mbufs in use, by pool.\n"
    "# TYPE ebfarm_mempool_in_use gauge\n"
    "ebfarm_mempool_in_use{farm=\"demo\",run=\"7\",component=\"node\",process=\"node0\"} 7\n";

/* Two snapshots and a process without one: every family once, samples of
 * both processes together, farm and run labels (no run without a snapshot),
 * a snapshot label named like a target label prefixed, run identifiers left
 * out, escaping, and the
 * histogram's cumulative buckets in seconds. */
START_TEST(test_prom_exposition)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    char *text = NULL;

    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_hist_init(&h);
    hist_fill(&h, 20, 1);        /* bucket [20, 22) */
    hist_fill(&h, 1000, 3);      /* bucket [960, 1024) */
    ebf_metrics_counter(&ms, "rx.frames", 100);
    ebf_metrics_counter_l(&ms, "rx.reject", "reason", "bad_checksum", 3);
    ebf_metrics_counter_l(&ms, "rx.reject", "reason", "truncated", 0);
    ebf_metrics_counter(&ms, "lost_digest", 0xdeadbeef);
    ebf_metrics_counter(&ms, "start_ns", 123456789);
    ebf_metrics_gauge(&ms, "node_credits", "node", "0", 32);
    ebf_metrics_gauge(&ms, "ready_queue", NULL, NULL, 1.5);
    ebf_metrics_hist(&ms, "build_ns", &h);
    Ebfarm__Snapshot *sfc = received(&ms, "sfc", "sfc0", 7, EBF_S_RUNNING, 1000);
    ebf_metrics_counter(&ms, "rx.frames", 40);
    ebf_metrics_counter(&ms, "events", 10);
    ebf_metrics_counter(&ms, "first_event", 1);
    ebf_metrics_counter_l(&ms, "odd.name-x", "why", "a\"b\\c\n", 5);
    ebf_metrics_counter_l(&ms, "odd.name-x", "instance", "i", 6);
    ebf_metrics_gauge(&ms, "mempool_in_use", NULL, NULL, 7);
    Ebfarm__Snapshot *node = received(&ms, "node", "node0", 7, EBF_S_DRAINING, 1000);
    const struct prom_proc p[] = {
        {"sfc", "sfc0", "demo", sfc, 1},
        {"node", "node0", "demo", node, 1},
        {"readout", "ro0", "demo", NULL, 0},
    };
    int rc;
    CAPTURE(text, rc = prom_render(m_, p, 3));
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(text, expected_exposition);
    free(text);
    drop(sfc);
    drop(node);
    ebf_metrics_free(&ms);
}
END_TEST

static unsigned occurrences(const char *text, const char *s)
{
    unsigned n = 0;

    for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

static struct ro_snap d_ro;
static struct sfc_snap d_sfc;
static struct node_snap d_node;

/* The daemons' own metric lists: one family per port counter across the
 * components, # HELP from their tables (each component's when they
 * differ), run identifiers and id records left out. */
START_TEST(test_prom_daemon_tables)
{
    struct ebf_metrics ms;
    char *text = NULL;

    ck_assert_int_eq(ebf_metrics_init(&ms, 4096), 0);
    d_ro.port.rx_nombuf = 7;
    d_ro.st.events = 40;
    d_ro.st.id_digest = 12345;
    d_ro.st.throttle_held_ns = 5;
    ro_metrics(&d_ro, &ms);
    Ebfarm__Snapshot *ro = received(&ms, "readout", "ro0", 1, EBF_S_RUNNING, 1000);
    d_sfc.port.rx_nombuf = 8;
    d_sfc.g.n_nodes = 1;
    d_sfc.node_port_own[0] = 1;
    d_sfc.node_port[0].rx_nombuf = 9;
    ebf_idset_add(&d_sfc.st.ledger_acked, 3);
    ebf_hist_init(&d_sfc.st.build_ns);
    ebf_hist_init(&d_sfc.st.build_timeout_ns);
    ebf_hist_init(&d_sfc.st.dispatch_ns);
    ebf_hist_init(&d_sfc.st.ack_ns);
    sfc_metrics(&d_sfc, &ms);
    Ebfarm__Snapshot *sfc = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 1000);
    d_node.port.rx_nombuf = 10;
    d_node.st.events = 30;
    ebf_hist_init(&d_node.st.e2e_ns);
    node_metrics(&d_node, &ms);
    Ebfarm__Snapshot *node = received(&ms, "node", "node0", 1, EBF_S_RUNNING, 1000);
    const struct prom_proc p[] = {
        {"readout", "ro0", "demo", ro, 1},
        {"sfc", "sfc0", "demo", sfc, 1},
        {"node", "node0", "demo", node, 1},
    };
    int rc;
    CAPTURE(text, rc = prom_render(m_, p, 3));
    ck_assert_int_eq(rc, 0);
    static const char nombuf[] =
        "# HELP ebfarm_port_rx_nombuf_total Receive mbuf allocation failures of the port "
        "(rte_eth_stats rx_nombuf).\n"
        "# TYPE ebfarm_port_rx_nombuf_total counter\n"
        "ebfarm_port_rx_nombuf_total{farm=\"demo\",run=\"1\",component=\"readout\",process=\"ro0\",port=\"sfc\"} 7\n"
        "ebfarm_port_rx_nombuf_total{farm=\"demo\",run=\"1\",component=\"sfc\",process=\"sfc0\",port=\"readout\"} 8\n"
        "ebfarm_port_rx_nombuf_total{farm=\"demo\",run=\"1\",component=\"sfc\",process=\"sfc0\",port=\"node0\"} 9\n"
        "ebfarm_port_rx_nombuf_total{farm=\"demo\",run=\"1\",component=\"node\",process=\"node0\",port=\"sfc\"} 10\n"
        "# HELP ";
    ck_assert_msg(strstr(text, nombuf) != NULL, "%.2000s", strstr(text, "ebfarm_port_rx_nombuf"));
    ck_assert_ptr_nonnull(strstr(text,
        "# HELP ebfarm_events_total readout: Events whose every frame the readout's port took. "
        "node: Events the node decided.\n"
        "# TYPE ebfarm_events_total counter\n"
        "ebfarm_events_total{farm=\"demo\",run=\"1\",component=\"readout\",process=\"ro0\"} 40\n"
        "ebfarm_events_total{farm=\"demo\",run=\"1\",component=\"node\",process=\"node0\"} 30\n"));
    ck_assert_ptr_nonnull(strstr(text, "# HELP ebfarm_rx_reject_total Frames that failed to parse, "
                                       "by reason.\n"));
    ck_assert_ptr_null(strstr(text, "port_rx_rx_nombuf"));
    ck_assert_ptr_null(strstr(text, "digest"));
    ck_assert_ptr_null(strstr(text, "ebfarm_ledger"));
    ck_assert_ptr_null(strstr(text, "held_ns"));
    ck_assert_ptr_null(strstr(text, "first_event"));
    ck_assert_ptr_null(strstr(text, "(docs/daemons.md)"));     /* every family has its help */
    ck_assert_uint_eq(occurrences(text, "# TYPE ebfarm_port_rx_nombuf_total "), 1);
    ck_assert_uint_eq(occurrences(text, "ebfarm_port_rx_nombuf_total{"), 4);
    ck_assert_uint_eq(occurrences(text, "# TYPE ebfarm_port_"), 8);
    free(text);
    drop(ro);
    drop(sfc);
    drop(node);
    ebf_metrics_free(&ms);
}
END_TEST

/* Up to the limit, one le per non-empty bucket; above, one per power of two. */
START_TEST(test_prom_hist_buckets_bounded)
{
    struct ebf_hist h;
    uint64_t le[PROM_MAX_LE], cum[PROM_MAX_LE];

    ebf_hist_init(&h);
    for (unsigned b = 16; b < 36; b++)
        ebf_hist_add(&h, ebf_hist_bucket_lo(b));
    ck_assert_uint_eq(prom_hist_buckets(&h, PROM_MAX_LE, le, cum), 20);
    ck_assert_uint_eq(le[0], 18);
    ck_assert_uint_eq(cum[0], 1);
    ck_assert_uint_eq(le[19], ebf_hist_bucket_lo(36));
    ck_assert_uint_eq(cum[19], 20);

    /* 100 buckets from 16 on: 12 whole powers of two and 4 of the 13th. */
    ebf_hist_init(&h);
    for (unsigned b = 16; b < 116; b++)
        ebf_hist_add(&h, ebf_hist_bucket_lo(b));
    unsigned n = prom_hist_buckets(&h, PROM_MAX_LE, le, cum);
    ck_assert_uint_eq(n, 13);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(le[i], 32ull << i);
        ck_assert_uint_eq(cum[i], i < 12 ? 8 * (i + 1) : 100);
    }

    /* The last bucket has no finite bound: only +Inf holds it. */
    ebf_hist_init(&h);
    ebf_hist_add(&h, 3);
    ebf_hist_add(&h, UINT64_MAX);
    ck_assert_uint_eq(prom_hist_buckets(&h, PROM_MAX_LE, le, cum), 1);
    ck_assert_uint_eq(le[0], 4);
    ck_assert_uint_eq(cum[0], 1);
}
END_TEST

START_TEST(test_prom_decimal)
{
    static const struct {
        uint64_t v, div;
        const char *s;
    } t[] = {
        {1536, 1000000000, "0.000001536"}, {12000000000ull, 1000000000, "12"},
        {1500000000, 1000000000, "1.5"},  {0, 1000000000, "0"},
        {42, 1, "42"},                    {UINT64_MAX, 1000000000, "18446744073.709551615"},
    };
    char buf[48];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        prom_decimal(buf, sizeof(buf), t[i].v, t[i].div);
        ck_assert_str_eq(buf, t[i].s);
    }
}
END_TEST

Suite *promtext_suite(void);

Suite *promtext_suite(void)
{
    Suite *s = suite_create("promtext");
    TCase *tc = tcase_create("prometheus");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_prom_exposition);
    tcase_add_test(tc, test_prom_daemon_tables);
    tcase_add_test(tc, test_prom_hist_buckets_bounded);
    tcase_add_test(tc, test_prom_decimal);
    suite_add_tcase(s, tc);
    return s;
}
