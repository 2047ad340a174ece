/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_trigger.c - the node's trigger stage: the plug-in's run, the event it sees, its guarded decide. */
#include "node_dp_trigger.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "node_tally.h"

int node_dp_trigger_reads(const struct node_dp_trigger_conf *c)
{
    return c->trigger && c->trigger->dl;
}

int node_dp_trigger_start(struct node_dp_trigger *t, const struct node_dp_trigger_conf *c,
                          const struct node_view *v)
{
    char text[3][48], err[256];
    struct ebf_trigger_param emu[3] = {
        {"accept", text[0]}, {"accept_seed", text[1]}, {"trigger_us", text[2]},
    };
    struct ebf_trigger_run run = {.run_number = c->run, .node_id = c->node_id,
                                  .n_params = 3, .params = emu};

    snprintf(text[0], sizeof(text[0]), "%.17g", c->accept);
    snprintf(text[1], sizeof(text[1]), "%" PRIu64, c->accept_seed);
    snprintf(text[2], sizeof(text[2]), "%.17g", c->trigger_us);
    *t = (struct node_dp_trigger){.tp = &node_emulate_plugin, .v = v, .run = c->run};
    if (node_dp_trigger_reads(c)) {
        t->tp = c->trigger->p;
        run.n_params = c->trigger->n_params;
        run.params = c->trigger->params;
        t->guard = 1;
    }
    t->slow_tsc = (uint64_t)(c->timeout_ms * 1e-3 * (double)rte_get_tsc_hz());
    if (t->tp->init(&run, &t->tstate, err, sizeof(err))) {
        t->tp = NULL;
        return -EINVAL;
    }
    return 0;
}

void node_dp_trigger_stop(struct node_dp_trigger *t)
{
    if (t->tp && t->tp->fini)
        t->tp->fini(t->tstate);
    t->tp = NULL;
}

int node_decide_scratch_init(struct node_decide_scratch *x, const struct node_dp_trigger *t)
{
    x->tp = NULL;
    if (!t->v)
        return 0;
    x->tp = rte_malloc("node_decide_tp", sizeof(*x->tp) * t->v->max_pieces, 0);
    return x->tp ? 0 : -ENOMEM;
}

void node_decide_scratch_free(struct node_decide_scratch *x)
{
    rte_free(x->tp);
    x->tp = NULL;
}

/* The fragments of e as the plug-in sees them: pieces in the held frames,
 * or (the built-in, which reads no payload) lengths only, in x's buffers.
 * NULL: overflowed. */
static const struct ebf_trigger_fragment *fragments(const struct node_dp_trigger *t,
                                                    const struct node_ev *e, uint16_t slot,
                                                    struct node_decide_scratch *x)
{
    if (t->v)
        return node_view_build_into(t->v, slot, e->n_sources, x->tp, x->frags, NULL) ? NULL
                                                                                      : x->frags;
    for (unsigned s = 0; s < e->n_sources; s++)
        x->frags[s] = (struct ebf_trigger_fragment){
            .len = ebf_present_test(e->present, s) ? e->src_got[s] : 0,
        };
    return x->frags;
}

uint32_t node_dp_trigger_decide(const struct node_dp_trigger *t, const struct node_ev *e,
                                uint16_t slot, struct node_decide_scratch *x)
{
    struct ebf_trigger_event ev = {
        .event_id = e->id, .run_number = t->run, .n_sources = e->n_sources,
        .flags = e->flags & EBF_EVF_INCOMPLETE,   /* the plug-in API's one flag */
        .present = {e->present[0], e->present[1]},
        .fragments = fragments(t, e, slot, x),
    };
    struct ebf_trigger_decision d = {0};
    uint32_t out = 0;
    int rc;

    if (!ev.fragments)
        return NODE_DEC_FAIL(NODE_TF_VIEW_OVERFLOW);
    if (t->guard)
        node_trigger_guard_enter(e->id);
    uint64_t t0 = rte_get_tsc_cycles();
    rc = t->tp->decide(t->tstate, &ev, &d);
    uint64_t took = rte_get_tsc_cycles() - t0;
    if (t->guard)
        node_trigger_guard_leave();
    if (t->slow_tsc && took > t->slow_tsc)
        out |= NODE_DEC_SLOW;
    if (rc)
        return out | NODE_DEC_FAIL(NODE_TF_ERROR);
    return out | (d.accept ? NODE_DEC_ACCEPT : 0) | d.stream;
}
