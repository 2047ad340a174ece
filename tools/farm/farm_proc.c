/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_proc.c - a farm's daemons as processes on this host: found, started, watched, killed. */
#include "farm_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double farm_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void farm_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

    nanosleep(&ts, NULL);
}

int farm_build_dir(char *buf, size_t len)
{
    const char *env = getenv("EBFARM_BUILD_DIR");
    char exe[PATH_MAX];

    if (env && *env) {
        snprintf(exe, sizeof(exe), "%s", env);
    } else {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n <= 0)
            return -errno;
        exe[n] = '\0';
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                return -ENOENT;
            *slash = '\0';
        }
    }
    if (strlen(exe) + 1 > len)
        return -ENAMETOOLONG;
    strcpy(buf, exe);
    return 0;
}

pid_t farm_spawn(char *const argv[], const char *run_dir, const char *log_name)
{
    char log[768];

    snprintf(log, sizeof(log), "%s/%s.log", run_dir, log_name);
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    setsid();
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0)
        dup2(nul, 0);
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int farm_alive(pid_t pid)
{
    char path[64], buf[256];
    int status;

    if (pid <= 0)
        return 0;
    if (waitpid(pid, &status, WNOHANG) == pid)
        return 0;
    if (kill(pid, 0) != 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');   /* "pid (comm) S ..." */
    return !(paren && paren[1] == ' ' && paren[2] == 'Z');
}

void farm_kill_all(const struct farm_state *st)
{
    for (unsigned i = 0; i < st->n; i++)
        if (farm_alive(st->proc[i].pid))
            kill(st->proc[i].pid, SIGKILL);
    for (unsigned i = 0; i < st->n; i++)
        waitpid(st->proc[i].pid, NULL, WNOHANG);
}

void farm_rm_rf(const char *path)
{
    char cmd[1200];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "ebfarm: could not remove %s\n", path);
}

void farm_remove_runtime(const struct farm_state *st)
{
    char path[160];

    for (unsigned i = 0; i < st->n; i++) {
        snprintf(path, sizeof(path), "/var/run/dpdk/%s", st->proc[i].prefix);
        if (access(path, F_OK) == 0)
            farm_rm_rf(path);
    }
}
