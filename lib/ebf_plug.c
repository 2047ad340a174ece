/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_plug.c - configure, reset, start with a fresh data plane, pause, resume, drain. */
#include "ebf_plug.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

int ebf_plug_init(struct ebf_plug *p, const struct ebf_plug_ops *ops, void *ctx, void *conf,
                  void *initial, size_t size)
{
    memset(p, 0, sizeof(*p));
    p->ops = ops;
    p->ctx = ctx;
    p->conf = conf;
    p->initial = initial;
    p->conf_size = size;
    memcpy(initial, conf, size);
    p->scratch = malloc(size);
    if (!p->scratch)
        return -ENOMEM;
    errno = 0;
    p->dp = ops->create(ctx, conf, 0);
    if (!p->dp) {
        int e = errno ? errno : EINVAL;
        free(p->scratch);
        p->scratch = NULL;
        return -e;
    }
    return 0;
}

void ebf_plug_fini(struct ebf_plug *p)
{
    if (p->dp)
        p->ops->destroy(p->ctx, p->dp);
    p->dp = NULL;
    free(p->scratch);
    p->scratch = NULL;
}

/* Adopt the parameters of a configure once the daemon's check passed. */
static int configure(struct ebf_plug *p, struct ebf_req *q)
{
    memcpy(p->scratch, q->conf, p->conf_size);
    if (p->ops->check && p->ops->check(p->scratch, q->err, sizeof(q->err)))
        return -EINVAL;
    memcpy(p->conf, p->scratch, p->conf_size);
    return 0;
}

/*
 * A start: the data plane made at init serves the first run when the
 * parameters are still the command line's; every other run gets a fresh
 * one, made before the last is destroyed (which stays on failure).
 */
static int start(struct ebf_plug *p, struct ebf_req *q)
{
    void *dp = p->dp;

    p->run = q->run_number;     /* for begin: the first run's data plane was made as run 0 */
    p->start_at_ns = q->start_at_ns;
    if (p->used || memcmp(p->conf, p->initial, p->conf_size) != 0) {
        errno = 0;
        dp = p->ops->create(p->ctx, p->conf, p->used ? q->run_number : 0);
        if (!dp) {
            int e = errno ? errno : EINVAL;
            snprintf(q->err, sizeof(q->err), "cannot make the data plane: %s", strerror(e));
            return -e;
        }
    }
    if (p->ops->begin && p->ops->begin(p->ctx, dp, q->err, sizeof(q->err))) {
        if (dp != p->dp)
            p->ops->destroy(p->ctx, dp);
        return -EINVAL;
    }
    if (dp != p->dp) {
        p->ops->destroy(p->ctx, p->dp);
        p->dp = dp;
    }
    p->used = 1;
    p->running = 1;
    p->paused = p->stopping = 0;
    return 0;
}

/* An action on the run in progress (not while it drains), if the daemon
 * has any. */
static int act(struct ebf_plug *p, struct ebf_req *q)
{
    if (!p->ops->act) {
        snprintf(q->err, sizeof(q->err), "action '%s': this daemon has no actions",
                 q->act.key);
        return -ENOTSUP;
    }
    if (!p->running || p->stopping) {
        snprintf(q->err, sizeof(q->err), "action '%s': no run in progress", q->act.key);
        return -EINVAL;
    }
    return p->ops->act(p->dp, q->act.key, q->act.value, q->err, sizeof(q->err));
}

int ebf_plug_apply(void *arg, struct ebf_req *q)
{
    struct ebf_plug *p = arg;

    switch (q->op) {
    case EBF_OP_CONFIGURE:
        return configure(p, q);
    case EBF_OP_RESET:
        memcpy(p->conf, p->initial, p->conf_size);
        return 0;
    case EBF_OP_START:
        return start(p, q);
    case EBF_OP_PAUSE:
    case EBF_OP_RESUME:
        p->paused = q->op == EBF_OP_PAUSE;
        if (p->ops->pause)
            p->ops->pause(p->dp, p->paused);
        return 0;
    case EBF_OP_ACT:
        return act(p, q);
    default:
        return -EINVAL;
    }
}

void ebf_plug_stop(void *arg)
{
    struct ebf_plug *p = arg;

    p->stopping = 1;
    if (p->ops->drain_begin)
        p->ops->drain_begin(p->dp);
}

unsigned ebf_plug_poll(void *arg, int *drained)
{
    struct ebf_plug *p = arg;
    int done = 0;

    if (!p->running)
        return 0;
    if (!p->stopping)
        return p->ops->poll(p->dp, !p->paused);
    unsigned work = p->ops->drain_poll(p->dp, &done);
    if (done) {
        p->running = 0;
        *drained = 1;
    }
    return work;
}

void ebf_plug_yield(void *arg)
{
    struct ebf_plug *p = arg;

    if (p->ctl)
        ebf_ctl_service(p->ctl, p);
}

void ebf_plug_lcore_stats(const struct ebf_plug *p, struct ebf_lcore_stats *out)
{
    ebf_cycles_read(&p->cycles, 1, rte_get_tsc_hz(), out);
}
