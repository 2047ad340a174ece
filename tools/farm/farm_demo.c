/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_demo.c - the demo's settings, the farm spec they shape, and a spec's run as settings. */
#include "farm_demo.h"

#include <stdio.h>
#include <string.h>

#include "farm_place.h"
#include "farmfile.h"

/* The farm file's defaults (ff_run_default, ff_node_default: the
 * parameter table's), 2 nodes, one readout and one SFC. */
void farm_conf_default(struct farm_conf *c)
{
    struct ff_run run;
    struct ff_node node;

    ff_run_default(&run);
    ff_node_default(&node);
    memset(c, 0, sizeof(*c));
    c->events = run.events;
    c->sources = run.sources;
    c->nodes = 2;
    c->readouts = c->sfcs = 1;
    c->frag_min = run.frag_min;
    c->frag_max = run.frag_max;
    c->mtu = run.mtu;
    c->trigger_us = run.trigger_us;
    c->accept = run.accept;
    c->timeout_ms = run.timeout_ms;
    c->credits = node.credits;
    c->workers = node.workers;
    c->max_seconds = 300;
    c->stall_ms = 1000;
    c->freeze_ms = 3000;
    c->frag_dist = run.frag_dist;
    c->seed = run.seed;
    c->silence_source = run.silence_source;
    c->store = run.store;
}

void farm_conf_of(const struct farm_spec *s, struct farm_conf *c)
{
    farm_conf_default(c);
    c->events = s->run.events;
    c->sources = s->run.sources;
    c->nodes = (uint16_t)s->n_nodes;
    c->readouts = (uint16_t)s->n_readouts;
    c->sfcs = (uint16_t)s->n_sfcs;
    c->frag_min = s->run.frag_min;
    c->frag_max = s->run.frag_max;
    c->rate = s->run.rate;
    c->udp = s->run.encap == FF_ENCAP_UDP;
    c->mtu = s->run.mtu;
    c->trigger_us = s->run.trigger_us;
    c->accept = s->run.accept;
    c->timeout_ms = s->run.timeout_ms;
    c->max_event = s->run.max_event;
    c->trigger = s->run.trigger;
    c->store = s->run.store;
    c->credits = s->n_nodes ? s->node[0].credits : 0;
    c->workers = s->n_nodes ? s->node[0].workers : 0;
    c->sfc_workers = s->n_sfcs ? s->sfc[0].workers : 0;
    c->max_seconds = s->run.duration_s;
    c->frag_dist = s->run.frag_dist;
    c->payload = s->run.payload;
    c->frag_mean = s->run.frag_mean;
    c->frag_sigma = s->run.frag_sigma;
    c->seed = s->run.seed;
    snprintf(c->faults, sizeof(c->faults), "%s", s->run.faults);
    c->silence_source = s->run.silence_source;
    c->silence_event = s->run.silence_event;
    c->burst_events = s->run.burst_events;
    c->burst_gap_us = s->run.burst_gap_us;
    c->replay_mb = s->run.replay_mb;
    c->sfc_dead_ms = s->run.sfc_dead_ms;
}

/* c's run parameters into run. */
static void demo_run(const struct farm_conf *c, struct ff_run *run)
{
    run->events = c->events;
    run->sources = c->sources;
    run->frag_min = c->frag_min;
    run->frag_max = c->frag_max;
    run->rate = c->rate;
    run->encap = c->udp ? FF_ENCAP_UDP : FF_ENCAP_ETH;
    run->mtu = c->mtu;
    run->trigger_us = c->trigger_us;
    run->accept = c->accept;
    run->timeout_ms = c->timeout_ms;
    run->max_event = c->max_event;
    run->trigger = c->trigger;
    run->store = c->store;
    run->duration_s = c->max_seconds;
    /* Sizes: log-normal when asked, else fixed or uniform by the bounds. */
    run->frag_dist = c->frag_dist == FF_DIST_LOGNORMAL ? FF_DIST_LOGNORMAL
                     : c->frag_min == c->frag_max ? FF_DIST_FIXED : FF_DIST_UNIFORM;
    run->frag_mean = c->frag_mean;
    run->payload = c->payload;
    run->frag_sigma = c->frag_sigma;
    /* One seed for the run: the sizes and the fault decisions. */
    run->seed = c->seed;
    run->fault_seed = c->seed;
    snprintf(run->faults, sizeof(run->faults), "%s", c->faults);
    run->silence_source = c->silence_source;
    run->silence_event = c->silence_event;
    run->burst_events = c->burst_events;
    run->burst_gap_us = c->burst_gap_us;
    run->replay_mb = c->replay_mb;
    run->sfc_dead_ms = c->sfc_dead_ms;
}

/* Nodes: as many as asked, each like the file's first, on its own link;
 * with several SFCs node i serves SFC i % sfcs (each node one SFC). */
static void demo_nodes(const struct farm_conf *c, struct farm_spec *s)
{
    unsigned sfcs = c->sfcs > 1 ? c->sfcs : 1;

    for (unsigned i = 0; i < c->nodes; i++) {
        struct ff_node *n = &s->node[i];
        if (i >= s->n_nodes || sfcs > 1) {
            *n = s->node[0];
            snprintf(n->p.name, sizeof(n->p.name), "node%u", i);
            snprintf(n->p.control, sizeof(n->p.control), "ipc://{run}/%s.ctl", n->p.name);
            snprintf(n->p.metrics, sizeof(n->p.metrics), "ipc://{run}/%s.pub", n->p.name);
            snprintf(n->port.dev, sizeof(n->port.dev), "sfc%u-node%u", i % sfcs, i);
            n->sfc = i % sfcs;
            n->sfc_port = n->port;
            n->mac[5] = (uint8_t)i;
            n->sfc_mac[5] = (uint8_t)i;
        }
        n->credits = c->credits;
        n->workers = c->workers;
    }
    s->n_nodes = c->nodes;
}

/* Process i of a kind like the file's first: name, endpoints in {run}. */
static void demo_proc(struct ff_proc *p, const char *kind, unsigned i)
{
    snprintf(p->name, sizeof(p->name), "%s%u", kind, i);
    snprintf(p->control, sizeof(p->control), "ipc://{run}/%s.ctl", p->name);
    snprintf(p->metrics, sizeof(p->metrics), "ipc://{run}/%s.pub", p->name);
}

/* Readouts and SFCs: as many as asked, each like the file's first; with
 * more than one of either, or SFC workers, memif links per readout-SFC
 * pair (port: memif; with workers, per readout and worker), every readout
 * sending to every SFC; with workers sharing the port (sfc_shared), the
 * file's one link. */
static void demo_shape(const struct farm_conf *c, struct farm_spec *s)
{
    for (unsigned k = 0; k < s->n_sfcs; k++)
        s->sfc[k].workers = c->sfc_workers;
    if (c->readouts <= 1 && c->sfcs <= 1 && (c->sfc_workers <= 1 || c->sfc_shared))
        return;
    for (unsigned k = 0; k < c->sfcs; k++) {
        struct ff_sfc *x = &s->sfc[k];
        if (k)
            *x = s->sfc[0];
        demo_proc(&x->p, "sfc", k);
        x->id = (uint16_t)k;
        x->port = (struct ff_port){.kind = FF_PORT_MEMIF};
        x->mac[5] = (uint8_t)(k ? 0x30 + k : 0x01);
    }
    s->n_sfcs = c->sfcs;
    for (unsigned i = 0; i < c->readouts; i++) {
        struct ff_readout *r = &s->readout[i];
        if (i)
            *r = s->readout[0];
        demo_proc(&r->p, "ro", i);
        r->port = (struct ff_port){.kind = FF_PORT_MEMIF};
        r->mac[5] = (uint8_t)(0x10 + i);
        r->n_sfcs = c->sfcs;
        for (unsigned k = 0; k < c->sfcs; k++)
            r->sfc[k] = k;
    }
    s->n_readouts = c->readouts;
}

/*
 * Memory for frames of the MTU. The daemons' pools take a whole frame per
 * mbuf (mtu + 18 B, at least 2048 B): the SFC keeps its mbuf count, so its
 * pools grow with the frame and its memory_mb does too, in proportion; the
 * readout and the nodes halve their pools' counts above 2048 B and fit.
 */
static void demo_memory(uint16_t mtu, struct farm_spec *s)
{
    uint64_t room = (uint64_t)mtu + 18 < 2048 ? 2048 : (uint64_t)mtu + 18;

    for (unsigned i = 0; i < s->n_sfcs; i++) {
        uint64_t mb = (s->sfc[i].p.memory_mb * room + 2047) / 2048;
        s->sfc[i].p.memory_mb = (uint32_t)mb;
    }
}

int farm_demo_spec(const struct farm_conf *c, const char *farm_file, struct farm_spec *s,
                   char *err, size_t len)
{
    if (farm_spec_load(farm_file, s, err, len) != 0)
        return -1;
    if (c->nodes > FF_MAX_NODES || s->n_nodes == 0) {
        snprintf(err, len, "the demo takes 1..%d nodes", FF_MAX_NODES);
        return -1;
    }
    if (c->readouts > FF_MAX_READOUTS || c->sfcs > FF_MAX_SFCS) {
        snprintf(err, len, "the demo takes 1..%d readouts and 1..%d SFCs", FF_MAX_READOUTS,
                 FF_MAX_SFCS);
        return -1;
    }
    demo_run(c, &s->run);
    demo_shape(c, s);
    demo_nodes(c, s);
    demo_memory(c->mtu, s);
    if (farm_spec_check(s, err, len) != 0)
        return -1;
    /* After the check: the placement shares CPUs among processes on
     * purpose, which the file's lcores may not. */
    return farm_place_apply(c, farm_place_online(), s, err, len);
}
