/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_workers.c - an SFC of W data planes: ports cut per worker, workers on their lcores, counters summed. */
#include "sfc_workers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "ebf_cycles.h"
#include "sfc_dp_private.h"

extern int sfc_logtype;          /* sfc_dp.c's */
#define SFC_W_LOG(...) rte_log(RTE_LOG_ERR, sfc_logtype, "sfc: " __VA_ARGS__)

/* One worker: its data plane, and what the lcore running it and worker 0's
 * lcore tell each other. */
struct sfc_worker {
    struct sfc_dp *dp;
    struct sfc_workers *g;
    unsigned lcore;              /* RTE_MAX_LCORE: not launched (worker 0 never is) */
    volatile int quit;           /* destroy: leave now */
    volatile int finished;       /* its drain is done (or it quit) */
    struct ebf_cycles cycles;
} __rte_cache_aligned;

/* Written rarely (at pause, resume and stop), read by every worker on
 * every pass: a cache line of its own, apart from the throttle's wants. */
struct sfc_workers {
    uint16_t n;
    volatile int intake;         /* worker 0's intake (0 while paused), followed by all */
    volatile int draining;       /* the stop began: each worker drains */
    struct sfc_share share __rte_cache_aligned;
    struct sfc_worker w[SFC_WORKERS_MAX];
};

static uint16_t n_workers(const struct sfc_conf *c)
{
    return c->workers ? c->workers : 1;
}

/* The distinct node ports in the order the nodes first name them: node i's
 * port is port_of[i]; returns how many. */
static uint16_t node_ports(const struct sfc_conf *c, uint16_t *port_of)
{
    uint16_t seen[SFC_MAX_NODES], n = 0;

    for (uint16_t i = 0; i < c->n_nodes; i++) {
        uint16_t q = 0;
        while (q < n && seen[q] != c->node[i].port)
            q++;
        if (q == n)
            seen[n++] = c->node[i].port;
        port_of[i] = q;
    }
    return n;
}

int sfc_workers_check(const struct sfc_conf *c, char *err, size_t len)
{
    uint16_t w = n_workers(c), port_of[SFC_MAX_NODES];
    unsigned ro_ports = 1u + c->n_more_rx;

    if (w > SFC_WORKERS_MAX) {
        snprintf(err, len, "--workers %u: at most %u", w, SFC_WORKERS_MAX);
        return -1;
    }
    if (ro_ports % w) {
        snprintf(err, len, "--workers %u: %u readout port%s (--port and %u --readout-port) "
                 "do%s not cut into %u equal runs: each worker takes its own readout ports (a "
                 "memif link per readout and worker); one port spread over workers by the NIC "
                 "(RSS on the UDP source port) is not supported yet", w, ro_ports,
                 ro_ports == 1 ? "" : "s", c->n_more_rx, ro_ports == 1 ? "es" : "", w);
        return -1;
    }
    uint16_t np = node_ports(c, port_of);
    if (np < w) {
        snprintf(err, len, "--workers %u: %u distinct node port%s: each worker serves the nodes "
                 "of its own node ports (port q to worker q %% %u); give every worker one (a "
                 "memif link per node)", w, np, np == 1 ? "" : "s", w);
        return -1;
    }
    return 0;
}

/* Worker w's conf: its run of readout ports, the nodes of its node ports,
 * its share of the table and the records. */
static void worker_conf(const struct sfc_conf *c, uint16_t w, struct sfc_share *share,
                        struct sfc_conf *out)
{
    uint16_t n = n_workers(c), port_of[SFC_MAX_NODES], all[SFC_MAX_READOUTS];
    uint16_t per = (uint16_t)((1u + c->n_more_rx) / n);

    *out = *c;
    if (n == 1)
        return;
    all[0] = c->rx_port;
    memcpy(all + 1, c->more_rx, sizeof(c->more_rx[0]) * c->n_more_rx);
    out->rx_port = all[w * per];
    out->n_more_rx = (uint16_t)(per - 1);
    memcpy(out->more_rx, all + w * per + 1, sizeof(all[0]) * (per - 1u));
    node_ports(c, port_of);
    out->node_mask = 0;
    for (uint16_t i = 0; i < c->n_nodes; i++)
        if (port_of[i] % n == w)
            out->node_mask |= 1ull << i;
    out->capacity = c->capacity / n;
    out->max_frames = c->max_frames / n;
    out->worker = w;
    out->share = share;
}

struct sfc_workers *sfc_workers_create(const struct sfc_conf *c)
{
    char err[320];
    uint16_t n = n_workers(c);
    struct sfc_workers *g;

    if (sfc_workers_check(c, err, sizeof(err))) {
        SFC_W_LOG("%s\n", err);
        errno = EINVAL;
        return NULL;
    }
    if (n > rte_lcore_count()) {
        SFC_W_LOG("--workers %u needs %u lcores, EAL gave %u (-l, --lcores)\n", n, n,
                  rte_lcore_count());
        errno = ERANGE;
        return NULL;
    }
    g = rte_zmalloc("sfc_workers", sizeof(*g), RTE_CACHE_LINE_SIZE);
    if (!g) {
        errno = ENOMEM;
        return NULL;
    }
    g->n = n;
    g->share.n = n;
    for (uint16_t w = 0; w < n; w++) {
        struct sfc_conf wc;
        worker_conf(c, w, &g->share, &wc);
        g->w[w].lcore = RTE_MAX_LCORE;
        g->w[w].g = g;
        g->w[w].dp = sfc_dp_create(&wc);
        if (!g->w[w].dp) {
            int e = errno;
            sfc_workers_destroy(g);
            errno = e;
            return NULL;
        }
    }
    return g;
}

void sfc_workers_destroy(struct sfc_workers *g)
{
    if (!g)
        return;
    for (uint16_t w = 0; w < g->n; w++) {
        struct sfc_worker *x = &g->w[w];
        if (x->lcore < RTE_MAX_LCORE) {
            x->quit = 1;
            rte_eal_wait_lcore(x->lcore);
        }
        sfc_dp_destroy(x->dp);
    }
    rte_free(g);
}

/* Worker w >= 1 on its lcore: the run as worker 0 says (intake, the
 * drain), until its drain is done or it is told to quit. */
static int worker_main(void *arg)
{
    struct sfc_worker *x = arg;
    struct sfc_workers *g = x->g;
    struct ebf_idle idle = x->dp->c.idle;
    int drain = 0, done = 0;

    ebf_cycles_start(&x->cycles);
    while (!x->quit && !done) {
        unsigned work;
        if (!drain && g->draining) {
            sfc_dp_drain_begin(x->dp);
            drain = 1;
        }
        work = drain ? sfc_dp_drain_poll(x->dp, &done) : sfc_dp_poll(x->dp, g->intake);
        ebf_cycles_pass_end(&x->cycles, &idle, work);
    }
    ebf_cycles_stop(&x->cycles);
    x->finished = 1;
    return 0;
}

int sfc_workers_begin(struct sfc_workers *g, char *err, size_t len)
{
    unsigned lcore = (unsigned)-1;

    g->intake = 1;
    for (uint16_t w = 1; w < g->n; w++) {
        do
            lcore = rte_get_next_lcore(lcore, 1, 0);
        while (lcore < RTE_MAX_LCORE && rte_eal_get_lcore_state(lcore) != WAIT);
        if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(worker_main, &g->w[w], lcore)) {
            snprintf(err, len, "worker %u: no free EAL lcore (--workers %u needs %u)", w, g->n,
                     g->n);
            return -1;
        }
        g->w[w].lcore = lcore;
    }
    return 0;
}

unsigned sfc_workers_poll(struct sfc_workers *g, int intake)
{
    if (g->intake != intake)
        g->intake = intake;     /* on change only: the workers read the line each pass */
    return sfc_dp_poll(g->w[0].dp, intake);
}

void sfc_workers_drain_begin(struct sfc_workers *g)
{
    g->draining = 1;
    sfc_dp_drain_begin(g->w[0].dp);
}

unsigned sfc_workers_drain_poll(struct sfc_workers *g, int *done)
{
    unsigned work = 0;

    if (!g->w[0].finished) {
        int d0 = 0;
        work = sfc_dp_drain_poll(g->w[0].dp, &d0);
        g->w[0].finished = d0;
    }
    *done = 0;
    for (uint16_t w = 1; w < g->n; w++)
        if (g->w[w].lcore < RTE_MAX_LCORE && !g->w[w].finished)
            return work;
    if (!g->w[0].finished)
        return work;
    for (uint16_t w = 1; w < g->n; w++)
        if (g->w[w].lcore < RTE_MAX_LCORE) {
            rte_eal_wait_lcore(g->w[w].lcore);
            g->w[w].lcore = RTE_MAX_LCORE;
        }
    *done = 1;
    return work;
}

void sfc_workers_stats(const struct sfc_workers *g, struct sfc_stats *out)
{
    *out = *sfc_dp_stats(g->w[0].dp);
    for (uint16_t w = 1; w < g->n; w++)
        sfc_stats_add(out, sfc_dp_stats(g->w[w].dp));
}

void sfc_workers_gauges(const struct sfc_workers *g, struct sfc_gauges *out)
{
    struct sfc_gauges x;

    sfc_dp_gauges(g->w[0].dp, out);
    for (uint16_t w = 1; w < g->n; w++) {
        sfc_dp_gauges(g->w[w].dp, &x);
        sfc_gauges_add(out, &x);
    }
}

void sfc_workers_cycles(const struct sfc_workers *g, struct ebf_lcore_stats *out)
{
    for (uint16_t w = 1; w < g->n && out->n < EBF_LCORE_STATS_MAX; w++) {
        const struct ebf_cycles *c = &g->w[w].cycles;
        out->busy_cycles[out->n] = c->busy_cycles;
        out->idle_cycles[out->n] = c->idle_cycles;
        out->busy_passes[out->n] = c->busy_passes;
        out->idle_passes[out->n] = c->idle_passes;
        out->n++;
    }
}

unsigned sfc_workers_count(const struct sfc_workers *g)
{
    return g->n;
}

struct sfc_dp *sfc_workers_dp(struct sfc_workers *g, unsigned w)
{
    return w < g->n ? g->w[w].dp : NULL;
}
