/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_fence.c - failover in the simulated farm: an SFC held dead while alive fences itself on the readouts' dead notices and rejoins, as sfc/sfc_dp_release.c does it. */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "ebf_mix.h"

/*
 * docs/protocol.md 13.4 rule 4. A readout that declared an SFC dead by
 * silence and hears it again at the epoch it died in sends it a dead
 * notice for each frame it accepts (sim_fo.c's poll: one a poll), with
 * its low of the place frozen at the death. The SFC takes them
 * (sfc_notice_take, linked) and fences when every readout sent one, or
 * SFC_NOTICE_WAIT_NS after the first (sfc_notice_due: X is then its last
 * round's low): the daemon's fence(), fence_acks() and fence_hold()
 * restated, as they are DPDK code. Its building and ready events are
 * dropped (their replays build them elsewhere); its acks at or above X,
 * and those taken since its last round, are recorded as decided twice,
 * as are the later acks of the events then at a node (the record the
 * ledger subtracts: ledger.fence_acked); a new epoch announces a join
 * from the highest id heard plus 0.2 s of ids at the configured rate
 * (the daemon measures the rate it hears), sent at once; its low is held
 * at the fence's value until each bound source sent at or above the join
 * id. The readouts keep it dead until the join (ro_failover).
 */

#define PRUNE_LAG 32             /* the daemon's SFC_PRUNE_LAG: rounds the acks go back */
#define NS(ps) ((ps) / PS_PER_NS)
#define ACK_ID(v) ((v) & ~(UINT64_C(1) << 63))

int sim_fence_init(struct sim_farm *f, uint32_t k)
{
    struct sim_fence *x = &f->sfc[k].fo.fence;

    memset(x, 0, sizeof(*x));
    ebf_idset_init(&x->ids);
    x->fenced = calloc(f->c->capacity, 1);
    return x->fenced ? 0 : -ENOMEM;
}

void sim_fence_fini(struct sim_farm *f, uint32_t k)
{
    struct sim_fence *x = &f->sfc[k].fo.fence;

    free(x->recent);
    free(x->fenced);
    x->recent = NULL;
    x->fenced = NULL;
}

void sim_fence_restart(struct sim_farm *f, uint32_t k)
{
    struct sim_fence *x = &f->sfc[k].fo.fence;

    x->n_recent = x->round_mark = x->n_lows = 0;
    memset(&x->notices, 0, sizeof(x->notices));
    memset(x->fenced, 0, f->c->capacity);
    ebf_idset_init(&x->ids);
    x->count = x->accepted = x->digest = 0;
    x->hold_on = 0;
    x->last_low = 0;
}

/* Id (accepted or not) into the fence's record. */
static void record(struct sim_farm *f, struct sim_fence *x, uint64_t id, int accept)
{
    ebf_idset_add(&x->ids, id);
    x->count++;
    x->accepted += accept != 0;
    x->digest += ebf_mix64(id);
    f->r->fence_acked++;
}

/* The acks below floor leave the recent list; round_mark follows the
 * ones taken before the last round (the daemon's drop_below; its list
 * holds 16,384, this one grows). */
static void drop_below(struct sim_fence *x, uint64_t floor)
{
    uint32_t n = 0, mark = 0;

    for (uint32_t i = 0; i < x->n_recent; i++)
        if (ACK_ID(x->recent[i]) >= floor) {
            mark += i < x->round_mark;
            x->recent[n++] = x->recent[i];
        }
    x->n_recent = n;
    x->round_mark = mark;
}

void sim_fence_ack(struct sim_farm *f, uint32_t k, uint32_t slot, uint64_t id, int accept)
{
    struct sim_fence *x = &f->sfc[k].fo.fence;

    if (x->fenced[slot]) {
        x->fenced[slot] = 0;
        record(f, x, id, accept);
        return;
    }
    if (x->n_recent == x->cap_recent) {
        uint32_t cap = x->cap_recent ? 2 * x->cap_recent : 1024;
        uint64_t *p = realloc(x->recent, cap * sizeof(*p));
        if (!p) {
            f->err = -ENOMEM;
            return;
        }
        x->recent = p;
        x->cap_recent = cap;
    }
    x->recent[x->n_recent++] = id | (uint64_t)(accept != 0) << 63;
}

/* The round's low under the fence's hold (13.4 rule 3): at most the low
 * of the fence's moment until every bound source sent at or above the
 * join id (the SFC takes no replayed piece of its own events: they go to
 * the survivors). Counted per round it lowered (fence_held). */
static uint64_t hold(struct sim_farm *f, uint32_t k, uint64_t low)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;
    struct sim_fence *x = &fo->fence;

    if (!x->hold_on)
        return low;
    for (uint32_t s = 0; s < f->c->sources; s++) {
        if (!fo->guard->bind[s].bound || fo->next_by_src[s] > x->hold_join)
            continue;
        f->r->fence_held += low > x->hold_low;
        return low < x->hold_low ? low : x->hold_low;
    }
    x->hold_on = 0;
    return low;
}

int sim_fence_round(struct sim_farm *f, uint32_t k, uint64_t *low)
{
    struct sim_fence *x = &f->sfc[k].fo.fence;
    uint64_t floor;

    if (f->now < x->mute_until) {
        f->r->release_muted++;
        return 1;
    }
    *low = hold(f, k, *low);
    x->last_low = *low;
    x->lows[x->n_lows++ % PRUNE_LAG] = *low;
    floor = *low;
    for (uint32_t i = 0; i < PRUNE_LAG && i < x->n_lows; i++)
        floor = x->lows[i] < floor ? x->lows[i] : floor;
    drop_below(x, floor);
    x->round_mark = x->n_recent;
    return 0;
}

/* The fence of SFC k from x_low (sfc_notice_due's X): the daemon's fence()
 * on notices. */
static void fence(struct sim_farm *f, uint32_t k, uint64_t x_low)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sim_sfc_fo *fo = &s->fo;
    struct sim_fence *x = &fo->fence;
    uint64_t low0 = sfc_release_low(fo->guard, sfc_lowmark_low(fo->lowmark), fo->next_by_src,
                                    (uint16_t)f->c->sources);
    double ago = (double)(f->now - fo->heard_at) / PS_PER_S;

    for (uint32_t i = 0; i < f->c->capacity; i++) {
        uint8_t state = sfc_evtab_event(s->tab, i)->state;
        if (state == SFC_EV_SENT)
            x->fenced[i] = 1;
        if (state != SFC_EV_BUILDING && state != SFC_EV_READY)
            continue;
        fo->replayed[i] = 0;
        sfc_evtab_drop_as(s->tab, i, 0);     /* its replays build it anew elsewhere */
        f->r->replay_fenced++;
    }
    for (uint32_t i = 0; i < x->n_recent; i++)
        if (ACK_ID(x->recent[i]) >= x_low || i >= x->round_mark)
            record(f, x, ACK_ID(x->recent[i]), (int)(x->recent[i] >> 63));
    x->n_recent = x->round_mark = 0;
    sfc_release_new_epoch(&fo->rel, (uint16_t)(fo->rel.epoch + 1));
    memset(&x->notices, 0, sizeof(x->notices));     /* of the old epoch */
    uint64_t j = sfc_release_join_id(fo->heard_max, f->c->rate_hz, ago, 0.2);
    sfc_release_announce(&fo->rel, EBF_RELF_JOIN, j, NS(f->now) + SFC_RELEASE_JOIN_NS);
    fo->join_id = f->r->join_at = j;
    x->hold_low = x->hold_on && x->hold_low < low0 ? x->hold_low : low0;
    x->hold_join = j;
    x->hold_on = 1;
    fo->rel.next_ns = 0;                 /* a round at once: the readouts hear the epoch */
    sim_push(f, f->now, EV_RELEASE, k, 0, ++x->gen, 0);
    f->r->fences++;
}

void sim_fence_notice(struct sim_farm *f, const struct sim_ev *ev)
{
    uint32_t k = ev->obj;
    struct sim_sfc_fo *fo = &f->sfc[k].fo;
    struct sim_fence *x = &fo->fence;
    uint64_t known = f->c->readouts < 64 ? (UINT64_C(1) << f->c->readouts) - 1 : ~UINT64_C(0);
    uint64_t x_low;

    if (f->sfc[k].dead)
        return;
    if (ev->aux != SIM_NOTICE_LOOK) {
        struct ebf_release_hdr h = {.place = (uint16_t)k, .flags = EBF_RELF_DEAD,
                                    .epoch = (uint16_t)ev->x, .low = ev->arg};
        int first = !x->notices.since_ns;
        if (!sfc_notice_take(&x->notices, &h, (uint16_t)k, fo->rel.epoch, ev->aux, NS(f->now)))
            return;
        f->r->notices_taken++;
        if (first)               /* the others' notices are waited for this long */
            sim_push(f, f->now + SFC_NOTICE_WAIT_NS * PS_PER_NS, EV_NOTICE, k,
                     SIM_NOTICE_LOOK, 0, 0);
    }
    if (x->notices.since_ns &&
        sfc_notice_due(&x->notices, known, x->last_low, NS(f->now), &x_low))
        fence(f, k, x_low);
}

void sim_fence_terms(struct sim_farm *f, uint32_t k, struct ebf_idset *d, uint64_t *digest,
                     struct acct_part *p)
{
    const struct sim_fence *x = &f->sfc[k].fo.fence;

    p->accepted -= x->accepted;
    p->rejected -= x->count - x->accepted;
    *digest -= x->digest;
    ebf_idset_merge(d, &x->ids, 1);       /* acked twice: counted once */
    f->r->l.redecided += x->count;
}
