/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_farm.c - the simulated farm's run: setup, the event loop, triggers, readouts, throttle, faults. */
#include "sim_farm_private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebf_mix.h"
#include "ebf_proto.h"
#include "ebf_route.h"

void sim_push_x(struct sim_farm *f, uint64_t t, enum sim_kind k, uint32_t obj, uint16_t aux,
                uint64_t arg, uint64_t t0, uint32_t x)
{
    struct sim_ev ev = {.t = t, .arg = arg, .t0 = t0, .obj = obj, .kind = (uint16_t)k,
                        .aux = aux, .x = x};

    if (sim_evq_push(&f->q, ev) != 0 && !f->err)
        f->err = -ENOMEM;
}

void sim_push(struct sim_farm *f, uint64_t t, enum sim_kind k, uint32_t obj, uint16_t aux,
              uint64_t arg, uint64_t t0)
{
    sim_push_x(f, t, k, obj, aux, arg, t0, 0);
}

/* --- Triggers and readouts ------------------------------------------------ */

/* Source s's fragment of event e (triggered at t0) toward SFC k, from
 * now (sim_emit_to: every source's): source s starts s / sources of
 * ro_spread_us later (pacing),
 * each frame pays the readout's cost, then its link; a link that is down
 * loses it. The SFC's switch port takes it in EV_FRAG_SW. With ro_skew_us,
 * readout r of R (the sources shared out in order) sends r / (R - 1) of it
 * later than readout 0, and stamps its frames when they go (readout/ro_gen.c's
 * tx_ns), so an event's latency counts from readout 0's send.
 * With failover, the first source of each readout carries its frames'
 * sequence number toward k, and a replay's frames are marked (bit 31 of
 * obj; bit 30 marks a replay end, sim_fo_end.c). */
static void emit_src(struct sim_farm *f, uint32_t s, uint64_t e, uint32_t k, uint64_t now,
                     uint64_t t0, int replay)
{
    const struct sim_conf *c = f->c;
    struct sim_source *src = &f->src[s];
    uint32_t obj = k | (uint32_t)replay << 31, ro = sim_ro_of(f, s);
    uint64_t late = c->readouts > 1 ? (uint64_t)(c->ro_skew_us * PS_PER_US * ro /
                                                 (c->readouts - 1)) : 0;
    uint64_t at = now + late + (uint64_t)(c->ro_spread_us * PS_PER_US * s / c->sources);
    int first = c->failover && s == f->ro.one[ro].src0;

    for (uint32_t p = 0; p < f->n_pieces; p++) {
        uint32_t len = p + 1 < f->n_pieces ? f->max_piece : c->frag_bytes - p * f->max_piece;
        uint32_t wire = len + EBF_FRAG_HLEN + EBF_UDP_HLEN + EBF_IPV4_HLEN + EBF_ETH_HLEN +
                        WIRE_EXTRA;
        uint64_t t = (src->cpu_busy > at ? src->cpu_busy : at) +
                     (uint64_t)(c->ro_frame_ns * PS_PER_NS), arr;
        uint32_t seq = first ? f->ro.one[ro].seq0[k]++ : 0;
        src->cpu_busy = t;
        f->r->frames++;
        if (t >= src->down_from && t < src->down_until) {
            f->r->link_lost++;
            continue;
        }
        sim_port_send(&src->link, t, wire, &arr);
        sim_push_x(f, arr, EV_FRAG_SW, obj, (uint16_t)(s | p << 7), e, t0 + late, seq);
        f->in_flight++;
    }
}

void sim_emit_to(struct sim_farm *f, uint64_t e, uint32_t k, uint64_t now, uint64_t t0,
                 int replay)
{
    for (uint32_t s = 0; s < f->c->sources; s++)
        emit_src(f, s, e, k, now, t0, replay);
}

void sim_emit_ro(struct sim_farm *f, uint32_t ro, uint64_t e, uint32_t k, uint64_t now,
                 uint64_t t0, int replay)
{
    const struct sim_ro_one *o = &f->ro.one[ro];

    for (uint32_t s = o->src0; s < (uint32_t)o->src0 + o->n_src; s++)
        emit_src(f, s, e, k, now, t0, replay);
}

/* Event e, triggered now, to its SFC: e % sfcs (as readout/ro_gen.c), or
 * with failover each readout's sources to its own route over the SFCs it
 * holds live, recorded in its replay buffer (an event readout 0 has no
 * place for is lost, counted once: with every SFC dead the readouts agree
 * but for their lags). */
static void emit(struct sim_farm *f, uint64_t e, uint64_t now)
{
    const struct sim_conf *c = f->c;

    if (!c->failover) {
        uint32_t k = (uint32_t)(e % c->sfcs);
        if (f->sfc[k].given_up)
            f->r->sfc_gone_frames += (uint64_t)c->sources * f->n_pieces;
        else
            sim_emit_to(f, e, k, now, now, 0);
        return;
    }
    for (uint32_t ro = 0; ro < c->readouts; ro++) {
        uint32_t k = sim_fo_route(f, ro, e);
        if (k == EBF_ROUTE_NONE) {   /* lost once, by readout 0's count */
            if (ro == 0)
                sim_fo_lost(f, e);
            continue;
        }
        sim_emit_ro(f, ro, e, k, now, now, 0);
        sim_fo_sent(f, ro, e, k, now);
    }
}

/* A trigger at now: unless the readouts are held (then it waits for the
 * release, the schedule moved on by the time held), event next_id goes out
 * and the next trigger is scheduled. */
static void trigger(struct sim_farm *f, uint64_t now)
{
    if (now >= f->end_gen) {
        f->gen_done = 1;
        return;
    }
    if (f->n_throttling || (f->c->failover && !sim_fo_room(f))) {
        f->gen_waiting = 1;
        return;
    }
    uint64_t e = f->next_id++;
    f->gen_digest += ebf_mix64(e);
    f->r->series.generated[sim_bin(f)]++;
    emit(f, e, now);
    uint64_t gap = f->c->poisson ? (uint64_t)sim_rng_exp(&f->rng, (double)f->period) : f->period;
    sim_push(f, now + (gap ? gap : 1), EV_GEN, 0, 0, 0, 0);
}

/* The readouts hear SFC k's throttle frame (on or off). */
static void throttle_heard(struct sim_farm *f, uint32_t k, int on)
{
    struct sim_sfc *s = &f->sfc[k];

    if (on == s->heard_on)
        return;
    s->heard_on = on;
    if (on && f->n_throttling++ == 0)
        f->held_since = f->now;
    if (!on && --f->n_throttling == 0) {
        f->r->held_s += (double)(f->now - f->held_since) / PS_PER_S;
        sim_trigger_resume(f);
    }
}

void sim_trigger_resume(struct sim_farm *f)
{
    if (f->gen_waiting && !f->n_throttling && !(f->c->failover && f->ro.full)) {
        f->gen_waiting = 0;
        sim_push(f, f->now, EV_GEN, 0, 0, 0, 0);
    }
}

/* --- Faults --------------------------------------------------------------- */

static void fault(struct sim_farm *f, const struct sim_fault *x)
{
    uint64_t len = (uint64_t)(x->for_s * PS_PER_S);
    uint64_t check = f->now + (uint64_t)(f->c->node_timeout_ms * PS_PER_MS);

    switch (x->kind) {
    case SIM_FAULT_NODE_DEATH:
        f->node[x->target].dead = 1;
        sim_push(f, check, EV_NODE_CHECK, x->target, 0, 0, 0);
        break;
    case SIM_FAULT_NODE_STALL:
        sim_node_stall(f, x->target, f->now, len);
        sim_push(f, check, EV_NODE_CHECK, x->target, 0, 0, 0);
        break;
    case SIM_FAULT_SFC_DEATH:
        sim_sfc_die(f, x->target);
        if (f->sfc[x->target].heard_on)   /* its hold expires at the readouts */
            sim_push(f, f->now + EBF_THROTTLE_HOLD_NS * PS_PER_NS, EV_THROTTLE, x->target, 0,
                     0, 0);
        if (f->c->failover) {             /* the readouts find out by its silence */
            if (f->r->died_s < 0)
                f->r->died_s = (double)f->now / PS_PER_S;
            break;
        }
        sim_push(f, f->now + (uint64_t)(f->c->sfc_timeout_ms * PS_PER_MS), EV_SFC_GIVEN_UP,
                 x->target, 0, 0, 0);
        break;
    case SIM_FAULT_SFC_RESTART:
        sim_sfc_die(f, x->target);
        if (f->r->died_s < 0)
            f->r->died_s = (double)f->now / PS_PER_S;
        sim_push(f, f->now + len, EV_SFC_RESTART, x->target, 0, 0, 0);
        break;
    case SIM_FAULT_NODE_RESTART:
        sim_node_restart(f, x->target);
        break;
    case SIM_FAULT_SFC_DRAIN:
    case SIM_FAULT_SFC_UNDRAIN:
        sim_fo_drain(f, x->target, x->kind == SIM_FAULT_SFC_DRAIN);
        break;
    case SIM_FAULT_SFC_MUTE:
        f->sfc[x->target].fo.fence.mute_until = f->now + len;
        break;
    case SIM_FAULT_LINK_LOSS:
        f->src[x->target].down_from = f->now;
        f->src[x->target].down_until = f->now + len;
        break;
    }
}

/* --- Setup and the loop --------------------------------------------------- */

static int farm_init(struct sim_farm *f, const struct sim_conf *c, struct sim_result *r,
                     char *err, size_t errlen)
{
    uint32_t n_nodes = c->sfcs * c->nodes_per_sfc;
    uint64_t bps = (uint64_t)(c->link_gbps * 1e9), lat = (uint64_t)(c->link_latency_us * PS_PER_US);

    memset(f, 0, sizeof(*f));
    memset(r, 0, sizeof(*r));
    ebf_hist_init(&r->latency_ns);
    ebf_hist_init(&r->port_occ);
    for (unsigned b = 0; b < SIM_BINS; b++)
        ebf_hist_init(&r->series.latency_ns[b]);
    f->c = c;
    f->r = r;
    sim_rng_seed(&f->rng, c->seed);
    f->period = (uint64_t)(PS_PER_S / c->rate_hz);
    f->end_gen = (uint64_t)(c->duration_s * PS_PER_S);
    f->bin_ps = f->end_gen / 100 ? f->end_gen / 100 : 1;
    r->series.bin_s = (double)f->bin_ps / PS_PER_S;
    f->max_piece = c->mtu - EBF_IPV4_HLEN - EBF_UDP_HLEN - EBF_FRAG_HLEN;
    f->n_pieces = (c->frag_bytes + f->max_piece - 1) / f->max_piece;
    f->timeout = (uint64_t)(c->timeout_ms * PS_PER_MS);
    /* The SFC looks at its timeouts every millisecond (an eighth of a
     * shorter timeout): an event times out at most that late. */
    f->tick = f->timeout / 8 < PS_PER_MS ? f->timeout / 8 : PS_PER_MS;
    f->tick = f->tick > PS_PER_US ? f->tick : PS_PER_US;
    sim_idle_init(&f->idle, c->idle_sleep_us, c->idle_extra_us, c->idle_spin_us);
    f->ack_delay = 2 * lat + (EBF_CREDIT_HLEN + 64) * 8000000000000ull / bps;
    f->sfc = calloc(c->sfcs, sizeof(*f->sfc));
    f->node = calloc(n_nodes, sizeof(*f->node));
    f->src = calloc(c->sources, sizeof(*f->src));
    if (!f->sfc || !f->node || !f->src || sim_evq_init(&f->q, 4096) != 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (uint32_t s = 0; s < c->sources; s++)
        sim_port_init(&f->src[s].link, bps, lat, 0);
    for (uint32_t n = 0; n < n_nodes; n++) {
        ebf_idset_init(&f->node[n].ack_ids);
        ebf_idset_init(&f->node[n].dup_ids);
    }
    if (c->failover) {
        int rc = sim_fo_init(f, err, errlen);
        if (rc)
            return rc;
    }
    for (uint32_t k = 0; k < c->sfcs; k++) {
        int rc = sim_sfc_init(f, k, err, errlen);
        if (rc)
            return rc;
        sim_push(f, f->tick, EV_SFC_TICK, k, 0, 0, 0);
    }
    for (unsigned i = 0; i < c->n_faults; i++)
        sim_push(f, (uint64_t)(c->fault[i].at_s * PS_PER_S), EV_FAULT, i, 0, 0, 0);
    sim_push(f, 0, EV_GEN, 0, 0, 0, 0);
    sim_push(f, f->end_gen + (uint64_t)(c->drain_s * PS_PER_S), EV_END, 0, 0, 0, 0);
    return f->err;
}

static void farm_fini(struct sim_farm *f)
{
    for (uint32_t k = 0; f->sfc && k < f->c->sfcs; k++)
        sim_sfc_fini(f, k);
    if (f->c->failover)
        sim_fo_fini(f);
    for (uint32_t n = 0; f->node && n < f->c->sfcs * f->c->nodes_per_sfc; n++)
        free(f->node[n].late), free(f->node[n].taken);
    free(f->sfc);
    free(f->node);
    free(f->src);
    sim_evq_fini(&f->q);
}

/* One event to its handler. */
static void handle(struct sim_farm *f, const struct sim_ev *ev)
{
    switch ((enum sim_kind)ev->kind) {
    case EV_GEN: trigger(f, ev->t); break;
    case EV_FRAG_SW: sim_sfc_frag_sw(f, ev); break;
    case EV_FRAG_SFC: sim_sfc_frag(f, ev); break;
    case EV_EVT_NODE: sim_node_event(f, ev); break;
    case EV_NODE_DONE: sim_node_done(f, ev); break;
    case EV_NODE_HELLO: sim_sfc_node_hello(f, ev->obj); break;
    case EV_ACK_SFC: sim_sfc_ack(f, ev); break;
    case EV_ACK_SW: sim_sfc_ack_sw(f, ev); break;
    case EV_SFC_TICK: sim_sfc_tick(f, ev->obj); break;
    case EV_NODE_CHECK: sim_sfc_node_check(f, ev->obj); break;
    case EV_THROTTLE: throttle_heard(f, ev->obj, ev->aux); break;
    case EV_FAULT: fault(f, &f->c->fault[ev->obj]); break;
    case EV_SFC_GIVEN_UP: f->sfc[ev->obj].given_up = 1; break;
    case EV_RELEASE: sim_fo_release(f, ev->obj, (uint32_t)ev->arg); break;
    case EV_NOTICE: sim_fence_notice(f, ev); break;
    case EV_RELEASE_RO: sim_fo_release_heard(f, ev); break;
    case EV_RO_POLL: sim_fo_poll(f); break;
    case EV_REPLAY: sim_fo_replay_due(f, ev); break;
    case EV_SFC_RESTART: sim_sfc_restart(f, ev->obj); break;
    case EV_END: break;
    }
}

static double wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Pop and handle until the drain deadline, an empty queue, or a drained
 * farm (f->gen_done and nothing held: the SFC ticks stop then). */
static void loop(struct sim_farm *f, sim_progress_fn progress, void *arg, double t0)
{
    double total = f->c->duration_s + f->c->drain_s, next = t0 + 3.0;   /* long runs only */
    struct sim_ev ev;

    while (!f->err && sim_evq_pop(&f->q, &ev)) {
        if (ev.kind == EV_END && f->q.n == 0)
            break;               /* drained before the deadline: the run ends there */
        f->now = ev.t;
        if (ev.kind == EV_END)
            break;
        handle(f, &ev);
        if ((f->q.popped & 0xffff) == 0 && progress) {
            double w = wall_now();
            if (w >= next) {
                progress((double)f->now / PS_PER_S, total, arg);
                next = w + 1.0;
            }
        }
    }
}

int sim_run(const struct sim_conf *c, struct sim_result *r, sim_progress_fn progress,
            void *progress_arg, char *err, size_t errlen)
{
    struct sim_farm farm, *f = &farm;
    double t0 = wall_now();
    int rc = farm_init(f, c, r, err, errlen);

    if (rc == 0) {
        loop(f, progress, progress_arg, t0);
        if ((rc = f->err))
            snprintf(err, errlen, "out of memory (event queue of %ju events)",
                     (uintmax_t)f->q.n);
    }
    if (rc == 0) {
        for (uint32_t k = 0; k < c->sfcs; k++)
            sim_sfc_leftovers(f, k);
        sim_ledger_close(f);
        if ((rc = f->err))
            snprintf(err, errlen, "out of memory (the ledger's parts)");
        r->farm_s = (double)f->now / PS_PER_S;
        r->series.n = sim_bin(f) + 1;
        r->sim_events = f->q.popped;
        r->queue_peak = f->q.peak;
        if (f->n_throttling)
            r->held_s += (double)(f->now - f->held_since) / PS_PER_S;
    }
    farm_fini(f);
    r->wall_s = wall_now() - t0;
    return rc;
}
