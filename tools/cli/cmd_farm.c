/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_farm.c - ebfarm up, start, stop, down and status: a farm file's processes under control. */
#include "cmd_farm.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "acct.h"
#include "ctlclient.h"
#include "ebf_fsm.h"
#include "ebf_pb.h"
#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_demo.h"
#include "farm_fo_view.h"
#include "farm_launch.h"
#include "farm_proc.h"
#include "farm_runid.h"
#include "farm_signal.h"
#include "farm_state.h"
#include "farmctl.h"
#include "farmfile.h"
#include "jsonout.h"
#include "ledger.h"
#include "ro_stats.h"
#include "summary.h"

/* Options every farm command takes: --farm NAME, --json, --keep,
 * --no-start, --run N. */
struct farm_opts {
    const char *farm;
    const char *run;             /* --run N as given; NULL: the farm's counter */
    int json, keep, no_start;
};

static int farm_opts(int argc, char **argv, struct farm_opts *o, const char *usage)
{
    static const struct option lo[] = {
        {"farm", 1, 0, 'f'}, {"json", 0, 0, 'j'}, {"keep", 0, 0, 'k'},
        {"no-start", 0, 0, 'n'}, {"run", 1, 0, 'r'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    int ch;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'f': o->farm = optarg; break;
        case 'j': o->json = 1; break;
        case 'k': o->keep = 1; break;
        case 'n': o->no_start = 1; break;
        case 'r': o->run = optarg; break;
        case 'h': printf("%s", usage); exit(0);
        default: fprintf(stderr, "%s", usage); return -1;
        }
    }
    return 0;
}

static int find(const struct farm_opts *o, struct farm_state *st, const char *cmd)
{
    char err[1024];

    if (farm_state_find(o->farm, st, err, sizeof(err)) != 0 ||
        ctl_use_keys(st->keys, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

/* The run number --run asks for into *want (0: none given). 0, or -1
 * after a message. */
static int run_wanted(const struct farm_opts *o, const char *cmd, uint32_t *want)
{
    char err[256];

    *want = 0;
    if (o->run && farm_run_parse(o->run, want, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

/* The farm's command lock, held until this process exits (a second up,
 * start, stop or down on the same farm is refused with the holder named).
 * 0, or -1 after a message. */
static int lock_farm(const char *name, const char *cmd)
{
    char err[1024];

    if (farm_state_lock(name, cmd, err, sizeof(err)) < 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        return -1;
    }
    return 0;
}

/* find, then the farm's command lock; the state is read again under the
 * lock, since the holder may have changed it. */
static int find_locked(const struct farm_opts *o, struct farm_state *st, const char *cmd)
{
    return find(o, st, cmd) || lock_farm(st->name, cmd) || find(o, st, cmd);
}

/* Start the next run of st: number want, or the farm's counter's (which
 * moves past it). 0, or -1 after a message; a run that no process took
 * gives its number back. Under the farm's command lock. */
static int start_run(struct farm_state *st, uint32_t want, const char *cmd, const char *after)
{
    char err[1024];
    uint32_t run;
    int rc;

    if (farm_run_take(st->name, want, &run, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s%s\n", cmd, err, after);
        return -1;
    }
    if ((rc = farmctl_start(st, run, err, sizeof(err))) == -2)
        farm_run_give_back(st->name, run);
    if (rc) {
        fprintf(stderr, "ebfarm %s: %s%s\n", cmd, err, after);
        return -1;
    }
    return 0;
}

/* Bring spec (loaded from path) up under the base directory, in
 * <base>/<farm name>, and note path in its state. Interrupted by a signal,
 * it removes the run directory too, unless keep. 0, or -1 after a message. */
static int bring_up(const struct farm_spec *spec, const char *path, int keep,
                    struct farm_state *st)
{
    char err[1024], build[PATH_MAX], run_dir[600];
    const char *base = farm_state_base_dir();

    if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm up: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        return -1;
    }
    if (mkdir(base, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ebfarm up: cannot create %s: %s\n", base, strerror(errno));
        return -1;
    }
    snprintf(run_dir, sizeof(run_dir), "%s/%s", base, spec->name);
    farm_signal_catch();
    if (farmctl_up(spec, build, run_dir, st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm up: %s\n", err);
        if (farm_signal_count() && !keep)   /* interrupted: nothing stays, logs neither */
            farm_rm_rf(run_dir);
        return -1;
    }
    if (!realpath(path, st->farm_file))
        snprintf(st->farm_file, sizeof(st->farm_file), "%s", path);
    if (farm_state_save_err(st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm up: %s (the farm stays up: ebfarm status, ebfarm down)\n", err);
        return -1;
    }
    return 0;
}

int cmd_up(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm up FARM.yaml [--no-start | --run N] [--keep]\n"
        "  starts every process of the farm on its host (here, over ssh, or in a\n"
        "  network namespace made for it), configures them and starts\n"
        "  the farm's next run, or run N (with --no-start: stops at CONFIGURED; then\n"
        "  ebfarm start). Interrupted while starting, it stops what it started and\n"
        "  removes the run directory; with --keep the directory and its logs stay\n";
    struct farm_opts o = {0};
    struct farm_spec *spec = calloc(1, sizeof(*spec));
    struct farm_state *st = malloc(sizeof(*st));
    char err[1024];
    uint32_t want;
    int rc = 1;

    if (!spec || !st || farm_opts(argc, argv, &o, usage) || run_wanted(&o, "up", &want))
        goto out;
    if (optind != argc - 1) {
        fprintf(stderr, "%s", usage);
        goto out;
    }
    if (o.run && o.no_start) {
        fprintf(stderr, "ebfarm up: --run numbers the run that up starts: not with --no-start "
                "(give it to ebfarm start)\n");
        goto out;
    }
    if (farm_spec_load(argv[optind], spec, err, sizeof(err)) != 0 ||
        ctl_keys_check(spec->keys, argv[optind], err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm up: %s\n", err);
        goto out;
    }
    if (lock_farm(spec->name, "up") || bring_up(spec, argv[optind], o.keep, st) != 0)
        goto out;
    if (!o.no_start &&
        start_run(st, want, "up", " (the farm stays up: ebfarm status, ebfarm down)") != 0)
        goto out;
    if (o.no_start)
        printf("farm '%s' is up: %u processes, CONFIGURED (state and logs in %s)\n", st->name,
               st->n, st->run_dir);
    else
        printf("farm '%s' is up: %u processes, run %u RUNNING (state and logs in %s)\n",
               st->name, st->n, st->run_number, st->run_dir);
    rc = 0;
out:
    if (rc && farm_signal_count())      /* interrupted: as demo and soak say it */
        rc = 128 + farm_signal_last();
    if (rc && spec)
        farm_state_lock_remove(spec->name);     /* a failed up left no state */
    free(spec);
    free(st);
    return rc;
}

int cmd_start(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm start [--farm NAME] [--run N]\n"
        "  starts the next run of a farm that is up and CONFIGURED, or run N (then\n"
        "  the runs after it count on from N + 1)\n";
    struct farm_opts o = {0};
    struct farm_state st;
    uint32_t want;

    if (farm_opts(argc, argv, &o, usage) || run_wanted(&o, "start", &want) ||
        find_locked(&o, &st, "start") || start_run(&st, want, "start", "") != 0)
        return 1;
    printf("farm '%s': run %u RUNNING\n", st.name, st.run_number);
    return 0;
}

/* The staged stop of st's run and its summary (JSON with json), for cmd
 * ("ebfarm stop"). 0 when the ledger closes, 1 when it does not or the
 * stop failed (after a message). */
static int stop_and_report(const struct farm_state *st, int json, const char *cmd)
{
    struct farm_spec *spec = calloc(1, sizeof(*spec));
    struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char err[1024];
    int rc = 1;

    if (!spec) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        return 1;
    }
    /* A first Ctrl-C lets the staged stop finish; a second ends it. */
    farm_signal_catch();
    if (farmctl_stop(st, &r, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s: %s\n", cmd, err);
        farm_result_free(&r);
        goto out;
    }
    if (farm_spec_load(st->farm_file, spec, err, sizeof(err)) == 0) {
        farm_conf_of(spec, &c);
        farm_result_hosts(spec, &r);
    } else {
        farm_conf_default(&c);
    }
    c.nodes = r.n_nodes;
    ledger_close(&r, &l);
    if (json)
        summary_json_or_say(&c, &r, &l, cmd);
    else
        summary_text(stdout, &c, &r, &l);
    farm_result_free(&r);
    rc = l.closed ? 0 : 1;
    if (!l.closed)
        fprintf(stderr, "%s: the ledger does not close\n", cmd);
out:
    free(spec);
    return rc;
}

int cmd_stop(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm stop [--farm NAME] [--json]\n"
        "  the staged stop: readouts stop generating, SFCs drain and wait for every\n"
        "  ack, nodes finish; then prints the run summary with its ledger.\n"
        "  Exits 1 when the ledger does not close, 3 when no run was in progress\n"
        "  (the farm is already stopped: nothing is printed again).\n";
    struct farm_opts o = {0};
    struct farm_state st;

    if (farm_opts(argc, argv, &o, usage) || find_locked(&o, &st, "stop"))
        return 1;
    if (!farmctl_run_in_progress(&st)) {
        fprintf(stderr, "ebfarm stop: farm '%s' is already stopped: run %u is not in progress "
                "(ebfarm start begins the next; the stop that ended it printed its summary)\n",
                st.name, st.run_number);
        return 3;
    }
    return stop_and_report(&st, o.json, "ebfarm stop");
}

int cmd_down(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm down [--farm NAME] [--keep] [--json]\n"
        "  stops a run in progress in stages and prints its summary with the ledger\n"
        "  (as ebfarm stop), then shuts every process down, removes sockets, DPDK\n"
        "  runtime files and (unless --keep) the run directory with its logs.\n"
        "  Exits 1 when the ledger does not close or a process had to be killed\n";
    struct farm_opts o = {0};
    struct farm_state st;
    char err[1024];
    int rc = 0;

    if (farm_opts(argc, argv, &o, usage) || find_locked(&o, &st, "down"))
        return 1;
    if (farmctl_run_in_progress(&st))
        rc = stop_and_report(&st, o.json, "ebfarm down");
    if (farmctl_down(&st, o.keep, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm down: %s\n", err);
        return 1;
    }
    fprintf(o.json ? stderr : stdout, "farm '%s' is down: %u processes stopped\n", st.name,
            st.n);
    farm_state_lock_remove(st.name);
    return rc;
}

/* What status says of process i: its state, or EXITED (it has gone) or
 * NO_ANSWER (it runs but its control endpoint did not answer), and a note:
 * its error, how it ended, or why it did not answer. */
struct proc_view {
    const char *state;
    char note[1024];
};

/* A readout's SFCs given up, appended to note: "gave up SFC 1 (its place
 * in sfcs) from event 31024 on". */
static void sfcs_given_up(const Ebfarm__Snapshot *m, char *note, size_t len)
{
    char k[16];

    for (unsigned i = 0; m && i < FF_MAX_SFCS; i++) {
        snprintf(k, sizeof(k), "%u", i);
        if (ebf_pb_counter(m, RO_NAME(SFC_GONE), k, 0) != 1)
            continue;
        size_t o = strlen(note);
        snprintf(note + o, len - o, "%sgave up SFC %u (its place in sfcs) from event %llu on",
                 o ? "; " : "", i,
                 (unsigned long long)ebf_pb_counter(m, RO_NAME(SFC_GONE_FROM), k, 0));
    }
}

static void view_of(const struct farm_state *st, unsigned i, const Ebfarm__Reply *r,
                    struct proc_view *v)
{
    const struct farm_proc *p = &st->proc[i];
    char how[128];

    v->note[0] = '\0';
    if (r && r->status) {
        v->state = ebf_state_name((enum ebf_state)r->status->state);
        if (r->status->error[0])
            snprintf(v->note, sizeof(v->note), "%s", r->status->error);
        else if (r->status->finished)
            snprintf(v->note, sizeof(v->note), "finished generating");
        if (p->role == FARM_READOUT)
            sfcs_given_up(r->status->metrics, v->note, sizeof(v->note));
    } else if (!farm_launch_alive(st, p)) {
        char where[700];
        v->state = "EXITED";
        farm_launch_log_where(st, p, where, sizeof(where));
        if (farm_launch_exit_how(st, p, how, sizeof(how)) == 0)
            snprintf(v->note, sizeof(v->note), "%s (log: %s)", how, where);
        else
            snprintf(v->note, sizeof(v->note), "gone; how it ended was not recorded (log: %s)",
                     where);
    } else {
        v->state = "NO_ANSWER";
        snprintf(v->note, sizeof(v->note), "runs, but no answer on %s within %d ms", p->control,
                 FARM_REPLY_MS);
    }
}

/* The farm's totals from the replies, each process at its place in the
 * farm file it was brought up from (none known when that file cannot be
 * read: a gone SFC's nodes then do not stand in for it, acct.h). */
static void status_totals(const struct farm_state *st, Ebfarm__Reply **rep,
                          struct acct_totals *t)
{
    int place[FARM_MAX_PROCS];

    farm_state_places(st, place);
    farm_status_totals(st, rep, place, t);
}

/* {...}: every counter of m under its stats-file key, the label values
 * folded into the name ("rx.reject.bad_checksum"), as the DPDK telemetry
 * command /ebfarm/counters lists them ('/' for '.'); {} when the process
 * gave no counters. */
static json_t *counters_json(const Ebfarm__Snapshot *m)
{
    json_t *o = json_object();
    char key[512];

    for (size_t i = 0; o && m && i < m->n_counters; i++) {
        const Ebfarm__Counter *c = m->counters[i];
        size_t n = (size_t)snprintf(key, sizeof(key), "%s", c->name);
        for (size_t l = 0; l < c->n_labels && n < sizeof(key); l++)
            n += (size_t)snprintf(key + n, sizeof(key) - n, ".%s", c->labels[l]->value);
        if (jout_set(o, key, jout_u64(c->value)) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* Process i: its state as status_text shows it, where it runs, its counters. */
static json_t *proc_json(const struct farm_state *st, unsigned i, const Ebfarm__Reply *r)
{
    const struct farm_proc *p = &st->proc[i];
    const Ebfarm__Snapshot *m = r && r->status ? r->status->metrics : NULL;
    struct proc_view v;

    view_of(st, i, r, &v);
    return json_pack("{s:o, s:s, s:i, s:s, s:I, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
                     jout_str(p->name), "component", farm_role_name(p->role), "pid",
                     (int)p->pid, "state", v.state, "run_number",
                     (json_int_t)(r && r->status ? r->status->run_number : 0), "finished",
                     r && r->status && r->status->finished, "error",
                     jout_str(r && r->status ? r->status->error : v.note), "control",
                     jout_str(p->control), "metrics", jout_str(p->metrics), "host",
                     jout_str(p->host), "farm",
                     jout_str(m && m->farm ? m->farm : ""),  /* the name its snapshots carry */
                     "counters", counters_json(m));
}

/* The totals by name, each null when unknown, then "without": the
 * processes that gave no counters. */
static json_t *totals_json(const struct acct_totals *t)
{
    json_t *o = json_object();
    int known;

    for (unsigned i = 0; o && i < ACCT_ITEMS; i++) {
        uint64_t v = acct_item_value(t, (enum acct_item)i, &known);
        if (jout_set(o, acct_item_name((enum acct_item)i),
                     known ? jout_u64(v) : json_null()) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    if (o && jout_set(o, "without", jout_str(t->missing)) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The run: farm, number, start, the farm file's hash, insecure or not. */
static json_t *run_json(const struct farm_state *st)
{
    char t0[32];
    json_t *o = json_pack("{s:o, s:I, s:o, s:o}", "farm", jout_str(st->name), "run_number",
                          (json_int_t)st->run_number, "run_start_utc",
                          jout_str_or_null(farm_utc_iso(st->run_start_ms, t0, sizeof(t0))),
                          "farm_file_sha256", jout_str_or_null(st->farm_file_sha256));

    if (o && st->insecure && jout_set(o, "insecure", json_true()) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void status_json(const struct farm_state *st, Ebfarm__Reply **rep,
                        const struct acct_totals *t)
{
    json_t *procs = json_array(), *o = run_json(st);

    for (unsigned i = 0; procs && i < st->n; i++)
        if (jout_append(procs, proc_json(st, i, rep[i])) != 0) {
            json_decref(procs);
            procs = NULL;
        }
    struct farm_fo_view fo;

    if (o && jout_merge(o, json_pack("{s:o, s:o, s:o}", "run_dir", jout_str(st->run_dir),
                                     "processes", procs, "totals", totals_json(t))) != 0) {
        json_decref(o);
        o = NULL;
    } else if (!o) {
        json_decref(procs);
    }
    farm_fo_view_replies(&fo, st, rep);
    if (o && fo.on && jout_set(o, "failover", farm_fo_view_json(&fo)) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (jout_write(stdout, o, JOUT_COMPACT) != 0)
        fprintf(stderr, "ebfarm status: the JSON could not be written\n");
}

static void status_text(const struct farm_state *st, Ebfarm__Reply **rep,
                        const struct acct_totals *t)
{
    char item[ACCT_MISSING_MAX + 32];

    printf("farm %s, run %u (%s)\n", st->name, st->run_number, st->run_dir);
    if (st->insecure)
        printf("%s\n", FARM_INSECURE_NOTE);
    printf("%-12s %-8s %8s %-10s %5s  %s\n", "NAME", "ROLE", "PID", "STATE", "RUN", "NOTE");
    for (unsigned i = 0; i < st->n; i++) {
        const Ebfarm__Reply *r = rep[i];
        struct proc_view v;
        view_of(st, i, r, &v);
        printf("%-12s %-8s %8d %-10s %5u  %s\n", st->proc[i].name,
               farm_role_name(st->proc[i].role), (int)st->proc[i].pid, v.state,
               r && r->status ? r->status->run_number : 0, v.note);
    }
    printf("totals:");
    for (unsigned i = 0; i < ACCT_ITEMS; i++)
        printf("%s %s", i ? "," : "", acct_item_text(t, (enum acct_item)i, item, sizeof(item)));
    if (t->n_missing)
        printf(" %s", acct_missing_text(t, item, sizeof(item)));
    printf("\n");
    struct farm_fo_view fo;
    farm_fo_view_replies(&fo, st, rep);
    farm_fo_view_text(stdout, &fo, "failover: ");
}

int cmd_status(int argc, char **argv)
{
    static const char usage[] = "usage: ebfarm status [--farm NAME] [--json]\n"
                                "  the state of every process of the farm and its totals\n";
    struct farm_opts o = {0};
    struct farm_state st;
    Ebfarm__Reply *rep[FARM_MAX_PROCS];
    struct acct_totals t;
    int all = 1;

    if (farm_opts(argc, argv, &o, usage) || find(&o, &st, "status"))
        return 1;
    farm_status(&st, rep);
    status_totals(&st, rep, &t);
    if (o.json)
        status_json(&st, rep, &t);
    else
        status_text(&st, rep, &t);
    for (unsigned i = 0; i < st.n; i++)
        all &= rep[i] != NULL;
    farm_free_replies(&st, rep);
    return all ? 0 : 1;
}
