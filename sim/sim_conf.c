/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_conf.c - the simulator's configuration: defaults, the `sim:` keys parsed and checked, faults. */
#include "sim_conf.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_proto.h"
#include "ebf_route.h"

enum kind { K_U32, K_U64, K_DBL, K_ARRIVALS, K_DIST };

/* One key: where it goes, its form and its range. */
struct key {
    const char *name;
    enum kind kind;
    size_t off;
    double min, max;
};

#define U32(n, lo, hi) {#n, K_U32, offsetof(struct sim_conf, n), lo, hi}
#define DBL(n, lo, hi) {#n, K_DBL, offsetof(struct sim_conf, n), lo, hi}

static const struct key keys[] = {
    U32(sources, 1, EBF_MAX_SOURCES),
    U32(sfcs, 1, 4096),
    U32(nodes_per_sfc, 1, 1024),
    DBL(rate_hz, 1e-3, 1e8),
    {"arrivals", K_ARRIVALS, offsetof(struct sim_conf, poisson), 0, 0},
    U32(frag_bytes, 1, 1 << 24),
    U32(mtu, 576, 9000),
    DBL(link_gbps, 1e-3, 1e4),
    DBL(link_latency_us, 0, 1e6),
    DBL(switch_buffer_kb, 1, 1 << 21),
    DBL(ro_spread_us, 0, 1e6),
    DBL(ro_frame_ns, 0, 1e9),
    DBL(sfc_frame_ns, 0, 1e9),
    DBL(sfc_event_ns, 0, 1e9),
    {"trigger", K_DIST, offsetof(struct sim_conf, trigger), 0, 0},
    DBL(trigger_us, 0, 1e9),
    DBL(trigger_sigma, 0, 10),
    DBL(accept, 0, 1),
    U32(credits, 1, 65536),
    U32(capacity, 8, 1 << 20),
    DBL(timeout_ms, 0.001, 1e6),
    DBL(node_timeout_ms, 0.001, 1e6),
    DBL(sfc_timeout_ms, 0.001, 1e6),
    DBL(throttle_on, 0.01, 1),
    DBL(throttle_off, 0, 1),
    {"seed", K_U64, offsetof(struct sim_conf, seed), 0, 0},
    DBL(duration_s, 1e-6, 1e6),
    DBL(drain_s, 0, 1e6),
    U32(failover, 0, 1),
    DBL(release_ms, 0.01, 1000),
    DBL(sfc_dead_ms, 0.01, 10000),
    DBL(replay_mb, 0.001, 65536),
    DBL(replay_gap_us, 0, 1e6),
    U32(replay_interleave, 0, 1),
    U32(ack_port, 0, 1),
    U32(rx_ring, 0, 1 << 20),
    DBL(idle_sleep_us, 0, 1e6),
    DBL(idle_extra_us, 0, 1e6),
    DBL(idle_spin_us, 0, 1e6),
    U32(readouts, 1, EBF_MAX_SOURCES),
    DBL(ro_skew_us, 0, 1e6),
    DBL(ro_release_lag_ms, 0, 1e4),
    DBL(release_loss, 0, 1),
    U32(replay_lost_piece, 0, 1),
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

void sim_conf_defaults(struct sim_conf *c)
{
    memset(c, 0, sizeof(*c));
    *c = (struct sim_conf){
        .sources = 4, .sfcs = 1, .nodes_per_sfc = 4, .rate_hz = 1000, .frag_bytes = 1024,
        .mtu = 1500, .link_gbps = 10, .link_latency_us = 1, .switch_buffer_kb = 512,
        .ro_frame_ns = 100, .sfc_frame_ns = 100, .sfc_event_ns = 500,
        .trigger = SIM_DIST_EXP, .trigger_us = 1000, .trigger_sigma = 0.5, .accept = 0.1,
        .credits = 8, .capacity = 1024, .timeout_ms = 100, .node_timeout_ms = 300,
        .sfc_timeout_ms = 1000, .throttle_on = 0.75, .throttle_off = 0.5, .rx_ring = 1024, .seed = 1,
        .duration_s = 1, .drain_s = 2, .release_ms = 10, .sfc_dead_ms = 100,
        .replay_mb = 32, .readouts = 1, .replay_lost_piece = 1,
    };
}

const char *sim_conf_keys(void)
{
    static char buf[1024];

    if (!buf[0])
        for (size_t i = 0, o = 0; i < N_KEYS && o < sizeof(buf); i++)
            o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? ", " : "", keys[i].name);
    return buf;
}

/* A number within [min, max], into *v; 0 or -EINVAL with err. */
static int number(const struct key *k, const char *value, double *v, char *err, size_t errlen)
{
    char *end;

    errno = 0;
    *v = strtod(value, &end);
    if (errno || end == value || *end || !isfinite(*v)) {
        snprintf(err, errlen, "key 'sim.%s': \"%s\" is not a number", k->name, value);
        return -EINVAL;
    }
    if (*v < k->min || *v > k->max) {
        snprintf(err, errlen, "key 'sim.%s': %s is out of range (allowed: %g to %g)", k->name,
                 value, k->min, k->max);
        return -EINVAL;
    }
    if (k->kind == K_U32 && *v != floor(*v)) {
        snprintf(err, errlen, "key 'sim.%s': %s is not a whole number", k->name, value);
        return -EINVAL;
    }
    return 0;
}

/* One of the names in list (NULL-ended), its index into *out. */
static int choice(const char *key, const char *value, const char *const *list, int *out,
                  char *err, size_t errlen)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(value, list[i])) {
            *out = i;
            return 0;
        }
    snprintf(err, errlen, "key 'sim.%s': \"%s\" is not allowed (allowed: %s%s%s%s%s)", key, value,
             list[0], list[1] ? ", " : "", list[1] ? list[1] : "", list[1] && list[2] ? ", " : "",
             list[1] && list[2] ? list[2] : "");
    return -EINVAL;
}

int sim_conf_set(struct sim_conf *c, const char *key, const char *value, char *err,
                 size_t errlen)
{
    static const char *const arrivals[] = {"fixed", "poisson", NULL};
    static const char *const dists[] = {"fixed", "exponential", "lognormal", NULL};
    const struct key *k = NULL;
    char *p = (char *)c;
    double v;
    int rc;

    for (size_t i = 0; i < N_KEYS && !k; i++)
        k = strcmp(keys[i].name, key) ? NULL : &keys[i];
    if (!k) {
        snprintf(err, errlen, "key 'sim.%s' is not allowed (allowed: %s, faults)", key,
                 sim_conf_keys());
        return -EINVAL;
    }
    if (k->kind == K_ARRIVALS)
        return choice(key, value, arrivals, (int *)(p + k->off), err, errlen);
    if (k->kind == K_DIST)
        return choice(key, value, dists, (int *)(p + k->off), err, errlen);
    if (k->kind == K_U64) {
        char *end;
        errno = 0;
        unsigned long long u = strtoull(value, &end, 0);
        if (errno || end == value || *end || value[0] == '-') {
            snprintf(err, errlen, "key 'sim.%s': \"%s\" is not a whole number", key, value);
            return -EINVAL;
        }
        *(uint64_t *)(p + k->off) = u;
        return 0;
    }
    if ((rc = number(k, value, &v, err, errlen)))
        return rc;
    if (k->kind == K_U32)
        *(uint32_t *)(p + k->off) = (uint32_t)v;
    else
        *(double *)(p + k->off) = v;
    return 0;
}

int sim_conf_fault(struct sim_conf *c, const char *text, char *err, size_t errlen)
{
    static const char *const kinds[] = {"node_death", "sfc_death", "node_stall", "link_loss",
                                        "node_restart", "sfc_restart", "sfc_drain",
                                        "sfc_undrain", "sfc_mute"};
    const int n_kinds = (int)(sizeof(kinds) / sizeof(kinds[0]));
    char kind[32];
    unsigned target;
    double at, len = 0;
    int n = sscanf(text, "%31s %u %lf %lf", kind, &target, &at, &len), k;

    for (k = 0; k < n_kinds && (n < 1 || strcmp(kind, kinds[k])); k++)
        ;
    int want = k == 2 || k == 3 || k == 5 || k == 8 ? 4 : 3;
    if (k == n_kinds || n != want || at < 0 || len < 0) {
        snprintf(err, errlen, "key 'sim.faults': \"%s\" is not a fault (allowed: \"node_death "
                 "NODE AT_S\", \"sfc_death SFC AT_S\", \"node_stall NODE AT_S FOR_S\", "
                 "\"link_loss SOURCE AT_S FOR_S\", \"node_restart NODE AT_S\", \"sfc_restart SFC AT_S "
                 "FOR_S\", \"sfc_drain SFC AT_S\", \"sfc_undrain SFC AT_S\", \"sfc_mute SFC AT_S "
                 "FOR_S\")", text);
        return -EINVAL;
    }
    if (c->n_faults == SIM_MAX_FAULTS) {
        snprintf(err, errlen, "key 'sim.faults': more than %d faults", SIM_MAX_FAULTS);
        return -EINVAL;
    }
    c->fault[c->n_faults++] = (struct sim_fault){(enum sim_fault_kind)k, target, at, len};
    return 0;
}

/* A fault's target exists. */
static int fault_check(const struct sim_conf *c, const struct sim_fault *f, unsigned i,
                       char *err, size_t errlen)
{
    static const char *const what[] = {"node", "SFC", "node", "source", "node", "SFC", "SFC",
                                       "SFC", "SFC"};
    static const char *const needs_fo[] = {[SIM_FAULT_SFC_RESTART] = "sfc_restart",
                                           [SIM_FAULT_SFC_DRAIN] = "sfc_drain",
                                           [SIM_FAULT_SFC_UNDRAIN] = "sfc_undrain",
                                           [SIM_FAULT_SFC_MUTE] = "sfc_mute"};
    int on_sfc = f->kind == SIM_FAULT_SFC_DEATH || f->kind == SIM_FAULT_SFC_RESTART ||
                 f->kind == SIM_FAULT_SFC_DRAIN || f->kind == SIM_FAULT_SFC_UNDRAIN ||
                 f->kind == SIM_FAULT_SFC_MUTE;
    uint32_t n = on_sfc ? c->sfcs
                 : f->kind == SIM_FAULT_LINK_LOSS ? c->sources
                                                  : c->sfcs * c->nodes_per_sfc;

    if (f->kind >= SIM_FAULT_SFC_RESTART && needs_fo[f->kind] && !c->failover) {
        snprintf(err, errlen, "key 'sim.faults[%u]': %s needs sim.failover: 1", i,
                 needs_fo[f->kind]);
        return -EINVAL;
    }
    if (f->target < n)
        return 0;
    snprintf(err, errlen, "key 'sim.faults[%u]': %s %u does not exist (allowed: 0 to %u)", i,
             what[f->kind], f->target, n - 1);
    return -EINVAL;
}

int sim_conf_check(const struct sim_conf *c, char *err, size_t errlen)
{
    if (c->sources > EBF_MAX_SOURCES) {
        snprintf(err, errlen, "key 'sim.sources': %u sources is above the event table's "
                 "limit of %d (its present-source bitmap)", c->sources, EBF_MAX_SOURCES);
        return -EINVAL;
    }
    if (c->readouts > c->sources) {
        snprintf(err, errlen, "key 'sim.readouts': %u readouts for %u sources (each sends "
                 "at least one)", c->readouts, c->sources);
        return -EINVAL;
    }
    if (c->failover && c->readouts > 16) {
        snprintf(err, errlen, "key 'sim.readouts': %u readouts with failover (an SFC keeps "
                 "16 readout MACs, SFC_MAX_READOUTS, for its release frames)", c->readouts);
        return -EINVAL;
    }
    if (c->throttle_off > c->throttle_on) {
        snprintf(err, errlen, "key 'sim.throttle_off': %g is above sim.throttle_on (%g)",
                 c->throttle_off, c->throttle_on);
        return -EINVAL;
    }
    uint32_t piece = c->mtu - EBF_IPV4_HLEN - EBF_UDP_HLEN - EBF_FRAG_HLEN;
    uint32_t pieces = (c->frag_bytes + piece - 1) / piece;
    uint64_t recs = (uint64_t)c->capacity * c->sources * pieces;
    if (pieces > SIM_MAX_PIECES) {
        snprintf(err, errlen, "key 'sim.frag_bytes': %u bytes are %u frames at MTU %u (the "
                 "model takes at most %d frames a fragment)", c->frag_bytes, pieces, c->mtu,
                 SIM_MAX_PIECES);
        return -EINVAL;
    }
    if (recs >= UINT32_MAX) {
        snprintf(err, errlen, "key 'sim.capacity': %u events of %u sources of %u-byte "
                 "fragments need %ju frame records, more than the event table's 2^32 - 1",
                 c->capacity, c->sources, c->frag_bytes, (uintmax_t)recs);
        return -EINVAL;
    }
    if (c->failover && c->sfcs > EBF_ROUTE_MAX) {
        snprintf(err, errlen, "key 'sim.failover': %u SFCs are more than the %d places a "
                 "readout's dead set can name (EBF_ROUTE_MAX, docs/protocol.md 13.1)", c->sfcs,
                 EBF_ROUTE_MAX);
        return -EINVAL;
    }
    if (c->failover && c->sfc_dead_ms < c->release_ms) {
        snprintf(err, errlen, "key 'sim.sfc_dead_ms': %g is below sim.release_ms (%g): every "
                 "SFC would be declared dead between two release frames", c->sfc_dead_ms,
                 c->release_ms);
        return -EINVAL;
    }
    for (unsigned i = 0; i < c->n_faults; i++)
        if (fault_check(c, &c->fault[i], i, err, errlen))
            return -EINVAL;
    return 0;
}
