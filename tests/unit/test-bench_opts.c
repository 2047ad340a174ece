/* SPDX-License-Identifier: BSD-3-Clause */
/* test-bench_opts.c - Check unit tests of `ebfarm bench`'s options: defaults, bounds, exact refusals. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "bench_opts.h"

static char err[256];

/* Parse a NULL-terminated list of arguments after "bench". */
#define PARSE(o, ...)                                                                      \
    ({                                                                                     \
        char *a_[] = {"bench", __VA_ARGS__, NULL};                                         \
        bench_opts_parse(o, (int)(sizeof(a_) / sizeof(a_[0])) - 1, a_, err, sizeof(err)); \
    })

START_TEST(test_defaults)
{
    struct bench_opts o;
    char *a[] = {"bench", NULL};
    ck_assert_int_eq(bench_opts_parse(&o, 1, a, err, sizeof(err)), 0);
    ck_assert_int_eq(o.format, BENCH_OUT_TABLE);
    ck_assert_int_eq(o.quick, 0);
    ck_assert_uint_eq(o.pairs, 5);
    ck_assert_uint_eq(o.frag_size, 1024);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_READOUT_TX), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_NODE_VERIFY), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CYCLES), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_LATENCY), 1);
}
END_TEST

/* latency: in a whole bench, not in --quick unless --only names it. */
START_TEST(test_latency_quick)
{
    struct bench_opts o;
    ck_assert_int_eq(PARSE(&o, "--quick"), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_LATENCY), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CAPACITY), 1);
    ck_assert_int_eq(PARSE(&o, "--quick", "--only", "latency"), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_LATENCY), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CYCLES), 0);
    ck_assert_str_eq(bench_case_name(BENCH_CASE_LATENCY), "latency");
}
END_TEST

START_TEST(test_values)
{
    struct bench_opts o;
    ck_assert_int_eq(PARSE(&o, "--quick", "--json", "--pairs", "7", "--frag-size", "64",
                           "--only", "node_verify"), 0);
    ck_assert_int_eq(o.quick, 1);
    ck_assert_int_eq(o.format, BENCH_OUT_JSON);
    ck_assert_uint_eq(o.pairs, 7);
    ck_assert_uint_eq(o.frag_size, 64);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_READOUT_TX), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_NODE_VERIFY), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CYCLES), 0);
    ck_assert_int_eq(PARSE(&o, "--only", "sfc_cycles", "--only", "readout_tx"), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_READOUT_TX), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_NODE_VERIFY), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CYCLES), 1);
    ck_assert_int_eq(PARSE(&o, "--csv", "--pairs", "100", "--frag-size", "1400"), 0);
    ck_assert_int_eq(o.format, BENCH_OUT_CSV);
    ck_assert_uint_eq(o.pairs, 100);
    ck_assert_uint_eq(o.frag_size, 1400);
    ck_assert_int_eq(o.sweeps, 1);
    ck_assert_ptr_null(o.svg_dir);
    ck_assert_int_eq(PARSE(&o, "--only", "sfc_capacity", "--no-sweeps", "--svg", "/tmp/p"), 0);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CAPACITY), 1);
    ck_assert_int_eq(bench_opts_wants(&o, BENCH_CASE_SFC_CYCLES), 0);
    ck_assert_int_eq(o.sweeps, 0);
    ck_assert_str_eq(o.svg_dir, "/tmp/p");
    ck_assert_ptr_null(o.huge_dir);
    ck_assert_int_eq(PARSE(&o, "--huge-dir", "/mnt/huge", "--quick"), 0);
    ck_assert_str_eq(o.huge_dir, "/mnt/huge");
    ck_assert_int_eq(o.quick, 1);
    ck_assert_int_eq(PARSE(&o, "--huge-dir"), -1);
    ck_assert_str_eq(err, "bench: option '--huge-dir' needs a value");
    ck_assert_int_eq(PARSE(&o, "--help"), 0);
    ck_assert_int_eq(o.help, 1);
}
END_TEST

START_TEST(test_refusals)
{
    struct bench_opts o;
    ck_assert_int_eq(PARSE(&o, "--pairs", "4"), -1);
    ck_assert_str_eq(err, "bench: option '--pairs': '4' is not an integer in 5..100");
    ck_assert_int_eq(PARSE(&o, "--pairs", "101"), -1);
    ck_assert_str_eq(err, "bench: option '--pairs': '101' is not an integer in 5..100");
    ck_assert_int_eq(PARSE(&o, "--frag-size", "1k"), -1);
    ck_assert_str_eq(err, "bench: option '--frag-size': '1k' is not an integer in 64..1400");
    ck_assert_int_eq(PARSE(&o, "--frag-size", "-1"), -1);
    ck_assert_str_eq(err, "bench: option '--frag-size': '-1' is not an integer in 64..1400");
    ck_assert_int_eq(PARSE(&o, "--only", "sfc"), -1);
    ck_assert_str_eq(err, "bench: option '--only': unknown case 'sfc' (readout_tx, node_verify, sfc_cycles, sfc_capacity, sfc_sampled, sfc_workers, latency)");
    ck_assert_int_eq(PARSE(&o, "--pairs"), -1);
    ck_assert_str_eq(err, "bench: option '--pairs' needs a value");
    ck_assert_int_eq(PARSE(&o, "--json", "--csv"), -1);
    ck_assert_str_eq(err, "bench: --json and --csv exclude each other; give one");
    ck_assert_int_eq(PARSE(&o, "--fast"), -1);
    ck_assert_str_eq(err, "bench: unknown option '--fast' (--help lists them)");
}
END_TEST

START_TEST(test_usage_lists_options)
{
    static const char *opts[] = {"--quick", "--pairs", "--frag-size", "--only", "--json",
                                 "--csv", "--huge-dir", "--help"};
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        ck_assert_msg(strstr(bench_usage, opts[i]), "usage lacks %s", opts[i]);
}
END_TEST

Suite *bench_opts_suite(void);

Suite *bench_opts_suite(void)
{
    Suite *s = suite_create("bench_opts");
    TCase *tc = tcase_create("bench_opts");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_values);
    tcase_add_test(tc, test_latency_quick);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_usage_lists_options);
    suite_add_tcase(s, tc);
    return s;
}
