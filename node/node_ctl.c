/* SPDX-License-Identifier: BSD-3-Clause */
/* node_ctl.c - the trigger node's run-control plug: parameters, run phases, snapshots, metrics. */
#include "node_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "ebf_opt.h"

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

/* Fresh slots, counters and credit grant; the epoch of the process for
 * its first run, then a new one for every run. */
static void *create(void *ctx, const void *conf, uint32_t run)
{
    struct node_conf c = *(const struct node_conf *)conf;

    (void)ctx;
    c.epoch += run;
    return node_dp_create(&c);
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

static const struct ebf_plug_ops node_plug_ops = {
    .create = create,
    .destroy = destroy,
    .poll = poll,
    .drain_begin = drain_begin,
    .drain_poll = drain_poll,
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

static void snapshot(void *arg, void *out, int *finished)
{
    struct node_runner *r = container_of(arg, struct node_runner, plug);
    struct node_snap *s = out;
    struct rte_eth_stats ps;
    struct rte_eth_link link;

    memset(s, 0, sizeof(*s));
    s->st = *node_dp_stats(r->plug.dp);
    node_dp_gauges(r->plug.dp, &s->g);
    if (rte_eth_stats_get(r->conf.port, &ps) == 0) {
        s->port_ipackets = ps.ipackets;
        s->port_opackets = ps.opackets;
        s->port_imissed = ps.imissed;
        s->port_rx_nombuf = ps.rx_nombuf;
    }
    if (rte_eth_link_get_nowait(r->conf.port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
    s->running = r->plug.running;
    s->paused = r->plug.paused;
    *finished = 0;
}

static const char *reason_name(unsigned i)
{
    return ebf_reason_name((enum ebf_reason)i);
}

void node_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct node_snap *s = snap;
    const struct node_stats *st = &s->st;

    ebf_metrics_counter(ms, "rx.frames", st->rx_frames);
    ebf_metrics_counter(ms, "rx.bytes", st->rx_bytes);
    ebf_metrics_counter_each(ms, "rx.reject", "reason", st->reject, 1, EBF_R_MAX, reason_name, 0);
    ebf_metrics_counter_each(ms, "piece.reject", "reason", st->piece_reject, 1, EBF_R_MAX,
                             reason_name, 0);
    ebf_metrics_counter_l(ms, "rx.drop", "reason", "wrong_type", st->wrong_type);
    ebf_metrics_counter_l(ms, "rx.drop", "reason", "no_slot", st->no_slot);
    ebf_metrics_counter_l(ms, "rx.drop", "reason", "dup_frames", st->dup_frames);
    ebf_metrics_counter(ms, "events", st->events);
    ebf_metrics_counter(ms, "accepted", st->accepted);
    ebf_metrics_counter(ms, "rejected", st->rejected);
    ebf_metrics_counter(ms, "incomplete", st->incomplete);
    ebf_metrics_counter_each(ms, "verify", "check", st->verify, 0, NODE_V_MAX, node_verify_name, 0);
    ebf_metrics_counter(ms, "events_bad", st->events_bad);
    ebf_metrics_counter(ms, "stopped_partial", st->stopped_partial);
    ebf_metrics_counter(ms, "payload_bytes", st->payload_bytes);
    ebf_metrics_counter(ms, "acks_sent", st->acks_sent);
    ebf_metrics_counter(ms, "credit_frames", st->credit_frames);
    ebf_metrics_counter(ms, "credits_granted", st->credits_granted);
    ebf_metrics_counter(ms, "heartbeats", st->heartbeats);
    ebf_metrics_counter(ms, "tx_refused", st->tx_refused);
    ebf_metrics_counter(ms, "decided_digest", st->decided_digest);
    ebf_metrics_counter(ms, "dup_events", st->dup_events);
    ebf_metrics_id_record(ms, "ledger.acks", st->acked_ids.count, st->acked_ids.id_sum,
                          st->acked_ids.hash_sum, EBF_IDSET_CELLS);
    ebf_metrics_counter(ms, "port.ipackets", s->port_ipackets);
    ebf_metrics_counter(ms, "port.opackets", s->port_opackets);
    ebf_metrics_counter(ms, "port.imissed", s->port_imissed);
    ebf_metrics_counter(ms, "port.rx_nombuf", s->port_rx_nombuf);
    ebf_metrics_gauge(ms, "events_in_progress", NULL, NULL, s->g.events_in_progress);
    ebf_metrics_gauge(ms, "acks_pending", NULL, NULL, s->g.acks_pending);
    ebf_metrics_gauge(ms, "credits", NULL, NULL, s->g.credits);
    ebf_metrics_gauge(ms, "epoch", NULL, NULL, s->g.epoch);
    ebf_metrics_gauge(ms, "mempool_in_use", NULL, NULL, s->g.pool_in_use);
    ebf_metrics_gauge(ms, "link_up", NULL, NULL, s->link_up);
    ebf_metrics_gauge(ms, "paused", NULL, NULL, s->paused);
    ebf_metrics_hist(ms, "e2e_ns", &st->e2e_ns);
}

const struct ebf_ctl_ops node_ctl_ops = {
    .component = "node",
    .conf_size = sizeof(struct node_conf),
    .snap_size = sizeof(struct node_snap),
    .param = node_param,
    .metrics = node_metrics,
    .apply = ebf_plug_apply,
    .stop = ebf_plug_stop,
    .poll = ebf_plug_poll,
    .snapshot = snapshot,
};
