/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_gen.c - the readout emulator's generate, pace and transmit loop. */
#include "ro_gen.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "ebf_kv.h"
#include "ebf_mix.h"
#include "ebf_param.h"
#include "ebf_util.h"

RTE_LOG_REGISTER_DEFAULT(ro_logtype, INFO);
#define RO_LOG(level, ...) rte_log(RTE_LOG_##level, ro_logtype, "readout: " __VA_ARGS__)


uint32_t ro_max_piece(const struct ro_conf *c)
{
    return ebf_piece_max(c->encap, c->mtu);     /* as the checks of fragment sizes count */
}

uint32_t ro_frag_size(const struct ro_conf *c, uint16_t source, uint64_t event_id)
{
    if (c->size_dist == RO_SIZE_LOGNORMAL)
        return ro_size_lognormal(c->seed, source, event_id, c->size_mu, c->size_sigma,
                                 c->size_min, c->size_max);
    if (c->size_max <= c->size_min)
        return c->size_min;
    uint64_t r = ebf_mix64(c->seed ^ ebf_mix64(event_id) ^ ((uint64_t)source << 40));
    return c->size_min + (uint32_t)(r % ((uint64_t)c->size_max - c->size_min + 1));
}

#define RX_BURST 32
_Static_assert(RO_MAX_SFCS <= RO_THROTTLE_MAX_MACS, "the throttle view trusts every --sfc-mac");

/* Take what the port received: throttle frames go to the view, everything
 * is freed and counted. Returns the frames taken. */
static unsigned rx_poll(struct ro_gen *g, uint64_t now_ns)
{
    struct rte_mbuf *m[RX_BURST];
    struct ro_stats *st = g->st;
    struct ro_throttle_view *v = &g->tv;
    uint16_t n = rte_eth_rx_burst(g->c->port, 0, m, RX_BURST);

    if (n == 0)
        return 0;
    for (uint16_t i = 0; i < n; i++) {
        uint64_t rejected = v->rejected + v->foreign;
        enum ebf_reason r = ro_throttle_view_offer(v, rte_pktmbuf_mtod(m[i], const uint8_t *),
                                                   rte_pktmbuf_data_len(m[i]),
                                                   g->c->udp_port, now_ns);
        st->rx_other += r != EBF_R_OK && v->rejected + v->foreign == rejected;
    }
    rte_pktmbuf_free_bulk(m, n);
    st->rx_frames += n;
    st->throttle_frames = v->frames;
    st->throttle_on_frames = v->on_frames;
    st->throttle_off_frames = v->off_frames;
    st->throttle_stale = v->stale;
    st->throttle_rejected = v->rejected;
    st->throttle_foreign = v->foreign;
    return n;
}

/* The end of a hold at TSC now: its time is counted, and the schedule moves
 * on by it (no catch-up burst). */
static void hold_end(struct ro_gen *g, uint64_t now)
{
    uint64_t d = now - g->held_since;

    g->st->throttle_held_ns += (uint64_t)((double)d * 1e9 / (double)rte_get_tsc_hz());
    g->t0 += d;
    g->held_since = 0;
}

/* Whether an SFC holds the readout now; a hold that begins is counted, and
 * every poll held. */
static int held(struct ro_gen *g, uint64_t now_ns, uint64_t now)
{
    if (!ro_throttle_view_held(&g->tv, now_ns))
        return 0;
    if (!g->held_since) {
        g->held_since = now;
        g->st->throttle_holds++;
    }
    g->st->throttle_held_polls++;
    return 1;
}

/*
 * Hand every queued frame to the port, retrying what it refuses (calling
 * the conf's yield hook between tries, so control requests are answered
 * under back-pressure). Returns 0, or -EINTR when *force cut it short (the
 * rest freed and counted).
 */
static int flush(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    struct ro_txq *q = &g->q;
    struct rte_mbuf **pkt = q->pkt;
    uint16_t n = q->n, done = 0;
    int first = 1;

    if (c->fault)               /* the frames the fault stage lets out now */
        n = ro_fault_tx_burst(c->fault, q->pkt, q->n, &pkt);
    q->n = 0;
    while (done < n) {
        uint16_t k = rte_eth_tx_burst(c->port, 0, pkt + done, n - done);
        if (first)
            st->tx_refused += (uint64_t)(n - k);        /* once per frame */
        done += k;
        ebf_idle_note(&g->idle, k);
        /* Refused: from here each try is a pass of the lcore's loop (its
         * busy cycles, c->cycles), charged after its back-off: the first
         * busy, as it made the frames; a later one busy when the port took
         * frames, else idle. A burst taken at once stays in the caller's pass. */
        if (c->cycles && (done < n || !first))
            ebf_cycles_note(c->cycles, first ? 1u : k);
        first = 0;
        if (done < n && *force) {
            st->tx_abandoned += n - done;
            rte_pktmbuf_free_bulk(pkt + done, n - done);
            return -EINTR;
        }
        if (done < n) {
            /* The SFC may be saying why: a hold heard now counts from now,
             * though the event in hand is finished first. */
            uint64_t now_ns = ebf_now_ns();
            rx_poll(g, now_ns);
            held(g, now_ns, rte_get_tsc_cycles());
        }
        if (done < n && c->yield)
            c->yield(c->yield_arg);
    }
    return 0;
}

/* One mbuf for a frame: from the spares, which are refilled a burst at a
 * time (rte_pktmbuf_alloc_bulk), else alone when the pool has fewer left.
 * NULL when the pool is empty. */
static struct rte_mbuf *frame_mbuf(struct ro_gen *g)
{
    struct ro_txq *q = &g->q;

    if (q->n_spare == 0 && rte_pktmbuf_alloc_bulk(g->c->pool, q->spare, g->c->burst) == 0)
        q->n_spare = g->c->burst;
    if (q->n_spare)
        return q->spare[--q->n_spare];
    return rte_pktmbuf_alloc(g->c->pool);
}

/* Build the frames of one source's fragment of event e into the queue
 * (flushing when it fills). Returns 0, -ENOMEM (no mbuf), -EMSGSIZE (an
 * mbuf without room for the frame: the pool's data room is below the
 * MTU's frame; counted in tx_no_room), or -EINTR from flush. */
static int emit_fragment(struct ro_gen *g, const volatile sig_atomic_t *force, uint16_t source,
                         uint64_t e, uint64_t now_ns)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    struct ro_txq *q = &g->q;
    uint32_t len = ro_frag_size(c, source, e), max_piece = ro_max_piece(c);
    struct ebf_addr a = {.encap = c->encap, .udp_port = c->udp_port, .src_ip = c->src_ip};
    uint16_t sfc = (uint16_t)(e % c->n_sfcs);
    size_t hlen = ebf_encap_hlen(c->encap);

    memcpy(a.src_mac, c->src_mac, 6);
    memcpy(a.dst_mac, c->sfc_mac[sfc], 6);
    a.dst_ip = c->sfc_ip[sfc];
    for (uint32_t off = 0; off < len;) {
        uint16_t piece = (uint16_t)(len - off < max_piece ? len - off : max_piece);
        struct rte_mbuf *m = frame_mbuf(g);
        if (!m) {
            /* Every mbuf is queued or in the driver: push and retry. */
            int rc = q->n ? flush(g, force) : 0;
            if (rc)
                return rc;
            m = frame_mbuf(g);
            if (!m)
                return -ENOMEM;
        }
        size_t flen = hlen + EBF_FRAG_HLEN + piece;
        uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)flen);
        if (!p) {
            rte_pktmbuf_free(m);
            st->tx_no_room++;
            return -EMSGSIZE;
        }
        ebf_encap_write(p, &a, EBF_FRAG_HLEN + piece);
        struct ebf_frag_hdr h = {
            .source = source, .seq = g->seq[source]++, .event_id = e, .frag_len = len,
            .offset = off, .piece_len = piece, .tx_ns = now_ns,
        };
        ebf_frag_write_pattern(p + hlen, &h);     /* payload filled and CRCed in one pass */
        q->pkt[q->n++] = m;
        st->frames++;
        st->bytes += flen;
        st->payload_bytes += piece;
        off += piece;
        if (q->n == c->burst) {
            int rc = flush(g, force);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int ro_begin(struct ro_gen *g, const struct ro_conf *c, struct ro_stats *st)
{
    uint64_t hz = rte_get_tsc_hz();

    memset(g, 0, sizeof(*g));
    memset(st, 0, sizeof(*st));
    if (c->burst == 0 || c->burst > RO_BURST_MAX || c->n_sfcs == 0 ||
        c->n_sources == 0 || c->n_sources > EBF_MAX_SOURCES) {
        g->done = 1;
        return -EINVAL;
    }
    g->c = c;
    g->st = st;
    g->idle = c->idle;
    g->t0 = rte_get_tsc_cycles();
    g->end = c->duration_s > 0 ? g->t0 + (uint64_t)(c->duration_s * (double)hz) : UINT64_MAX;
    g->tsc_per_event = c->rate > 0 ? (double)hz / c->rate : 0;
    ro_throttle_view_init(&g->tv);
    ro_throttle_view_trust(&g->tv, (const uint8_t (*)[6])c->sfc_mac, c->n_sfcs);
    st->start_ns = ebf_now_ns();
    return 0;
}

/* Frames of earlier events still queued (unpaced, they wait to fill a
 * burst) go out before the generator waits or ends; a forced stop frees
 * what the port did not take (tx_abandoned). */
static void flush_waiting(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    if (g->q.n && flush(g, force) == -EINTR)
        g->forced = 1;
}

/* The TSC at which event e is due, 0 when unpaced. */
static uint64_t due_tsc(const struct ro_gen *g, uint64_t e)
{
    return g->tsc_per_event > 0 ? g->t0 + (uint64_t)((double)e * g->tsc_per_event) : 0;
}

int ro_next(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    uint64_t e = g->next_event, now = rte_get_tsc_cycles();
    int rc = 0;

    if (g->done)
        return 0;
    g->force = force;
    uint64_t now_ns = ebf_now_ns();
    rx_poll(g, now_ns);
    if ((c->n_events && e >= c->n_events) || now >= g->end || due_tsc(g, e) >= g->end) {
        ro_finish(g);           /* the next event falls after the deadline */
        return 0;
    }
    if (held(g, now_ns, now)) {
        flush_waiting(g, force);    /* what was generated goes before the hold */
        return 0;
    }
    if (g->held_since)
        hold_end(g, now);
    if (now < due_tsc(g, e))
        return 0;
    if (c->fault)
        flush_waiting(g, force);    /* before a burst gap */
    if (c->fault && ro_fault_tx_gap(c->fault, e, c->idle.mode == EBF_IDLE_BACKOFF, force))
        return 0;               /* forced stop between bursts */
    if (c->fault)
        now_ns = ebf_now_ns();  /* after a burst gap */
    for (uint16_t s = 0; s < c->n_sources && rc == 0; s++)
        rc = emit_fragment(g, force, s, e, now_ns);
    /* Full bursts: unpaced, the frames wait for the next event's unless
     * they could not all fit with it (at least a frame per source). */
    if (rc == 0 && g->q.n && (g->tsc_per_event > 0 || g->q.n + c->n_sources > c->burst))
        rc = flush(g, force);
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
    return 1;
}

void ro_finish(struct ro_gen *g)
{
    static const volatile sig_atomic_t no_force;
    const struct ro_conf *c = g->c;

    if (g->done)
        return;
    g->done = 1;
    if (g->q.n && !g->forced)   /* the last events' frames, waiting for a burst */
        g->forced = flush(g, g->force ? g->force : &no_force) == -EINTR;
    if (g->q.n_spare) {
        rte_pktmbuf_free_bulk(g->q.spare, g->q.n_spare);
        g->q.n_spare = 0;
    }
    if (g->held_since)
        hold_end(g, rte_get_tsc_cycles());
    if (c && c->fault)
        ro_fault_tx_end(c->fault);
    if (c && c->fault && g->rc == 0 && !g->forced && ro_fault_tx_held(c->fault)) {
        ro_fault_tx_finish(c->fault);   /* reordered and delayed frames go out */
        flush(g, &no_force);
    }
    if (c && c->fault)
        g->st->tx_abandoned += ro_fault_tx_discard(c->fault);
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
