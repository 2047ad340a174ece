/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_fo_end.c - replay ends in the simulated farm: a readout's end after its replay, and the survivor's verdict on replayed events that time out (docs/protocol.md 13.4, 13.4.1). */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_proto.h"

/*
 * The survivor's rules are sfc/sfc_dp_replay.c's (that file is the
 * daemon's, over DPDK rings and TSC ticks, so the model follows it here on
 * the same sfc_evtab calls): while replayed pieces come (the last less
 * than SIM_REPLAY_GRACE_S ago) no building event times out before the
 * grace; a replayed event that times out is dropped when the replay ends
 * prove it decided (replay.partial, replay.ended), built incomplete when
 * every missing source sent nothing since its first piece, else kept
 * (replay.waits) until an end proves it or SIM_REPLAY_WAIT_MAX_S passes
 * (replay.wait_cap).
 */

#define SIM_REPLAY_GRACE_S 1.0        /* SFC_REPLAY_GRACE_NS */
#define SIM_REPLAY_WAIT_MAX_S 5.0     /* SFC_REPLAY_WAIT_MAX_NS */
#define END_WIRE (EBF_ETH_HLEN + 32 + 8 * 1 + WIRE_EXTRA)   /* a small frame: the minimum */

int sim_fo_sfc_ends_init(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    fo->end_from = calloc((size_t)f->c->sources * SIM_END_PLACES, sizeof(*fo->end_from));
    fo->src_at = calloc(f->c->sources, sizeof(*fo->src_at));
    fo->seen_id = malloc(f->c->capacity * sizeof(*fo->seen_id));
    fo->seen_ro = calloc(f->c->capacity, sizeof(*fo->seen_ro));
    if (fo->seen_id)
        memset(fo->seen_id, 0xff, f->c->capacity * sizeof(*fo->seen_id));
    return fo->end_from && fo->src_at && fo->seen_id && fo->seen_ro ? 0 : -ENOMEM;
}

void sim_fo_sfc_ends_fini(struct sim_farm *f, uint32_t k)
{
    free(f->sfc[k].fo.end_from);
    free(f->sfc[k].fo.src_at);
    free(f->sfc[k].fo.seen_id);
    free(f->sfc[k].fo.seen_ro);
}

/* Readout ro's replay end of dead place p to each place S it routes to
 * (not out, not p), F its next event id: it goes behind every frame its
 * sources queued (the replay), a small frame, so reaches S's switch port
 * after them (a FIFO link, 13.4.1). */
void sim_fo_send_ends(struct sim_farm *f, uint32_t ro, uint32_t p)
{
    const struct sim_ro_one *o = &f->ro.one[ro];
    uint64_t t = f->now;

    for (uint32_t s = o->src0; s < (uint32_t)o->src0 + o->n_src; s++) {
        const struct sim_source *src = &f->src[s];
        uint64_t busy = src->link.busy_until > src->cpu_busy ? src->link.busy_until
                                                               : src->cpu_busy;
        t = busy > t ? busy : t;
    }
    t += sim_port_ser(&f->src[o->src0].link, END_WIRE) + f->src[o->src0].link.latency_ps;
    for (uint32_t k = 0; k < f->c->sfcs; k++) {
        if (k == p || ebf_places_has(&o->view.out, k))
            continue;
        f->r->replay_ends_sent++;
        f->in_flight++;
        sim_push_x(f, t, EV_FRAG_SW, k | 1u << 30, (uint16_t)ro, f->next_id, 0, p);
    }
}

void sim_fo_piece(struct sim_farm *f, uint32_t k, uint16_t source, int replayed,
                  enum sfc_add_result rc, uint32_t slot)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    fo->src_at[source] = f->now;
    if (rc == SFC_ADD_PARTIAL || rc == SFC_ADD_COMPLETE) {
        uint64_t id = sfc_evtab_event(f->sfc[k].tab, slot)->event_id;
        if (fo->seen_id[slot] != id)
            fo->seen_ro[slot] = 0;
        fo->seen_id[slot] = id;
        fo->seen_ro[slot] |= 1u << sim_ro_of(f, source);
    }
    if (!replayed)
        return;
    fo->replay_at = f->now;
    if (rc == SFC_ADD_PARTIAL || rc == SFC_ADD_COMPLETE)
        fo->replayed[slot] = 1;
    else if (rc == SFC_ADD_DUP_SENT || rc == SFC_ADD_LATE || rc == SFC_ADD_DUPLICATE)
        f->r->replay_dup++;      /* its event was finished here: not built twice */
}

/* The places whose replay end from source s's readout covers id (bit p:
 * its first event routed around p is above id). */
static uint64_t ended(const struct sim_farm *f, uint32_t k, uint32_t s, uint64_t id)
{
    const uint64_t *from = &f->sfc[k].fo.end_from[(size_t)s * SIM_END_PLACES];
    uint32_t n = f->c->sfcs < SIM_END_PLACES ? f->c->sfcs : SIM_END_PLACES;
    uint64_t m = 0;

    for (uint32_t p = 0; p < n; p++)
        m |= (uint64_t)(from[p] > id) << p;
    return m;
}

/* The readouts that sent SFC k a piece of e (any piece, complete or not),
 * as sim_fo_piece marks them per slot. */
static uint32_t sent_by(const struct sim_farm *f, uint32_t k, uint32_t slot, uint64_t id)
{
    const struct sim_sfc_fo *fo = &f->sfc[k].fo;

    return fo->seen_id[slot] == id ? fo->seen_ro[slot] : 0;
}

/* 13.4 rule 1 as the daemon has it (sfc_dp_replay_proven): the ends of
 * the readouts of the sources e holds complete name places N past e, and
 * every missing source's readout ended each of N past e too: 1, else 0. */
static int proven_daemon(const struct sim_farm *f, uint32_t k, const struct sfc_event *e)
{
    uint64_t need = 0;

    for (uint32_t s = 0; s < f->c->sources; s++)
        if (ebf_present_test(e->present, s))
            need |= ended(f, k, s, e->event_id);
    if (!need)
        return 0;
    for (uint32_t s = 0; s < f->c->sources; s++)
        if (!ebf_present_test(e->present, s) && (ended(f, k, s, e->event_id) & need) != need)
            return 0;
    return 1;
}

/* Rule 1 with replay_lost_piece (else the daemon's): a readout that sent
 * a piece of e did send e, so its missing pieces were lost on the way and
 * prove nothing; the proof is that of the readouts that sent none. 2
 * when every missing source's readout sent a piece (a network loss: e
 * is built incomplete, as any event missing a piece), 1 proven, 0 not. */
static int proven(const struct sim_farm *f, uint32_t k, uint32_t slot)
{
    const struct sfc_event *e = sfc_evtab_event(f->sfc[k].tab, slot);
    uint32_t sent = sent_by(f, k, slot, e->event_id);
    uint64_t need = 0;
    int absent = 0;

    if (!f->c->replay_lost_piece)
        return proven_daemon(f, k, e);
    for (uint32_t s = 0; s < f->c->sources; s++)
        if (sent >> sim_ro_of(f, s) & 1)
            need |= ended(f, k, s, e->event_id);
    for (uint32_t s = 0; s < f->c->sources; s++) {
        if (ebf_present_test(e->present, s) || sent >> sim_ro_of(f, s) & 1)
            continue;
        absent = 1;
        if (!need || (ended(f, k, s, e->event_id) & need) != need)
            return 0;
    }
    return absent ? 1 : 2;
}

/* Rule 2: every missing source sent nothing since e's first piece (or
 * its last wait): their readout died (sfc_dp_replay_orphan). */
static int orphan(const struct sim_farm *f, uint32_t k, const struct sfc_event *e)
{
    for (uint32_t s = 0; s < f->c->sources; s++)
        if (!ebf_present_test(e->present, s) && f->sfc[k].fo.src_at[s] >= e->first_tick)
            return 0;
    return 1;
}

/* A replayed event dropped, not built (replay.partial). */
static void partial(struct sim_farm *f, uint32_t k, uint32_t slot)
{
    f->r->replay_partial++;
    f->sfc[k].fo.replayed[slot] = 0;
    sfc_evtab_drop(f->sfc[k].tab, slot);
}

void sim_fo_end_taken(struct sim_farm *f, uint32_t k, const struct sim_ev *ev)
{
    struct sim_sfc *s = &f->sfc[k];
    const struct sim_ro_one *o = &f->ro.one[ev->aux];

    if (ev->x >= SIM_END_PLACES) {
        f->r->replay_end_refused++;
        return;
    }
    f->r->replay_ends++;
    for (uint32_t src = o->src0; src < (uint32_t)o->src0 + o->n_src; src++) {
        uint64_t *from = &s->fo.end_from[(size_t)src * SIM_END_PLACES + ev->x];
        *from = ev->arg > *from ? ev->arg : *from;
    }
    uint32_t slot = sfc_evtab_building_head(s->tab);
    while (slot != SFC_NONE) {   /* the kept events it proves decided go now */
        const struct sfc_event *e = sfc_evtab_event(s->tab, slot);
        uint32_t next = e->next;
        if (s->fo.replayed[slot] && sfc_evtab_cold(s->tab, slot)->wait_tick &&
            proven(f, k, slot) == 1) {
            f->r->replay_ended++;
            partial(f, k, slot);
        }
        slot = next;
    }
}

/* The building head, due and replayed: dropped when proven decided,
 * left to be built incomplete (returns 1) when an orphan or a piece was
 * lost on the way (replay_unsound), else kept or dropped at the cap
 * (sfc_dp_replay_verdict). */
static int judge(struct sim_farm *f, uint32_t k, uint32_t head)
{
    struct sim_sfc *s = &f->sfc[k];
    const struct sfc_event *e = sfc_evtab_event(s->tab, head);
    uint64_t since = sfc_evtab_cold(s->tab, head)->wait_tick;

    int proof = proven(f, k, head);

    if (proof == 1) {
        f->r->replay_ended++;
        partial(f, k, head);
    } else if (proof == 2) {     /* the daemon drops or keeps it */
        f->r->replay_unsound += proven_daemon(f, k, e) || !orphan(f, k, e);
        return 1;
    } else if (orphan(f, k, e)) {
        return 1;
    } else if (since && f->now - since >= (uint64_t)(SIM_REPLAY_WAIT_MAX_S * PS_PER_S)) {
        f->r->replay_wait_cap++;
        partial(f, k, head);
    } else {
        f->r->replay_waits += since == 0;
        sfc_evtab_rewait(s->tab, head, f->now);   /* to the tail: the loop ends there */
    }
    return 0;
}

uint32_t sim_fo_expire(struct sim_farm *f, uint32_t k, uint64_t *dropped)
{
    struct sim_sfc *s = &f->sfc[k];
    uint64_t timeout = f->timeout, grace = (uint64_t)(SIM_REPLAY_GRACE_S * PS_PER_S);
    uint32_t n = 0, head;

    if (s->fo.replay_at && f->now - s->fo.replay_at < grace && grace > timeout)
        timeout = grace;
    while ((head = sfc_evtab_building_head(s->tab)) != SFC_NONE) {
        if (f->now - sfc_evtab_event(s->tab, head)->first_tick < timeout)
            break;
        if (!s->fo.replayed[head] || judge(f, k, head))
            n += sfc_evtab_expire(s->tab, f->now, 0, 1, dropped);
    }
    return n;
}
