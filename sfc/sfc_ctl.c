/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_ctl.c - the SFC's run-control plug: parameters, run phases, snapshots, metrics. */
#include "sfc_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ebf_opt.h"
#include "ebf_port.h"

int sfc_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    struct sfc_conf *c = conf;
    uint64_t v;

    if (strcmp(key, "sources") == 0) {
        int rc = ebf_param_u64(key, value, 1, EBF_MAX_SOURCES, &v, err, len);
        if (rc == 0)
            c->n_sources = (uint16_t)v;
        return rc;
    }
    if (strcmp(key, "timeout_ms") == 0)
        return ebf_param_double(key, value, 0.001, 3.6e6, &c->timeout_ms, err, len);
    if (strcmp(key, "drain_quiet_ms") == 0)
        return ebf_param_double(key, value, 1, 3.6e6, &c->drain_quiet_ms, err, len);
    if (strcmp(key, "drain_timeout_ms") == 0)
        return ebf_param_double(key, value, 1, 3.6e6, &c->drain_timeout_ms, err, len);
    if (strcmp(key, "node_timeout_ms") == 0)
        return ebf_param_double(key, value, 0, 3.6e6, &c->node_timeout_ms, err, len);
    return ebf_param_unknown(key,
                             "sources, timeout_ms, drain_quiet_ms, drain_timeout_ms, "
                             "node_timeout_ms", err, len);
}

int sfc_runner_init(struct sfc_runner *r, const struct sfc_conf *c, struct rte_mempool *rx_pool)
{
    memset(r, 0, sizeof(*r));
    r->conf = r->initial = *c;
    r->rx_pool = rx_pool;
    r->dp = sfc_dp_create(c);
    return r->dp ? 0 : -errno;
}

void sfc_runner_fini(struct sfc_runner *r)
{
    sfc_dp_destroy(r->dp);
    r->dp = NULL;
}

static int apply(void *arg, struct ebf_req *q)
{
    struct sfc_runner *r = arg;

    switch (q->op) {
    case EBF_OP_CONFIGURE:
        r->conf = *(const struct sfc_conf *)q->conf;
        return 0;
    case EBF_OP_RESET:
        r->conf = r->initial;
        return 0;
    case EBF_OP_START:
        if (r->used || memcmp(&r->conf, &r->initial, sizeof(r->conf)) != 0) {
            /* A fresh table, credits and counters for every run. */
            struct sfc_dp *dp = sfc_dp_create(&r->conf);
            if (!dp) {
                snprintf(q->err, sizeof(q->err), "cannot make the data plane: %s",
                         strerror(errno));
                return -errno;
            }
            sfc_dp_destroy(r->dp);
            r->dp = dp;
        }
        r->used = 1;
        r->running = 1;
        r->paused = r->stopping = 0;
        return 0;
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
    struct sfc_runner *r = arg;

    r->stopping = 1;
    sfc_dp_drain_begin(r->dp);
}

static unsigned poll(void *arg, int *drained)
{
    struct sfc_runner *r = arg;
    int done = 0;

    if (!r->running)
        return 0;
    if (!r->stopping)
        return sfc_dp_poll(r->dp, !r->paused);
    unsigned work = sfc_dp_drain_poll(r->dp, &done);
    if (done) {
        r->running = 0;
        *drained = 1;
    }
    return work;
}

/* The readout port's counters, and each node port's once, under the
 * first node on it. */
static void port_stats(const struct sfc_conf *c, struct sfc_snap *s)
{
    ebf_port_stats_read(c->rx_port, &s->port);
    for (uint16_t i = 0; i < c->n_nodes; i++) {
        uint16_t j = 0;
        while (j < i && c->node[j].port != c->node[i].port)
            j++;
        s->node_port_own[i] = j == i;
        if (j == i)
            ebf_port_stats_read(c->node[i].port, &s->node_port[i]);
    }
}

static void snapshot(void *arg, void *out, int *finished)
{
    struct sfc_runner *r = arg;
    struct sfc_snap *s = out;
    struct rte_eth_link link;

    memset(s, 0, sizeof(*s));
    s->st = *sfc_dp_stats(r->dp);
    sfc_dp_gauges(r->dp, &s->g);
    s->rx_pool_in_use = rte_mempool_in_use_count(r->rx_pool);
    port_stats(&r->conf, s);
    if (rte_eth_link_get_nowait(r->conf.rx_port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
    s->running = r->running;
    s->paused = r->paused;
    *finished = 0;
}

const struct ebf_ctl_ops sfc_ctl_ops = {
    .component = "sfc",
    .conf_size = sizeof(struct sfc_conf),
    .snap_size = sizeof(struct sfc_snap),
    .param = sfc_param,
    .metrics = sfc_metrics,
    .apply = apply,
    .stop = stop,
    .poll = poll,
    .snapshot = snapshot,
};
