/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_workers.c - trigger workers: complete events to N lcores over rings, decisions back in order of completion. */
#include <errno.h>
#include <stdio.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ebf_cycles.h"
#include "node_dp_private.h"

#define WORKER_BURST 32

/*
 * One worker: the receive lcore enqueues the slots of complete events on
 * in (it alone), the worker decides each and enqueues slot and decision
 * word on out (it alone). A slot at a worker is not touched by the receive
 * lcore (frames sent again are dropped: e->waiting) until its decision is
 * back, so the rings' ordering is all the two share.
 */
struct node_worker {
    struct node_dp *dp;
    struct rte_ring *in, *out;
    unsigned lcore;
    uint16_t slots;              /* events this worker holds at most */
    uint16_t in_flight;          /* receive lcore's count */
    volatile int stop;
    struct ebf_cycles cycles;
    struct node_decide_scratch x;
} __rte_cache_aligned;

static inline void *pack(uint16_t slot, uint32_t outcome)
{
    return (void *)(((uintptr_t)outcome << 16) | slot);
}

static int worker_main(void *arg)
{
    struct node_worker *w = arg;
    struct node_dp *dp = w->dp;
    struct ebf_idle idle = dp->c.idle;
    void *objs[WORKER_BURST];

    ebf_cycles_start(&w->cycles);
    while (!w->stop) {
        unsigned n = rte_ring_sc_dequeue_burst(w->in, objs, WORKER_BURST, NULL);
        for (unsigned i = 0; i < n; i++) {
            uint16_t slot = (uint16_t)(uintptr_t)objs[i];
            objs[i] = pack(slot, node_dp_decide_in(dp, &dp->ev[slot], &w->x));
        }
        if (n)                   /* out holds every slot of this worker */
            rte_ring_sp_enqueue_bulk(w->out, objs, n, NULL);
        ebf_cycles_pass_end(&w->cycles, &idle, n);
    }
    ebf_cycles_stop(&w->cycles);
    return 0;
}

uint16_t node_dp_worker_slots(const struct node_dp *dp, unsigned w)
{
    uint16_t n = dp->c.workers;

    if (w >= n)
        return 0;
    return (uint16_t)(dp->c.credits / n + (w < dp->c.credits % n));
}

static int worker_rings(struct node_dp *dp, struct node_worker *w, unsigned i)
{
    char name[RTE_RING_NAMESIZE];
    unsigned size = rte_align32pow2((uint32_t)w->slots + 1);

    snprintf(name, sizeof(name), "node_w%u_in_%p", i, (void *)dp);
    w->in = rte_ring_create(name, size, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(name, sizeof(name), "node_w%u_out_%p", i, (void *)dp);
    w->out = rte_ring_create(name, size, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    return w->in && w->out ? 0 : -ENOMEM;
}

int node_dp_workers_start(struct node_dp *dp)
{
    uint16_t n = dp->c.workers;
    unsigned lcore = (unsigned)-1;  /* the first worker lcore comes next */

    if (n == 0)
        return 0;
    if (n > NODE_WORKERS_MAX || n > dp->c.credits)
        return -EINVAL;
    dp->w = rte_zmalloc("node_workers", sizeof(*dp->w) * n, RTE_CACHE_LINE_SIZE);
    if (!dp->w)
        return -ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        struct node_worker *w = &dp->w[i];
        w->dp = dp;
        w->slots = node_dp_worker_slots(dp, i);
        w->lcore = RTE_MAX_LCORE;    /* not launched */
        if (worker_rings(dp, w, i))
            return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++) {
        do
            lcore = rte_get_next_lcore(lcore, 1, 0);
        while (lcore < RTE_MAX_LCORE && rte_eal_get_lcore_state(lcore) != WAIT);
        if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(worker_main, &dp->w[i], lcore))
            return -ERANGE;     /* EAL gave too few lcores: workers + 1 wanted */
        dp->w[i].lcore = lcore;
    }
    return 0;
}

void node_dp_workers_stop(struct node_dp *dp)
{
    if (!dp->w)
        return;
    for (unsigned i = 0; i < dp->c.workers; i++) {
        struct node_worker *w = &dp->w[i];
        if (w->lcore < RTE_MAX_LCORE) {
            w->stop = 1;
            rte_eal_wait_lcore(w->lcore);
        }
        rte_ring_free(w->in);
        rte_ring_free(w->out);
    }
    rte_free(dp->w);
    dp->w = NULL;
}

void node_dp_workers_give(struct node_dp *dp, struct node_ev *e)
{
    struct node_worker *best = NULL;

    for (unsigned i = 0; i < dp->c.workers; i++) {
        struct node_worker *w = &dp->w[i];
        if (w->in_flight < w->slots && (!best || w->in_flight < best->in_flight))
            best = w;
    }
    /* There is one: the events at the workers hold credit slots, and the
     * workers' slots add up to the credits. */
    best->in_flight++;
    dp->n_deciding++;
    e->waiting = 1;
    rte_ring_sp_enqueue(best->in, (void *)(uintptr_t)(e - dp->ev));
}

unsigned node_dp_workers_poll(struct node_dp *dp,
                              void (*done)(struct node_dp *, struct node_ev *, uint32_t))
{
    void *objs[WORKER_BURST];
    unsigned work = 0;

    for (unsigned i = 0; i < dp->c.workers && dp->n_deciding; i++) {
        struct node_worker *w = &dp->w[i];
        unsigned n = rte_ring_sc_dequeue_burst(w->out, objs, WORKER_BURST, NULL);
        w->in_flight = (uint16_t)(w->in_flight - n);
        dp->n_deciding = (uint16_t)(dp->n_deciding - n);
        for (unsigned k = 0; k < n; k++) {
            uintptr_t v = (uintptr_t)objs[k];
            struct node_ev *e = &dp->ev[v & 0xffff];
            e->waiting = 0;
            done(dp, e, (uint32_t)(v >> 16));
        }
        work += n;
    }
    return work;
}

void node_dp_worker_cycles(const struct node_dp *dp, struct ebf_lcore_stats *out)
{
    for (unsigned i = 0; i < dp->c.workers && out->n < EBF_LCORE_STATS_MAX; i++) {
        const struct ebf_cycles *c = &dp->w[i].cycles;
        out->busy_cycles[out->n] = c->busy_cycles;
        out->idle_cycles[out->n] = c->idle_cycles;
        out->busy_passes[out->n] = c->busy_passes;
        out->idle_passes[out->n] = c->idle_passes;
        out->n++;
    }
}
