/* SPDX-License-Identifier: BSD-3-Clause */
/* test-snapshot_size.c - a daemon's metrics snapshot does not grow with the run's length: the same entries, the same bytes, after 2^62 counts as after 2^63. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"
#include "test-snapshot.h"

/* A snapshot's shape: entries by kind, histogram buckets, packed bytes. */
struct shape {
    size_t counters, gauges, hists, buckets, bytes;
};

static void shape_of(const Ebfarm__Snapshot *s, struct shape *sh)
{
    memset(sh, 0, sizeof(*sh));
    sh->counters = s->n_counters;
    sh->gauges = s->n_gauges;
    sh->hists = s->n_histograms;
    for (size_t i = 0; i < s->n_histograms; i++)
        sh->buckets += s->histograms[i]->n_bucket_index;
    sh->bytes = ebfarm__snapshot__get_packed_size(s);
}

static struct sfc_snap sfc;
static struct node_snap node;
static struct ro_snap ro;

/* Every counter, histogram bucket and level of each daemon set to byte
 * repeated (0x3f: about 2^62, 0x7f: about 2^63), the list sizes at their
 * maximum: the longest run there can be, as far as the snapshot can tell. */
static void fill(unsigned char byte)
{
    memset(&sfc, byte, sizeof(sfc));
    sfc.g.n_nodes = SFC_MAX_NODES;
    sfc.lcore.n = EBF_LCORE_STATS_MAX;
    memset(&node, byte, sizeof(node));
    node.lcore.n = EBF_LCORE_STATS_MAX;
    memset(&ro, byte, sizeof(ro));
    ro.n_sources = EBF_MAX_SOURCES;
    ro.lcore.n = EBF_LCORE_STATS_MAX;
}

static void shapes(unsigned char byte, struct shape sh[3])
{
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 8192), 0);
    fill(byte);
    sfc_metrics(&sfc, &ms);
    Ebfarm__Snapshot *s = received(&ms, "sfc", "sfc0", 1, EBF_S_RUNNING, 1);
    shape_of(s, &sh[0]);
    drop(s);
    node_metrics(&node, &ms);
    s = received(&ms, "node", "node0", 1, EBF_S_RUNNING, 1);
    shape_of(s, &sh[1]);
    drop(s);
    ro_metrics(&ro, &ms);
    s = received(&ms, "readout", "ro0", 1, EBF_S_RUNNING, 1);
    shape_of(s, &sh[2]);
    drop(s);
    ebf_metrics_free(&ms);
}

START_TEST(test_size_bounded)
{
    struct shape a[3], b[3];

    shapes(0x3f, a);
    shapes(0x7f, b);
    for (unsigned k = 0; k < 3; k++) {
        ck_assert_uint_eq(a[k].counters, b[k].counters);
        ck_assert_uint_eq(a[k].gauges, b[k].gauges);
        ck_assert_uint_eq(a[k].hists, b[k].hists);
        ck_assert_uint_eq(a[k].buckets, b[k].buckets);
        ck_assert_uint_eq(a[k].bytes, b[k].bytes);
        ck_assert_uint_lt(a[k].bytes, 256 * 1024);    /* the largest message, every list full */
    }
    /* Every histogram with all its buckets full: the most it can send. */
    ck_assert_uint_eq(a[0].buckets, a[0].hists * EBF_HIST_BUCKETS);
    ck_assert_uint_eq(a[1].buckets, a[1].hists * EBF_HIST_BUCKETS);
}
END_TEST

Suite *snapshot_size_suite(void);

Suite *snapshot_size_suite(void)
{
    Suite *s = suite_create("snapshot_size");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_size_bounded);
    suite_add_tcase(s, tc);
    return s;
}
