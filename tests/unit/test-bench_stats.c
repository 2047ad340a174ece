/* SPDX-License-Identifier: BSD-3-Clause */
/* test-bench_stats.c - Check unit tests of the bench's spreads, ratios and its table, JSON and CSV output. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cap.h"
#include "bench_report.h"
#include "bench_stats.h"

START_TEST(test_spread_odd_even)
{
    double v[] = {5, 1, 4, 2, 3};
    struct bench_spread s;
    ck_assert_int_eq(bench_spread_of(v, 5, &s), 0);
    ck_assert(s.median == 3 && s.min == 1 && s.max == 5);
    ck_assert(v[0] == 5 && v[1] == 1); /* not reordered */
    ck_assert_int_eq(bench_spread_of(v, 4, &s), 0); /* 5 1 4 2: median (2 + 4) / 2 */
    ck_assert(s.median == 3 && s.min == 1 && s.max == 5);
    ck_assert_int_eq(bench_spread_of(v, 0, &s), 0);
    ck_assert(s.median == 0 && s.min == 0 && s.max == 0);
    ck_assert_int_eq(bench_spread_of(v, BENCH_MAX_PAIRS + 1, &s), -1);
}
END_TEST

START_TEST(test_ratios_per_pair)
{
    double s[] = {2, 9, 1}, r[] = {4, 3, 0}, q[3];
    bench_ratios(s, r, 3, q);
    ck_assert(q[0] == 0.5 && q[1] == 3 && q[2] == 0);
}
END_TEST

/* The ratio's median is the median of the pairs' ratios, not the ratio
 * of the medians. */
START_TEST(test_result_set)
{
    double s[] = {1, 10, 100, 4, 6}, ref[] = {2, 5, 50, 8, 12};
    struct bench_result r;
    bench_result_set(&r, "readout_tx", "frames/s", "testpmd_txonly", s, ref, 5);
    ck_assert_str_eq(r.name, "readout_tx");
    ck_assert_str_eq(r.unit, "frames/s");
    ck_assert_str_eq(r.reference, "testpmd_txonly");
    ck_assert_uint_eq(r.pairs, 5);
    ck_assert(r.value.median == 6 && r.value.min == 1 && r.value.max == 100);
    ck_assert(r.reference_value.median == 8 && r.reference_value.min == 2);
    ck_assert(r.ratio.median == 0.5 && r.ratio.min == 0.5 && r.ratio.max == 2);
}
END_TEST

static const struct bench_meta meta = {
    .cpu_model = "Xeon \"X\"", .cpu_mhz = 2600, .cpus = 2, .dpdk_version = "22.11.11",
    .driver = "net_null",        /* quoted in CSV: the bench's own names a second driver after a comma */ .frame_size = 1078, .frag_size = 1024, .pairs = 5, .quick = 1,
    .date = "2026-11-23T17:00:00Z",
};

/* What f() writes for meta and two results, in a static buffer. */
static const char *render(void (*f)(FILE *, const struct bench_meta *,
                                    const struct bench_result *, size_t))
{
    static char buf[4096];
    double s[] = {1, 2, 3, 4, 5}, ref[] = {2, 4, 6, 8, 10};
    struct bench_result r[2];
    bench_result_set(&r[0], "a", "frames/s", "ref_a", s, ref, 5);
    bench_result_set(&r[1], "b", "bytes/s", "ref_b", ref, s, 5);
    FILE *mem = fmemopen(buf, sizeof(buf), "w");
    ck_assert_ptr_nonnull(mem);
    f(mem, &meta, r, 2);
    fclose(mem);
    return buf;
}

START_TEST(test_json_exact)
{
    /* Every real is a real, whole ones too (3.0, not 3); six significant
     * digits, and cpu_mhz three decimals, written without trailing zeros. */
    ck_assert_str_eq(render(bench_print_json),
                     "{\"meta\":{\"cpu_model\":\"Xeon \\\"X\\\"\",\"cpu_mhz\":2600.0,\"cpus\":2,"
                     "\"dpdk_version\":\"22.11.11\",\"driver\":\"net_null\",\"frame_size\":1078,"
                     "\"frag_size\":1024,\"pairs\":5,\"quick\":true,\"rig_hugepages\":false,"
                     "\"date\":\"2026-11-23T17:00:00Z\"},\"results\":["
                     "{\"name\":\"a\",\"value\":3.0,\"unit\":\"frames/s\",\"reference\":\"ref_a\","
                     "\"reference_value\":6.0,\"ratio\":0.5,\"pairs\":5,\"value_min\":1.0,"
                     "\"value_max\":5.0,\"reference_value_min\":2.0,\"reference_value_max\":10.0,"
                     "\"ratio_min\":0.5,\"ratio_max\":0.5},"
                     "{\"name\":\"b\",\"value\":6.0,\"unit\":\"bytes/s\",\"reference\":\"ref_b\","
                     "\"reference_value\":3.0,\"ratio\":2.0,\"pairs\":5,\"value_min\":2.0,"
                     "\"value_max\":10.0,\"reference_value_min\":1.0,\"reference_value_max\":5.0,"
                     "\"ratio_min\":2.0,\"ratio_max\":2.0}]}\n");
}
END_TEST

/* A result with a placement question: "pinned" and its note in the result,
 * the note in meta too, and under the table. */
START_TEST(test_pinned_note)
{
    static char buf[4096];
    double s[] = {1, 2, 3, 4, 5}, ref[] = {2, 4, 6, 8, 10};
    struct bench_result r[2];
    bench_result_set(&r[0], "a", "us", "ref_a", s, ref, 5);
    bench_result_set(&r[1], "b", "us", "ref_b", s, ref, 5);
    ck_assert_int_eq(r[0].pinned, -1);
    r[0].pinned = 0;
    snprintf(r[0].note, sizeof(r[0].note), "2 CPUs, 4 needed");
    r[1].pinned = 1;
    FILE *mem = fmemopen(buf, sizeof(buf), "w");
    bench_print_json(mem, &meta, r, 2);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(buf, "\"date\":\"2026-11-23T17:00:00Z\",\"notes\":"
                                      "[\"a: 2 CPUs, 4 needed\"]},\"results\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"ratio_max\":0.5,\"pinned\":false,"
                                      "\"note\":\"2 CPUs, 4 needed\"},{\"name\":\"b\""));
    ck_assert_ptr_nonnull(strstr(buf, "\"ratio_max\":0.5,\"pinned\":true}]}\n"));
    mem = fmemopen(buf, sizeof(buf), "w");
    bench_print_table(mem, &meta, r, 2);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(buf, "0.500 [0.500-0.500]  (not pinned)\nb "));
    ck_assert_ptr_nonnull(strstr(buf, "\nnote: a: 2 CPUs, 4 needed\n"));
}
END_TEST

/* The sweeps as the last key: x an integer, the figures six significant
 * digits, the fixed parameter under its name (frag_size when sources are swept),
 * each point's MTU, runs and the min-max of its runs. */
START_TEST(test_sweeps_json)
{
    static char buf[4096];
    struct bench_sweep sw = {.name = "sfc_sources", .x_name = "sources", .fixed = 1024,
                             .n = 2, .x = {1, 128}, .mtu = {1500, 9000}, .runs = 3};
    sw.y[0] = (struct bench_cap_run){6264012.7, 350.25, 51.3145, 6e6};
    sw.y[1] = (struct bench_cap_run){1e6, 2000, 8.192, 1e6};
    sw.lo[0] = (struct bench_cap_run){6e6, 340, 49.152, 5.5e6};
    sw.hi[0] = (struct bench_cap_run){6.5e6, 360, 53.248, 6.5e6};
    sw.lo[1] = sw.hi[1] = sw.y[1];
    FILE *mem = fmemopen(buf, sizeof(buf), "w");
    bench_print_json_with(mem, &meta, NULL, 0, bench_sweeps_json(&sw, 1));
    fclose(mem);
    ck_assert_msg(strstr(buf, "\"results\":[],\"sweeps\":[{\"name\":\"sfc_sources\",\"x\":"
                              "\"sources\",\"frag_size\":1024,\"points\":[{\"x\":1,"
                              "\"frames_per_busy_s\":6264010.0,\"payload_gbit_per_busy_s\":51.3145,"
                              "\"cycles_per_frame\":350.25,\"frames_per_wall_s\":6000000.0,"
                              "\"mtu\":1500,\"runs\":3,\"frames_per_busy_s_min\":6000000.0,"
                              "\"frames_per_busy_s_max\":6500000.0,"
                              "\"payload_gbit_per_busy_s_min\":49.152,"
                              "\"payload_gbit_per_busy_s_max\":53.248,"
                              "\"frames_per_wall_s_min\":5500000.0,"
                              "\"frames_per_wall_s_max\":6500000.0},"
                              "{\"x\":128,\"frames_per_busy_s\":1000000.0,"
                              "\"payload_gbit_per_busy_s\":8.192,\"cycles_per_frame\":2000.0,"
                              "\"frames_per_wall_s\":1000000.0,\"mtu\":9000,\"runs\":3,"
                              "\"frames_per_busy_s_min\":1000000.0,"
                              "\"frames_per_busy_s_max\":1000000.0,"
                              "\"payload_gbit_per_busy_s_min\":8.192,"
                              "\"payload_gbit_per_busy_s_max\":8.192,"
                              "\"frames_per_wall_s_min\":1000000.0,"
                              "\"frames_per_wall_s_max\":1000000.0}]}]}\n") != NULL, "%s", buf);
}
END_TEST

START_TEST(test_csv_exact)
{
    ck_assert_str_eq(render(bench_print_csv),
                     "name,value,unit,reference,reference_value,ratio,pairs,value_min,value_max,"
                     "reference_value_min,reference_value_max,ratio_min,ratio_max,"
                     "cpu_model,cpu_mhz,dpdk_version,driver,frame_size,date\n"
                     "a,3,frames/s,ref_a,6,0.5,5,1,5,2,10,0.5,0.5,\"Xeon \"\"X\"\"\",2600.000,"
                     "22.11.11,\"net_null\",1078,2026-11-23T17:00:00Z\n"
                     "b,6,bytes/s,ref_b,3,2,5,2,10,1,5,2,2,\"Xeon \"\"X\"\"\",2600.000,"
                     "22.11.11,\"net_null\",1078,2026-11-23T17:00:00Z\n");
}
END_TEST

START_TEST(test_table_rows)
{
    const char *t = render(bench_print_table);
    ck_assert_ptr_nonnull(strstr(t, "ebfarm bench --quick, 2026-11-23T17:00:00Z\n"));
    ck_assert_ptr_nonnull(strstr(t, "DPDK 22.11.11; driver net_null\n"));
    ck_assert_ptr_nonnull(strstr(t, "fragment 1024 B, frame 1078 B; 5 pairs"));
    ck_assert_ptr_nonnull(strstr(t, "alternated); in-process rigs on 4 KiB pages; median"));
    ck_assert_ptr_nonnull(strstr(t, "3 [1-5]"));
    ck_assert_ptr_nonnull(strstr(t, "0.500 [0.500-0.500]\n"));
    ck_assert_ptr_nonnull(strstr(t, "2.000 [2.000-2.000]\n"));
}
END_TEST

/* sfc_cycles' link split: the pair that did not tell (the fifth) left
 * out; medians of the pairs, not ratios of medians. */
START_TEST(test_link_split)
{
    static char buf[4096];
    double s[] = {1000, 1200, 900, 1200, 1000}, ref[] = {200, 256, 100, 400, 200};
    double rx[] = {150, 160, 140, 150, 0}, tx[] = {250, 240, 260, 250, 0};
    struct bench_result r;
    bench_result_set(&r, "c", "cycles/frame", "ref_c", s, ref, 5);
    bench_result_link(&r, s, ref, rx, tx, 5);
    ck_assert_int_eq(r.link, 1);
    ck_assert(r.link_rx.median == 150 && r.link_tx.median == 250 && r.link_all.median == 400);
    ck_assert(r.own.median == 700 && r.own.min == 500 && r.own.max == 800);
    ck_assert(r.like.median == 3.75 && r.like.min == 2.375 && r.like.max == 6.4);
    ck_assert(r.own_ratio.median == 3.0625 && r.own_ratio.min == 2 && r.own_ratio.max == 5);
    FILE *mem = fmemopen(buf, sizeof(buf), "w");
    bench_print_json(mem, &meta, &r, 1);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(buf, "\"ratio_max\":9.0,\"link_cycles_per_frame\":400.0,"
                                      "\"link_rx_cycles_per_frame\":150.0,"
                                      "\"link_tx_cycles_per_frame\":250.0,"
                                      "\"own_cycles_per_frame\":700.0,"
                                      "\"like_for_like_ratio\":3.75,"
                                      "\"like_for_like_ratio_min\":2.375,"
                                      "\"like_for_like_ratio_max\":6.4,\"own_ratio\":3.0625,"
                                      "\"own_ratio_min\":2.0,\"own_ratio_max\":5.0}]}\n"));
    mem = fmemopen(buf, sizeof(buf), "w");
    bench_print_table(mem, &meta, &r, 1);
    fclose(mem);
    ck_assert_ptr_nonnull(strstr(buf, "\nlink split: c 1000 cycles/frame: link copies 400 "
                                      "(receive 150, transmit 250), own 700 (medians of the "
                                      "pairs)\n"
                                      "link split: c less its transmit copy over ref_c (one "
                                      "receive copy each) 3.750 [2.375-6.400]; own over "
                                      "ref_c's whole 3.062 [2.000-5.000]\n"));
    double none[] = {0, 0, 0, 0, 0};
    bench_result_link(&r, s, ref, none, none, 5);   /* no run told: no split */
    ck_assert_int_eq(r.link, 0);
}
END_TEST

Suite *bench_stats_suite(void);

Suite *bench_stats_suite(void)
{
    Suite *s = suite_create("bench_stats");
    TCase *tc = tcase_create("bench_stats");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_spread_odd_even);
    tcase_add_test(tc, test_ratios_per_pair);
    tcase_add_test(tc, test_result_set);
    tcase_add_test(tc, test_json_exact);
    tcase_add_test(tc, test_sweeps_json);
    tcase_add_test(tc, test_csv_exact);
    tcase_add_test(tc, test_pinned_note);
    tcase_add_test(tc, test_table_rows);
    tcase_add_test(tc, test_link_split);
    suite_add_tcase(s, tc);
    return s;
}
