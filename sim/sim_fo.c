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
 * Each readout has its own view and buffer: it hears the release frames
 * with its own lag (ro_release_lag_ms) and loss (release_loss), detects
 * at its own moment, replays its own records and then sends its replay
 * ends (13.4.1); the survivors judge the replayed events that time out by
 * those ends (sim_fo_end.c). A readout's buffer counts one source's bytes
 * (its sources send every event, the same size).
 */

#define NS(ps) ((ps) / PS_PER_NS)

/* The MAC the model gives readout r. */
static void ro_mac(uint32_t r, uint8_t mac[6])
{
    memcpy(mac, (uint8_t[6]){0x02, 0x5e, 0, 0, (uint8_t)(r >> 8), (uint8_t)r}, 6);
}

/* Readout r's view, buffer, sources and lag; 0 or -EINVAL / -ENOMEM. */
static int ro_init(struct sim_farm *f, uint32_t r)
{
    const struct sim_conf *c = f->c;
    struct sim_ro_one *o = &f->ro.one[r];
    uint64_t cap_bytes = (uint64_t)(c->replay_mb * 1024 * 1024);
    uint64_t events = cap_bytes / c->frag_bytes + 1, R = c->readouts, S = c->sources;

    o->src0 = (uint16_t)((r * S + R - 1) / R);
    o->n_src = (uint16_t)(((r + 1) * S + R - 1) / R - o->src0);
    o->lag_ps = R > 1 ? (uint64_t)(c->ro_release_lag_ms * PS_PER_MS) * r / (R - 1) : 0;
    if (ro_failover_init(&o->view, c->sfcs, (uint64_t)(c->sfc_dead_ms * 1e6)) != 0 ||
        ro_replay_init(&o->rb, events < (1u << 26) ? (uint32_t)events : 1u << 26, cap_bytes,
                       1) != 0)
        return -EINVAL;
    o->trig_t = calloc(o->rb.cap, sizeof(*o->trig_t));
    o->seq0 = calloc(c->sfcs, sizeof(*o->seq0));
    o->low = calloc(c->sfcs, sizeof(*o->low));
    return o->trig_t && o->seq0 && o->low ? 0 : -ENOMEM;
}

int sim_fo_init(struct sim_farm *f, char *err, size_t errlen)
{
    const struct sim_conf *c = f->c;
    struct sim_ro_fo *ro = &f->ro;

    ebf_idset_init(&ro->lost_ids);
    ro->one = calloc(c->readouts, sizeof(*ro->one));
    if (!ro->one)
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    for (uint32_t r = 0; r < c->readouts; r++) {
        int rc = ro_init(f, r);
        if (rc == -EINVAL)
            snprintf(err, errlen, "failover: the readout's view or replay buffer refused %u "
                     "SFCs and %g MiB", c->sfcs, c->replay_mb);
        else if (rc)
            snprintf(err, errlen, "out of memory");
        if (rc)
            return rc;
    }
    f->r->died_s = f->r->detected_s = f->r->detected_last_s = f->r->recovered_s = -1;
    sim_push(f, PS_PER_MS, EV_RO_POLL, 0, 0, 0, 0);
    return 0;
}

void sim_fo_fini(struct sim_farm *f)
{
    for (uint32_t r = 0; f->ro.one && r < f->c->readouts; r++) {
        struct sim_ro_one *o = &f->ro.one[r];
        if (r == 0) {
            f->r->joins = o->view.joins;
            f->r->leaves = o->view.leaves;
        }
        ro_replay_fini(&o->rb);
        free(o->trig_t);
        free(o->seq0);
        free(o->low);
    }
    free(f->ro.one);
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
    for (uint32_t r = 0; r < f->c->readouts; r++) {
        ro_mac(r, mac);
        sfc_guard_readout_add(fo->guard, mac);   /* readout r is the guard's r */
    }
    fo->declared = 0;
    fo->replay_at = 0;
    memset(fo->end_from, 0, (size_t)f->c->sources * SIM_END_PLACES * sizeof(*fo->end_from));
    memset(fo->src_at, 0, f->c->sources * sizeof(*fo->src_at));
    memset(fo->seen_id, 0xff, f->c->capacity * sizeof(*fo->seen_id));
    memset(fo->next_by_src, 0, f->c->sources * sizeof(*fo->next_by_src));
    memset(fo->replayed, 0, f->c->capacity);
    sfc_release_init(&fo->rel, (uint16_t)k, epoch, (uint64_t)(f->c->release_ms * 1e6));
    sim_push(f, f->now, EV_RELEASE, k, 0, ++fo->fence.gen, 0);   /* a new chain of rounds */
}

int sim_fo_sfc_init(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    fo->lowmark = malloc(sizeof(*fo->lowmark));
    fo->guard = malloc(sizeof(*fo->guard));
    fo->next_by_src = calloc(f->c->sources, sizeof(*fo->next_by_src));
    fo->replayed = calloc(f->c->capacity, 1);
    if (!fo->lowmark || !fo->guard || !fo->next_by_src || !fo->replayed ||
        sim_fo_sfc_ends_init(f, k) != 0 || sim_fence_init(f, k) != 0)
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
    sim_fence_restart(f, k);
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
    sim_fo_sfc_ends_fini(f, k);
    sim_fence_fini(f, k);
}

/* --- Readouts ------------------------------------------------------------- */

uint32_t sim_fo_route(struct sim_farm *f, uint32_t ro, uint64_t e)
{
    return ro_failover_place(&f->ro.one[ro].view, e);
}

/* Room for one more fragment in readout o's buffer; else the trigger is
 * held (13.3), and after SIM_REPLAY_HOLD_S the oldest records are
 * dropped until it fits. */
static int room_one(struct sim_farm *f, struct sim_ro_one *o)
{
    uint64_t id;

    if (ro_replay_fits(&o->rb, f->c->frag_bytes)) {
        if (o->full)
            f->r->replay_held_s += (double)(f->now - o->full_since) / PS_PER_S;
        o->full = 0;
        return 1;
    }
    if (!o->full) {
        o->full = 1;
        o->full_since = f->now;
        return 0;
    }
    if (f->now - o->full_since < (uint64_t)(SIM_REPLAY_HOLD_S * PS_PER_S))
        return 0;
    while (!ro_replay_fits(&o->rb, f->c->frag_bytes) && ro_replay_drop_oldest(&o->rb, &id))
        f->r->replay_dropped++;
    return room_one(f, o);
}

int sim_fo_room(struct sim_farm *f)
{
    int all = 1;

    for (uint32_t r = 0; r < f->c->readouts; r++)
        all &= room_one(f, &f->ro.one[r]);
    f->ro.full = !all;
    return all;
}

/* Readout ro sent event e to SFC k: its first source sent n_pieces
 * frames (counted in seq0); the buffer records the last one's number. */
void sim_fo_sent(struct sim_farm *f, uint32_t ro, uint64_t e, uint32_t k, uint64_t t0)
{
    struct sim_ro_one *o = &f->ro.one[ro];
    uint32_t last = o->seq0[k] - 1;

    if (ro_replay_push(&o->rb, e, (uint16_t)k, f->c->frag_bytes, &last) == 0)
        o->trig_t[(o->rb.tail - 1) & (o->rb.cap - 1)] = t0;
    if (o->rb.held_bytes > f->r->replay_peak_bytes) {
        f->r->replay_peak_bytes = o->rb.held_bytes;
        f->r->replay_peak_events = o->rb.held_events;
    }
}

void sim_fo_lost(struct sim_farm *f, uint64_t id)
{
    ebf_idset_add(&f->ro.lost_ids, id);
    f->ro.lost_digest += ebf_mix64(id);
    f->ro.lost_no_place++;
}

/* Readout ro declared place p dead: every record of p goes again, in id
 * order, to its route over the new dead set (13.4), or is lost with no
 * place; back to back as 13.4 has it, or replay_gap_us apart (a pacing
 * the protocol does not have: the model's question is whether it needs
 * it), still before any new event, or with replay_interleave between the
 * new events (EV_REPLAY: the record points at its new place with a
 * sequence number no release reaches until its frames are sent). Then its
 * replay ends, behind the replayed frames. */
static void replay(struct sim_farm *f, uint32_t ro, uint32_t p)
{
    struct sim_ro_one *o = &f->ro.one[ro];
    struct ro_replay_rec *rec;
    uint32_t cursor = 0;
    uint64_t at = f->now, gap = (uint64_t)(f->c->replay_gap_us * PS_PER_US);

    while ((rec = ro_replay_next_of(&o->rb, (uint16_t)p, &cursor))) {
        uint32_t to = ebf_route_of(&o->view.route, rec->id);
        uint32_t idx = (uint32_t)(rec - o->rb.rec);
        if (to == EBF_ROUTE_NONE) {
            if (ro == 0)         /* counted once: readout 0's (sim_farm.c's emit) */
                sim_fo_lost(f, rec->id);
            rec->place = UINT16_MAX;   /* never released: stays until the run ends */
            continue;
        }
        f->r->replayed++;
        if (f->c->replay_interleave && at > f->now) {
            uint32_t never = o->seq0[to] + 0x7fffffffu;
            ro_replay_moved(&o->rb, rec, (uint16_t)to, &never);
            sim_push_x(f, at, EV_REPLAY, to, (uint16_t)ro, rec->id, o->trig_t[idx], idx);
        } else {
            sim_emit_ro(f, ro, rec->id, to, at, o->trig_t[idx], 1);
            uint32_t last = o->seq0[to] - 1;
            ro_replay_moved(&o->rb, rec, (uint16_t)to, &last);
        }
        at += gap;
    }
    sim_fo_send_ends(f, ro, p);
}

void sim_fo_replay_due(struct sim_farm *f, const struct sim_ev *ev)
{
    struct sim_ro_one *o = &f->ro.one[ev->aux];
    struct ro_replay_rec *rec = &o->rb.rec[ev->x];

    if (rec->id != ev->arg || rec->released || rec->place != ev->obj)
        return;                  /* moved on: its place died too and it went again */
    sim_emit_ro(f, ev->aux, ev->arg, ev->obj, f->now, ev->t0, 1);
    uint32_t last = o->seq0[ev->obj] - 1;
    ro_replay_moved(&o->rb, rec, (uint16_t)ev->obj, &last);
}

/* Readout ro declared the places in died dead. */
static void declared(struct sim_farm *f, uint32_t ro, const struct ebf_places *died)
{
    for (uint32_t p = 0; p < f->c->sfcs; p++) {
        if (!ebf_places_has(died, p))
            continue;
        if (f->sfc[p].fo.declared++ == 0)
            f->r->sfc_deaths++;
        if (f->r->detected_s < 0)
            f->r->detected_s = (double)f->now / PS_PER_S;
        if (f->sfc[p].fo.declared == f->c->readouts && f->r->detected_last_s < 0)
            f->r->detected_last_s = (double)f->now / PS_PER_S;
        replay(f, ro, p);
    }
}

/* Readout ro's dead notices to the places in due (13.4 rule 4): its
 * epoch and frozen low of each, raw Ethernet like the release frames. */
static void notices(struct sim_farm *f, uint32_t ro, const struct ebf_places *due)
{
    struct sim_ro_one *o = &f->ro.one[ro];

    for (uint32_t p = 0; p < f->c->sfcs; p++) {
        if (!ebf_places_has(due, p))
            continue;
        f->r->notices_due++;
        sim_push_x(f, f->now + f->ack_delay / 2, EV_NOTICE, p, (uint16_t)ro, o->low[p], 0,
                   o->view.epoch[p]);
    }
}

void sim_fo_poll(struct sim_farm *f)
{
    int held = 0;

    for (uint32_t r = 0; r < f->c->readouts; r++) {
        struct sim_ro_one *o = &f->ro.one[r];
        struct ebf_places died, due;
        if (ro_failover_poll(&o->view, NS(f->now), &died))
            declared(f, r, &died);
        if (ro_failover_notices(&o->view, &due))
            notices(f, r, &due);
        held |= o->rb.held_events != 0;
    }
    if (f->ro.full && sim_fo_room(f))
        sim_trigger_resume(f);
    if (!f->gen_done || f->in_flight || held)
        sim_push(f, f->now + PS_PER_MS, EV_RO_POLL, 0, 0, 0, 0);
}

/* Records of place p in readout o's buffer sent before its restart that
 * a release (low, next_seq) of its new incarnation frees unreplayed: its
 * old incarnation decided some of them before it died; the others no
 * process holds. */
static uint64_t unseen(struct sim_farm *f, struct sim_ro_one *o, uint16_t p, uint64_t low,
                       uint32_t next_seq)
{
    struct ro_replay *rb = &o->rb;
    struct ro_replay_rec *rec;
    uint32_t cursor = 0;
    uint64_t n = 0;

    while ((rec = ro_replay_next_of(rb, p, &cursor))) {
        uint32_t i = (uint32_t)(rec - rb->rec);
        if (rec->id >= low)
            break;
        if (o->trig_t[i] < f->sfc[p].fo.restarted_at && (int32_t)(next_seq - rb->seq[i]) > 0)
            n++;
    }
    return n;
}

void sim_fo_release_heard(struct sim_farm *f, const struct sim_ev *ev)
{
    struct ebf_release_hdr h = {
        .place = (uint16_t)ev->obj, .epoch = ev->aux, .seq = (uint32_t)(ev->t0 >> 32),
        .low = ev->arg, .n_src = (uint8_t)ev->x, .flags = (uint8_t)(ev->x >> 16),
        .at = (uint8_t)(ev->x >> 16) ? f->sfc[ev->obj].fo.ann_at : 0,
    };
    uint32_t next_seq = (uint32_t)ev->t0;
    struct sim_ro_one *o = &f->ro.one[ev->x >> 24];

    if (!ro_failover_offer(&o->view, &h, f->next_id, NS(f->now)))
        return;
    f->r->release_frames++;
    if (!ebf_places_has(&o->view.dead, h.place)) {  /* frozen at its death (ro_fo.c) */
        o->low[h.place] = h.low > o->low[h.place] ? h.low : o->low[h.place];
        if (h.low > f->sfc[ev->obj].fo.x_low)
            f->sfc[ev->obj].fo.x_low = h.low;
    }
    if (h.n_src && f->sfc[h.place].fo.restarted_at)
        f->r->freed_by_restart += unseen(f, o, h.place, h.low, next_seq);
    if (h.n_src)
        ro_replay_release(&o->rb, h.place, h.low, &next_seq);
    if (f->ro.full && sim_fo_room(f))
        sim_trigger_resume(f);
}

/* --- SFCs ----------------------------------------------------------------- */

void sim_fo_frag(struct sim_farm *f, uint32_t k, uint16_t source, uint64_t id, uint32_t seq)
{
    struct sim_sfc_fo *fo = &f->sfc[k].fo;

    uint32_t ro = sim_ro_of(f, source);

    if (!fo->guard->bind[source].bound) {
        uint8_t mac[6];
        ro_mac(ro, mac);
        sfc_guard_source(fo->guard, source, mac);
    }
    if (id + 1 > fo->next_by_src[source])
        fo->next_by_src[source] = id + 1;
    if (id + 1 > fo->heard_max) {
        fo->heard_max = id + 1;
        fo->heard_at = f->now;
    }
    if (source == f->ro.one[ro].src0)
        sfc_guard_seq(fo->guard, &fo->seq_st, source, seq);
}

/* The release stage of SFC k (sfc_dp_release's round): when due, the
 * watermark and one frame to each readout (its own sequence number, as
 * the daemon numbers every frame), heard half an ack's delay later plus
 * the readout's lag, or lost (release_loss). */
void sim_fo_release(struct sim_farm *f, uint32_t k, uint32_t gen)
{
    struct sim_sfc *s = &f->sfc[k];
    struct sim_sfc_fo *fo = &s->fo;
    struct ebf_release_hdr h;
    uint64_t at;

    if (s->dead || gen != fo->fence.gen)
        return;                  /* gone, or a fence started another chain */
    int held = 0;

    for (uint32_t r = 0; r < f->c->readouts; r++)
        held |= f->ro.one[r].rb.held_events != 0;
    uint64_t low = sfc_release_low(fo->guard, sfc_lowmark_low(fo->lowmark), fo->next_by_src,
                                   (uint16_t)f->c->sources);
    if (sfc_release_due(&fo->rel, NS(f->now)) && !sim_fence_round(f, k, &low)) {
        uint8_t flags = sfc_release_flags(&fo->rel, NS(f->now), &at);
        fo->ann_at = at;
        for (uint32_t r = 0; r < f->c->readouts; r++) {
            unsigned n = sfc_release_make(&fo->rel, fo->guard, (uint16_t)r,
                                          (uint16_t)f->c->sources, low, flags, at, &h);
            uint64_t t0 = (uint64_t)h.seq << 32 | (n ? h.src[0].next_seq : 0);
            if (f->c->release_loss > 0 && sim_rng_uniform(&f->rng) < f->c->release_loss) {
                f->r->release_lost++;
                continue;
            }
            sim_push_x(f, f->now + f->ack_delay / 2 + f->ro.one[r].lag_ps, EV_RELEASE_RO, k,
                       h.epoch, h.low, t0, n | (uint32_t)flags << 16 | r << 24);
        }
    }
    if (!f->gen_done || f->in_flight || sim_sfc_held(f, k) || held)
        sim_push(f, fo->rel.next_ns * PS_PER_NS, EV_RELEASE, k, 0, gen, 0);
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
