/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_ctl.c - the readout's run-control plug: parameters, run phases, snapshots, metrics. */
#include "ro_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "ebf_opt.h"

#define RO_PARAMS "events, rate, duration_s, frag_size, frag_min, frag_max, seed"

int ro_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    struct ro_conf *c = conf;
    uint64_t v;
    int rc;

    if (strcmp(key, "events") == 0)
        return ebf_param_u64(key, value, 0, UINT64_MAX / 2, &c->n_events, err, len);
    if (strcmp(key, "rate") == 0)
        return ebf_param_double(key, value, 0, 1e9, &c->rate, err, len);
    if (strcmp(key, "duration_s") == 0)
        return ebf_param_double(key, value, 0, 1e9, &c->duration_s, err, len);
    if (strcmp(key, "seed") == 0)
        return ebf_param_u64(key, value, 0, UINT64_MAX, &c->seed, err, len);
    if (strcmp(key, "frag_size") && strcmp(key, "frag_min") && strcmp(key, "frag_max"))
        return ebf_param_unknown(key, RO_PARAMS, err, len);
    rc = ebf_param_u64(key, value, 1, 1u << 24, &v, err, len);
    if (rc)
        return rc;
    if (strcmp(key, "frag_size") == 0)
        c->size_min = c->size_max = (uint32_t)v;
    else if (strcmp(key, "frag_min") == 0)
        c->size_min = (uint32_t)v;
    else
        c->size_max = (uint32_t)v;
    /* A later frag_max may still raise the bound; checked at start too. */
    return 0;
}

static void yield(void *arg)
{
    struct ro_runner *r = arg;

    ebf_ctl_service(r->ctl, r);
}

void ro_runner_init(struct ro_runner *r, const struct ro_conf *c)
{
    memset(r, 0, sizeof(*r));
    r->conf = *c;
    r->conf.yield = yield;
    r->conf.yield_arg = r;
    r->initial = r->conf;
}

static int apply(void *dp, struct ebf_req *q)
{
    struct ro_runner *r = dp;

    switch (q->op) {
    case EBF_OP_CONFIGURE: {
        const struct ro_conf *c = q->conf;
        if (c->size_min > c->size_max) {
            snprintf(q->err, sizeof(q->err),
                     "parameter 'frag_min': %u is above frag_max %u", c->size_min, c->size_max);
            return -EINVAL;
        }
        r->conf = *c;
        return 0;
    }
    case EBF_OP_RESET:
        r->conf = r->initial;
        return 0;
    case EBF_OP_START:
        if (ro_begin(&r->g, &r->conf, &r->st)) {
            snprintf(q->err, sizeof(q->err), "the run parameters are not usable");
            return -EINVAL;
        }
        r->running = 1;
        r->paused = r->stopping = 0;
        return 0;
    case EBF_OP_PAUSE:
        r->paused = 1;
        r->pause_tsc = rte_get_tsc_cycles();
        return 0;
    case EBF_OP_RESUME: {
        /* Shift the schedule by the pause, so no burst makes up for it. */
        uint64_t d = rte_get_tsc_cycles() - r->pause_tsc;
        r->g.t0 += d;
        if (r->g.end != UINT64_MAX)
            r->g.end += d;
        r->paused = 0;
        return 0;
    }
    default:
        return -EINVAL;
    }
}

static void stop(void *dp)
{
    struct ro_runner *r = dp;

    r->stopping = 1;
}

static unsigned poll(void *dp, int *drained)
{
    struct ro_runner *r = dp;

    if (!r->running)
        return 0;
    if (r->stopping) {
        /* Events are whole here: the one in progress was finished. */
        ro_finish(&r->g);
        r->running = 0;
        *drained = 1;
        return 0;
    }
    if (r->paused)
        return 0;
    return (unsigned)ro_next(&r->g, &ebf_ctl_force);
}

static void snapshot(void *dp, void *out, int *finished)
{
    struct ro_runner *r = dp;
    struct ro_snap *s = out;
    struct rte_eth_stats ps;
    struct rte_eth_link link;

    memset(s, 0, sizeof(*s));
    s->st = r->st;
    s->mempool_in_use = rte_mempool_in_use_count(r->conf.pool);
    if (rte_eth_stats_get(r->conf.port, &ps) == 0) {
        s->port_ipackets = ps.ipackets;
        s->port_opackets = ps.opackets;
        s->port_oerrors = ps.oerrors;
        s->port_imissed = ps.imissed;
    }
    if (rte_eth_link_get_nowait(r->conf.port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
    s->running = r->running;
    s->paused = r->paused;
    s->rate = r->conf.rate;
    s->n_sources = r->conf.n_sources;
    if (r->conf.fault) {
        s->faults = 1;
        s->fault = *ro_fault_tx_stats(r->conf.fault);
    }
    *finished = r->running ? r->g.done : r->st.start_ns != 0;
}

void ro_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct ro_snap *s = snap;
    const struct ro_stats *st = &s->st;

    ebf_metrics_counter(ms, "events", st->events);
    ebf_metrics_counter(ms, "frames", st->frames);
    ebf_metrics_counter(ms, "bytes", st->bytes);
    ebf_metrics_counter(ms, "payload_bytes", st->payload_bytes);
    ebf_metrics_counter(ms, "tx_refused", st->tx_refused);
    ebf_metrics_counter(ms, "tx_abandoned", st->tx_abandoned);
    ebf_metrics_counter(ms, "events_abandoned", st->events_abandoned);
    ebf_metrics_counter(ms, "id_digest", st->id_digest);
    ebf_metrics_counter(ms, "first_event", st->first_event);
    ebf_metrics_counter(ms, "last_event", st->last_event);
    ebf_metrics_counter(ms, "start_ns", st->start_ns);
    ebf_metrics_counter(ms, "end_ns", st->end_ns);
    ebf_metrics_counter(ms, "port.ipackets", s->port_ipackets);
    ebf_metrics_counter(ms, "port.opackets", s->port_opackets);
    ebf_metrics_counter(ms, "port.oerrors", s->port_oerrors);
    ebf_metrics_counter(ms, "port.imissed", s->port_imissed);
    if (s->faults) {
        const struct ro_fault_stats *f = &s->fault;
        char key[48];
        ebf_metrics_counter(ms, "fault.frames_in", f->frames_in);
        for (unsigned k = 0; k < RO_FK_MAX; k++) {
            snprintf(key, sizeof(key), "fault.%s", ro_fault_counter(k));
            ebf_metrics_counter(ms, key, f->n[k]);
        }
        ebf_metrics_counter(ms, "fault.silenced_frames", f->silenced_frames);
        ebf_metrics_counter(ms, "fault.silenced_fragments", f->silenced_fragments);
        ebf_metrics_counter(ms, "fault.dup_failed", f->dup_failed);
        ebf_metrics_counter(ms, "fault.hold_full", f->hold_full);
        ebf_metrics_counter(ms, "fault.burst_gaps", f->burst_gaps);
        ebf_metrics_counter_index(ms, "fault.dropped.source", "source", f->dropped_source,
                                  s->n_sources, 0);
    }
    ebf_metrics_gauge(ms, "mempool_in_use", NULL, NULL, (double)s->mempool_in_use);
    ebf_metrics_gauge(ms, "link_up", NULL, NULL, s->link_up);
    ebf_metrics_gauge(ms, "paused", NULL, NULL, s->paused);
    ebf_metrics_gauge(ms, "rate_target", NULL, NULL, s->rate);
}

const struct ebf_ctl_ops ro_ctl_ops = {
    .component = "readout",
    .conf_size = sizeof(struct ro_conf),
    .snap_size = sizeof(struct ro_snap),
    .param = ro_param,
    .metrics = ro_metrics,
    .apply = apply,
    .stop = stop,
    .poll = poll,
    .snapshot = snapshot,
};
