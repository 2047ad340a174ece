/* SPDX-License-Identifier: BSD-3-Clause */
/* test-bench_proc.c - Check unit tests of the bench's timed runs: exit status, output, SIGINT on time, kill on timeout, runtime directory removed. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_proc.h"
#include "check-main.h"

static char out[64], prefix[64], dir[512], err[512];

/* A fresh output path and a runtime directory for prefix that must be gone
 * after the run: named for the suite's runner, which removes it if a
 * failed check ends the test before its teardown. */
static void setup(void)
{
    snprintf(out, sizeof(out), "/tmp/test-bench-proc.%ld.log", (long)getpid());
    snprintf(prefix, sizeof(prefix), CHECK_EAL_PREFIX "%d-benchproc%ld", (int)check_runner_pid(),
             (long)getpid());
    bench_runtime_dir(prefix, dir, sizeof(dir));
    char parent[520];
    snprintf(parent, sizeof(parent), "%.*s", (int)(strrchr(dir, '/') - dir), dir);
    mkdir(parent, 0755);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    err[0] = '\0';
}

static void teardown(void)
{
    unlink(out);
    rmdir(dir);
}

static int run_sh(const char *script, double interrupt_after_s, double timeout_s)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    struct bench_proc_limits lim = {.interrupt_after_s = interrupt_after_s,
                                    .timeout_s = timeout_s};
    return bench_proc_run(argv, out, &lim, prefix, err, sizeof(err));
}

static void assert_dir_gone(void)
{
    ck_assert_int_ne(access(dir, F_OK), 0);
}

START_TEST(test_exit_zero_output)
{
    ck_assert_int_eq(run_sh("echo out; echo err >&2", 0, 10), 0);
    ck_assert_str_eq(err, "");
    char buf[64] = "";
    FILE *f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "out\nerr\n");
    assert_dir_gone();
}
END_TEST

START_TEST(test_exit_status)
{
    char want[600];
    ck_assert_int_eq(run_sh("exit 3", 0, 10), -1);
    snprintf(want, sizeof(want), "/bin/sh exited with status 3 (output: %s)", out);
    ck_assert_str_eq(err, want);
    assert_dir_gone();
}
END_TEST

/* A program that runs until stopped: SIGINT on time is its normal end. */
START_TEST(test_interrupt_on_time)
{
    ck_assert_int_eq(run_sh("exec sleep 30", 0.2, 10), 0);
    ck_assert_str_eq(err, "");
    assert_dir_gone();
}
END_TEST

/* One that ignores the SIGINT is killed at the timeout, and said so. */
START_TEST(test_timeout_kill)
{
    char want[600];
    ck_assert_int_eq(run_sh("trap '' INT; sleep 30", 0.1, 1), -1);
    snprintf(want, sizeof(want), "/bin/sh timed out after 1 s and was killed (output: %s)", out);
    ck_assert_str_eq(err, want);
    assert_dir_gone();
}
END_TEST

START_TEST(test_not_found)
{
    char *argv[] = {"/nonexistent/ebfarm-nothing", NULL};
    struct bench_proc_limits lim = {.timeout_s = 10};
    char want[600];
    ck_assert_int_eq(bench_proc_run(argv, out, &lim, prefix, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "/nonexistent/ebfarm-nothing exited with status 127 (output: %s)", out);
    ck_assert_str_eq(err, want);
    assert_dir_gone();
}
END_TEST

Suite *bench_proc_suite(void);

Suite *bench_proc_suite(void)
{
    Suite *s = suite_create("bench_proc");
    TCase *tc = tcase_create("bench_proc");
    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_exit_zero_output);
    tcase_add_test(tc, test_exit_status);
    tcase_add_test(tc, test_interrupt_on_time);
    tcase_add_test(tc, test_timeout_kill);
    tcase_add_test(tc, test_not_found);
    suite_add_tcase(s, tc);
    return s;
}
