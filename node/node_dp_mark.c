/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_mark.c - the node's ledger records of decisions at or above a dead SFC's release watermark: taken at once when the SFC restarts, at the stop when it stays dead. */
#include "node_dp.h"

#include "node_dp_private.h"

#include "ebf_mix.h"

void node_dp_mark(struct node_dp *dp, uint64_t x)
{
    struct node_dp_mark *m = &dp->mark;
    int complete;

    node_evtab_after(&dp->evt, x, &m->ids, &m->accepted, &m->digest, &complete);
    m->evicted |= !complete;
    m->marks++;
    m->x = x;
    m->open = node_evtab_used(&dp->evt) != 0;
    dp->regrant_due = 1;
}

void node_dp_sfc_new(struct node_dp *dp)
{
    if (dp->regrant_due)
        dp->relinked = 1;       /* relink grants anew within a second */
    dp->regrant_due = 0;
}

void node_dp_mark_ack(struct node_dp *dp, const struct ebf_ack *a)
{
    struct node_dp_mark *m = &dp->mark;

    if (a->event_id < m->x)
        return;
    ebf_idset_add(&m->ids, a->event_id);
    if (a->decision == EBF_DEC_ACCEPT)
        ebf_idset_add(&m->accepted, a->event_id);
    m->digest += ebf_mix64(a->event_id);
}

void node_dp_after(const struct node_dp *dp, int on, uint64_t x, struct node_snap *s)
{
    int complete = 1;

    s->after_ids = dp->mark.ids;
    s->after_accepted = dp->mark.accepted;
    s->after_digest = dp->mark.digest;
    s->after_marks = dp->mark.marks;
    if (on)
        node_evtab_after(&dp->evt, x, &s->after_ids, &s->after_accepted, &s->after_digest,
                         &complete);
    s->after_evicted = dp->mark.evicted || !complete;
}
