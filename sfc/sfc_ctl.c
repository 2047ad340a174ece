/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_ctl.c - the SFC's run-control plug: parameters, run phases, snapshots, metrics. */
#include "sfc_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ebf_opt.h"

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

static void *create(void *ctx, const void *conf, uint32_t run)
{
    (void)ctx;
    (void)run;
    return sfc_dp_create(conf);
}

static void destroy(void *ctx, void *dp)
{
    (void)ctx;
    sfc_dp_destroy(dp);
}

/* Paused: no intake, but credits, acks, timeouts and dispatch go on. */
static unsigned poll(void *dp, int intake)
{
    return sfc_dp_poll(dp, intake);
}

static void drain_begin(void *dp)
{
    sfc_dp_drain_begin(dp);
}

static unsigned drain_poll(void *dp, int *done)
{
    return sfc_dp_drain_poll(dp, done);
}

static const struct ebf_plug_ops sfc_plug_ops = {
    .create = create,
    .destroy = destroy,
    .poll = poll,
    .drain_begin = drain_begin,
    .drain_poll = drain_poll,
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

static void snapshot(void *arg, void *out, int *finished)
{
    struct sfc_runner *r = container_of(arg, struct sfc_runner, plug);
    struct sfc_snap *s = out;
    struct rte_eth_stats ps;
    struct rte_eth_link link;

    memset(s, 0, sizeof(*s));
    s->st = *sfc_dp_stats(r->plug.dp);
    sfc_dp_gauges(r->plug.dp, &s->g);
    s->rx_pool_in_use = rte_mempool_in_use_count(r->rx_pool);
    if (rte_eth_stats_get(r->conf.rx_port, &ps) == 0) {
        s->port_ipackets = ps.ipackets;
        s->port_imissed = ps.imissed;
        s->port_ierrors = ps.ierrors;
        s->port_rx_nombuf = ps.rx_nombuf;
    }
    if (rte_eth_link_get_nowait(r->conf.rx_port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
    s->running = r->plug.running;
    s->paused = r->plug.paused;
    *finished = 0;
}

static const char *reason_name(unsigned i)
{
    return ebf_reason_name((enum ebf_reason)i);
}

static const char *drop_name(unsigned i)
{
    return sfc_drop_name((enum sfc_drop)i);
}

static const char *lost_name(unsigned i)
{
    return sfc_lost_name((enum sfc_lost)i);
}

/* Index of the largest of v[0..n), or -1 when all are 0. */
static double argmax(const uint64_t *v, unsigned n)
{
    int best = -1;
    uint64_t most = 0;

    for (unsigned i = 0; i < n; i++)
        if (v[i] > most) {
            most = v[i];
            best = (int)i;
        }
    return best;
}

static void gauges(const struct sfc_snap *s, struct ebf_metrics *ms)
{
    char node[8];

    ebf_metrics_gauge(ms, "events_building", NULL, NULL, s->g.building);
    ebf_metrics_gauge(ms, "ready_queue", NULL, NULL, s->g.ready);
    ebf_metrics_gauge(ms, "events_unacked", NULL, NULL, s->g.unacked);
    ebf_metrics_gauge(ms, "table_free", NULL, NULL, s->g.free_slots);
    ebf_metrics_gauge(ms, "records_free", NULL, NULL, s->g.free_records);
    for (uint16_t n = 0; n < s->g.n_nodes; n++) {
        snprintf(node, sizeof(node), "%u", n);
        ebf_metrics_gauge(ms, "node_credits", "node", node, s->g.credits[n]);
        ebf_metrics_gauge(ms, "node_unacked", "node", node, s->g.inflight[n]);
        ebf_metrics_gauge(ms, "node_alive", "node", node, s->g.alive[n]);
        ebf_metrics_gauge(ms, "node_epoch", "node", node, s->g.epoch[n]);
    }
    ebf_metrics_gauge(ms, "throttled", NULL, NULL, s->g.throttled);
    /* The source that most often completed an event last (the slowest),
     * and the one most often missing from incomplete events; -1: none. */
    ebf_metrics_gauge(ms, "slowest_source", NULL, NULL,
                      argmax(s->st.last_by_source, EBF_MAX_SOURCES));
    ebf_metrics_gauge(ms, "most_missing_source", NULL, NULL,
                      argmax(s->st.missing_by_source, EBF_MAX_SOURCES));
    ebf_metrics_gauge(ms, "mempool_in_use", "pool", "rx", (double)s->rx_pool_in_use);
    ebf_metrics_gauge(ms, "mempool_in_use", "pool", "hdr", s->g.hdr_in_use);
    ebf_metrics_gauge(ms, "mempool_in_use", "pool", "clone", s->g.clone_in_use);
    ebf_metrics_gauge(ms, "link_up", NULL, NULL, s->link_up);
    ebf_metrics_gauge(ms, "paused", NULL, NULL, s->paused);
    ebf_metrics_gauge(ms, "draining", NULL, NULL, s->g.draining);
}

/* One id record as three counters per cell ("ledger.acked.count.17"...). */
static void idset(struct ebf_metrics *ms, const char *name, const struct ebf_idset *r)
{
    char key[40];

    snprintf(key, sizeof(key), "ledger.%s", name);
    ebf_metrics_id_record(ms, key, r->count, r->id_sum, r->hash_sum, EBF_IDSET_CELLS);
}

/* Sequence gaps, duplicates and late pieces by source; dead nodes; throttle;
 * the ledger's id records. */
static void faults(const struct sfc_stats *st, struct ebf_metrics *ms)
{
    ebf_metrics_counter_index(ms, "seq.gap", "source", st->seq.gap, EBF_MAX_SOURCES, 1);
    ebf_metrics_counter_index(ms, "seq.reorder", "source", st->seq.reorder, EBF_MAX_SOURCES, 1);
    ebf_metrics_counter_index(ms, "seq.dup", "source", st->seq.dup, EBF_MAX_SOURCES, 1);
    ebf_metrics_counter_index(ms, "late.source", "source", st->late_by_source,
                              EBF_MAX_SOURCES, 1);
    ebf_metrics_counter_index(ms, "last.source", "source", st->last_by_source,
                              EBF_MAX_SOURCES, 1);
    ebf_metrics_counter(ms, "throttle.on", st->throttle_on);
    ebf_metrics_counter(ms, "throttle.off", st->throttle_off);
    ebf_metrics_counter(ms, "throttle.frames", st->throttle_frames);
    ebf_metrics_counter(ms, "throttle.tx_fail", st->throttle_tx_fail);
    ebf_metrics_counter(ms, "node.declared_dead", st->nodes_dead);
    ebf_metrics_counter(ms, "node.redispatched", st->redispatched);
    ebf_metrics_counter(ms, "node.rejoins", st->rejoins);
    ebf_metrics_counter(ms, "node.revived", st->revived);
    ebf_metrics_counter(ms, "ack.late_dead", st->late_acks);
    ebf_metrics_counter(ms, "ack.incomplete", st->acked_incomplete);
    ebf_metrics_counter(ms, "acked_digest", st->acked_digest);
    ebf_metrics_counter(ms, "late_ack_digest", st->late_ack_digest);
    idset(ms, "acked", &st->ledger_acked);
    idset(ms, "lost", &st->ledger_lost);
    idset(ms, "late", &st->ledger_late);
}

void sfc_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct sfc_snap *s = snap;
    const struct sfc_stats *st = &s->st;

    ebf_metrics_counter(ms, "rx.frames", st->rx_frames);
    ebf_metrics_counter(ms, "rx.bytes", st->rx_bytes);
    ebf_metrics_counter_each(ms, "rx.reject", "reason", st->reject, 1, EBF_R_MAX, reason_name, 0);
    ebf_metrics_counter_each(ms, "rx.drop", "reason", st->drop, 0, SFC_DROP_MAX, drop_name, 0);
    ebf_metrics_counter_each(ms, "lost", "reason", st->lost, 0, SFC_LOST_MAX, lost_name, 0);
    ebf_metrics_counter(ms, "lost_digest", st->lost_digest);
    ebf_metrics_counter(ms, "events.complete", st->events_complete);
    ebf_metrics_counter(ms, "events.incomplete", st->events_incomplete);
    ebf_metrics_counter(ms, "events.sent", st->events_sent);
    ebf_metrics_counter(ms, "tx.frames", st->frames_tx);
    ebf_metrics_counter(ms, "tx.bytes", st->bytes_tx);
    ebf_metrics_counter(ms, "tx.refused", st->tx_refused);
    ebf_metrics_counter(ms, "tx.clone_fail", st->clone_fail);
    ebf_metrics_counter(ms, "tx.payload_bytes", st->payload_bytes_sent);
    ebf_metrics_counter(ms, "credit.frames", st->credit_frames);
    ebf_metrics_counter(ms, "credit.granted", st->credits_granted);
    ebf_metrics_counter(ms, "credit.clamped", st->credits_clamped);
    ebf_metrics_counter(ms, "ack.events", st->acks);
    ebf_metrics_counter(ms, "ack.accept", st->acked_accept);
    ebf_metrics_counter(ms, "ack.reject", st->acked_reject);
    ebf_metrics_counter(ms, "ack.unknown", st->ack_unknown);
    ebf_metrics_counter(ms, "ack.status_errors", st->ack_status_errors);
    ebf_metrics_counter(ms, "backpressure_polls", st->backpressure_polls);
    ebf_metrics_counter_index(ms, "missing.source", "source", st->missing_by_source,
                              EBF_MAX_SOURCES, 1);
    ebf_metrics_counter_index(ms, "node.sent", "node", st->node_sent, s->g.n_nodes, 0);
    ebf_metrics_counter_index(ms, "node.acked", "node", st->node_acked, s->g.n_nodes, 0);
    ebf_metrics_counter(ms, "port.rx.ipackets", s->port_ipackets);
    ebf_metrics_counter(ms, "port.rx.imissed", s->port_imissed);
    ebf_metrics_counter(ms, "port.rx.ierrors", s->port_ierrors);
    ebf_metrics_counter(ms, "port.rx.rx_nombuf", s->port_rx_nombuf);
    faults(st, ms);
    gauges(s, ms);
    ebf_metrics_hist(ms, "build_ns", &st->build_ns);
    ebf_metrics_hist(ms, "dispatch_ns", &st->dispatch_ns);
    ebf_metrics_hist(ms, "ack_ns", &st->ack_ns);
}

const struct ebf_ctl_ops sfc_ctl_ops = {
    .component = "sfc",
    .conf_size = sizeof(struct sfc_conf),
    .snap_size = sizeof(struct sfc_snap),
    .param = sfc_param,
    .metrics = sfc_metrics,
    .apply = ebf_plug_apply,
    .stop = ebf_plug_stop,
    .poll = ebf_plug_poll,
    .snapshot = snapshot,
};
