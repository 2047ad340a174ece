/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_check.c - validation of a farm spec: value ranges and forms, then the cross checks. */
#include "farmfile_check.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_util.h"
#include "farmfile_cross.h"
#include "farmfile_hosts.h"
#include "farmfile_value.h"

/* Bytes around a fragment piece in a frame: Ethernet (+ IPv4 + UDP),
 * fragment header, and the room the SFC needs for its event header. */
#define FF_ETH_HLEN 14
#define FF_UDP_EXTRA (20 + 8)
#define FF_FRAG_HLEN 40
#define FF_EVENT_HLEN 48

/* --- Values ---------------------------------------------------------------- */

static int range_u(struct ff_chk *c, const char *key, uint64_t v, uint64_t min, uint64_t max)
{
    if (v >= min && v <= max)
        return 0;
    return FAIL(c, "key '%s': %" PRIu64 " is out of range (%" PRIu64 " to %" PRIu64 ")", key, v,
                min, max);
}

static int range_d(struct ff_chk *c, const char *key, double v, double min, double max)
{
    if (v >= min && v <= max)
        return 0;
    return FAIL(c, "key '%s': %.15g is out of range (%.15g to %.15g)", key, v, min, max);
}

static int port_ok(struct ff_chk *c, const char *key, const struct ff_port *p)
{
    char buf[FF_STR_MAX + 8];
    struct ff_port again;

    ff_port_str(p, buf, sizeof(buf));
    if (ff_port_parse(buf, &again) == 0 && again.kind == p->kind && !strcmp(again.dev, p->dev))
        return 0;
    return FAIL(c, "key '%s': \"%s\" is not a port (%s)", key, buf, FF_HINT_PORT);
}

static int endpoint_ok(const char *s)
{
    const char *colon;
    uint64_t port;

    if (!strncmp(s, "ipc://", 6))
        return s[6] != '\0' && strpbrk(s, " \t") == NULL;
    if (strncmp(s, "tcp://", 6) != 0)
        return 0;
    colon = strrchr(s + 6, ':');
    return colon && colon > s + 6 && ebf_parse_u64(colon + 1, 1, 65535, &port) == 0 &&
           isdigit((unsigned char)colon[1]) && strpbrk(s, " \t") == NULL;
}

/* Checks of what every process has; pre is its key, "readouts[0]". */
static int check_proc(struct ff_chk *c, const char *pre, const struct ff_proc *p)
{
    char key[64];
    int rc = 0;

#define KEY(field) (snprintf(key, sizeof(key), "%s.%s", pre, field), key)
    if (!ff_name_ok(p->name))
        return FAIL(c, "key '%s': \"%s\" is not a name (%s)", KEY("name"), p->name, FF_HINT_NAME);
    if (!endpoint_ok(p->control))
        return FAIL(c, "key '%s': \"%s\" is not a ZeroMQ endpoint (%s)", KEY("control"),
                    p->control, FF_HINT_ENDPOINT);
    if (!endpoint_ok(p->metrics))
        return FAIL(c, "key '%s': \"%s\" is not a ZeroMQ endpoint (%s)", KEY("metrics"),
                    p->metrics, FF_HINT_ENDPOINT);
    if (!ff_lcores_ok(p->lcores))
        return FAIL(c, "key '%s': \"%s\" is not %s", KEY("lcores"), p->lcores, FF_HINT_LCORES);
    if (p->idle != FF_IDLE_SPIN && p->idle != FF_IDLE_BACKOFF)
        return FAIL(c, "key '%s': %d is not spin or backoff", KEY("idle"), (int)p->idle);
    rc = range_u(c, KEY("memory_mb"), p->memory_mb, FF_MEMORY_MB_MIN, FF_MEMORY_MB_MAX);
    if (rc == 0 && p->n_eal_args > FF_MAX_EAL_ARGS)
        rc = FAIL(c, "key '%s': %u entries (allowed: 0 to %d)", KEY("eal_args"), p->n_eal_args,
                  FF_MAX_EAL_ARGS);
    for (unsigned i = 0; rc == 0 && i < p->n_eal_args; i++)
        if (p->eal_args[i][0] == '\0')
            rc = FAIL(c, "key '%s.eal_args[%u]' is empty (an EAL argument such as --log-level=8)",
                      pre, i);
        else if (!strcmp(p->eal_args[i], "--telemetry") ||
                 !strcmp(p->eal_args[i], "--no-telemetry"))
            rc = FAIL(c, "key '%s.eal_args[%u]': \"%s\" is set by the key 'telemetry' (true, the "
                      "default, or false), not in eal_args", pre, i, p->eal_args[i]);
#undef KEY
    return rc;
}

/* The fragment-size distribution against frag_min and frag_max. */
static int check_dist(struct ff_chk *c, const struct ff_run *r)
{
    int rc = 0;

    if (r->frag_dist != FF_DIST_FIXED && r->frag_dist != FF_DIST_UNIFORM &&
        r->frag_dist != FF_DIST_LOGNORMAL)
        return FAIL(c, "key 'run.frag_dist': %d is not fixed, uniform or lognormal",
                    (int)r->frag_dist);
    if (r->frag_dist == FF_DIST_FIXED && r->frag_min != r->frag_max)
        return FAIL(c, "key 'run.frag_dist': fixed takes one size, but run.frag_min (%u) and "
                    "run.frag_max (%u) differ (give frag_size, or frag_dist uniform)",
                    r->frag_min, r->frag_max);
    if (r->frag_dist != FF_DIST_LOGNORMAL)
        return 0;
    rc = rc ? rc : range_d(c, "run.frag_mean", r->frag_mean, FF_FRAG_MIN, FF_FRAG_MAX);
    rc = rc ? rc : range_d(c, "run.frag_sigma", r->frag_sigma, 0, FF_FRAG_SIGMA_MAX);
    if (rc == 0 && (r->frag_mean < r->frag_min || r->frag_mean > r->frag_max))
        rc = FAIL(c, "key 'run.frag_mean': %.15g is outside [run.frag_min, run.frag_max] "
                  "(%u to %u), where the sizes are clamped", r->frag_mean, r->frag_min,
                  r->frag_max);
    return rc;
}

/* The readouts' fault injection, with the readout's own spec parser. */
static int check_faults(struct ff_chk *c, const struct ff_run *r)
{
    char why[512];

    if (ff_faults_check(r->faults, why, sizeof(why)))
        return FAIL(c, "key 'run.faults': \"%s\" is not a fault spec: %s", r->faults, why);
    if (r->silence_source != FF_NO_SILENCE && r->silence_source >= r->sources)
        return FAIL(c, "key 'run.silence': source %u is not below run.sources (%u)",
                    r->silence_source, r->sources);
    if (r->burst_events && r->rate > 0)
        return FAIL(c, "key 'run.burst_events': %u cannot be used with run.rate %.15g (bursts "
                    "replace the rate: give one of them)", r->burst_events, r->rate);
    if (r->burst_gap_us && !r->burst_events)
        return FAIL(c, "key 'run.burst_gap_us' needs run.burst_events above 0 (it is the pause "
                    "between bursts of burst_events events)");
    return range_u(c, "run.burst_gap_us", r->burst_gap_us, 0, FF_BURST_GAP_US_MAX);
}

static int check_run(struct ff_chk *c, const struct ff_run *r)
{
    uint32_t l2 = FF_ETH_HLEN + (r->encap == FF_ENCAP_UDP ? FF_UDP_EXTRA : 0);
    uint32_t need = l2 + FF_FRAG_HLEN + FF_EVENT_HLEN + 8;
    int rc = 0;

    rc = rc ? rc : range_u(c, "run.sources", r->sources, FF_SOURCES_MIN, FF_SOURCES_MAX);
    rc = rc ? rc : range_u(c, "run.events", r->events, 0, FF_EVENTS_MAX);
    rc = rc ? rc : range_d(c, "run.rate", r->rate, 0, FF_RATE_MAX);
    rc = rc ? rc : range_d(c, "run.duration_s", r->duration_s, 0, FF_DURATION_MAX);
    rc = rc ? rc : range_u(c, "run.frag_min", r->frag_min, FF_FRAG_MIN, FF_FRAG_MAX);
    rc = rc ? rc : range_u(c, "run.frag_max", r->frag_max, FF_FRAG_MIN, FF_FRAG_MAX);
    if (rc == 0 && r->frag_min > r->frag_max)
        rc = FAIL(c, "key 'run.frag_min': %u is more than run.frag_max (%u)", r->frag_min,
                  r->frag_max);
    if (rc == 0 && r->encap != FF_ENCAP_ETH && r->encap != FF_ENCAP_UDP)
        rc = FAIL(c, "key 'run.encap': %d is not eth or udp", (int)r->encap);
    rc = rc ? rc : range_u(c, "run.udp_port", r->udp_port, 1, 65535);
    /* Before the range, so that a spec built in code learns why. */
    if (rc == 0 && r->mtu < need)
        rc = FAIL(c, "key 'run.mtu': %u leaves no room for a fragment piece (%s needs %u: %u of "
                  "headers, %d fragment header, %d event header, 8 bytes of piece)",
                  r->mtu, r->encap == FF_ENCAP_UDP ? "udp" : "eth", need, l2, FF_FRAG_HLEN,
                  FF_EVENT_HLEN);
    rc = rc ? rc : range_u(c, "run.mtu", r->mtu, FF_MTU_MIN, FF_MTU_MAX);
    rc = rc ? rc : range_d(c, "run.trigger_us", r->trigger_us, 0, FF_TRIGGER_US_MAX);
    rc = rc ? rc : range_d(c, "run.accept", r->accept, 0, 1);
    rc = rc ? rc : range_d(c, "run.timeout_ms", r->timeout_ms, FF_TIMEOUT_MS_MIN,
                           FF_TIMEOUT_MS_MAX);
    rc = rc ? rc : range_d(c, "defaults.metrics_period_ms", r->metrics_period_ms,
                           FF_METRICS_MS_MIN, FF_METRICS_MS_MAX);
    rc = rc ? rc : check_dist(c, r);
    rc = rc ? rc : check_faults(c, r);
    return rc;
}

static int check_counts(struct ff_chk *c, const struct farm_spec *s)
{
    if (s->n_readouts < 1 || s->n_readouts > FF_MAX_READOUTS)
        return FAIL(c, "key 'readouts': %u entries (allowed: 1 to %d)", s->n_readouts,
                    FF_MAX_READOUTS);
    if (s->n_sfcs < 1 || s->n_sfcs > FF_MAX_SFCS)
        return FAIL(c, "key 'sfcs': %u entries (allowed: 1 to %d)", s->n_sfcs, FF_MAX_SFCS);
    if (s->n_nodes < 1 || s->n_nodes > FF_MAX_NODES)
        return FAIL(c, "key 'nodes': %u entries (allowed: 1 to %d)", s->n_nodes, FF_MAX_NODES);
    return 0;
}

static int check_readout(struct ff_chk *c, unsigned i)
{
    const struct ff_readout *r = &c->s->readout[i];
    char pre[32], key[64];
    int rc;

    snprintf(pre, sizeof(pre), "readouts[%u]", i);
    snprintf(key, sizeof(key), "%s.port", pre);
    if ((rc = check_proc(c, pre, &r->p)) || (rc = port_ok(c, key, &r->port)))
        return rc;
    if (r->n_sfcs < 1 || r->n_sfcs > FF_MAX_SFCS)
        return FAIL(c, "key '%s.sfcs': %u entries (allowed: 1 to %d)", pre, r->n_sfcs,
                    FF_MAX_SFCS);
    for (unsigned k = 0; k < r->n_sfcs; k++) {
        if (r->sfc[k] >= c->s->n_sfcs)
            return FAIL(c, "key '%s.sfcs[%u]': %u is not an SFC index (0 to %u)", pre, k,
                        r->sfc[k], c->s->n_sfcs - 1);
        for (unsigned j = 0; j < k; j++)
            if (r->sfc[j] == r->sfc[k])
                return FAIL(c, "key '%s.sfcs[%u]': \"%s\" is already listed as %s.sfcs[%u]",
                            pre, k, c->s->sfc[r->sfc[k]].p.name, pre, j);
    }
    return 0;
}

static int check_sfc(struct ff_chk *c, unsigned i)
{
    const struct ff_sfc *f = &c->s->sfc[i];
    char pre[32], key[64];
    int rc;

    snprintf(pre, sizeof(pre), "sfcs[%u]", i);
    snprintf(key, sizeof(key), "%s.port", pre);
    if ((rc = check_proc(c, pre, &f->p)) || (rc = port_ok(c, key, &f->port)))
        return rc;
    snprintf(key, sizeof(key), "%s.capacity", pre);
    if ((rc = range_u(c, key, f->capacity, FF_CAPACITY_MIN, FF_CAPACITY_MAX)))
        return rc;
    snprintf(key, sizeof(key), "%s.mbufs", pre);
    if ((rc = range_u(c, key, f->mbufs, FF_MBUFS_MIN, FF_MBUFS_MAX)))
        return rc;
    snprintf(key, sizeof(key), "%s.max_credits", pre);
    return range_u(c, key, f->max_credits, 1, FF_MAX_CREDITS_MAX);
}

static int check_node(struct ff_chk *c, unsigned i)
{
    const struct ff_node *n = &c->s->node[i];
    char pre[32], key[64];
    int rc;

    snprintf(pre, sizeof(pre), "nodes[%u]", i);
    snprintf(key, sizeof(key), "%s.port", pre);
    if ((rc = check_proc(c, pre, &n->p)) || (rc = port_ok(c, key, &n->port)))
        return rc;
    snprintf(key, sizeof(key), "%s.sfc_port", pre);
    if ((rc = port_ok(c, key, &n->sfc_port)))
        return rc;
    if (n->sfc >= c->s->n_sfcs)
        return FAIL(c, "key '%s.sfc': %u is not an SFC index (0 to %u)", pre, n->sfc,
                    c->s->n_sfcs - 1);
    snprintf(key, sizeof(key), "%s.credits", pre);
    if ((rc = range_u(c, key, n->credits, 1, FF_CREDITS_MAX)))
        return rc;
    if (n->credits > c->s->sfc[n->sfc].max_credits)
        return FAIL(c, "key '%s': %u is more than sfcs[%u].max_credits (%u) of its SFC", key,
                    n->credits, n->sfc, c->s->sfc[n->sfc].max_credits);
    return 0;
}

int ff_check(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};
    int rc;

    if (!ff_name_ok(s->name))
        return FAIL(&c, "key 'farm': \"%s\" is not a name (%s)", s->name, FF_HINT_NAME);
    if ((rc = check_counts(&c, s)) || (rc = check_run(&c, &s->run)))
        return rc;
    for (unsigned i = 0; i < s->n_readouts; i++)
        if ((rc = check_readout(&c, i)))
            return rc;
    for (unsigned i = 0; i < s->n_sfcs; i++)
        if ((rc = check_sfc(&c, i)))
            return rc;
    for (unsigned i = 0; i < s->n_nodes; i++)
        if ((rc = check_node(&c, i)))
            return rc;
    if ((rc = ff_check_hosts(s, where, err, errlen)))
        return rc;
    return ff_check_cross(s, where, err, errlen);
}
