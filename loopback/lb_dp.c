/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_dp.c - loopback TX and RX lcore loops. */
#include "lb_dp.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "ebf_pattern.h"
#include "ebf_proto.h"
#include "lb_rate.h"

/* --- TX --------------------------------------------------------------------- */

/* One template per stream: the pattern (and with udp the addresses) depend
 * on the source. Each TX lcore writes only its own streams' templates. */
static uint8_t tmpl[LB_MAX_STREAMS][LB_MAX_FRAME];

/* Bytes before the fragment header. */
static size_t l2l3_len(const struct lb_tx_conf *c)
{
    if (c->udp)
        return ebf_encap_hlen(EBF_ENCAP_UDP);
    return ebf_encap_hlen(EBF_ENCAP_ETH) + (c->vlan ? EBF_VLAN_HLEN : 0);
}

/* An 802.1Q tag with VLAN ID 1 + stream after the MAC addresses of an
 * Ethernet frame whose EtherType is still at buf + 12. */
static void vlan_tag(uint8_t *buf, uint16_t stream)
{
    uint16_t vid = (uint16_t)(1 + stream);
    memmove(buf + 16, buf + 12, 2);
    buf[12] = 0x81;
    buf[13] = 0x00;
    buf[14] = (uint8_t)(vid >> 8 & 0x0f);
    buf[15] = (uint8_t)vid;
}

static void template_of(uint8_t *buf, const struct lb_tx_conf *c, uint16_t stream)
{
    size_t len = c->frame_size - 4, hl = l2l3_len(c), piece = len - hl - EBF_FRAG_HLEN;
    struct ebf_addr a = {.encap = c->udp ? EBF_ENCAP_UDP : EBF_ENCAP_ETH,
                         .src_ip = 0x0ac90101u + stream, .dst_ip = 0x0ac90002u,
                         .udp_port = LB_UDP_PORT};

    memcpy(a.dst_mac, c->dst_mac, 6);
    memcpy(a.src_mac, c->src_mac, 6);
    ebf_encap_write(buf, &a, len - hl);
    if (c->vlan && !c->udp)
        vlan_tag(buf, stream);
    if (c->udp) {                        /* the source port: one per stream */
        uint16_t sport = (uint16_t)(LB_UDP_PORT + 1 + stream);
        buf[hl - 8] = (uint8_t)(sport >> 8);
        buf[hl - 7] = (uint8_t)sport;
    }
    ebf_pattern_fill(buf + hl + EBF_FRAG_HLEN, piece, stream, c->trial_id, 0);
    struct ebf_frag_hdr h = {.source = stream, .event_id = c->trial_id,
                             .frag_len = (uint32_t)piece, .piece_len = (uint16_t)piece};
    ebf_frag_write(buf + hl, &h);
}

void lb_frame_template(uint8_t *buf, const struct lb_tx_conf *c)
{
    template_of(buf, c, c->stream0);
}

/* Wait until due: spin close to it; in back-off mode sleep when more than
 * 25 us away, waking 10 us early (the TX lcore's timer slack is 1 ns). */
static void wait_until(uint64_t due, uint64_t hz, enum ebf_idle_mode idle,
                       const volatile int *stop)
{
    for (;;) {
        uint64_t now = rte_get_tsc_cycles();
        if (now >= due || *stop)
            return;
        uint64_t left_us = (due - now) * 1000000 / hz;
        if (idle == EBF_IDLE_BACKOFF && left_us > 25)
            rte_delay_us_sleep((unsigned)(left_us > 1000 ? 1000 : left_us - 10));
        else
            rte_pause();
    }
}

/* A pass of d cycles longer than stall: the lcore lost its CPU for it. */
static inline void note_stall(struct lb_tx_stats *st, uint64_t d, uint64_t stall)
{
    if (d <= stall)
        return;
    st->stall_cycles += d;
    if (d > st->max_pass_cycles)
        st->max_pass_cycles = d;
}

/* The conf's ranges, and a frame (less its FCS) within the pool's room. */
static int tx_conf_ok(const struct lb_tx_conf *c)
{
    unsigned room = c->pool ? rte_pktmbuf_data_room_size(c->pool) : 0;

    room = room > RTE_PKTMBUF_HEADROOM ? room - RTE_PKTMBUF_HEADROOM : 0;
    return c->burst >= 1 && c->burst <= LB_BURST_MAX &&
           c->frame_size >= (c->udp ? LB_MIN_FRAME_UDP : LB_MIN_FRAME) &&
           c->frame_size <= LB_MAX_FRAME && c->frame_size - 4 <= room && c->fps > 0 &&
           c->streams >= 1 && c->stream0 + c->streams <= LB_MAX_STREAMS;
}

/* Build n frames of len bytes from the templates; 0, or -1 when an mbuf has
 * no room for one (all n freed: the caller counts them). */
static int build(struct rte_mbuf **m, unsigned n, uint64_t first, size_t len,
                 const struct lb_tx_conf *c)
{
    for (unsigned k = 0; k < n; k++) {
        uint8_t *p = (uint8_t *)rte_pktmbuf_append(m[k], (uint16_t)len);
        if (!p) {
            rte_pktmbuf_free_bulk(m, n);
            return -1;
        }
        memcpy(p, tmpl[c->stream0 + (first + k) % c->streams], len);
    }
    return 0;
}

/* Stamp and checksum n built frames whose numbers start at first. */
static void stamp(struct rte_mbuf **m, unsigned n, uint64_t first, const struct lb_tx_conf *c,
                  size_t hl, size_t piece, uint64_t *first_stamp)
{
    for (unsigned k = 0; k < n; k++) {
        uint64_t i = first + k;
        uint8_t *p = rte_pktmbuf_mtod(m[k], uint8_t *);
        struct ebf_frag_hdr h = {
            .source = (uint16_t)(c->stream0 + i % c->streams), .seq = (uint32_t)(i / c->streams),
            .event_id = c->trial_id, .frag_len = (uint32_t)piece,
            .piece_len = (uint16_t)piece, .tx_ns = rte_rdtsc(),
        };
        if (k == 0)
            *first_stamp = h.tx_ns;
        ebf_frag_write(p + hl, &h);
    }
}

int lb_tx_run(const struct lb_tx_conf *c, struct lb_tx_stats *st)
{
    struct rte_mbuf *m[LB_BURST_MAX];
    size_t len = c->frame_size - 4, hl = l2l3_len(c), piece = len - hl - EBF_FRAG_HLEN;
    uint64_t hz = rte_get_tsc_hz(), i = 0;
    struct lb_sched s;

    if (!tx_conf_ok(c))
        return -EINVAL;
    memset(st, 0, sizeof(*st));
    ebf_hist_init(&st->lag);
    ebf_hist_init(&st->hold);
    for (unsigned k = 0; k < c->streams; k++)
        template_of(tmpl[c->stream0 + k], c, (uint16_t)(c->stream0 + k));
    ebf_cycles_start(&st->cycles);
    lb_sched_init(&s, rte_get_tsc_cycles(), hz, c->fps, c->poisson, c->seed);
    st->t0 = s.t0;
    st->tsc_per_frame = s.tsc_per_frame;
    /* A sender that cannot keep up gives up at 125% of the trial's length
     * (plus 10 ms): the trial is then invalid, and what was never scheduled
     * was never numbered, so it is not counted lost. */
    uint64_t deadline = s.t0 + (uint64_t)((double)c->count * s.tsc_per_frame * 1.25) + hz / 100;
    uint64_t stall = hz * LB_STALL_US / 1000000, prev = s.t0;
    uint64_t hold = (uint64_t)(c->hold_us * (double)hz / 1e6);
    st->count = c->count;
    while (i < c->count && !*c->stop) {
        uint64_t due = lb_sched_due(&s), now = rte_get_tsc_cycles();
        note_stall(st, now - prev, stall);
        if (now > deadline)
            break;
        if (now < due) {
            wait_until(due, hz, c->idle, c->stop);
            prev = rte_get_tsc_cycles();
            note_stall(st, prev > due ? prev - due : 0, stall);  /* woke late */
            ebf_cycles_note(&st->cycles, 0);    /* a pass that waited */
            continue;
        }
        /* Everything due by now, up to a burst: late frames catch up. A
         * burst not yet full waits for its next frame while the first has
         * waited less than the hold. */
        struct lb_sched peek = s;
        unsigned n = 0;
        while (n < c->burst && i + n < c->count && lb_sched_due(&peek) <= now) {
            lb_sched_next(&peek);
            n++;
        }
        if (n < c->burst && i + n < c->count && now < due + hold) {
            uint64_t until = lb_sched_fill_due(&peek, c->burst - n, c->count - i - n, due + hold);
            wait_until(until, hz, c->idle, c->stop);
            prev = rte_get_tsc_cycles();
            note_stall(st, prev > until ? prev - until : 0, stall);    /* woke late */
            ebf_cycles_note(&st->cycles, 0);
            continue;
        }
        s = peek;
        ebf_hist_add(&st->lag, now - due);
        for (unsigned k = 0; k < n; k++)
            st->per_stream[c->stream0 + (i + k) % c->streams]++;
        if (rte_pktmbuf_alloc_bulk(c->pool, m, n) != 0 ||
            build(m, n, i, len, c) != 0) {
            st->drop[LB_TX_NOMBUF] += n;        /* no mbuf, or none with room */
            st->scheduled += n;
            i += n;
            ebf_cycles_note(&st->cycles, n);
            prev = rte_get_tsc_cycles();
            continue;
        }
        uint64_t first_stamp = 0;
        stamp(m, n, i, c, hl, piece, &first_stamp);
        uint16_t sent = rte_eth_tx_burst(c->port, c->queue, m, (uint16_t)n);
        uint64_t after = rte_rdtsc();
        ebf_hist_add(&st->hold, after - first_stamp);
        if (sent < n) {
            st->drop[LB_TX_REFUSED] += n - sent;
            rte_pktmbuf_free_bulk(m + sent, n - sent);
        }
        st->accepted += sent;
        st->scheduled += n;
        st->last_tsc = after;
        i += n;
        __atomic_store_n(&st->live_accepted, st->accepted, __ATOMIC_RELAXED);
        ebf_cycles_note(&st->cycles, n);
        prev = rte_get_tsc_cycles();
    }
    ebf_cycles_stop(&st->cycles);
    return 0;
}

/* --- RX --------------------------------------------------------------------- */

void lb_rx_init(struct lb_rx *rx)
{
    memset(rx, 0, sizeof(*rx));
    ebf_hist_init(&rx->r.lat);
    ebf_hist_init(&rx->r.loop);
    for (unsigned s = 0; s < LB_MAX_STREAMS; s++)
        lb_seq_init(&rx->r.seq[s]);
}

static void trial_start(struct lb_rx *rx, uint64_t trial)
{
    struct lb_rx_result *r = &rx->r;

    memset(r->drop, 0, sizeof(r->drop));
    r->trial_id = trial;
    r->lat_invalid = r->bytes = r->first_tsc = r->last_tsc = 0;
    ebf_hist_init(&r->lat);
    ebf_hist_init(&r->loop);
    for (unsigned s = 0; s < rx->streams; s++)
        lb_seq_init(&r->seq[s]);
    ebf_cycles_start(&r->cycles);
    __atomic_store_n(&rx->live_rx, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&rx->live_lost, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&rx->live_p99, 0, __ATOMIC_RELAXED);
    rx->active = 1;
}

static void trial_stop(struct lb_rx *rx, const uint64_t *sent)
{
    uint64_t now = rte_rdtsc();
    for (unsigned s = 0; s < rx->streams; s++)
        lb_seq_finish(&rx->r.seq[s], sent[s], now);
    ebf_cycles_stop(&rx->r.cycles);
    rx->active = 0;
}

/* Serve a posted command, if any. Returns 1 on QUIT. */
static int serve(struct lb_rx *rx, uint32_t *seen)
{
    uint32_t seq = __atomic_load_n(&rx->cmd_seq, __ATOMIC_ACQUIRE);
    if (seq == *seen)
        return 0;
    *seen = seq;
    int quit = 0;
    switch (rx->cmd) {
    case LB_RX_START: trial_start(rx, rx->cmd_trial); break;
    case LB_RX_STOP: trial_stop(rx, rx->cmd_sent); break;
    case LB_RX_QUIT: quit = 1; break;
    case LB_RX_NONE: break;
    }
    __atomic_store_n(&rx->ack_seq, seq, __ATOMIC_RELEASE);
    return quit;
}

/* Account one received frame of len bytes at p, received at now. */
static inline void account(struct lb_rx *rx, const uint8_t *p, size_t len, uint64_t now)
{
    struct lb_rx_result *r = &rx->r;
    struct ebf_l2l3 l;
    struct ebf_frag_hdr h;
    size_t used;

    if (ebf_parse_l2l3(p, len, LB_UDP_PORT, &l) != EBF_R_OK || l.type != EBF_T_FRAGMENT) {
        r->drop[LB_RX_FOREIGN]++;
        return;
    }
    enum ebf_reason why = ebf_frag_parse(p + l.hlen, l.len, 0, rx->check_crc, &h, &used);
    if (why != EBF_R_OK) {
        r->drop[why == EBF_R_BAD_CHECKSUM ? LB_RX_BAD_CHECKSUM : LB_RX_BAD_FRAME]++;
        return;
    }
    if (h.event_id != r->trial_id) {
        r->drop[LB_RX_STALE]++;
        return;
    }
    if (h.source >= rx->streams) {
        r->drop[LB_RX_BAD_STREAM]++;
        return;
    }
    lb_seq_add(&r->seq[h.source], h.seq, now);
    if (h.tx_ns <= now)
        ebf_hist_add(&r->lat, now - h.tx_ns);
    else
        r->lat_invalid++;
    r->bytes += len + 4;
}

static void publish(struct lb_rx *rx, uint64_t now)
{
    uint64_t n = 0, lost = 0;
    for (unsigned s = 0; s < rx->streams; s++) {
        n += lb_seq_unique(&rx->r.seq[s]);
        lost += rx->r.seq[s].lost + rx->r.seq[s].gap_open;
    }
    __atomic_store_n(&rx->live_rx, n, __ATOMIC_RELAXED);
    __atomic_store_n(&rx->live_lost, lost, __ATOMIC_RELAXED);
    __atomic_store_n(&rx->live_p99, ebf_hist_quantile(&rx->r.lat, 0.99), __ATOMIC_RELAXED);
    rx->next_pub = now + rte_get_tsc_hz() / 4;
}

/*
 * The receiver's back-off for a trial (active) or between trials. A trial
 * starts with the poll awake: the back-off reached in the idle time before
 * it is not carried into it. While it runs, an idle poll sleeps after 64
 * empty passes (not 1280: spinning on a shared CPU gets the lcore preempted
 * for longer than the sleep, and the frames pile up in the port's ring
 * meanwhile) for at most LB_RX_TRIAL_SLEEP_US; between trials it backs off
 * as any poll loop (ebf_idle_init's defaults).
 */
static void rx_idle_for(struct ebf_idle *b, int active)
{
    b->empty = 0;
    b->sleep_us = 1;
    b->spin = active ? 32 : 256;
    b->pause = active ? 32 : 1024;
    b->max_sleep_us = active ? LB_RX_TRIAL_SLEEP_US : 200;
}

int lb_rx_loop(void *arg)
{
    struct lb_rx *rx = arg;
    struct rte_mbuf *m[LB_BURST_MAX];
    struct ebf_idle idle;
    uint32_t seen = 0;

    ebf_idle_init(&idle, rx->idle);
    rx_idle_for(&idle, 0);
    for (;;) {
        int was = rx->active;
        if (serve(rx, &seen))
            return 0;
        if (rx->active != was)
            rx_idle_for(&idle, rx->active);
        uint16_t n = rte_eth_rx_burst(rx->port, rx->queue, m, LB_BURST_MAX);
        uint64_t now = rte_rdtsc();
        if (n && rx->active) {
            struct lb_rx_result *r = &rx->r;
            if (r->first_tsc == 0)
                r->first_tsc = now;
            r->last_tsc = now;
            for (uint16_t k = 0; k < n; k++)
                account(rx, rte_pktmbuf_mtod(m[k], const uint8_t *),
                        rte_pktmbuf_data_len(m[k]), now);
            ebf_hist_add(&r->loop, rte_rdtsc() - now);
            if (now >= rx->next_pub)
                publish(rx, now);
        } else if (n) {
            rx->between += n;
        }
        if (n)
            rte_pktmbuf_free_bulk(m, n);
        ebf_cycles_pass_end(&rx->r.cycles, &idle, n);
    }
}

void lb_rx_command(struct lb_rx *rx, enum lb_rx_cmd cmd, uint64_t trial, const uint64_t *sent)
{
    uint32_t seq = rx->cmd_seq + 1;

    rx->cmd = cmd;
    rx->cmd_trial = trial;
    if (sent)
        memcpy(rx->cmd_sent, sent, sizeof(rx->cmd_sent));
    __atomic_store_n(&rx->cmd_seq, seq, __ATOMIC_RELEASE);
    while (__atomic_load_n(&rx->ack_seq, __ATOMIC_ACQUIRE) != seq)
        rte_delay_us_sleep(50);
}
