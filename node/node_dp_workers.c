/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_workers.c - trigger workers: complete events to N lcores over rings, decisions back in order of completion. */
#include "node_dp_workers.h"

#include <errno.h>
#include <stdio.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ebf_cycles.h"

/*
 * One worker: the receive lcore enqueues the slots of complete events on
 * in (it alone), the worker decides each and enqueues slot and decision
 * word on out (it alone). A slot at a worker is not touched by the receive
 * lcore (frames sent again are dropped: e->waiting) until its decision is
 * back, so the rings' ordering is all the two share.
 */
struct node_worker {
    const struct node_dp_trigger *t;
    const struct node_ev *ev;
    struct ebf_idle idle;
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
    struct ebf_idle idle = w->idle;
    void *objs[NODE_WORKERS_BURST];

    ebf_cycles_start(&w->cycles);
    while (!w->stop) {
        unsigned n = rte_ring_sc_dequeue_burst(w->in, objs, NODE_WORKERS_BURST, NULL);
        for (unsigned i = 0; i < n; i++) {
            uint16_t slot = (uint16_t)(uintptr_t)objs[i];
            objs[i] = pack(slot, node_dp_trigger_decide(w->t, &w->ev[slot], slot, &w->x));
        }
        if (n)                   /* out holds every slot of this worker */
            rte_ring_sp_enqueue_bulk(w->out, objs, n, NULL);
        ebf_cycles_pass_end(&w->cycles, &idle, n);
    }
    ebf_cycles_stop(&w->cycles);
    return 0;
}

uint16_t node_dp_workers_slots(uint16_t n, uint16_t credits, unsigned w)
{
    if (w >= n)
        return 0;
    return (uint16_t)(credits / n + (w < credits % n));
}

static int worker_rings(struct node_dp_workers *ws, struct node_worker *w, unsigned i)
{
    char name[RTE_RING_NAMESIZE];
    unsigned size = rte_align32pow2((uint32_t)w->slots + 1);

    snprintf(name, sizeof(name), "node_w%u_in_%p", i, (void *)ws);
    w->in = rte_ring_create(name, size, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(name, sizeof(name), "node_w%u_out_%p", i, (void *)ws);
    w->out = rte_ring_create(name, size, (int)rte_socket_id(), RING_F_SP_ENQ | RING_F_SC_DEQ);
    return w->in && w->out ? 0 : -ENOMEM;
}

/* Launch every worker on the next free lcore: 0, or -ERANGE. */
static int workers_launch(struct node_dp_workers *ws)
{
    unsigned lcore = (unsigned)-1;  /* the first worker lcore comes next */

    for (unsigned i = 0; i < ws->n; i++) {
        do
            lcore = rte_get_next_lcore(lcore, 1, 0);
        while (lcore < RTE_MAX_LCORE && rte_eal_get_lcore_state(lcore) != WAIT);
        if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(worker_main, &ws->w[i], lcore))
            return -ERANGE;     /* EAL gave too few lcores: workers + 1 wanted */
        ws->w[i].lcore = lcore;
    }
    return 0;
}

int node_dp_workers_start(struct node_dp_workers *ws, uint16_t n, uint16_t credits,
                          const struct node_dp_trigger *t, const struct node_ev *ev,
                          const struct ebf_idle *idle)
{
    *ws = (struct node_dp_workers){0};
    if (n == 0)
        return 0;
    if (n > credits)
        return -EINVAL;
    ws->w = rte_zmalloc("node_workers", sizeof(*ws->w) * n, RTE_CACHE_LINE_SIZE);
    if (!ws->w)
        return -ENOMEM;
    ws->n = n;
    for (unsigned i = 0; i < n; i++) {
        struct node_worker *w = &ws->w[i];
        w->t = t;
        w->ev = ev;
        w->idle = *idle;
        w->lcore = RTE_MAX_LCORE;    /* not launched */
        w->slots = node_dp_workers_slots(n, credits, i);
        if (node_decide_scratch_init(&w->x, t))
            return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++)
        if (worker_rings(ws, &ws->w[i], i))
            return -ENOMEM;
    return workers_launch(ws);
}

void node_dp_workers_stop(struct node_dp_workers *ws)
{
    if (!ws->w)
        return;
    for (unsigned i = 0; i < ws->n; i++) {
        struct node_worker *w = &ws->w[i];
        if (w->lcore < RTE_MAX_LCORE) {
            w->stop = 1;
            rte_eal_wait_lcore(w->lcore);
        }
        rte_ring_free(w->in);
        rte_ring_free(w->out);
        node_decide_scratch_free(&w->x);
    }
    rte_free(ws->w);
    ws->w = NULL;
}

void node_dp_workers_give(struct node_dp_workers *ws, uint16_t slot)
{
    struct node_worker *best = NULL;

    for (unsigned i = 0; i < ws->n; i++) {
        struct node_worker *w = &ws->w[i];
        if (w->in_flight < w->slots && (!best || w->in_flight < best->in_flight))
            best = w;
    }
    /* There is one: the events at the workers hold credit slots, and the
     * workers' slots add up to the credits. */
    best->in_flight++;
    ws->n_deciding++;
    rte_ring_sp_enqueue(best->in, (void *)(uintptr_t)slot);
}

unsigned node_dp_workers_poll(struct node_dp_workers *ws, struct node_decided *out)
{
    void *objs[NODE_WORKERS_BURST];
    unsigned got = 0;

    for (unsigned i = 0; i < ws->n && ws->n_deciding; i++) {
        struct node_worker *w = &ws->w[i];
        unsigned n = rte_ring_sc_dequeue_burst(w->out, objs, NODE_WORKERS_BURST, NULL);
        w->in_flight = (uint16_t)(w->in_flight - n);
        ws->n_deciding = (uint16_t)(ws->n_deciding - n);
        for (unsigned k = 0; k < n; k++) {
            uintptr_t v = (uintptr_t)objs[k];
            out[got++] = (struct node_decided){.slot = (uint16_t)(v & 0xffff),
                                               .outcome = (uint32_t)(v >> 16)};
        }
    }
    return got;
}

void node_dp_workers_cycles(const struct node_dp_workers *ws, struct ebf_lcore_stats *out)
{
    for (unsigned i = 0; i < ws->n && out->n < EBF_LCORE_STATS_MAX; i++) {
        const struct ebf_cycles *c = &ws->w[i].cycles;
        out->busy_cycles[out->n] = c->busy_cycles;
        out->idle_cycles[out->n] = c->idle_cycles;
        out->busy_passes[out->n] = c->busy_passes;
        out->idle_passes[out->n] = c->idle_passes;
        out->n++;
    }
}
