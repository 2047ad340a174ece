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
#include "farmfile_multi.h"
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

/* A shared parameter's value against its range (ebf_param.h); key as in
 * the file. v: the value, as a double for EBF_PT_DOUBLE. */
static int range_p(struct ff_chk *c, const char *key, const struct ebf_param_def *d, uint64_t v,
                   double x)
{
    if (d->type == EBF_PT_DOUBLE)
        return range_d(c, key, x, d->dmin, d->dmax);
    return range_u(c, key, v, d->min, d->max);
}
#define RANGE_U(c, key, id, v) range_p((c), (key), EBF_PARAM(id), (v), 0)
#define RANGE_D(c, key, id, x) range_p((c), (key), EBF_PARAM(id), 0, (x))

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

/* 1 when the host of tcp endpoint s is a wildcard (every interface). */
static int wildcard(const char *s)
{
    static const char *const any[] = {"*", "0.0.0.0", "[::]", "::", "[::0]"};
    const char *host = s + 6, *colon = strrchr(host, ':');
    size_t n = colon ? (size_t)(colon - host) : strlen(host);

    for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++)
        if (strlen(any[i]) == n && !strncmp(host, any[i], n))
            return 1;
    return 0;
}

/* Whether name (in the run directory) is, or may be, a file the runner
 * itself makes there: the state, logs, memif sockets, exit records, keys,
 * dot files. An endpoint there fails only at start, with another error. */
static int runner_file(const char *name)
{
    static const char *const ends[] = {".sock", ".log"};
    size_t n = strlen(name);

    if (!strcmp(name, "farm.state") || name[0] == '.' || !strncmp(name, "exit.", 5) ||
        !strcmp(name, "keys") || !strncmp(name, "keys/", 5))
        return 1;
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
        if (n >= strlen(ends[i]) && !strcmp(name + n - strlen(ends[i]), ends[i]))
            return 1;
    return 0;
}

/* The endpoint at key is one the farm may bind: a tcp:// one on an address
 * with keys (or insecure), an ipc:// one inside the run directory, not
 * named as a file the runner makes there. */
static int endpoint_allowed(struct ff_chk *c, const char *key, const char *s)
{
    if (!strncmp(s, "ipc://", 6)) {
        if (strncmp(s + 6, FF_RUN_PREFIX, strlen(FF_RUN_PREFIX)) != 0 || strstr(s, "..") ||
            s[6 + strlen(FF_RUN_PREFIX)] == '\0')
            return FAIL(c, "key '%s': \"%s\" is outside the farm's run directory: give "
                        "ipc://" FF_RUN_PREFIX "NAME", key, s);
        if (runner_file(s + 6 + strlen(FF_RUN_PREFIX)))
            return FAIL(c, "key '%s': \"%s\" is a file the runner makes in the run "
                        "directory (farm.state, *.log, the memif sockets *.sock, exit.*, keys, "
                        "dot files): give a name of its own, e.g. ipc://" FF_RUN_PREFIX
                        "NAME.ctl", key, s);
        return 0;
    }
    if (wildcard(s))
        return FAIL(c, "key '%s': \"%s\" binds every interface: give the host's address "
                    "(tcp://ADDR:PORT)", key, s);
    if (!c->s->keys[0] && !c->s->insecure)
        return FAIL(c, "key '%s': \"%s\" is a tcp:// endpoint and the farm has no keys: give "
                    "'keys: DIR' (made by 'ebfarm keygen DIR') or 'insecure: true'", key, s);
    return 0;
}

/* Checks of what every process has; pre is its key, "readouts[0]". */
static int check_proc(struct ff_chk *c, const char *pre, const struct ff_proc *p)
{
    char why[1024];
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
    if ((rc = endpoint_allowed(c, KEY("control"), p->control)) ||
        (rc = endpoint_allowed(c, KEY("metrics"), p->metrics)))
        return rc;
    if (!ff_lcores_ok(p->lcores))
        return FAIL(c, "key '%s': \"%s\" is not %s", KEY("lcores"), p->lcores, FF_HINT_LCORES);
    if (p->idle != FF_IDLE_SPIN && p->idle != FF_IDLE_BACKOFF)
        return FAIL(c, "key '%s': %d is not spin or backoff", KEY("idle"), (int)p->idle);
    rc = range_u(c, KEY("memory_mb"), p->memory_mb, FF_MEMORY_MB_MIN, FF_MEMORY_MB_MAX);
    if (rc == 0 && p->n_eal_args > FF_MAX_EAL_ARGS)
        rc = FAIL(c, "key '%s': %u entries (allowed: 0 to %d)", KEY("eal_args"), p->n_eal_args,
                  FF_MAX_EAL_ARGS);
    for (unsigned i = 0; rc == 0 && i < p->n_eal_args; i++) {
        const char *a = p->eal_args[i];
        if (a[0] == '\0')
            rc = FAIL(c, "key '%s.eal_args[%u]' is empty (an EAL argument such as --log-level=8)",
                      pre, i);
        else if (ff_eal_arg_refused(a, i ? p->eal_args[i - 1] : NULL, why, sizeof(why)))
            rc = FAIL(c, "key '%s.eal_args[%u]': %s", pre, i, why);
    }
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
    rc = rc ? rc : RANGE_D(c, "run.frag_mean", FRAG_MEAN, r->frag_mean);
    rc = rc ? rc : RANGE_D(c, "run.frag_sigma", FRAG_SIGMA, r->frag_sigma);
    if (rc == 0 && (r->frag_mean < r->frag_min || r->frag_mean > r->frag_max))
        rc = FAIL(c, "key 'run.frag_mean': %.15g is outside [run.frag_min, run.frag_max] "
                  "(%u to %u), where the sizes are clamped", r->frag_mean, r->frag_min,
                  r->frag_max);
    return rc;
}

/* run.trigger: a plug-in path when there are parameters, each KEY=VALUE
 * with a key given once. */
static int check_trigger(struct ff_chk *c, const struct ff_trigger *t)
{
    int rc = range_d(c, "run.trigger.timeout_ms", t->timeout_ms, 0, FF_TRIGGER_TIMEOUT_MS_MAX);

    if (rc == 0 && !t->plugin[0] && (t->n_params || t->timeout_ms > 0))
        return FAIL(c, "key 'run.trigger.plugin' is empty (the path of a trigger plug-in .so, "
                    "docs/trigger.md)");
    for (unsigned i = 0; rc == 0 && i < t->n_params; i++) {
        const char *eq = strchr(t->param[i], '=');
        if (!eq || eq == t->param[i])
            return FAIL(c, "key 'run.trigger.params[%u]': \"%s\" is not KEY=VALUE", i,
                        t->param[i]);
        for (unsigned j = 0; j < i; j++)
            if (strncmp(t->param[j], t->param[i], (size_t)(eq - t->param[i]) + 1) == 0)
                return FAIL(c, "key 'run.trigger.params[%u]': \"%s\" gives key '%.*s' "
                            "again (params[%u])", i, t->param[i], (int)(eq - t->param[i]),
                            t->param[i], j);
    }
    return rc;
}

/* run.store: an absolute directory, an fsync policy the node knows. */
static int check_store(struct ff_chk *c, const struct ff_store *s)
{
    if (s->dir[0] && s->dir[0] != '/')
        return FAIL(c, "key 'run.store.dir': \"%s\" is not an absolute path (the nodes run "
                    "in their own directories)", s->dir);
    if (strcmp(s->fsync, "none") && strcmp(s->fsync, "close") && strcmp(s->fsync, "interval"))
        return FAIL(c, "key 'run.store.fsync': \"%s\" is not a policy (allowed: none, close, "
                    "interval)", s->fsync);
    return 0;
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
    if (ebf_param_check_burst_gap(FF_RUN_NAMES, r->burst_gap_us != 0, r->burst_events, why,
                                  sizeof(why)))
        return FAIL(c, "%s", why);
    return RANGE_U(c, "run.burst_gap_us", BURST_GAP_US, r->burst_gap_us);
}

static int check_run(struct ff_chk *c, const struct ff_run *r)
{
    char why[320];
    uint32_t l2 = FF_ETH_HLEN + (r->encap == FF_ENCAP_UDP ? FF_UDP_EXTRA : 0);
    uint32_t need = l2 + FF_FRAG_HLEN + FF_EVENT_HLEN + 8;
    int rc = 0;

    rc = rc ? rc : RANGE_U(c, "run.sources", SOURCES, r->sources);
    rc = rc ? rc : RANGE_U(c, "run.events", EVENTS, r->events);
    rc = rc ? rc : RANGE_D(c, "run.rate", RATE, r->rate);
    rc = rc ? rc : RANGE_D(c, "run.duration_s", DURATION, r->duration_s);
    rc = rc ? rc : RANGE_U(c, "run.frag_min", FRAG_MIN, r->frag_min);
    rc = rc ? rc : RANGE_U(c, "run.frag_max", FRAG_MAX, r->frag_max);
    if (rc == 0 && ebf_param_check_frag_range(FF_RUN_NAMES, r->frag_min, r->frag_max, why,
                                              sizeof(why)))
        rc = FAIL(c, "%s", why);
    if (rc == 0 && r->encap != FF_ENCAP_ETH && r->encap != FF_ENCAP_UDP)
        rc = FAIL(c, "key 'run.encap': %d is not eth or udp", (int)r->encap);
    rc = rc ? rc : RANGE_U(c, "run.udp_port", UDP_PORT, r->udp_port);
    /* Before the range, so that a spec built in code learns why. */
    if (rc == 0 && r->mtu < need)
        rc = FAIL(c, "key 'run.mtu': %u leaves no room for a fragment piece (%s needs %u: %u of "
                  "headers, %d fragment header, %d event header, 8 bytes of piece)",
                  r->mtu, r->encap == FF_ENCAP_UDP ? "udp" : "eth", need, l2, FF_FRAG_HLEN,
                  FF_EVENT_HLEN);
    rc = rc ? rc : RANGE_U(c, "run.mtu", MTU, r->mtu);
    if (rc == 0 && r->max_event)     /* 0: not given */
        rc = RANGE_U(c, "run.max_event", MAX_EVENT, r->max_event);
    /* An event within max_event (16 MiB unless given) and 65,535 frames. */
    if (rc == 0 && ebf_event_frames_check(r->sources, r->frag_max, ff_encap(r->encap), r->mtu,
                                          r->max_event ? r->max_event : EBF_EVENT_MAX_DEFAULT,
                                          why, sizeof(why)))
        rc = FAIL(c, "key 'run.frag_max': %s", why);
    rc = rc ? rc : RANGE_D(c, "run.trigger_us", TRIGGER_US, r->trigger_us);
    rc = rc ? rc : RANGE_D(c, "run.accept", ACCEPT, r->accept);
    rc = rc ? rc : RANGE_D(c, "run.timeout_ms", TIMEOUT_MS, r->timeout_ms);
    rc = rc ? rc : RANGE_D(c, "defaults.metrics_period_ms", METRICS_PERIOD_MS,
                           r->metrics_period_ms);
    rc = rc ? rc : check_dist(c, r);
    rc = rc ? rc : check_faults(c, r);
    rc = rc ? rc : check_trigger(c, &r->trigger);
    rc = rc ? rc : check_store(c, &r->store);
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

/* The largest event of the run (run.max_event, or sources fragments of
 * frag_max) fits what sfc f's mbufs hold at the MTU (ebf_event_max_fit,
 * the SFC's own check of --max-event at start). */
static int event_fits(struct ff_chk *c, const char *pre, const struct ff_sfc *f)
{
    const struct ff_run *r = &c->s->run;
    uint32_t fit = ebf_event_max_fit(r->mtu, f->mbufs);
    uint64_t big = (uint64_t)r->sources * r->frag_max;

    if (r->max_event > fit)
        return FAIL(c, "key 'run.max_event': %u B take more frames at MTU %u than %s.mbufs %u "
                    "leave (at most %u B fit: raise the mbufs)", r->max_event, r->mtu, pre,
                    f->mbufs, fit);
    if (!r->max_event && big > fit)
        return FAIL(c, "key '%s.mbufs': %u hold events of at most %u B at MTU %u, and events "
                    "of %u fragments of up to %u B are up to %llu B (raise the mbufs)", pre,
                    f->mbufs, fit, r->mtu, r->sources, r->frag_max, (unsigned long long)big);
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
    snprintf(key, sizeof(key), "%s.id", pre);
    if ((rc = RANGE_U(c, key, SFC_ID, f->id)))
        return rc;
    snprintf(key, sizeof(key), "%s.capacity", pre);
    if ((rc = RANGE_U(c, key, CAPACITY, f->capacity)))
        return rc;
    snprintf(key, sizeof(key), "%s.mbufs", pre);
    if ((rc = RANGE_U(c, key, MBUFS, f->mbufs)))
        return rc;
    if ((rc = event_fits(c, pre, f)))
        return rc;
    snprintf(key, sizeof(key), "%s.workers", pre);
    if ((rc = RANGE_U(c, key, WORKERS, f->workers)))
        return rc;
    snprintf(key, sizeof(key), "%s.max_credits", pre);
    return RANGE_U(c, key, MAX_CREDITS, f->max_credits);
}

static int check_node(struct ff_chk *c, unsigned i)
{
    const struct ff_node *n = &c->s->node[i];
    char pre[32], dot[40], key[64], why[160];
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
    if ((rc = RANGE_U(c, key, CREDITS, n->credits)))
        return rc;
    snprintf(key, sizeof(key), "%s.workers", pre);
    if ((rc = RANGE_U(c, key, WORKERS, n->workers)))
        return rc;
    snprintf(dot, sizeof(dot), "%s.", pre);
    if (ebf_param_check_workers(&(struct ebf_param_names){.pre = dot}, n->workers, n->credits,
                                why, sizeof(why)))
        return FAIL(c, "%s", why);
    snprintf(key, sizeof(key), "%s.credits", pre);
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
    if (s->keys[0] && s->insecure)
        return FAIL(&c, "keys 'keys' and 'insecure': \"%s\" and true together: give one "
                    "(keys for CURVE, insecure: true for plain tcp://)", s->keys);
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
    if ((rc = ff_check_hosts(s, where, err, errlen)) ||
        (rc = ff_check_multi(s, where, err, errlen)))
        return rc;
    return ff_check_cross(s, where, err, errlen);
}
