/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_launch.c - a farm's daemons on any of its hosts: prepared, started, watched, signalled, their logs read, removed. */
#include "farm_launch.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "farm_host.h"
#include "farm_launch_private.h"
#include "farm_proc.h"

#define SCRIPT_MAX 32768
#define LOG_MAX (1024 * 1024)    /* of a remote log, read for the cause of a failure */

/* The keeper of a PLAIN process: $1 the log, the rest the daemon's argv. */
static const char keeper_sh[] =
    "log=$1; shift\n"
    "\"$@\" </dev/null >\"$log\" 2>&1 &\n"
    "p=$!\n"
    "echo \"$p $$\"\n"
    "exec >/dev/null 2>&1\n"
    "trap '' INT TERM HUP\n"
    "wait \"$p\"; rc=$?\n"
    "if [ \"$rc\" -gt 128 ]; then how=\"killed by SIG$(kill -l $((rc - 128)))\"; "
    "else how=\"exited with status $rc\"; fi\n"
    "echo \"$how\" >\"exit.$p.tmp\" && mv \"exit.$p.tmp\" \"exit.$p\"\n";

/* What every transient unit has beside its command line, as the templates
 * in systemd/ have it (docs/deployment.md, "systemd"): no restart (a dead
 * process is the run control's and the ledger's to see, and stays failed
 * for systemctl until down), the first SIGTERM a staged stop, room for
 * descriptors and locked memory. No --collect: a failed unit stays. */
const char *const farm_launch_unit_props[] = {
    "Restart=no",
    "KillSignal=SIGTERM",
    "TimeoutStopSec=60",
    "LimitMEMLOCK=infinity",
    "LimitNOFILE=65536:524288",
    NULL,
};

void farm_launch_unit(const struct farm_state *st, const struct farm_proc *p, char *buf,
                      size_t len)
{
    snprintf(buf, len, "ebfarm-%s-%s.service", st->name, p->name);
}

void farm_launch_put(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
    va_list ap;

    if (*o + 1 >= len)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *o, len - *o, fmt, ap);
    va_end(ap);
    *o = n < 0 || (size_t)n >= len - *o ? len - 1 : *o + (size_t)n;
}

int farm_launch_remote(const struct farm_host *h)
{
    return h && h->kind != FF_HOST_LOCAL;
}

/* Whether p's host is a network namespace of this machine watched here:
 * its pids are ours to see and signal, its run directory is ours, so the
 * watch needs no ssh round trip (each costs a login shell on the host).
 * $EBFARM_NETNS_WATCH=ssh watches it over ssh as any remote host. */
static int netns_here(const struct farm_host *h)
{
    const char *e = getenv("EBFARM_NETNS_WATCH");

    return h && h->kind == FF_HOST_NETNS && h->launch == FARM_LAUNCH_PLAIN &&
           !(e && !strcmp(e, "ssh"));
}

/* --- Start ----------------------------------------------------------------- */

int farm_launch_script(const struct farm_state *st, const struct farm_proc *p,
                       const struct farm_host *h, char *const argv[], char *buf, size_t len)
{
    char unit[128], arg[1024];
    size_t o = 0;

    farm_launch_put(buf, len, &o, "umask 077; mkdir -p ");
    farm_sh_quote(buf, len, &o, st->run_dir);
    farm_launch_put(buf, len, &o, " && cd ");
    farm_sh_quote(buf, len, &o, st->run_dir);
    if (h->launch == FARM_LAUNCH_UNIT) {
        farm_launch_unit(st, p, unit, sizeof(unit));
        /* A failed unit of the same name (an earlier run's) would refuse
         * systemd-run; the properties are the templates' in systemd/. */
        farm_launch_put(buf, len, &o, " && { systemctl reset-failed %s 2>/dev/null; true; }"
                        " && systemd-run --quiet --service-type=exec --unit=%s", unit, unit);
        for (const char *const *u = farm_launch_unit_props; *u; u++)
            farm_launch_put(buf, len, &o, " -p %s", *u);
        snprintf(arg, sizeof(arg), "WorkingDirectory=%s", st->run_dir);
        farm_launch_put(buf, len, &o, " -p ");
        farm_sh_quote(buf, len, &o, arg);
        snprintf(arg, sizeof(arg), "ExecStopPost=/bin/sh -c \"echo $$EXIT_CODE $$EXIT_STATUS "
                 ">%s/exit.unit.%s\"", st->run_dir, p->name);
        farm_launch_put(buf, len, &o, " -p ");
        farm_sh_quote(buf, len, &o, arg);
        if (h->kind == FF_HOST_NETNS) {      /* else the unit runs in systemd's namespace */
            snprintf(arg, sizeof(arg), "NetworkNamespacePath=/run/netns/%s", h->netns);
            farm_launch_put(buf, len, &o, " -p ");
            farm_sh_quote(buf, len, &o, arg);
        }
        farm_launch_put(buf, len, &o, " --");
    } else {
        farm_launch_put(buf, len, &o, " && exec setsid -f /bin/sh -c ");
        farm_sh_quote(buf, len, &o, keeper_sh);
        farm_launch_put(buf, len, &o, " ebfarm-keeper %s.log", p->name);
    }
    for (unsigned i = 0; argv[i]; i++) {
        farm_launch_put(buf, len, &o, " ");
        farm_sh_quote(buf, len, &o, argv[i]);
    }
    /* ExecMainPID, not MainPID: it stays when the daemon has already
     * failed (the unit stays loaded), so its journal and exit are found. */
    if (h->launch == FARM_LAUNCH_UNIT)
        farm_launch_put(buf, len, &o, " && systemctl show -p ExecMainPID --value %s", unit);
    return o + 1 >= len ? -E2BIG : 0;
}

/* farm_spawn on this host, started on p->start_cpus when it is not 0: the
 * calling thread takes them for the fork (the child inherits them) and
 * gets its own back after. */
static pid_t spawn_local(const struct farm_state *st, const struct farm_proc *p,
                         char *const argv[], char *err, size_t len)
{
    cpu_set_t mine, start;
    int moved = 0;

    if (p->start_cpus && sched_getaffinity(0, sizeof(mine), &mine) == 0) {
        CPU_ZERO(&start);
        for (int c = 0; c < 64; c++)
            if (p->start_cpus >> c & 1)
                CPU_SET(c, &start);
        moved = sched_setaffinity(0, sizeof(start), &start) == 0;
    }
    pid_t pid = farm_spawn(argv, st->run_dir, p->name, err, len);
    if (moved)
        sched_setaffinity(0, sizeof(mine), &mine);
    return pid;
}

int farm_launch_spawn(const struct farm_state *st, struct farm_proc *p, char *const argv[],
                      char *err, size_t len)
{
    const struct farm_host *h = farm_host_of(st, p);
    char *script = malloc(SCRIPT_MAX), out[1024];
    int pid = 0, kpid = 0, rc;

    if (!farm_launch_remote(h)) {
        free(script);
        p->pid = spawn_local(st, p, argv, err, len);
        return p->pid < 0 ? -1 : 0;
    }
    if (!script || farm_launch_script(st, p, h, argv, script, SCRIPT_MAX) != 0) {
        free(script);
        snprintf(err, len, "the command line of %s is too long for its host '%s'", p->name,
                 h->name);
        return -1;
    }
    rc = farm_host_sh(st, h, script, out, sizeof(out));
    free(script);
    if (rc != 0 || sscanf(out, "%d %d", &pid, &kpid) < 1 || pid <= 0) {
        out[strcspn(out, "\r\n")] = '\0';
        snprintf(err, len, "cannot start it on host '%s' (%s): %s", h->name, h->address,
                 rc == 255 ? "ssh could not reach it" : out[0] ? out : "no pid came back");
        p->pid = -1;
        return -1;
    }
    p->pid = pid;
    p->kpid = kpid;
    return 0;
}

int farm_launch_has_procs(const struct farm_state *st, const struct farm_host *h)
{
    for (unsigned i = 0; i < st->n; i++)
        if (farm_host_of(st, &st->proc[i]) == h)
            return 1;
    return 0;
}

/* --- Watch ----------------------------------------------------------------- */

/* Run a one-line question about p on its host: 1 yes (exit 0), 0 no
 * (exit 1), -1 not reached. */
static int ask_host(const struct farm_state *st, const struct farm_host *h, const char *q)
{
    char out[256];
    int rc = farm_host_sh(st, h, q, out, sizeof(out));

    return rc == 0 ? 1 : rc == 1 ? 0 : -1;
}

int farm_launch_alive(const struct farm_state *st, const struct farm_proc *p)
{
    const struct farm_host *h = farm_host_of(st, p);
    char q[512], unit[128];

    if (!farm_launch_remote(h))
        return farm_alive(p->pid);
    if (p->pid <= 0)
        return 0;
    if (netns_here(h))
        return farm_alive(p->pid) || (p->kpid > 0 && farm_running(p->kpid));
    if (h->launch == FARM_LAUNCH_UNIT) {
        farm_launch_unit(st, p, unit, sizeof(unit));
        snprintf(q, sizeof(q), "kill -0 %d 2>/dev/null || "
                 "[ \"$(systemctl show -p ActiveState --value %s)\" = deactivating ] || exit 1",
                 (int)p->pid, unit);
    } else {
        /* The keeper, until it has written the record; a zombie is gone
         * (on a host whose init is slow to reap). */
        int k = p->kpid > 0 ? p->kpid : p->pid;
        snprintf(q, sizeof(q), "kill -0 %d 2>/dev/null || { kill -0 %d 2>/dev/null && ! grep -qs "
                 "'^State:[[:space:]]*Z' /proc/%d/status; } || exit 1", (int)p->pid, k, k);
    }
    return ask_host(st, h, q) != 0;
}

int farm_launch_running(const struct farm_state *st, const struct farm_proc *p)
{
    const struct farm_host *h = farm_host_of(st, p);
    char q[256];

    if (!farm_launch_remote(h) || netns_here(h))
        return p->pid > 0 && farm_running(p->pid);
    if (p->pid <= 0)
        return 0;
    snprintf(q, sizeof(q), "kill -0 %d 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "
             "/proc/%d/status || exit 1", (int)p->pid, (int)p->pid);
    return ask_host(st, h, q) != 0;
}

int farm_launch_answers(const struct farm_state *st, const struct farm_proc *p)
{
    const struct farm_host *h = farm_host_of(st, p);

    if (!farm_launch_running(st, p))
        return 0;
    return farm_launch_remote(h) && !netns_here(h) ? 1 : !farm_frozen(p->pid);
}

int farm_launch_signal(const struct farm_state *st, const struct farm_proc *p, int sig)
{
    const struct farm_host *h = farm_host_of(st, p);
    char q[128];

    if (!farm_launch_remote(h) || (netns_here(h) && p->pid > 0))
        return kill(p->pid, sig);
    if (p->pid <= 0) {
        errno = ESRCH;
        return -1;
    }
    snprintf(q, sizeof(q), "kill -%d %d 2>/dev/null || exit 1", sig, (int)p->pid);
    int rc = ask_host(st, h, q);
    errno = rc < 0 ? EHOSTUNREACH : ESRCH;
    return rc == 1 ? 0 : -1;
}

void farm_launch_wait_gone(const struct farm_state *st, const struct farm_proc *p,
                           double timeout_s)
{
    double end = farm_now() + timeout_s;

    while (farm_launch_alive(st, p) && farm_now() < end)
        farm_sleep_ms(farm_launch_remote(farm_host_of(st, p)) ? 20 : 5);
}

/* "exited 1" / "killed KILL" (systemd's EXIT_CODE, EXIT_STATUS) as
 * farm_exit_how says them. */
static void unit_how(const char *rec, char *buf, size_t len)
{
    char code[32], status[32];

    if (sscanf(rec, "%31s %31s", code, status) != 2)
        snprintf(buf, len, "%s", rec);
    else if (!strcmp(code, "exited"))
        snprintf(buf, len, "exited with status %s", status);
    else
        snprintf(buf, len, "killed by SIG%s", status);
}

int farm_launch_exit_how(const struct farm_state *st, const struct farm_proc *p, char *buf,
                         size_t len)
{
    const struct farm_host *h = farm_host_of(st, p);
    char q[768], out[256];

    if (!farm_launch_remote(h) || netns_here(h))
        return farm_exit_how(st->run_dir, p->pid, buf, len);
    if (h->launch == FARM_LAUNCH_UNIT)
        snprintf(q, sizeof(q), "cat '%s/exit.unit.%s'", st->run_dir, p->name);
    else
        snprintf(q, sizeof(q), "cat '%s/exit.%d'", st->run_dir, (int)p->pid);
    if (farm_host_sh(st, h, q, out, sizeof(out)) != 0)
        return -1;
    out[strcspn(out, "\r\n")] = '\0';
    if (h->launch == FARM_LAUNCH_UNIT)
        unit_how(out, buf, len);
    else
        snprintf(buf, len, "%s", out);
    return 0;
}

void farm_launch_log_cmd(const struct farm_state *st, const struct farm_proc *p, int follow,
                         char *buf, size_t len)
{
    const struct farm_host *h = farm_host_of(st, p);
    char unit[128];

    if (h && h->launch == FARM_LAUNCH_UNIT) {
        farm_launch_unit(st, p, unit, sizeof(unit));
        /* This process's lines: the unit's journal also holds every
         * earlier process of the same name (a failed up, restarts). */
        snprintf(buf, len, "journalctl -b -u %s _PID=%d --no-pager -o cat%s", unit, (int)p->pid,
                 follow ? " -f" : "");
    } else {
        snprintf(buf, len, "%s '%s/%s.log'", follow ? "tail -n +1 -f" : "cat", st->run_dir,
                 p->name);
    }
}

void farm_launch_log_where(const struct farm_state *st, const struct farm_proc *p, char *buf,
                           size_t len)
{
    const struct farm_host *h = farm_host_of(st, p);
    char unit[128];

    if (h && h->launch == FARM_LAUNCH_UNIT) {
        farm_launch_unit(st, p, unit, sizeof(unit));
        snprintf(buf, len, "journalctl -u %s _PID=%d on host %s", unit, (int)p->pid, h->name);
    } else if (farm_launch_remote(h) && h->kind == FF_HOST_SSH) {
        snprintf(buf, len, "%s/%s.log on host %s", st->run_dir, p->name, h->name);
    } else {
        snprintf(buf, len, "%s/%s.log", st->run_dir, p->name);
    }
}

int farm_launch_log_cause(const struct farm_state *st, const struct farm_proc *p, char *buf,
                          size_t len)
{
    const struct farm_host *h = farm_host_of(st, p);
    char q[800];
    int found = 0;

    if (!farm_launch_remote(h) || netns_here(h))
        return farm_log_cause(st->run_dir, p->name, buf, len);
    char *text = malloc(LOG_MAX);
    if (!text)
        return 0;
    farm_launch_log_cmd(st, p, 0, q, sizeof(q));
    strncat(q, " 2>/dev/null | head -c 1000000", sizeof(q) - strlen(q) - 1);
    if (farm_host_sh(st, h, q, text, LOG_MAX) == 0) {
        FILE *f = fmemopen(text, strlen(text), "r");
        if (f) {
            found = farm_log_cause_stream(f, p->name, buf, len);
            fclose(f);
        }
    }
    free(text);
    return found;
}

/* --- Remove ---------------------------------------------------------------- */

void farm_launch_kill_all(const struct farm_state *st)
{
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].pid > 0 && farm_launch_alive(st, &st->proc[i]))
            farm_launch_signal(st, &st->proc[i], SIGKILL);
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].pid > 0)
            farm_launch_wait_gone(st, &st->proc[i], 5);
    farm_reap();
}

/* What to remove on remote host h: its processes' runtime directories and
 * units, and (not in a namespace of this machine) the run directory, or
 * with keep all of it but the logs. */
static void cleanup_host(const struct farm_state *st, const struct farm_host *h, int keep)
{
    char *q = malloc(SCRIPT_MAX), unit[128], path[160];
    size_t o = 0;

    if (!q)
        return;
    farm_launch_put(q, SCRIPT_MAX, &o, "true");
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        if (farm_host_of(st, p) != h)
            continue;
        snprintf(path, sizeof(path), "/var/run/dpdk/%s", p->prefix);
        farm_launch_put(q, SCRIPT_MAX, &o, "; rm -rf ");
        farm_sh_quote(q, SCRIPT_MAX, &o, path);
        if (h->launch == FARM_LAUNCH_UNIT) {
            farm_launch_unit(st, p, unit, sizeof(unit));
            farm_launch_put(q, SCRIPT_MAX, &o, "; systemctl stop %s 2>/dev/null; "
                            "systemctl reset-failed %s 2>/dev/null", unit, unit);
        }
    }
    if (!keep && h->kind == FF_HOST_SSH) {
        farm_launch_put(q, SCRIPT_MAX, &o, "; rm -rf ");
        farm_sh_quote(q, SCRIPT_MAX, &o, st->run_dir);
    } else if (h->kind == FF_HOST_SSH) {
        /* Kept for its logs: without the sockets, exit records and keys,
         * which made the next up fail (memif: "Address already in use"). */
        farm_launch_put(q, SCRIPT_MAX, &o, "; find ");
        farm_sh_quote(q, SCRIPT_MAX, &o, st->run_dir);
        farm_launch_put(q, SCRIPT_MAX, &o, " -mindepth 1 -maxdepth 1 ! -name '*.log' "
                        "-exec rm -rf {} + 2>/dev/null");
    }
    char out[512];
    /* Each step may find nothing to remove: only an unreached host fails. */
    farm_launch_put(q, SCRIPT_MAX, &o, "; true");
    if (farm_host_sh(st, h, q, out, sizeof(out)) != 0) {
        out[strcspn(out, "\r\n")] = '\0';
        fprintf(stderr, "ebfarm: cleaning up host '%s' (%s) failed: %s\n", h->name, h->address,
                out[0] ? out : "ssh could not reach it");
    }
    free(q);
}

void farm_launch_cleanup(const struct farm_state *st, int keep)
{
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        char path[160];
        if (farm_launch_remote(farm_host_of(st, p)))
            continue;
        snprintf(path, sizeof(path), "/var/run/dpdk/%s", p->prefix);
        if (access(path, F_OK) == 0)
            farm_rm_rf(path);
    }
    for (unsigned i = 0; i < st->n_hosts; i++) {
        const struct farm_host *h = &st->host[i];
        if (!farm_launch_remote(h) || !farm_launch_has_procs(st, h) || h->launch == FARM_LAUNCH_LOCAL)
            continue;            /* never reached: nothing of ours there */
        cleanup_host(st, h, keep);
        farm_host_close(st, h);
    }
}
