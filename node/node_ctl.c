/* SPDX-License-Identifier: BSD-3-Clause */
/* node_ctl.c - the trigger node's run-control plug: parameters, run phases, snapshots, metrics. */
#include "node_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "ebf_opt.h"
#include "ebf_port.h"

int node_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    struct node_conf *c = conf;

    if (strcmp(key, "accept") == 0)
        return ebf_param_double(key, value, 0, 1, &c->accept, err, len);
    if (strcmp(key, "accept_seed") == 0)
        return ebf_param_u64(key, value, 0, UINT64_MAX, &c->accept_seed, err, len);
    if (strcmp(key, "trigger_us") == 0)
        return ebf_param_double(key, value, 0, 1e6, &c->trigger_us, err, len);
    return ebf_param_unknown(key, "accept, accept_seed, trigger_us", err, len);
}

int node_runner_init(struct node_runner *r, const struct node_conf *c)
{
    memset(r, 0, sizeof(*r));
    r->conf = r->initial = *c;
    r->dp = node_dp_create(c);
    return r->dp ? 0 : -errno;
}

void node_runner_fini(struct node_runner *r)
{
    node_dp_destroy(r->dp);
    r->dp = NULL;
}

static int apply(void *arg, struct ebf_req *q)
{
    struct node_runner *r = arg;

    switch (q->op) {
    case EBF_OP_CONFIGURE:
        r->conf = *(const struct node_conf *)q->conf;
        return 0;
    case EBF_OP_RESET:
        r->conf = r->initial;
        return 0;
    case EBF_OP_START: {
        /* Fresh slots, counters and credit grant; a new epoch per run. */
        struct node_conf c = r->conf;
        c.epoch = r->initial.epoch + (r->used ? q->run_number : 0);
        struct node_dp *dp = node_dp_create(&c);
        if (!dp) {
            snprintf(q->err, sizeof(q->err), "cannot make the data plane: %s", strerror(errno));
            return -errno;
        }
        node_dp_destroy(r->dp);
        r->dp = dp;
        r->used = 1;
        r->running = 1;
        r->paused = r->stopping = 0;
        return 0;
    }
    case EBF_OP_PAUSE:
        r->paused = 1;
        return 0;
    case EBF_OP_RESUME:
        r->paused = 0;
        return 0;
    default:
        return -EINVAL;
    }
}

static void stop(void *arg)
{
    struct node_runner *r = arg;

    r->stopping = 1;
    node_dp_drain_begin(r->dp);
}

static unsigned poll(void *arg, int *drained)
{
    struct node_runner *r = arg;
    int done = 0;

    /* Paused: events wait in the port; the SFC keeps them counted as in
     * flight and the node's credits stay spent. */
    if (!r->running || (r->paused && !r->stopping))
        return 0;
    if (!r->stopping)
        return node_dp_poll(r->dp);
    unsigned work = node_dp_drain_poll(r->dp, &done);
    if (done) {
        r->running = 0;
        *drained = 1;
    }
    return work;
}

static void snapshot(void *arg, void *out, int *finished)
{
    struct node_runner *r = arg;
    struct node_snap *s = out;
    struct rte_eth_link link;

    memset(s, 0, sizeof(*s));
    s->st = *node_dp_stats(r->dp);
    node_dp_gauges(r->dp, &s->g);
    ebf_port_stats_read(r->conf.port, &s->port);
    if (rte_eth_link_get_nowait(r->conf.port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
    s->running = r->running;
    s->paused = r->paused;
    *finished = 0;
}

const struct ebf_ctl_ops node_ctl_ops = {
    .component = "node",
    .conf_size = sizeof(struct node_conf),
    .snap_size = sizeof(struct node_snap),
    .param = node_param,
    .metrics = node_metrics,
    .apply = apply,
    .stop = stop,
    .poll = poll,
    .snapshot = snapshot,
};
