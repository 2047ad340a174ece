/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_restart.c - one process of a running farm restarted into its run; an SFC drained and given its share back. */
#include "farm_restart.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "farm_argv.h"
#include "ebf_pb.h"
#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_launch.h"
#include "farm_mark.h"
#include "farm_params.h"
#include "farm_proc.h"
#include "farm_rundir.h"
#include "farm_signal.h"
#include "farm_state.h"
#include "farmctl.h"
#include "farmfile_multi.h"

#define WAIT_DEAD_S 10           /* a frozen peer is declared dead well within this */
#define WAIT_STOP_S 60           /* a readout's staged stop */
#define WAIT_START_S 60          /* a new process answering */
#define JOIN_MIN 65536u          /* the join margin: at least this many ids ... */
#define JOIN_S 0.5               /* ... and this long at the readouts' rate */

struct farm_proc *farm_proc_named(const struct farm_state *st, const char *name)
{
    for (unsigned i = 0; i < st->n; i++)
        if (strcmp(st->proc[i].name, name) == 0)
            return (struct farm_proc *)&st->proc[i];
    return NULL;
}

/* err: no process name in st, and the names it has. */
static void no_such(const struct farm_state *st, const char *name, char *err, size_t len)
{
    size_t o = (size_t)snprintf(err, len, "farm '%s' has no process '%s' (it has:", st->name,
                                name);
    for (unsigned i = 0; i < st->n && o < len; i++)
        o += (size_t)snprintf(err + o, len - o, " %s", st->proc[i].name);
    if (o < len)
        snprintf(err + o, len - o, ")");
}

/* p's index among the processes of its role (spec->sfc[k], node[k], ...). */
static unsigned role_index(const struct farm_state *st, const struct farm_proc *p)
{
    unsigned k = 0;

    for (const struct farm_proc *q = st->proc; q < p; q++)
        k += q->role == p->role;
    return k;
}

/* Gauge name of p's status, or def when p does not answer. */
static double gauge(const struct farm_proc *p, const char *name, double def)
{
    char e[512];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
    double v = r && r->status && r->status->metrics
                   ? ebf_pb_gauge(r->status->metrics, name, NULL, def)
                   : def;

    if (r)
        ebfarm__reply__free_unpacked(r, NULL);
    return v;
}

/* The sum of counter key over the processes of role that answer, but
 * skip; the largest instead with max. key may name two counters, "a|b",
 * whose values are added (a counter known by its new name or its old). */
static uint64_t role_counter(const struct farm_state *st, enum farm_role role,
                             const struct farm_proc *skip, const char *key, int max)
{
    const char *bar = strchr(key, '|');
    char first[64];
    uint64_t v = 0;

    snprintf(first, sizeof(first), "%.*s", bar ? (int)(bar - key) : (int)strlen(key), key);
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *q = &st->proc[i];
        if (q->role != role || q == skip || !farm_launch_answers(st, q))
            continue;
        uint64_t x = farm_counter(q, first, 0, NULL);
        x += bar ? farm_counter(q, bar + 1, 0, NULL) : 0;
        v = max ? (x > v ? x : v) : v + x;
    }
    return v;
}

/* Wait until role_counter(role, key) passes above (sum), at most s. */
static int wait_counter_above(const struct farm_state *st, enum farm_role role, const char *key,
                              uint64_t above, double s)
{
    double end = farm_now() + s;

    while (role_counter(st, role, NULL, key, 0) <= above) {
        if (farm_now() > end || farm_signal_count())
            return -1;
        farm_sleep_ms(20);
    }
    return 0;
}

/* Freeze p, wait until its peers declared it dead (key summed over role
 * rises by want), then kill it: the memif PMD spares the survivors a
 * vanishing peer they no longer poll (docs/status.md). */
static int freeze_kill(const struct farm_state *st, const struct farm_proc *p,
                       enum farm_role peers, const char *key, uint64_t want, double *dead_after,
                       char *err, size_t len)
{
    uint64_t before = role_counter(st, peers, p, key, 0);
    double t0 = farm_now();

    if (farm_launch_signal(st, p, SIGSTOP) != 0) {
        snprintf(err, len, "cannot stop %s: %s", p->name, strerror(errno));
        return -1;
    }
    *dead_after = wait_counter_above(st, peers, key, before + want - 1, WAIT_DEAD_S) == 0
                      ? farm_now() - t0
                      : -1;
    if (farm_launch_signal(st, p, SIGKILL) != 0) {
        snprintf(err, len, "cannot kill %s: %s", p->name, strerror(errno));
        return -1;
    }
    farm_launch_wait_gone(st, p, 5);
    return 0;
}

/* 1 when the SFC q (at place k of n) heard, from every source of the
 * readout (first .. first + count - 1), the last event of place k at or
 * below last. */
static int heard_last(const struct farm_proc *q, unsigned k, unsigned n, uint16_t first,
                      uint16_t count, uint64_t last)
{
    char key[48];

    if (last < k)
        return 1;                       /* nothing of the readout went there */
    uint64_t want = last - (last - k) % n + 1;
    for (uint16_t s = first; s < first + count; s++) {
        snprintf(key, sizeof(key), "source.next_event.%u", s);
        if (farm_counter(q, key, 0, NULL) < want)
            return 0;
    }
    return 1;
}

/* Wait (at most 10 s) until every SFC took the frames readout p sent up
 * to its last event: they may still be in a link's ring, which goes away
 * with the readout. */
static void wait_delivered(const struct farm_state *st, const struct farm_spec *spec,
                           const struct farm_proc *p, uint64_t last)
{
    unsigned idx = role_index(st, p), n = spec->readout[idx].n_sfcs;
    double end = farm_now() + 10;
    uint16_t first, count;

    ff_readout_sources(spec, idx, &first, &count);
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *q = &st->proc[i];
        int k = q->role == FARM_SFC ? farm_spec_place(spec, q->name) : -1;
        if (k < 0 || !farm_launch_answers(st, q))
            continue;
        while (!heard_last(q, (unsigned)k, n, first, count, last) && farm_now() < end)
            farm_sleep_ms(20);
    }
}

/* The readout's own staged stop, then a shutdown; SIGKILL when it does
 * not get there. *last: the last event it generated. 1 when it had to be
 * killed, 0 when it stopped in stages. */
static int stop_readout(const struct farm_state *st, const struct farm_spec *spec,
                        const struct farm_proc *p, uint64_t *last)
{
    char e[1024];
    double end = farm_now() + WAIT_STOP_S;
    int stopped = farm_order(p, EBF_C_STOP, 0, NULL, 0, e, sizeof(e)) == 0;

    while (stopped) {
        Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, 1000, e, sizeof(e));
        int state = r && r->status ? (int)r->status->state : -1;
        if (r)
            ebfarm__reply__free_unpacked(r, NULL);
        if (state == EBFARM__STATE__CONFIGURED)
            break;
        if (state < 0 || farm_now() > end) {
            stopped = 0;
            break;
        }
        farm_sleep_ms(50);
    }
    *last = farm_counter(p, "last_event", 0, NULL);
    if (stopped) {
        wait_delivered(st, spec, p, *last);
        Ebfarm__Reply *r = farm_ask(p, EBF_C_SHUTDOWN, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
        if (r)
            ebfarm__reply__free_unpacked(r, NULL);
        farm_launch_wait_gone(st, p, 10);
    }
    if (!farm_launch_alive(st, p))
        return 0;
    farm_launch_signal(st, p, SIGKILL);
    farm_launch_wait_gone(st, p, 5);
    return 1;
}

/* The number of SFCs of st other than p that answer and are not drained. */
static unsigned other_live_sfcs(const struct farm_state *st, const struct farm_proc *p)
{
    unsigned n = 0;

    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *q = &st->proc[i];
        n += q->role == FARM_SFC && q != p && farm_launch_answers(st, q) &&
             gauge(q, "leave_at", 1) == 0;
    }
    return n;
}

/* A join id every readout is still short of: the furthest readout's last
 * event plus JOIN_S of the rate they generate at (two looks 200 ms
 * apart), at least JOIN_MIN ids. */
static uint64_t join_id(const struct farm_state *st)
{
    uint64_t a = role_counter(st, FARM_READOUT, NULL, "last_event", 1);
    farm_sleep_ms(200);
    uint64_t b = role_counter(st, FARM_READOUT, NULL, "last_event", 1);
    uint64_t m = (uint64_t)((double)(b - a) / 0.2 * JOIN_S);

    return b + 1 + (m > JOIN_MIN ? m : JOIN_MIN);
}

/* Stop p as its role wants (see farm_restart). */
static int take_down(const struct farm_state *st, const struct farm_spec *spec,
                     const struct farm_proc *p, struct farm_restart_info *info, uint64_t *last,
                     char *err, size_t len)
{
    unsigned n_ro = 0;

    *last = 0;
    info->was_running = farm_launch_alive(st, p);
    if (!info->was_running)
        return 0;
    for (unsigned i = 0; i < st->n; i++)
        n_ro += st->proc[i].role == FARM_READOUT && farm_launch_answers(st, &st->proc[i]);
    info->killed = 1;
    switch (p->role) {
    case FARM_NODE:
        return freeze_kill(st, p, FARM_SFC, "node.declared_dead", 1, &info->dead_after_s, err,
                           len);
    case FARM_SFC:
        return freeze_kill(st, p, FARM_READOUT, "fo.deaths|release.deaths", n_ro ? n_ro : 1,
                           &info->dead_after_s, err, len);
    default:
        info->killed = stop_readout(st, spec, p, last);
        return 0;
    }
}

/* The log name of p's next restart: <name>.restart<N> for the first N
 * whose log is not there yet. */
static void restart_log(const struct farm_state *st, const struct farm_proc *p, char *buf,
                        size_t len)
{
    char path[1024];
    struct stat sb;

    for (unsigned k = 1;; k++) {
        snprintf(buf, len, "%s.restart%u", p->name, k);
        snprintf(path, sizeof(path), "%s/%s.log", st->run_dir, buf);
        if (stat(path, &sb) != 0 || k >= 999)
            return;
    }
}

/* The sockets of argv's memif server ports (--vdev=...,role=server,...,
 * socket=PATH,...) removed: a killed server leaves them, and its new
 * process could not bind them again (Address already in use). Only on
 * this machine, where the memif links are. */
static void stale_sockets(const struct farm_proc *p, char *const argv[])
{
    char path[1024];

    for (unsigned i = 0; argv[i] && !p->remote; i++) {
        const char *s = strstr(argv[i], ",socket="), *e;
        if (strncmp(argv[i], "--vdev=net_memif", 16) != 0 || !strstr(argv[i], ",role=server,") ||
            !s)
            continue;
        s += 8;
        e = strchr(s, ',');
        snprintf(path, sizeof(path), "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
        if (farm_rundir_unlink(path) != 0 && errno != ENOENT)
            fprintf(stderr, "ebfarm restart: cannot remove %s: %s\n", path, strerror(errno));
    }
}

/* Start p again with its command line and wait until it answers. */
static int respawn(struct farm_state *st, const struct farm_spec *spec, const char *build,
                   struct farm_proc *p, char *err, size_t len)
{
    struct farm_argv c = {0};
    char log[FF_NAME_MAX + 16], e[900];
    int rc;

    farm_argv_build(spec, p->role, role_index(st, p), build, p, st->run_dir, &c);
    stale_sockets(p, c.argv);
    restart_log(st, p, log, sizeof(log));
    if (p->remote)
        rc = farm_launch_spawn(st, p, c.argv, e, sizeof(e));    /* logs to <name>.log */
    else
        rc = (p->pid = farm_spawn(c.argv, st->run_dir, log, e, sizeof(e))) < 0 ? -1 : 0;
    farm_argv_free(&c);
    if (rc != 0) {
        snprintf(err, len, "cannot start %s again: %s", p->name, e);
        return -1;
    }
    if ((rc = farm_state_save(st)) != 0) {
        snprintf(err, len, "cannot write %s/farm.state: %s", st->run_dir, strerror(-rc));
        return -1;
    }
    return farm_wait_answer(st, p, WAIT_START_S, err, len);
}

/* Refusals before anything is touched: an SFC needs failover and another
 * live SFC. 0, or -1 with err. */
static int restart_allowed(const struct farm_state *st, const struct farm_spec *spec,
                           const struct farm_proc *p, char *err, size_t len)
{
    if (p->role != FARM_SFC)
        return 0;
    if (!spec->run.replay_mb) {
        snprintf(err, len, "restarting SFC %s needs failover (run: replay_mb in the farm file): "
                 "without it the readouts give a stopped SFC up for the rest of the run", p->name);
        return -1;
    }
    if (!other_live_sfcs(st, p)) {
        snprintf(err, len, "%s is the last live SFC of farm '%s': its events would be lost while "
                 "it restarts (ebfarm stop, then ebfarm start)", p->name, st->name);
        return -1;
    }
    return 0;
}

int farm_restart(struct farm_state *st, const struct farm_spec *spec, const char *build,
                 const char *name, struct farm_restart_info *info, char *err, size_t len)
{
    struct ctl_param params[FARM_PARAMS_MAX + 1];
    struct farm_proc *p = farm_proc_named(st, name);
    uint64_t last;

    memset(info, 0, sizeof(*info));
    if (!p) {
        no_such(st, name, err, len);
        return -1;
    }
    int running = farmctl_run_in_progress(st);
    if (restart_allowed(st, spec, p, err, len))
        return -1;
    double t0 = farm_now();
    if (take_down(st, spec, p, info, &last, err, len))
        return -1;
    if (p->role == FARM_SFC && running && info->killed)
        info->marked = farm_mark_restart(st, p, &info->below);
    if (respawn(st, spec, build, p, err, len))
        return -1;
    info->last_event = last;
    unsigned n = farm_params(spec, p->role, params);
    if (p->role == FARM_READOUT && running) {
        uint64_t top = role_counter(st, FARM_READOUT, p, "last_event", 1);
        info->from_event = (top > last ? top : last) + 1;
        params[n].key = "rejoin";
        snprintf(params[n++].value, sizeof(params[0].value), "%" PRIu32 ":%" PRIu64,
                 st->run_number, info->from_event);
    }
    if (farm_order(p, EBF_C_CONFIGURE, 0, params, n, err, len) ||
        (running && farm_order(p, EBF_C_START, st->run_number, NULL, 0, err, len)))
        return -1;
    info->run = running ? st->run_number : 0;
    if (p->role == FARM_SFC && running) {
        struct ctl_param a = {.key = "join"};
        if (info->marked)
            farm_mark_sfc_new(st, p);   /* its nodes grant it their slots */
        info->from_event = join_id(st);
        snprintf(a.value, sizeof(a.value), "%" PRIu64, info->from_event);
        if (farm_order(p, EBF_C_ACT, 0, &a, 1, err, len))
            return -1;
    }
    info->took_s = farm_now() - t0;
    return 0;
}

/* Refusals of a drain or undrain of p before anything is asked. */
static int drain_allowed(const struct farm_state *st, const struct farm_spec *spec,
                         const struct farm_proc *p, const char *name, int drain, char *err,
                         size_t len)
{
    if (!p) {
        no_such(st, name, err, len);
        return -1;
    }
    if (p->role != FARM_SFC) {
        snprintf(err, len, "%s is a %s, not an SFC: only SFCs are drained", p->name,
                 farm_role_name(p->role));
        return -1;
    }
    if (!spec->run.replay_mb) {
        snprintf(err, len, "failover is off in farm '%s' (run: replay_mb in the farm file): "
                 "without it the readouts cannot move an SFC's share", st->name);
        return -1;
    }
    if (!farm_launch_answers(st, p)) {
        snprintf(err, len, "%s does not run (ebfarm restart %s starts it again)", p->name,
                 p->name);
        return -1;
    }
    if (!farmctl_run_in_progress(st)) {
        snprintf(err, len, "farm '%s' has no run in progress (ebfarm start begins one)",
                 st->name);
        return -1;
    }
    if (drain && !other_live_sfcs(st, p)) {
        snprintf(err, len, "%s is the last live SFC of farm '%s': draining it would leave the "
                 "readouts no SFC to send to", p->name, st->name);
        return -1;
    }
    return 0;
}

/* Whether every readout that answers generated up to at, or finished. */
static int readouts_past(const struct farm_state *st, uint64_t at)
{
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *q = &st->proc[i];
        int finished = 0;
        if (q->role == FARM_READOUT && farm_launch_answers(st, q) &&
            farm_counter(q, "last_event", 0, &finished) < at && !finished)
            return 0;
    }
    return 1;
}

/* Whether p holds nothing: no event building, ready or unacked. */
static int holds_nothing(const struct farm_proc *p)
{
    return gauge(p, "events_building", 1) == 0 && gauge(p, "ready_queue", 1) == 0 &&
           gauge(p, "events_unacked", 1) == 0;
}

int farm_drain(const struct farm_state *st, const struct farm_spec *spec, const char *name,
               int drain, double timeout_s, const struct farm_idle *idle,
               struct farm_drain_info *info, char *err, size_t len)
{
    const struct farm_proc *p = farm_proc_named(st, name);
    struct ctl_param a = {.key = drain ? "drain" : "undrain"};

    memset(info, 0, sizeof(*info));
    if (drain_allowed(st, spec, p, name, drain, err, len))
        return -1;
    double t0 = farm_now(), end = t0 + timeout_s;
    if (!drain)
        snprintf(a.value, sizeof(a.value), "%" PRIu64, info->at = join_id(st));
    if (farm_order(p, EBF_C_ACT, 0, &a, 1, err, len))
        return -1;
    if (drain)
        info->at = (uint64_t)gauge(p, "leave_at", 0);
    /* Every readout past the id; a drained SFC then builds what it holds. */
    while (!readouts_past(st, info->at) || (drain && !holds_nothing(p))) {
        if (farm_signal_check(1, err, len))
            return -1;
        if (farm_now() > end) {
            snprintf(err, len, "%s announced %s at event %" PRIu64 " but %s within %.0f s",
                     p->name, drain ? "its leave" : "its join", info->at,
                     drain ? "still held events (or a readout was short of it)"
                           : "a readout was still short of it", timeout_s);
            return -1;
        }
        if (idle)
            idle->fn(idle->arg);
        farm_sleep_ms(50);
    }
    info->took_s = farm_now() - t0;
    return 0;
}
