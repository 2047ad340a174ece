/* SPDX-License-Identifier: BSD-3-Clause */
/* test-soak_report.c - unit tests of the soak's report: the live line, JSON interval line, CSV columns, SVG plot and HTML page. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "soak_html.h"
#include "soak_report.h"
#include "test-snapshot.h"

static struct soak_interval iv[2];

static void two_intervals(void)
{
    memset(iv, 0, sizeof(iv));
    for (unsigned i = 0; i < 2; i++) {
        iv[i].index = i + 1;
        iv[i].t0 = 10.0 * i;
        iv[i].t1 = 10.0 * (i + 1);
        iv[i].generated = 200000;
        iv[i].decided = 199990;
        iv[i].lost = 10;
        iv[i].events_per_s = 20000;
        iv[i].frames_per_s = 160000;
        iv[i].in_flight = 0;
        iv[i].throttle_s = 0.25;
        soak_counts_add(&iv[i].d, "generated", 200000);
        soak_counts_add(&iv[i].d, "accepted", 20000);
        soak_counts_add(&iv[i].d, "rejected", 179990);
        soak_counts_add(&iv[i].d, "lost.withheld", 10);
        soak_counts_add(&iv[i].d, "reject.bad_checksum", 3);
        soak_counts_add(&iv[i].d, "missing.3", 7);
        iv[i].lat[SOAK_H_E2E] = (struct soak_pct){199990, 1000000, 2000000, 5000000, 7000000,
                                                  9000000};
        iv[i].n_mem = 1;
        iv[i].mem[0] = (struct soak_mem){"sfc<0>", 42, 2048, 160, 4096};
    }
}

START_TEST(test_live_line)
{
    char *text = NULL;

    two_intervals();
    CAPTURE(text, soak_live_line(m_, &iv[1]));
    ck_assert_str_eq(text, "[    20s] #2        20000 ev/s     160000 fr/s  decided 199990    "
                           "lost 10    incompl 0      in flight 0      (sfc 0    ) throttled  "
                           "0.25s  e2e p99    5.000 ms max    9.000 ms  rss    2.0 MB\n");
    free(text);
}
END_TEST

START_TEST(test_json_interval)
{
    char *text = NULL;

    two_intervals();
    CAPTURE(text, soak_json_interval(m_, &iv[0]));
    /* reals without trailing zeros: t0 and t1 have up to 3 decimals */
    ck_assert_ptr_nonnull(strstr(text, "{\"type\":\"interval\",\"index\":1,\"t0\":0.0,"
                                       "\"t1\":10.0,\"events_per_s\":20000.0,"));
    ck_assert_ptr_nonnull(strstr(text, "\"lost_by_reason\":{\"withheld\":10},\"rejects\":"
                                       "{\"bad_checksum\":3},\"drops\":{}"));
    ck_assert_ptr_nonnull(strstr(text, "\"missing_by_source\":{\"3\":7}"));
    ck_assert_ptr_nonnull(strstr(text, "\"e2e\":{\"count\":199990,\"p50\":1000000,\"p90\":2000000,"
                                       "\"p99\":5000000,\"p99_9\":7000000,\"max\":9000000}"));
    ck_assert_ptr_nonnull(strstr(text, "\"processes\":[{\"name\":\"sfc<0>\",\"pid\":42,"
                                       "\"rss_kb\":2048,\"mempool_in_use\":160,"
                                       "\"log_bytes\":4096}]}\n"));
    free(text);
}
END_TEST

/* With failover on, the live line is followed by the failover line and
 * the JSON line carries a "failover" member: the interval's counts, the
 * levels at its end; with it off, neither. */
START_TEST(test_failover_interval)
{
    char *text = NULL;

    two_intervals();
    CAPTURE(text, soak_json_interval(m_, &iv[1]));
    ck_assert_ptr_null(strstr(text, "failover"));
    free(text);
    iv[1].fo_on = 1;
    iv[1].replay_bytes = 2500000;
    iv[1].recover_s = 0.1375;
    soak_counts_add(&iv[1].d, SOAK_FO_DEATHS, 4);
    soak_counts_add(&iv[1].d, SOAK_FO_RECOVERIES, 4);
    soak_counts_add(&iv[1].d, SOAK_FO_REPLAYED, 5120);
    soak_counts_add(&iv[1].d, SOAK_FO_REDECIDED, 17);
    CAPTURE(text, soak_live_line(m_, &iv[1]));
    ck_assert_ptr_nonnull(strstr(text, "rss    2.0 MB\n         failover: SFC deaths seen 4, "
                                       "recovered 4 (sums over the readouts; last 137.5 ms, "
                                       "slowest readout), replayed 5120, redecided "
                                       "so far 17; replay buffer 2.5 MB (largest readout)\n"));
    free(text);
    CAPTURE(text, soak_json_interval(m_, &iv[1]));
    ck_assert_ptr_nonnull(strstr(text, "\"failover\":{\"sfc_deaths_seen\":4,\"recovered\":4,"
                                       "\"recover_last_s\":0.1375,\"replayed\":5120,"
                                       "\"redecided_marked\":17,\"replay_held_bytes\":2500000}}\n"));
    free(text);
}
END_TEST

/* The header line: one escaping for every string (a quote, a control
 * character; a byte that is not UTF-8 becomes '?'), reals as reals. */
START_TEST(test_json_header)
{
    char *text = NULL;
    struct soak_meta m = {.farm = "demo", .run = 3, .start_utc = "2026-11-27T05:00:00.000Z",
                          .farm_file = "/x/a\"b\t\xff.yaml", .duration_s = 60,
                          .interval_s = 0.5, .attached = 1};

    CAPTURE(text, soak_json_header(m_, &m));
    ck_assert_str_eq(text, "{\"type\":\"soak\",\"farm\":\"demo\",\"run\":3,\"start_utc\":"
                           "\"2026-11-27T05:00:00.000Z\",\"farm_file\":\"/x/a\\\"b\\t?.yaml\","
                           "\"farm_file_sha256\":\"\",\"duration_s\":60.0,\"interval_s\":0.5,"
                           "\"kill_node_every_s\":0.0,\"stall_nodes_every_s\":0.0,"
                           "\"attached\":true}\n");
    free(text);
}
END_TEST

/* Every CSV row has as many columns as the header. */
START_TEST(test_csv_columns)
{
    char *text = NULL;

    two_intervals();
    CAPTURE(text, (soak_csv_header(m_), soak_csv_row(m_, &iv[0]), soak_csv_row(m_, &iv[1])));
    char *l1 = text, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    unsigned c[3] = {0, 0, 0};
    for (char *p = l1; p < l2; p++)
        c[0] += *p == ',';
    for (char *p = l2; p < l3; p++)
        c[1] += *p == ',';
    for (char *p = l3; *p; p++)
        c[2] += *p == ',';
    ck_assert_uint_eq(c[0], c[1]);
    ck_assert_uint_eq(c[0], c[2]);
    ck_assert_uint_eq(c[0], 27 + 6 * SOAK_H_MAX);
    ck_assert(strncmp(text, "index,t0_s,t1_s,events_per_s,", 29) == 0);
    ck_assert(strncmp(l2, "1,0.000,10.000,20000.0,160000.0,200000,199990,20000,179990,10,0,0,"
                          "0,0,0,0,10,3,0,", 67) == 0);
    free(text);
}
END_TEST

/* A plot of two points: axes in their place, a point per value, a legend. */
START_TEST(test_svg_plot)
{
    char *text = NULL;
    const double x[] = {10, 20}, y[] = {0, 50};
    const struct soak_series s = {"lost", "#d62728", y, 0};

    CAPTURE(text, soak_svg_plot(m_, "T", "count", x, 2, &s, 1, 0));
    ck_assert(strncmp(text, "<svg xmlns='http://www.w3.org/2000/svg' width='760' height='260'",
                      64) == 0);
    /* x: 0..20 over 70..610 px; y: 0..52.5 over 224..28 px. */
    ck_assert_ptr_nonnull(strstr(text, "points='340.0,224.0 610.0,37.3 '"));
    ck_assert_ptr_nonnull(strstr(text, ">lost</text>"));
    ck_assert_ptr_nonnull(strstr(text, "</svg>\n"));
    free(text);
}
END_TEST

/* The legend as wide as its longest name (the page clipped "rejected/
 * dropped fram"); a bound drawn as a dotted line named in the legend, the
 * axis taken to include it; all-zero series as one line of text, not a
 * chart on a meaningless 0..1 axis. */
START_TEST(test_svg_legend_bound_zero)
{
    char *text = NULL;
    const double x[] = {10, 20}, y[] = {0, 50}, zero[] = {0, 0};
    const struct soak_series s = {"rejected/dropped frames", "#d62728", y, 0};
    const struct soak_series z[] = {{"lost", "#d62728", zero, 0}, {"incomplete", "#000", zero, 0}};

    CAPTURE(text, soak_svg_plot_bound(m_, "T", "ms", x, 2, &s, 1, 0, 100, "p99 bound 100 ms"));
    ck_assert(strncmp(text, "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1200 300' "
                            "width='100%'", 75) == 0);
    /* x: 0..20 over 70..995 px; y: 0..105 over 264..28 px. */
    ck_assert_ptr_nonnull(strstr(text, "points='532.5,264.0 995.0,151.6 '"));
    /* 23 characters: right margin 40 + 7.2 * 23 = 205 px, text from 1027 px. */
    ck_assert_ptr_nonnull(strstr(text, "<text x='1027' y='42' font-size='12'>rejected/dropped "
                                       "frames</text>"));
    /* y: 0..105 over 264..28 px: the bound at 264 - 100 / 105 * 236. */
    ck_assert_ptr_nonnull(strstr(text, "<line x1='70' x2='995' y1='39.2' y2='39.2' "
                                       "stroke='#c00' stroke-dasharray='2 3'/>"));
    ck_assert_ptr_nonnull(strstr(text, ">p99 bound 100 ms</text>"));
    free(text);
    CAPTURE(text, soak_svg_plot_bound(m_, "Losses", "count", x, 2, z, 2, 0, 0, NULL));
    ck_assert_str_eq(text, "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1200 48' "
                           "width='100%' font-family='sans-serif'>\n<text x='70' y='16' "
                           "font-size='14' font-weight='bold'>Losses</text>\n<text x='70' "
                           "y='38' font-size='12'>lost, incomplete: 0 in every interval</text>"
                           "\n</svg>\n");
    free(text);
}
END_TEST

START_TEST(test_html_page)
{
    char *text = NULL;
    struct soak_meta m = {.farm = "demo", .run = 3, .farm_file = "/x/a&b<c>.yaml",
                          .p99_bound_ms = 1000};
    struct soak_ledger_view l = {.f = {.closed = 1, .generated = 400000}};
    struct soak_verdict v = {.pass = 0};

    two_intervals();
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++)
        v.rule[i].pass = 1;
    v.rule[SOAK_RULE_LOSS_BUDGET].pass = 0;
    snprintf(v.rule[SOAK_RULE_LOSS_BUDGET].detail, sizeof(v.rule[0].detail), "lost a<b");
    CAPTURE(text, ck_assert_int_eq(soak_html_write(m_, &m, iv, 2, &l, &v), 0));
    unsigned svgs = 0;
    for (const char *p = strstr(text, "<svg"); p; p = strstr(p + 1, "<svg"))
        svgs++;
    ck_assert_uint_eq(svgs, 6);
    ck_assert_ptr_nonnull(strstr(text, "<h1>Soak of farm demo, run 3: <span class='fail'>FAIL"));
    ck_assert_ptr_nonnull(strstr(text, "farm file /x/a&amp;b&lt;c&gt;.yaml"));
    ck_assert_ptr_nonnull(strstr(text, "<td class='l'>loss_budget</td><td class='fail'>FAIL</td>"
                                       "<td class='l'>lost a&lt;b</td>"));
    ck_assert_ptr_nonnull(strstr(text, ">p99 bound 1000 ms</text>"));
    ck_assert_ptr_nonnull(strstr(text, "</body></html>\n"));
    free(text);
}
END_TEST

Suite *soak_report_suite(void);

Suite *soak_report_suite(void)
{
    Suite *s = suite_create("soak_report");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_live_line);
    tcase_add_test(tc, test_json_header);
    tcase_add_test(tc, test_json_interval);
    tcase_add_test(tc, test_failover_interval);
    tcase_add_test(tc, test_csv_columns);
    tcase_add_test(tc, test_svg_plot);
    tcase_add_test(tc, test_svg_legend_bound_zero);
    tcase_add_test(tc, test_html_page);
    suite_add_tcase(s, tc);
    return s;
}
