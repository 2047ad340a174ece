/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_proc.c - a farm's daemons as processes on this host: found, started, watched, killed. */
#include "farm_proc.h"
#include "farm_rundir.h"
#include "ebf_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

/* The daemon's side of farm_spawn: its log (log_fd, made by the tool), no
 * stdin, then argv. */
static void exec_daemon(char *const argv[], int log_fd)
{
    dup2(log_fd, 1);             /* the copies do not inherit O_CLOEXEC */
    dup2(log_fd, 2);
    close(log_fd);
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0)
        dup2(nul, 0);
    ebf_nofile_raise(NULL, NULL);    /* the daemon raises it too; a shell-less launch here */
    execv(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* How a process ended: "exited with status N" or "killed by SIGKILL". */
static void describe_exit(const siginfo_t *si, char *buf, size_t len)
{
    if (si->si_code == CLD_EXITED)
        snprintf(buf, len, "exited with status %d", si->si_status);
    else
        snprintf(buf, len, "killed by SIG%s",
                 sigabbrev_np(si->si_status) ? sigabbrev_np(si->si_status) : "?");
}

static char *title_area;         /* main's argv strings, contiguous */
static size_t title_len;

void farm_proc_title_area(int argc, char **argv)
{
    if (argc < 1)
        return;
    char *end = argv[0] + strlen(argv[0]) + 1;
    for (int i = 1; i < argc && argv[i] == end; i++)
        end = argv[i] + strlen(argv[i]) + 1;
    title_area = argv[0];
    title_len = (size_t)(end - argv[0]);
}

/* The keeper of process name says what it is: comm "ebfkeep-NAME" (15
 * characters at most), and its command line "ebfarm-keeper NAME RUN_DIR"
 * (cut to the tool's own argv's length). */
static void keeper_title(const char *name, const char *run_dir)
{
    char comm[16];

    snprintf(comm, sizeof(comm), "ebfkeep-%s", name);
    prctl(PR_SET_NAME, comm, 0, 0, 0);
    if (!title_area || title_len < 2)
        return;
    memset(title_area, 0, title_len);
    snprintf(title_area, title_len - 1, "ebfarm-keeper %s %s", name, run_dir);
}

/*
 * The session leader between the tool and its daemon: it waits for the
 * daemon and writes how it ended to <run_dir>/exit.<pid>, so that status
 * can tell an exited daemon (and why) from one that does not answer, also
 * when the tool that started it is gone. The daemon is reaped only after
 * the record is written, so whoever sees the pid gone finds the record.
 * It closes every descriptor it inherited (the farm's lock among them) and
 * exits with the daemon.
 */
static void keeper(char *const argv[], const char *run_dir, const char *name, int log_fd,
                   int report)
{
    char path[768], how[96];
    siginfo_t si;

    setsid();
    keeper_title(name, run_dir);
    signal(SIGINT, SIG_IGN);     /* signals are for the daemon, sent by pid */
    signal(SIGTERM, SIG_IGN);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        close(report);
        exec_daemon(argv, log_fd);
    }
    int sent = write(report, &pid, sizeof(pid)) == (ssize_t)sizeof(pid);
    close_range(0, ~0U, 0);
    if (!sent || pid < 0)
        _exit(1);
    memset(&si, 0, sizeof(si));
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0)
        if (errno != EINTR)
            _exit(1);
    describe_exit(&si, how, sizeof(how));
    snprintf(path, sizeof(path), "%s/exit.%d", run_dir, (int)pid);
    FILE *f = farm_rundir_fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", how);
        fclose(f);
    }
    waitpid(pid, NULL, 0);
    _exit(0);
}

pid_t farm_spawn(char *const argv[], const char *run_dir, const char *log_name, char *err,
                 size_t len)
{
    char log[768];
    int pfd[2], e;
    pid_t pid = -1;

    /* The log is made here, so that a run directory that is full or not
     * writable is reported, not left to a daemon that logs into nothing. */
    snprintf(log, sizeof(log), "%s/%s.log", run_dir, log_name);
    int fd = farm_rundir_open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        e = errno;
        snprintf(err, len, "cannot create %s: %s", log, farm_rundir_strerror(e));
        errno = e;
        return -1;
    }
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        e = errno;
        close(fd);
        snprintf(err, len, "cannot start %s: %s", argv[0], strerror(e));
        errno = e;
        return -1;
    }
    fflush(NULL);
    pid_t k = fork();
    if (k == 0) {
        close(pfd[0]);
        keeper(argv, run_dir, log_name, fd, pfd[1]);
    }
    e = errno;
    close(fd);
    close(pfd[1]);
    /* A Ctrl-C on the tool interrupts the read (no SA_RESTART): read
     * again, or the daemon would run on with no pid to kill it by. */
    ssize_t got;
    do
        got = k > 0 ? read(pfd[0], &pid, sizeof(pid)) : 0;
    while (got < 0 && errno == EINTR);
    if (k > 0 && got != (ssize_t)sizeof(pid)) {
        pid = -1;
        e = ECHILD;
    }
    close(pfd[0]);
    if (k < 0 || pid < 0) {
        snprintf(err, len, "cannot start %s: %s", argv[0], strerror(e));
        errno = e;
        return -1;
    }
    return pid;
}

/* Whether line (n bytes, no newline) is a daemon's own account of why it
 * failed; its text into buf. The daemons tag error lines after their
 * timestamp and name ("2026-...Z sfc0: error: EAL: lcore 4 unavailable");
 * before their log starts they refuse options as "sfc: option ...". */
static int cause_line(const char *line, size_t n, const char *name, char *buf, size_t len)
{
    static const char *const early[] = {"readout: ", "sfc: ", "node: ", "cannot run "};
    char tag[FF_NAME_MAX + 16];
    int t = snprintf(tag, sizeof(tag), " %s: error: ", name);
    const char *hit = memmem(line, n, tag, (size_t)t);

    if (hit && hit - line == 24) {           /* after "YYYY-MM-DDTHH:MM:SS.mmmZ" */
        const char *text = hit + t;
        snprintf(buf, len, "%.*s", (int)(n - (size_t)(text - line)), text);
        return 1;
    }
    for (unsigned i = 0; i < sizeof(early) / sizeof(early[0]); i++)
        if (n >= strlen(early[i]) && memcmp(line, early[i], strlen(early[i])) == 0) {
            snprintf(buf, len, "%.*s", (int)n, line);
            return 1;
        }
    return 0;
}

int farm_log_cause_stream(FILE *f, const char *name, char *buf, size_t len)
{
    char line[1200];
    int found = 0;

    /* The first 16384 lines at most: the cause comes early, before EAL's usage. */
    for (unsigned lines = 0; !found && lines < 16384 && fgets(line, sizeof(line), f); lines++) {
        size_t n = strcspn(line, "\n");
        found = cause_line(line, n, name, buf, len);
    }
    return found;
}

/* Whether line is a driver's report of a failure: "name(): ... failed ...". */
static int driver_error(const char *line)
{
    static const char *const words[] = {"failed", "Failed", "Cannot", "cannot", "error"};
    size_t fn = strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_");

    if (fn == 0 || strncmp(line + fn, "(): ", 4) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strstr(line + fn + 4, words[i]))
            return 1;
    return 0;
}

int farm_log_driver_error(const char *run_dir, const char *name, char *buf, size_t len)
{
    char path[768], line[1200];
    int found = 0;

    snprintf(path, sizeof(path), "%s/%s.log", run_dir, name);
    FILE *f = farm_rundir_fopen(path, "r");
    for (unsigned n = 0; f && !found && n < 16384 && fgets(line, sizeof(line), f); n++) {
        line[strcspn(line, "\n")] = '\0';
        if ((found = driver_error(line)))
            snprintf(buf, len, "%s", line);
    }
    if (f)
        fclose(f);
    return found;
}

int farm_log_cause(const char *run_dir, const char *name, char *buf, size_t len)
{
    char path[768];

    snprintf(path, sizeof(path), "%s/%s.log", run_dir, name);
    FILE *f = farm_rundir_fopen(path, "r");
    if (!f)
        return 0;
    int found = farm_log_cause_stream(f, name, buf, len);
    fclose(f);
    return found;
}

int farm_exit_how(const char *run_dir, pid_t pid, char *buf, size_t len)
{
    char path[768];

    snprintf(path, sizeof(path), "%s/exit.%d", run_dir, (int)pid);
    FILE *f = farm_rundir_fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

void farm_wait_gone(pid_t pid, double timeout_s)
{
    double end = farm_now() + timeout_s;

    while (farm_alive(pid) && farm_now() < end)
        farm_sleep_ms(5);
}

int farm_alive(pid_t pid)
{
    /* A daemon that has exited stays a zombie only until its keeper has
     * recorded how it ended: until then it still counts. */
    return pid > 0 && kill(pid, 0) == 0;
}

/* The state letter of /proc/<pid>/stat: 0 when it cannot be read, '?'
 * when it does not parse. */
static char proc_state(pid_t pid)
{
    char path[64], buf[256];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r")))
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');     /* "pid (comm) S ..." */
    return paren && paren[1] == ' ' ? paren[2] : '?';
}

int farm_frozen(pid_t pid)
{
    char c = pid > 0 ? proc_state(pid) : 0;

    return c == 'T' || c == 't';
}

int farm_running(pid_t pid)
{
    if (!farm_alive(pid))
        return 0;
    char c = proc_state(pid);
    return c != 0 && c != 'Z';
}

void farm_reap(void)
{
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

void farm_rm_rf(const char *path)
{
    if (farm_rundir_remove(path) != 0)
        fprintf(stderr, "ebfarm: could not remove %s: %s\n", path,
                farm_rundir_strerror(errno));
}
