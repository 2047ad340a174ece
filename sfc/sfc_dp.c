/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.c - the SFC poll pass, the one place that composes the stages: credits through the nodes, intake through the guard into the table, the throttle, dispatch through the transmit. */
#include "sfc_dp.h"

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "ebf_mix.h"
#include "ebf_util.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

RTE_LOG_REGISTER_DEFAULT(sfc_logtype, INFO);

/* --- Intake ---------------------------------------------------------------- */

static const enum sfc_drop add_drop[] = {
    [SFC_ADD_DUPLICATE] = SFC_DROP_DUPLICATE,
    [SFC_ADD_DUP_SENT] = SFC_DROP_DUPLICATE_SENT,
    [SFC_ADD_LATE] = SFC_DROP_LATE,
    [SFC_ADD_STALE] = SFC_DROP_STALE,
    [SFC_ADD_REFUSED] = SFC_DROP_REFUSED_EVENT,
    [SFC_ADD_LEN_MISMATCH] = SFC_DROP_LEN_MISMATCH,
    [SFC_ADD_NO_RECORD] = SFC_DROP_NO_RECORD,
    [SFC_ADD_TOO_BIG] = SFC_DROP_EVENT_TOO_BIG,
};

/* A frame ebf_parse_l2l3 did not find a fragment (r, and l when r is
 * EBF_R_OK): a readout's dead notice, or counted under its reason. */
__attribute__((noinline)) static void intake_other(struct sfc_dp *dp, const uint8_t *p,
                                                   enum ebf_reason r, const struct ebf_l2l3 *l)
{
    if ((r == EBF_R_UNKNOWN_TYPE || r == EBF_R_OK) && l->len >= 2 &&
        p[l->hlen + 1] == EBF_T_RELEASE)
        sfc_dp_notice(dp, p + l->hlen, l->len, l->src_mac, rte_get_tsc_cycles());
    else if (r == EBF_R_OK)
        dp->st.drop[SFC_DROP_WRONG_TYPE]++;
    else
        dp->st.reject[r]++;
}

/* Parse a frame from the readout port into l and h: 1 when it is a valid
 * fragment frame sent to us (unicast) by the readout its source is bound
 * to, 0 when it is not (counted under its reason). */
static int intake_parse(struct sfc_dp *dp, struct rte_mbuf *m, struct ebf_l2l3 *l,
                        struct ebf_frag_hdr *h)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

    if (m->nb_segs != 1) {
        dp->st.drop[SFC_DROP_MULTISEG]++;
        return 0;
    }
    enum ebf_reason r = ebf_parse_l2l3(p, m->data_len, dp->c.udp_port, l);
    if (unlikely(r != EBF_R_OK || l->type != EBF_T_FRAGMENT)) {
        intake_other(dp, p, r, l);  /* a dead notice (docs/protocol.md 13.4) or not ours */
        return 0;
    }
    r = ebf_frag_fields(p + l->hlen, l->len, dp->c.n_sources, h);  /* version, type checked */
    if (r == EBF_R_OK && sfc_guard_verify_due(&dp->guard, h->source)) {
        dp->st.rx_verified++;
        if (!ebf_frag_crc_ok(p + l->hlen, h))
            r = EBF_R_BAD_CHECKSUM;
    }
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return 0;
    }
    enum sfc_drop d = sfc_guard_oversize(dp->c.mtu, l, m->data_len, h->piece_len)
                          ? SFC_DROP_OVERSIZE
                      : l->dst_mac[0] & 1                   ? SFC_DROP_NOT_UNICAST
                      : memcmp(l->dst_mac, dp->rx_mac, 6) ? SFC_DROP_NOT_FOR_US
                      : sfc_guard_source(&dp->guard, h->source, l->src_mac);
    if (d != SFC_DROP_MAX) {
        dp->st.drop[d]++;
        return 0;
    }
    return 1;
}

/* Store a parsed fragment in the event table, counting what became of it:
 * 1 when the table kept the frame, 0 when it was refused (the caller frees
 * it). */
static int intake_store(struct sfc_dp *dp, struct rte_mbuf *m, const struct ebf_l2l3 *l,
                        const struct ebf_frag_hdr *h, uint64_t now)
{
    uint32_t slot;
    sfc_tx_keep(m, l->hlen, h->piece_len);      /* freed as it is if refused */
    enum sfc_add_result a = sfc_evtab_add(dp->tab, h, m, 0, now, &slot);

    if (unlikely(h->flags & EBF_FRAGF_REPLAY))
        sfc_dp_replay_piece(dp, h, a, slot, now);
    switch (a) {
    case SFC_ADD_PARTIAL:
        return 1;
    case SFC_ADD_COMPLETE:
        dp->st.events_complete++;
        dp->st.last_by_source[h->source]++;
        ebf_hist_add(&dp->st.build_ns,
                     sfc_lat_age(sfc_evtab_cold(dp->tab, slot)->first_tx_ns, dp->rx_now_ns));
        return 1;
    case SFC_ADD_TABLE_FULL:
        dp->st.lost[SFC_LOST_EVENT_TABLE_FULL]++;
        dp->st.lost_digest += ebf_mix64(h->event_id);
        ebf_idset_add(&dp->st.ledger_lost, h->event_id);
        dp->st.drop[SFC_DROP_REFUSED_EVENT]++;
        return 0;
    case SFC_ADD_LATE:
        dp->st.late_by_source[h->source]++;
        /* fall through */
    default:
        dp->st.drop[add_drop[a]]++;
        return 0;
    }
}

uint16_t sfc_dp_take_shared(struct sfc_dp *dp, struct sfc_dist *d, struct rte_mbuf **pkts)
{
    struct sfc_dist_counts k;
    uint16_t n = sfc_dist_take(d, dp->c.worker, pkts, dp->c.burst, &k);

    if (k.handed | k.held | k.ring_full) {
        dp->st.dist_handed += k.handed;
        dp->st.dist_held += k.held;
        dp->st.rx_frames += k.ring_full;
        dp->st.rx_bytes += k.ring_full_bytes;
        dp->st.drop[SFC_DROP_DIST_RING_FULL] += k.ring_full;
        if (d == dp->c.ro_dist)
            dp->ro_handed += k.handed;      /* input, for the drain's quiet wait */
    }
    return n;
}

/* How far ahead intake prefetches: mbuf headers, then frame data (what the
 * guard's verify will read of it: sfc_guard_prefetch) and, for writing,
 * the headroom line just before the data, where dispatch puts the event
 * frame's headers in front of the piece (sfc_tx.c, own_head): nothing
 * reads that line before, so it is as cold as the frame was when it came
 * (from DRAM, a store there waited about 35 cycles a frame). */
#define PREFETCH_AHEAD(dp, m) \
    do { \
        sfc_guard_prefetch(&(dp)->guard, rte_pktmbuf_mtod(m, const void *), (m)->data_len); \
        __builtin_prefetch(rte_pktmbuf_mtod_offset(m, const char *, -EBF_EVENT_HLEN), 1, 3); \
    } while (0)
#define PREFETCH_MBUF 4
#define PREFETCH_DATA 2

/* Both lines of a received mbuf: the first for intake; the second (next,
 * pool, tx_offload, priv_size, the dynamic fields) for the clone that
 * sends its piece (rte_pktmbuf_attach) and its free, which otherwise wait
 * for it one frame at a time (a NIC's receive writes the first only). */
static inline void prefetch_mbuf(const struct rte_mbuf *m)
{
    rte_prefetch0(m);
    rte_prefetch0(RTE_PTR_ADD(m, RTE_CACHE_LINE_SIZE));
}

/* The valid fragments of a burst (ok[i]) into the guard's sequences and
 * readouts and into the table; the others, and those the table refused,
 * into drop. Returns the count in drop. */
static uint16_t intake_take(struct sfc_dp *dp, uint16_t port, struct rte_mbuf **pkts, uint16_t n,
                            const uint8_t *ok, const struct ebf_l2l3 *l,
                            const struct ebf_frag_hdr *h, struct rte_mbuf **drop, uint16_t nd,
                            uint64_t now)
{
    for (uint16_t i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        sfc_guard_seq(&dp->guard, &dp->st.seq, h[i].source, h[i].seq);
        if (h[i].event_id >= dp->st.next_by_source[h[i].source])
            dp->st.next_by_source[h[i].source] = h[i].event_id + 1;
        dp->fo.src_tsc[h[i].source] = now;
        sfc_guard_readout_note(&dp->guard, l[i].src_mac);
        if (dp->c.n_more_rx)
            sfc_guard_readout_port(&dp->guard, l[i].src_mac, port);
        if (!intake_store(dp, pkts[i], &l[i], &h[i], now))
            drop[nd++] = pkts[i];
    }
    return nd;
}

/*
 * One receive burst of port in two passes (the l3fwd / VPP shape): first
 * every frame's headers are parsed (and its CRC checked, --verify), the
 * mbuf and data of frames a few ahead prefetched (all the payload's lines
 * with --verify full), and the index bucket of
 * each valid fragment's event prefetched; then the valid ones go through
 * the sequence and readout checks and into the table, their buckets in
 * cache by then.
 */
static unsigned poll_port(struct sfc_dp *dp, uint16_t port, uint64_t now)
{
    struct rte_mbuf *pkts[SFC_BURST_MAX], *drop[SFC_BURST_MAX];
    struct ebf_l2l3 l[SFC_BURST_MAX];
    struct ebf_frag_hdr h[SFC_BURST_MAX];
    uint8_t ok[SFC_BURST_MAX];
    uint64_t t0 = rte_rdtsc();
    uint16_t n = dp->c.ro_dist && port == dp->c.rx_port
                     ? sfc_dp_take_shared(dp, dp->c.ro_dist, pkts)
                     : rte_eth_rx_burst(port, 0, pkts, dp->c.burst);
    uint16_t nd = 0;
    uint64_t bytes = 0, last_id = UINT64_MAX;

    if (n) {
        dp->st.link_rx_cycles += rte_rdtsc() - t0;   /* ebfarm bench's link split */
        dp->rx_now_ns = ebf_now_ns();    /* build times end here (sfc_lat.h) */
    }
    for (uint16_t i = 0; i < n && i < PREFETCH_MBUF; i++)
        prefetch_mbuf(pkts[i]);
    for (uint16_t i = 0; i < n && i < PREFETCH_DATA; i++)
        PREFETCH_AHEAD(dp, pkts[i]);
    for (uint16_t i = 0; i < n; i++) {
        if (i + PREFETCH_MBUF < n)
            prefetch_mbuf(pkts[i + PREFETCH_MBUF]);
        if (i + PREFETCH_DATA < n)
            PREFETCH_AHEAD(dp, pkts[i + PREFETCH_DATA]);
        bytes += pkts[i]->pkt_len;
        ok[i] = (uint8_t)intake_parse(dp, pkts[i], &l[i], &h[i]);
        if (ok[i] && h[i].event_id != last_id)     /* once per run of one event's pieces */
            sfc_evtab_prefetch(dp->tab, h[i].event_id);
        if (ok[i])
            last_id = h[i].event_id;
        else
            drop[nd++] = pkts[i];
    }
    nd = intake_take(dp, port, pkts, n, ok, l, h, drop, nd, now);
    dp->st.rx_frames += n;       /* per burst */
    dp->st.rx_bytes += bytes;
    if (nd)
        rte_pktmbuf_free_bulk(drop, nd);
    return n;
}

/* Port i of the readout ports (0: rx_port), unless it has been silent
 * for rx_quiet_tsc while another one took frames in the last 1/16 of that:
 * then only every 1024 passes. A dead readout leaves its memif link silent,
 * and DPDK 22.11's memif PMD unmaps a vanished peer's rings while a burst
 * may be on them (docs/status.md): fewer bursts, fewer chances. */
static unsigned poll_rx(struct sfc_dp *dp, uint16_t i, uint16_t port, uint64_t now)
{
    if (now - dp->rx_heard[i] > dp->rx_quiet_tsc && now - dp->rx_any < dp->rx_quiet_tsc / 16 &&
        (dp->polls & 1023) != 0)
        return 0;
    unsigned n = poll_port(dp, port, now);
    if (n)
        dp->rx_heard[i] = dp->rx_any = now;
    return n;
}

/* The readout port, then any further ones (a memif link per readout). */
static unsigned poll_intake(struct sfc_dp *dp, uint64_t now)
{
    if (!dp->c.n_more_rx)
        return poll_port(dp, dp->c.rx_port, now);
    unsigned n = poll_rx(dp, 0, dp->c.rx_port, now);
    for (uint16_t i = 0; i < dp->c.n_more_rx; i++)
        n += poll_rx(dp, (uint16_t)(i + 1), dp->c.more_rx[i], now);
    return n;
}

/* Is there room to take more input? Events that are complete or sent wait
 * on the nodes; when they fill most of the table, stop reading the port so
 * that the link pushes back on the sources (counted). */
static int intake_allowed(struct sfc_dp *dp)
{
    struct sfc_evtab_counts k;

    sfc_evtab_counts(dp->tab, &k);
    /* 7/8: above the throttle's 3/4, so that the readouts hear it before
     * the link backs up; and room for one burst's new events (at most a
     * quarter of the table): a readout late to obey the throttle is held
     * back by the link, not refused events (event_table_full). */
    if (k.ready + k.sent >= dp->c.capacity - dp->c.capacity / 8 ||
        k.free_slots < RTE_MIN(dp->c.burst, dp->c.capacity / 4) ||
        k.free_records < dp->c.max_frames / 8) {
        dp->st.backpressure_polls++;
        return 0;
    }
    return 1;
}

/* --- Dispatch -------------------------------------------------------------- */

/* Event e went to node in the frames of t at now: count it, and from here
 * on its ready_tick is when it was sent. */
static void count_sent(struct sfc_dp *dp, uint32_t slot, const struct sfc_event *e,
                       uint16_t node, const struct sfc_tx_sent *t, uint64_t now)
{
    dp->st.frames_tx += t->frames;
    dp->st.bytes_tx += t->bytes;
    dp->st.events_sent++;
    dp->st.node_sent[node]++;
    dp->st.payload_bytes_sent += e->bytes;
    if (e->incomplete && !e->requeued) {
        dp->st.events_incomplete++;
        for (unsigned s = 0; s < dp->c.n_sources; s++)
            dp->st.missing_by_source[s] += !ebf_present_test(e->present, s);
    }
    struct sfc_event_cold *cold = sfc_evtab_cold(dp->tab, slot);
    ebf_hist_add(&dp->st.dispatch_ns, tsc_to_ns(dp, now - cold->ready_tick));
    cold->ready_tick = now;
}

/* A node with credit whose port's queue has room for event e, or -1. A
 * node whose queue is full is passed over (and the other nodes of its
 * port with it) for this event: one slow port does not hold up the rest. */
static int pick_node(struct sfc_dp *dp, const struct sfc_event *e)
{
    uint64_t skip = 0;

    for (;;) {
        int node = sfc_credit_pick_skip(dp->nodes.credit, skip);
        if (node < 0 || sfc_tx_room(&dp->tx, (uint16_t)node, e->n_frames))
            return node;
        skip |= sfc_tx_port_nodes(&dp->tx, (uint16_t)node);
        dp->st.tx_queue_full++;
    }
}

/* Send ready events to nodes with credit, as event frames queued on their
 * port. Returns the events sent. */
static unsigned dispatch(struct sfc_dp *dp, uint64_t now)
{
    unsigned sent = 0;
    uint32_t slot;
    struct sfc_tx_sent t;

    sfc_tx_resume(&dp->tx, dp->tab, &t);     /* large events first: their credit is held */
    dp->st.frames_tx += t.frames;
    dp->st.bytes_tx += t.bytes;
    dp->st.clone_fail += t.clone_fail;
    while ((slot = sfc_evtab_ready_peek(dp->tab)) != SFC_NONE) {
        const struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        int node = pick_node(dp, e);
        if (node < 0)
            break;
        sfc_tx_event(&dp->tx, dp->tab, slot, (uint16_t)node, &t);
        dp->st.clone_fail += t.clone_fail;
        if (!t.started)
            break;
        count_sent(dp, slot, e, (uint16_t)node, &t, now);
        sfc_evtab_mark_sent(dp->tab, slot, (uint16_t)node);
        sfc_credit_consume(dp->nodes.credit, (uint16_t)node);
        sent++;
    }
    return sent;
}

/* --- Loop ------------------------------------------------------------------ */

/* The throttle on the table's fill; its frames, when due, to the readouts
 * the guard names. Returns the work done. */
static unsigned throttle(struct sfc_dp *dp, uint64_t now)
{
    struct sfc_evtab_counts k;
    struct sfc_throttle_step s;
    struct sfc_ro_dest to[SFC_MAX_READOUTS];
    struct sfc_tx_throttled t;

    sfc_evtab_counts(dp->tab, &k);
    unsigned work = sfc_throttle_poll(&dp->thr, k.building + k.ready + k.sent,
                                      dp->c.max_frames - k.free_records, now, &s);
    dp->st.throttle_on += s.turned_on;
    dp->st.throttle_off += s.turned_off;
    if (!s.send)
        return work;
    struct ebf_throttle_hdr h = {.sfc_id = dp->c.sfc_id, .on = s.on, .fill = s.fill, .seq = s.seq};
    unsigned n = sfc_guard_throttle_to(&dp->guard, s.on, dp->st.next_by_source, dp->c.n_sources,
                                       to);
    sfc_tx_throttle(&dp->tx, dp->rx_mac, h, to, n, &t);
    dp->st.throttle_frames += t.frames;
    dp->st.throttle_tx_fail += t.fail;
    dp->st.throttle_spared += t.spared;
    return work;
}

uint64_t sfc_dp_expire_head(struct sfc_dp *dp, uint64_t now, uint64_t *now_ns, int wait)
{
    uint32_t head = sfc_evtab_building_head(dp->tab);
    const struct sfc_event *e = sfc_evtab_event(dp->tab, head);
    uint64_t dropped = 0;
    enum sfc_replay_verdict v = e->replayed ? sfc_dp_replay_verdict(dp, head, now, wait)
                                            : SFC_REPLAY_BUILD;

    if (v == SFC_REPLAY_WAIT) {         /* a late readout's replay may still come */
        dp->st.replay_waits += sfc_evtab_cold(dp->tab, head)->wait_tick == 0;
        sfc_evtab_rewait(dp->tab, head, now);
        return 0;
    }
    if (v == SFC_REPLAY_DROP || v == SFC_REPLAY_CAP) {
        dp->st.replay_ended += v == SFC_REPLAY_DROP;
        dp->st.replay_wait_cap += v == SFC_REPLAY_CAP && wait;
        sfc_dp_replay_partial(dp, head);    /* decided by the dead place: not built */
        return 0;
    }
    *now_ns = *now_ns ? *now_ns : ebf_now_ns();
    ebf_hist_add(&dp->st.build_timeout_ns,
                 sfc_lat_age(sfc_evtab_cold(dp->tab, head)->first_tx_ns, *now_ns));
    sfc_evtab_expire(dp->tab, now, 0, 1, &dropped);
    return dropped;
}

/* Time out at most 64 building events that are due (sfc_dp_timeout), one
 * at a time (sfc_dp_expire_head). Returns how many. */
static unsigned expire(struct sfc_dp *dp, uint64_t now)
{
    uint64_t now_ns = 0, dropped = 0, timeout = sfc_dp_timeout(dp, now);
    unsigned n = 0;

    for (uint32_t head; n < 64 && (head = sfc_evtab_building_head(dp->tab)) != SFC_NONE; n++) {
        if (now - sfc_evtab_event(dp->tab, head)->first_tick < timeout)
            break;
        dropped += sfc_dp_expire_head(dp, now, &now_ns, 1);
    }
    dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
    return n;
}

unsigned sfc_dp_poll(struct sfc_dp *dp, int intake)
{
    uint64_t now = rte_get_tsc_cycles();

    if (dp->low)
        sfc_dp_fence_check(dp, now);    /* before anything from before a pause */
    unsigned work = sfc_dp_nodes_poll(dp, now), in = 0;
    int tick = now >= dp->next_tick;

    /* Periodic work on a TSC timer: node liveness, the throttle's refresh.
     * The throttle's on/off follows the table's fill, which changes only
     * on intake and acks: it is looked at on those passes too. */
    if (tick) {
        dp->next_tick = now + dp->tick_tsc;
        work += sfc_dp_nodes_check(dp, now);
    }
    if (intake && intake_allowed(dp))
        in = poll_intake(dp, now);
    if (tick || work || in)
        work += throttle(dp, now);
    if (tick)
        work += sfc_dp_release(dp, now);
    work += in;
    work += expire(dp, now);
    work += dispatch(dp, now);
    uint64_t t0 = rte_rdtsc();
    unsigned sent = sfc_tx_flush(&dp->tx, &dp->st.tx_refused);
    if (sent)
        dp->st.link_tx_cycles += rte_rdtsc() - t0;
    return work + sent;
}
