/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_link.c - a readout's links to its SFCs: transmit with retries and give-up, the receive poll for throttle frames, holds. */
#include "ro_link.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_port.h"
#include "ebf_util.h"
#include "ro_log.h"

#define RX_BURST 32
_Static_assert(RO_MAX_SFCS <= RO_THROTTLE_MAX_MACS, "the throttle view trusts every --sfc-mac");

/* 1 when some SFC on port p is not given up: the port is still used. */
static int port_used(const struct ro_gen *g, uint16_t p)
{
    for (uint16_t k = 0; k < g->c->n_sfcs; k++)
        if (g->sfc_port[k] == p && !g->st->sfc_gone[k])
            return 1;
    return 0;
}

/* Take what one port received: throttle frames go to the view, everything
 * is freed and counted. Returns the frames taken. */
static unsigned rx_port(struct ro_gen *g, uint16_t port, uint64_t now_ns)
{
    struct rte_mbuf *m[RX_BURST];
    struct ro_stats *st = g->st;
    struct ro_throttle_view *v = &g->tv;
    uint16_t n = rte_eth_rx_burst(port, 0, m, RX_BURST);

    if (n == 0)
        return 0;
    for (uint16_t i = 0; i < n; i++) {
        uint64_t rejected = v->rejected + v->foreign;
        if (g->tag_pool)
            ro_tag_clear(m[i]);     /* received bytes: no prebuilt payload any more */
        if (g->fo && ro_fo_offer(g->fo, rte_pktmbuf_mtod(m[i], const uint8_t *),
                                 rte_pktmbuf_data_len(m[i]), g->c->udp_port, g->next_event,
                                 now_ns))
            continue;
        enum ebf_reason r = ro_throttle_view_offer(v, rte_pktmbuf_mtod(m[i], const uint8_t *),
                                                   rte_pktmbuf_data_len(m[i]),
                                                   g->c->udp_port, now_ns);
        st->rx_other += r != EBF_R_OK && v->rejected + v->foreign == rejected;
    }
    rte_pktmbuf_free_bulk(m, n);
    st->rx_frames += n;
    return n;
}

/* Failover on: the places silent for the detection bound (or heard at a
 * new epoch) are declared dead, each logged with how long it was silent:
 * from the next event on they are routed around, and their unreleased
 * events wait in g->fo_pending for ro_fo_tx_replay (the generator's next
 * pass, before any new event). */
static void fo_deaths(struct ro_gen *g, uint64_t now_ns)
{
    struct ro_failover *v = &g->fo->view;
    struct ebf_places died;

    if (ro_failover_poll(v, now_ns, &died) == 0)
        return;
    for (uint32_t p = 0; p < v->n && p < RO_MAX_SFCS; p++)
        if (ebf_places_has(&died, p)) {
            RO_LOG(WARNING, "SFC %u silent for %.1f ms (no release frame): declared dead at "
                   "event %" PRIu64 "\n", p, (double)(now_ns - v->last_ns[p]) / 1e6,
                   g->next_event);
            g->fo_pending |= UINT64_C(1) << p;
            ro_fo_died(g->fo, p);
            ro_fo_recover_begin(g->fo, v->last_ns[p]);
            if (g->st->fo_dead_from[p] == UINT64_MAX)
                g->st->fo_dead_from[p] = g->next_event;
        }
}

uint8_t *ro_link_ctl_frame(struct ro_gen *g, uint16_t to, size_t len, struct rte_mbuf **m)
{
    const struct ro_conf *c = g->c;
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    uint8_t *b;

    *m = rte_pktmbuf_alloc(c->pool);
    b = *m ? (uint8_t *)rte_pktmbuf_append(*m, (uint16_t)(EBF_ETH_HLEN + len)) : NULL;
    if (!b) {
        rte_pktmbuf_free(*m);
        return NULL;
    }
    if (g->tag_pool)
        ro_tag_clear(*m);
    memcpy(a.src_mac, c->src_mac, 6);
    memcpy(a.dst_mac, c->sfc_mac[to], 6);
    ebf_encap_write(b, &a, len);
    return b + EBF_ETH_HLEN;
}

int ro_link_ctl_send(struct ro_gen *g, uint16_t to, struct rte_mbuf *m)
{
    if (rte_eth_tx_burst(g->sfc_port[to], 0, &m, 1) == 1)
        return 1;
    rte_pktmbuf_free(m);
    return 0;
}

/* Failover on: a dead notice to each place held dead while alive whose
 * frame came since the last look (ro_failover_notices); a frame the pool
 * or the port refuses is counted (fo.notice_fail), the next one replaces
 * it. */
static void fo_notices(struct ro_gen *g)
{
    struct ebf_places due;
    const struct ro_conf *c = g->c;

    if (ro_failover_notices(&g->fo->view, &due) == 0)
        return;
    for (uint32_t p = 0; p < g->fo->view.n && p < c->n_sfcs; p++) {
        struct rte_mbuf *m;
        uint8_t *b;

        if (!ebf_places_has(&due, p))
            continue;
        b = ro_link_ctl_frame(g, (uint16_t)p, EBF_RELEASE_HLEN, &m);
        if (b)
            ro_fo_notice(g->fo, p, b);
        if (!b || !ro_link_ctl_send(g, (uint16_t)p, m))
            g->st->fo_notice_fail++;
    }
    g->st->fo_notices = g->fo->notices;
}

/* Failover on, once a second: the memif link of a place routed around
 * whose SFC died is down for good (a memif client connects once), so it
 * is restarted until the SFC is back (ebfarm restart): the new SFC's
 * release frames must reach us for it to rejoin. Only a link of its own
 * (a link per SFC), never one other places share. */
static void fo_relink(struct ro_gen *g, uint64_t now_ns)
{
    const struct ebf_places *out = &g->fo->view.out;

    if (!ebf_places_count(out, g->c->n_sfcs) || now_ns - g->relink_ns < 1000000000ull)
        return;
    g->relink_ns = now_ns;
    for (uint16_t k = 0; k < g->c->n_sfcs; k++) {
        uint16_t shared = 0;
        if (!ebf_places_has(out, k) || g->n_ports == 1)
            continue;
        for (uint16_t j = 0; j < g->c->n_sfcs; j++)
            shared += j != k && g->sfc_port[j] == g->sfc_port[k];
        if (!shared && ebf_port_relink(g->sfc_port[k]))
            g->st->fo_relinks++;
    }
}

unsigned ro_link_rx(struct ro_gen *g, uint64_t now_ns)
{
    struct ro_stats *st = g->st;
    const struct ro_throttle_view *v = &g->tv;
    unsigned n = 0;

    for (uint16_t i = 0; i < g->n_ports; i++)
        if (g->n_ports == 1 || port_used(g, g->port[i]))
            n += rx_port(g, g->port[i], now_ns);
    if (g->fo) {
        fo_deaths(g, now_ns);
        fo_notices(g);
        fo_relink(g, now_ns);
        ro_link_fo_stats(g);
    }
    if (n == 0)
        return 0;
    st->throttle_frames = v->frames;
    st->throttle_on_frames = v->on_frames;
    st->throttle_off_frames = v->off_frames;
    st->throttle_stale = v->stale;
    st->throttle_rejected = v->rejected;
    st->throttle_foreign = v->foreign;
    return n;
}

void ro_link_fo_stats(struct ro_gen *g)
{
    const struct ro_fo *f = g->fo;
    struct ro_stats *st = g->st;

    st->release_frames = f->frames;
    st->release_rejected = f->rejected + f->foreign + f->stale;
    st->replay_held_bytes = f->rb.held_bytes;
    st->replay_held_events = f->rb.held_events;
    st->replay_peak_bytes = f->rb.peak_bytes;
    st->replay_released = f->rb.released;
    st->replay_full_polls = f->full_polls;
    st->replay_replayed = f->rb.replayed;
    st->replay_dropped = f->rb.dropped;
    st->replay_held_ns = f->held_ns;
    st->fo_deaths = f->view.deaths;
    st->fo_joins = f->view.joins;
    st->fo_leaves = f->view.leaves;
    st->fo_join_late = f->view.join_late;
    st->fo_join_early = f->view.join_early;
    st->fo_recoveries = f->recoveries;
    st->fo_false_deaths = f->view.false_deaths;
    st->fo_recover_ns = f->recover_ns;
    st->fo_recover_max_ns = f->recover_max_ns;
    st->fo_own_stalls = f->view.own_stalls;
    st->fo_all_silent = f->view.all_silent;
    st->fo_out = f->view.out.w[0];      /* a readout sends to at most 64 (RO_MAX_SFCS) */
    for (uint16_t k = 0; k < g->c->n_sfcs; k++)
        st->release_low[k] = f->low[k];
}

void ro_link_hold_end(struct ro_gen *g, uint64_t now)
{
    uint64_t d = now - g->held_since;

    g->st->throttle_held_ns += (uint64_t)((double)d * 1e9 / (double)rte_get_tsc_hz());
    g->t0 += d;
    g->held_since = 0;
}

int ro_link_held(struct ro_gen *g, uint64_t now_ns, uint64_t now)
{
    if (!ro_throttle_view_held(&g->tv, now_ns) && !(g->fo && ro_fo_hold(g->fo, now_ns)))
        return 0;
    if (!g->held_since) {
        g->held_since = now ? now : rte_get_tsc_cycles();  /* ro_next may not have read it */
        g->st->throttle_holds++;
    }
    g->st->throttle_held_polls++;
    return 1;
}

/* Give SFC k up from event e on: nothing more goes to it (its frames are
 * counted), its port is no longer polled unless another SFC uses it. */
static void sfc_give_up(struct ro_gen *g, uint16_t k, uint64_t e, const char *why)
{
    struct ro_stats *st = g->st;
    const uint8_t *m = g->c->sfc_mac[k];

    st->sfc_gone[k] = 1;
    st->sfc_gone_from[k] = e;
    st->sfcs_gone++;
    RO_LOG(WARNING, "SFC %u (%02x:%02x:%02x:%02x:%02x:%02x) given up from event %" PRIu64
           " on: %s; its events are not sent, the other SFCs are served\n", k, m[0], m[1],
           m[2], m[3], m[4], m[5], e, why);
}

/* After a try that left frames toward SFC k unsent: is the SFC gone? Its
 * link is down, or its port refused everything since sfc_timeout ago
 * with no throttle frame from it in that time (an SFC that holds us
 * repeats "on" every 50 ms). */
static int sfc_vanished(struct ro_gen *g, uint16_t k, uint16_t took, uint64_t e)
{
    struct rte_eth_link link;
    uint64_t now = rte_get_tsc_cycles();

    if (took || !g->sfc_timeout_tsc)
        return 0;
    if (g->fo && ebf_places_has(&g->fo->view.heard, k))
        return 0;   /* failover's detection (100 ms) decides: no give-up */
    if (rte_eth_link_get_nowait(g->sfc_port[k], &link) == 0 &&
        link.link_status == RTE_ETH_LINK_DOWN) {
        sfc_give_up(g, k, e, "its link is down");
        return 1;
    }
    if (!g->refused_since[k]) {
        g->refused_since[k] = now;
        return 0;
    }
    uint64_t heard = ro_throttle_view_heard(&g->tv, k), now_ns = ebf_now_ns();
    uint64_t span_ns = (uint64_t)(g->c->sfc_timeout_ms * 1e6);
    if (now - g->refused_since[k] < g->sfc_timeout_tsc || (heard && now_ns - heard < span_ns))
        return 0;
    sfc_give_up(g, k, e, "its port refused every frame and it sent no throttle frame for "
                "--sfc-timeout-ms");
    return 1;
}

/* The SFC a queued frame goes to, by its destination MAC (frames the fault
 * stage held may be of earlier events). */
static uint16_t sfc_of(const struct ro_gen *g, struct rte_mbuf *m)
{
    const uint8_t *dst = rte_pktmbuf_mtod(m, const uint8_t *);

    for (uint16_t k = 0; k < g->c->n_sfcs; k++)
        if (memcmp(dst, g->c->sfc_mac[k], 6) == 0)
            return k;
    return 0;
}

/*
 * Hand n frames toward SFC k to its port, retrying what it refuses (calling
 * the conf's yield hook between tries, so control requests are answered
 * under back-pressure) until the SFC is given up. Returns 0, or -EINTR when
 * *force cut it short (the rest freed and counted).
 */
static int tx_run(struct ro_gen *g, struct rte_mbuf **pkt, uint16_t n, uint16_t k,
                  const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    uint16_t done = 0;
    int first = 1;

    while (done < n && !st->sfc_gone[k]) {
        uint16_t took = rte_eth_tx_burst(g->sfc_port[k], 0, pkt + done, n - done);
        if (first)
            st->tx_refused += (uint64_t)(n - took);     /* once per frame */
        done += took;
        st->sfc_frames[k] += took;
        if (took)
            g->refused_since[k] = 0;        /* it takes frames: alive */
        ebf_idle_note(&g->idle, took);
        /* Refused: from here each try is a pass of the lcore's loop (its
         * busy cycles, c->cycles), charged after its back-off: the first
         * busy, as it made the frames; a later one busy when the port took
         * frames, else idle. A burst taken at once stays in the caller's pass. */
        if (c->cycles && (done < n || !first))
            ebf_cycles_note(c->cycles, first ? 1u : took);
        first = 0;
        if (done < n && *force) {
            st->tx_abandoned += n - done;
            rte_pktmbuf_free_bulk(pkt + done, n - done);
            return -EINTR;
        }
        if (done < n && sfc_vanished(g, k, took, g->next_event))
            break;
        if (done < n) {
            /* The SFC may be saying why: a hold heard now counts from now,
             * though the event in hand is finished first. */
            uint64_t now_ns = ebf_now_ns();
            ro_link_rx(g, now_ns);
            ro_link_held(g, now_ns, rte_get_tsc_cycles());
            if (g->fo && ebf_places_has(&g->fo->view.out, k)) {
                st->fo_unsent_frames += n - done;   /* declared dead: replayed */
                rte_pktmbuf_free_bulk(pkt + done, n - done);
                return 0;
            }
        }
        if (done < n && c->yield)
            c->yield(c->yield_arg);
    }
    if (done < n) {             /* its SFC is gone */
        st->sfc_gone_frames += n - done;
        rte_pktmbuf_free_bulk(pkt + done, n - done);
    }
    return 0;
}

int ro_link_flush(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_txq *q = &g->q;
    struct rte_mbuf **pkt = q->pkt;
    uint16_t n = q->n;

    if (c->fault)               /* the frames the fault stage lets out now */
        n = ro_fault_tx_burst(c->fault, q->pkt, q->n, &pkt);
    q->n = 0;
    if (!c->fault || c->n_sfcs == 1)
        return tx_run(g, pkt, n, c->fault ? 0 : g->q_sfc, force);
    for (uint16_t i = 0; i < n;) {
        uint16_t k = sfc_of(g, pkt[i]), j = i + 1;
        while (j < n && sfc_of(g, pkt[j]) == k)
            j++;
        int rc = tx_run(g, pkt + i, j - i, k, force);
        if (rc) {
            rte_pktmbuf_free_bulk(pkt + j, n - j);
            g->st->tx_abandoned += n - j;
            return rc;
        }
        i = j;
    }
    return 0;
}

void ro_link_map(struct ro_gen *g, const struct ro_conf *c)
{
    for (uint16_t k = 0; k < c->n_sfcs; k++) {
        uint16_t p = c->n_sfc_ports ? c->sfc_port[k] : c->port, i = 0;
        g->sfc_port[k] = p;
        while (i < g->n_ports && g->port[i] != p)
            i++;
        if (i == g->n_ports)
            g->port[g->n_ports++] = p;
    }
}
