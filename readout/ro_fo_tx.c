/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fo_tx.c - the replay of a dead SFC place's unreleased events to the survivors, frames made again from the id. */
#include "ro_fo_tx.h"

#include <inttypes.h>

#include <rte_mbuf.h>

#include "ebf_util.h"
#include "ro_frame.h"
#include "ro_link.h"
#include "ro_log.h"

/* Queues record r's event again toward place `to`: every local source's
 * fragment, flagged (the queue goes out when it fills, or when the next
 * replay goes elsewhere, or at the end), then the record moved. 0 or the
 * emit/flush error. */
static int replay_one(struct ro_gen *g, const volatile sig_atomic_t *force,
                      struct ro_replay_rec *r, uint16_t to, uint64_t now_ns, uint64_t *hi)
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
    if (r->id + 1 > hi[to])
        hi[to] = r->id + 1;
    ro_replay_moved(&g->fo->rb, r, to, last);
    return 0;
}

/* Sends the replay end of place p (ro_fo_end) to live place `to`, behind
 * the replayed frames already flushed there (ro_link_ctl_frame). 1 when
 * the port took it. */
static int send_end(struct ro_gen *g, uint32_t p, uint16_t to, uint64_t hi)
{
    struct rte_mbuf *m;
    uint8_t *b = ro_link_ctl_frame(g, to, ebf_release_len(g->c->n_sources), &m);

    if (!b)
        return 0;
    if (!ro_fo_end(g->fo, p, g->next_event, hi, g->seq[to], b)) {
        rte_pktmbuf_free(m);
        return 0;
    }
    return ro_link_ctl_send(g, to, m);
}

/* After the replay of the places in `places` (hi: per live place, 1 + the
 * highest id replayed to it, 0 none): each place's replay end to every
 * live place (docs/protocol.md 13.4.1), also one that took no replayed
 * event. A refused one is counted (fo.end_fail). */
static void send_ends(struct ro_gen *g, uint64_t places, const uint64_t *hi)
{
    const struct ro_fo *f = g->fo;

    for (uint32_t p = 0; p < g->c->n_sfcs && p < 64; p++) {
        if (!(places >> p & 1))
            continue;
        for (uint16_t to = 0; to < g->c->n_sfcs; to++)
            if (!ebf_places_has(&f->view.out, to) && !g->st->sfc_gone[to]) {
                if (send_end(g, p, to, hi[to]))
                    g->st->fo_ends++;
                else
                    g->st->fo_end_fail++;
            }
    }
}

int ro_fo_tx_replay(struct ro_gen *g, const volatile sig_atomic_t *force, uint64_t now_ns)
{
    struct ro_fo *f = g->fo;
    int rc = g->q.n ? ro_link_flush(g, force) : 0;     /* what was queued goes first */
    if (!ro_failover_join_early(&f->view, g->next_event))
        return rc;              /* every place out and none joining: kept pending */
    while (rc == 0 && g->fo_pending) {
        uint64_t places = g->fo_pending, before = f->rb.replayed, hi[RO_MAX_SFCS] = {0};
        uint32_t cur = f->rb.head;
        struct ro_replay_rec *r;

        g->fo_pending = 0;
        while (rc == 0 && (r = ro_replay_next_in(&f->rb, places, &cur))) {
            uint32_t to = ebf_route_of(&f->view.route, r->id);
            if (to >= g->c->n_sfcs || g->st->sfc_gone[to])
                continue;               /* given up: held until dropped */
            rc = replay_one(g, force, r, (uint16_t)to, now_ns, hi);
        }
        if (rc == 0 && g->q.n)
            rc = ro_link_flush(g, force);
        if (rc == 0) {
            send_ends(g, places, hi);   /* behind the replayed frames, before any new one */
            f->replay_due &= ~places | g->fo_pending;  /* reborn again meanwhile: kept */
        }
        if (f->rb.replayed != before)
            RO_LOG(NOTICE, "replayed %" PRIu64 " events of dead SFC places 0x%" PRIx64
                   " to the live ones\n", f->rb.replayed - before, places);
    }
    if (rc == 0 && !g->fo_pending)
        ro_fo_recover_end(f, ebf_now_ns());     /* the dead share is with the live ones */
    return rc;
}
