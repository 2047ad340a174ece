/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl.c - the control thread: state machine over ZeroMQ, metrics, lcore rings. */
#include "ebf_ctl.h"

#include <errno.h>
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
#include <zmq.h>

#include "ebf_kv.h"
#include "ebf_pb.h"
#include "ebf_util.h"

RTE_LOG_REGISTER_DEFAULT(ebf_ctl_logtype, INFO);
#define CTL_LOG(level, ...) rte_log(RTE_LOG_##level, ebf_ctl_logtype, "ctl: " __VA_ARGS__)

#define CTL_METRICS_MAX 4096

volatile sig_atomic_t ebf_ctl_force;
static volatile sig_atomic_t signals_seen;

struct ebf_ctl {
    struct ebf_ctl_conf c;
    const struct ebf_ctl_ops *ops;
    char instance[64];
    void *zctx, *rep, *pub;
    struct rte_ring *req, *rsp;
    pthread_t thread;

    enum ebf_state state;
    uint64_t since_ns;
    uint32_t run_number;
    char error[256];
    int shutdown;                /* leave the loop */
    int stop_then_exit;          /* a signal or a finished standalone run */

    void *conf_initial, *conf_cur, *conf_scratch;
    struct ebf_req sync, stop;   /* at most one of each outstanding */
    int sync_lost;               /* sync timed out: the lcore still owes it */
    int stop_out;
    void *snap, *final;
    int have_final;
    int finished;

    struct ebf_metrics ms;
    uint64_t seq;
    double next_pub;

    /* Owned by the lcore. */
    struct ebf_req *lc_stop;     /* the stop being drained */
    int lc_exit;
};

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
    if (rc == 0)
        ctl->finished = ctl->sync.finished;
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

/*
 * Carry out command c (already allowed by the state machine). Returns 0, or
 * -1 with err set; a refusal leaves the state as it was, a data plane that
 * failed to carry out an allowed command puts the daemon in ERROR.
 */
static int execute(struct ebf_ctl *ctl, enum ebf_cmd c, uint32_t run, const Ebfarm__Param *const *p,
                   size_t np, char *err, size_t len)
{
    const struct ebf_ctl_ops *o = ctl->ops;

    switch (c) {
    case EBF_C_CONFIGURE:
        memcpy(ctl->conf_scratch, ctl->conf_cur, o->conf_size);
        for (size_t i = 0; i < np; i++)
            if (o->param(ctl->conf_scratch, p[i]->key, p[i]->value, err, len))
                return -1;      /* refused: nothing changed */
        ctl->sync.conf = ctl->conf_scratch;
        if (lcore_call(ctl, EBF_OP_CONFIGURE, err, len))
            return -1;
        memcpy(ctl->conf_cur, ctl->conf_scratch, o->conf_size);
        set_state(ctl, EBF_S_CONFIGURED);
        return 0;
    case EBF_C_RESET:
        if (lcore_call(ctl, EBF_OP_RESET, err, len))
            break;
        memcpy(ctl->conf_cur, ctl->conf_initial, o->conf_size);
        ctl->error[0] = '\0';
        set_state(ctl, EBF_S_INITIAL);
        return 0;
    case EBF_C_START:
        ctl->sync.run_number = run;
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
                   const Ebfarm__Param *const *p, size_t np, char *err, size_t len)
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
    return execute(ctl, c, run, p, np, err, len);
}

/* --- Messages ------------------------------------------------------------- */

/* The snapshot message of snap; seq is the published sequence number (a
 * status reply carries the last one published). */
static Ebfarm__Snapshot *snapshot_msg(struct ebf_ctl *ctl, const void *snap, uint64_t seq)
{
    ebf_metrics_clear(&ctl->ms);
    ctl->ops->metrics(snap, &ctl->ms);
    Ebfarm__Snapshot *s = ebf_pb_snapshot(&ctl->ms, ctl->ops->component, ctl->instance,
                                          seq, ctl->run_number, ctl->state);
    if (s)
        s->time_ns = ebf_now_ns();
    return s;
}

static void reply(struct ebf_ctl *ctl, int ok, const char *err)
{
    Ebfarm__Reply r = EBFARM__REPLY__INIT;
    Ebfarm__Status st = EBFARM__STATUS__INIT;
    Ebfarm__Snapshot *snap = NULL;

    /* The counters: the lcore's now, or the drained run's when it cannot answer. */
    if (do_snapshot(ctl) == 0)
        snap = snapshot_msg(ctl, ctl->snap, ctl->seq);
    else if (ctl->have_final)
        snap = snapshot_msg(ctl, ctl->final, ctl->seq);
    st.component = (char *)ctl->ops->component;
    st.instance = ctl->instance;
    st.state = (Ebfarm__State)ctl->state;
    st.run_number = ctl->run_number;
    st.pid = (uint64_t)getpid();
    st.error = ctl->error;
    st.state_since_ns = ctl->since_ns;
    st.finished = ctl->finished;
    st.metrics = snap;
    r.ok = ok;
    r.error = (char *)err;
    r.status = &st;
    size_t n = ebfarm__reply__get_packed_size(&r);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__reply__pack(&r, buf);
        if (zmq_send(ctl->rep, buf, n, 0) < 0)
            CTL_LOG(WARNING, "cannot send a reply: %s\n", zmq_strerror(errno));
        free(buf);
    }
    ebf_pb_snapshot_free(snap);
}

/* One request from the REP socket: decode, execute, always reply. */
static void serve_one(struct ebf_ctl *ctl)
{
    zmq_msg_t msg;
    char err[512];
    int ok = 0;

    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, ctl->rep, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        return;
    }
    Ebfarm__Request *rq = ebfarm__request__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    zmq_msg_close(&msg);
    if (!rq) {
        snprintf(err, sizeof(err), "the request is not an ebfarm.Request message");
    } else {
        ok = command(ctl, (enum ebf_cmd)rq->command, rq->run_number,
                     (const Ebfarm__Param *const *)rq->params, rq->n_params, err,
                     sizeof(err)) == 0;
        if (!ok)
            CTL_LOG(NOTICE, "refused '%s': %s\n", ebf_cmd_name((enum ebf_cmd)rq->command), err);
        ebfarm__request__free_unpacked(rq, NULL);
    }
    reply(ctl, ok, ok ? "" : err);
}

static void publish(struct ebf_ctl *ctl)
{
    if (do_snapshot(ctl) != 0 || !ctl->pub)
        return;
    Ebfarm__Snapshot *s = snapshot_msg(ctl, ctl->snap, ++ctl->seq);
    if (!s)
        return;
    size_t n = ebfarm__snapshot__get_packed_size(s);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__snapshot__pack(s, buf);
        zmq_send(ctl->pub, buf, n, ZMQ_DONTWAIT);   /* no subscriber: dropped by design */
        free(buf);
    }
    ebf_pb_snapshot_free(s);
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
        if (ctl->rep) {
            zmq_pollitem_t it = {.socket = ctl->rep, .events = ZMQ_POLLIN};
            if (zmq_poll(&it, 1, 20) > 0 && (it.revents & ZMQ_POLLIN))
                serve_one(ctl);
        } else {
            usleep(20000);
        }
        collect(ctl);
        local_commands(ctl);
        if (mono_s() >= ctl->next_pub) {
            publish(ctl);
            ctl->next_pub += period;
            if (ctl->next_pub < mono_s())
                ctl->next_pub = mono_s() + period;
        }
    }
    /* Tell the lcore to leave; wait for it (it answers between passes). */
    ctl->sync.op = EBF_OP_EXIT;
    while (rte_ring_sp_enqueue(ctl->req, &ctl->sync) != 0)
        usleep(1000);
    return NULL;
}

/* --- Set-up --------------------------------------------------------------- */

static void *bind_socket(struct ebf_ctl *ctl, int type, const char *ep)
{
    void *s = zmq_socket(ctl->zctx, type);
    int zero = 0;

    if (!s)
        return NULL;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    if (zmq_bind(s, ep) != 0) {
        int e = errno;
        fprintf(stderr, "%s: cannot bind '%s': %s\n", ctl->ops->component, ep, zmq_strerror(e));
        zmq_close(s);
        errno = e;
        return NULL;
    }
    return s;
}

/* Free everything ctl holds (the thread is joined or never started). */
static void release(struct ebf_ctl *ctl)
{
    if (ctl->rep)
        zmq_close(ctl->rep);
    if (ctl->pub)
        zmq_close(ctl->pub);
    if (ctl->zctx)
        zmq_ctx_term(ctl->zctx);
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
    ctl->zctx = zmq_ctx_new();
    if (!ctl->zctx)
        goto fail;
    e = EADDRINUSE;
    if (c->control && !(ctl->rep = bind_socket(ctl, ZMQ_REP, c->control))) {
        e = errno;
        goto fail;
    }
    if (c->metrics && !(ctl->pub = bind_socket(ctl, ZMQ_PUB, c->metrics))) {
        e = errno;
        goto fail;
    }
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

int ebf_ctl_write_stats(const struct ebf_ctl_ops *ops, void *dp, const char *path)
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

/* --- Lcore side ----------------------------------------------------------- */

static void answer(struct ebf_ctl *ctl, struct ebf_req *r)
{
    while (rte_ring_sp_enqueue(ctl->rsp, r) != 0)
        rte_pause();            /* 64 slots, at most two requests out: never full */
}

void ebf_ctl_service(struct ebf_ctl *ctl, void *dp)
{
    const struct ebf_ctl_ops *o = ctl->ops;
    void *p;

    while (!ctl->lc_exit && rte_ring_sc_dequeue(ctl->req, &p) == 0) {
        struct ebf_req *r = p;
        if (r->op == EBF_OP_EXIT) {
            ctl->lc_exit = 1;
        } else if (r->op == EBF_OP_STOP) {
            o->stop(dp);
            ctl->lc_stop = r;
        } else {
            if (r->op == EBF_OP_SNAPSHOT)
                o->snapshot(dp, r->snap, &r->finished);
            else
                r->rc = o->apply(dp, r);
            answer(ctl, r);
        }
    }
}

void ebf_ctl_serve(struct ebf_ctl *ctl, void *dp, struct ebf_idle *idle)
{
    const struct ebf_ctl_ops *o = ctl->ops;
    unsigned work = 1;

    for (uint64_t pass = 0; !ctl->lc_exit; pass++) {
        if ((pass & 15) == 0 || work == 0)
            ebf_ctl_service(ctl, dp);
        int drained = 0;
        work = o->poll(dp, &drained);
        if (drained && ctl->lc_stop) {
            o->snapshot(dp, ctl->lc_stop->snap, &ctl->lc_stop->finished);
            answer(ctl, ctl->lc_stop);
            ctl->lc_stop = NULL;
        }
        ebf_idle_note(idle, work);
    }
}
