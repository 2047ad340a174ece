/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_run.c - ebfarm soak: a farm run for a set time, sampled every interval, judged and reported. */
#include "soak_run.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctlclient.h"
#include "ebf_util.h"
#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_proc.h"
#include "farm_runid.h"
#include "farm_scenario.h"
#include "farm_signal.h"
#include "farm_state.h"
#include "farmctl.h"
#include "farmfile.h"
#include "farmfile_multi.h"
#include "ledger.h"
#include "snapsub.h"
#include "soak_fo.h"
#include "soak_html.h"
#include "soak_report.h"
#include "soak_sample.h"

/* Everything a soak holds, on the heap (samples and accumulators are large). */
struct soak {
    const struct soak_opts *o;
    struct farm_spec spec;
    struct farm_state st;
    struct snapsub ss;
    struct soak_acc acc;
    struct soak_sample prev, cur;
    struct soak_sample base;     /* the first sample of a soak that attached; zero otherwise */
    struct soak_interval *iv;
    unsigned n_iv, cap_iv;
    struct soak_meta meta;
    char build[PATH_MAX], out_dir[PATH_MAX];
    FILE *jsonl, *csv, *live;
    double t0;
    double next;                 /* the next interval's end, seconds since t0 */
    int broken;                  /* an interval could not be kept (out of memory) */
    unsigned next_node;          /* the node the next kill takes */
    struct soak_fo fo;           /* SFCs killed and restarted, drained and undrained */
    char note[256];              /* processes found gone unasked */
    unsigned gone;
    int out_closed;              /* standard output's reader went away (EPIPE) */
};

/* SIGPIPE is caught (not ignored, so that the daemons the soak starts get
 * the default back at exec) and does nothing: a write to a closed pipe
 * fails with EPIPE instead, which out_check() sees. */
static void on_sigpipe(int sig)
{
    (void)sig;
}

/* Whether the soak goes on after writing to stdout: once stdout's reader
 * went away (the write failed: `soak --json | head -1`), the soak says so on
 * stderr, writes no more to stdout and ends early as if interrupted: staged
 * stop, report, down. 0 while stdout works, -1 once it failed. */
static int out_check(struct soak *s)
{
    if (s->out_closed)
        return -1;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    s->out_closed = 1;
    if (s->live == stdout)
        s->live = stderr;
    fprintf(stderr, "ebfarm soak: standard output closed (%s): stopping the soak in stages\n",
            strerror(errno ? errno : EPIPE));
    return -1;
}

/* Whether the soak ends early: a signal, or stdout closed. */
static int cut_short(const struct soak *s)
{
    return farm_signal_count() || s->out_closed;
}

/* Bring the farm up in <base>/<name> and start its next run. 0, or -1 after a message. */
static int bring_up(struct soak *s)
{
    char err[1024], run_dir[600];
    const char *base = farm_state_base_dir();
    uint32_t run;

    if (mkdir(base, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ebfarm soak: cannot create %s: %s\n", base, strerror(errno));
        return -1;
    }
    snprintf(run_dir, sizeof(run_dir), "%s/%s", base, s->spec.name);
    if (farmctl_up(&s->spec, s->build, run_dir, &s->st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        if (farm_signal_count())
            farm_rm_rf(run_dir);
        return -1;
    }
    if (!realpath(s->o->farm_file, s->st.farm_file))
        snprintf(s->st.farm_file, sizeof(s->st.farm_file), "%s", s->o->farm_file);
    if (farm_state_save_err(&s->st, err, sizeof(err)) != 0 ||
        farm_run_take(s->st.name, 0, &run, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        return -1;
    }
    int rc = farmctl_start(&s->st, run, err, sizeof(err));
    if (rc == -2)
        farm_run_give_back(s->st.name, run);
    if (rc) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        return -1;
    }
    return 0;
}

/* The farm up and running: attached, or brought up. 0, or -1 after a message. */
static int farm_ready(struct soak *s)
{
    char err[1024];

    if (farm_state_lock(s->spec.name, "soak", err, sizeof(err)) < 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        return -1;
    }
    s->meta.attached = farm_state_find(s->spec.name, &s->st, err, sizeof(err)) == 0;
    if (s->meta.attached)
        fprintf(stderr, "ebfarm soak: farm '%s' is up: soaking its run %u\n", s->st.name,
                s->st.run_number);
    else if (bring_up(s) != 0)
        return -1;
    if (ctl_use_keys(s->st.keys, err, sizeof(err)) != 0 ||
        snapsub_open(&s->ss, &s->st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        if (!s->meta.attached && farmctl_down(&s->st, 0, err, sizeof(err)) != 0)
            fprintf(stderr, "ebfarm soak: down: %s\n", err);
        return -1;
    }
    return 0;
}

/* Wait up to timeout_s for snapshots and take them; -1 once a signal came. */
static int pump(struct snapsub *ss, double timeout_s)
{
    zmq_pollitem_t items[FARM_MAX_PROCS];

    snapsub_pollitems(ss, items);
    int rc = zmq_poll(items, (int)ss->n, (long)(timeout_s * 1000));
    if (rc > 0)
        for (unsigned i = 0; i < ss->n; i++)
            if (items[i].revents & ZMQ_POLLIN)
                snapsub_recv(ss, i);
    return farm_signal_count() ? -1 : 0;
}

/* Whether process i runs on this machine (a local host or a network
 * namespace of it), where its pid, /proc and log are ours to read. */
static int on_this_host(const struct soak *s, unsigned i)
{
    for (unsigned h = 0; h < s->spec.n_hosts; h++)
        if (strcmp(s->spec.host[h].name, s->st.proc[i].host) == 0)
            return s->spec.host[h].kind != FF_HOST_SSH;
    return 1;
}

/* Whether process i is alive; one on another host counts as alive (its
 * snapshots say how it is). */
static int alive(const struct soak *s, unsigned i)
{
    return !on_this_host(s, i) || farm_alive(s->st.proc[i].pid);
}

/* Note processes of the farm that are gone and that the soak did not kill. */
static void check_alive(struct soak *s)
{
    for (unsigned i = 0; i < s->st.n; i++) {
        if (alive(s, i) || strstr(s->note, s->st.proc[i].name))
            continue;
        size_t o = strlen(s->note);
        snprintf(s->note + o, sizeof(s->note) - o, "%s%s exited", o ? ", " : "",
                 s->st.proc[i].name);
        s->gone++;
    }
}

/* Bytes of process p's log files in the run directory: <name>.log and, once
 * restarted, <name>.restart.log. */
static uint64_t log_bytes(const struct farm_state *st, const struct farm_proc *p)
{
    static const char *const ext[] = {".log", ".restart.log"};
    char path[sizeof(st->run_dir) + FF_NAME_MAX + 16];
    uint64_t n = 0;
    struct stat sb;

    for (unsigned k = 0; k < 2; k++) {
        snprintf(path, sizeof(path), "%s/%s%s", st->run_dir, p->name, ext[k]);
        if (stat(path, &sb) == 0)
            n += (uint64_t)sb.st_size;
    }
    return n;
}

/* Whether process i's latencies from the readouts' transmit time compare
 * two clocks: an SFC or node whose readouts are on a host it shares no
 * clock with. */
static int apart(const struct soak *s, unsigned i)
{
    const struct farm_spec *sp = &s->spec;
    const char *name = s->st.proc[i].name;

    if (s->st.proc[i].role == FARM_SFC)
        for (unsigned k = 0; k < sp->n_sfcs; k++)
            if (strcmp(sp->sfc[k].p.name, name) == 0)
                return ff_sfc_readouts_apart(sp, k);
    if (s->st.proc[i].role == FARM_NODE)
        for (unsigned j = 0; j < sp->n_nodes; j++)
            if (strcmp(sp->node[j].p.name, name) == 0)
                return ff_node_readouts_apart(sp, j);
    return 0;
}

/* Sample the farm now from snaps[i] (NULL: each process's newest snapshot of the run). */
static int take(struct soak *s, Ebfarm__Snapshot *const *snaps, struct soak_sample *out)
{
    struct soak_proc_in in[FARM_MAX_PROCS];

    for (unsigned i = 0; i < s->st.n; i++) {
        const Ebfarm__Snapshot *c = snaps ? snaps[i] : s->ss.p[i].cur;
        in[i] = (struct soak_proc_in){
            .name = s->st.proc[i].name, .component = farm_role_name(s->st.proc[i].role),
            .snap = c && c->run_number == s->st.run_number ? c : NULL,
            .pid = alive(s, i) ? s->st.proc[i].pid : 0, .apart = apart(s, i),
            .placed = 1, .place = farm_spec_place(&s->spec, s->st.proc[i].name),
        };
        /* Elsewhere a process's snapshots carry its RSS (and no log size). */
        if (on_this_host(s, i)) {
            in[i].rss_kb = in[i].pid ? ebf_rss_kb(in[i].pid) : 0;
            in[i].log_bytes = log_bytes(&s->st, &s->st.proc[i]);
        }
    }
    check_alive(s);
    if (soak_sample_take(&s->acc, in, s->st.n, snapsub_now() - s->t0, out) != 0 ||
        (s->fo.decided > 0 &&
         soak_counts_add(&out->c, SOAK_FO_DECIDED, (uint64_t)s->fo.decided) != 0))
        fprintf(stderr, "ebfarm soak: more than %d distinct counts: some are left out\n",
                SOAK_MAX_COUNTS);
    return 0;
}

/* The interval from the previous sample to s->cur: kept, written, shown. */
static int interval(struct soak *s)
{
    if (s->n_iv == s->cap_iv) {
        unsigned cap = s->cap_iv ? 2 * s->cap_iv : 64;
        struct soak_interval *p = realloc(s->iv, cap * sizeof(*p));
        if (!p) {
            fprintf(stderr, "ebfarm soak: out of memory at interval %u\n", s->n_iv + 1);
            return -1;
        }
        s->iv = p;
        s->cap_iv = cap;
    }
    struct soak_interval *iv = &s->iv[s->n_iv];
    if (soak_interval_of(&s->prev, &s->cur, s->n_iv + 1, iv) != 0)
        fprintf(stderr, "ebfarm soak: interval %u: a count went down\n", s->n_iv + 1);
    s->n_iv++;
    s->prev = s->cur;
    if (s->live != stdout || !s->out_closed)
        soak_live_line(s->live, iv);
    soak_json_interval(s->jsonl, iv);
    if (s->o->json && !s->out_closed)
        soak_json_interval(stdout, iv);
    out_check(s);
    soak_csv_row(s->csv, iv);
    fflush(s->csv);
    return 0;
}

/* After an SFC fault held the loop for seconds: the snapshots queued
 * meanwhile, then a fresh one of each process, before the next sample
 * (else the next intervals are a stale one, an empty one and a spike). */
static void catch_up(struct soak *s)
{
    double end = snapsub_now() + s->ss.period_s + 0.2;

    while (snapsub_now() < end && pump(&s->ss, 0.05) == 0)
        ;
}

/* The interval end due, if any, sampled: the main loop's, and what a
 * drain calls while it waits (struct farm_idle), so that the intervals go
 * on through a drain and show its dip. */
static void sample_due(void *arg)
{
    struct soak *s = arg;

    if (pump(&s->ss, 0) < 0 || s->broken)
        return;
    double t = snapsub_now() - s->t0;
    if (t < s->next || s->next >= s->o->duration_s)
        return;
    take(s, NULL, &s->cur);
    if (interval(s) != 0)
        s->broken = 1;
    s->next += s->o->interval_s;
}

/* The fault due at t, if any: a node killed and started again, every node
 * stalled, an SFC restarted or drained (soak_fo.h). Returns the SFC
 * restarts done (a drain is sampled through). */
static unsigned faults(struct soak *s, double t, double *next_kill, double *next_stall)
{
    char err[1024];
    unsigned nodes = s->spec.n_nodes;

    if (s->o->kill_every_s > 0 && t >= *next_kill && nodes) {
        unsigned k = s->next_node++ % nodes;
        if (farm_kill_node_after(&s->st, k, 0, 30, err, sizeof(err)) != 0 ||
            farm_respawn_node(&s->st, &s->spec, s->build, k, err, sizeof(err)) != 0)
            fprintf(stderr, "ebfarm soak: node kill at %.0f s: %s\n", t, err);
        else
            s->meta.kills++;
        *next_kill += s->o->kill_every_s;
    }
    if (s->o->stall_every_s > 0 && t >= *next_stall) {
        if (farm_stall_nodes(&s->st, 0, s->o->stall_ms, 30, err, sizeof(err)) != 0)
            fprintf(stderr, "ebfarm soak: node stall at %.0f s: %s\n", t, err);
        else
            s->meta.stalls++;
        *next_stall += s->o->stall_every_s;
    }
    struct farm_idle idle = {.fn = sample_due, .arg = s};
    unsigned done = soak_fo_faults(&s->fo, &s->st, &s->spec, s->build, t, &s->acc, &idle);
    if (done)
        catch_up(s);
    return done;
}

/* Until every live process has sent a snapshot of the run (at most four
 * metrics periods and 2 s): the base of a soak that attached. */
static void wait_snapshots(struct soak *s)
{
    double give_up = snapsub_now() + 4 * s->ss.period_s + 2;
    unsigned missing;

    do {
        missing = 0;
        for (unsigned i = 0; i < s->st.n; i++) {
            const Ebfarm__Snapshot *c = s->ss.p[i].cur;
            missing += alive(s, i) &&
                       (!c || c->run_number != s->st.run_number);
        }
    } while (missing && snapsub_now() < give_up && pump(&s->ss, 0.1) == 0);
    if (missing)
        fprintf(stderr, "ebfarm soak: %u processes sent no snapshot of run %u: their counts so "
                "far go into the first interval\n", missing, s->st.run_number);
}

/* Sample every interval until the duration has passed or a signal came. */
static int sample_loop(struct soak *s)
{
    const struct soak_opts *o = s->o;
    double kill = o->kill_every_s, stall = o->stall_every_s;

    s->next = o->interval_s;
    s->t0 = snapsub_now();
    soak_acc_init(&s->acc, s->st.n);
    if (s->meta.attached) {          /* the run so far is the base, not the first interval */
        wait_snapshots(s);
        take(s, NULL, &s->prev);
        s->prev.t = 0;
        s->base = s->prev;
    } else {
        take(s, NULL, &s->prev);     /* the run just started: its counts are 0 */
    }
    for (;;) {
        double t = snapsub_now() - s->t0;
        if (t >= o->duration_s || cut_short(s) || s->broken)
            break;
        if (faults(s, t, &kill, &stall)) {
            /* Interval ends an SFC restart held past are not sampled. */
            while (s->next < snapsub_now() - s->t0 && s->next + o->interval_s < o->duration_s)
                s->next += o->interval_s;
            continue;
        }
        double until = s->next < o->duration_s ? s->next : o->duration_s;
        if (t < until) {
            if (pump(&s->ss, until - t < 0.2 ? until - t : 0.2) < 0)
                break;
            continue;
        }
        take(s, NULL, &s->cur);
        if (interval(s) != 0)
            return -1;
        s->next += o->interval_s;
    }
    return s->broken ? -1 : 0;
}

/* The report's files in out_dir. 0, or -1 after a message. */
static int open_outputs(struct soak *s)
{
    char path[PATH_MAX + 16];

    if (s->o->out_dir)
        snprintf(s->out_dir, sizeof(s->out_dir), "%s", s->o->out_dir);
    else
        snprintf(s->out_dir, sizeof(s->out_dir), "soak-%s-run%u", s->st.name, s->st.run_number);
    if (mkdir(s->out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ebfarm soak: cannot create %s: %s\n", s->out_dir, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof(path), "%s/soak.jsonl", s->out_dir);
    s->jsonl = fopen(path, "w");
    snprintf(path, sizeof(path), "%s/soak.csv", s->out_dir);
    s->csv = fopen(path, "w");
    if (!s->jsonl || !s->csv) {
        fprintf(stderr, "ebfarm soak: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    s->live = s->o->json ? stderr : stdout;
    soak_csv_header(s->csv);
    return 0;
}

static void meta_init(struct soak *s)
{
    struct soak_meta *m = &s->meta;

    snprintf(m->farm, sizeof(m->farm), "%s", s->st.name);
    m->run = s->st.run_number;
    farm_utc_iso(farm_utc_now_ms(), m->start_utc, sizeof(m->start_utc));
    snprintf(m->farm_file, sizeof(m->farm_file), "%s", s->st.farm_file);
    snprintf(m->farm_file_sha256, sizeof(m->farm_file_sha256), "%s", s->st.farm_file_sha256);
    m->duration_s = s->o->duration_s;
    m->interval_s = s->o->interval_s;
    m->p99_bound_ms = s->o->bounds.p99_ms;
    m->kill_every_s = s->o->kill_every_s;
    m->stall_every_s = s->o->stall_every_s;
    m->kill_sfc_every_s = s->o->kill_sfc_every_s;
    m->drain_sfc_every_s = s->o->drain_sfc_every_s;
}

/* The ledger and the restarts as the verdict and the report see them. */
static void final_view(struct soak *s, const struct ledger *l, struct soak_ledger_view *v)
{
    struct soak_final *f = &v->f;
    unsigned restarts = 0;

    memset(v, 0, sizeof(*v));
    f->closed = l->closed;
    f->generated = l->generated;
    v->accepted = l->accepted;
    v->rejected = l->rejected;
    f->decided = l->accepted + l->rejected;
    f->lost_total = l->lost_total;
    v->digest_match = l->digest_match;
    v->ids_match = l->ids_match;
    for (unsigned i = 0; i < l->n_lost; i++)
        soak_counts_add(&f->lost, l->lost_name[i], l->lost[i]);
    f->incomplete = soak_counts_get(&s->cur.c, "incomplete");
    for (unsigned i = 0; i < s->cur.c.n; i++)
        if (strncmp(s->cur.c.c[i].name, "missing.", 8) == 0)
            soak_counts_add(&f->missing, s->cur.c.c[i].name + 8, s->cur.c.c[i].v);
    for (unsigned i = 0; i < s->acc.n; i++)
        restarts += s->acc.p[i].restarts;
    f->base_generated = soak_counts_get(&s->base.c, "generated");
    f->base_decided = soak_counts_get(&s->base.c, "accepted") +
                      soak_counts_get(&s->base.c, "rejected");
    f->base_lost = soak_counts_sum(&s->base.c, "lost.");
    unsigned asked = s->meta.kills + s->fo.kills;    /* a restarted SFC's counters too */
    s->meta.sfc_kills = s->fo.kills;
    s->meta.drains = s->fo.drains;
    f->restarts = s->gone + (restarts > asked ? restarts - asked : 0);
    if (snprintf(f->restart_note, sizeof(f->restart_note), "%s%s%u counter restarts, %u asked",
                 s->note, s->note[0] ? "; " : "", restarts, asked) < 0)
        f->restart_note[0] = '\0';
}

/* The staged stop, the final counters as the last interval, the verdict, the report. */
static int finish(struct soak *s, int *pass)
{
    Ebfarm__Reply *rep[FARM_MAX_PROCS];
    Ebfarm__Snapshot *snaps[FARM_MAX_PROCS];
    struct soak_ledger_view lv;
    struct soak_verdict v;
    struct farm_result r;
    struct ledger l;
    char err[1024], path[PATH_MAX + 16];

    if (farmctl_stop(&s->st, &r, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: the staged stop failed: %s\n", err);
        farm_result_free(&r);
        return -1;
    }
    farm_status(&s->st, rep);
    for (unsigned i = 0; i < s->st.n; i++)
        snaps[i] = rep[i] && rep[i]->status ? rep[i]->status->metrics : NULL;
    take(s, snaps, &s->cur);
    farm_free_replies(&s->st, rep);
    s->meta.elapsed_s = s->cur.t;
    interval(s);
    farm_result_hosts(&s->spec, &r);
    ledger_close(&r, &l);
    farm_result_free(&r);
    farm_utc_iso(farm_utc_now_ms(), s->meta.stop_utc, sizeof(s->meta.stop_utc));
    s->meta.interrupted = cut_short(s);
    final_view(s, &l, &lv);
    soak_judge(&s->o->bounds, s->iv, s->n_iv, &lv.f, &v);
    soak_json_summary(s->jsonl, &s->meta, &lv, &s->o->bounds, &v);
    if (s->o->json && !s->out_closed)
        soak_json_summary(stdout, &s->meta, &lv, &s->o->bounds, &v);
    out_check(s);
    snprintf(path, sizeof(path), "%s/soak.html", s->out_dir);
    FILE *h = fopen(path, "w");
    if (!h || soak_html_write(h, &s->meta, s->iv, s->n_iv, &lv, &v) != 0)
        fprintf(stderr, "ebfarm soak: cannot write %s: %s\n", path, strerror(errno));
    if (h)
        fclose(h);
    fprintf(s->live, "ledger: generated %llu = accepted %llu + rejected %llu + lost %llu: %s\n",
            (unsigned long long)l.generated, (unsigned long long)l.accepted,
            (unsigned long long)l.rejected, (unsigned long long)l.lost_total,
            l.closed ? "CLOSED" : "NOT CLOSED");
    char cut[64];
    snprintf(cut, sizeof(cut), "%.0f of %.0f s", s->meta.elapsed_s, s->o->duration_s);
    soak_verdict_text(s->live, &v, s->meta.interrupted ? cut : NULL);
    fprintf(s->live, "report: %s/soak.jsonl, soak.csv, soak.html\n", s->out_dir);
    *pass = v.pass;
    return 0;
}

/* Down when the soak brought the farm up; an attached farm stays up. */
static void leave(struct soak *s, int up)
{
    char err[1024];

    if (!up || s->meta.attached)
        return;
    if (farmctl_down(&s->st, 0, err, sizeof(err)) != 0)
        fprintf(stderr, "ebfarm soak: down: %s\n", err);
}

int soak_run(const struct soak_opts *o)
{
    struct soak *s = calloc(1, sizeof(*s));
    char err[1024];
    int rc = 2, up = 0, pass = 0;

    if (!s) {
        fprintf(stderr, "ebfarm soak: out of memory\n");
        return 2;
    }
    s->o = o;
    if (farm_spec_load(o->farm_file, &s->spec, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        goto out;
    }
    s->spec.run.events = 0;          /* the soak decides when the run ends */
    s->spec.run.duration_s = 0;
    soak_fo_init(&s->fo, o->kill_sfc_every_s, o->drain_sfc_every_s);
    if (soak_fo_check(&s->fo, &s->spec, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm soak: %s\n", err);
        goto out;
    }
    if (farm_build_dir(s->build, sizeof(s->build)) != 0) {
        fprintf(stderr, "ebfarm soak: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        goto out;
    }
    farm_signal_catch();
    struct sigaction sa = {.sa_handler = on_sigpipe};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
    if (farm_ready(s) != 0)
        goto out;
    up = 1;
    meta_init(s);
    if (open_outputs(s) != 0)
        goto out;
    soak_json_header(s->jsonl, &s->meta);
    if (o->json)
        soak_json_header(stdout, &s->meta);
    out_check(s);
    if (sample_loop(s) != 0 || finish(s, &pass) != 0)
        goto out;
    rc = farm_signal_count() ? 128 + farm_signal_last() : s->out_closed ? 128 + SIGPIPE :
         pass ? 0 : 1;
out:
    if (rc && farm_signal_count())      /* also a second Ctrl-C that cut the stop short */
        rc = 128 + farm_signal_last();
    if (up)
        snapsub_close(&s->ss);
    leave(s, up);
    farm_state_lock_remove(s->spec.name);       /* when this soak took the farm down */
    if (s->jsonl)
        fclose(s->jsonl);
    if (s->csv)
        fclose(s->csv);
    free(s->iv);
    free(s);
    return rc;
}
