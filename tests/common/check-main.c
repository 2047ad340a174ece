/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.c - runs one Check suite, named at build time by EBF_SUITE, in a child process, and removes the EAL runtime directories its tests left however it ended. */
#include "check-main.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

Suite *EBF_SUITE(void);

/* A failed check's message may quote a whole command's output (a farm's
 * status or summary, up to 64 KiB in the farm tests); Check's default of
 * 4,096 bytes ends the test with "Message string too long" instead. */
#define MAX_MSG_SIZE (128u * 1024)

/* The signals that end a run early: Ctrl-C, meson's SIGTERM at a timeout
 * or an interrupt, a closed terminal. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

static pid_t runner;
static volatile sig_atomic_t stop_signal;

pid_t check_runner_pid(void)
{
    return runner;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    return remove(path);
}

int check_remove_tree(const char *path)
{
    return nftw(path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

void check_runtime_base(char *buf, size_t n)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    snprintf(buf, n, "%s/dpdk", getuid() == 0 ? "/var/run" : xdg ? xdg : "/tmp");
}

/* Removes every EAL runtime directory named for this runner's tests
 * (CHECK_EAL_PREFIX "<runner>-") under check_runtime_base(). A passed
 * test removed its own (rte_eal_cleanup); a failed or killed one's
 * process ended before its teardown. Returns the directories removed. */
static unsigned remove_runtime_dirs(void)
{
    char base[PATH_MAX], name[64], path[PATH_MAX + 256];
    unsigned n = 0;
    struct dirent *e;
    DIR *d;

    check_runtime_base(base, sizeof(base));
    snprintf(name, sizeof(name), CHECK_EAL_PREFIX "%d-", (int)runner);
    d = opendir(base);
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, name, strlen(name)) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
        n += check_remove_tree(path) == 0;
    }
    closedir(d);
    return n;
}

/* Runs the suite (in the child the guard forked) and exits with its result:
 * 0 when every test passed, else 1. Check forks each test from here. */
static void run_suite(void)
{
    SRunner *sr;
    int failed;

    check_set_max_msg_size(MAX_MSG_SIZE);
    sr = srunner_create(EBF_SUITE());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    exit(failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* Sets the stop signals' action: on_stop_signal (not restarting, so that
 * waitpid returns) when catch, else the default. */
static void set_stop_signals(int catch)
{
    struct sigaction sa = {.sa_handler = catch ? on_stop_signal : SIG_DFL};

    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
        sigaction(stop_signals[i], &sa, NULL);
}

/* Waits for the suite's process CHILD to end, passing it a stop signal the
 * guard alone received (a whole process group's Ctrl-C reaches both).
 * Returns its wait status. */
static int wait_suite(pid_t child)
{
    int st, forwarded = 0;

    while (waitpid(child, &st, 0) < 0) {
        if (errno != EINTR)
            return 1 << 8;
        if (stop_signal && !forwarded) {
            kill(child, stop_signal);
            forwarded = 1;
        }
    }
    return st;
}

/* The guard: the suite runs in a child process, so that the runtime
 * directories its tests left are removed however it ends (all passed, a
 * test failed, crashed or timed out, or the run was interrupted: Check
 * then kills the test and its runner ends by the signal). An interrupted
 * run ends by the same signal once the directories are gone. */
int main(void)
{
    pid_t child;
    int st;
    unsigned left;

    runner = getpid();
    fflush(NULL);
    set_stop_signals(1);
    child = fork();
    if (child < 0) {
        perror("fork");
        return EXIT_FAILURE;
    }
    if (child == 0) {
        set_stop_signals(0);
        if (stop_signal)
            raise(stop_signal);
        run_suite();
    }
    st = wait_suite(child);
    left = remove_runtime_dirs();
    if (left)
        printf("removed %u EAL runtime director%s its tests left\n", left, left == 1 ? "y" : "ies");
    if (WIFSIGNALED(st))
        printf("the suite's process ended by signal %d (%s)\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
    fflush(stdout);
    if (stop_signal) {
        set_stop_signals(0);
        raise(stop_signal);
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
