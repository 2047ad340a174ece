/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_json.c - Check unit tests of the loopback's JSON and CSV output: the documents (jansson) and exact CSV text for known reports. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <math.h>

#include "lb_reason.h"
#include "lb_report.h"
#include "test-lb_report.h"
#include "test-text.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

/* What a writer wrote for report r, as a malloc'd string. */
static char *written(void (*write)(FILE *, const struct lb_report *), const struct lb_report *r)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    write(f, r);
    ck_assert_int_eq(fclose(f), 0);
    return text;
}

/*
 * Whether two JSON values are equal: same types (integers and reals are
 * numbers alike), same keys and elements, numbers within a relative 1e-9
 * (the writer prints 10 significant digits). On a difference, the path of
 * it in where.
 */
static int same(const json_t *a, const json_t *b, char *where, size_t n)
{
    if (json_is_number(a) && json_is_number(b)) {
        double x = json_number_value(a), y = json_number_value(b);
        if (fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)))
            return 1;
        snprintf(where, n, "%.12g != %.12g", x, y);
        return 0;
    }
    if (json_typeof(a) != json_typeof(b)) {
        snprintf(where, n, "type %d != %d", json_typeof(a), json_typeof(b));
        return 0;
    }
    if (json_is_object(a)) {
        const char *k;
        json_t *v;
        if (json_object_size(a) != json_object_size(b)) {
            snprintf(where, n, "%zu keys != %zu", json_object_size(a), json_object_size(b));
            return 0;
        }
        json_object_foreach((json_t *)a, k, v) {
            json_t *w = json_object_get(b, k);
            size_t l = strlen(where);
            snprintf(where + l, n - l, ".%s", k);
            if (!w || !same(v, w, where, n))
                return 0;
            where[l] = '\0';
        }
        return 1;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) {
            snprintf(where, n, "%zu elements != %zu", json_array_size(a), json_array_size(b));
            return 0;
        }
        for (size_t i = 0; i < json_array_size(a); i++) {
            size_t l = strlen(where);
            snprintf(where + l, n - l, "[%zu]", i);
            if (!same(json_array_get(a, i), json_array_get(b, i), where, n))
                return 0;
            where[l] = '\0';
        }
        return 1;
    }
    if (json_equal((json_t *)a, (json_t *)b))
        return 1;
    snprintf(where, n, "values differ");
    return 0;
}

/* Parse text (failing the test when it is not JSON). */
static json_t *parsed(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, 0, &e);
    ck_assert_msg(j != NULL, "not JSON: line %d: %s\n%s", e.line, e.text, text);
    return j;
}

static void assert_json_eq(const char *text, const char *expected)
{
    json_t *a = parsed(text), *b = parsed(expected);
    char where[512] = "";
    ck_assert_msg(same(a, b, where, sizeof(where)), "at %s:\n%s", where, text);
    json_decref(a);
    json_decref(b);
}

/*
 * The known report (tests/common/test-lb_report.h). By hand: 1 Mfps of
 * 64 B frames is 1e6 * 8 * (64 + 20) = 6.72e8 bit/s at L1 and 1e6 * 8 * 64 =
 * 5.12e8 at L2; line rate at 10 Gbit/s is 1e10 / (8 * 84) = 14.88 Mfps, so
 * 6.72 % of it. A size that found nothing reports 0s; a latency trial index
 * of -1, latency not valid, a NaN and a negative burst time are null; the
 * invalid trial names its reason, the valid one has null.
 */
static const char expected_json[] =
    "{\n"
    "  \"schema\": \"ebfarm-loopback/1\",\n"
    "  \"meta\": {\n"
    "    \"date\": \"2026-01-02T03:04:05Z\",\n"
    "    \"dpdk_version\": \"DPDK 22.11.1\",\n"
    "    \"cpu_model\": \"Test \\\"CPU\\\" \\\\ 2\\u0009GHz <&>\",\n"
    "    \"cpu_mhz\": 2600,\n"
    "    \"tsc_hz\": 2600000000,\n"
    "    \"hostname\": \"host1\",\n"
    "    \"kernel\": \"Linux 6.1\",\n"
    "    \"tx_port\": \"net_ring0\",\n"
    "    \"rx_port\": \"net_ring1\",\n"
    "    \"tx_driver\": \"net_ring\",\n"
    "    \"rx_driver\": \"net_memif\",\n"
    "    \"link_mbps\": 10000,\n"
    "    \"link_mtu\": 1500,\n"
    "    \"mode\": \"throughput\",\n"
    "    \"trial_s\": 1,\n"
    "    \"tolerance\": 0.01,\n"
    "    \"loss_ratio_allowed\": 0,\n"
    "    \"resolution_pct\": 1,\n"
    "    \"pacing\": \"constant\",\n"
    "    \"idle\": \"spin\",\n"
    "    \"tsc_read_ns\": 12.5,\n"
    "    \"compare_kernel\": false,\n"
    "    \"search\": \"binary\",\n"
    "    \"repeat\": 1,\n"
    "    \"burst\": 32,\n"
    "    \"probe_margin\": 0.05,\n"
    "    \"tx_hold_us\": 50,\n"
    "    \"interrupted\": false,\n"
    "    \"goals\": []\n"
    "  },\n"
    "  \"results\": [\n"
    "    {\"frame_size\": 64, \"dpdk\": {\"found\": true, \"trials\": 3, \"invalid_trials\": 1, "
    "\"fps\": 1e+06, \"l1_bps\": 6.72e+08, \"l2_bps\": 5.12e+08, \"pct_line\": 6.72, "
    "\"latency_ns\": {\"count\": 1000000, \"min\": 100, \"p50\": 200, \"p90\": 300, "
    "\"p99\": 400, \"p99_9\": 500, \"p99_99\": 600, \"max\": 700, \"mean\": 250.5}}, "
    "\"loss\": []},\n"
    "    {\"frame_size\": 1518, \"dpdk\": {\"found\": false, \"trials\": 2, "
    "\"invalid_trials\": 0, \"fps\": 0, \"l1_bps\": 0, \"l2_bps\": 0, \"pct_line\": 0, "
    "\"latency_ns\": null}, \"loss\": []}\n"
    "  ],\n"
    "  \"trials\": [\n"
    "    {\"path\": \"dpdk\", \"mode\": \"throughput\", \"frame_size\": 64, "
    "\"requested_fps\": 1e+06, \"achieved_fps\": 999000, \"valid\": true, "
    "\"invalid_reason\": null, \"stall_ms\": 0, \"search\": 0, \"phase\": \"search\", "
    "\"retried\": false, "
    "\"intended_s\": 1, \"duration_s\": 1, "
    "\"sent\": 1000000, \"tx_accepted\": 1000000, \"rx\": 1000000, \"unique\": 1000000, "
    "\"lost\": 0, \"dup\": 0, \"reordered\": 0, \"late\": 0, \"bursts\": 0, \"max_burst\": 0, "
    "\"foreign\": 0, \"stale\": 0, \"loss_ratio\": 0, \"loss_attribution\": {\"tx_refused\": 0, "
    "\"tx_nombuf\": 0, \"imissed\": 0, \"rx_nombuf\": 0, \"bad_checksum\": 0, \"bad_frame\": 0, "
    "\"unattributed\": 0}, \"ierrors\": 0, \"oerrors\": 0, \"latency_ns\": {\"count\": 1000000, "
    "\"min\": 100, \"p50\": 200, \"p90\": 300, \"p99\": 400, \"p99_9\": 500, \"p99_99\": 600, "
    "\"max\": 700, \"mean\": 250.5}, \"overhead_ns\": {\"tx_lag_p99\": 50, \"tx_hold_p99\": 60, "
    "\"rx_loop_p99\": 70}, \"loss_bursts\": []},\n"
    "    {\"path\": \"dpdk\", \"mode\": \"throughput\", \"frame_size\": 1518, "
    "\"requested_fps\": 812743.8, \"achieved_fps\": 800000, \"valid\": false, "
    "\"invalid_reason\": \"tx_preempted\", \"stall_ms\": 250.5, \"search\": 1, "
    "\"phase\": \"mlr g0 pre2\", \"retried\": true, \"intended_s\": 1, "
    "\"duration_s\": 1.02, \"sent\": 812744, \"tx_accepted\": 812740, \"rx\": 812741, "
    "\"unique\": 812739, \"lost\": 5, \"dup\": 2, \"reordered\": 1, \"late\": 1, \"bursts\": 2, "
    "\"max_burst\": 3, \"foreign\": 7, \"stale\": 1, \"loss_ratio\": 6.151998661e-06, "
    "\"loss_attribution\": {\"tx_refused\": 4, \"tx_nombuf\": 0, \"imissed\": 1, "
    "\"rx_nombuf\": 0, \"bad_checksum\": 0, \"bad_frame\": 0, \"unattributed\": 0}, "
    "\"ierrors\": 1, \"oerrors\": 2, \"latency_ns\": null, "
    "\"overhead_ns\": {\"tx_lag_p99\": null, \"tx_hold_p99\": 0, \"rx_loop_p99\": 0}, "
    "\"loss_bursts\": [{\"first_seq\": 10, \"len\": 3, \"t_ms\": 1.5}, {\"first_seq\": 400000, "
    "\"len\": 2, \"t_ms\": null}]}\n"
    "  ]\n"
    "}\n";

START_TEST(test_json_known)
{
    struct lb_report r;

    known_report(&r);
    char *text = written(lb_write_json, &r);
    assert_json_eq(text, expected_json);
    /* jansson's layout: two-space indent, a newline at the end */
    ck_assert_ptr_nonnull(strstr(text, "{\n  \"schema\": \"ebfarm-loopback/1\",\n  \"meta\": {\n"));
    ck_assert_ptr_nonnull(strstr(text, "\"cpu_model\": \"Test \\\"CPU\\\" \\\\ 2\\tGHz <&>\""));
    ck_assert_str_eq(text + strlen(text) - 2, "}\n");
    free(text);
    lb_report_free(&r);
}
END_TEST

/*
 * Back-to-back with --compare-kernel, loss points, and a link that reports
 * no speed: the DPDK search gives the burst length in frames, the kernel's
 * gives a rate (500000 fps: 3.36e8 bit/s at L1, 2.56e8 at L2) with no
 * percentage of line rate, and a kernel latency trial index past the last
 * trial is null.
 */
static const char expected_b2b_results[] =
    "[\n"
    "    {\"frame_size\": 64, \"dpdk\": {\"found\": true, \"trials\": 5, \"invalid_trials\": 0, "
    "\"burst_frames\": 12345, \"latency_ns\": {\"count\": 1000000, \"min\": 100, \"p50\": 200, "
    "\"p90\": 300, \"p99\": 400, \"p99_9\": 500, \"p99_99\": 600, \"max\": 700, "
    "\"mean\": 250.5}}, \"kernel\": {\"found\": true, \"trials\": 4, \"invalid_trials\": 2, "
    "\"fps\": 500000, \"l1_bps\": 3.36e+08, \"l2_bps\": 2.56e+08, \"pct_line\": null, "
    "\"latency_ns\": null}, \"loss\": [{\"pct\": 100, \"fps\": 1e+06, \"loss_ratio\": 0.001, "
    "\"valid\": true}, {\"pct\": 90, \"fps\": 900000, \"loss_ratio\": 0, \"valid\": false}]}\n"
    "  ]\n";

/* A member of the written document, as text. */
static char *member(const char *text, const char *key)
{
    json_t *doc = parsed(text);
    char *s = json_dumps(json_object_get(doc, key), JSON_ENCODE_ANY);
    json_decref(doc);
    return s;
}

START_TEST(test_json_b2b_kernel_loss)
{
    struct lb_report r;

    known_report(&r);
    r.meta.mode = "back-to-back";
    r.meta.compare_kernel = 1;
    r.meta.link_mbps = 0;
    r.n_sizes = 1;
    r.size[0] = (struct lb_size_result){
        .frame_size = 64, .tput = {1, 12345, 5, 0}, .lat_trial = 0, .n_loss = 2,
        .loss = {{100, 1e6, 0.001, 1}, {90, 9e5, 0, 0}},
        .kernel = {1, 5e5, 4, 2}, .kernel_lat_trial = 7,
    };
    char *text = written(lb_write_json, &r);
    char *results = member(text, "results");
    assert_json_eq(results, expected_b2b_results);
    json_t *doc = parsed(text), *m = json_object_get(doc, "meta");
    ck_assert_str_eq(json_string_value(json_object_get(m, "mode")), "back-to-back");
    ck_assert(json_is_integer(json_object_get(m, "link_mbps")));
    ck_assert_int_eq(json_integer_value(json_object_get(m, "link_mbps")), 0);
    ck_assert(json_is_true(json_object_get(m, "compare_kernel")));
    json_decref(doc);
    free(results);
    free(text);
    lb_report_free(&r);
}
END_TEST

/* No size, no trial: the document's frame alone. */
START_TEST(test_json_empty)
{
    struct lb_report r;

    known_report(&r);
    r.n_sizes = 0;
    lb_report_free(&r);
    char *text = written(lb_write_json, &r);
    json_t *doc = parsed(text);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "results")), 0);
    ck_assert_int_eq(json_array_size(json_object_get(doc, "trials")), 0);
    ck_assert_int_eq(json_object_size(doc), 4);     /* schema, meta, results, trials */
    ck_assert_str_eq(text + strlen(text) - 2, "}\n");
    json_decref(doc);
    free(text);
}
END_TEST

/*
 * --search mlr with two goals and --repeat 3: each size's path carries
 * every goal's bounds and conditional throughput (with the goal itself) and
 * the repetitions' figures with their mean, spread, min and max; meta lists
 * the goals; what bounds each goal, and the sender probe before the search.
 */
static const char expected_mlr_dpdk[] =
    "{\"found\": true, \"trials\": 9, \"invalid_trials\": 2, \"fps\": 600000, "
    "\"l1_bps\": 403200000, \"l2_bps\": 307200000, \"pct_line\": 4.032, \"latency_ns\": null, "
    "\"mlr\": [{\"goal\": {\"loss_ratio\": 0, \"exceed_ratio\": 0, \"duration_s\": 1, "
    "\"duration_sum_s\": 1, \"width\": 0.005, \"initial_duration_s\": 0.25}, \"found\": true, "
    "\"lower_fps\": 600000, \"upper_fps\": 602000, \"loss_quantile\": 0, "
    "\"conditional_fps\": 600000, \"conditional_l1_bps\": 403200000, "
    "\"conditional_l2_bps\": 307200000, \"bound_by\": \"loss\"}, "
    "{\"goal\": {\"loss_ratio\": 0.01, \"exceed_ratio\": 0.5, \"duration_s\": 2, "
    "\"duration_sum_s\": 10, \"width\": 0.01, \"initial_duration_s\": 0.5}, \"found\": false, "
    "\"lower_fps\": 0, \"upper_fps\": 1000, \"loss_quantile\": 0, \"conditional_fps\": 0, "
    "\"conditional_l1_bps\": 0, \"conditional_l2_bps\": 0, \"bound_by\": \"sender\"}], "
    "\"mlr_timed_out\": false, \"mlr_probe\": {\"requested_fps\": 14880952, "
    "\"duration_s\": 2, \"achieved_fps\": 950000, \"stall_ms\": 400, \"reach_fps\": 1187500, "
    "\"valid\": false, "
    "\"invalid_reason\": \"tx_slow\", \"margin\": 0.2, \"max_fps\": 940500, \"capped\": true}, "
    "\"repeat\": {\"n\": 3, \"found\": 2, \"trials\": 21, \"invalid_trials\": 3, "
    "\"mean\": 590000, \"stddev\": 14142.135623731, \"min\": 580000, \"max\": 600000, "
    "\"values\": [600000, 0, 580000]}}";

START_TEST(test_json_mlr_repeat)
{
    struct lb_report r;

    known_report(&r);
    r.meta.search = "mlr";
    r.meta.repeat = 3;
    r.meta.n_goals = 2;
    lb_mlr_goal_default(&r.meta.goal[0], 1);
    lb_mlr_goal_default(&r.meta.goal[1], 2);
    r.meta.goal[1].loss_ratio = 0.01;
    r.meta.goal[1].exceed_ratio = 0.5;
    r.meta.goal[1].duration_sum = 10;
    r.meta.goal[1].width = 0.01;
    r.n_sizes = 1;
    struct lb_size_result *s = &r.size[0];
    *s = (struct lb_size_result){.frame_size = 64, .tput = {1, 6e5, 9, 2}, .lat_trial = -1,
                                 .kernel_lat_trial = -1};
    s->mlr_ran[0] = 1;
    s->mlr[0][0] = (struct lb_mlr_goal_result){1, 6e5, 6.02e5, 0, 6e5, LB_MLR_BY_LOSS};
    s->mlr[0][1] = (struct lb_mlr_goal_result){0, 0, 1000, 0, 0, LB_MLR_BY_SENDER};
    s->mlr_probe[0] = (struct lb_mlr_probe){.ran = 1, .fps = 14880952, .duration = 2,
                                            .achieved_fps = 950000, .stall_s = 0.4,
                                            .reach_fps = 1187500,
                                            .reason = LB_INVALID_TX_SLOW, .margin = 0.2,
                                            .max_fps = 940500,
                                            .capped = 1};
    double v[3] = {6e5, 0, 5.8e5};
    s->rep_values[0] = malloc(sizeof(v));
    memcpy(s->rep_values[0], v, sizeof(v));
    lb_repeat_stats((double[]){6e5, 5.8e5}, 2, &s->rep[0]);
    s->rep[0].n = 3;
    s->rep[0].trials = 21;
    s->rep[0].invalid = 3;
    char *text = written(lb_write_json, &r);
    json_t *doc = parsed(text);
    char *dpdk = json_dumps(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
                                            "dpdk"), 0);
    assert_json_eq(dpdk, expected_mlr_dpdk);
    json_t *m = json_object_get(doc, "meta");
    ck_assert_str_eq(json_string_value(json_object_get(m, "search")), "mlr");
    ck_assert_int_eq(json_integer_value(json_object_get(m, "repeat")), 3);
    ck_assert_int_eq(json_array_size(json_object_get(m, "goals")), 2);
    free(dpdk);
    json_decref(doc);
    free(text);
    /* the table: the probe on its own line, each goal with what bounds it */
    text = written(lb_print_table, &r);
    ck_assert_msg(strstr(text, "        mlr     sender probe (not a search trial): asked 14.8810 "
                               "Mfps, achieved 0.9500 (1.1875 on its CPU), invalid tx_slow: max "
                               "load 0.9405 Mfps, its reach less the margin (20%)\n"), "%s", text);
    ck_assert_msg(strstr(text, "width 0.5%): conditional 0.6000 Mpps, bounds 0.6000 .. 0.6020, "
                               "loss-bound\n"), "%s", text);
    ck_assert_msg(strstr(text, "width 1%): none (0.0010 Mfps is an upper bound), sender-bound\n"),
                  "%s", text);
    free(text);
    lb_report_free(&r);
}
END_TEST

/*
 * One row a trial, the metadata repeated; the CPU model quoted with its
 * quotes doubled; loss_ratio %.6e; the latency columns empty when the trial
 * has none.
 */
static const char expected_csv[] =
    "date,dpdk_version,cpu_model,tx_driver,rx_driver,link_mbps,trial_s,path,mode,frame_size,reque"
    "sted_fps,achieved_fps,valid,sent,rx,unique,lost,dup,reordered,late,bursts,max_burst,loss_rat"
    "io,tx_refused,tx_nombuf,imissed,rx_nombuf,bad_checksum,unattributed,lat_min_ns,lat_p50_ns,la"
    "t_p90_ns,lat_p99_ns,lat_p99_9_ns,lat_p99_99_ns,lat_max_ns\n"
    "2026-01-02T03:04:05Z,DPDK 22.11.1,\"Test \"\"CPU\"\" \\ 2\tGHz <&>\",net_ring,net_memif,1000"
    "0,1,dpdk,throughput,64,1000000.0,999000.0,1,1000000,1000000,1000000,0,0,0,0,0,0,0.000000e+00"
    ",0,0,0,0,0,0,100,200,300,400,500,600,700\n"
    "2026-01-02T03:04:05Z,DPDK 22.11.1,\"Test \"\"CPU\"\" \\ 2\tGHz <&>\",net_ring,net_memif,1000"
    "0,1,dpdk,throughput,1518,812743.8,800000.0,0,812744,812741,812739,5,2,1,1,2,3,6.151999e-06,4"
    ",0,1,0,0,0,,,,,,,\n";


START_TEST(test_csv_known)
{
    struct lb_report r;

    known_report(&r);
    char *text = written(lb_write_csv, &r);
    assert_text_eq(text, expected_csv);
    free(text);
    lb_report_free(&r);
}
END_TEST

/*
 * The per-trial table: asked and achieved rate, intended length, loss
 * ratio, and validity with the reason and the time the sender stalled.
 */
static const char expected_trials[] =
    "\n"
    "   #  search  path    frame  phase              asked   achieved       s        loss  valid\n"
    "                      bytes                      Mpps       Mpps               ratio\n"
    "   0       0  dpdk       64  search            1.0000     0.9990    1.00   0.000e+00  yes\n"
    "   1       1  dpdk     1518  mlr g0 pre2       0.8127     0.8000    1.00   6.152e-06  NO "
    "tx_preempted (stalled 250.5 ms), retried\n";

START_TEST(test_trials_table)
{
    struct lb_report r;

    known_report(&r);
    char *text = written(lb_print_trials, &r);
    assert_text_eq(text, expected_trials);
    free(text);
    lb_report_free(&r);
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

/* The hint for a size whose every trial was invalid: the best achieved
 * rate, rounded down to two significant digits, as a --rate to try. */
START_TEST(test_rate_hint)
{
    struct lb_report r;
    char b[256] = "untouched";

    known_report(&r);
    ck_assert_int_eq(lb_rate_hint(&r, 64, "dpdk", b, sizeof(b)), 0);      /* trial 0 valid */
    ck_assert_int_eq(lb_rate_hint(&r, 1518, "kernel", b, sizeof(b)), 0);  /* no trial */
    ck_assert_str_eq(b, "untouched");
    ck_assert_int_eq(lb_rate_hint(&r, 1518, "dpdk", b, sizeof(b)), 1);
    ck_assert_str_eq(b, "loopback: every dpdk trial of 1518-byte frames was invalid: the sender "
                        "reached at most 0.8000 Mfps of the 0.8127 asked; try --rate 800kfps\n");
    r.trial[1].requested_fps = 7440476;
    r.trial[1].achieved_fps = 1379999;
    ck_assert_int_eq(lb_rate_hint(&r, 1518, "dpdk", b, sizeof(b)), 1);
    ck_assert_str_eq(b, "loopback: every dpdk trial of 1518-byte frames was invalid: the sender "
                        "reached at most 1.3800 Mfps of the 7.4405 asked; try --rate 1.3Mfps\n");
    r.trial[1].achieved_fps = 98765;
    ck_assert_int_eq(lb_rate_hint(&r, 1518, "dpdk", b, sizeof(b)), 1);
    ck_assert_ptr_nonnull(strstr(b, "; try --rate 98kfps\n"));
    r.trial[1].achieved_fps = 0.5;      /* nothing sent: no rate to suggest */
    ck_assert_int_eq(lb_rate_hint(&r, 1518, "dpdk", b, sizeof(b)), 0);
    lb_report_free(&r);
}
END_TEST

Suite *lb_json_suite(void);   /* called by check-main.c, which has no header */

Suite *lb_json_suite(void)
{
    Suite *s = suite_create("lb_json");
    TCase *tc = tcase_create("output");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_json_known);
    tcase_add_test(tc, test_json_b2b_kernel_loss);
    tcase_add_test(tc, test_json_empty);
    tcase_add_test(tc, test_json_mlr_repeat);
    tcase_add_test(tc, test_csv_known);
    tcase_add_test(tc, test_rate_hint);
    tcase_add_test(tc, test_trials_table);
    suite_add_tcase(s, tc);
    return s;
}
