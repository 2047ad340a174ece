/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_ask.c - a farm's processes asked over their control endpoints: commands, status, waits. */
#include "farm_ask.h"

#include "farm_launch.h"

#include <stdio.h>
#include <string.h>
#include <zmq.h>

#include "ebf_pb.h"
#include "farm_host.h"
#include "farm_proc.h"
#include "farm_signal.h"

static void *zctx(void)
{
    static void *z;

    if (!z)
        z = zmq_ctx_new();
    return z;
}

Ebfarm__Reply *farm_ask(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
                        const struct ctl_param *params, unsigned n, int timeout_ms, char *err,
                        size_t len)
{
    Ebfarm__Reply *r = NULL;
    char e[512];

    if (ctl_request(zctx(), p->control, cmd, run, params, n, timeout_ms, &r, e, sizeof(e)) != 0) {
        snprintf(err, len, "%s: %s", p->name, e);
        return NULL;
    }
    return r;
}

/* The reply r of p to cmd (NULL: none, err set) as farm_order returns it;
 * r is freed. */
static int order_done(const struct farm_proc *p, enum ebf_cmd cmd, Ebfarm__Reply *r, char *err,
                      size_t len)
{
    if (!r)
        return -1;
    int ok = r->ok;
    if (!ok)
        snprintf(err, len, "%s refused '%s': %s", p->name, ebf_cmd_name(cmd), r->error);
    ebfarm__reply__free_unpacked(r, NULL);
    return ok ? 0 : -1;
}

int farm_order(const struct farm_proc *p, enum ebf_cmd cmd, uint32_t run,
               const struct ctl_param *params, unsigned n, char *err, size_t len)
{
    return order_done(p, cmd, farm_ask(p, cmd, run, params, n, FARM_REPLY_MS, err, len), err,
                      len);
}

int farm_order_start(const struct farm_proc *p, uint32_t run, uint64_t start_at_ns, char *err,
                     size_t len)
{
    Ebfarm__Reply *r = NULL;
    char e[512];

    if (ctl_request_start(zctx(), p->control, run, start_at_ns, FARM_REPLY_MS, &r, e,
                          sizeof(e)) != 0) {
        snprintf(err, len, "%s: %s", p->name, e);
        r = NULL;
    }
    return order_done(p, EBF_C_START, r, err, len);
}

void farm_status(const struct farm_state *st, Ebfarm__Reply **replies)
{
    char e[1024];

    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        /* A process of this host that is gone (its keeper has recorded
         * how it ended) cannot answer: not waited for. */
        replies[i] = !p->remote && !farm_alive(p->pid)
                         ? NULL
                         : farm_ask(p, EBF_C_STATUS, 0, NULL, 0, 1000, e, sizeof(e));
    }
}

void farm_free_replies(const struct farm_state *st, Ebfarm__Reply **replies)
{
    for (unsigned i = 0; i < st->n; i++)
        if (replies[i])
            ebfarm__reply__free_unpacked(replies[i], NULL);
}

_Static_assert(ACCT_MAX_PARTS >= FARM_MAX_PROCS, "the accounting takes every process");

void farm_status_totals(const struct farm_state *st, Ebfarm__Reply **replies,
                        const int *place, struct acct_totals *t)
{
    static const enum acct_role role[] = {
        [FARM_SFC] = ACCT_SFC, [FARM_NODE] = ACCT_NODE, [FARM_READOUT] = ACCT_READOUT,
    };
    struct acct_part p[FARM_MAX_PROCS];

    for (unsigned i = 0; i < st->n; i++) {
        acct_part_init(&p[i], role[st->proc[i].role], st->proc[i].name, place ? place[i] : -1);
        if (replies[i] && replies[i]->status)
            acct_part_pb(&p[i], replies[i]->status->metrics);
    }
    acct_combine(p, st->n, t);
}

uint64_t farm_counter(const struct farm_proc *p, const char *key, uint64_t def, int *finished)
{
    char e[512];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
    struct ebf_kv kv = {0};
    uint64_t v = def;

    if (!r)
        return def;
    if (finished)
        *finished = r->status && r->status->finished;
    if (r->status && r->status->metrics && ebf_pb_snapshot_kv(r->status->metrics, &kv) == 0)
        v = ebf_kv_u64(&kv, key, def);
    ebf_kv_free(&kv);
    ebfarm__reply__free_unpacked(r, NULL);
    return v;
}

/* When p's cause is a link that never came up: "; the cause may be
 * sfc0's: <its driver's error> (log: ...)" naming the first other local
 * process whose log reports a driver failure (under a memory limit the
 * node blamed its link while sfc0.log said memif_connect(): mmap failed);
 * else "". Into buf. */
static const char *peer_blame(const struct farm_state *st, const struct farm_proc *p,
                              const char *cause, char *buf, size_t len)
{
    char why[512];

    buf[0] = '\0';
    if (!strstr(cause, "link") || !strstr(cause, "not up"))
        return buf;
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *q = &st->proc[i];
        const struct farm_host *h = farm_host_of(st, q);
        if (q == p || (h && h->kind != FF_HOST_LOCAL) ||
            !farm_log_driver_error(st->run_dir, q->name, why, sizeof(why)))
            continue;
        snprintf(buf, len, "; the cause may be %s's: %.400s (log: %.500s/%s.log)", q->name, why,
                 st->run_dir, q->name);
        break;
    }
    return buf;
}

int farm_wait_answer(const struct farm_state *st, const struct farm_proc *p, double timeout_s,
                     char *err, size_t len)
{
    double end = farm_now() + timeout_s;

    for (;;) {
        char e[1024];
        if (farm_signal_check(1, err, len))
            return -1;
        Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, 300, e, sizeof(e));
        if (r) {
            ebfarm__reply__free_unpacked(r, NULL);
            return 0;
        }
        char where[700];
        farm_launch_log_where(st, p, where, sizeof(where));
        if (!farm_launch_alive(st, p)) {
            char cause[512], peer[1200];
            if (farm_launch_log_cause(st, p, cause, sizeof(cause)))
                snprintf(err, len, "%s exited while starting: %s (log: %s)%s", p->name, cause,
                         where, peer_blame(st, p, cause, peer, sizeof(peer)));
            else
                snprintf(err, len, "%s exited while starting (log: %s)", p->name, where);
            return -1;
        }
        if (farm_now() > end) {
            snprintf(err, len, "%s did not answer on %s within %.0f s (log: %s)", p->name,
                     p->control, timeout_s, where);
            return -1;
        }
        farm_sleep_ms(50);
    }
}

/* A node whose storage failed (a full disk) is in ERROR with "storage: ..."
 * but still takes and acks every event, counting the accepted ones lost
 * at storage: once its SFC drained, the staged stop takes it as stopped. */
static int storage_failed(const struct farm_proc *p, const char *error)
{
    return p->role == FARM_NODE && strncmp(error, "storage: ", 9) == 0;
}

/* Whether p is in state want: 1 or 0, or -1 with err when it does not
 * answer or is in ERROR (but for a node whose storage failed, at a stop). */
static int in_state(const struct farm_proc *p, enum ebf_state want, char *err, size_t len)
{
    char e[1024];
    Ebfarm__Reply *r = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, e, sizeof(e));
    int rc;

    if (!r) {
        snprintf(err, len, "%s", e);
        return -1;
    }
    if (r->status && (enum ebf_state)r->status->state == EBF_S_ERROR && want == EBF_S_CONFIGURED &&
        storage_failed(p, r->status->error)) {
        rc = 1;
    } else if (r->status && (enum ebf_state)r->status->state == EBF_S_ERROR) {
        snprintf(err, len, "%s is in ERROR: %s", p->name, r->status->error);
        rc = -1;
    } else {
        rc = r->status && (enum ebf_state)r->status->state == want;
    }
    ebfarm__reply__free_unpacked(r, NULL);
    return rc;
}

int farm_wait_state(const struct farm_state *st, enum farm_role role, enum ebf_state want,
                    double timeout_s, char *err, size_t len)
{
    double end = farm_now() + timeout_s;

    for (;;) {
        int all = 1;
        for (unsigned i = 0; i < st->n && all == 1; i++) {
            const struct farm_proc *p = &st->proc[i];
            if (p->role == role && farm_launch_answers(st, p))
                all = in_state(p, want, err, len);
        }
        if (all != 0)
            return all == 1 ? 0 : -1;
        if (farm_signal_check(2, err, len))
            return -1;
        if (farm_now() > end) {
            snprintf(err, len, "not every process reached %s within %.0f s",
                     ebf_state_name(want), timeout_s);
            return -1;
        }
        farm_sleep_ms(50);
    }
}

int farm_wait_finished(const struct farm_state *st, double timeout_s, char *err, size_t len)
{
    double end = farm_now() + timeout_s;

    for (;;) {
        int all = 1;
        for (unsigned i = 0; i < st->n && all; i++) {
            if (st->proc[i].role != FARM_READOUT)
                continue;
            Ebfarm__Reply *r =
                farm_ask(&st->proc[i], EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, err, len);
            if (!r)
                return -1;
            all = r->status && r->status->finished;
            ebfarm__reply__free_unpacked(r, NULL);
        }
        if (all)
            return 0;
        if (farm_signal_check(1, err, len))
            return -1;
        if (farm_now() > end) {
            snprintf(err, len, "the readouts did not finish within %.0f s", timeout_s);
            return -1;
        }
        farm_sleep_ms(100);
    }
}

int farm_wait_events(const struct farm_proc *ro, uint64_t events, double timeout_s, char *err,
                     size_t len)
{
    double end = farm_now() + timeout_s;

    for (;;) {
        int finished = 0;
        if (farm_counter(ro, "events", 0, &finished) >= events || finished)
            return 0;
        if (farm_signal_check(1, err, len))
            return -1;
        if (farm_now() > end) {
            snprintf(err, len, "the readout did not reach %llu events within %.0f s",
                     (unsigned long long)events, timeout_s);
            return -1;
        }
        farm_sleep_ms(5);
    }
}
