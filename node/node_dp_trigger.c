/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_trigger.c - the node data plane's trigger glue: the plug-in's run, the event it sees, its guarded decide. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>

#include "node_dp_private.h"

int node_dp_trigger_start(struct node_dp *dp)
{
    const struct node_trigger *t = dp->c.trigger;
    char text[3][48], err[256];
    struct ebf_trigger_param emu[3] = {
        {"accept", text[0]}, {"accept_seed", text[1]}, {"trigger_us", text[2]},
    };
    struct ebf_trigger_run run = {.run_number = dp->c.run, .node_id = dp->c.node_id,
                                  .n_params = 3, .params = emu};

    snprintf(text[0], sizeof(text[0]), "%.17g", dp->c.accept);
    snprintf(text[1], sizeof(text[1]), "%" PRIu64, dp->c.accept_seed);
    snprintf(text[2], sizeof(text[2]), "%.17g", dp->c.trigger_us);
    dp->tp = &node_emulate_plugin;
    if (t && t->dl) {
        dp->tp = t->p;
        run.n_params = t->n_params;
        run.params = t->params;
        dp->view = dp->guard = 1;
    }
    if (dp->c.store.dir[0])
        dp->view = 1;           /* storage copies the payload from the held frames */
    dp->slow_tsc = (uint64_t)(dp->c.trigger_timeout_ms * 1e-3 * (double)rte_get_tsc_hz());
    if (dp->tp->init(&run, &dp->tstate, err, sizeof(err)))
        return -EINVAL;
    if (dp->view && node_view_init(&dp->v, dp->c.credits)) {
        if (dp->tp->fini)
            dp->tp->fini(dp->tstate);
        dp->tp = NULL;
        return -ENOMEM;
    }
    return 0;
}

void node_dp_trigger_stop(struct node_dp *dp)
{
    if (dp->view)
        node_view_free(&dp->v);
    if (dp->tp && dp->tp->fini)
        dp->tp->fini(dp->tstate);
    dp->tp = NULL;
}

/* The fragments of e as the plug-in sees them: pieces in the held frames,
 * or (the built-in, which reads no payload) lengths only, in x's buffers.
 * NULL: overflowed. */
static const struct ebf_trigger_fragment *fragments(struct node_dp *dp, struct node_ev *e,
                                                    struct node_decide_scratch *x)
{
    if (dp->view)
        return node_view_build_into(&dp->v, (uint16_t)(e - dp->ev), e->n_sources, x->tp,
                                    x->frags, NULL) ? NULL : x->frags;
    for (unsigned s = 0; s < e->n_sources; s++)
        x->frags[s] = (struct ebf_trigger_fragment){
            .len = ebf_present_test(e->present, s) ? e->src_got[s] : 0,
        };
    return x->frags;
}

uint32_t node_dp_decide_in(struct node_dp *dp, struct node_ev *e, struct node_decide_scratch *x)
{
    struct ebf_trigger_event ev = {
        .event_id = e->id, .run_number = dp->c.run, .n_sources = e->n_sources,
        .flags = e->flags, .present = {e->present[0], e->present[1]},
        .fragments = fragments(dp, e, x),
    };
    struct ebf_trigger_decision d = {0};
    uint32_t out = 0;
    int rc;

    if (!ev.fragments)
        return NODE_DEC_FAIL(NODE_TF_VIEW_OVERFLOW);
    if (dp->guard)
        node_trigger_guard_enter(e->id);
    uint64_t t0 = rte_get_tsc_cycles();
    rc = dp->tp->decide(dp->tstate, &ev, &d);
    uint64_t took = rte_get_tsc_cycles() - t0;
    if (dp->guard)
        node_trigger_guard_leave();
    if (dp->slow_tsc && took > dp->slow_tsc)
        out |= NODE_DEC_SLOW;
    if (rc)
        return out | NODE_DEC_FAIL(NODE_TF_ERROR);
    return out | (d.accept ? NODE_DEC_ACCEPT : 0) | d.stream;
}

int node_dp_decided(struct node_dp *dp, uint32_t outcome, uint16_t *stream)
{
    dp->st.trigger_slow += (outcome & NODE_DEC_SLOW) != 0;
    if (outcome & NODE_DEC_FAILED) {
        dp->st.trigger_fail[NODE_DEC_REASON(outcome)]++;
        *stream = 0;
        return 0;
    }
    *stream = (uint16_t)outcome;
    return (outcome & NODE_DEC_ACCEPT) != 0;
}

void node_dp_release(struct node_dp *dp, struct node_ev *e)
{
    if (dp->view)
        node_view_reset(&dp->v, (uint16_t)(e - dp->ev));
}
