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

static const struct ebf_conf_key node_keys[] = {
    EBF_CONF_KEY(ACCEPT, struct node_conf, accept),
    EBF_CONF_KEY(ACCEPT_SEED, struct node_conf, accept_seed),
    EBF_CONF_KEY(TRIGGER_US, struct node_conf, trigger_us),
};

/* ledger_mark "RUN:ID": the release watermark ID of run RUN (13.6). */
static int ledger_mark(struct node_conf *c, const char *value, char *err, size_t len)
{
    unsigned long long run, id;
    int used = -1;

    if (sscanf(value, "%llu:%llu%n", &run, &id, &used) != 2 || used < 0 ||
        value[used] != '\0' || run > UINT32_MAX || value[0] == '-' ||
        strchr(value, '-') != NULL) {
        snprintf(err, len, "parameter 'ledger_mark': \"%s\" is not RUN:ID (a run number, a "
                 "colon, an event id)", value);
        return -EINVAL;
    }
    c->ledger_mark = id;
    c->ledger_mark_run = (uint32_t)run;
    c->ledger_mark_on = 1;
    return 0;
}

int node_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    const size_t n = sizeof(node_keys) / sizeof(node_keys[0]);
    char keys[128];

    if (strcmp(key, "ledger_mark") == 0)
        return ledger_mark(conf, value, err, len);
    int rc = ebf_conf_set(node_keys, n, conf, key, value, err, len);

    if (rc <= 0)
        return rc;
    return ebf_param_unknown(key, ebf_conf_keys(node_keys, n, keys, sizeof(keys)), err, len);
}

/* Fresh slots, counters and credit grant; the epoch of the process for
 * its first run, then a new one for every run. */
static void *create(void *ctx, const void *conf, uint32_t run)
{
    struct node_conf c = *(const struct node_conf *)conf;

    (void)ctx;
    c.epoch += run;
    c.run = run;
    return node_dp_create(&c);
}

/* The run's number is known now (the first run's data plane was made as
 * run 0): storage starts, its files named for it. */
static int begin(void *ctx, void *dp, char *err, size_t len)
{
    struct node_runner *r = ctx;

    return node_dp_begin(dp, r->plug.run, r->plug.ctl ? ebf_ctl_farm(r->plug.ctl) : "", err,
                         len) ? -EINVAL : 0;
}

static void destroy(void *ctx, void *dp)
{
    (void)ctx;
    node_dp_destroy(dp);
}

/* Paused: events wait in the port; the SFC keeps them counted as in
 * flight and the node's credits stay spent. */
static unsigned poll(void *dp, int intake)
{
    return intake ? node_dp_poll(dp) : 0;
}

static void drain_begin(void *dp)
{
    node_dp_drain_begin(dp);
}

static unsigned drain_poll(void *dp, int *done)
{
    return node_dp_drain_poll(dp, done);
}

/* Lcore: action ledger_mark X on the run in progress (an SFC of this node
 * died and restarts: docs/protocol.md 13.6): node_dp_mark; action sfc_new
 * (any value) once that SFC is up again: node_dp_sfc_new. */
static int act(void *dp, const char *name, const char *value, char *err, size_t len)
{
    unsigned long long x;
    int used = -1;

    if (strcmp(name, "sfc_new") == 0) {
        node_dp_sfc_new(dp);
        return 0;
    }
    if (strcmp(name, "ledger_mark") != 0) {
        snprintf(err, len, "action '%s': the node's actions are ledger_mark and sfc_new", name);
        return -EINVAL;
    }
    if (sscanf(value, "%llu%n", &x, &used) != 1 || used < 0 || value[used] != '\0' ||
        value[0] == '-' || value[0] == '+' || value[0] == ' ') {
        snprintf(err, len, "action 'ledger_mark': \"%s\" is not an event id", value);
        return -EINVAL;
    }
    node_dp_mark(dp, x);
    return 0;
}

static const struct ebf_plug_ops node_plug_ops = {
    .create = create,
    .destroy = destroy,
    .begin = begin,
    .poll = poll,
    .drain_begin = drain_begin,
    .drain_poll = drain_poll,
    .act = act,
};

int node_runner_init(struct node_runner *r, const struct node_conf *c)
{
    memset(r, 0, sizeof(*r));
    r->conf = *c;
    return ebf_plug_init(&r->plug, &node_plug_ops, r, &r->conf, &r->initial, sizeof(r->conf));
}

void node_runner_fini(struct node_runner *r)
{
    ebf_plug_fini(&r->plug);
}

/* Control thread: the port's counters and link. */
static void ports(const void *conf, void *snap)
{
    const struct node_conf *c = conf;
    struct node_snap *s = snap;
    struct rte_eth_link link;

    ebf_port_stats_read(c->port, &s->port);
    if (rte_eth_link_get_nowait(c->port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
}

static void snapshot(void *arg, void *out, int *finished)
{
    struct node_runner *r = container_of(arg, struct node_runner, plug);
    struct node_snap *s = out;

    memset(s, 0, sizeof(*s));
    s->st = *node_dp_stats(r->plug.dp);
    node_dp_gauges(r->plug.dp, &s->g);
    node_dp_store_stats(r->plug.dp, &s->store);
    ebf_plug_lcore_stats(&r->plug, &s->lcore);
    node_dp_worker_cycles(r->plug.dp, &s->lcore);
    if (r->plug.used)
        node_dp_after(r->plug.dp,
                      r->conf.ledger_mark_on && r->conf.ledger_mark_run == r->plug.run,
                      r->conf.ledger_mark, s);
    s->running = r->plug.running;
    s->paused = r->plug.paused;
    *finished = 0;
}

/* A storage write error: the node goes to ERROR with its path and errno. */
static int fault(void *arg, char *why, size_t len)
{
    struct node_runner *r = container_of(arg, struct node_runner, plug);

    return r->plug.dp && node_dp_failed(r->plug.dp, why, len);
}

const struct ebf_ctl_ops node_ctl_ops = {
    .component = "node",
    .conf_size = sizeof(struct node_conf),
    .snap_size = sizeof(struct node_snap),
    .param = node_param,
    .metrics = node_metrics,
    .ports = ports,
    .apply = ebf_plug_apply,
    .stop = ebf_plug_stop,
    .poll = ebf_plug_poll,
    .snapshot = snapshot,
    .fault = fault,
};
