/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fo_tx.c - the replay of a dead SFC place's unreleased events to the survivors, frames made again from the id. */
#include "ro_fo_tx.h"

#include <inttypes.h>

#include "ebf_util.h"
#include "ro_frame.h"
#include "ro_link.h"
#include "ro_log.h"

/* Queues record r's event again toward place `to`: every local source's
 * fragment, flagged (the queue goes out when it fills, or when the next
 * replay goes elsewhere, or at the end), then the record moved. 0 or the
 * emit/flush error. */
static int replay_one(struct ro_gen *g, const volatile sig_atomic_t *force,
                      struct ro_replay_rec *r, uint16_t to, uint64_t now_ns)
{
    const struct ro_conf *c = g->c;
    uint32_t last[RO_REPLAY_MAX_SRC];
    int rc = g->q.n && g->q_sfc != to ? ro_link_flush(g, force) : 0;

    g->frag_flags = EBF_FRAGF_REPLAY;
    for (uint16_t s = 0; s < c->n_sources && rc == 0; s++)
        rc = ro_frame_emit(g, force, s, r->id, to, now_ns);
    g->frag_flags = 0;
    if (rc)
        return rc;
    for (uint16_t s = 0; s < c->n_sources; s++)
        last[s] = g->seq[to][s] - 1;
    ro_replay_moved(&g->fo->rb, r, to, last);
    return 0;
}

int ro_fo_tx_replay(struct ro_gen *g, const volatile sig_atomic_t *force, uint64_t now_ns)
{
    struct ro_fo *f = g->fo;
    int rc = g->q.n ? ro_link_flush(g, force) : 0;     /* what was queued goes first */
    if (!ro_failover_join_early(&f->view, g->next_event))
        return rc;              /* every place out and none joining: kept pending */
    while (rc == 0 && g->fo_pending) {
        uint64_t places = g->fo_pending, before = f->rb.replayed;
        uint32_t cur = f->rb.head;
        struct ro_replay_rec *r;

        g->fo_pending = 0;
        while (rc == 0 && (r = ro_replay_next_in(&f->rb, places, &cur))) {
            uint32_t to = ebf_route_of(&f->view.route, r->id);
            if (to >= g->c->n_sfcs || g->st->sfc_gone[to])
                continue;               /* given up: held until dropped */
            rc = replay_one(g, force, r, (uint16_t)to, now_ns);
        }
        if (rc == 0 && g->q.n)
            rc = ro_link_flush(g, force);
        if (f->rb.replayed != before)
            RO_LOG(NOTICE, "replayed %" PRIu64 " events of dead SFC places 0x%" PRIx64
                   " to the live ones\n", f->rb.replayed - before, places);
    }
    if (rc == 0 && !g->fo_pending)
        ro_fo_recover_end(f, ebf_now_ns());     /* the dead share is with the live ones */
    return rc;
}
