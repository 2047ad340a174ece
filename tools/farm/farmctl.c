/* SPDX-License-Identifier: BSD-3-Clause */
/* farmctl.c - a farm's processes on this host through a run: up, start, the staged stop, down. */
#include "farmctl.h"
#include "farm_rundir.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ebf_util.h"
#include "farm_argv.h"
#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_host.h"
#include "farm_launch.h"
#include "farm_mark.h"
#include "farm_stopat.h"
#include "farm_netns.h"
#include "farm_params.h"
#include "farm_proc.h"
#include "farm_runid.h"
#include "farm_signal.h"
#include "farm_state.h"
#include "farmfile.h"

/* Start every process of role (the k-th of its kind from spec's k-th
 * entry), then wait until each answers. */
static int spawn_role(struct farm_state *st, const struct farm_spec *s, const char *build,
                      enum farm_role role, char *err, size_t len)
{
    for (unsigned i = 0, k = 0; i < st->n; i++) {
        struct farm_proc *p = &st->proc[i];
        struct farm_argv c = {0};
        if (p->role != role)
            continue;
        farm_argv_build(s, role, k++, build, p, st->run_dir, &c);
        char e[900];
        int rc = farm_launch_spawn(st, p, c.argv, e, sizeof(e));
        farm_argv_free(&c);
        if (rc != 0) {
            snprintf(err, len, "cannot start %s: %s", p->name, e);
            return -1;
        }
    }
    for (unsigned i = 0; i < st->n; i++)
        if (st->proc[i].role == role && farm_wait_answer(st, &st->proc[i], 60, err, len))
            return -1;
    return 0;
}

/* st for spec in run_dir, every process listed (not started); the run
 * directory made. -1 with err when the farm is up already or run_dir
 * cannot be made or written (full, read-only: named with the reason). */
static int new_state(const struct farm_spec *spec, const char *run_dir, struct farm_state *st,
                     char *err, size_t len)
{
    char path[600];

    memset(st, 0, sizeof(*st));
    snprintf(st->name, sizeof(st->name), "%s", spec->name);
    snprintf(st->run_dir, sizeof(st->run_dir), "%s", run_dir);
    snprintf(st->farm_file_sha256, sizeof(st->farm_file_sha256), "%s", spec->file_sha256);
    snprintf(st->keys, sizeof(st->keys), "%s", spec->keys);
    st->insecure = spec->insecure;
    if (farm_rundir_secure(run_dir, 1, err, len))   /* ipc:// endpoints: ours only */
        return -1;
    snprintf(path, sizeof(path), "%s/farm.state", run_dir);
    if (access(path, F_OK) == 0) {
        snprintf(err, len, "farm '%s' is already up (%s); take it down with: ebfarm down --farm %s",
                 spec->name, path, spec->name);
        return -1;
    }
    if (farm_state_dir_check(run_dir, err, len)) {
        rmdir(run_dir);          /* when it was made here: nothing is in it */
        return -1;
    }
    farm_host_table(st, spec);
    for (unsigned i = 0; i < spec->n_hosts; i++)
        if (spec->host[i].kind != FF_HOST_LOCAL)
            farm_host_ssh_dir(run_dir, st->ssh_dir, sizeof(st->ssh_dir));
    /* The namespaces' addresses, which "{host}" in endpoints stands for. */
    if (farm_netns_plan(spec, st, err, len))
        return -1;
    for (unsigned i = 0; i < spec->n_sfcs; i++)
        farm_state_add(st, spec, &spec->sfc[i].p, FARM_SFC);
    for (unsigned i = 0; i < spec->n_nodes; i++)
        farm_state_add(st, spec, &spec->node[i].p, FARM_NODE);
    for (unsigned i = 0; i < spec->n_readouts; i++)
        farm_state_add(st, spec, &spec->readout[i].p, FARM_READOUT);
    return 0;
}

/* Remove what up or a farm that is down leaves on its hosts: runtime
 * directories and units everywhere, the remote run directories (unless
 * keep), the master ssh connections, the network namespaces, the ssh
 * directory. */
static void hosts_cleanup(const struct farm_state *st, int keep)
{
    farm_launch_cleanup(st, keep);
    farm_netns_down(st);
    if (st->ssh_dir[0] && !st->netns)
        farm_rm_rf(st->ssh_dir);
    rmdir(FARM_SSH_BASE);        /* when no other farm has its directory there */
}

/* After a failed up, with every process gone: remove from run_dir all but
 * the logs (*.log, which say why), so that the next up finds no socket,
 * endpoint or exit file of this one. Subdirectories stay (hosts_cleanup
 * removes its own). */
static void run_dir_clean(const char *run_dir)
{
    char path[700];
    struct dirent *e;
    DIR *d = opendir(run_dir);

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (e->d_type == DT_DIR || (n > 4 && strcmp(e->d_name + n - 4, ".log") == 0))
            continue;
        snprintf(path, sizeof(path), "%s/%s", run_dir, e->d_name);
        farm_rundir_unlink(path);
    }
    closedir(d);
}

int farmctl_up(const struct farm_spec *spec, const char *build_dir, const char *run_dir,
               struct farm_state *st, char *err, size_t len)
{
    struct ctl_param params[FARM_PARAMS_MAX];
    char path[600];

    if (farm_spec_check_run(spec, err, len) || new_state(spec, run_dir, st, err, len))
        return -1;
    if (ctl_use_keys(st->keys, err, len) || farm_netns_up(st, err, len) ||
        farm_launch_prepare(st, err, len)) {
        hosts_cleanup(st, !farm_signal_count());
        rmdir(run_dir);          /* nothing started: it is empty */
        return -1;
    }
    snprintf(path, sizeof(path), "%s/farm.state", run_dir);
    /* memif servers (the SFCs) first: a client connects only to a server. */
    if (spawn_role(st, spec, build_dir, FARM_SFC, err, len) ||
        spawn_role(st, spec, build_dir, FARM_NODE, err, len) ||
        spawn_role(st, spec, build_dir, FARM_READOUT, err, len))
        goto fail;
    if (farm_state_save_err(st, err, len) != 0)
        goto fail;
    for (unsigned i = 0; i < st->n; i++) {
        unsigned n = farm_params(spec, st->proc[i].role, params);
        if (farm_order(&st->proc[i], EBF_C_CONFIGURE, 0, params, n, err, len))
            goto fail;
    }
    /* A signal that came while the last processes answered at once. */
    if (farm_signal_check(1, err, len))
        goto fail;
    return 0;
fail:
    farm_launch_kill_all(st);
    hosts_cleanup(st, !farm_signal_count());   /* remote logs stay, unless interrupted */
    farm_rundir_unlink(path);
    run_dir_clean(run_dir);
    return -1;
}

/* Every process of st able to answer, or -2 with err naming those gone or
 * frozen (before any is ordered: a farm is never left in two runs). */
static int all_answer(const struct farm_state *st, char *err, size_t len)
{
    size_t o = 0;

    err[0] = '\0';
    for (unsigned i = 0; i < st->n && o < len; i++) {
        const struct farm_proc *p = &st->proc[i];
        if (farm_launch_answers(st, p))
            continue;
        o += (size_t)snprintf(err + o, len - o, "%s%s is %s", o ? ", " : "", p->name,
                              farm_launch_running(st, p) ? "frozen (stopped by a signal)" :
                              "gone");
    }
    if (!err[0])
        return 0;
    if (o < len)
        snprintf(err + o, len - o, ": no run started (ebfarm down, then ebfarm up)");
    return -2;
}

/* The readouts' common instant of event 0: far enough ahead that each of
 * the n readouts has its START by then, taking each as slow to answer as
 * twice the slowest reply so far (slow_ns), within FARM_START_LEAD_NS and
 * FARM_START_LEAD_MAX_NS (a readout later than that starts at once). */
static uint64_t start_instant(uint64_t slow_ns, unsigned n)
{
    uint64_t lead = 2 * slow_ns * n;

    lead = lead < FARM_START_LEAD_NS ? FARM_START_LEAD_NS : lead;
    return ebf_now_ns() + (lead > FARM_START_LEAD_MAX_NS ? FARM_START_LEAD_MAX_NS : lead);
}

/* Sleep until the wall clock passes at_ns: the run has begun when the
 * start returns. */
static void wait_until(uint64_t at_ns)
{
    for (uint64_t now = ebf_now_ns(); now < at_ns; now = ebf_now_ns()) {
        struct timespec ts = {.tv_sec = (time_t)((at_ns - now) / 1000000000u),
                              .tv_nsec = (long)((at_ns - now) % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

int farmctl_start(struct farm_state *st, uint32_t run, char *err, size_t len)
{
    static const enum farm_role order_of_start[] = {FARM_SFC, FARM_NODE, FARM_READOUT};
    int64_t t0 = farm_utc_now_ms();
    uint64_t slow_ns = 0, at_ns = 0;
    unsigned n_ro = 0;
    int started = 0;

    if (all_answer(st, err, len))
        return -2;
    for (unsigned i = 0; i < st->n; i++)
        n_ro += st->proc[i].role == FARM_READOUT;
    for (unsigned r = 0; r < 3; r++)
        for (unsigned i = 0; i < st->n; i++) {
            if (st->proc[i].role != order_of_start[r])
                continue;
            uint64_t sent = ebf_now_ns();
            if (order_of_start[r] == FARM_READOUT && !at_ns)
                at_ns = start_instant(slow_ns, n_ro);
            if (farm_order_start(&st->proc[i], run, at_ns, err, len))
                goto fail;
            if (ebf_now_ns() - sent > slow_ns)
                slow_ns = ebf_now_ns() - sent;
            if (!started++) {
                st->run_number = run;
                st->run_start_ms = t0;
            }
        }
    wait_until(at_ns);
    return farm_state_save_err(st, err, len) == 0 ? 0 : -1;
fail:
    if (!started)
        return -2;
    farm_state_save(st);
    return -1;
}

/* Whether p is in a run that a stop would end (RUNNING or PAUSED); a
 * process already draining or stopped is left to finish. */
static int in_run(const struct farm_proc *p)
{
    char e[512];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
    int yes = !r || !r->status ||      /* no answer: the stop says why */
              r->status->state == EBFARM__STATE__RUNNING ||
              r->status->state == EBFARM__STATE__PAUSED;

    if (r)
        ebfarm__reply__free_unpacked(r, NULL);
    return yes;
}

/* Order p to stop when it is in a run. A process gone or frozen, before
 * the order or when it fails (it died or froze meanwhile), is left out:
 * the ledger names it gone (farm_collect). 0, or -1 with err. */
static int stop_one(const struct farm_state *st, const struct farm_proc *p, char *err,
                    size_t len)
{
    if (!farm_launch_answers(st, p) || !in_run(p))
        return 0;
    if (farm_order(p, EBF_C_STOP, 0, NULL, 0, err, len) == 0)
        return 0;
    return farm_launch_answers(st, p) ? -1 : 0;
}

int farmctl_stop(const struct farm_state *st, struct farm_result *r, char *err, size_t len)
{
    return farmctl_stop_places(st, NULL, r, err, len);
}

int farmctl_stop_places(const struct farm_state *st, const int *places, struct farm_result *r,
                        char *err, size_t len)
{
    static const enum farm_role stages[] = {FARM_READOUT, FARM_SFC, FARM_NODE};
    static const double stage_s[] = {60, 120, 60};

    memset(r, 0, sizeof(*r));
    snprintf(r->run_dir, sizeof(r->run_dir), "%s", st->run_dir);
    snprintf(r->id.farm, sizeof(r->id.farm), "%s", st->name);
    r->id.run = st->run_number;
    r->id.start_ms = st->run_start_ms;
    snprintf(r->id.farm_file_sha256, sizeof(r->id.farm_file_sha256), "%s", st->farm_file_sha256);
    r->id.insecure = st->insecure;
    /* Every readout ends at one event id: the stop makes no incomplete
     * event (where no end is agreed, each ends where it is). */
    uint64_t at;
    farm_stop_at(st, &at);
    for (unsigned k = 0; k < 3; k++) {
        for (unsigned i = 0; i < st->n; i++)
            if (st->proc[i].role == stages[k] && stop_one(st, &st->proc[i], err, len))
                return -1;
        if (farm_wait_state(st, stages[k], EBF_S_CONFIGURED, stage_s[k], err, len))
            return -1;
    }
    r->id.stop_ms = farm_utc_now_ms();
    farm_mark_nodes(st, places);
    return farm_collect(st, r, err, len);
}

int farmctl_run_in_progress(const struct farm_state *st)
{
    Ebfarm__Reply *rep[FARM_MAX_PROCS];
    int running = 0;

    farm_status(st, rep);
    for (unsigned i = 0; i < st->n; i++)
        if (rep[i] && rep[i]->status &&
            (rep[i]->status->state == EBFARM__STATE__RUNNING ||
             rep[i]->status->state == EBFARM__STATE__PAUSED))
            running = 1;
    farm_free_replies(st, rep);
    return running;
}

/* Ask p to shut down; SIGTERM when it does not answer or refuses (a
 * shutdown is allowed in ERROR, not in DRAINING). */
static void shut_down(const struct farm_state *st, const struct farm_proc *p)
{
    char e[512];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_SHUTDOWN, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));

    if (!r || !r->ok)
        farm_launch_signal(st, p, SIGTERM);
    if (r)
        ebfarm__reply__free_unpacked(r, NULL);
}

/* Shut every process of role down; SIGKILL what has not exited within
 * 15 s, appending "<name> did not exit and was killed" to err, and at once
 * what is frozen ("<name> was frozen and was killed"). Returns how
 * many had to be killed. */
static unsigned shut_down_role(const struct farm_state *st, enum farm_role role, char *err,
                               size_t len)
{
    unsigned killed = 0;
    double end;

    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        if (p->role != role || !farm_launch_alive(st, p))
            continue;
        if (farm_launch_running(st, p) && !farm_launch_answers(st, p)) {   /* frozen */
            farm_launch_signal(st, p, SIGKILL);
            farm_launch_wait_gone(st, p, 5);
            size_t o = strlen(err);
            snprintf(err + o, len - o, "%s%s was frozen and was killed", o ? "; " : "", p->name);
            killed++;
            continue;
        }
        shut_down(st, p);
    }
    end = farm_now() + 15;
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        if (p->role != role)
            continue;
        /* A second Ctrl-C on the tool: kill at once. */
        while (farm_launch_alive(st, p) && farm_now() < end && farm_signal_count() < 2)
            farm_sleep_ms(20);
        if (farm_launch_alive(st, p)) {
            farm_launch_signal(st, p, SIGKILL);
            farm_launch_wait_gone(st, p, 5);
            size_t o = strlen(err);
            snprintf(err + o, len - o, "%s%s did not exit and was killed", o ? "; " : "",
                     p->name);
            killed++;
        }
    }
    return killed;
}

int farmctl_down(const struct farm_state *st, int keep, char *err, size_t len)
{
    static const enum farm_role order_of_exit[] = {FARM_READOUT, FARM_NODE, FARM_SFC};
    char e[512], path[600];
    unsigned killed = 0;

    err[0] = '\0';
    /* After a second Ctrl-C on the tool, no staged stop: processes go. */
    if (farm_signal_count() < 2 && farmctl_run_in_progress(st)) {
        struct farm_result r;
        if (farmctl_stop(st, &r, e, sizeof(e)) != 0)
            fprintf(stderr, "ebfarm down: the staged stop failed: %s\n", e);
        farm_result_free(&r);
    }
    for (unsigned k = 0; k < 3; k++)
        killed += shut_down_role(st, order_of_exit[k], err, len);
    farm_reap();
    hosts_cleanup(st, keep);
    snprintf(path, sizeof(path), "%s/farm.state", st->run_dir);
    farm_rundir_unlink(path);
    if (!keep)
        farm_rm_rf(st->run_dir);
    return killed ? -1 : 0;
}
