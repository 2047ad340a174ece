/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_params.c - the run parameters a farm spec gives each kind of daemon with configure. */
#include "farm_params.h"

#include <stdio.h>

/* p[*n] = {k, the value formatted}, then *n + 1. */
#define P(k, fmt, ...) \
    (p[*n].key = (k), snprintf(p[*n].value, sizeof(p[*n].value), fmt, __VA_ARGS__), (*n)++)

/*
 * The readouts' fault and size-distribution parameters: faults or "none",
 * fault_seed, silence "S@E" or "none", bursts, frag_dist, payload, and frag_mean
 * and frag_sigma with lognormal only.
 */
/* The readouts' payload: auto is per-event under a trigger plug-in (its
 * decisions may read the payload, which prebuilt is the same in every
 * event), prebuilt otherwise (docs/performance.md, "readout_tx"). */
static int per_event(const struct ff_run *r)
{
    return r->payload == FF_PAYLOAD_PER_EVENT ||
           (r->payload == FF_PAYLOAD_AUTO && r->trigger.plugin[0] != '\0');
}

static void readout_fault_params(const struct ff_run *r, struct ctl_param *p, unsigned *n)
{
    static const char *const dist[] = {
        [FF_DIST_FIXED] = "fixed", [FF_DIST_UNIFORM] = "uniform",
        [FF_DIST_LOGNORMAL] = "lognormal",
    };

    P("faults", "%s", r->faults[0] ? r->faults : "none");
    P("fault_seed", "%llu", (unsigned long long)r->fault_seed);
    if (r->silence_source == FF_NO_SILENCE)
        P("silence", "%s", "none");
    else
        P("silence", "%u@%llu", r->silence_source, (unsigned long long)r->silence_event);
    P("burst_events", "%u", r->burst_events);
    P("burst_gap_us", "%u", r->burst_gap_us);
    P("frag_dist", "%s", dist[r->frag_dist]);
    P("payload", "%s", per_event(r) ? "per-event" : "prebuilt");
    if (r->frag_dist == FF_DIST_LOGNORMAL) {
        P("frag_mean", "%.17g", r->frag_mean);
        P("frag_sigma", "%.17g", r->frag_sigma);
    }
}

static void readout_params(const struct ff_run *r, struct ctl_param *p, unsigned *n)
{
    P("events", "%llu", (unsigned long long)r->events);
    P("rate", "%.17g", r->rate);
    P("duration_s", "%.17g", r->duration_s);
    P("frag_max", "%u", r->frag_max);
    P("frag_min", "%u", r->frag_min);
    P("seed", "%llu", (unsigned long long)r->seed);
    readout_fault_params(r, p, n);
}

unsigned farm_params(const struct farm_spec *s, enum farm_role role, struct ctl_param *p)
{
    const struct ff_run *r = &s->run;
    unsigned count = 0, *n = &count;

    P("farm", "%s", s->name);    /* every daemon: its snapshots carry it */
    switch (role) {
    case FARM_READOUT:
        readout_params(r, p, n);
        break;
    case FARM_SFC:
        P("sources", "%u", r->sources);
        P("timeout_ms", "%.17g", r->timeout_ms);
        break;
    case FARM_NODE:
        P("accept", "%.17g", r->accept);
        P("accept_seed", "%llu", (unsigned long long)r->accept_seed);
        P("trigger_us", "%.17g", r->trigger_us);
        break;
    }
    return count;
}
