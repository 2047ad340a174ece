/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_ctl.c - the control thread over ZeroMQ, driving a fake data plane through every state. */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <zmq.h>

#include "ctlclient.h"
#include "ebf_ctl.h"
#include "ebf_ctl_private.h"     /* ebf_ctl_logtype, to see the refusal lines */
#include "ebf_pb.h"
#include "ebf_port.h"
#include "test-eal.h"

/* --- The fake data plane -------------------------------------------------- */

#define FAKE_X0 1                /* the command line's x */
#define FAKE_COMPONENT "fake"
#define FAKE_INSTANCE "fake-7"

struct fake_conf {
    uint64_t x;
};

struct fake_snap {
    uint64_t events, bytes, drop_short, drop_crc;
    uint64_t x;
    uint32_t run;
    int paused;
    struct ebf_lcore_stats lcore;    /* the serving loop's cycles */
};

/*
 * Lcore-owned fields plus what the test shares with the lcore thread, read
 * and written atomically: op counts (STOP counts stop() calls), fail_start
 * (START fails), release (the drain may complete) and work (polls left that
 * report work). From a START to the end of its drain, polls counts every
 * poll and work_polls those that reported work.
 */
struct fake_dp {
    uint64_t x;
    uint32_t run;
    uint64_t start_at_ns;                /* the last START's instant of event 0 */
    int paused, draining, running;
    unsigned ops[EBF_OP_EXIT + 1];
    int fail_start;
    int release;
    unsigned work;
    uint64_t polls, work_polls;
    const struct ebf_cycles *cycles;     /* the serving loop's */
};

/* The counters of run n: what every snapshot must carry. */
static void fake_counts(uint32_t run, uint64_t x, int paused, struct fake_snap *s)
{
    memset(s, 0, sizeof(*s));
    s->events = 1000ull * run + 7;
    s->bytes = 64 * s->events;
    s->drop_short = run;
    s->drop_crc = 2ull * run + 1;
    s->x = x;
    s->run = run;
    s->paused = paused;
}

static int fake_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    struct fake_conf *c = conf;
    char *end;

    if (strcmp(key, "x") != 0) {
        snprintf(err, len, "fake: unknown parameter '%s' (allowed: x)", key);
        return -EINVAL;
    }
    errno = 0;
    unsigned long long v = strtoull(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end || errno) {
        snprintf(err, len, "fake: parameter 'x': \"%s\" is not a number", value);
        return -EINVAL;
    }
    c->x = v;
    return 0;
}

static void fake_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct fake_snap *s = snap;

    ebf_metrics_counter(ms, "events", s->events);
    ebf_metrics_counter(ms, "bytes", s->bytes);
    ebf_metrics_counter_l(ms, "drop", "reason", "short", s->drop_short);
    ebf_metrics_counter_l(ms, "drop", "reason", "crc", s->drop_crc);
    ebf_metrics_gauge(ms, "x", NULL, NULL, (double)s->x);
    ebf_metrics_gauge(ms, "paused", NULL, NULL, s->paused);
    ebf_lcore_metrics(&s->lcore, ms);
}

static int fake_apply(void *p, struct ebf_req *r)
{
    struct fake_dp *dp = p;

    __atomic_fetch_add(&dp->ops[r->op], 1, __ATOMIC_SEQ_CST);
    switch (r->op) {
    case EBF_OP_CONFIGURE:
        dp->x = ((const struct fake_conf *)r->conf)->x;
        return 0;
    case EBF_OP_RESET:
        dp->x = FAKE_X0;
        return 0;
    case EBF_OP_START:
        if (__atomic_load_n(&dp->fail_start, __ATOMIC_SEQ_CST)) {
            snprintf(r->err, sizeof(r->err), "fake: cannot start run %u", r->run_number);
            return -EIO;
        }
        dp->run = r->run_number;
        __atomic_store_n(&dp->start_at_ns, r->start_at_ns, __ATOMIC_SEQ_CST);
        dp->paused = 0;
        dp->running = 1;
        dp->polls = dp->work_polls = 0;
        return 0;
    case EBF_OP_PAUSE:
    case EBF_OP_RESUME:
        dp->paused = r->op == EBF_OP_PAUSE;
        return 0;
    case EBF_OP_ACT:                /* the fake's one action: x VALUE */
        if (strcmp(r->act.key, "x") != 0) {
            snprintf(r->err, sizeof(r->err), "fake: unknown action '%s'", r->act.key);
            return -EINVAL;
        }
        dp->x = strtoull(r->act.value, NULL, 10);
        return 0;
    default:
        return -EINVAL;
    }
}

static void fake_stop(void *p)
{
    struct fake_dp *dp = p;

    __atomic_fetch_add(&dp->ops[EBF_OP_STOP], 1, __ATOMIC_SEQ_CST);
    dp->draining = 1;
}

/* The drain completes only once the test released it. Work is reported
 * while the test's budget of working polls lasts. */
static unsigned fake_poll(void *p, int *drained)
{
    struct fake_dp *dp = p;
    unsigned work = 0;

    if (__atomic_load_n(&dp->work, __ATOMIC_SEQ_CST)) {
        __atomic_fetch_sub(&dp->work, 1, __ATOMIC_SEQ_CST);
        work = 1;
    }
    if (dp->running) {
        dp->polls++;
        dp->work_polls += work;
    }
    if (dp->draining && __atomic_exchange_n(&dp->release, 0, __ATOMIC_SEQ_CST)) {
        dp->draining = 0;
        dp->running = 0;
        *drained = 1;
    }
    return work;
}

static void fake_snapshot(void *p, void *snap, int *finished)
{
    struct fake_dp *dp = p;

    __atomic_fetch_add(&dp->ops[EBF_OP_SNAPSHOT], 1, __ATOMIC_SEQ_CST);
    fake_counts(dp->run, dp->x, dp->paused, snap);
    ebf_cycles_read(dp->cycles, 1, rte_get_tsc_hz(), &((struct fake_snap *)snap)->lcore);
    *finished = 0;
}

static const struct ebf_ctl_ops fake_ops = {
    .component = FAKE_COMPONENT,
    .conf_size = sizeof(struct fake_conf),
    .snap_size = sizeof(struct fake_snap),
    .param = fake_param,
    .metrics = fake_metrics,
    .apply = fake_apply,
    .stop = fake_stop,
    .poll = fake_poll,
    .snapshot = fake_snapshot,
};

/* --- The rig: one ebf_ctl, its lcore thread, endpoints -------------------- */

static void *zctx;
static char tmpdir[64];
static unsigned rigs;
static const struct fake_conf conf0 = {.x = FAKE_X0};

struct rig {
    char ctl_path[128], pub_path[128];
    char ctl_ep[140], pub_ep[140];
    struct ebf_ctl *ctl;
    struct fake_dp dp;
    struct ebf_cycles cycles;    /* the lcore's */
    pthread_t lcore;
    int up;
};

static void setup(void)
{
    test_eal_init();
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/ebf-ctltest-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    zctx = zmq_ctx_new();
    ck_assert_ptr_nonnull(zctx);
}

static void teardown(void)
{
    char cmd[160];

    zmq_ctx_term(zctx);
    /* Whatever sockets a failed test left in it go too. */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: %s failed\n", cmd);
    ebf_eal_cleanup();
}

static void *lcore_main(void *arg)
{
    struct rig *r = arg;
    struct ebf_idle idle;

    ebf_idle_init(&idle, EBF_IDLE_BACKOFF);
    ebf_ctl_serve(r->ctl, &r->dp, &idle, &r->cycles);
    return NULL;
}

/* A fresh ebf_ctl in INITIAL, publishing every period_ms; refused requests
 * logged at most burst times per window_s (0: the defaults). */
static void rig_up_log(struct rig *r, double period_ms, unsigned burst, double window_s)
{
    memset(r, 0, sizeof(*r));
    r->dp.x = FAKE_X0;
    r->dp.cycles = &r->cycles;
    snprintf(r->ctl_path, sizeof(r->ctl_path), "%s/ctl%u", tmpdir, rigs);
    snprintf(r->pub_path, sizeof(r->pub_path), "%s/pub%u", tmpdir, rigs++);
    snprintf(r->ctl_ep, sizeof(r->ctl_ep), "ipc://%s", r->ctl_path);
    snprintf(r->pub_ep, sizeof(r->pub_ep), "ipc://%s", r->pub_path);
    struct ebf_ctl_conf c = {
        .instance = FAKE_INSTANCE,
        .control = r->ctl_ep,
        .metrics = r->pub_ep,
        .period_ms = period_ms,
        .conf = &conf0,
        .reply_timeout_s = 2,
        .refusal_log_burst = burst,
        .refusal_log_window_s = window_s,
    };
    r->ctl = ebf_ctl_create(&c, &fake_ops);
    ck_assert_msg(r->ctl != NULL, "ebf_ctl_create: %s", strerror(errno));
    ck_assert_int_eq(pthread_create(&r->lcore, NULL, lcore_main, r), 0);
    r->up = 1;
}

static void rig_up(struct rig *r, double period_ms)
{
    rig_up_log(r, period_ms, 0, 0);
}

/* After a shutdown was answered: the lcore leaves ebf_ctl_serve in state final. */
static void rig_lcore_join(struct rig *r, enum ebf_state final)
{
    ck_assert_int_eq(pthread_join(r->lcore, NULL), 0);
    ck_assert_int_eq(ebf_ctl_state(r->ctl), final);
    r->up = 0;
}

static void rig_free(struct rig *r)
{
    ebf_ctl_destroy(r->ctl);
    unlink(r->ctl_path);
    unlink(r->pub_path);
}

static void rig_join(struct rig *r, enum ebf_state final)
{
    rig_lcore_join(r, final);
    rig_free(r);
}

/* One request; the reply must come. */
static Ebfarm__Reply *req(struct rig *r, enum ebf_cmd c, uint32_t run, const struct ctl_param *p,
                          unsigned np)
{
    Ebfarm__Reply *rep;
    char err[256];
    int rc = ctl_request(zctx, r->ctl_ep, c, run, p, np, 3000, &rep, err, sizeof(err));

    ck_assert_msg(rc == 0, "%s: %s", ebf_cmd_name(c), err);
    ck_assert_ptr_nonnull(rep->status);
    ck_assert_str_eq(rep->status->component, FAKE_COMPONENT);
    ck_assert_str_eq(rep->status->instance, FAKE_INSTANCE);
    ck_assert_uint_eq(rep->status->pid, (uint64_t)getpid());
    return rep;
}

/* A request that must be carried out and lead to state want. */
static void req_ok(struct rig *r, enum ebf_cmd c, uint32_t run, enum ebf_state want)
{
    Ebfarm__Reply *rep = req(r, c, run, NULL, 0);

    ck_assert_msg(rep->ok, "%s refused: %s", ebf_cmd_name(c), rep->error);
    ck_assert_str_eq(rep->error, "");
    ck_assert_int_eq(rep->status->state, want);
    ebfarm__reply__free_unpacked(rep, NULL);
}

static enum ebf_state status_state(struct rig *r)
{
    Ebfarm__Reply *rep = req(r, EBF_C_STATUS, 0, NULL, 0);
    enum ebf_state s = (enum ebf_state)rep->status->state;

    ck_assert(rep->ok);
    ebfarm__reply__free_unpacked(rep, NULL);
    return s;
}

/* Ask for status until the daemon is in want (within 3 s). */
static void wait_state(struct rig *r, enum ebf_state want)
{
    for (int i = 0; i < 600; i++) {
        if (status_state(r) == want)
            return;
        usleep(5000);
    }
    ck_abort_msg("state %s not reached", ebf_state_name(want));
}

static void release_drain(struct rig *r)
{
    __atomic_store_n(&r->dp.release, 1, __ATOMIC_SEQ_CST);
    wait_state(r, EBF_S_CONFIGURED);
}

#define RUN 5

/* From INITIAL to s through the ordinary commands (ERROR: a start that fails). */
static void drive_to(struct rig *r, enum ebf_state s)
{
    if (s == EBF_S_INITIAL)
        return;
    req_ok(r, EBF_C_CONFIGURE, 0, EBF_S_CONFIGURED);
    if (s == EBF_S_ERROR) {
        __atomic_store_n(&r->dp.fail_start, 1, __ATOMIC_SEQ_CST);
        Ebfarm__Reply *rep = req(r, EBF_C_START, RUN, NULL, 0);
        ck_assert(!rep->ok);
        ck_assert_int_eq(rep->status->state, EBF_S_ERROR);
        ebfarm__reply__free_unpacked(rep, NULL);
        __atomic_store_n(&r->dp.fail_start, 0, __ATOMIC_SEQ_CST);
        return;
    }
    if (s == EBF_S_CONFIGURED)
        return;
    req_ok(r, EBF_C_START, RUN, EBF_S_RUNNING);
    if (s == EBF_S_PAUSED)
        req_ok(r, EBF_C_PAUSE, 0, EBF_S_PAUSED);
    else if (s == EBF_S_DRAINING)
        req_ok(r, EBF_C_STOP, 0, EBF_S_DRAINING);
}

/* Back to a state that allows shutdown, shut down, free. */
static void rig_down(struct rig *r)
{
    if (!r->up)
        return;
    enum ebf_state s = status_state(r);
    if (s == EBF_S_RUNNING || s == EBF_S_PAUSED) {
        req_ok(r, EBF_C_STOP, 0, EBF_S_DRAINING);
        s = EBF_S_DRAINING;
    }
    if (s == EBF_S_DRAINING) {
        release_drain(r);
        s = EBF_S_CONFIGURED;
    }
    req_ok(r, EBF_C_SHUTDOWN, 0, s);
    rig_join(r, s);
}

static void ops_now(struct fake_dp *dp, unsigned out[EBF_OP_EXIT + 1])
{
    for (unsigned i = 0; i <= EBF_OP_EXIT; i++)
        out[i] = __atomic_load_n(&dp->ops[i], __ATOMIC_SEQ_CST);
}

/* The ops a command reaches the data plane with (snapshots aside); -1: none. */
static void check_ops(const unsigned before[], const unsigned after[], int op, const char *what)
{
    for (int i = 0; i <= EBF_OP_EXIT; i++) {
        if (i == EBF_OP_SNAPSHOT)
            continue;
        unsigned want = before[i] + (i == op);
        ck_assert_msg(after[i] == want, "%s: op %d reached the data plane %u times, want %u",
                      what, i, after[i] - before[i], want - before[i]);
    }
}

/* --- Every (state, command) pair ------------------------------------------ */

#define NSTATES 6
#define NCMDS 9

/* The specification, as in test-fsm.c: spec[state - 1][command - 1], 0 refused. */
static const enum ebf_state spec[NSTATES][NCMDS] = {
    /* configure, start, pause, resume, stop, reset, status, shutdown, act */
    {EBF_S_CONFIGURED, 0, 0, 0, 0, 0, EBF_S_INITIAL, EBF_S_INITIAL, 0},
    {EBF_S_CONFIGURED, EBF_S_RUNNING, 0, 0, 0, EBF_S_INITIAL, EBF_S_CONFIGURED,
     EBF_S_CONFIGURED, 0},
    {0, 0, EBF_S_PAUSED, 0, EBF_S_DRAINING, 0, EBF_S_RUNNING, 0, EBF_S_RUNNING},
    {0, 0, 0, EBF_S_RUNNING, EBF_S_DRAINING, 0, EBF_S_PAUSED, 0, EBF_S_PAUSED},
    {0, 0, 0, 0, 0, 0, EBF_S_DRAINING, 0, 0},
    {0, 0, 0, 0, 0, EBF_S_INITIAL, EBF_S_ERROR, EBF_S_ERROR, 0},
};

static const char *const allowed[NSTATES] = {
    "configure, status, shutdown",
    "configure, start, reset, status, shutdown",
    "pause, stop, status, act",
    "resume, stop, status, act",
    "status",
    "reset, status, shutdown",
};

/* The op each command sends to the lcore; -1: none (status, shutdown). */
static const int cmd_op[NCMDS] = {
    EBF_OP_CONFIGURE, EBF_OP_START, EBF_OP_PAUSE, EBF_OP_RESUME,
    EBF_OP_STOP,      EBF_OP_RESET, -1,           -1,
    EBF_OP_ACT,
};

static const char start_failure[] = "fake: cannot start run 5";

/* Command c in state s on a fresh daemon: reply, state after, what the data plane saw. */
static void check_pair(enum ebf_state s, enum ebf_cmd c)
{
    static const struct ctl_param x7 = {"x", "7"};
    struct rig r;
    unsigned before[EBF_OP_EXIT + 1], after[EBF_OP_EXIT + 1];
    char what[64], want_err[256];
    enum ebf_state next = spec[s - 1][c - 1];

    snprintf(what, sizeof(what), "%s in %s", ebf_cmd_name(c), ebf_state_name(s));
    rig_up(&r, 1000);
    drive_to(&r, s);
    ops_now(&r.dp, before);
    Ebfarm__Reply *rep = req(&r, c, c == EBF_C_START ? 9 : 0, &x7,
                             c == EBF_C_CONFIGURE || c == EBF_C_ACT);
    ops_now(&r.dp, after);
    if (next) {
        ck_assert_msg(rep->ok, "%s refused: %s", what, rep->error);
        ck_assert_str_eq(rep->error, "");
        ck_assert_msg(rep->status->state == (Ebfarm__State)next, "%s: state %d, want %s", what,
                      rep->status->state, ebf_state_name(next));
        check_ops(before, after, cmd_op[c - 1], what);
    } else {
        snprintf(want_err, sizeof(want_err),
                 "command '%s' is not allowed in state %s (allowed: %s)", ebf_cmd_name(c),
                 ebf_state_name(s), allowed[s - 1]);
        ck_assert_msg(!rep->ok, "%s carried out", what);
        ck_assert_str_eq(rep->error, want_err);
        ck_assert_msg(rep->status->state == (Ebfarm__State)s, "%s: state %d after a refusal",
                      what, rep->status->state);
        check_ops(before, after, -1, what);
    }
    /* The cause of ERROR is reported until reset clears it. */
    const char *cause = s == EBF_S_ERROR && c != EBF_C_RESET ? start_failure : "";
    ck_assert_str_eq(rep->status->error, cause);
    /* What the data plane was told shows in the reply's counters. */
    const Ebfarm__Snapshot *m = rep->status->metrics;
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(m->state, rep->status->state);
    uint32_t run = 0;            /* INITIAL, CONFIGURED, ERROR: no run started */
    if (c == EBF_C_START && next)
        run = 9;
    else if (s == EBF_S_RUNNING || s == EBF_S_PAUSED || s == EBF_S_DRAINING)
        run = RUN;
    ck_assert_uint_eq(rep->status->run_number, run);
    ck_assert_uint_eq(m->run_number, run);
    ck_assert_uint_eq(ebf_pb_counter(m, "events", NULL, 0), 1000ull * run + 7);
    /* x: 7 once configure or act x carried it, else the command line's (reset: back to it). */
    double x = (c == EBF_C_CONFIGURE || c == EBF_C_ACT) && next ? 7 : FAKE_X0;
    ck_assert(ebf_pb_gauge(m, "x", NULL, -1) == x);
    ebfarm__reply__free_unpacked(rep, NULL);

    if (c == EBF_C_SHUTDOWN && next)
        rig_join(&r, s);
    else
        ck_assert_int_eq(status_state(&r), next ? next : s);
    rig_down(&r);
}

START_TEST(test_every_pair)
{
    for (unsigned s = 1; s <= NSTATES; s++)
        for (unsigned c = 1; c <= NCMDS; c++)
            check_pair((enum ebf_state)s, (enum ebf_cmd)c);
}
END_TEST

/* Command numbers outside the protocol are refused in every state, naming the range. */
START_TEST(test_unknown_command)
{
    static const int bad[] = {0, EBF_C_END, 100};
    unsigned before[EBF_OP_EXIT + 1], after[EBF_OP_EXIT + 1];
    char want[128];

    for (unsigned s = 1; s <= NSTATES; s++) {
        struct rig r;
        rig_up(&r, 1000);
        drive_to(&r, (enum ebf_state)s);
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            ops_now(&r.dp, before);
            Ebfarm__Reply *rep = req(&r, (enum ebf_cmd)bad[i], 0, NULL, 0);
            ops_now(&r.dp, after);
            snprintf(want, sizeof(want), "unknown command %d (allowed: 1..9, see ebfarm.proto)",
                     bad[i]);
            ck_assert(!rep->ok);
            ck_assert_str_eq(rep->error, want);
            ck_assert_int_eq(rep->status->state, (int)s);
            check_ops(before, after, -1, want);
            ebfarm__reply__free_unpacked(rep, NULL);
        }
        rig_down(&r);
    }
}
END_TEST

/* --- Parameters, run numbers, drain, error -------------------------------- */

static void check_refused(struct rig *r, enum ebf_cmd c, uint32_t run, const struct ctl_param *p,
                          unsigned np, const char *err, enum ebf_state s)
{
    unsigned before[EBF_OP_EXIT + 1], after[EBF_OP_EXIT + 1];

    ops_now(&r->dp, before);
    Ebfarm__Reply *rep = req(r, c, run, p, np);
    ops_now(&r->dp, after);
    ck_assert_msg(!rep->ok, "'%s' carried out", err);
    ck_assert_str_eq(rep->error, err);
    ck_assert_int_eq(rep->status->state, s);
    check_ops(before, after, -1, err);
    ebfarm__reply__free_unpacked(rep, NULL);
}

static double x_now(struct rig *r)
{
    Ebfarm__Reply *rep = req(r, EBF_C_STATUS, 0, NULL, 0);
    double x = ebf_pb_gauge(rep->status->metrics, "x", NULL, -1);

    ebfarm__reply__free_unpacked(rep, NULL);
    return x;
}

/* A bad parameter refuses the whole configure with its message; nothing changes. */
START_TEST(test_configure_params)
{
    static const struct {
        struct ctl_param p[2];
        unsigned n;
        const char *err;
    } bad[] = {
        {{{"x", "abc"}}, 1, "fake: parameter 'x': \"abc\" is not a number"},
        {{{"x", ""}}, 1, "fake: parameter 'x': \"\" is not a number"},
        {{{"x", "-3"}}, 1, "fake: parameter 'x': \"-3\" is not a number"},
        {{{"y", "1"}}, 1, "fake: unknown parameter 'y' (allowed: x)"},
        {{{"x", "9"}, {"y", "1"}}, 2, "fake: unknown parameter 'y' (allowed: x)"},
        {{{"x", "9"}, {"x", "9z"}}, 2, "parameter 'x' is given twice (each key at most once)"},
        {{{"x", "9"}, {"x", "9"}}, 2, "parameter 'x' is given twice (each key at most once)"},
        {{{"farm", "Demo"}}, 1, "parameter 'farm': \"Demo\" is not a farm name (1 to 32 "
                                "characters of a-z, 0-9, _ and -)"},
        {{{"farm", ""}}, 1, "parameter 'farm': \"\" is not a farm name (1 to 32 characters of "
                            "a-z, 0-9, _ and -)"},
        {{{"farm", "f"}, {"x", "-1"}}, 2, "fake: parameter 'x': \"-1\" is not a number"},
    };
    static const struct ctl_param x7 = {"x", "7"};
    const unsigned nbad = sizeof(bad) / sizeof(bad[0]);
    struct rig r;

    rig_up(&r, 1000);
    for (unsigned i = 0; i < nbad; i++)
        check_refused(&r, EBF_C_CONFIGURE, 0, bad[i].p, bad[i].n, bad[i].err, EBF_S_INITIAL);
    ck_assert(x_now(&r) == FAKE_X0);

    Ebfarm__Reply *rep = req(&r, EBF_C_CONFIGURE, 0, &x7, 1);
    ck_assert(rep->ok);
    ck_assert_int_eq(rep->status->state, EBF_S_CONFIGURED);
    ebfarm__reply__free_unpacked(rep, NULL);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.ops[EBF_OP_CONFIGURE], __ATOMIC_SEQ_CST), 1);
    ck_assert(x_now(&r) == 7);
    for (unsigned i = 0; i < nbad; i++)
        check_refused(&r, EBF_C_CONFIGURE, 0, bad[i].p, bad[i].n, bad[i].err,
                      EBF_S_CONFIGURED);
    /* The refused values did not leak into the next configure: x stays 7,
     * and the farm has no name. */
    req_ok(&r, EBF_C_CONFIGURE, 0, EBF_S_CONFIGURED);
    ck_assert(x_now(&r) == 7);
    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert_str_eq(rep->status->metrics->farm, "");
    ebfarm__reply__free_unpacked(rep, NULL);
    /* reset goes back to the command line's parameters, and forgets the farm. */
    static const struct ctl_param named = {"farm", "f2"};
    rep = req(&r, EBF_C_CONFIGURE, 0, &named, 1);
    ck_assert_msg(rep->ok, "%s", rep->error);
    ebfarm__reply__free_unpacked(rep, NULL);
    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert_str_eq(rep->status->metrics->farm, "f2");
    ebfarm__reply__free_unpacked(rep, NULL);
    req_ok(&r, EBF_C_RESET, 0, EBF_S_INITIAL);
    ck_assert(x_now(&r) == FAKE_X0);
    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert_str_eq(rep->status->metrics->farm, "");
    ebfarm__reply__free_unpacked(rep, NULL);
    req_ok(&r, EBF_C_CONFIGURE, 0, EBF_S_CONFIGURED);
    ck_assert(x_now(&r) == FAKE_X0);
    rig_down(&r);
}
END_TEST

/* start needs a run number; a refused start leaves CONFIGURED and the lcore alone. */
START_TEST(test_start_run_zero)
{
    struct rig r;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_CONFIGURED);
    check_refused(&r, EBF_C_START, 0, NULL, 0, "command 'start' needs a run number above 0",
                  EBF_S_CONFIGURED);
    req_ok(&r, EBF_C_START, 1, EBF_S_RUNNING);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.start_at_ns, __ATOMIC_SEQ_CST), 0);
    rig_down(&r);
}
END_TEST

/* A START's instant of event 0 (Request.start_at_ns) reaches the data
 * plane as sent, to the nanosecond. */
START_TEST(test_start_instant)
{
    const uint64_t at = 1800000000123456789ull;
    Ebfarm__Reply *rep;
    char err[256];
    struct rig r;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_CONFIGURED);
    ck_assert_int_eq(ctl_request_start(zctx, r.ctl_ep, 2, at, 3000, &rep, err, sizeof(err)), 0);
    ck_assert_msg(rep->ok, "start refused: %s", rep->error);
    ck_assert_int_eq(rep->status->state, EBF_S_RUNNING);
    ck_assert_uint_eq(rep->status->run_number, 2);
    ebfarm__reply__free_unpacked(rep, NULL);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.start_at_ns, __ATOMIC_SEQ_CST), at);
    rig_down(&r);
}
END_TEST

/* Act takes exactly one parameter; an action the data plane refuses
 * leaves the daemon RUNNING (not ERROR); one it takes is carried out. */
START_TEST(test_act)
{
    static const struct ctl_param two[] = {{"x", "1"}, {"z", "2"}}, y = {"y", "1"}, x9 = {"x", "9"};
    struct rig r;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_RUNNING);
    check_refused(&r, EBF_C_ACT, 0, NULL, 0,
                  "command 'act' takes one parameter (the action's name as its key), not 0",
                  EBF_S_RUNNING);
    check_refused(&r, EBF_C_ACT, 0, two, 2,
                  "command 'act' takes one parameter (the action's name as its key), not 2",
                  EBF_S_RUNNING);
    Ebfarm__Reply *rep = req(&r, EBF_C_ACT, 0, &y, 1);
    ck_assert(!rep->ok);
    ck_assert_str_eq(rep->error, "fake: unknown action 'y'");
    ck_assert_int_eq(rep->status->state, EBF_S_RUNNING);
    ck_assert_str_eq(rep->status->error, "");
    ebfarm__reply__free_unpacked(rep, NULL);
    rep = req(&r, EBF_C_ACT, 0, &x9, 1);
    ck_assert_msg(rep->ok, "act x 9 refused: %s", rep->error);
    ck_assert_int_eq(rep->status->state, EBF_S_RUNNING);
    ebfarm__reply__free_unpacked(rep, NULL);
    ck_assert(x_now(&r) == 9);
    rig_down(&r);
}
END_TEST

/* DRAINING lasts until the data plane is drained, then CONFIGURED with the final counters. */
START_TEST(test_drain)
{
    struct rig r;
    struct fake_snap want;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_DRAINING);
    for (int i = 0; i < 10; i++) {
        usleep(10000);
        ck_assert_int_eq(status_state(&r), EBF_S_DRAINING);
    }
    ck_assert_uint_eq(__atomic_load_n(&r.dp.ops[EBF_OP_STOP], __ATOMIC_SEQ_CST), 1);
    release_drain(&r);
    /* A second run over the same daemon, paused and stopped from PAUSED. */
    req_ok(&r, EBF_C_START, 6, EBF_S_RUNNING);
    req_ok(&r, EBF_C_PAUSE, 0, EBF_S_PAUSED);
    req_ok(&r, EBF_C_STOP, 0, EBF_S_DRAINING);
    ck_assert_int_eq(status_state(&r), EBF_S_DRAINING);
    release_drain(&r);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.ops[EBF_OP_STOP], __ATOMIC_SEQ_CST), 2);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.ops[EBF_OP_START], __ATOMIC_SEQ_CST), 2);
    req_ok(&r, EBF_C_SHUTDOWN, 0, EBF_S_CONFIGURED);
    rig_lcore_join(&r, EBF_S_CONFIGURED);
    const struct fake_snap *fin = ebf_ctl_final(r.ctl);
    ck_assert_ptr_nonnull(fin);
    fake_counts(6, FAKE_X0, 1, &want);
    ck_assert_int_eq(memcmp(fin, &want, offsetof(struct fake_snap, lcore)), 0);
    rig_free(&r);
}
END_TEST

/* A data plane that cannot start puts the daemon in ERROR until reset. */
START_TEST(test_error)
{
    struct rig r;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_CONFIGURED);
    __atomic_store_n(&r.dp.fail_start, 1, __ATOMIC_SEQ_CST);
    Ebfarm__Reply *rep = req(&r, EBF_C_START, 3, NULL, 0);
    ck_assert(!rep->ok);
    ck_assert_str_eq(rep->error, "fake: cannot start run 3");
    ck_assert_int_eq(rep->status->state, EBF_S_ERROR);
    ck_assert_str_eq(rep->status->error, "fake: cannot start run 3");
    ck_assert_uint_eq(rep->status->run_number, 0);
    ebfarm__reply__free_unpacked(rep, NULL);
    ck_assert_uint_eq(__atomic_load_n(&r.dp.ops[EBF_OP_START], __ATOMIC_SEQ_CST), 1);
    __atomic_store_n(&r.dp.fail_start, 0, __ATOMIC_SEQ_CST);

    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert(rep->ok);
    ck_assert_int_eq(rep->status->state, EBF_S_ERROR);
    ck_assert_str_eq(rep->status->error, "fake: cannot start run 3");
    ebfarm__reply__free_unpacked(rep, NULL);
    check_refused(&r, EBF_C_START, 3, NULL, 0,
                  "command 'start' is not allowed in state ERROR "
                  "(allowed: reset, status, shutdown)",
                  EBF_S_ERROR);

    req_ok(&r, EBF_C_RESET, 0, EBF_S_INITIAL);
    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert_str_eq(rep->status->error, "");
    ebfarm__reply__free_unpacked(rep, NULL);
    req_ok(&r, EBF_C_CONFIGURE, 0, EBF_S_CONFIGURED);
    req_ok(&r, EBF_C_START, 3, EBF_S_RUNNING);
    rig_down(&r);
}
END_TEST

/* --- Busy cycles ---------------------------------------------------------- */

/* A counter of the lcore table, loop 0, from m. */
static uint64_t lcore_counter(const Ebfarm__Snapshot *m, enum ebf_lcore_counter_id id)
{
    return ebf_pb_counter(m, ebf_lcore_counter_table.c[id].name, "0", UINT64_MAX);
}

/*
 * The serving loop's cycles reach the snapshot after the drain: one pass
 * per poll from the START to the end of the drain, busy those that reported
 * work; busy + idle cycles inside the run's TSC span, at least from the
 * START's answer to the STOP's request, at most from the START's request to
 * the end of the drain. A second run counts afresh; between runs and after
 * a refused START nothing changes.
 */
START_TEST(test_cycles)
{
    static const unsigned work[] = {1000, 10};
    struct rig r;

    rig_up(&r, 1000);
    drive_to(&r, EBF_S_CONFIGURED);
    for (uint32_t run = 1; run <= 2; run++) {
        uint64_t t0 = rte_rdtsc();
        req_ok(&r, EBF_C_START, run, EBF_S_RUNNING);
        uint64_t t1 = rte_rdtsc();
        __atomic_store_n(&r.dp.work, work[run - 1], __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&r.dp.work, __ATOMIC_SEQ_CST))
            usleep(1000);
        usleep(20000);          /* idle passes, back-off sleeps among them */
        uint64_t t2 = rte_rdtsc();
        req_ok(&r, EBF_C_STOP, 0, EBF_S_DRAINING);
        release_drain(&r);
        uint64_t t3 = rte_rdtsc();
        usleep(20000);          /* idle passes after the run: not counted */
        Ebfarm__Reply *rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
        const Ebfarm__Snapshot *m = rep->status->metrics;
        uint64_t busy = lcore_counter(m, EBF_LCORE_M_BUSY_CYCLES);
        uint64_t idle = lcore_counter(m, EBF_LCORE_M_IDLE_CYCLES);
        uint64_t bp = lcore_counter(m, EBF_LCORE_M_BUSY_PASSES);
        uint64_t ip = lcore_counter(m, EBF_LCORE_M_IDLE_PASSES);
        ck_assert_uint_eq(bp, work[run - 1]);
        ck_assert_uint_eq(bp, __atomic_load_n(&r.dp.work_polls, __ATOMIC_SEQ_CST));
        ck_assert_uint_eq(bp + ip, __atomic_load_n(&r.dp.polls, __ATOMIC_SEQ_CST));
        ck_assert_uint_gt(ip, 0);
        ck_assert_uint_gt(busy, 0);
        ck_assert_msg(busy + idle >= t2 - t1 && busy + idle <= t3 - t0,
                      "run %u: busy %lu + idle %lu cycles outside [%lu, %lu]", run,
                      (unsigned long)busy, (unsigned long)idle, (unsigned long)(t2 - t1),
                      (unsigned long)(t3 - t0));
        ck_assert(ebf_pb_gauge(m, "tsc_hz", NULL, -1) == (double)rte_get_tsc_hz());
        ebfarm__reply__free_unpacked(rep, NULL);
        /* The status after the run's end changed nothing. */
        rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
        ck_assert_uint_eq(lcore_counter(rep->status->metrics, EBF_LCORE_M_IDLE_CYCLES), idle);
        ck_assert_uint_eq(lcore_counter(rep->status->metrics, EBF_LCORE_M_IDLE_PASSES), ip);
        ebfarm__reply__free_unpacked(rep, NULL);
    }
    /* A refused START leaves the last run's cycles. */
    Ebfarm__Reply *rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    uint64_t idle = lcore_counter(rep->status->metrics, EBF_LCORE_M_IDLE_CYCLES);
    ebfarm__reply__free_unpacked(rep, NULL);
    __atomic_store_n(&r.dp.fail_start, 1, __ATOMIC_SEQ_CST);
    rep = req(&r, EBF_C_START, 3, NULL, 0);
    ck_assert(!rep->ok);
    ck_assert_uint_eq(lcore_counter(rep->status->metrics, EBF_LCORE_M_BUSY_PASSES), work[1]);
    ck_assert_uint_eq(lcore_counter(rep->status->metrics, EBF_LCORE_M_IDLE_CYCLES), idle);
    ebfarm__reply__free_unpacked(rep, NULL);
    rig_down(&r);
}
END_TEST

/* --- Metrics -------------------------------------------------------------- */

static uint64_t realtime_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A snapshot carries exactly the fake's counters of this run, and the daemon's names. */
static void check_snapshot(const Ebfarm__Snapshot *m, enum ebf_state s, uint32_t run, uint64_t x,
                           int paused)
{
    struct fake_snap w;

    fake_counts(run, x, paused, &w);
    ck_assert_str_eq(m->component, FAKE_COMPONENT);
    ck_assert_str_eq(m->instance, FAKE_INSTANCE);
    ck_assert_int_eq(m->state, s);
    ck_assert_uint_eq(m->run_number, run);
    ck_assert_uint_eq(m->n_counters, 4 + 4 + 4); /* the lcore's cycles and passes, refusals */
    ck_assert_uint_eq(m->n_gauges, 2 + 2);       /* and tsc_hz, process.rss_bytes */
    ck_assert(ebf_pb_gauge(m, EBF_METRIC_RSS_BYTES, NULL, -1) > 0);
    ck_assert_uint_eq(m->n_histograms, 0);
    ck_assert_uint_eq(ebf_pb_counter(m, "events", NULL, 0), w.events);
    ck_assert_uint_eq(ebf_pb_counter(m, "bytes", NULL, 0), w.bytes);
    ck_assert_uint_eq(ebf_pb_counter(m, "drop", "short", 0), w.drop_short);
    ck_assert_uint_eq(ebf_pb_counter(m, "drop", "crc", 0), w.drop_crc);
    ck_assert(ebf_pb_gauge(m, "x", NULL, -1) == (double)x);
    ck_assert(ebf_pb_gauge(m, "paused", NULL, -1) == paused);
}

/* The next published snapshot in state s (earlier ones may predate the command). */
static Ebfarm__Snapshot *next_published(void *sub, enum ebf_state s)
{
    double deadline = (double)realtime_ns() + 3e9;

    while ((double)realtime_ns() < deadline) {
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        int n = zmq_msg_recv(&msg, sub, 0);
        ck_assert_msg(n >= 0, "no snapshot published: %s", zmq_strerror(errno));
        Ebfarm__Snapshot *m = ebfarm__snapshot__unpack(NULL, zmq_msg_size(&msg),
                                                       zmq_msg_data(&msg));
        zmq_msg_close(&msg);
        ck_assert_ptr_nonnull(m);
        if (m->state == (Ebfarm__State)s)
            return m;
        ebfarm__snapshot__free_unpacked(m, NULL);
    }
    ck_abort_msg("no snapshot in state %s", ebf_state_name(s));
    return NULL;
}

/* Published snapshots and status replies carry the fake's counters exactly,
 * and the farm's name once a configure gave it. */
START_TEST(test_metrics)
{
    static const struct ctl_param x7[] = {{"x", "7"}, {"farm", "farm-a_1"}};
    struct rig r;
    int timeout = 1000;

    rig_up(&r, 50);
    void *sub = zmq_socket(zctx, ZMQ_SUB);
    ck_assert_ptr_nonnull(sub);
    ck_assert_int_eq(zmq_setsockopt(sub, ZMQ_RCVTIMEO, &timeout, sizeof(timeout)), 0);
    ck_assert_int_eq(zmq_setsockopt(sub, ZMQ_SUBSCRIBE, "", 0), 0);
    ck_assert_int_eq(zmq_connect(sub, r.pub_ep), 0);

    Ebfarm__Snapshot *m = next_published(sub, EBF_S_INITIAL);
    check_snapshot(m, EBF_S_INITIAL, 0, FAKE_X0, 0);
    ck_assert_str_eq(m->farm, "");
    uint64_t seq = m->seq;
    ebfarm__snapshot__free_unpacked(m, NULL);

    Ebfarm__Reply *rep = req(&r, EBF_C_CONFIGURE, 0, x7, 2);
    ck_assert(rep->ok);
    ebfarm__reply__free_unpacked(rep, NULL);
    uint64_t t0 = realtime_ns();
    req_ok(&r, EBF_C_START, 4, EBF_S_RUNNING);
    uint64_t t1 = realtime_ns();

    m = next_published(sub, EBF_S_RUNNING);
    check_snapshot(m, EBF_S_RUNNING, 4, 7, 0);
    ck_assert_str_eq(m->farm, "farm-a_1");
    ck_assert_uint_gt(m->seq, seq);
    ck_assert_uint_ge(m->time_ns, t0);
    seq = m->seq;
    ebfarm__snapshot__free_unpacked(m, NULL);
    m = next_published(sub, EBF_S_RUNNING);
    ck_assert_uint_gt(m->seq, seq);
    check_snapshot(m, EBF_S_RUNNING, 4, 7, 0);
    ebfarm__snapshot__free_unpacked(m, NULL);

    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert(rep->ok);
    ck_assert_int_eq(rep->status->state, EBF_S_RUNNING);
    ck_assert_uint_eq(rep->status->run_number, 4);
    ck_assert_str_eq(rep->status->error, "");
    ck_assert(!rep->status->finished);
    ck_assert_uint_ge(rep->status->state_since_ns, t0);
    ck_assert_uint_le(rep->status->state_since_ns, t1);
    ck_assert_ptr_nonnull(rep->status->metrics);
    check_snapshot(rep->status->metrics, EBF_S_RUNNING, 4, 7, 0);
    ck_assert_str_eq(rep->status->metrics->farm, "farm-a_1");
    ebfarm__reply__free_unpacked(rep, NULL);

    req_ok(&r, EBF_C_PAUSE, 0, EBF_S_PAUSED);
    m = next_published(sub, EBF_S_PAUSED);
    check_snapshot(m, EBF_S_PAUSED, 4, 7, 1);
    ebfarm__snapshot__free_unpacked(m, NULL);

    /* After the run: CONFIGURED, and the counters of the run just drained. */
    req_ok(&r, EBF_C_STOP, 0, EBF_S_DRAINING);
    release_drain(&r);
    m = next_published(sub, EBF_S_CONFIGURED);
    check_snapshot(m, EBF_S_CONFIGURED, 4, 7, 1);
    ebfarm__snapshot__free_unpacked(m, NULL);
    rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    check_snapshot(rep->status->metrics, EBF_S_CONFIGURED, 4, 7, 1);
    ebfarm__reply__free_unpacked(rep, NULL);

    zmq_close(sub);
    rig_down(&r);
}
END_TEST

/* --- Bounded input: parameter text, message size, refusal logs ----------- */

/* Send n bytes as one request; the reply, or NULL when none came within
 * timeout_ms. */
static Ebfarm__Reply *send_bytes(struct rig *r, const void *buf, size_t n, int timeout_ms)
{
    void *s = zmq_socket(zctx, ZMQ_REQ);
    Ebfarm__Reply *rep = NULL;
    zmq_msg_t msg;
    int zero = 0;

    ck_assert_ptr_nonnull(s);
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
    ck_assert_int_eq(zmq_connect(s, r->ctl_ep), 0);
    ck_assert_int_eq(zmq_send(s, buf, n, 0), (int)n);
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, s, 0) >= 0) {
        rep = ebfarm__reply__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
        ck_assert_ptr_nonnull(rep);
    } else {
        ck_assert_int_eq(errno, EAGAIN);
    }
    zmq_msg_close(&msg);
    zmq_close(s);
    return rep;
}

/* A configure parameter as raw bytes: what a client other than ours may send. */
struct raw_param {
    const char *k, *v;
    size_t kn, vn;
};

/* A configure with n raw parameters must be refused with err, changing nothing. */
static void check_raw_refused(struct rig *r, const struct raw_param *rp, size_t n, const char *err)
{
    Ebfarm__Request rq = EBFARM__REQUEST__INIT;
    Ebfarm__Param pv[80], *pp[80];
    unsigned before[EBF_OP_EXIT + 1], after[EBF_OP_EXIT + 1];

    ck_assert_uint_le(n, 80);
    for (size_t i = 0; i < n; i++) {
        ebfarm__param__init(&pv[i]);
        pv[i].key = (ProtobufCBinaryData){rp[i].kn, (uint8_t *)rp[i].k};
        pv[i].value = (ProtobufCBinaryData){rp[i].vn, (uint8_t *)rp[i].v};
        pp[i] = &pv[i];
    }
    rq.command = EBFARM__COMMAND__CONFIGURE;
    rq.n_params = n;
    rq.params = pp;
    size_t len = ebfarm__request__get_packed_size(&rq);
    uint8_t *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    ebfarm__request__pack(&rq, buf);
    ops_now(&r->dp, before);
    Ebfarm__Reply *rep = send_bytes(r, buf, len, 3000);
    ops_now(&r->dp, after);
    free(buf);
    ck_assert_ptr_nonnull(rep);
    ck_assert_msg(!rep->ok, "'%s' carried out", err);
    ck_assert_str_eq(rep->error, err);
    ck_assert_int_eq(rep->status->state, EBF_S_INITIAL);
    check_ops(before, after, -1, err);
    ebfarm__reply__free_unpacked(rep, NULL);
}

#define RAW(k, v) {k, v, sizeof(k) - 1, sizeof(v) - 1}

/* Keys and values are taken with their lengths: a NUL inside, a key that
 * is no name, an oversized value, too many or repeated keys are refused
 * before the daemon's parser sees them. */
START_TEST(test_param_text)
{
    static const struct raw_param nul_value[] = {RAW("x", "10\0garbage")};
    static const struct raw_param nul_rate[] = {RAW("rate", "10\0garbage")};
    static const struct raw_param nul_key[] = {RAW("x\0y", "7")};
    static const struct raw_param empty_key[] = {RAW("", "7")};
    static const struct raw_param upper_key[] = {RAW("X", "7")};
    static const struct raw_param twice[] = {RAW("x", "7"), RAW("x", "8")};
    static char long_key[65], long_value[257], keys[65][8];
    struct raw_param rp[65];
    struct rig r;

    memset(long_key, 'k', 64);
    memset(long_value, '7', 256);
    rig_up(&r, 1000);
    check_raw_refused(&r, nul_value, 1,
                      "parameter 'x': \"10\\0garbage\" holds a NUL byte (a value is text)");
    /* The readout's rate as an adversary sent it: not taken as 10. */
    check_raw_refused(&r, nul_rate, 1,
                      "parameter 'rate': \"10\\0garbage\" holds a NUL byte (a value is text)");
    check_raw_refused(&r, nul_key, 1,
                      "parameter key \"x\\0y\" is not a name (1 to 63 characters of a-z, 0-9 "
                      "and _)");
    check_raw_refused(&r, empty_key, 1,
                      "parameter key \"\" is not a name (1 to 63 characters of a-z, 0-9 and _)");
    check_raw_refused(&r, upper_key, 1,
                      "parameter key \"X\" is not a name (1 to 63 characters of a-z, 0-9 and _)");
    rp[0] = (struct raw_param){long_key, "7", 64, 1};
    check_raw_refused(&r, rp, 1,
                      "parameter key \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                      "kkkkkkk\" is not a name (1 to 63 characters of a-z, 0-9 and _)");
    rp[0] = (struct raw_param){"x", long_value, 1, 256};
    check_raw_refused(&r, rp, 1, "parameter 'x': a value of 256 bytes (at most 255)");
    check_raw_refused(&r, twice, 2, "parameter 'x' is given twice (each key at most once)");
    for (unsigned i = 0; i < 65; i++) {
        snprintf(keys[i], sizeof(keys[i]), "k%u", i);
        rp[i] = (struct raw_param){keys[i], "1", strlen(keys[i]), 1};
    }
    check_raw_refused(&r, rp, 65, "65 parameters in one request (at most 64)");
    /* 64 pass the count; the daemon's parser refuses the first key. */
    check_raw_refused(&r, rp, 64, "fake: unknown parameter 'k0' (allowed: x)");
    ck_assert(x_now(&r) == FAKE_X0);
    rig_down(&r);
}
END_TEST

/* A request over EBF_CTL_MSG_MAX bytes is dropped unread, unanswered; the
 * daemon stays up and answers the next one. One of exactly the limit is read
 * (and refused: it is no Request). */
START_TEST(test_msg_max)
{
    const size_t big = 16u << 20;
    uint8_t *buf = malloc(big);
    struct rig r;

    ck_assert_ptr_nonnull(buf);
    memset(buf, 0xff, big);
    rig_up(&r, 1000);
    Ebfarm__Reply *rep = send_bytes(&r, buf, EBF_CTL_MSG_MAX, 3000);
    ck_assert_ptr_nonnull(rep);
    ck_assert(!rep->ok);
    ck_assert_str_eq(rep->error, "the request is not an ebfarm.Request message");
    ebfarm__reply__free_unpacked(rep, NULL);
    ck_assert_ptr_null(send_bytes(&r, buf, EBF_CTL_MSG_MAX + 1, 1000));
    ck_assert_ptr_null(send_bytes(&r, buf, big, 1000));
    ck_assert_int_eq(status_state(&r), EBF_S_INITIAL);
    req_ok(&r, EBF_C_CONFIGURE, 0, EBF_S_CONFIGURED);
    free(buf);
    rig_down(&r);
}
END_TEST

/* 50 refusals with a limit of 3 lines a window: 3 lines, then one line
 * with the 47 left out (reported at exit: the window is a minute). */
START_TEST(test_refusal_log)
{
    static const char refusal[] =
        "command 'start' is not allowed in state INITIAL (allowed: configure, status, shutdown)";
    char *text = NULL, want[512];
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    struct rig r;

    ck_assert_ptr_nonnull(log);
    ck_assert_int_eq(rte_openlog_stream(log), 0);
    ck_assert_int_eq(rte_log_set_level(ebf_ctl_logtype, RTE_LOG_INFO), 0);
    rig_up_log(&r, 1000, 3, 60);
    for (int i = 0; i < 50; i++)
        check_refused(&r, EBF_C_START, 1, NULL, 0, refusal, EBF_S_INITIAL);
    req_ok(&r, EBF_C_SHUTDOWN, 0, EBF_S_INITIAL);
    rig_join(&r, EBF_S_INITIAL);
    rte_openlog_stream(NULL);
    fclose(log);
    snprintf(want, sizeof(want),
             "ctl: refused 'start': %s\nctl: refused 'start': %s\nctl: refused 'start': %s\n"
             "ctl: suppressed 47 more refused requests (at most 3 are logged every 60 s)\n",
             refusal, refusal, refusal);
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

/* n frames as one request (frame i: the packed request rq[i] or, rq[i]
 * NULL, size[i] bytes of 0x08); the reply, which must come. */
static Ebfarm__Reply *send_frames(struct rig *r, Ebfarm__Request *const rq[], const size_t size[],
                                  unsigned n)
{
    void *s = zmq_socket(zctx, ZMQ_REQ);
    int zero = 0, ms = 5000;
    zmq_msg_t msg;

    ck_assert_ptr_nonnull(s);
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &ms, sizeof(ms));
    ck_assert_int_eq(zmq_connect(s, r->ctl_ep), 0);
    for (unsigned i = 0; i < n; i++) {
        size_t len = rq[i] ? ebfarm__request__get_packed_size(rq[i]) : size[i];
        uint8_t *buf = malloc(len ? len : 1);
        ck_assert_ptr_nonnull(buf);
        if (rq[i])
            ebfarm__request__pack(rq[i], buf);
        else
            memset(buf, 0x08, len);
        ck_assert_int_eq(zmq_send(s, buf, len, i + 1 < n ? ZMQ_SNDMORE : 0), (int)len);
        free(buf);
    }
    zmq_msg_init(&msg);
    ck_assert_int_ge(zmq_msg_recv(&msg, s, 0), 0);
    Ebfarm__Reply *rep = ebfarm__reply__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    ck_assert_ptr_nonnull(rep);
    zmq_msg_close(&msg);
    zmq_close(s);
    return rep;
}

/* A refusal reply: not ok, err, state s, no op reached the data plane
 * since before. */
static void check_reply_refused(struct rig *r, Ebfarm__Reply *rep, const unsigned before[],
                                const char *err, enum ebf_state s)
{
    unsigned after[EBF_OP_EXIT + 1];

    ops_now(&r->dp, after);
    ck_assert_msg(!rep->ok, "'%s' carried out", err);
    ck_assert_str_eq(rep->error, err);
    ck_assert_int_eq(rep->status->state, s);
    ck_assert_uint_eq(rep->status->run_number, 0);
    check_ops(before, after, -1, err);
    ebfarm__reply__free_unpacked(rep, NULL);
}

/* [STATUS, START run 7] is refused whole (the node stays CONFIGURED, no
 * run 7), as is a request of 200 frames of 60 KiB (12 MB over the 64 KiB
 * cap): one log line each, counted under "multipart"; a run number the
 * tools never give (4294967295) is refused as the tool refuses it. */
START_TEST(test_multipart)
{
    static const char run_max_err[] =
        "command 'start': run number 4294967295 is out of range (1 to 4294967294)";
    Ebfarm__Request st = EBFARM__REQUEST__INIT, start = EBFARM__REQUEST__INIT;
    static Ebfarm__Request *rq[200];
    static size_t size[200];
    unsigned before[EBF_OP_EXIT + 1];
    char *text = NULL, want[1024];
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    struct rig r;

    st.command = EBFARM__COMMAND__STATUS;
    start.command = EBFARM__COMMAND__START;
    start.run_number = 7;
    ck_assert_ptr_nonnull(log);
    ck_assert_int_eq(rte_openlog_stream(log), 0);
    ck_assert_int_eq(rte_log_set_level(ebf_ctl_logtype, RTE_LOG_NOTICE), 0);
    rig_up_log(&r, 1000, 10, 60);
    drive_to(&r, EBF_S_CONFIGURED);
    rq[0] = &st;
    rq[1] = &start;
    ops_now(&r.dp, before);
    check_reply_refused(&r, send_frames(&r, rq, size, 2), before,
                        "a request of 2 frames (6 bytes) is refused whole: a request is one "
                        "frame of at most 65536 bytes", EBF_S_CONFIGURED);
    for (unsigned i = 0; i < 200; i++)
        rq[i] = NULL, size[i] = 60 * 1024;
    ops_now(&r.dp, before);
    check_reply_refused(&r, send_frames(&r, rq, size, 200), before,
                        "a request of 200 frames (12288000 bytes) is refused whole: a request "
                        "is one frame of at most 65536 bytes", EBF_S_CONFIGURED);
    check_refused(&r, EBF_C_START, UINT32_MAX, NULL, 0, run_max_err, EBF_S_CONFIGURED);
    Ebfarm__Reply *rep = req(&r, EBF_C_STATUS, 0, NULL, 0);
    ck_assert(rep->ok);
    ck_assert_int_eq(rep->status->state, EBF_S_CONFIGURED);
    const Ebfarm__Snapshot *m = rep->status->metrics;
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(ebf_pb_counter(m, EBF_METRIC_CTL_REFUSED, "multipart", 99), 2);
    ck_assert_uint_eq(ebf_pb_counter(m, EBF_METRIC_CTL_REFUSED, "command", 99), 1);
    ck_assert_uint_eq(ebf_pb_counter(m, EBF_METRIC_CTL_REFUSED, "garbage", 99), 0);
    ck_assert_uint_eq(ebf_pb_counter(m, EBF_METRIC_CTL_REFUSED, "params", 99), 0);
    ebfarm__reply__free_unpacked(rep, NULL);
    req_ok(&r, EBF_C_START, EBF_CTL_RUN_MAX, EBF_S_RUNNING);
    rig_down(&r);
    rte_openlog_stream(NULL);
    fclose(log);
    snprintf(want, sizeof(want),
             "ctl: refused '?': a request of 2 frames (6 bytes) is refused whole: a request is "
             "one frame of at most 65536 bytes\n"
             "ctl: refused '?': a request of 200 frames (12288000 bytes) is refused whole: a "
             "request is one frame of at most 65536 bytes\n"
             "ctl: refused 'start': %s\n", run_max_err);
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

Suite *ebf_ctl_suite(void);

Suite *ebf_ctl_suite(void)
{
    Suite *s = suite_create("ctl");
    TCase *tc = tcase_create("ctl");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_every_pair);
    tcase_add_test(tc, test_unknown_command);
    tcase_add_test(tc, test_configure_params);
    tcase_add_test(tc, test_start_run_zero);
    tcase_add_test(tc, test_start_instant);
    tcase_add_test(tc, test_act);
    tcase_add_test(tc, test_drain);
    tcase_add_test(tc, test_error);
    tcase_add_test(tc, test_metrics);
    tcase_add_test(tc, test_cycles);
    suite_add_tcase(s, tc);

    tc = tcase_create("input");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_param_text);
    tcase_add_test(tc, test_msg_max);
    tcase_add_test(tc, test_refusal_log);
    tcase_add_test(tc, test_multipart);
    suite_add_tcase(s, tc);
    return s;
}
