/* SPDX-License-Identifier: BSD-3-Clause */
/* test-eal_leftover.c - a dpdk-suite test that fails, crashes, times out or is interrupted after rte_eal_init leaves no EAL runtime directory: this program runs itself as such a suite and checks what it left. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>

#include "check-main.h"
#include "test-eal.h"

/* Set in the environment of this program run as the inner suite: "end"
 * (four tests that end badly) or "hang" (one test that waits to be
 * interrupted). */
#define INNER_ENV "EBF_EAL_LEFTOVER"

/* An inner run's stdout and stderr (Check's report, the runtime
 * directories its tests printed) and its wait status. */
struct inner {
    pid_t pid;
    char out[64];
    char text[8192];
    int status;
};

/* Starts EAL (test_eal_init), checks that its runtime directory exists and
 * prints "dir <path>" for the outer test. */
static void inner_start(void)
{
    struct stat sb;

    test_eal_init();
    ck_assert_int_eq(stat(rte_eal_get_runtime_dir(), &sb), 0);
    printf("dir %s\n", rte_eal_get_runtime_dir());
    fflush(stdout);
}

START_TEST(inner_fail)
{
    inner_start();
    ck_assert_int_eq(1, 2);
}
END_TEST

START_TEST(inner_segv)
{
    inner_start();
    raise(SIGSEGV);
}
END_TEST

START_TEST(inner_abort)
{
    inner_start();
    abort();
}
END_TEST

START_TEST(inner_wait)
{
    inner_start();
    for (;;)
        pause();
}
END_TEST

/* The inner suite of MODE ("end" or "hang"). */
static Suite *inner_suite(const char *mode)
{
    Suite *s = suite_create("leftover");
    TCase *end = tcase_create("end");
    TCase *hang = tcase_create("hang");

    if (strcmp(mode, "hang") == 0) {
        tcase_set_timeout(hang, 30);
        tcase_add_test(hang, inner_wait);
        suite_add_tcase(s, hang);
        return s;
    }
    tcase_set_timeout(end, 4);
    tcase_add_test(end, inner_fail);
    tcase_add_test(end, inner_segv);
    tcase_add_test(end, inner_abort);
    tcase_add_test(end, inner_wait);
    suite_add_tcase(s, end);
    return s;
}

/* Starts this program as the inner suite MODE in its own process group
 * (as a shell starts a job), its output into a fresh file. */
static void inner_spawn(struct inner *in, const char *mode)
{
    snprintf(in->out, sizeof(in->out), "/tmp/ebft-leftover%d.out", (int)getpid());
    in->text[0] = '\0';
    in->pid = fork();
    ck_assert_int_ge(in->pid, 0);
    if (in->pid == 0) {
        FILE *f = freopen(in->out, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0 || setpgid(0, 0) < 0)
            _exit(127);
        setenv(INNER_ENV, mode, 1);
        setenv("CK_FORK", "yes", 1);
        unsetenv("CK_RUN_CASE");
        unsetenv("CK_RUN_SUITE");
        unsetenv("CK_TIMEOUT_MULTIPLIER");
        execl("/proc/self/exe", "test-eal_leftover", (char *)NULL);
        _exit(127);
    }
    setpgid(in->pid, in->pid);
}

/* Reads the inner run's output so far into in->text. */
static void inner_read(struct inner *in)
{
    FILE *f = fopen(in->out, "r");
    size_t n = 0;

    if (f) {
        n = fread(in->text, 1, sizeof(in->text) - 1, f);
        fclose(f);
    }
    in->text[n] = '\0';
}

/* Waits for the inner run to end; its status and output into in. */
static void inner_end(struct inner *in)
{
    ck_assert_int_eq(waitpid(in->pid, &in->status, 0), in->pid);
    inner_read(in);
    unlink(in->out);
}

/* Checks the "dir" lines of the inner run: N of them, each a runtime
 * directory named for the inner runner (ebft<pid>-t...), each gone, and
 * nothing left under that runner's name. */
static void assert_dirs_gone(const struct inner *in, unsigned n)
{
    char base[256], want[352], name[64];
    unsigned seen = 0;
    struct stat sb;
    struct dirent *e;

    check_runtime_base(base, sizeof(base));
    snprintf(name, sizeof(name), CHECK_EAL_PREFIX "%d-", (int)in->pid);
    snprintf(want, sizeof(want), "dir %s/%st", base, name);
    for (const char *p = strstr(in->text, "dir "); p; p = strstr(p + 1, "\ndir ")) {
        char path[256];
        if (*p == '\n')
            p++;
        ck_assert_msg(strncmp(p, want, strlen(want)) == 0, "%s", in->text);
        ck_assert_int_eq(sscanf(p, "dir %255s", path), 1);
        ck_assert_msg(stat(path, &sb) != 0, "%s left behind", path);
        seen++;
    }
    ck_assert_msg(seen == n, "%u directories, not %u:\n%s", seen, n, in->text);
    DIR *d = opendir(base);
    while (d && (e = readdir(d)) != NULL)
        ck_assert_msg(strncmp(e->d_name, name, strlen(name)) != 0, "%s/%s left", base, e->d_name);
    if (d)
        closedir(d);
}

/* A failed check, SIGSEGV, abort() and Check's timeout after EAL started:
 * all four reported, and the runner removed the four directories. */
START_TEST(test_ended)
{
    struct inner in;
    inner_spawn(&in, "end");
    inner_end(&in);
    ck_assert_msg(WIFEXITED(in.status) && WEXITSTATUS(in.status) == 1, "status %#x:\n%s",
                  in.status, in.text);
    static const char *const want[] = {
        "0%: Checks: 4, Failures: 1, Errors: 3\n",
        ":F:end:inner_fail:0: Assertion '1 == 2' failed: 1 == 1, 2 == 2\n",
        ":E:end:inner_segv:0: (after this point) Received signal 11 (Segmentation fault)\n",
        ":E:end:inner_abort:0: (after this point) Received signal 6 (Aborted)\n",
        ":E:end:inner_wait:0: (after this point) Test timeout expired\n",
        "removed 4 EAL runtime directories its tests left\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        ck_assert_msg(strstr(in.text, want[i]) != NULL, "no '%s' in:\n%s", want[i], in.text);
    assert_dirs_gone(&in, 4);
}
END_TEST

/* Ctrl-C (SIGINT to the process group) and meson's SIGTERM while a test
 * runs under EAL: the run ends by that signal, its directory removed. */
START_TEST(test_interrupted)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    struct inner in;
    struct timespec nap = {0, 20 * 1000 * 1000};

    inner_spawn(&in, "hang");
    for (unsigned i = 0; i < 500 && !strstr(in.text, "dir "); i++) {
        nanosleep(&nap, NULL);
        inner_read(&in);
    }
    ck_assert_msg(strstr(in.text, "dir ") != NULL, "no EAL within 10 s:\n%s", in.text);
    ck_assert_int_eq(kill(-in.pid, sigs[_i]), 0);
    inner_end(&in);
    ck_assert_msg(WIFSIGNALED(in.status) && WTERMSIG(in.status) == sigs[_i], "status %#x:\n%s",
                  in.status, in.text);
    ck_assert_msg(strstr(in.text, "removed 1 EAL runtime directory its tests left\n") != NULL,
                  "%s", in.text);
    assert_dirs_gone(&in, 1);
}
END_TEST

Suite *eal_leftover_suite(void);

Suite *eal_leftover_suite(void)
{
    const char *mode = getenv(INNER_ENV);
    Suite *s;
    TCase *tc;

    if (mode)
        return inner_suite(mode);
    s = suite_create("eal_leftover");
    tc = tcase_create("leftover");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_ended);
    tcase_add_loop_test(tc, test_interrupted, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
