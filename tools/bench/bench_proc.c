/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_proc.c - one run of a DPDK program: started, stopped on time or killed, its runtime directory removed. */
#include "bench_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "farm_proc.h"
#include "farm_signal.h"

void bench_runtime_dir(const char *file_prefix, char *buf, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (geteuid() == 0)
        snprintf(buf, len, "/var/run/dpdk/%s", file_prefix);
    else
        snprintf(buf, len, "%s/dpdk/%s", xdg && xdg[0] ? xdg : "/tmp", file_prefix);
}

static pid_t start(char *const argv[], const char *out_path, uint64_t cpus)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    if (cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c = 0; c < 64; c++)
            if (cpus >> c & 1)
                CPU_SET(c, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0)
            _exit(126);
    }
    setsid(); /* a Ctrl-C at the terminal reaches the tool only: it stops us */
    int in = open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0)
        _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Wait for pid, interrupting and killing it on lim's times; a SIGINT or
 * SIGTERM on the tool (farm_signal_catch) interrupts it at once and kills
 * it 15 s later. Returns its wait status, or -1 when it had to be killed;
 * *interrupted tells whether it was sent a SIGINT. */
static int wait_limited(pid_t pid, const struct bench_proc_limits *lim, int *interrupted)
{
    double t0 = farm_now(), kill_at = lim->timeout_s;
    int status;
    *interrupted = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return status;
        if (w < 0 && errno != EINTR)
            return -1;
        double t = farm_now() - t0;
        int asked = farm_signal_count() > 0;
        int due = lim->interrupt_after_s > 0 && t >= lim->interrupt_after_s;
        if (!*interrupted && (asked || due)) {
            kill(pid, SIGINT);
            *interrupted = 1;
            if (asked && t + 15 < kill_at)
                kill_at = t + 15;
        }
        if (t >= kill_at) {
            kill(-pid, SIGKILL); /* its session's group: what it started too */
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        farm_sleep_ms(20);
    }
}

int bench_proc_start(char *const argv[], const char *out_path)
{
    return (int)start(argv, out_path, 0);
}

int bench_proc_start_on(char *const argv[], const char *out_path, uint64_t cpus)
{
    return (int)start(argv, out_path, cpus);
}

int bench_proc_wait(int pid, const char *name, const char *out_path,
                    const struct bench_proc_limits *lim, const char *file_prefix, char *err,
                    size_t len)
{
    char dir[512];
    int rc = 0, interrupted;
    int status = wait_limited((pid_t)pid, lim, &interrupted);
    int stopped = interrupted && status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT;
    if (farm_signal_count() > 0) {
        snprintf(err, len, "stopped by %s while %s ran",
                 farm_signal_last() == SIGTERM ? "SIGTERM" : "SIGINT", name);
        rc = -1;
    } else if (status < 0) {
        snprintf(err, len, "%s timed out after %.0f s and was killed (output: %s)", name,
                 lim->timeout_s, out_path);
        rc = -1;
    } else if (!stopped && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        snprintf(err, len, "%s %s %d (output: %s)", name,
                 WIFEXITED(status) ? "exited with status" : "was killed by signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out_path);
        rc = -1;
    }
    bench_runtime_dir(file_prefix, dir, sizeof(dir));
    if (access(dir, F_OK) == 0)
        farm_rm_rf(dir);
    return rc;
}

int bench_proc_run(char *const argv[], const char *out_path, const struct bench_proc_limits *lim,
                   const char *file_prefix, char *err, size_t len)
{
    pid_t pid = start(argv, out_path, 0);
    if (pid < 0) {
        snprintf(err, len, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    return bench_proc_wait(pid, argv[0], out_path, lim, file_prefix, err, len);
}
