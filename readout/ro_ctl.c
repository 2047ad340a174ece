/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_ctl.c - the readout's run-control plug: parameters, run phases, snapshots, metrics. */
#include "ro_ctl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "ebf_opt.h"
#include "ebf_port.h"
#include "ebf_util.h"
#include "ro_start.h"

#define RO_PARAMS                                                                   \
    "events, rate, duration_s, frag_size, frag_min, frag_max, frag_dist, frag_mean, "  \
    "frag_sigma, seed, faults, fault_seed, silence, burst_events, burst_gap_us, payload, "  \
    "rejoin"

/* The keys that are one shared parameter each. */
static const struct ebf_conf_key ro_keys[] = {
    EBF_CONF_KEY(EVENTS, struct ro_conf, n_events),
    EBF_CONF_KEY(RATE, struct ro_conf, rate),
    EBF_CONF_KEY(DURATION, struct ro_conf, duration_s),
    EBF_CONF_KEY(FRAG_MIN, struct ro_conf, size_min),
    EBF_CONF_KEY(FRAG_MAX, struct ro_conf, size_max),
    EBF_CONF_KEY(FRAG_MEAN, struct ro_conf, size_mean),
    EBF_CONF_KEY(FRAG_SIGMA, struct ro_conf, size_sd),
    EBF_CONF_KEY(SEED, struct ro_conf, seed),
    EBF_CONF_KEY(FAULT_SEED, struct ro_conf, faults.seed),
    EBF_CONF_KEY(BURST_EVENTS, struct ro_conf, faults.burst_events),
    EBF_CONF_KEY(BURST_GAP_US, struct ro_conf, faults.burst_gap_us),
};

/* faults: a spec replaces the previous one: the frame faults start from
 * the defaults; seed, silence and bursts are keys of their own. */
static int faults_param(struct ro_fault_conf *f, const char *value, char *err, size_t len)
{
    struct ro_fault_conf d;
    char why[384];

    ro_fault_conf_init(&d);
    memcpy(f->p, d.p, sizeof(f->p));
    f->window = d.window;
    f->delay_us = d.delay_us;
    f->delay_frames = d.delay_frames;
    if (value[0] == '\0' || strcmp(value, "none") == 0)
        return 0;
    if (ro_fault_parse(value, f, why, sizeof(why)) == 0)
        return 0;
    snprintf(err, len, "parameter 'faults': %s", why);
    return -EINVAL;
}

static int silence_param(struct ro_fault_conf *f, const char *value, char *err, size_t len)
{
    char why[384];

    if (strcmp(value, "none") == 0) {
        f->silence_source = RO_FAULT_NO_SILENCE;
        f->silence_event = 0;
        return 0;
    }
    if (ro_fault_parse_silence(value, f, why, sizeof(why)) == 0)
        return 0;
    snprintf(err, len, "parameter 'silence': %s (or none)", why);
    return -EINVAL;
}

static int dist_param(struct ro_conf *c, const char *value, char *err, size_t len)
{
    if (strcmp(value, "lognormal") == 0)
        c->size_dist = RO_SIZE_LOGNORMAL;
    else if (strcmp(value, "uniform") == 0 || strcmp(value, "fixed") == 0)
        c->size_dist = RO_SIZE_UNIFORM;     /* fixed: frag_min == frag_max */
    else
        return snprintf(err, len, "parameter 'frag_dist': \"%s\" is not fixed, uniform or "
                        "lognormal", value), -EINVAL;
    return 0;
}

/* rejoin RUN:EVENT: run RUN (when it is started) begins at event id EVENT,
 * where a restarted readout rejoins that run in progress; every other run
 * begins at 0. A control parameter only, which ebfarm restart gives (no
 * option, no farm file key); "none" clears it. */
static int rejoin_param(struct ro_conf *c, const char *value, char *err, size_t len)
{
    unsigned long run;
    unsigned long long e;
    int n = -1;

    if (strcmp(value, "none") == 0) {
        c->rejoin_run = 0;
        c->first_event = 0;
        return 0;
    }
    if (value[0] < '0' || value[0] > '9' ||
        sscanf(value, "%lu:%llu%n", &run, &e, &n) != 2 || value[n] != '\0' || run == 0 ||
        run > UINT32_MAX || e >= 1ULL << 62)
        return snprintf(err, len, "parameter 'rejoin': \"%s\" is not RUN:EVENT (a run number "
                        "above 0, an event id below 2^62) or none", value), -EINVAL;
    c->rejoin_run = (uint32_t)run;
    c->first_event = e;
    return 0;
}

int ro_param(void *conf, const char *key, const char *value, char *err, size_t len)
{
    struct ro_conf *c = conf;
    uint32_t size;
    int rc = ebf_conf_set(ro_keys, sizeof(ro_keys) / sizeof(ro_keys[0]), conf, key, value, err,
                          len);

    if (rc <= 0)
        return rc;               /* a later frag_max may still raise the bound; checked at start */
    if (strcmp(key, "frag_size") == 0) {
        rc = ebf_param_set(EBF_PARAM(FRAG_SIZE), value, &size, err, len);
        if (rc == 0)
            c->size_min = c->size_max = size;
        return rc;
    }
    if (strcmp(key, "faults") == 0)
        return faults_param(&c->faults, value, err, len);
    if (strcmp(key, "silence") == 0)
        return silence_param(&c->faults, value, err, len);
    if (strcmp(key, "frag_dist") == 0)
        return dist_param(c, value, err, len);
    if (strcmp(key, "rejoin") == 0)
        return rejoin_param(c, value, err, len);
    if (strcmp(key, "payload") == 0) {
        if (ro_payload_parse(value, &c->payload) == 0)
            return 0;
        return snprintf(err, len, "parameter 'payload': \"%s\" is not prebuilt or per-event",
                        value), -EINVAL;
    }
    return ebf_param_unknown(key, RO_PARAMS, err, len);
}

int ro_conf_check(void *conf, char *err, size_t len)
{
    static const struct ebf_param_names keys = {.pre = ""};
    struct ro_conf *c = conf;
    char why[320];
    const struct ro_fault_conf *f = &c->faults;

    if (ebf_param_check_frag_range(&keys, c->size_min, c->size_max, err, len))
        return -EINVAL;
    if (ebf_event_frames_check(c->n_sources, c->size_max, c->encap, c->mtu, 0, why,
                               sizeof(why))) {
        snprintf(err, len, "parameter 'frag_max': %s", why);
        return -EINVAL;
    }
    if (c->size_dist == RO_SIZE_LOGNORMAL) {
        if (c->size_mean < 1) {
            snprintf(err, len, "parameter 'frag_dist': lognormal needs frag_mean and frag_sigma");
            return -EINVAL;
        }
        ro_size_lognormal_params(c->size_mean, c->size_sd, &c->size_mu, &c->size_sigma);
    }
    /* A farm configures every readout alike: a source another readout sends
     * (outside source_base .. + n_sources) is silenced there, a no-op here. */
    if (f->silence_source != RO_FAULT_NO_SILENCE && f->silence_source >= EBF_MAX_SOURCES) {
        snprintf(err, len, "parameter 'silence': source %u is not below %d", f->silence_source,
                 EBF_MAX_SOURCES);
        return -EINVAL;
    }
    if (f->burst_events && c->rate > 0) {
        snprintf(err, len, "parameter 'burst_events': bursts replace the rate: give rate 0");
        return -EINVAL;
    }
    if (ebf_param_check_burst_gap(&keys, f->burst_gap_us != 0, f->burst_events, err, len))
        return -EINVAL;
    return 0;
}

/* A run with its own fault stage (or none): each run replays its faults
 * from the seed and starts with empty counters. */
static void *create(void *ctx, const void *conf, uint32_t run_number)
{
    struct ro_run *run = calloc(1, sizeof(*run));

    (void)ctx;
    (void)run_number;
    if (!run)
        return NULL;
    run->conf = *(const struct ro_conf *)conf;
    run->conf.fault = NULL;
    if (!ro_fault_conf_active(&run->conf.faults))
        return run;
    run->conf.fault = ro_fault_tx_create(&run->conf.faults, run->conf.encap, run->conf.pool,
                                         (int)rte_socket_id());
    if (run->conf.fault)
        return run;
    int e = errno;
    free(run);
    errno = e;
    return NULL;
}

static void destroy(void *ctx, void *dp)
{
    struct ro_run *run = dp;

    (void)ctx;
    ro_fault_tx_free(run->conf.fault);
    ro_payload_free(&run->g.pay);   /* a run destroyed before it finished */
    free(run);
}

static int begin(void *ctx, void *dp, char *err, size_t len)
{
    struct ro_run *run = dp;

    /* The run a restart rejoins starts where it was; any other at 0. */
    const struct ebf_plug *p = &((struct ro_runner *)ctx)->plug;
    if (run->conf.rejoin_run != p->run)
        run->conf.first_event = 0;
    /* The farm's common instant of event 0 (ro_start.h). */
    uint64_t now_ns = ebf_now_ns();
    if (p->start_at_ns > now_ns && p->start_at_ns - now_ns > RO_START_AHEAD_MAX_NS) {
        snprintf(err, len, "the start instant is %.1f s ahead (at most %.0f): are the hosts' "
                 "clocks in step?", (double)(p->start_at_ns - now_ns) * 1e-9,
                 RO_START_AHEAD_MAX_NS * 1e-9);
        return -EINVAL;
    }
    run->conf.start_at_ns = p->start_at_ns;
    if (ro_begin(&run->g, &run->conf, &run->st) == 0)
        return 0;
    snprintf(err, len, "the run parameters are not usable");
    return -EINVAL;
}

static unsigned poll(void *dp, int intake)
{
    struct ro_run *run = dp;

    return intake ? (unsigned)ro_next(&run->g, &ebf_ctl_force) : 0;
}

/* Events are whole here: the one in progress was finished. A run given
 * a common end (action stop_at) first generates up to it, unless the stop
 * is forced. */
static unsigned drain_poll(void *dp, int *done)
{
    struct ro_run *run = dp;

    if (!ebf_ctl_force && ro_short_of_stop(&run->g))
        return (unsigned)ro_next(&run->g, &ebf_ctl_force);
    ro_finish(&run->g);
    *done = 1;
    return 0;
}

/* Actions on the run in progress (command act): stop_at EVENT, the
 * staged stop's common end (docs/protocol.md, "The common stop"): no
 * event at or above EVENT is begun, and the stop's drain generates up to
 * it. Refused when the run began that event already: the reply's
 * next_event counter says where it is. */
static int act(void *dp, const char *name, const char *value, char *err, size_t len)
{
    struct ro_run *run = dp;
    unsigned long long at;
    char *end = NULL;

    if (strcmp(name, "stop_at") != 0) {
        snprintf(err, len, "unknown action '%s' (allowed: stop_at)", name);
        return -EINVAL;
    }
    errno = 0;
    at = strtoull(value, &end, 10);
    if (errno || *end || value[0] < '0' || value[0] > '9' || at >= 1ULL << 62) {
        snprintf(err, len, "action 'stop_at': \"%s\" is not an event id below 2^62", value);
        return -EINVAL;
    }
    if (ro_stop_at(&run->g, at) == 0)
        return 0;
    snprintf(err, len, "action 'stop_at': event %" PRIu64 " is begun already (stop at %" PRIu64
             " or later)", run->st.next_event - 1, run->st.next_event);
    return -ERANGE;
}

static void hold(void *dp, int paused)
{
    struct ro_run *run = dp;

    if (paused) {
        run->pause_tsc = rte_get_tsc_cycles();
        return;
    }
    /* Shift the schedule by the pause, so no burst makes up for it. */
    uint64_t d = rte_get_tsc_cycles() - run->pause_tsc;
    run->g.t0 += d;
    if (run->g.end != UINT64_MAX)
        run->g.end += d;
    if (run->g.held_since)
        run->g.held_since += d;     /* a throttle hold does not count the pause */
}

static const struct ebf_plug_ops ro_plug_ops = {
    .create = create,
    .destroy = destroy,
    .check = ro_conf_check,
    .begin = begin,
    .poll = poll,
    .drain_poll = drain_poll,
    .pause = hold,
    .act = act,
};

int ro_runner_init(struct ro_runner *r, const struct ro_conf *c)
{
    memset(r, 0, sizeof(*r));
    r->conf = *c;
    r->conf.yield = ebf_plug_yield;
    r->conf.yield_arg = &r->plug;
    r->conf.cycles = &r->plug.cycles;
    return ebf_plug_init(&r->plug, &ro_plug_ops, r, &r->conf, &r->initial, sizeof(r->conf));
}

void ro_runner_fini(struct ro_runner *r)
{
    ebf_plug_fini(&r->plug);
}

int ro_runner_failed(const struct ro_runner *r)
{
    const struct ro_run *run = r->plug.dp;

    return run && run->g.rc != 0;
}

/* Control thread: the port's counters and link. */
static void ports(const void *conf, void *snap)
{
    const struct ro_conf *c = conf;
    struct ro_snap *s = snap;
    struct rte_eth_link link;

    ebf_port_stats_read(c->port, &s->port);
    if (rte_eth_link_get_nowait(c->port, &link) == 0)
        s->link_up = link.link_status == RTE_ETH_LINK_UP;
}

static void snapshot(void *dp, void *out, int *finished)
{
    struct ro_runner *r = container_of(dp, struct ro_runner, plug);
    const struct ro_run *run = r->plug.dp;
    struct ro_snap *s = out;

    memset(s, 0, sizeof(*s));
    s->st = run->st;
    s->mempool_in_use = rte_mempool_in_use_count(r->conf.pool);
    ebf_plug_lcore_stats(&r->plug, &s->lcore);
    s->running = r->plug.running;
    s->paused = r->plug.paused;
    s->throttled = r->plug.running && run->g.held_since != 0;
    s->rate = r->conf.rate;
    s->n_sources = (uint16_t)(r->conf.source_base + r->conf.n_sources);
    s->n_sfcs = r->conf.n_sfcs;
    if (run->conf.fault) {
        s->faults = 1;
        s->fault = *ro_fault_tx_stats(run->conf.fault);
    }
    *finished = r->plug.running ? run->g.done : run->st.start_ns != 0;
    s->finished = r->plug.running && run->g.done;
}

const struct ebf_ctl_ops ro_ctl_ops = {
    .component = "readout",
    .conf_size = sizeof(struct ro_conf),
    .snap_size = sizeof(struct ro_snap),
    .param = ro_param,
    .metrics = ro_metrics,
    .ports = ports,
    .apply = ebf_plug_apply,
    .stop = ebf_plug_stop,
    .poll = ebf_plug_poll,
    .snapshot = snapshot,
};
