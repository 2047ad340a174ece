/* SPDX-License-Identifier: BSD-3-Clause */
/* test-soak_verdict.c - unit tests of the soak's verdict: each criterion passing and failing with its detail, loss budgets, the report's lines. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "soak_report.h"
#include "soak_verdict.h"
#include "test-snapshot.h"

static struct soak_interval iv[3];
static struct soak_final fin;
static struct soak_bounds b;
static struct soak_verdict v;

/* A run of 3 intervals that passes every rule: 3000 generated, 2990
 * decided, 10 lost as withheld (budget 10); RSS flat within 1 MB; p99 2 ms. */
static void good_run(void)
{
    memset(iv, 0, sizeof(iv));
    memset(&fin, 0, sizeof(fin));
    for (unsigned i = 0; i < 3; i++) {
        iv[i].index = i + 1;
        iv[i].generated = 1000;
        iv[i].decided = i == 2 ? 990 : 1000;
        iv[i].lost = i == 2 ? 10 : 0;
        iv[i].lat[SOAK_H_E2E].count = 1000;
        iv[i].lat[SOAK_H_E2E].p99 = 2000000 + i;
        iv[i].n_mem = 2;
        iv[i].mem[0] = (struct soak_mem){"sfc0", 100, 200000 + 512 * i, 0, 0};
        iv[i].mem[1] = (struct soak_mem){"node0", 101, 70000, 0, 0};
    }
    fin.closed = 1;
    fin.generated = 3000;
    fin.decided = 2990;
    fin.lost_total = 10;
    soak_counts_add(&fin.lost, "withheld", 10);
    soak_counts_add(&fin.lost, "no_node", 0);
    fin.incomplete = 25;
    soak_counts_add(&fin.missing, "3", 20);
    soak_counts_add(&fin.missing, "5", 5);
    soak_bounds_default(&b);
    char err[256];
    ck_assert_int_eq(soak_bounds_loss(&b, "withheld=10", err, sizeof(err)), 0);
}

static void judge(void)
{
    soak_judge(&b, iv, 3, &fin, &v);
}

START_TEST(test_all_pass)
{
    good_run();
    judge();
    ck_assert_int_eq(v.pass, 1);
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++)
        ck_assert_msg(v.rule[i].pass, "%s: %s", soak_rule_name(i), v.rule[i].detail);
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].detail,
                     "3 intervals: generated 3000, decided 2990, lost 10");
    ck_assert_str_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].detail,
                     "largest RSS growth 1.0 MB by sfc0 (bound 64.0 MB)");
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVAL_P99].detail,
                     "end-to-end p99 2.000..2.000 ms over intervals, highest in interval 3; "
                     "0 above the bound 1000.000 ms");
    ck_assert_str_eq(v.rule[SOAK_RULE_LOSS_BUDGET].detail,
                     "lost 10, incomplete 25: within budget");
}
END_TEST

START_TEST(test_ledger_open)
{
    good_run();
    fin.closed = 0;
    judge();
    ck_assert_int_eq(v.pass, 0);
    ck_assert_int_eq(v.rule[SOAK_RULE_LEDGER_CLOSED].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_LEDGER_CLOSED].detail,
                     "generated 3000 = decided 2990 + lost 10: does NOT close");
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].pass, 1);
}
END_TEST

START_TEST(test_intervals_do_not_add_up)
{
    good_run();
    iv[1].generated = 999;
    iv[2].lost = 9;
    judge();
    ck_assert_int_eq(v.pass, 0);
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].detail,
                     "generated: intervals 2999, ledger 3000; lost: intervals 9, ledger 10");
}
END_TEST

/* A soak that attached: the intervals add up to the ledger less what the
 * run had counted before the first sample. */
START_TEST(test_attached_base)
{
    good_run();
    fin.generated += 500;
    fin.decided += 490;
    fin.lost_total += 10;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].pass, 0);
    fin.base_generated = 500;
    fin.base_decided = 490;
    fin.base_lost = 10;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].pass, 1);
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVALS_ADD_UP].detail,
                     "3 intervals and what came before them: generated 3500, decided 3480, "
                     "lost 20");
}
END_TEST

START_TEST(test_loss_over_budget)
{
    char err[256];

    good_run();
    ck_assert_int_eq(soak_bounds_loss(&b, "withheld=9", err, sizeof(err)), 0);
    ck_assert_uint_eq(soak_budget_of(&b, "withheld"), 9);   /* the later one wins */
    judge();
    ck_assert_int_eq(v.pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_LOSS_BUDGET].detail, "lost withheld 10 > budget 9");
    /* Budget 0 for everything, incomplete included: both named, with the
     * source most often missing. */
    good_run();
    ck_assert_int_eq(soak_bounds_loss(&b, "0", err, sizeof(err)), 0);
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_LOSS_BUDGET].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_LOSS_BUDGET].detail,
                     "lost withheld 10 > budget 0; incomplete 25 > budget 0 "
                     "(most often missing: source 3, 20 events)");
    /* Incomplete alone. */
    good_run();
    ck_assert_int_eq(soak_bounds_loss(&b, "incomplete=24", err, sizeof(err)), 0);
    judge();
    ck_assert_str_eq(v.rule[SOAK_RULE_LOSS_BUDGET].detail,
                     "incomplete 25 > budget 24 (most often missing: source 3, 20 events)");
    ck_assert_int_eq(soak_bounds_loss(&b, "incomplete=25", err, sizeof(err)), 0);
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_LOSS_BUDGET].pass, 1);
}
END_TEST

START_TEST(test_loss_spec_refused)
{
    static const char *const bad[] = {"", "x", "-1", "no_node", "no_node=", "=3", "no_node=3x",
                                      "no_node=1,,", "a=1,b"};
    char err[256];

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        soak_bounds_default(&b);
        ck_assert_msg(soak_bounds_loss(&b, bad[i], err, sizeof(err)) == -1, "took \"%s\"", bad[i]);
    }
    ck_assert_int_eq(soak_bounds_loss(&b, "no_node=3x", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "option '--max-loss': \"no_node=3x\" is not REASON=N (a lost reason "
                          "such as no_node or withheld, or incomplete, and a count)");
    ck_assert_int_eq(soak_bounds_loss(&b, "x", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "option '--max-loss': \"x\" is not a count, nor a list of REASON=N");
    soak_bounds_default(&b);
    ck_assert_int_eq(soak_bounds_loss(&b, "no_node=3,incomplete=7", err, sizeof(err)), 0);
    ck_assert_uint_eq(soak_budget_of(&b, "no_node"), 3);
    ck_assert_uint_eq(soak_budget_of(&b, "incomplete"), 7);
    ck_assert_uint_eq(soak_budget_of(&b, "withheld"), 0);
    soak_bounds_default(&b);
    ck_assert_uint_eq(soak_budget_of(&b, "incomplete"), SOAK_NO_LIMIT);
}
END_TEST

START_TEST(test_memory_growth)
{
    good_run();
    iv[2].mem[1].rss_kb = 70000 + 65 * 1024;     /* node0: 65 MB over the first interval */
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].detail,
                     "largest RSS growth 65.0 MB by node0 (bound 64.0 MB)");
    /* A new incarnation (another pid) is measured from the process's first
     * sample too: 65 MB above it is growth ... */
    iv[2].mem[1].pid = 202;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].detail,
                     "largest RSS growth 65.0 MB by node0 (bound 64.0 MB)");
    /* ... its warm-up is not: sampled at 1 MB just after its start, then
     * back at the first incarnation's level and 1 MB more */
    iv[1].mem[1].pid = 202;
    iv[1].mem[1].rss_kb = 1024;
    iv[2].mem[1].rss_kb = 70000 + 1024;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].pass, 1);
    ck_assert_str_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].detail,
                     "largest RSS growth 1.0 MB by sfc0 (bound 64.0 MB)");
    /* Gone (pid 0) is not growth either. */
    iv[2].mem[1].pid = 0;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_MEMORY_GROWTH].pass, 1);
}
END_TEST

START_TEST(test_interval_p99)
{
    good_run();
    iv[1].lat[SOAK_H_E2E].p99 = 1000000001;      /* 1000.000001 ms */
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVAL_P99].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVAL_P99].detail,
                     "end-to-end p99 2.000..1000.000 ms over intervals, highest in interval 2; "
                     "1 above the bound 1000.000 ms");
    iv[1].lat[SOAK_H_E2E].p99 = 1000000000;      /* at the bound: passes */
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVAL_P99].pass, 1);
    for (unsigned i = 0; i < 3; i++)
        iv[i].lat[SOAK_H_E2E].count = 0;
    judge();
    ck_assert_int_eq(v.rule[SOAK_RULE_INTERVAL_P99].pass, 1);
    ck_assert_str_eq(v.rule[SOAK_RULE_INTERVAL_P99].detail,
                     "no end-to-end latency recorded (bound 1000.000 ms)");
}
END_TEST

START_TEST(test_restart)
{
    good_run();
    fin.restarts = 1;
    snprintf(fin.restart_note, sizeof(fin.restart_note), "node1 exited");
    judge();
    ck_assert_int_eq(v.pass, 0);
    ck_assert_int_eq(v.rule[SOAK_RULE_NO_RESTART].pass, 0);
    ck_assert_str_eq(v.rule[SOAK_RULE_NO_RESTART].detail, "1 unasked: node1 exited");
}
END_TEST

START_TEST(test_verdict_text_and_json)
{
    char *text = NULL;

    good_run();
    fin.closed = 0;
    fin.restarts = 2;
    judge();
    CAPTURE(text, soak_verdict_text(m_, &v, NULL));
    ck_assert_ptr_nonnull(strstr(text, "verdict: FAIL (ledger_closed, no_restart)\n"));
    free(text);
    CAPTURE(text, soak_verdict_text(m_, &v, "14 of 60 s"));
    static const char cut[] = "verdict: INTERRUPTED after 14 of 60 s (the part run: FAIL "
                              "(ledger_closed, no_restart))\n";
    ck_assert_msg(strncmp(text, cut, strlen(cut)) == 0, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, "  ok   loss_budget       lost 10, incomplete 25: within "
                                       "budget\n"));
    free(text);
    struct soak_meta m = {.farm = "demo", .run = 4};
    struct soak_ledger_view l = {.f = fin, .accepted = 300, .rejected = 2690};
    CAPTURE(text, soak_json_summary(m_, &m, &l, &b, &v));
    ck_assert_ptr_nonnull(strstr(text, "\"verdict\":{\"result\":\"fail\",\"criteria\":["
                                       "{\"name\":\"ledger_closed\",\"pass\":false,"));
    ck_assert_ptr_nonnull(strstr(text, "\"failed\":[\"ledger_closed\",\"no_restart\"]}}\n"));
    ck_assert_ptr_nonnull(strstr(text, "\"lost\":{\"withheld\":10,\"no_node\":0}"));
    ck_assert_ptr_nonnull(strstr(text, "\"missing_by_source\":{\"3\":20,\"5\":5}"));
    ck_assert_ptr_nonnull(strstr(text, "\"bounds\":{\"loss_default\":0,\"incomplete\":null,"
                                       "\"loss\":{\"withheld\":10},\"rss_growth_mb\":64.0,"
                                       "\"p99_ms\":1000.0}"));
    free(text);
}
END_TEST

Suite *soak_verdict_suite(void);
Suite *soak_verdict_suite(void)
{
    Suite *s = suite_create("soak_verdict");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_all_pass);
    tcase_add_test(tc, test_ledger_open);
    tcase_add_test(tc, test_intervals_do_not_add_up);
    tcase_add_test(tc, test_attached_base);
    tcase_add_test(tc, test_loss_over_budget);
    tcase_add_test(tc, test_loss_spec_refused);
    tcase_add_test(tc, test_memory_growth);
    tcase_add_test(tc, test_interval_p99);
    tcase_add_test(tc, test_restart);
    tcase_add_test(tc, test_verdict_text_and_json);
    suite_add_tcase(s, tc);
    return s;
}
