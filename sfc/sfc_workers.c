/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_workers.c - an SFC of W data planes: ports cut per worker, workers on their lcores, counters summed. */
#include "sfc_workers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "ebf_cycles.h"
#include "ebf_guard.h"
#include "sfc_dist.h"

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
    struct sfc_dist *ro_dist, *node_dist;       /* shared ports, NULL: none */
    struct rte_ring *end_ring[SFC_WORKERS_MAX]; /* [w], w >= 1: worker 0's replay ends */
    struct ebf_idle idle;        /* how workers 1 .. W-1 back off when idle */
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

/* Whether the workers share the readout port (one port, W > 1) and the
 * node port (one for every node, W > 1). */
static void shared(const struct sfc_conf *c, int *ro, int *nodes)
{
    uint16_t port_of[SFC_MAX_NODES];

    *ro = n_workers(c) > 1 && c->n_more_rx == 0;
    *nodes = n_workers(c) > 1 && c->n_nodes > 0 && node_ports(c, port_of) == 1;
}

uint16_t sfc_workers_node_txqs(const struct sfc_conf *c)
{
    int ro, nodes;

    shared(c, &ro, &nodes);
    return nodes ? n_workers(c) : 1;
}

int sfc_workers_check(const struct sfc_conf *c, char *err, size_t len)
{
    uint16_t w = n_workers(c), port_of[SFC_MAX_NODES];
    unsigned ro_ports = 1u + c->n_more_rx;

    if (w > SFC_WORKERS_MAX) {
        snprintf(err, len, "--workers %u: at most %u", w, SFC_WORKERS_MAX);
        return -1;
    }
    if (ro_ports > 1 && ro_ports % w) {
        snprintf(err, len, "--workers %u: %u readout ports (--port and %u --readout-port) do "
                 "not cut into %u equal runs: give one readout port (the workers share it: "
                 "worker 0 hands each frame to the worker its destination MAC names) or a "
                 "multiple of %u (each worker its own: a memif link per readout and worker)",
                 w, ro_ports, c->n_more_rx, w, w);
        return -1;
    }
    uint16_t np = node_ports(c, port_of);
    if (w > 1 && np == 1 && c->n_nodes < w) {
        snprintf(err, len, "--workers %u: %u node%s on one node port: the workers share it, "
                 "node i served by worker i %% %u; give every worker a node (%u at least)", w,
                 c->n_nodes, c->n_nodes == 1 ? "" : "s", w, w);
        return -1;
    }
    if (np > 1 && np < w) {
        snprintf(err, len, "--workers %u: %u distinct node ports: each worker serves the nodes "
                 "of its own node ports (port q to worker q %% %u); give every worker one (a "
                 "memif link per node), or put every node on one port the workers share", w,
                 np, w);
        return -1;
    }
    return 0;
}

/* Worker w's readout side: its run of the readout ports, or on a shared
 * readout port the port, the shared side and its MAC (worker 0's + w in
 * the fourth byte, as the readouts address it). */
static void worker_rx(const struct sfc_conf *c, uint16_t w, struct sfc_dist *ro,
                      struct sfc_conf *out)
{
    uint16_t n = n_workers(c), all[SFC_MAX_READOUTS];
    uint16_t per = (uint16_t)((1u + c->n_more_rx) / n);

    if (ro) {
        out->ro_dist = ro;
        sfc_worker_mac(ro->mac, w, out->mac);
        return;
    }
    all[0] = c->rx_port;
    memcpy(all + 1, c->more_rx, sizeof(c->more_rx[0]) * c->n_more_rx);
    out->rx_port = all[w * per];
    out->n_more_rx = (uint16_t)(per - 1);
    memcpy(out->more_rx, all + w * per + 1, sizeof(all[0]) * (per - 1u));
}

/* Worker w's conf: its readout side, its nodes (those of its node ports,
 * or on a shared node port node i for i % W == w), its share of the table
 * and the records. */
static void worker_conf(const struct sfc_conf *c, uint16_t w, struct sfc_workers *g,
                        struct sfc_conf *out)
{
    uint16_t n = n_workers(c), port_of[SFC_MAX_NODES];

    *out = *c;
    if (n == 1)
        return;
    worker_rx(c, w, g->ro_dist, out);
    node_ports(c, port_of);
    out->node_mask = 0;
    out->node_dist = g->node_dist;
    for (uint16_t i = 0; i < c->n_nodes; i++)
        if ((g->node_dist ? i : port_of[i]) % n == w)
            out->node_mask |= 1ull << i;
    out->capacity = c->capacity / n;
    out->max_frames = c->max_frames / n;
    out->worker = w;
    out->share = &g->share;
    memcpy(out->end_ring, g->end_ring, sizeof(out->end_ring));
}

/* Worker w's ring of the replay ends worker 0 takes (w >= 1; the readouts
 * address an end to the SFC's MAC, worker 0's): 0, or -1 with errno set. */
static int make_end_rings(struct sfc_workers *g, const struct sfc_conf *c)
{
    char name[RTE_RING_NAMESIZE];
    int socket = rte_eth_dev_socket_id(c->rx_port);

    for (uint16_t w = 1; w < g->n; w++) {
        snprintf(name, sizeof(name), "sfc_end%u_%u_%u", c->sfc_id, c->rx_port, w);
        g->end_ring[w] = rte_ring_create_elem(name, sizeof(struct sfc_end_rec), SFC_END_RING,
                                              socket < 0 ? SOCKET_ID_ANY : socket,
                                              RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
        if (!g->end_ring[w]) {
            SFC_W_LOG("worker %u: no ring for replay ends (%s)\n", w, rte_strerror(rte_errno));
            errno = ENOMEM;
            return -1;
        }
    }
    return 0;
}

/* The shared sides of c, if any: their rings, the node port's tx queues
 * checked. 0, or -1 with errno set (logged). */
static int make_dist(struct sfc_workers *g, const struct sfc_conf *c)
{
    char err[320];
    int ro, nodes;

    shared(c, &ro, &nodes);
    if (nodes && sfc_dist_check_txq(c->node[0].port, g->n, err, sizeof(err))) {
        SFC_W_LOG("%s\n", err);
        errno = EINVAL;
        return -1;
    }
    if (ro && !(g->ro_dist = sfc_dist_create(c, SFC_DIST_READOUT, c->rx_port, c->dist_ring)))
        return -1;
    if (nodes &&
        !(g->node_dist = sfc_dist_create(c, SFC_DIST_NODES, c->node[0].port, c->dist_ring)))
        return -1;
    return 0;
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
    g->idle = c->idle;
    g->share.n = n;
    if (make_dist(g, c) || make_end_rings(g, c)) {
        int e = errno;
        sfc_workers_destroy(g);
        errno = e;
        return NULL;
    }
    for (uint16_t w = 0; w < n; w++) {
        struct sfc_conf wc;
        worker_conf(c, w, g, &wc);
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
    if (g->ro_dist)
        sfc_dist_macs(g->ro_dist);  /* after the data planes took the port's MAC */
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
    sfc_dist_destroy(g->ro_dist);
    sfc_dist_destroy(g->node_dist);
    for (uint16_t w = 1; w < g->n; w++)
        rte_ring_free(g->end_ring[w]);
    rte_free(g);
}

/* Worker w >= 1 on its lcore: the run as worker 0 says (intake, the
 * drain), until its drain is done or it is told to quit. */
static int worker_main(void *arg)
{
    struct sfc_worker *x = arg;
    struct sfc_workers *g = x->g;
    struct ebf_idle idle = g->idle;
    int drain = 0, done = 0;

    ebf_cycles_start(&x->cycles);
    ebf_guard_online();         /* a dead memif peer's rings wait for our passes */
    while (!x->quit && !done) {
        unsigned work;
        if (!drain && g->draining) {
            sfc_dp_drain_begin(x->dp);
            drain = 1;
        }
        work = drain ? sfc_dp_drain_poll(x->dp, &done) : sfc_dp_poll(x->dp, g->intake);
        ebf_cycles_pass_end(&x->cycles, &idle, work);
    }
    ebf_guard_offline();
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
        if (g->ro_dist && sfc_dp_intake_over(g->w[0].dp))
            sfc_dist_feed_end(g->ro_dist);  /* the others' rings get no more */
    } else if (g->node_dist) {
        work = sfc_dp_poll(g->w[0].dp, 0);  /* the others' acks still come through it */
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

int sfc_workers_leave(struct sfc_workers *g, enum sfc_leave how, uint64_t at, char *err,
                      size_t len)
{
    return sfc_dp_leave(g->w[0].dp, how, at, err, len);
}

struct sfc_dp *sfc_workers_dp(struct sfc_workers *g, unsigned w)
{
    return w < g->n ? g->w[w].dp : NULL;
}
