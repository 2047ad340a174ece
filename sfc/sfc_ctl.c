/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_ctl.c - the SFC's run-control plug: parameters, run phases, snapshots, metrics. */
#include "sfc_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ebf_opt.h"
#include "ebf_port.h"
#include "sfc_workers.h"

static const struct ebf_conf_key sfc_keys[] = {
    EBF_CONF_KEY(SOURCES, struct sfc_conf, n_sources),
    EBF_CONF_KEY(TIMEOUT_MS, struct sfc_conf, timeout_ms),
    EBF_CONF_KEY(DRAIN_QUIET_MS, struct sfc_conf, drain_quiet_ms),
    EBF_CONF_KEY(DRAIN_TIMEOUT_MS, struct sfc_conf, drain_timeout_ms),
    EBF_CONF_KEY(NODE_TIMEOUT_MS, struct sfc_conf, node_timeout_ms),
};

int sfc_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    const size_t n = sizeof(sfc_keys) / sizeof(sfc_keys[0]);
    char keys[256];
    int rc = ebf_conf_set(sfc_keys, n, conf, key, value, err, len);

    if (rc <= 0)
        return rc;
    return ebf_param_unknown(key, ebf_conf_keys(sfc_keys, n, keys, sizeof(keys)), err, len);
}

static void *create(void *ctx, const void *conf, uint32_t run)
{
    (void)ctx;
    (void)run;
    return sfc_workers_create(conf);
}

static void destroy(void *ctx, void *dp)
{
    (void)ctx;
    sfc_workers_destroy(dp);
}

/* The run starts: workers beyond the first go to their lcores. */
static int begin(void *ctx, void *dp, char *err, size_t len)
{
    (void)ctx;
    return sfc_workers_begin(dp, err, len) ? -EINVAL : 0;
}

/* Paused: no intake, but credits, acks, timeouts and dispatch go on. */
static unsigned poll(void *dp, int intake)
{
    return sfc_workers_poll(dp, intake);
}

static void drain_begin(void *dp)
{
    sfc_workers_drain_begin(dp);
}

static unsigned drain_poll(void *dp, int *done)
{
    return sfc_workers_drain_poll(dp, done);
}

/* Actions on the run in progress (command act, docs/protocol.md 13.5):
 * drain moves this SFC's share to the others from a leave id on, undrain
 * takes it back from a join id on, join does so for a restarted SFC
 * (ebfarm drain, undrain, restart). The value is the id, or "" for the
 * margin ahead of the highest id the SFC heard. mute (a fault for tests)
 * sends no release frame for the value's milliseconds; stall (a fault for
 * tests) stops the loop for them once, in a release round after its low
 * and before its first frame. */
static int act(void *dp, const char *name, const char *value, char *err, size_t len)
{
    static const char *const names[] = {"drain", "undrain", "join", "mute", "stall"};
    const unsigned n = sizeof(names) / sizeof(names[0]);
    unsigned long long at = 0;
    char *end = NULL;
    unsigned h = 0;

    while (h < n && strcmp(name, names[h]) != 0)
        h++;
    if (h == n) {
        snprintf(err, len, "unknown action '%s' (allowed: drain, undrain, join, mute, stall)",
                 name);
        return -EINVAL;
    }
    if (value[0]) {
        errno = 0;
        at = strtoull(value, &end, 10);
        if (errno || *end || value[0] < '0' || value[0] > '9' || at == 0) {
            snprintf(err, len, "action '%s': \"%s\" is not %s above 0", name, value,
                     (enum sfc_leave)h >= SFC_MUTE ? "a number of milliseconds" : "an event id");
            return -EINVAL;
        }
    }
    return sfc_workers_leave(dp, (enum sfc_leave)h, at, err, len);
}

static const struct ebf_plug_ops sfc_plug_ops = {
    .create = create,
    .destroy = destroy,
    .begin = begin,
    .poll = poll,
    .drain_begin = drain_begin,
    .drain_poll = drain_poll,
    .act = act,
};

int sfc_runner_init(struct sfc_runner *r, const struct sfc_conf *c, struct rte_mempool *rx_pool)
{
    memset(r, 0, sizeof(*r));
    r->conf = *c;
    r->rx_pool = rx_pool;
    return ebf_plug_init(&r->plug, &sfc_plug_ops, r, &r->conf, &r->initial, sizeof(r->conf));
}

void sfc_runner_fini(struct sfc_runner *r)
{
    ebf_plug_fini(&r->plug);
}

/* Control thread: the readout port's counters and link, and each node
 * port's counters once, under the first node on it. */
static void ports(const void *conf, void *snap)
{
    const struct sfc_conf *c = conf;
    struct sfc_snap *s = snap;
    struct rte_eth_link link;

    if (rte_eth_link_get_nowait(c->rx_port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
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
    struct sfc_runner *r = container_of(arg, struct sfc_runner, plug);
    struct sfc_snap *s = out;

    memset(s, 0, sizeof(*s));
    sfc_workers_stats(r->plug.dp, &s->st);
    sfc_workers_gauges(r->plug.dp, &s->g);
    s->rx_pool_in_use = rte_mempool_in_use_count(r->rx_pool);
    ebf_plug_lcore_stats(&r->plug, &s->lcore);
    sfc_workers_cycles(r->plug.dp, &s->lcore);
    s->running = r->plug.running;
    s->paused = r->plug.paused;
    *finished = 0;
}

const struct ebf_ctl_ops sfc_ctl_ops = {
    .component = "sfc",
    .conf_size = sizeof(struct sfc_conf),
    .snap_size = sizeof(struct sfc_snap),
    .param = sfc_param,
    .metrics = sfc_metrics,
    .ports = ports,
    .apply = ebf_plug_apply,
    .stop = ebf_plug_stop,
    .poll = ebf_plug_poll,
    .snapshot = snapshot,
};
