/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_gen.c - the readout emulator's loop: events generated in order, paced, held by throttle, the run begun and finished. */
#include "ro_gen.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "ebf_mix.h"
#include "ebf_util.h"
#include "ro_fo_tx.h"
#include "ro_frame.h"
#include "ro_link.h"
#include "ro_log.h"
#include "ro_start.h"

RTE_LOG_REGISTER_DEFAULT(ro_logtype, INFO);

/* The SFC of event e: no 64-bit division per event with one SFC. */
static inline uint16_t event_sfc(const struct ro_conf *c, uint64_t e)
{
    return c->n_sfcs == 1 ? 0 : (uint16_t)(e % c->n_sfcs);
}

/* The place of event e: over the live set with failover on (joins and
 * leaves due at e applied), else e % n; EBF_ROUTE_NONE when every place
 * is dead. */
static inline uint32_t event_place(struct ro_gen *g, uint64_t e)
{
    return g->fo ? ro_failover_place(&g->fo->view, e) : event_sfc(g->c, e);
}

int ro_begin(struct ro_gen *g, const struct ro_conf *c, struct ro_stats *st)
{
    uint64_t hz = rte_get_tsc_hz();

    memset(g, 0, sizeof(*g));
    memset(st, 0, sizeof(*st));
    if (c->burst == 0 || c->burst > RO_BURST_MAX || c->n_sfcs == 0 || c->n_sfcs > RO_MAX_SFCS ||
        (c->n_sfc_ports && c->n_sfc_ports != c->n_sfcs) || c->n_sources == 0 ||
        (unsigned)c->source_base + c->n_sources > EBF_MAX_SOURCES) {
        g->done = 1;
        return -EINVAL;
    }
    if (c->payload == RO_PAYLOAD_PREBUILT &&
        ro_payload_build(&g->pay, c->source_base, c->n_sources, c->size_max, ro_max_piece(c))) {
        g->done = 1;
        return -ENOMEM;
    }
    /* Frames keep their prebuilt bytes between uses when the pool has room
     * for a tag and nothing else writes into them: no fault stage (a
     * corrupt fault writes payloads, a duplicate copies into another mbuf). */
    g->tag_pool = rte_pktmbuf_priv_size(c->pool) >= RO_TAG_PRIV_SIZE;
    g->tags = g->tag_pool && c->payload == RO_PAYLOAD_PREBUILT && !c->fault;
    ro_link_map(g, c);
    g->max_piece = ro_max_piece(c);
    g->hlen = ebf_encap_hlen(c->encap);
    ro_frame_fast_setup(g, c);
    for (uint16_t k = 0; k < c->n_sfcs; k++) {
        struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
        memcpy(a.src_mac, c->src_mac, 6);
        memcpy(a.dst_mac, c->sfc_mac[k], 6);
        ebf_encap_write(g->eth_hdr[k], &a, 0);
    }
    g->sfc_timeout_tsc = (uint64_t)(c->sfc_timeout_ms * 1e-3 * (double)hz);
    g->c = c;
    g->st = st;
    g->next_event = c->first_event;
    g->stop_at = UINT64_MAX;
    st->next_event = c->first_event;
    /* A readout rejoining a run numbers its frames from half the sequence
     * space away: its SFCs take the jump as a sender that restarted
     * (seq.resync, then re-based), not as duplicates of its past frames. */
    if (c->first_event)
        for (uint16_t k = 0; k < RO_MAX_SFCS; k++)
            for (uint16_t s = 0; s < EBF_MAX_SOURCES; s++)
                g->seq[k][s] = RO_REJOIN_SEQ;
    g->idle = c->idle;
    uint64_t now_ns = ebf_now_ns();
    g->t0 = ro_start_tsc(c->start_at_ns, now_ns, rte_get_tsc_cycles(), hz, &st->start_late_ns);
    g->before_start = c->start_at_ns > now_ns;
    g->end = c->duration_s > 0 ? g->t0 + (uint64_t)(c->duration_s * (double)hz) : UINT64_MAX;
    g->tsc_per_event = c->rate > 0 ? (double)hz / c->rate : 0;
    ro_throttle_view_init(&g->tv);
    ro_throttle_view_trust(&g->tv, (const uint8_t (*)[6])c->sfc_mac, c->n_sfcs);
    if (c->replay_mb) {
        g->fo = ro_fo_create((const uint8_t (*)[6])c->sfc_mac, c->n_sfcs, c->source_base,
                             c->n_sources, c->replay_mb, c->n_sources * c->size_min,
                             c->n_sources * c->size_max,
                             c->sfc_dead_ms ? (uint64_t)c->sfc_dead_ms * 1000000ull
                                            : EBF_RELEASE_DEAD_NS);
        if (!g->fo) {
            ro_payload_free(&g->pay);
            g->done = 1;
            return errno == ENOMEM ? -ENOMEM : -EINVAL;
        }
    }
    for (uint16_t k = 0; k < RO_MAX_SFCS; k++)
        st->fo_dead_from[k] = UINT64_MAX;
    st->start_ns = c->start_at_ns > now_ns ? c->start_at_ns : now_ns;
    return 0;
}

/* Frames of earlier events still queued (unpaced, they wait to fill a
 * burst) go out before the generator waits or ends; a forced stop frees
 * what the port did not take (tx_abandoned). */
static void flush_waiting(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    if (g->q.n && ro_link_flush(g, force) == -EINTR)
        g->forced = 1;
}

/* The frames of event e: every source's fragment in pieces of at most
 * ro_max_piece, as ro_frame_emit builds them. */
static uint64_t event_frames(const struct ro_conf *c, uint64_t e)
{
    uint32_t max = ro_max_piece(c);
    uint64_t n = 0;

    for (uint16_t s = 0; s < c->n_sources; s++) {
        uint32_t len = ro_frag_size(c, (uint16_t)(c->source_base + s), e);
        n += (len + max - 1) / max;
    }
    return n;
}

/* The payload bytes of event e: its fragments' sizes. */
static uint32_t event_bytes(const struct ro_conf *c, uint64_t e)
{
    uint32_t n = 0;

    for (uint16_t s = 0; s < c->n_sources; s++)
        n += ro_frag_size(c, (uint16_t)(c->source_base + s), e);
    return n;
}

/* The TSC at which event e is due, 0 when unpaced. */
static uint64_t due_tsc(const struct ro_gen *g, uint64_t e)
{
    return g->tsc_per_event > 0
               ? g->t0 + (uint64_t)((double)(e - g->c->first_event) * g->tsc_per_event)
               : 0;
}

/* Generate event e at now_ns: every source's fragment queued (or counted
 * as not sent when its SFC is gone), the queue flushed unless it waits for
 * a full burst, the event counted. 0, or 1 when it was cut short (no
 * mbufs, a frame without room, a forced stop): the run is then finished. */
static int gen_event(struct ro_gen *g, const volatile sig_atomic_t *force, uint64_t e,
                     uint64_t now_ns)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    uint32_t place = event_place(g, e);
    int gone = place >= c->n_sfcs || st->sfc_gone[place];
    uint16_t sfc = gone ? 0 : (uint16_t)place;
    int rc = 0;

    st->next_event = e + 1;     /* begun: a stop_at below it is refused */
    if (gone)
        st->sfc_gone_frames += event_frames(c, e);     /* generated, not sent */
    else
        for (uint16_t s = 0; s < c->n_sources && rc == 0; s++)
            rc = g->fast.len ? ro_frame_emit_fast(g, force, s, e, sfc, now_ns)
                             : ro_frame_emit(g, force, s, e, sfc, now_ns);
    if (g->fo && rc == 0 && !gone)
        ro_fo_sent(g->fo, e, sfc, event_bytes(c, e), g->seq[sfc]);
    /* Full bursts: unpaced and with one SFC, the frames wait for the next
     * event's unless they could not all fit with it (at least a frame per
     * source). With several SFCs the queue holds one SFC's frames (q_sfc):
     * each event's go at once, as the next one goes elsewhere. */
    if (rc == 0 && g->q.n &&
        (g->tsc_per_event > 0 || c->n_sfcs > 1 || g->q.n + c->n_sources > c->burst))
        rc = ro_link_flush(g, force);
    g->next_event = e + 1;
    if (rc) {
        st->events_abandoned++;     /* generated, maybe partly sent */
        st->id_digest += ebf_mix64(e);
        if (rc == -EINTR)
            RO_LOG(NOTICE, "event %" PRIu64 " cut short by a forced stop\n", e);
        else if (rc == -EMSGSIZE)
            RO_LOG(ERR, "event %" PRIu64 " cut short: a frame of --mtu %u does not fit an "
                   "mbuf of the pool\n", e, c->mtu);
        else
            RO_LOG(ERR, "event %" PRIu64 " cut short: no mbufs\n", e);
        g->rc = rc == -EINTR ? 0 : rc;
        g->forced = rc == -EINTR;       /* held frames are then discarded, counted */
        ro_finish(g);
        return 1;
    }
    if (st->events == 0)
        st->first_event = e;
    st->last_event = e;
    st->events++;
    st->id_digest += ebf_mix64(e);
    return 0;
}

/* Whether ro_next goes on with event e in the same call: unpaced, without
 * a fault stage (its bursts and gaps are per event), not held, and while
 * the queue still waits for a full burst (the frames of one event then the
 * next fill it; once it went out, the call ends). A call thus makes about
 * a burst of frames, and the per-call work (the clocks, the receive poll,
 * the hold and deadline checks) is paid once per burst, not per event.
 * With failover on, one event a call: each is checked against the replay
 * buffer's room first. */
static int batch_more(const struct ro_gen *g, uint64_t e)
{
    const struct ro_conf *c = g->c;

    return g->tsc_per_event == 0 && !c->fault && !g->fo && !g->done && !g->held_since && g->q.n &&
           !(c->n_events && e >= c->n_events) && e < g->stop_at;
}

/* Whether ro_next needs the TSC: pacing, a deadline or a hold in progress
 * (a rdtsc costs about 18 ns in a VM, half a frame's time unpaced). */
static inline int tsc_needed(const struct ro_gen *g)
{
    return g->tsc_per_event > 0 || g->end != UINT64_MAX || g->held_since || g->before_start;
}

int ro_next(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    uint64_t e = g->next_event, now = tsc_needed(g) ? rte_get_tsc_cycles() : 0;

    if (g->done)
        return 0;
    g->force = force;
    uint64_t now_ns = ebf_now_ns();
    ro_link_rx(g, now_ns);
    if (g->fo_pending) {
        int rc = ro_fo_tx_replay(g, force, now_ns);     /* before any new event */
        if (rc) {
            g->rc = rc == -EINTR ? 0 : rc;
            g->forced = rc == -EINTR;
            ro_finish(g);
            return 0;
        }
    }
    if ((c->n_events && e >= c->n_events) || now >= g->end || due_tsc(g, e) >= g->end) {
        ro_finish(g);           /* the next event falls after the deadline */
        return 0;
    }
    if (e >= g->stop_at) {
        flush_waiting(g, force);    /* the last events' frames go now: held here */
        return 0;
    }
    if (ro_link_held(g, now_ns, now)) {
        flush_waiting(g, force);    /* what was generated goes before the hold */
        return 0;
    }
    if (g->held_since)
        ro_link_hold_end(g, now);
    if (g->before_start) {
        if (now < g->t0)
            return 0;           /* the START's common instant is still ahead */
        g->before_start = 0;
    }
    if (now < due_tsc(g, e))
        return 0;
    if (c->fault)
        flush_waiting(g, force);    /* before a burst gap */
    if (c->fault && ro_fault_tx_gap(c->fault, e, c->idle.mode == EBF_IDLE_BACKOFF, force))
        return 0;               /* forced stop between bursts */
    if (c->fault)
        now_ns = ebf_now_ns();  /* after a burst gap */
    for (int n = 0;; e++) {
        if (gen_event(g, force, e, now_ns))
            return n + 1;       /* cut short: the run is over */
        n++;
        if (!batch_more(g, e + 1))
            return n;
    }
}

int ro_stop_at(struct ro_gen *g, uint64_t at)
{
    if (at < g->st->next_event)
        return -ERANGE;
    g->stop_at = at;
    g->st->stop_at = at;
    return 0;
}

int ro_short_of_stop(const struct ro_gen *g)
{
    return !g->done && g->stop_at != UINT64_MAX && g->next_event < g->stop_at &&
           !(g->c->n_events && g->next_event >= g->c->n_events);
}

void ro_finish(struct ro_gen *g)
{
    static const volatile sig_atomic_t no_force;
    const struct ro_conf *c = g->c;

    if (g->done)
        return;
    g->done = 1;
    if (g->q.n && !g->forced)   /* the last events' frames, waiting for a burst */
        g->forced = ro_link_flush(g, g->force ? g->force : &no_force) == -EINTR;
    if (g->q.n_spare) {
        rte_pktmbuf_free_bulk(g->q.spare, g->q.n_spare);
        g->q.n_spare = 0;
    }
    if (g->held_since)
        ro_link_hold_end(g, rte_get_tsc_cycles());
    if (c && c->fault)
        ro_fault_tx_end(c->fault);
    if (c && c->fault && g->rc == 0 && !g->forced && ro_fault_tx_held(c->fault)) {
        ro_fault_tx_finish(c->fault);   /* reordered and delayed frames go out */
        ro_link_flush(g, &no_force);
    }
    if (c && c->fault)
        g->st->tx_abandoned += ro_fault_tx_discard(c->fault);
    ro_payload_free(&g->pay);
    if (g->fo) {
        ro_link_fo_stats(g);
        ro_fo_destroy(g->fo);
        g->fo = NULL;
    }
    g->st->end_ns = ebf_now_ns();
}

/* Wait for the pacing schedule: spin when close, sleep in back-off mode. */
static void pace(const struct ro_gen *g, const volatile sig_atomic_t *stop)
{
    uint64_t hz = rte_get_tsc_hz(), due = due_tsc(g, g->next_event);

    for (;;) {
        uint64_t now = rte_get_tsc_cycles();
        if (now >= due || *stop)
            return;
        uint64_t left_us = (due - now) * 1000000 / hz;
        if (g->c->idle.mode == EBF_IDLE_BACKOFF && left_us > 20)
            rte_delay_us_sleep((unsigned)(left_us > 1000 ? 1000 : left_us - 10));
        else
            rte_pause();
    }
}

int ro_run(const struct ro_conf *c, struct ro_stats *st, const volatile sig_atomic_t *stop,
           const volatile sig_atomic_t *force)
{
    struct ro_gen g;

    if (ro_begin(&g, c, st))
        return -EINVAL;
    while (!g.done) {
        if (*stop) {
            ro_finish(&g);      /* stopped: send nothing more */
            break;
        }
        if (ro_next(&g, force))
            continue;
        if (g.held_since)
            ebf_idle_note(&g.idle, 0);  /* held by an SFC: back off */
        else
            pace(&g, stop);
    }
    return g.rc;
}
