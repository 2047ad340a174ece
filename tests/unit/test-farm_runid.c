/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_runid.c - run numbers kept across up and down, --run, UTC times in ISO 8601. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "farm_runid.h"

static char base[] = "/tmp/ebf-runid-XXXXXX";

static void setup(void)
{
    snprintf(base, sizeof(base), "/tmp/ebf-runid-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(base));
    ck_assert_int_eq(setenv("EBFARM_RUN_DIR", base, 1), 0);
}

static void teardown(void)
{
    char cmd[64];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static const char *file_text(const char *path)
{
    static char buf[64];
    FILE *f = fopen(path, "r");
    size_t n;

    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* 1, 2, then --run 17 and on from 18; a number given back once unused. */
START_TEST(test_counter)
{
    char path[600], want[600], err[512] = "";
    uint32_t run = 0, next = 0;

    farm_run_counter_path("f1", path, sizeof(path));
    snprintf(want, sizeof(want), "%s/f1.next-run", base);
    ck_assert_str_eq(path, want);
    ck_assert_int_eq(farm_run_next("f1", &next, err, sizeof(err)), 0);
    ck_assert_uint_eq(next, 1);
    ck_assert_int_eq(access(path, F_OK), -1);           /* reading makes no file */

    ck_assert_int_eq(farm_run_take("f1", 0, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 1);
    ck_assert_str_eq(file_text(path), "2\n");
    ck_assert_int_eq(farm_run_take("f1", 0, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 2);
    farm_run_give_back("f1", 2);                         /* no process took run 2 */
    ck_assert_str_eq(file_text(path), "2\n");
    farm_run_give_back("f1", 5);                         /* not the last one taken */
    ck_assert_str_eq(file_text(path), "2\n");
    ck_assert_int_eq(farm_run_take("f1", 17, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 17);
    ck_assert_int_eq(farm_run_take("f1", 0, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 18);
    ck_assert_str_eq(file_text(path), "19\n");
    /* Another farm counts on its own. */
    ck_assert_int_eq(farm_run_take("f2", 0, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 1);
    ck_assert_int_eq(farm_run_next("f1", &next, err, sizeof(err)), 0);
    ck_assert_uint_eq(next, 19);
}
END_TEST

/* A counter file that holds no run number is named with what it holds;
 * --run writes over it. The last number is FARM_RUN_MAX. */
START_TEST(test_bad_counter)
{
    static const char *const bad[] = {"abc\n", "0\n", "", "12 \n", "4294967296\n", "-3\n"};
    static const char *const shown[] = {"abc", "0", "", "12 ", "4294967296", "-3"};
    char path[600], want[900], err[512] = "";
    uint32_t run = 0, next = 0;

    farm_run_counter_path("f", path, sizeof(path));
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        put_file(path, bad[i]);
        ck_assert_int_eq(farm_run_next("f", &next, err, sizeof(err)), -1);
        snprintf(want, sizeof(want), "%s: \"%s\" is not a run number (1 to 4294967295); "
                 "correct it, or give the run with --run N", path, shown[i]);
        ck_assert_str_eq(err, want);
        ck_assert_int_eq(farm_run_take("f", 0, &run, err, sizeof(err)), -1);
        ck_assert_str_eq(err, want);
    }
    ck_assert_int_eq(farm_run_take("f", 5, &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 5);
    ck_assert_str_eq(file_text(path), "6\n");

    put_file(path, "4294967295\n");
    ck_assert_int_eq(farm_run_next("f", &next, err, sizeof(err)), 0);
    ck_assert_uint_eq(next, 4294967295u);
    ck_assert_int_eq(farm_run_take("f", 0, &run, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "farm 'f' has used every run number up to 4294967294; give the run "
                          "with --run N");
    ck_assert_int_eq(farm_run_take("f", FARM_RUN_MAX, &run, err, sizeof(err)), 0);
    ck_assert_str_eq(file_text(path), "4294967295\n");
}
END_TEST

/* A base directory that is a file: the counter cannot be written. */
START_TEST(test_unwritable)
{
    char file[600], want[800], err[512] = "";
    uint32_t run = 0;

    snprintf(file, sizeof(file), "%s/plain", base);
    put_file(file, "x");
    ck_assert_int_eq(setenv("EBFARM_RUN_DIR", file, 1), 0);
    ck_assert_int_eq(farm_run_take("f", 3, &run, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "the run directory %s is not a directory: refused (remove it, "
             "or set EBFARM_RUN_DIR to a directory of your own)", file);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(test_parse)
{
    static const char *const bad[] = {"0", "-1", "x", "", "4294967295", "1e3", " 5", "5\n", "+5",
                                      "99999999999999999999"};
    char err[256], want[300];
    uint32_t run = 0;

    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(farm_run_parse(bad[i], &run, err, sizeof(err)), -1);
        snprintf(want, sizeof(want), "--run: \"%s\" is not a run number (1 to 4294967294)",
                 bad[i]);
        ck_assert_str_eq(err, want);
    }
    ck_assert_int_eq(farm_run_parse("7", &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 7);
    ck_assert_int_eq(farm_run_parse("4294967294", &run, err, sizeof(err)), 0);
    ck_assert_uint_eq(run, 4294967294u);
}
END_TEST

START_TEST(test_utc)
{
    char buf[32];
    int64_t before = (int64_t)time(NULL) * 1000, now = farm_utc_now_ms();

    ck_assert_str_eq(farm_utc_iso(1748779200123, buf, sizeof(buf)), "2025-06-01T12:00:00.123Z");
    ck_assert_str_eq(farm_utc_iso(951782400000, buf, sizeof(buf)), "2000-02-29T00:00:00.000Z");
    ck_assert_str_eq(farm_utc_iso(1, buf, sizeof(buf)), "1970-01-01T00:00:00.001Z");
    ck_assert_str_eq(farm_utc_iso(0, buf, sizeof(buf)), "");
    ck_assert_str_eq(farm_utc_iso(-5, buf, sizeof(buf)), "");
    ck_assert_int_ge(now, before);
    ck_assert_int_lt(now, before + 2000);
}
END_TEST

Suite *farm_runid_suite(void);

Suite *farm_runid_suite(void)
{
    Suite *s = suite_create("farm_runid");
    TCase *tc = tcase_create("farm_runid");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_counter);
    tcase_add_test(tc, test_bad_counter);
    tcase_add_test(tc, test_unwritable);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_utc);
    suite_add_tcase(s, tc);
    return s;
}
