/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_sfc.c - a simulated SFC: its switch port, the real sfc_evtab and sfc_credit, dispatch, throttle, dead nodes. */
#include "sim_farm_private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ebf_mix.h"
#include "ebf_proto.h"

/* The event table holds frames as opaque pointers; the model has no bytes,
 * so every piece is this one marker, and a freed frame costs nothing. */
static char piece_marker;

static void free_frame(void *frame, void *arg)
{
    (void)frame;
    (void)arg;
}

/* SFC k's event table and credit scheduler, empty, every node granted
 * its credits; 0 or -errno (err says which refused). */
static int builder(struct sim_farm *f, uint32_t k, char *err, size_t errlen)
{
    const struct sim_conf *c = f->c;
    struct sim_sfc *s = &f->sfc[k];
    struct sfc_evtab_conf tc = {
        .capacity = c->capacity,
        .max_frames = c->capacity * c->sources * f->n_pieces,
        .n_sources = (uint16_t)c->sources,
        /* The SFC daemon's 65,536 ids (sfc_dp_make.c) when failover is on
         * (a replayed id may be that old); without it ids come in order
         * and 4,096 keep the tables small (512 KiB an SFC less). */
        .done_window = c->failover ? 1u << 16 : 4096,
        .free_frame = free_frame,
        .lowmark = s->fo.lowmark,
    };

    s->tab = sfc_evtab_create(&tc);
    s->credit = sfc_credit_create((uint16_t)c->nodes_per_sfc, c->credits);
    if (!s->tab || !s->credit) {
        snprintf(err, errlen, "SFC %u: the %s refused its configuration: %s", k,
                 s->tab ? "credit scheduler" : "event table", strerror(errno));
        return -errno;
    }
    for (uint16_t n = 0; n < c->nodes_per_sfc; n++)
        sfc_credit_grant(s->credit, n, c->credits);
    if (sim_intake_init(f, k, tc.max_frames) != 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

int sim_sfc_init(struct sim_farm *f, uint32_t k, char *err, size_t errlen)
{
    const struct sim_conf *c = f->c;
    struct sim_sfc *s = &f->sfc[k];
    uint64_t bps = (uint64_t)(c->link_gbps * 1e9), lat = (uint64_t)(c->link_latency_us * PS_PER_US);
    int rc;

    if (c->failover && sim_fo_sfc_init(f, k) != 0)
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    if ((rc = builder(f, k, err, errlen)))
        return rc;
    if (sim_port_init(&s->port, bps, lat, (uint32_t)(c->switch_buffer_kb * 1024)) ||
        sim_port_init(&s->uplink, bps, lat, 0))
        return snprintf(err, errlen, "out of memory"), -ENOMEM;
    ebf_idset_init(&s->acked_ids);
    ebf_idset_init(&s->lost_ids);
    ebf_idset_init(&s->late_ids);
    ebf_idset_init(&s->ackdrop_ids);
    return 0;
}

void sim_sfc_fini(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];

    if (s->tab)
        sfc_evtab_destroy(s->tab);
    if (s->credit)
        sfc_credit_destroy(s->credit);
    sim_port_fini(&s->port);
    sim_port_fini(&s->uplink);
    sim_intake_fini(f, k);
    if (f->c->failover)
        sim_fo_sfc_fini(f, k);
}

uint32_t sim_sfc_held(const struct sim_farm *f, uint32_t k)
{
    struct sfc_evtab_counts n;

    sfc_evtab_counts(f->sfc[k].tab, &n);
    return n.building + n.ready + n.sent;
}

/* Event id lost under reason: the SFC's part of the ledger. */
static void lose(struct sim_sfc *s, enum sim_lost why, uint64_t id)
{
    s->lost[why]++;
    s->lost_digest += ebf_mix64(id);
    ebf_idset_add(&s->lost_ids, id);
}

/* Busy the SFC's lcore for cost ns from now (or from when it is free). */
static uint64_t cpu(struct sim_sfc *s, uint64_t now, double cost_ns)
{
    s->busy_ps += (uint64_t)(cost_ns * PS_PER_NS);
    s->cpu_busy = (s->cpu_busy > now ? s->cpu_busy : now) + (uint64_t)(cost_ns * PS_PER_NS);
    return s->cpu_busy;
}

/* --- Throttle ------------------------------------------------------------- */

static void throttle(struct sim_farm *f, uint32_t k)
{
    sim_intake_throttle(f, k);
}

/* --- Dispatch ------------------------------------------------------------- */

/* Event id of bytes goes from SFC k to its node n: the SFC's cost, its
 * link, the switch (a node's port is fed by its SFC alone at the same
 * rate: it holds at most a frame, and is not a buffer that can overflow),
 * the node's link. */
static void send_event(struct sim_farm *f, uint32_t k, uint16_t n, uint64_t id, uint32_t bytes)
{
    const struct sim_conf *c = f->c;
    struct sim_sfc *s = &f->sfc[k];
    uint32_t per = c->mtu - EBF_IPV4_HLEN - EBF_UDP_HLEN - EBF_EVENT_HLEN;
    uint32_t frames = bytes ? (bytes + per - 1) / per : 1;
    uint32_t hdr = EBF_EVENT_HLEN + EBF_UDP_HLEN + EBF_IPV4_HLEN + EBF_ETH_HLEN + WIRE_EXTRA;
    uint64_t start = cpu(s, f->now, c->sfc_event_ns), arr;

    sim_port_send(&s->uplink, start, bytes + frames * hdr, &arr);
    arr += sim_port_ser(&s->uplink, c->mtu + EBF_ETH_HLEN + WIRE_EXTRA) + s->uplink.latency_ps;
    sim_push(f, arr, EV_EVT_NODE, k * c->nodes_per_sfc + n, 0, id, 0);
}

/* Every ready event to a node with credit, oldest first, as the SFC's
 * dispatch (sfc/sfc_dp.c). */
static void dispatch(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    uint32_t slot;

    while ((slot = sfc_evtab_ready_peek(s->tab)) != SFC_NONE) {
        int n = sfc_credit_pick(s->credit);
        if (n < 0)
            break;
        const struct sfc_event *e = sfc_evtab_event(s->tab, slot);
        sfc_evtab_mark_sent(s->tab, slot, (uint16_t)n);
        sfc_credit_consume(s->credit, (uint16_t)n);
        send_event(f, k, (uint16_t)n, e->event_id, e->bytes);
    }
}

/* --- Intake --------------------------------------------------------------- */

void sim_sfc_frag_sw(struct sim_farm *f, const struct sim_ev *ev)
{
    uint32_t k = ev->obj & ~(3u << 30);
    struct sim_sfc *s = &f->sfc[k];
    uint32_t p = ev->aux >> 7, last = p + 1 == f->n_pieces;
    uint32_t len = last ? f->c->frag_bytes - p * f->max_piece : f->max_piece;
    uint64_t arr;

    if (s->dead) {
        f->r->dead_sfc_frames++;
        f->in_flight--;
        return;
    }
    uint32_t wire = len + EBF_FRAG_HLEN + EBF_UDP_HLEN + EBF_IPV4_HLEN + EBF_ETH_HLEN + WIRE_EXTRA;
    if (ev->obj >> 30 & 1)       /* a replay end: a release frame of one record */
        wire = EBF_ETH_HLEN + 40 + WIRE_EXTRA;
    int rc = sim_port_send(&s->port, f->now, wire, &arr);
    ebf_hist_add(&f->r->port_occ, rc == 0 ? s->port.occ - wire : s->port.occ);
    if (rc != 0) {
        f->r->switch_drops++;
        f->r->series.drops[sim_bin(f)]++;
        f->in_flight--;
        return;
    }
    uint64_t done = cpu(s, arr + sim_wake(f, s->cpu_busy, arr), f->c->sfc_frame_ns);
    sim_push_x(f, done, EV_FRAG_SFC, ev->obj, ev->aux, ev->arg, ev->t0, ev->x);
}

/* SFC k reads piece ev into its table. */
static void take(struct sim_farm *f, uint32_t k, const struct sim_ev *ev)
{
    uint32_t replayed = ev->obj >> 31;
    struct sim_sfc *s = &f->sfc[k];
    uint32_t p = ev->aux >> 7, slot;
    struct ebf_frag_hdr h = {
        .source = ev->aux & 0x7f,
        .event_id = ev->arg,
        .frag_len = f->c->frag_bytes,
        .offset = p * f->max_piece,
        .piece_len = (uint16_t)(p + 1 == f->n_pieces ? f->c->frag_bytes - p * f->max_piece
                                                     : f->max_piece),
        .tx_ns = ev->t0,         /* ps: the model's clock */
    };

    if (ev->obj >> 30 & 1) {     /* a replay end (sim_fo_end.c) */
        sim_fo_end_taken(f, k, ev);
        return;
    }
    if (f->c->failover)
        sim_fo_frag(f, k, h.source, ev->arg, ev->x);
    if (f->c->failover && s->fo.restarted_at && ev->arg < s->fo.join_id && !replayed) {
        f->r->prejoin_pieces++;  /* sent to its old incarnation: replayed elsewhere */
        return;
    }
    enum sfc_add_result rc = sfc_evtab_add(s->tab, &h, &piece_marker, 0, f->now, &slot);
    if (f->c->failover)
        sim_fo_piece(f, k, h.source, (int)replayed, rc, slot);
    if (rc == SFC_ADD_COMPLETE)
        dispatch(f, k);
    else if (rc == SFC_ADD_TABLE_FULL)
        lose(s, SIM_LOST_TABLE_FULL, ev->arg);
    else if (rc == SFC_ADD_STALE)    /* older than the done window: refused */
        f->r->stale_pieces++;
    throttle(f, k);
}

/* SFC k reads what waits in its ring while its intake allows. */
static void intake(struct sim_farm *f, uint32_t k)
{
    struct sim_ev ev;

    while (sim_intake_next(f, k, &ev)) {
        f->in_flight--;
        take(f, k, &ev);
    }
}

/* A piece reaches SFC k's port: read now, or left in its receive ring
 * behind those waiting there while its intake pauses (sim_intake.c). */
void sim_sfc_frag(struct sim_farm *f, const struct sim_ev *ev)
{
    uint32_t k = ev->obj & ~(3u << 30);
    struct sim_sfc *s = &f->sfc[k];

    if (s->dead) {
        f->in_flight--;
        f->r->dead_sfc_frames++;
        return;
    }
    if (s->rxq_n || !sim_intake_allowed(f, k)) {
        sim_intake_hold(f, k, ev);
        return;
    }
    f->in_flight--;
    take(f, k, ev);
}

/* --- Acks, timeouts, dead nodes ------------------------------------------- */

/* A node declared dead is heard again (its stall is over, same epoch):
 * alive again, as sfc_nodes_heard's "revived" (sfc/sfc_nodes.c), with its credits granted
 * afresh (the events it held went elsewhere; its acks of them are late). */
static void revive(struct sim_farm *f, uint32_t k, uint32_t node)
{
    f->node[node].declared = 0;
    f->r->l.revived++;
    sfc_credit_grant(f->sfc[k].credit, (uint16_t)(node % f->c->nodes_per_sfc), f->c->credits);
}

void sim_sfc_ack(struct sim_farm *f, const struct sim_ev *ev)
{
    uint32_t k = ev->obj / f->c->nodes_per_sfc;
    uint16_t n = (uint16_t)(ev->obj % f->c->nodes_per_sfc);
    struct sim_sfc *s = &f->sfc[k];

    if (s->dead)
        return;
    cpu(s, f->now, f->c->sfc_frame_ns);
    if (f->node[ev->obj].declared)
        revive(f, k, ev->obj);
    uint32_t slot = sfc_evtab_find_sent(s->tab, ev->arg, n);
    if (slot == SFC_NONE) {      /* its node was declared dead: redispatched */
        s->late++;
        ebf_idset_add(&s->late_ids, ev->arg);

        return;
    }
    const struct sfc_event *e = sfc_evtab_event(s->tab, slot);
    uint64_t t0 = sfc_evtab_cold(s->tab, slot)->first_tx_ns;
    ebf_hist_add(&f->r->latency_ns, (f->now - t0) / PS_PER_NS);
    ebf_hist_add(&f->r->series.latency_ns[sim_bin(f)], (f->now - t0) / PS_PER_NS);
    f->r->series.decided[sim_bin(f)]++;
    if (ev->aux)
        s->accepted++;
    else
        s->rejected++;
    s->incomplete += e->incomplete;
    s->acked_digest += ebf_mix64(ev->arg);
    ebf_idset_add(&s->acked_ids, ev->arg);
    if (f->c->failover && s->fo.join_id && ev->arg >= s->fo.join_id)
        f->r->joined_decided++;
    if (f->c->failover && s->fo.replayed[slot]) {
        s->fo.replayed[slot] = 0;
        s->fo.replay_acked++;
        f->r->recovered_s = (double)f->now / PS_PER_S;
    }
    if (f->c->failover)
        sim_fence_ack(f, k, slot, ev->arg, ev->aux);
    sfc_evtab_release(s->tab, slot);
    sfc_credit_ack(s->credit, n);
    sfc_credit_grant(s->credit, n, 1);
    dispatch(f, k);
    intake(f, k);
    throttle(f, k);
}

/* An ack (credit frame of one ack) reaches the switch port toward its
 * SFC: it queues behind the fragments there and drops when the buffer is
 * full; a dropped ack leaves its event unacked and its credit gone, as
 * in the farm (the node does not send it again). */
void sim_sfc_ack_sw(struct sim_farm *f, const struct sim_ev *ev)
{
    struct sim_sfc *s = &f->sfc[ev->obj / f->c->nodes_per_sfc];
    uint32_t len = EBF_CREDIT_HLEN + EBF_ACK_LEN + EBF_UDP_HLEN + EBF_IPV4_HLEN + EBF_ETH_HLEN +
                   WIRE_EXTRA;
    uint64_t arr;

    if (s->dead)
        return;
    if (sim_port_send(&s->port, f->now, len, &arr) != 0) {
        f->r->ack_drops++;
        ebf_idset_add(&s->ackdrop_ids, ev->arg);
        return;
    }
    sim_push(f, arr, EV_ACK_SFC, ev->obj, ev->aux, ev->arg, 0);
}

/* Drained: the triggers stopped, no fragment on its way, nothing held,
 * every node of the SFC idle and its last ack home. */
static int drained(const struct sim_farm *f, uint32_t k)
{
    uint32_t n0 = k * f->c->nodes_per_sfc;

    if (!f->gen_done || f->in_flight || sim_sfc_held(f, k))
        return 0;
    for (uint32_t n = n0; n < n0 + f->c->nodes_per_sfc; n++)
        if (!f->node[n].dead && f->node[n].busy_until + f->ack_delay >= f->now)
            return 0;
    return 1;
}

void sim_sfc_tick(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    uint64_t dropped = 0;

    if (s->dead)
        return;
    if (f->c->failover)          /* the grace and the replay ends' verdict */
        f->r->timed_out += sim_fo_expire(f, k, &dropped);
    else
        f->r->timed_out += sfc_evtab_expire(s->tab, f->now, f->timeout, UINT32_MAX, &dropped);
    dispatch(f, k);
    intake(f, k);
    throttle(f, k);
    if (!drained(f, k))
        sim_push(f, f->now + f->tick, EV_SFC_TICK, k, 0, 0, 0);
}

/* A node silent (dead, or stalled) since a fault, node_timeout_ms ago: as
 * sfc_nodes_check and sfc_nodes_take_back (sfc/sfc_nodes.c), no credit,
 * and every event it holds back to the head of the ready queue. A stall
 * that is over by now changes nothing. */
static void declare(struct sim_farm *f, uint32_t node);

void sim_sfc_node_check(struct sim_farm *f, uint32_t node)
{
    struct sim_node *x = &f->node[node];
    struct sim_sfc *s = &f->sfc[node / f->c->nodes_per_sfc];

    if (s->dead || x->declared || !(x->dead || f->now < x->stall_until))
        return;
    declare(f, node);
}

/* A restarted node's first frame (a newer epoch): as sfc_nodes_heard's
 * rejoin (sfc/sfc_nodes.c), the old incarnation is declared dead first if
 * it was not (its events to other nodes), then the node is alive with the
 * new frame's credits. */
void sim_sfc_node_hello(struct sim_farm *f, uint32_t node)
{
    struct sim_sfc *s = &f->sfc[node / f->c->nodes_per_sfc];

    if (s->dead)
        return;
    if (!f->node[node].declared)
        declare(f, node);
    f->node[node].declared = 0;
    f->r->l.rejoins++;
    sfc_credit_grant(s->credit, (uint16_t)(node % f->c->nodes_per_sfc), f->c->credits);
    dispatch(f, node / f->c->nodes_per_sfc);
}

/* The node is declared dead: no credit, and every event it holds back to
 * the head of the ready queue, then out to the others. */
static void declare(struct sim_farm *f, uint32_t node)
{
    struct sim_node *x = &f->node[node];
    uint32_t k = node / f->c->nodes_per_sfc, cnt = 0;
    uint16_t n = (uint16_t)(node % f->c->nodes_per_sfc);
    struct sim_sfc *s = &f->sfc[k];

    x->declared = 1;
    f->r->l.nodes_dead++;
    sfc_credit_revoke(s->credit, n);
    for (uint32_t slot = 0; slot < f->c->capacity; slot++) {
        const struct sfc_event *e = sfc_evtab_event(s->tab, slot);
        if (e->state == SFC_EV_SENT && e->node == n) {
            sim_node_taken(f, node, e->event_id);
            sfc_evtab_requeue(s->tab, slot);
            cnt++;
        }
    }
    f->r->l.redispatched += cnt;
    dispatch(f, k);
}

/* SFC k starts again (sfc_restart), as `ebfarm restart` does it: a new
 * process, so an empty table, fresh credits, a new epoch of release
 * frames announcing a join (sim_fo_sfc_restart); its old incarnation is
 * gone (sim_ledger_retire). The readouts route around it (a new epoch
 * while routed to is a death, 13.4) and take it back from the join id. */
void sim_sfc_restart(struct sim_farm *f, uint32_t k)
{
    struct sim_sfc *s = &f->sfc[k];
    char err[128];

    if (!s->dead)
        return;
    sfc_evtab_destroy(s->tab);
    sfc_credit_destroy(s->credit);
    s->tab = NULL;
    s->credit = NULL;
    sim_fo_sfc_restart(f, k);
    if (builder(f, k, err, sizeof(err)) != 0) {
        f->err = -ENOMEM;
        return;
    }
    for (uint32_t n = k * f->c->nodes_per_sfc; n < (k + 1) * f->c->nodes_per_sfc; n++)
        f->node[n].declared = 0;
    s->dead = 0;
    s->cpu_busy = f->now;
    f->r->sfc_restarts++;
    sim_push(f, f->now + f->tick, EV_SFC_TICK, k, 0, 0, 0);
}

void sim_sfc_die(struct sim_farm *f, uint32_t k)
{
    sim_intake_flush(f, k);
    f->sfc[k].dead = 1;
    f->sfc[k].died_at = f->now;
}

/* What a live SFC holds at the end is lost under its state's reason, as
 * the SFC's drop_leftovers (sfc/sfc_dp_drain.c). */
void sim_sfc_leftovers(struct sim_farm *f, uint32_t k)
{
    static const enum sim_lost by_state[] = {
        [SFC_EV_BUILDING] = SIM_LOST_BUILDING,
        [SFC_EV_READY] = SIM_LOST_NO_NODE,
        [SFC_EV_SENT] = SIM_LOST_UNACKED,
    };
    struct sim_sfc *s = &f->sfc[k];

    f->r->port_peak_sum += s->port.peak_occ;
    if (f->now && (double)s->busy_ps / (double)f->now > f->r->sfc_busy_max)
        f->r->sfc_busy_max = (double)s->busy_ps / (double)f->now;
    if (s->port.peak_occ > f->r->port_peak)
        f->r->port_peak = s->port.peak_occ;
    if (s->dead)
        return;
    for (uint32_t slot = 0; slot < f->c->capacity; slot++) {
        const struct sfc_event *e = sfc_evtab_event(s->tab, slot);
        if (e->state != SFC_EV_FREE)
            lose(s, by_state[e->state], e->event_id);
    }
}
