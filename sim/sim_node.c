/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_node.c - a simulated trigger node: a queue of events, a trigger time each, a decision, an ack. */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdlib.h>

#include "ebf_mix.h"

/* One trigger time from the configured distribution, ps. */
static uint64_t trigger_time(struct sim_farm *f)
{
    const struct sim_conf *c = f->c;
    double us = c->trigger_us;

    if (c->trigger == SIM_DIST_EXP)
        us = sim_rng_exp(&f->rng, c->trigger_us);
    else if (c->trigger == SIM_DIST_LOGNORMAL && c->trigger_us > 0)
        us = sim_rng_lognormal(&f->rng, c->trigger_us, c->trigger_sigma);
    return (uint64_t)(us * PS_PER_US);
}

/* An event reaches node ev->obj: it waits for the events before it (one
 * at a time; the credits bound how many wait), or for an idle node to wake
 * (its back-off, sim_wake), and for a stall's end. */
void sim_node_event(struct sim_farm *f, const struct sim_ev *ev)
{
    struct sim_node *x = &f->node[ev->obj];

    if (x->dead) {
        f->r->dead_node_events++;
        return;
    }
    uint64_t start = x->busy_until > f->now ? x->busy_until
                                            : f->now + sim_wake(f, x->busy_until, f->now);
    if (start >= x->stall_from && start < x->stall_until)
        start = x->stall_until;
    x->busy_until = start + trigger_time(f);
    sim_push_x(f, x->busy_until, EV_NODE_DONE, ev->obj, x->stalls, ev->arg, 0, x->epoch);
}

/* 1 when id is one its SFC took back from node x (then no longer). */
static int taken_back(struct sim_node *x, uint64_t id)
{
    for (uint32_t i = 0; i < x->n_taken; i++)
        if (x->taken[i] == id) {
            x->taken[i] = x->taken[--x->n_taken];
            return 1;
        }
    return 0;
}

void sim_node_taken(struct sim_farm *f, uint32_t node, uint64_t id)
{
    struct sim_node *x = &f->node[node];

    if (x->n_taken == x->cap_taken) {
        uint32_t cap = x->cap_taken ? 2 * x->cap_taken : 16;
        uint64_t *p = realloc(x->taken, cap * sizeof(*p));
        if (!p) {
            f->err = -ENOMEM;
            return;
        }
        x->taken = p;
        x->cap_taken = cap;
    }
    x->taken[x->n_taken++] = id;
}

/* The node has decided: accept or reject, recorded as the node's own
 * counters and id record, and the ack (with a credit) goes to its SFC. A
 * decision due after a stall began that it did not know of moves on by
 * the stall's length. */
void sim_node_done(struct sim_farm *f, const struct sim_ev *ev)
{
    struct sim_node *x = &f->node[ev->obj];

    if (x->dead || ev->x != x->epoch)
        return;                  /* dead, or decided by the life before a restart */
    if (ev->aux != x->stalls && ev->t > x->stall_from) {
        sim_push_x(f, ev->t + (x->stall_until - x->stall_from), EV_NODE_DONE, ev->obj,
                   x->stalls, ev->arg, 0, x->epoch);
        return;
    }
    int accept = sim_rng_uniform(&f->rng) < f->c->accept;
    if (accept)
        x->accepted++;
    else
        x->rejected++;
    int dup = taken_back(x, ev->arg);
    if (dup) {                   /* counted where it went: not of record here */
        *(accept ? &x->dup_accepted : &x->dup_rejected) += 1;
        ebf_idset_add(&x->dup_ids, ev->arg);
        x->dup_digest += ebf_mix64(ev->arg);
    }
    ebf_idset_add(&x->ack_ids, ev->arg);
    x->ack_digest += ebf_mix64(ev->arg);
    if (f->c->failover && !dup)
        sim_fo_decided(f, ev->obj, ev->arg, accept);
    if (f->c->ack_port)          /* its link, then the switch port toward its SFC */
        sim_push(f, f->now + f->ack_delay / 2, EV_ACK_SW, ev->obj, (uint16_t)accept, ev->arg, 0);
    else
        sim_push(f, f->now + f->ack_delay, EV_ACK_SFC, ev->obj, (uint16_t)accept, ev->arg, 0);
}

/* Node stops processing for len from `from`: what it is busy with moves on
 * by len. */
void sim_node_stall(struct sim_farm *f, uint32_t node, uint64_t from, uint64_t len)
{
    struct sim_node *x = &f->node[node];

    x->stall_from = from;
    x->stall_until = from + len;
    x->stalls++;
    x->busy_until = x->busy_until > from ? x->busy_until + len : from + len;
}

/* Node starts again (a new process, a new epoch): nothing queued, no
 * stall; its first credit frame reaches its SFC a link later. Decisions
 * of the life before are never made. */
void sim_node_restart(struct sim_farm *f, uint32_t node)
{
    struct sim_node *x = &f->node[node];

    x->dead = 0;
    x->epoch++;
    x->busy_until = f->now;
    x->stall_from = x->stall_until = 0;
    sim_push(f, f->now + f->ack_delay / 2, EV_NODE_HELLO, node, 0, 0, 0);
}
