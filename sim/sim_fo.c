/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_fo.c - failover in the simulated farm: the SFCs' release frames, the readouts' view, route and replay buffer, with the project's own modules. */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_mix.h"

/*
 * docs/protocol.md section 13 with the modules the daemons use, linked:
 * each SFC's release stage is sfc_release (period, numbering, watermark
 * by sfc_release_low, the frame by sfc_release_make) over an sfc_guard
 * (source bindings, source 0's sequence) and the sfc_lowmark its
 * sfc_evtab keeps; the readouts' side is ro_failover (death by silence,
 * the route by ebf_route) and ro_replay (the records until released).
 * The model's simplifications: every readout hears a release frame at
 * the same time (one view stands for all, so they detect together), and
 * source 0's buffer stands for each source's (all send every event).
 */

#define NS(ps) ((ps) / PS_PER_NS)

/* The MAC the model gives source s's readout (one readout per source). */
static void src_mac(uint16_t s, uint8_t mac[6])
{
    memcpy(mac, (uint8_t[6]){0x02, 0x5e, 0, 0, (uint8_t)(s >> 8), (uint8_t)s}, 6);
}

int sim_fo_init(struct sim_farm *f, char *err, size_t errlen)
{
    const struct sim_conf *c = f->c;
    struct sim_ro_fo *ro = &f->ro;
    uint64_t cap_bytes = (uint64_t)(c->replay_mb * 1024 * 1024);
    uint64_t events = cap_bytes / c->frag_bytes + 1;

    ebf_idset_init(&ro->lost_ids);
    if (ro_failover_init(&ro->view, c->sfcs, (uint64_t)(c->sfc_dead_ms * 1e6)) != 0 ||
        ro_replay_init(&ro->rb, events < (1u << 26) ? (uint32_t)events : 1u << 26, cap_bytes,
                       1) != 0) {
        snprintf(err, errlen, "failover: the readout's view or replay buffer refused %u SFCs "
                 "and %g MiB", c->sfcs, c->replay_mb);
        return -EINVAL;
    }
    ro->trig_t = calloc(ro->rb.cap, sizeof(*ro->trig_t));
    ro->seq0 = calloc(c->sfcs, sizeof(*ro->seq0));
    if (!ro->trig_t || !ro->seq0)
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    f->r->died_s = f->r->detected_s = f->r->recovered_s = -1;
    sim_push(f, PS_PER_MS, EV_RO_POLL, 0, 0, 0, 0);
    return 0;
}

void sim_fo_fini(struct sim_farm *f)
{
    f->r->joins = f->ro.view.joins;
    f->r->leaves = f->ro.view.leaves;
    ro_replay_fini(&f->ro.rb);
    free(f->ro.trig_t);
    free(f->ro.seq0);
}

/* SFC k's release state for its incarnation epoch, from nothing heard;
 * its first release now. */
static void sfc_fresh(struct sim_farm *f, uint32_t k, uint16_t epoch)
{
    static const uint8_t no_readout[1][6];   /* none configured: any MAC may send */
    struct sim_sfc_fo *fo = &f->sfc[k].fo;
    struct sfc_guard_conf gc = {.readout_mac = no_readout};
    uint8_t mac[6];

    sfc_lowmark_init(fo->lowmark);
    sfc_guard_init(fo->guard, &gc);
    memset(&fo->seq_st, 0, sizeof(fo->seq_st));
    src_mac(0, mac);
    sfc_guard_readout_add(fo->guard, mac);   /* readout 0: source 0's, the one modelled */
    memset(fo->next_by_src, 0, f->c->sources * sizeof(*fo->next_by_src));
    memset(fo->replayed, 0, f->c->capacity);
    sfc_release_init(&fo->rel, (uint16_t)k, epoch, (uint64_t)(f->c->release_ms * 1e6));
    sim_push(f, f->now, EV_RELEASE, k, 0, 0, 0);
}

int sim_fo_sfc_init(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    fo->lowmark = malloc(sizeof(*fo->lowmark));
    fo->guard = malloc(sizeof(*fo->guard));
    fo->next_by_src = calloc(f->c->sources, sizeof(*fo->next_by_src));
    fo->replayed = calloc(f->c->capacity, 1);
    if (!fo->lowmark || !fo->guard || !fo->next_by_src || !fo->replayed)
        return -ENOMEM;
    sfc_fresh(f, k, 0);
    return 0;
}

/* The join id `ebfarm restart` gives a restarted SFC (farm_restart.c's
 * join_id: the readouts' next id plus JOIN_S of their rate, at least
 * SFC_RELEASE_JOIN_MIN ids), by the SFC's own sfc_release_join_id. */
#define SIM_RESTART_JOIN_S 0.5

void sim_fo_sfc_restart(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;
    uint64_t j = sfc_release_join_id(f->next_id, f->c->rate_hz, 0, SIM_RESTART_JOIN_S);

    sim_ledger_retire(f, k);
    fo->restarted_at = f->now;
    fo->heard_max = fo->heard_at = 0;
    sfc_fresh(f, k, (uint16_t)(fo->rel.epoch + 1));
    sfc_release_announce(&fo->rel, EBF_RELF_JOIN, j, NS(f->now) + SFC_RELEASE_JOIN_NS);
    fo->join_id = f->r->join_at = j;
}

/* A drain (drain 1) or undrain of SFC k, as sfc_dp_leave: the leave or
 * join id from the highest id it heard, the ids made since at the rate
 * and 200 ms of margin; a leave is announced until changed, a join for
 * SFC_RELEASE_JOIN_NS. A drain of a drained SFC, or an undrain of one
 * that is not, does nothing (the daemon refuses it). */
void sim_fo_drain(struct sim_farm *f, uint32_t k, int drain)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;
    int drained = fo->rel.flags == EBF_RELF_LEAVE;
    double ago = (double)(f->now - fo->heard_at) / PS_PER_S;
    uint64_t at = sfc_release_join_id(fo->heard_max, f->c->rate_hz, ago, 0.2);

    if (f->sfc[k].dead || drain == drained)
        return;
    if (drain) {
        sfc_release_leave(&fo->rel, at);
        f->r->leave_at = at;
        return;
    }
    sfc_release_announce(&fo->rel, EBF_RELF_JOIN, at, NS(f->now) + SFC_RELEASE_JOIN_NS);
    fo->join_id = f->r->join_at = at;
}

void sim_fo_sfc_fini(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    free(fo->lowmark);
    free(fo->guard);
    free(fo->next_by_src);
    free(fo->replayed);
}

/* --- Readouts ------------------------------------------------------------- */

uint32_t sim_fo_route(struct sim_farm *f, uint64_t e)
{
    return ro_failover_place(&f->ro.view, e);
}

/* Room for one more fragment; else the trigger is held (13.3), and after
 * SIM_REPLAY_HOLD_S the oldest records are dropped until it fits. */
int sim_fo_room(struct sim_farm *f)
{
    struct sim_ro_fo *ro = &f->ro;
    uint64_t id;

    if (ro_replay_fits(&ro->rb, f->c->frag_bytes)) {
        if (ro->full)
            f->r->replay_held_s += (double)(f->now - ro->full_since) / PS_PER_S;
        ro->full = 0;
        return 1;
    }
    if (!ro->full) {
        ro->full = 1;
        ro->full_since = f->now;
        return 0;
    }
    if (f->now - ro->full_since < (uint64_t)(SIM_REPLAY_HOLD_S * PS_PER_S))
        return 0;
    while (!ro_replay_fits(&ro->rb, f->c->frag_bytes) && ro_replay_drop_oldest(&ro->rb, &id))
        f->r->replay_dropped++;
    return sim_fo_room(f);
}

/* Event e went to SFC k: source 0 sent n_pieces frames (sim_emit_to
 * counts them in seq0); the buffer records the last one's number. */
void sim_fo_sent(struct sim_farm *f, uint64_t e, uint32_t k, uint64_t t0)
{
    struct sim_ro_fo *ro = &f->ro;
    uint32_t last = ro->seq0[k] - 1;

    if (ro_replay_push(&ro->rb, e, (uint16_t)k, f->c->frag_bytes, &last) == 0)
        ro->trig_t[(ro->rb.tail - 1) & (ro->rb.cap - 1)] = t0;
    if (ro->rb.held_bytes > f->r->replay_peak_bytes) {
        f->r->replay_peak_bytes = ro->rb.held_bytes;
        f->r->replay_peak_events = ro->rb.held_events;
    }
}

void sim_fo_lost(struct sim_farm *f, uint64_t id)
{
    ebf_idset_add(&f->ro.lost_ids, id);
    f->ro.lost_digest += ebf_mix64(id);
    f->ro.lost_no_place++;
}

/* Place p was declared dead: every record of p goes again, in id order,
 * to its route over the new dead set (13.4), or is lost with no place;
 * back to back as 13.4 has it, or replay_gap_us apart (a pacing the
 * protocol does not have: the model's question is whether it needs it),
 * still before any new event, or with replay_interleave between the new
 * events (EV_REPLAY: the record points at its new place with a sequence
 * number no release reaches until its frames are sent). */
static void replay(struct sim_farm *f, uint32_t p)
{
    struct sim_ro_fo *ro = &f->ro;
    struct ro_replay_rec *rec;
    uint32_t cursor = 0;
    uint64_t at = f->now, gap = (uint64_t)(f->c->replay_gap_us * PS_PER_US);

    while ((rec = ro_replay_next_of(&ro->rb, (uint16_t)p, &cursor))) {
        uint32_t to = ebf_route_of(&ro->view.route, rec->id);
        uint32_t idx = (uint32_t)(rec - ro->rb.rec);
        if (to == EBF_ROUTE_NONE) {
            sim_fo_lost(f, rec->id);
            rec->place = UINT16_MAX;   /* never released: stays until the run ends */
            continue;
        }
        f->r->replayed++;
        if (f->c->replay_interleave && at > f->now) {
            uint32_t never = ro->seq0[to] + 0x7fffffffu;
            ro_replay_moved(&ro->rb, rec, (uint16_t)to, &never);
            sim_push_x(f, at, EV_REPLAY, to, 0, rec->id, ro->trig_t[idx], idx);
        } else {
            sim_emit_to(f, rec->id, to, at, ro->trig_t[idx], 1);
            uint32_t last = ro->seq0[to] - 1;
            ro_replay_moved(&ro->rb, rec, (uint16_t)to, &last);
        }
        at += gap;
    }
}

void sim_fo_replay_due(struct sim_farm *f, const struct sim_ev *ev)
{
    struct sim_ro_fo *ro = &f->ro;
    struct ro_replay_rec *rec = &ro->rb.rec[ev->x];

    if (rec->id != ev->arg || rec->released || rec->place != ev->obj)
        return;                  /* moved on: its place died too and it went again */
    sim_emit_to(f, ev->arg, ev->obj, f->now, ev->t0, 1);
    uint32_t last = ro->seq0[ev->obj] - 1;
    ro_replay_moved(&ro->rb, rec, (uint16_t)ev->obj, &last);
}

void sim_fo_poll(struct sim_farm *f)
{
    struct ebf_places died;
    uint32_t n = ro_failover_poll(&f->ro.view, NS(f->now), &died);

    for (uint32_t p = 0; n && p < f->c->sfcs; p++) {
        if (!ebf_places_has(&died, p))
            continue;
        f->r->sfc_deaths++;
        if (f->r->detected_s < 0)
            f->r->detected_s = (double)f->now / PS_PER_S;
        replay(f, p);
    }
    if (f->ro.full && sim_fo_room(f))
        sim_trigger_resume(f);
    if (!f->gen_done || f->in_flight || f->ro.rb.held_events)
        sim_push(f, f->now + PS_PER_MS, EV_RO_POLL, 0, 0, 0, 0);
}

/* Records of place p sent before its restart that a release (low,
 * next_seq) of its new incarnation frees unreplayed: its old incarnation
 * decided some of them before it died; the others no process holds. */
static uint64_t unseen(struct sim_farm *f, uint16_t p, uint64_t low, uint32_t next_seq)
{
    struct ro_replay *rb = &f->ro.rb;
    struct ro_replay_rec *rec;
    uint32_t cursor = 0;
    uint64_t n = 0;

    while ((rec = ro_replay_next_of(rb, p, &cursor))) {
        uint32_t i = (uint32_t)(rec - rb->rec);
        if (rec->id >= low)
            break;
        if (f->ro.trig_t[i] < f->sfc[p].fo.restarted_at && (int32_t)(next_seq - rb->seq[i]) > 0)
            n++;
    }
    return n;
}

void sim_fo_release_heard(struct sim_farm *f, const struct sim_ev *ev)
{
    struct ebf_release_hdr h = {
        .place = (uint16_t)ev->obj, .epoch = ev->aux, .seq = (uint32_t)(ev->t0 >> 32),
        .low = ev->arg, .n_src = (uint8_t)ev->x, .flags = (uint8_t)(ev->x >> 16),
        .at = ev->x >> 16 ? f->sfc[ev->obj].fo.ann_at : 0,
    };
    uint32_t next_seq = (uint32_t)ev->t0;
    struct sim_ro_fo *ro = &f->ro;

    if (!ro_failover_offer(&ro->view, &h, f->next_id, NS(f->now)))
        return;
    f->r->release_frames++;
    if (h.low > f->sfc[ev->obj].fo.x_low)
        f->sfc[ev->obj].fo.x_low = h.low;
    if (h.n_src && f->sfc[h.place].fo.restarted_at)
        f->r->freed_by_restart += unseen(f, h.place, h.low, next_seq);
    if (h.n_src)
        ro_replay_release(&ro->rb, h.place, h.low, &next_seq);
    if (ro->full && sim_fo_room(f))
        sim_trigger_resume(f);
}

/* --- SFCs ----------------------------------------------------------------- */

void sim_fo_frag(struct sim_farm *f, uint32_t k, uint16_t source, uint64_t id, uint32_t seq)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    if (!fo->guard->bind[source].bound) {
        uint8_t mac[6];
        src_mac(source, mac);
        sfc_guard_source(fo->guard, source, mac);
    }
    if (id + 1 > fo->next_by_src[source])
        fo->next_by_src[source] = id + 1;
    if (id + 1 > fo->heard_max) {
        fo->heard_max = id + 1;
        fo->heard_at = f->now;
    }
    if (source == 0)
        sfc_guard_seq(fo->guard, &fo->seq_st, 0, seq);
}

/* The release stage of SFC k (sfc_dp_release's round): when due, the
 * watermark and one frame to readout 0, heard a link later. */
void sim_fo_release(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sim_sfc_fo *fo = &s->fo;
    struct ebf_release_hdr h;
    uint64_t at;

    if (s->dead)
        return;
    if (sfc_release_due(&fo->rel, NS(f->now))) {
        uint64_t low = sfc_release_low(fo->guard, sfc_lowmark_low(fo->lowmark),
                                       fo->next_by_src, (uint16_t)f->c->sources);
        uint8_t flags = sfc_release_flags(&fo->rel, NS(f->now), &at);
        unsigned n = sfc_release_make(&fo->rel, fo->guard, 0, (uint16_t)f->c->sources, low,
                                      flags, at, &h);
        uint64_t t0 = (uint64_t)h.seq << 32 | (n ? h.src[0].next_seq : 0);
        fo->ann_at = at;
        sim_push_x(f, f->now + f->ack_delay / 2, EV_RELEASE_RO, k, h.epoch, h.low, t0,
                   n | (uint32_t)flags << 16);
    }
    if (!f->gen_done || f->in_flight || sim_sfc_held(f, k) || f->ro.rb.held_events)
        sim_push(f, fo->rel.next_ns * PS_PER_NS, EV_RELEASE, k, 0, 0, 0);
}

/* A node of a failover farm decided id: kept apart when at or above its
 * SFC's accepted low (a death could have it replayed: 13.6). */
void sim_fo_decided(struct sim_farm *f, uint32_t node, uint64_t id, int accept)
{
    struct sim_node *x = &f->node[node];
    struct sim_sfc *s = &f->sfc[node / f->c->nodes_per_sfc];

    if (id < s->fo.x_low)
        return;
    if (x->n_late == x->cap_late) {      /* first forget those the low has passed since */
        uint32_t n = 0;
        for (uint32_t i = 0; i < x->n_late; i++)
            if (x->late[i].id >= s->fo.x_low)
                x->late[n++] = x->late[i];
        x->n_late = n;
    }
    if (x->n_late == x->cap_late) {
        uint32_t cap = x->cap_late ? 2 * x->cap_late : 64;
        struct sim_late_dec *p = realloc(x->late, cap * sizeof(*p));
        if (!p) {
            f->err = -ENOMEM;
            return;
        }
        x->late = p;
        x->cap_late = cap;
    }
    x->late[x->n_late++] = (struct sim_late_dec){id, (uint8_t)accept};
}
