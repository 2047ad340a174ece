/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.c - SFC poll loop: intake, assembly, zero-copy dispatch, acks, drain. */
#include "sfc_dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ebf_kv.h"
#include "sfc_dp_private.h"

RTE_LOG_REGISTER_DEFAULT(sfc_logtype, INFO);
#define SFC_LOG(level, ...) rte_log(RTE_LOG_##level, sfc_logtype, "sfc: " __VA_ARGS__)

static void free_mbuf(void *frame, void *arg)
{
    (void)arg;
    rte_pktmbuf_free(frame);
}

struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf)
{
    struct sfc_dp *dp = rte_zmalloc("sfc_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
    struct rte_ether_addr ea;

    if (!dp) {
        errno = ENOMEM;
        return NULL;
    }
    dp->c = *conf;
    if (dp->c.burst == 0 || dp->c.burst > BURST_MAX)
        dp->c.burst = 32;
    struct sfc_evtab_conf tc = {
        .capacity = conf->capacity, .max_frames = conf->max_frames,
        .n_sources = conf->n_sources, .done_window = 1u << 16,
        .free_frame = free_mbuf,
    };
    dp->tab = sfc_evtab_create(&tc);
    dp->credit = sfc_credit_create(conf->n_nodes, conf->max_credits);
    dp->txq = rte_zmalloc("sfc_txq", sizeof(struct txq) * conf->n_nodes, RTE_CACHE_LINE_SIZE);
    if (!dp->tab || !dp->credit || !dp->txq)
        goto fail;
    rte_eth_macaddr_get(conf->rx_port, &ea);
    memcpy(dp->rx_mac, ea.addr_bytes, 6);
    for (uint16_t i = 0; i < conf->n_nodes; i++) {
        uint16_t q = 0;
        while (q < dp->n_txq && dp->txq[q].port != conf->node[i].port)
            q++;
        if (q == dp->n_txq)
            dp->txq[dp->n_txq++].port = conf->node[i].port;
        dp->node_txq[i] = q;
        rte_eth_macaddr_get(conf->node[i].port, &ea);
        memcpy(dp->node_port_mac[i], ea.addr_bytes, 6);
    }
    dp->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
    dp->timeout_tsc = (uint64_t)(conf->timeout_ms * 1e-3 * (double)rte_get_tsc_hz());
    ebf_hist_init(&dp->st.build_ns);
    ebf_hist_init(&dp->st.dispatch_ns);
    ebf_hist_init(&dp->st.ack_ns);
    ebf_idset_init(&dp->st.ledger_acked);
    ebf_idset_init(&dp->st.ledger_lost);
    ebf_idset_init(&dp->st.ledger_late);
    sfc_faults_init(dp);
    return dp;
fail:
    sfc_dp_destroy(dp);
    errno = ENOMEM;
    return NULL;
}

void sfc_dp_destroy(struct sfc_dp *dp)
{
    if (!dp)
        return;
    if (dp->txq)
        for (uint16_t q = 0; q < dp->n_txq; q++)
            rte_pktmbuf_free_bulk(dp->txq[q].pkt, dp->txq[q].n);
    sfc_evtab_destroy(dp->tab);
    sfc_credit_destroy(dp->credit);
    rte_free(dp->txq);
    rte_free(dp);
}

static inline uint64_t tsc_to_ns(const struct sfc_dp *dp, uint64_t tsc)
{
    return (uint64_t)((double)tsc * dp->ns_per_tsc);
}

/* --- Credits and acks ------------------------------------------------------ */

static int node_of(const struct sfc_dp *dp, uint16_t port, uint16_t node_id,
                   const uint8_t *src_mac)
{
    if (node_id >= dp->c.n_nodes || dp->c.node[node_id].port != port ||
        memcmp(dp->c.node[node_id].mac, src_mac, 6) != 0)
        return -1;
    return node_id;
}

static void handle_credit(struct sfc_dp *dp, uint16_t port, struct rte_mbuf *m, uint64_t now)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    struct ebf_l2l3 l;
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    enum ebf_reason r = ebf_parse_l2l3(p, m->data_len, dp->c.udp_port, &l);

    if (r == EBF_R_OK && l.type != EBF_T_CREDIT) {
        dp->st.drop[SFC_DROP_WRONG_TYPE]++;
        return;
    }
    if (r == EBF_R_OK)
        r = ebf_credit_parse(p + l.hlen, l.len, &h, acks);
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return;
    }
    int node = node_of(dp, port, h.node_id, l.src_mac);
    if (node < 0) {
        dp->st.drop[SFC_DROP_UNKNOWN_NODE]++;
        return;
    }
    dp->st.credit_frames++;
    enum sfc_heard heard = sfc_node_heard(dp, (uint16_t)node, h.epoch, now);
    for (unsigned i = 0; i < h.n_acks; i++) {
        uint64_t id = acks[i].event_id;
        uint32_t slot = heard == SFC_HEARD_OK ? sfc_evtab_find_sent(dp->tab, id, (uint16_t)node)
                                              : SFC_NONE;
        if (slot == SFC_NONE) {
            if (heard != SFC_HEARD_OK || dp->live[node].was_dead) {
                /* Its event went to another node: that node's ack counts. */
                dp->st.late_acks++;
                dp->st.late_ack_digest += ebf_mix64(id);
                ebf_idset_add(&dp->st.ledger_late, id);
            } else {
                dp->st.ack_unknown++;
            }
            continue;
        }
        struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        ebf_hist_add(&dp->st.ack_ns, tsc_to_ns(dp, now - e->ready_tick));
        dp->st.acks++;
        dp->st.node_acked[node]++;
        if (acks[i].decision == EBF_DEC_ACCEPT)
            dp->st.acked_accept++;
        else
            dp->st.acked_reject++;
        if (acks[i].status)
            dp->st.ack_status_errors++;
        dp->st.acked_incomplete += e->incomplete;
        dp->st.acked_digest += ebf_mix64(id);
        ebf_idset_add(&dp->st.ledger_acked, id);
        sfc_evtab_release(dp->tab, slot);
        sfc_credit_ack(dp->credit, (uint16_t)node);
    }
    if (heard == SFC_HEARD_OLD_EPOCH)
        return;                 /* its slots belong to a past incarnation */
    uint32_t took = sfc_credit_grant(dp->credit, (uint16_t)node, h.credits);
    dp->st.credits_granted += took;
    dp->st.credits_clamped += h.credits - took;
}

static unsigned poll_nodes(struct sfc_dp *dp, uint64_t now)
{
    struct rte_mbuf *pkts[BURST_MAX];
    unsigned work = 0;

    dp->polls++;
    for (uint16_t q = 0; q < dp->n_txq; q++) {
        uint16_t port = dp->txq[q].port;
        /* A port whose nodes are all dead is polled now and then only, to
         * hear a node come back: its peer may be gone, and a memif PMD
         * unmaps the shared rings of a vanished peer from its interrupt
         * thread, unsynchronised with a burst in progress (DPDK 22.11). */
        if (dp->q_alive[q] == 0 && (dp->polls & 1023) != 0)
            continue;
        uint16_t n = rte_eth_rx_burst(port, 0, pkts, dp->c.burst);
        for (uint16_t i = 0; i < n; i++)
            handle_credit(dp, port, pkts[i], now);
        if (n)
            rte_pktmbuf_free_bulk(pkts, n);
        work += n;
    }
    return work;
}

/* --- Intake ---------------------------------------------------------------- */

static const enum sfc_drop add_drop[] = {
    [SFC_ADD_DUPLICATE] = SFC_DROP_DUPLICATE,
    [SFC_ADD_DUP_SENT] = SFC_DROP_DUPLICATE_SENT,
    [SFC_ADD_LATE] = SFC_DROP_LATE,
    [SFC_ADD_STALE] = SFC_DROP_STALE,
    [SFC_ADD_REFUSED] = SFC_DROP_REFUSED_EVENT,
    [SFC_ADD_LEN_MISMATCH] = SFC_DROP_LEN_MISMATCH,
    [SFC_ADD_NO_RECORD] = SFC_DROP_NO_RECORD,
};

/* Parse and store one frame; returns 1 when the table kept it. */
static int intake_one(struct sfc_dp *dp, struct rte_mbuf *m, uint64_t now)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    struct ebf_l2l3 l;
    struct ebf_frag_hdr h;
    size_t used;
    uint32_t slot;

    dp->st.rx_frames++;
    dp->st.rx_bytes += m->pkt_len;
    if (m->nb_segs != 1) {
        dp->st.drop[SFC_DROP_MULTISEG]++;
        return 0;
    }
    enum ebf_reason r = ebf_parse_l2l3(p, m->data_len, dp->c.udp_port, &l);
    if (r == EBF_R_OK && l.type != EBF_T_FRAGMENT) {
        dp->st.drop[SFC_DROP_WRONG_TYPE]++;
        return 0;
    }
    if (r == EBF_R_OK)
        r = ebf_frag_parse(p + l.hlen, l.len, dp->c.n_sources, 1, &h, &used);
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return 0;
    }
    if (memcmp(l.dst_mac, dp->rx_mac, 6) != 0 && !(l.dst_mac[0] & 1)) {
        dp->st.drop[SFC_DROP_NOT_FOR_US]++;
        return 0;
    }
    sfc_seq_note(dp, h.source, h.seq);
    sfc_readout_note(dp, l.src_mac);
    enum sfc_add_result a = sfc_evtab_add(dp->tab, &h, m, l.hlen, now, &slot);
    switch (a) {
    case SFC_ADD_PARTIAL:
        return 1;
    case SFC_ADD_COMPLETE: {
        struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        dp->st.events_complete++;
        dp->st.last_by_source[h.source]++;
        ebf_hist_add(&dp->st.build_ns, tsc_to_ns(dp, now - e->first_tick));
        return 1;
    }
    case SFC_ADD_TABLE_FULL:
        dp->st.lost[SFC_LOST_EVENT_TABLE_FULL]++;
        dp->st.lost_digest += ebf_mix64(h.event_id);
        ebf_idset_add(&dp->st.ledger_lost, h.event_id);
        dp->st.drop[SFC_DROP_REFUSED_EVENT]++;
        return 0;
    case SFC_ADD_LATE:
        dp->st.late_by_source[h.source]++;
        /* fall through */
    default:
        dp->st.drop[add_drop[a]]++;
        return 0;
    }
}

static unsigned poll_intake(struct sfc_dp *dp, uint64_t now)
{
    struct rte_mbuf *pkts[BURST_MAX], *drop[BURST_MAX];
    uint16_t n = rte_eth_rx_burst(dp->c.rx_port, 0, pkts, dp->c.burst), nd = 0;

    for (uint16_t i = 0; i < n; i++)
        if (!intake_one(dp, pkts[i], now))
            drop[nd++] = pkts[i];
    if (nd)
        rte_pktmbuf_free_bulk(drop, nd);
    return n;
}

/* Is there room to take more input? Events that are complete or sent wait
 * on the nodes; when they fill most of the table, stop reading the port so
 * that the link pushes back on the sources (counted). */
static int intake_allowed(struct sfc_dp *dp)
{
    struct sfc_evtab_counts k;

    sfc_evtab_counts(dp->tab, &k);
    /* 7/8: above the throttle's 3/4, so that the readouts hear the
     * throttle before the link backs up. */
    if (k.ready + k.sent >= dp->c.capacity - dp->c.capacity / 8 ||
        k.free_records < dp->c.max_frames / 8) {
        dp->st.backpressure_polls++;
        return 0;
    }
    return 1;
}

/* --- Dispatch -------------------------------------------------------------- */

/* Start an event frame: header mbuf with room for Ethernet + event header. */
static struct rte_mbuf *frame_start(struct sfc_dp *dp)
{
    struct rte_mbuf *h = rte_pktmbuf_alloc(dp->c.hdr_pool);

    if (h && !rte_pktmbuf_append(h, EBF_ETH_HLEN + EBF_EVENT_HLEN)) {
        rte_pktmbuf_free(h);
        h = NULL;
    }
    return h;
}

/*
 * Append the frames of event slot for node to its txq: header mbufs chained
 * to indirect clones of the received frames, trimmed to fragment header +
 * piece. No payload byte is copied. Returns frames queued, or 0 when pools
 * ran dry (nothing queued, the event stays READY).
 */
static uint16_t build_event(struct sfc_dp *dp, uint32_t slot, uint16_t node, struct txq *q)
{
    struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
    uint16_t base = q->n, nf = 0, pieces[TXQ_SIZE];
    uint32_t fill = 0;

    for (uint32_t r = e->first_rec; r != SFC_NONE;) {
        const struct sfc_frame_rec *rec = sfc_evtab_rec(dp->tab, r);
        uint32_t pb = EBF_FRAG_HLEN + rec->piece_len;
        if (nf == 0 || fill + pb > dp->c.mtu) {
            struct rte_mbuf *h = frame_start(dp);
            if (!h)
                goto fail;
            q->pkt[base + nf] = h;
            pieces[nf++] = 0;
            fill = EBF_EVENT_HLEN;
        }
        struct rte_mbuf *cl = rte_pktmbuf_clone(rec->frame, dp->c.clone_pool);
        if (!cl)
            goto fail;
        rte_pktmbuf_adj(cl, rec->data_off);
        if (cl->data_len > pb)
            rte_pktmbuf_trim(cl, (uint16_t)(cl->data_len - pb));
        if (rte_pktmbuf_chain(q->pkt[base + nf - 1], cl)) {
            rte_pktmbuf_free(cl);
            goto fail;
        }
        pieces[nf - 1]++;
        fill += pb;
        r = rec->next;
    }
    if (nf == 0) {               /* timed out with no complete source */
        struct rte_mbuf *h = frame_start(dp);
        if (!h)
            return 0;
        q->pkt[base] = h;
        pieces[nf++] = 0;
    }
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.dst_mac, dp->c.node[node].mac, 6);
    memcpy(a.src_mac, dp->node_port_mac[node], 6);
    struct ebf_event_hdr eh = {
        .n_sources = dp->c.n_sources, .sfc_id = dp->c.sfc_id,
        .flags = e->incomplete ? EBF_EVF_INCOMPLETE : 0, .event_id = e->event_id,
        .frame_count = nf, .event_bytes = e->bytes,
        .present = {e->present[0], e->present[1]},
    };
    for (uint16_t i = 0; i < nf; i++) {
        struct rte_mbuf *h = q->pkt[base + i];
        uint8_t *p = rte_pktmbuf_mtod(h, uint8_t *);
        ebf_encap_write(p, &a, h->pkt_len - EBF_ETH_HLEN);
        eh.frame_index = i;
        eh.n_pieces = pieces[i];
        ebf_event_write(p + EBF_ETH_HLEN, &eh);
        dp->st.bytes_tx += h->pkt_len;
    }
    q->n = (uint16_t)(base + nf);
    return nf;
fail:
    for (uint16_t i = 0; i < nf; i++)
        rte_pktmbuf_free(q->pkt[base + i]);
    dp->st.clone_fail++;
    return 0;
}

static void count_missing(struct sfc_dp *dp, const struct sfc_event *e)
{
    for (unsigned s = 0; s < dp->c.n_sources; s++)
        if (!ebf_present_test(e->present, s))
            dp->st.missing_by_source[s]++;
}

static unsigned dispatch(struct sfc_dp *dp, uint64_t now)
{
    unsigned sent = 0;
    uint32_t slot;

    while ((slot = sfc_evtab_ready_peek(dp->tab)) != SFC_NONE) {
        struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        int node = sfc_credit_pick(dp->credit);
        if (node < 0)
            break;
        struct txq *q = &dp->txq[dp->node_txq[node]];
        if ((uint32_t)q->n + e->n_frames + 1 > TXQ_SIZE)
            break;
        uint16_t nf = build_event(dp, slot, (uint16_t)node, q);
        if (nf == 0)
            break;
        dp->st.frames_tx += nf;
        dp->st.events_sent++;
        dp->st.node_sent[node]++;
        dp->st.payload_bytes_sent += e->bytes;
        if (e->incomplete && !e->requeued) {
            dp->st.events_incomplete++;
            count_missing(dp, e);
        }
        ebf_hist_add(&dp->st.dispatch_ns, tsc_to_ns(dp, now - e->ready_tick));
        e->ready_tick = now;    /* from here on: when it was sent */
        sfc_evtab_mark_sent(dp->tab, slot, (uint16_t)node);
        sfc_credit_consume(dp->credit, (uint16_t)node);
        sent++;
    }
    return sent;
}

static unsigned flush_tx(struct sfc_dp *dp)
{
    unsigned work = 0;

    for (uint16_t i = 0; i < dp->n_txq; i++) {
        struct txq *q = &dp->txq[i];
        if (q->n == 0)
            continue;
        uint16_t k = rte_eth_tx_burst(q->port, 0, q->pkt, q->n);
        if (k < q->n)
            memmove(q->pkt, q->pkt + k, (size_t)(q->n - k) * sizeof(q->pkt[0]));
        q->n = (uint16_t)(q->n - k);
        dp->st.tx_refused += q->n;
        work += k;
    }
    return work;
}

/* --- Loop ------------------------------------------------------------------ */

unsigned sfc_dp_poll(struct sfc_dp *dp, int intake)
{
    uint64_t now = rte_get_tsc_cycles();
    unsigned work = poll_nodes(dp, now);
    uint64_t dropped = 0;

    work += sfc_nodes_check(dp, now);
    work += sfc_throttle_poll(dp, now);
    if (intake && intake_allowed(dp))
        work += poll_intake(dp, now);
    uint32_t head = sfc_evtab_building_head(dp->tab);
    if (head != SFC_NONE &&
        now - sfc_evtab_event(dp->tab, head)->first_tick >= dp->timeout_tsc) {
        work += sfc_evtab_expire(dp->tab, now, dp->timeout_tsc, 64, &dropped);
        dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
    }
    work += dispatch(dp, now);
    work += flush_tx(dp);
    return work;
}

/* Drop what is left at the end of a run, each event under its reason. */
static void drop_leftovers(struct sfc_dp *dp)
{
    static const enum sfc_lost by_state[] = {
        [SFC_EV_BUILDING] = SFC_LOST_STOPPED_BUILDING,
        [SFC_EV_READY] = SFC_LOST_STOPPED_NO_CREDIT,
        [SFC_EV_SENT] = SFC_LOST_STOPPED_UNACKED,
    };

    for (uint32_t s = 0; s < dp->c.capacity; s++) {
        struct sfc_event *e = sfc_evtab_event(dp->tab, s);
        if (e->state == SFC_EV_FREE)
            continue;
        dp->st.lost[by_state[e->state]]++;
        dp->st.lost_digest += ebf_mix64(e->event_id);
        ebf_idset_add(&dp->st.ledger_lost, e->event_id);
        sfc_evtab_drop(dp->tab, s);
    }
}

void sfc_dp_drain_begin(struct sfc_dp *dp)
{
    dp->drain_phase = 1;
    dp->drain_last_rx = rte_get_tsc_cycles();
    dp->drain_frames = dp->st.rx_frames;
}

unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done)
{
    uint64_t hz = rte_get_tsc_hz(), now;
    unsigned work;

    *done = 0;
    if (dp->drain_phase == 0)
        return 0;
    if (dp->drain_phase == 3) {
        *done = 1;
        return 0;
    }
    if (dp->drain_phase == 1) {
        /* Stage 1: keep taking input until it has been quiet a while. */
        work = sfc_dp_poll(dp, 1);
        now = rte_get_tsc_cycles();
        if (dp->st.rx_frames != dp->drain_frames) {
            dp->drain_frames = dp->st.rx_frames;
            dp->drain_last_rx = now;
        }
        if (now - dp->drain_last_rx < (uint64_t)(dp->c.drain_quiet_ms * 1e-3 * (double)hz))
            return work;
        /* Stage 2: time out what is building, dispatch, wait for every ack. */
        uint64_t dropped = 0;
        sfc_evtab_expire(dp->tab, now, 0, UINT32_MAX, &dropped);
        dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
        dp->drain_end = now + (uint64_t)(dp->c.drain_timeout_ms * 1e-3 * (double)hz);
        dp->drain_phase = 2;
        return work + 1;
    }
    struct sfc_evtab_counts k;
    work = sfc_dp_poll(dp, 0);
    sfc_evtab_counts(dp->tab, &k);
    if (k.building + k.ready + k.sent == 0 || rte_get_tsc_cycles() > dp->drain_end) {
        drop_leftovers(dp);
        SFC_LOG(INFO, "drained: %" PRIu64 " events sent, %" PRIu64 " acked\n",
                dp->st.events_sent, dp->st.acks);
        dp->drain_phase = 3;
        *done = 1;
    }
    return work;
}

void sfc_dp_run(struct sfc_dp *dp, const volatile sig_atomic_t *stop)
{
    struct ebf_idle idle = dp->c.idle;
    int done = 0;

    while (!*stop)
        ebf_idle_note(&idle, sfc_dp_poll(dp, 1));
    sfc_dp_drain_begin(dp);
    while (!done)
        ebf_idle_note(&idle, sfc_dp_drain_poll(dp, &done));
}

void sfc_dp_gauges(const struct sfc_dp *dp, struct sfc_gauges *g)
{
    struct sfc_evtab_counts k;

    memset(g, 0, sizeof(*g));
    sfc_evtab_counts(dp->tab, &k);
    g->building = k.building;
    g->ready = k.ready;
    g->unacked = k.sent;
    g->free_slots = k.free_slots;
    g->free_records = k.free_records;
    g->n_nodes = dp->c.n_nodes;
    for (uint16_t n = 0; n < dp->c.n_nodes; n++) {
        g->credits[n] = sfc_credit_available(dp->credit, n);
        g->inflight[n] = sfc_credit_inflight(dp->credit, n);
    }
    for (uint16_t n = 0; n < dp->c.n_nodes; n++) {
        g->alive[n] = dp->live[n].state == NODE_ALIVE;
        g->epoch[n] = dp->live[n].epoch;
    }
    g->throttled = dp->throttled;
    g->hdr_in_use = rte_mempool_in_use_count(dp->c.hdr_pool);
    g->clone_in_use = rte_mempool_in_use_count(dp->c.clone_pool);
    g->draining = dp->drain_phase == 1 || dp->drain_phase == 2;
}

const struct sfc_stats *sfc_dp_stats(const struct sfc_dp *dp)
{
    return &dp->st;
}
