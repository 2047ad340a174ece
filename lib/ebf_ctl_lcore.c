/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_lcore.c - the data-plane lcore's side of run control: requests off the ring, answers back. */
#include <errno.h>

#include <rte_pause.h>
#include <rte_ring.h>

#include "ebf_ctl_private.h"
#include "ebf_guard.h"

static void answer(struct ebf_ctl *ctl, struct ebf_req *r)
{
    while (rte_ring_sp_enqueue(ctl->rsp, r) != 0)
        rte_pause();            /* 64 slots, at most two requests out: never full */
}

/* Apply r; a START zeroes the lcore's cycles just before, so that they count
 * the run from its start (a refused START leaves them as they were). */
static int apply(struct ebf_ctl *ctl, void *dp, struct ebf_req *r)
{
    struct ebf_cycles *cy = ctl->lc_cycles, before;

    if (r->op != EBF_OP_START || !cy)
        return ctl->ops->apply(dp, r);
    before = *cy;
    ebf_cycles_start(cy);
    int rc = ctl->ops->apply(dp, r);
    if (rc)
        *cy = before;
    return rc;
}

void ebf_ctl_service(struct ebf_ctl *ctl, void *dp)
{
    const struct ebf_ctl_ops *o = ctl->ops;
    void *p;

    while (!ctl->lc_exit && rte_ring_sc_dequeue(ctl->req, &p) == 0) {
        struct ebf_req *r = p;
        if (r->op == EBF_OP_EXIT) {
            ctl->lc_exit = 1;
        } else if (r->op == EBF_OP_STOP) {
            o->stop(dp);
            ctl->lc_stop = r;
        } else {
            if (r->op == EBF_OP_SNAPSHOT) {
                o->snapshot(dp, r->snap, &r->finished);
                if (o->fault && o->fault(dp, r->err, sizeof(r->err)))
                    r->rc = -EIO;
            } else
                r->rc = apply(ctl, dp, r);
            answer(ctl, r);
        }
    }
}

void ebf_ctl_serve(struct ebf_ctl *ctl, void *dp, struct ebf_idle *idle,
                   struct ebf_cycles *cycles)
{
    const struct ebf_ctl_ops *o = ctl->ops;
    unsigned work = 1;

    ctl->lc_cycles = cycles;
    ebf_guard_online();         /* a dead memif peer's rings wait for our passes */
    for (uint64_t pass = 0; !ctl->lc_exit; pass++) {
        if ((pass & 15) == 0 || work == 0)
            ebf_ctl_service(ctl, dp);
        int drained = 0;
        work = o->poll(dp, &drained);
        if (drained && ctl->lc_stop) {
            /* The run ends with this pass: charge it, then the final
             * snapshot; no back-off before the answer. */
            ebf_cycles_note(cycles, work);
            ebf_cycles_stop(cycles);
            o->snapshot(dp, ctl->lc_stop->snap, &ctl->lc_stop->finished);
            answer(ctl, ctl->lc_stop);
            ctl->lc_stop = NULL;
            continue;
        }
        ebf_cycles_pass_end(cycles, idle, work);
    }
    ebf_guard_offline();
}
