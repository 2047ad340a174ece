/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl.c - the control thread: state machine over ZeroMQ, metrics, lcore rings. */
#include "ebf_ctl.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "ebf_ctl_private.h"
#include "ebf_ctl_tel.h"
#include "ebf_kv.h"
#include "ebf_util.h"

volatile sig_atomic_t ebf_ctl_force;
static volatile sig_atomic_t signals_seen;

void ebf_ctl_on_signal(int sig)
{
    (void)sig;
    if (signals_seen)
        ebf_ctl_force = 1;
    signals_seen++;
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_state(struct ebf_ctl *ctl, enum ebf_state s)
{
    if (s == ctl->state)
        return;
    CTL_LOG(INFO, "%s -> %s\n", ebf_state_name(ctl->state), ebf_state_name(s));
    ctl->state = s;
    ctl->since_ns = ebf_now_ns();
}

static void fail_state(struct ebf_ctl *ctl, const char *why)
{
    snprintf(ctl->error, sizeof(ctl->error), "%s", why);
    CTL_LOG(ERR, "%s\n", why);
    set_state(ctl, EBF_S_ERROR);
}

/* --- Rings ---------------------------------------------------------------- */

/* An asynchronous answer (the stop) or a late synchronous one. */
static void on_answer(struct ebf_ctl *ctl, struct ebf_req *r)
{
    if (r == &ctl->sync) {
        ctl->sync_lost = 0;      /* answered at last; nothing waits for it */
        return;
    }
    ctl->stop_out = 0;
    if (r->rc) {
        fail_state(ctl, r->err[0] ? r->err : "the drain failed");
        return;
    }
    memcpy(ctl->final, ctl->stop.snap, ctl->ops->snap_size);
    if (ctl->ops->ports)
        ctl->ops->ports(ctl->c.conf, ctl->final);
    ctl->have_final = 1;
    ctl->finished = r->finished;
    set_state(ctl, EBF_S_CONFIGURED);
}

static void collect(struct ebf_ctl *ctl)
{
    void *p;

    while (rte_ring_sc_dequeue(ctl->rsp, &p) == 0)
        on_answer(ctl, p);
}

/* Send r to the lcore and wait for its answer. Returns r->rc, or -ETIMEDOUT
 * (the lcore still owes the answer; later calls fail until it comes). */
static int call(struct ebf_ctl *ctl, enum ebf_op op)
{
    struct ebf_req *r = &ctl->sync;
    double end = mono_s() + ctl->c.reply_timeout_s;
    void *p;

    collect(ctl);
    if (ctl->sync_lost)
        return -ETIMEDOUT;
    r->op = op;
    r->rc = 0;
    r->err[0] = '\0';
    r->finished = 0;
    if (rte_ring_sp_enqueue(ctl->req, r) != 0)
        return -ENOBUFS;
    for (;;) {
        while (rte_ring_sc_dequeue(ctl->rsp, &p) == 0) {
            if (p == r)
                return r->rc;
            on_answer(ctl, p);
        }
        if (mono_s() > end) {
            ctl->sync_lost = 1;
            return -ETIMEDOUT;
        }
        usleep(50);
    }
}

/* --- Commands ------------------------------------------------------------- */

static int do_snapshot(struct ebf_ctl *ctl)
{
    ctl->sync.snap = ctl->snap;
    int rc = call(ctl, EBF_OP_SNAPSHOT);
    if (rc == -EIO) {           /* the snapshot is good; the data plane failed */
        if (ctl->state != EBF_S_ERROR)
            fail_state(ctl, ctl->sync.err);
        rc = 0;
    }
    if (rc == 0)
        ctl->finished = ctl->sync.finished;
    if (rc == 0 && ctl->ops->ports)
        ctl->ops->ports(ctl->c.conf, ctl->snap);
    return rc;
}

static int lcore_call(struct ebf_ctl *ctl, enum ebf_op op, char *err, size_t len)
{
    int rc = call(ctl, op);

    if (rc == -ETIMEDOUT)
        snprintf(err, len, "the data plane did not answer within %.0f s", ctl->c.reply_timeout_s);
    else if (rc)
        snprintf(err, len, "%s", ctl->sync.err[0] ? ctl->sync.err : strerror(-rc));
    return rc;
}

/* Parameter farm, which every daemon takes (its snapshots carry it): a
 * name of 1 to 32 characters of a-z, 0-9, '_' and '-' into farm. */
static int farm_param(char farm[33], const char *value, char *err, size_t len)
{
    size_t n = strlen(value);

    if (n >= 1 && n <= 32 && strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-") == n) {
        memcpy(farm, value, n + 1);
        return 0;
    }
    snprintf(err, len, "parameter 'farm': \"%s\" is not a farm name (1 to 32 characters of "
             "a-z, 0-9, _ and -)", value);
    return -1;
}

/* Configure: every parameter into a copy of the conf (farm apart), which
 * the lcore adopts; a refused one changes nothing. */
static int configure(struct ebf_ctl *ctl, const struct ebf_ctl_param *p, size_t np, char *err,
                     size_t len)
{
    const struct ebf_ctl_ops *o = ctl->ops;
    char farm[sizeof(ctl->farm)];

    memcpy(ctl->conf_scratch, ctl->conf_cur, o->conf_size);
    memcpy(farm, ctl->farm, sizeof(farm));
    for (size_t i = 0; i < np; i++)
        if (strcmp(p[i].key, "farm") == 0 ? farm_param(farm, p[i].value, err, len)
                                          : o->param(ctl->conf_scratch, p[i].key, p[i].value,
                                                     err, len))
            return -1;      /* refused: nothing changed */
    ctl->sync.conf = ctl->conf_scratch;
    if (lcore_call(ctl, EBF_OP_CONFIGURE, err, len))
        return -1;
    memcpy(ctl->conf_cur, ctl->conf_scratch, o->conf_size);
    memcpy(ctl->farm, farm, sizeof(farm));
    set_state(ctl, EBF_S_CONFIGURED);
    return 0;
}

/* Act: the one parameter names the daemon's action; the lcore carries it
 * out on the run in progress. A refusal (no such action, not now) leaves
 * the daemon as it was: 0, or -1 with err. */
static int act(struct ebf_ctl *ctl, const struct ebf_ctl_param *p, size_t np, char *err,
               size_t len)
{
    if (np != 1) {
        snprintf(err, len, "command 'act' takes one parameter (the action's name as its key), "
                 "not %zu", np);
        return -1;
    }
    ctl->sync.act = p[0];
    return lcore_call(ctl, EBF_OP_ACT, err, len) ? -1 : 0;
}

/*
 * Carry out command c (already allowed by the state machine). Returns 0, or
 * -1 with err set; a refusal leaves the state as it was, a data plane that
 * failed to carry out an allowed command puts the daemon in ERROR.
 */
static int execute(struct ebf_ctl *ctl, enum ebf_cmd c, uint32_t run,
                   const struct ebf_ctl_param *p, size_t np, char *err, size_t len)
{
    const struct ebf_ctl_ops *o = ctl->ops;

    switch (c) {
    case EBF_C_CONFIGURE:
        return configure(ctl, p, np, err, len);
    case EBF_C_RESET:
        if (lcore_call(ctl, EBF_OP_RESET, err, len))
            break;
        memcpy(ctl->conf_cur, ctl->conf_initial, o->conf_size);
        ctl->farm[0] = '\0';
        ctl->error[0] = '\0';
        set_state(ctl, EBF_S_INITIAL);
        return 0;
    case EBF_C_START:
        ctl->sync.run_number = run;
        ctl->sync.start_at_ns = ctl->rq.start_at_ns;   /* 0 for the autostart */
        if (lcore_call(ctl, EBF_OP_START, err, len))
            break;
        ctl->run_number = run;
        ctl->have_final = 0;
        ctl->finished = 0;
        set_state(ctl, EBF_S_RUNNING);
        return 0;
    case EBF_C_PAUSE:
    case EBF_C_RESUME:
        if (lcore_call(ctl, c == EBF_C_PAUSE ? EBF_OP_PAUSE : EBF_OP_RESUME, err, len))
            break;
        set_state(ctl, c == EBF_C_PAUSE ? EBF_S_PAUSED : EBF_S_RUNNING);
        return 0;
    case EBF_C_STOP:
        ctl->stop.op = EBF_OP_STOP;
        ctl->stop.rc = 0;
        ctl->stop.err[0] = '\0';
        if (rte_ring_sp_enqueue(ctl->req, &ctl->stop) != 0) {
            snprintf(err, len, "the request ring is full");
            break;
        }
        ctl->stop_out = 1;
        set_state(ctl, EBF_S_DRAINING);
        return 0;
    case EBF_C_SHUTDOWN:
        ctl->shutdown = 1;
        return 0;
    case EBF_C_ACT:
        return act(ctl, p, np, err, len);
    case EBF_C_STATUS:
    default:
        return 0;
    }
    if (ctl->state != EBF_S_ERROR)
        fail_state(ctl, err);
    return -1;
}

/* Check c against the state machine, then execute it. */
static int command(struct ebf_ctl *ctl, enum ebf_cmd c, uint32_t run,
                   const struct ebf_ctl_param *p, size_t np, char *err, size_t len)
{
    collect(ctl);
    err[0] = '\0';
    if (c <= 0 || c >= EBF_C_END) {
        snprintf(err, len, "unknown command %d (allowed: 1..%d, see ebfarm.proto)", (int)c,
                 EBF_C_END - 1);
        return -1;
    }
    if (!ebf_fsm_next(ctl->state, c)) {
        ebf_fsm_refusal(ctl->state, c, err, len);
        return -1;
    }
    if (c == EBF_C_START && run == 0) {
        snprintf(err, len, "command 'start' needs a run number above 0");
        return -1;
    }
    if (c == EBF_C_START && run > EBF_CTL_RUN_MAX) {
        snprintf(err, len, "command 'start': run number %" PRIu32 " is out of range (1 to %u)",
                 run, EBF_CTL_RUN_MAX);
        return -1;
    }
    return execute(ctl, c, run, p, np, err, len);
}

/* --- Requests and snapshots ------------------------------------------------ */

/* Log a refused request, at most as ctl->refusals allows (a peer can send
 * them at will), and report what was left out once its window ended; cmd
 * NULL: only the report (force: all left out so far, at exit). */
static void log_refusal(struct ebf_ctl *ctl, const char *cmd, const char *err, int force)
{
    const struct ebf_ratelim *rl = &ctl->refusals;
    double now = mono_s();
    uint64_t n = ebf_ratelim_report(&ctl->refusals, now, force);

    if (n)
        CTL_LOG(NOTICE, "suppressed %llu more refused requests (at most %u are logged every "
                "%g s)\n", (unsigned long long)n, rl->burst, rl->window_s);
    if (cmd && ebf_ratelim_take(&ctl->refusals, now))
        CTL_LOG(NOTICE, "refused '%s': %s\n", cmd, err);
}

/* What a reply, a snapshot and telemetry say of the daemon now. */
static struct ebf_ctl_status status(const struct ebf_ctl *ctl)
{
    return (struct ebf_ctl_status){
        .component = ctl->ops->component, .instance = ctl->instance, .farm = ctl->farm,
        .error = ctl->error, .state = ctl->state, .run_number = ctl->run_number,
        .since_ns = ctl->since_ns, .finished = ctl->finished, .period_ms = ctl->c.period_ms,
    };
}

/* ctl->ms := the metric list of snap and the process's memory, a copy of
 * it kept for telemetry. */
static const struct ebf_metrics *metrics(struct ebf_ctl *ctl, const void *snap)
{
    uint64_t rss_kb = ebf_rss_kb(0);
    struct ebf_ctl_status st = status(ctl);

    ebf_metrics_clear(&ctl->ms);
    ctl->ops->metrics(snap, &ctl->ms);
    /* The process's own memory, so that a reader on another host (ebfarm
     * soak) sees it in the snapshot: no /proc of ours to read there. */
    if (rss_kb)
        ebf_metrics_gauge(&ctl->ms, EBF_METRIC_RSS_BYTES, NULL, NULL, (double)rss_kb * 1024.0);
#define X(id, name)                                                                        \
    ebf_metrics_counter_l(&ctl->ms, EBF_METRIC_CTL_REFUSED, "reason", name,                \
                          ctl->refused[EBF_CTL_REFUSED_##id]);
    EBF_CTL_FOREACH_REFUSED(X)
#undef X
    ebf_ctl_tel_publish(&ctl->ms, &st);
    return &ctl->ms;
}

/* One request from the REP socket: decode, execute, always reply with the
 * counters: the lcore's now, or the drained run's when it cannot answer. */
static void serve_one(struct ebf_ctl *ctl)
{
    char err[512];
    int ok = 0;
    enum ebf_ctl_got got = ebf_ctl_wire_recv(&ctl->wire, &ctl->rq, err, sizeof(err));

    if (got == EBF_CTL_GOT_NONE)
        return;
    if (got == EBF_CTL_GOT_GARBAGE || got == EBF_CTL_GOT_MULTIPART) {
        ctl->refused[got == EBF_CTL_GOT_GARBAGE ? EBF_CTL_REFUSED_GARBAGE
                                                : EBF_CTL_REFUSED_MULTIPART]++;
        log_refusal(ctl, "?", err, 0);
    } else {
        enum ebf_cmd c = (enum ebf_cmd)ctl->rq.command;
        ok = got == EBF_CTL_GOT_REQUEST &&
             command(ctl, c, ctl->rq.run_number, ctl->rq.params, ctl->rq.n_params, err,
                     sizeof(err)) == 0;
        if (!ok) {
            ctl->refused[got == EBF_CTL_GOT_REQUEST ? EBF_CTL_REFUSED_COMMAND
                                                    : EBF_CTL_REFUSED_PARAMS]++;
            log_refusal(ctl, ebf_cmd_name(c), err, 0);
        }
    }
    const void *snap = NULL;
    if (do_snapshot(ctl) == 0)
        snap = ctl->snap;
    else if (ctl->have_final)
        snap = ctl->final;
    const struct ebf_metrics *ms = snap ? metrics(ctl, snap) : NULL;
    struct ebf_ctl_status st = status(ctl);
    ebf_ctl_wire_reply(&ctl->wire, ok, ok ? "" : err, &st, ms);
}

/* The lcore's counters on the PUB socket and for telemetry. The snapshot
 * is taken also with no PUB socket: it tells a standalone run that it has
 * finished. */
static void publish(struct ebf_ctl *ctl)
{
    if (do_snapshot(ctl) != 0)
        return;
    const struct ebf_metrics *ms = metrics(ctl, ctl->snap);
    if (ctl->wire.pub) {
        struct ebf_ctl_status st = status(ctl);
        ebf_ctl_wire_publish(&ctl->wire, &st, ms);
    }
}

/* Signals and standalone runs: stop a run, then shut down once it drained. */
static void local_commands(struct ebf_ctl *ctl)
{
    char err[256];

    if (signals_seen && !ctl->stop_then_exit) {
        CTL_LOG(NOTICE, "signal: staged stop, then exit\n");
        ctl->stop_then_exit = 1;
    }
    if (ctl->c.exit_when_finished && ctl->finished && ctl->state == EBF_S_RUNNING)
        ctl->stop_then_exit = 1;
    if (!ctl->stop_then_exit)
        return;
    if (ctl->state == EBF_S_RUNNING || ctl->state == EBF_S_PAUSED)
        command(ctl, EBF_C_STOP, 0, NULL, 0, err, sizeof(err));
    else if (ctl->state != EBF_S_DRAINING)
        ctl->shutdown = 1;
}

static void *ctl_main(void *arg)
{
    struct ebf_ctl *ctl = arg;
    double period = ctl->c.period_ms * 1e-3;
    char err[256];

    if (ctl->c.autostart && (command(ctl, EBF_C_CONFIGURE, 0, NULL, 0, err, sizeof(err)) ||
                             command(ctl, EBF_C_START, 1, NULL, 0, err, sizeof(err))))
        CTL_LOG(ERR, "cannot start: %s\n", err);
    ctl->next_pub = mono_s() + period;
    while (!ctl->shutdown) {
        log_refusal(ctl, NULL, NULL, 0);
        if (ebf_ctl_wire_wait(&ctl->wire, 20))
            serve_one(ctl);
        collect(ctl);
        local_commands(ctl);
        if (mono_s() >= ctl->next_pub) {
            publish(ctl);
            ctl->next_pub += period;
            if (ctl->next_pub < mono_s())
                ctl->next_pub = mono_s() + period;
        }
    }
    log_refusal(ctl, NULL, NULL, 1);
    /* Tell the lcore to leave; wait for it (it answers between passes). */
    ctl->sync.op = EBF_OP_EXIT;
    while (rte_ring_sp_enqueue(ctl->req, &ctl->sync) != 0)
        usleep(1000);
    return NULL;
}

/* --- Set-up --------------------------------------------------------------- */

/* Free everything ctl holds (the thread is joined or never started). */
static void release(struct ebf_ctl *ctl)
{
    ebf_ctl_wire_close(&ctl->wire);
    rte_ring_free(ctl->req);
    rte_ring_free(ctl->rsp);
    ebf_metrics_free(&ctl->ms);
    free(ctl->conf_initial);
    free(ctl->conf_cur);
    free(ctl->conf_scratch);
    free(ctl->snap);
    free(ctl->final);
    free(ctl->stop.snap);
    free(ctl);
}

/* ZeroMQ: the context, the ZAP handler, the sockets (whose threads start
 * with the first), on the control threads' CPUs. 0, or the errno of what
 * failed. */
static int open_zmq(struct ebf_ctl *ctl, const struct ebf_ctl_conf *c)
{
    struct ebf_ctl_wire_conf wc = {
        .who = ctl->ops->component, .control = c->control, .metrics = c->metrics,
        .curve_keys = c->curve_keys, .insecure = c->insecure,
    };
    cpu_set_t cpus;
    int moved = ebf_ctl_cpus_enter(&cpus);
    int e = ebf_ctl_wire_open(&ctl->wire, &wc);

    ebf_ctl_cpus_leave(&cpus, moved);
    return e;
}

struct ebf_ctl *ebf_ctl_create(const struct ebf_ctl_conf *c, const struct ebf_ctl_ops *ops)
{
    struct ebf_ctl *ctl = calloc(1, sizeof(*ctl));
    char name[RTE_RING_NAMESIZE];
    int e = ENOMEM;

    if (!ctl)
        return NULL;
    ctl->c = *c;
    ctl->ops = ops;
    if (ctl->c.period_ms <= 0)
        ctl->c.period_ms = 1000;
    if (ctl->c.reply_timeout_s <= 0)
        ctl->c.reply_timeout_s = 5;
    ebf_ratelim_init(&ctl->refusals, c->refusal_log_burst ? c->refusal_log_burst : 10,
                     c->refusal_log_window_s > 0 ? c->refusal_log_window_s : 10);
    snprintf(ctl->instance, sizeof(ctl->instance), "%s", c->instance ? c->instance : ops->component);
    ctl->state = EBF_S_INITIAL;
    ctl->since_ns = ebf_now_ns();
    ctl->conf_initial = malloc(ops->conf_size);
    ctl->conf_cur = malloc(ops->conf_size);
    ctl->conf_scratch = malloc(ops->conf_size);
    ctl->snap = calloc(1, ops->snap_size);
    ctl->final = calloc(1, ops->snap_size);
    ctl->stop.snap = calloc(1, ops->snap_size);
    if (!ctl->conf_initial || !ctl->conf_cur || !ctl->conf_scratch || !ctl->snap || !ctl->final ||
        !ctl->stop.snap || ebf_metrics_init(&ctl->ms, CTL_METRICS_MAX))
        goto fail;
    memcpy(ctl->conf_initial, c->conf, ops->conf_size);
    memcpy(ctl->conf_cur, c->conf, ops->conf_size);
    static unsigned instances;      /* ring names are unique per process */
    unsigned id = __atomic_fetch_add(&instances, 1, __ATOMIC_RELAXED);
    snprintf(name, sizeof(name), "ctl_req%u", id);
    ctl->req = rte_ring_create(name, 64, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(name, sizeof(name), "ctl_rsp%u", id);
    ctl->rsp = rte_ring_create(name, 64, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!ctl->req || !ctl->rsp) {
        e = rte_errno;
        goto fail;
    }
    e = open_zmq(ctl, c);
    if (e)
        goto fail;
    ebf_ctl_tel_register();
    e = rte_ctrl_thread_create(&ctl->thread, "ebf-ctl", NULL, ctl_main, ctl);
    if (e) {
        e = e < 0 ? -e : e;
        goto fail;
    }
    return ctl;
fail:
    release(ctl);
    errno = e;
    return NULL;
}

void ebf_ctl_destroy(struct ebf_ctl *ctl)
{
    if (!ctl)
        return;
    pthread_join(ctl->thread, NULL);
    release(ctl);
}

int ebf_ctl_write_stats(const struct ebf_ctl_ops *ops, void *dp, const void *conf,
                        const char *path)
{
    struct ebf_metrics ms;
    int finished, rc = -1;
    void *snap = calloc(1, ops->snap_size);
    FILE *f = NULL;

    if (!snap || ebf_metrics_init(&ms, CTL_METRICS_MAX)) {
        free(snap);
        errno = ENOMEM;
        return -1;
    }
    ops->snapshot(dp, snap, &finished);
    if (ops->ports)
        ops->ports(conf, snap);
    ops->metrics(snap, &ms);
    f = ebf_kv_create(path);
    if (f) {
        ebf_metrics_write_kv(&ms, f);
        rc = ebf_kv_commit(f, path);
    }
    ebf_metrics_free(&ms);
    free(snap);
    return rc;
}

const void *ebf_ctl_final(const struct ebf_ctl *ctl)
{
    return ctl->have_final ? ctl->final : NULL;
}

enum ebf_state ebf_ctl_state(const struct ebf_ctl *ctl)
{
    return ctl->state;
}


const char *ebf_ctl_farm(const struct ebf_ctl *ctl)
{
    return ctl->farm;
}
