/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.c - SFC poll loop: intake and assembly, the loop over both sides, the staged drain. */
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
#include <rte_prefetch.h>

#include "ebf_kv.h"
#include "ebf_mix.h"
#include "ebf_util.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

RTE_LOG_REGISTER_DEFAULT(sfc_logtype, INFO);
#define SFC_LOG(level, ...) rte_log(RTE_LOG_##level, sfc_logtype, "sfc: " __VA_ARGS__)

static void free_mbuf(void *frame, void *arg)
{
    (void)arg;
    rte_pktmbuf_free(frame);
}

/* One txq per distinct node port of the nodes served; each node's txq, and
 * our MAC on its port. */
static void map_node_ports(struct sfc_dp *dp)
{
    struct rte_ether_addr ea;

    for (uint16_t i = 0; i < dp->c.n_nodes; i++) {
        uint16_t q = 0;
        if (!sfc_serves(dp, i))
            continue;           /* another worker's: never polled, never sent to */
        while (q < dp->n_txq && dp->txq[q].port != dp->c.node[i].port)
            q++;
        if (q == dp->n_txq) {
            dp->txq[dp->n_txq].port = dp->c.node[i].port;
            if (dp->c.node_dist && dp->c.node_dist->port == dp->c.node[i].port)
                dp->txq[dp->n_txq].queue = dp->c.worker;    /* a tx queue per worker */
            dp->n_txq++;
        }
        dp->node_txq[i] = q;
        dp->txq_nodes[q] |= 1ull << i;
        rte_eth_macaddr_get(dp->c.node[i].port, &ea);
        memcpy(dp->node_port_mac[i], ea.addr_bytes, 6);
    }
}

/* The segments of the longest event frame at mtu: its header mbuf and one
 * piece of 1 byte per fragment header that fits. */
static uint16_t max_segs(uint16_t mtu)
{
    return (uint16_t)(1 + ((mtu ? mtu : 1500) - EBF_EVENT_HLEN) / (EBF_FRAG_HLEN + 1));
}

static int check_node_port(uint16_t port, uint16_t mtu, char *err, size_t len)
{
    struct rte_eth_dev_info info;
    char name[RTE_ETH_NAME_MAX_LEN] = "?";
    uint16_t segs = max_segs(mtu);

    rte_eth_dev_get_name_by_port(port, name);
    if (rte_eth_dev_info_get(port, &info) != 0) {
        snprintf(err, len, "node port %u (%s): cannot read its device info", port, name);
        return -1;
    }
    if (!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
        snprintf(err, len, "node port %u (%s, driver %s) does not offer multi-segment transmit "
                 "(RTE_ETH_TX_OFFLOAD_MULTI_SEGS): the SFC sends each event frame as a chain "
                 "of mbufs; use a driver that offers it (net_memif, net_ring, net_af_packet, "
                 "most NICs)", port, name, info.driver_name);
    else if (info.tx_desc_lim.nb_seg_max < segs || info.tx_desc_lim.nb_mtu_seg_max < segs)
        snprintf(err, len, "node port %u (%s, driver %s) takes at most %u segments per frame; "
                 "an event frame at MTU %u can have %u", port, name, info.driver_name,
                 info.tx_desc_lim.nb_seg_max < info.tx_desc_lim.nb_mtu_seg_max
                     ? info.tx_desc_lim.nb_seg_max : info.tx_desc_lim.nb_mtu_seg_max,
                 mtu ? mtu : 1500, segs);
    else
        return 0;
    return -1;
}

int sfc_dp_check_node_ports(const struct sfc_conf *conf, char *err, size_t len)
{
    for (uint16_t i = 0; i < conf->n_nodes; i++)
        if (check_node_port(conf->node[i].port, conf->mtu, err, len) != 0)
            return -1;
    return 0;
}

struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf)
{
    struct sfc_dp *dp;
    struct rte_ether_addr ea;
    char err[320];

    if (sfc_dp_check_node_ports(conf, err, sizeof(err)) != 0) {
        SFC_LOG(ERR, "%s\n", err);
        errno = ENOTSUP;
        return NULL;
    }
    dp = rte_zmalloc("sfc_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);
    if (!dp) {
        errno = ENOMEM;
        return NULL;
    }
    dp->c = *conf;
    if (dp->c.burst == 0 || dp->c.burst > BURST_MAX)
        dp->c.burst = 32;
    if (dp->c.verify_every == 0)
        dp->c.verify_every = 1;
    struct sfc_evtab_conf tc = {
        .capacity = conf->capacity, .max_frames = conf->max_frames,
        .n_sources = conf->n_sources, .done_window = 1u << 16,
        .free_frame = free_mbuf,
    };
    dp->tab = sfc_evtab_create(&tc);
    dp->credit = sfc_credit_create(conf->n_nodes, conf->max_credits);
    dp->txq = rte_zmalloc("sfc_txq", sizeof(struct txq) * conf->n_nodes, RTE_CACHE_LINE_SIZE);
    dp->lat = rte_zmalloc("sfc_lat", sizeof(*dp->lat) * conf->capacity, RTE_CACHE_LINE_SIZE);
    if (!dp->tab || !dp->credit || !dp->txq || !dp->lat)
        goto fail;
    static const uint8_t zero[6];
    rte_eth_macaddr_get(conf->rx_port, &ea);
    memcpy(dp->rx_mac, memcmp(conf->mac, zero, 6) ? conf->mac : ea.addr_bytes, 6);
    map_node_ports(dp);
    dp->cur_rx = conf->rx_port;
    dp->rx_quiet_tsc = rte_get_tsc_hz();        /* 1 s */
    for (uint16_t i = 0; i < SFC_MAX_READOUTS; i++)
        dp->rx_heard[i] = rte_get_tsc_cycles();
    dp->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
    dp->timeout_tsc = (uint64_t)(conf->timeout_ms * 1e-3 * (double)rte_get_tsc_hz());
    dp->tick_tsc = rte_get_tsc_hz() / SFC_TICKS_PER_S;
    ebf_hist_init(&dp->st.build_ns);
    ebf_hist_init(&dp->st.build_timeout_ns);
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
    rte_free(dp->lat);
    rte_free(dp);
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

/* Whether this frame of source is one whose CRC is checked (--verify):
 * every frame, the first and then every verify_every-th of each source, or
 * none. */
static inline int verify_due(struct sfc_dp *dp, uint16_t source)
{
    if (dp->c.verify != SFC_VERIFY_SAMPLED)
        return dp->c.verify == SFC_VERIFY_FULL;
    if (dp->verify_left[source] != 0) {
        dp->verify_left[source]--;
        return 0;
    }
    dp->verify_left[source] = dp->c.verify_every - 1;
    return 1;
}

/* Parse a frame from the readout port into l and h: 1 when it is a valid
 * fragment frame sent to us (unicast) by the readout its source is bound
 * to, 0 when it is not (counted under its reason). */
static int intake_parse(struct sfc_dp *dp, struct rte_mbuf *m, struct ebf_l2l3 *l,
                        struct ebf_frag_hdr *h)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    size_t used;

    if (m->nb_segs != 1) {
        dp->st.drop[SFC_DROP_MULTISEG]++;
        return 0;
    }
    enum ebf_reason r = ebf_parse_l2l3(p, m->data_len, dp->c.udp_port, l);
    if (r == EBF_R_OK && l->type != EBF_T_FRAGMENT) {
        dp->st.drop[SFC_DROP_WRONG_TYPE]++;
        return 0;
    }
    if (r == EBF_R_OK)
        r = ebf_frag_parse(p + l->hlen, l->len, dp->c.n_sources, 0, h, &used);
    if (r == EBF_R_OK && verify_due(dp, h->source)) {
        dp->st.rx_verified++;
        if (!ebf_frag_crc_ok(p + l->hlen, h))
            r = EBF_R_BAD_CHECKSUM;
    }
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return 0;
    }
    if (l->dst_mac[0] & 1) {
        dp->st.drop[SFC_DROP_NOT_UNICAST]++;    /* broadcast or multicast */
        return 0;
    }
    if (memcmp(l->dst_mac, dp->rx_mac, 6) != 0) {
        dp->st.drop[SFC_DROP_NOT_FOR_US]++;
        return 0;
    }
    enum sfc_drop d = sfc_source_check(dp, h->source, l->src_mac);
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
    enum sfc_add_result a = sfc_evtab_add(dp->tab, h, m, l->hlen, now, &slot);

    (void)now;
    switch (a) {
    case SFC_ADD_PARTIAL:
        sfc_lat_note(&dp->lat[slot], h->event_id, h->tx_ns);
        return 1;
    case SFC_ADD_COMPLETE:
        sfc_lat_note(&dp->lat[slot], h->event_id, h->tx_ns);
        dp->st.events_complete++;
        dp->st.last_by_source[h->source]++;
        ebf_hist_add(&dp->st.build_ns, sfc_lat_age(&dp->lat[slot], h->event_id, dp->rx_now_ns));
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

/* How far ahead intake prefetches: mbuf headers, then frame data. */
#define PREFETCH_MBUF 4
#define PREFETCH_DATA 2

/*
 * One receive burst of port in two passes (the l3fwd / VPP shape): first
 * every frame's headers are parsed (and its CRC checked, --verify), the
 * mbuf and data of frames a few ahead prefetched, and the index bucket of
 * each valid fragment's event prefetched; then the valid ones go through
 * the sequence and readout checks and into the table, their buckets in
 * cache by then.
 */
static unsigned poll_port(struct sfc_dp *dp, uint16_t port, uint64_t now)
{
    struct rte_mbuf *pkts[BURST_MAX], *drop[BURST_MAX];
    struct ebf_l2l3 l[BURST_MAX];
    struct ebf_frag_hdr h[BURST_MAX];
    uint8_t ok[BURST_MAX];
    uint16_t n = dp->c.ro_dist && port == dp->c.rx_port
                     ? sfc_dist_take(dp->c.ro_dist, dp, pkts, dp->c.burst)
                     : rte_eth_rx_burst(port, 0, pkts, dp->c.burst);
    uint16_t nd = 0;
    uint64_t bytes = 0;

    if (n)
        dp->rx_now_ns = ebf_now_ns();    /* build times end here (sfc_lat.h) */
    for (uint16_t i = 0; i < n && i < PREFETCH_MBUF; i++)
        rte_prefetch0(pkts[i]);
    for (uint16_t i = 0; i < n && i < PREFETCH_DATA; i++)
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
    for (uint16_t i = 0; i < n; i++) {
        if (i + PREFETCH_MBUF < n)
            rte_prefetch0(pkts[i + PREFETCH_MBUF]);
        if (i + PREFETCH_DATA < n)
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_DATA], void *));
        bytes += pkts[i]->pkt_len;
        ok[i] = (uint8_t)intake_parse(dp, pkts[i], &l[i], &h[i]);
        if (ok[i])
            sfc_evtab_prefetch(dp->tab, h[i].event_id);
        else
            drop[nd++] = pkts[i];
    }
    for (uint16_t i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        sfc_seq_note(dp, h[i].source, h[i].seq);
        sfc_source_seen(dp, h[i].source, h[i].event_id);
        sfc_readout_note(dp, l[i].src_mac);
        if (dp->c.n_more_rx)
            sfc_readout_port(dp, l[i].src_mac);
        if (!intake_store(dp, pkts[i], &l[i], &h[i], now))
            drop[nd++] = pkts[i];
    }
    dp->st.rx_frames += n;       /* per burst */
    dp->st.rx_bytes += bytes;
    if (nd)
        rte_pktmbuf_free_bulk(drop, nd);
    return n;
}

/* Port i of the readout ports (0: rx_port), unless it has been silent
 * for rx_quiet_tsc while another one took frames in the last 1/16 of that:
 * then only every 1024 passes (all silent, as before a run or under a
 * throttle that holds every readout, all are polled). A readout that died
 * leaves its memif link silent, and the memif PMD of DPDK 22.11 unmaps a
 * vanished peer's rings from its interrupt thread while the lcore may be
 * in a burst on them (docs/status.md): fewer bursts, fewer chances. */
static unsigned poll_rx(struct sfc_dp *dp, uint16_t i, uint16_t port, uint64_t now)
{
    if (now - dp->rx_heard[i] > dp->rx_quiet_tsc && now - dp->rx_any < dp->rx_quiet_tsc / 16 &&
        (dp->polls & 1023) != 0)
        return 0;
    dp->cur_rx = port;
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
    dp->cur_rx = dp->c.rx_port;
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
     * throttle before the link backs up. And room for one burst's new
     * events (at most a quarter of the table): a readout that was not scheduled in time to obey the
     * throttle (cores shared) is held back by the link, not refused
     * events (event_table_full). */
    if (k.ready + k.sent >= dp->c.capacity - dp->c.capacity / 8 ||
        k.free_slots < RTE_MIN(dp->c.burst, dp->c.capacity / 4) ||
        k.free_records < dp->c.max_frames / 8) {
        dp->st.backpressure_polls++;
        return 0;
    }
    return 1;
}

/* --- Loop ------------------------------------------------------------------ */

/* Time out at most 64 building events that are due, one at a time so that
 * each one's build time goes into build_timeout_ns. Returns how many. */
static unsigned expire(struct sfc_dp *dp, uint64_t now, uint64_t *dropped)
{
    uint64_t now_ns = 0;
    unsigned n = 0;

    for (uint32_t head; n < 64 && (head = sfc_evtab_building_head(dp->tab)) != SFC_NONE; n++) {
        const struct sfc_event *e = sfc_evtab_event(dp->tab, head);
        if (now - e->first_tick < dp->timeout_tsc)
            break;
        now_ns = now_ns ? now_ns : ebf_now_ns();
        ebf_hist_add(&dp->st.build_timeout_ns, sfc_lat_age(&dp->lat[head], e->event_id, now_ns));
        sfc_evtab_expire(dp->tab, now, dp->timeout_tsc, 1, dropped);
    }
    return n;
}

unsigned sfc_dp_poll(struct sfc_dp *dp, int intake)
{
    uint64_t now = rte_get_tsc_cycles();
    unsigned work = sfc_poll_nodes(dp, now), in = 0;
    uint64_t dropped = 0;
    int tick = now >= dp->next_tick;

    /* Periodic work on a TSC timer: node liveness, the throttle's refresh.
     * The throttle's on/off follows the table's fill, which changes only
     * on intake and acks: it is looked at on those passes too. */
    if (tick) {
        dp->next_tick = now + dp->tick_tsc;
        work += sfc_nodes_check(dp, now);
    }
    if (intake && intake_allowed(dp))
        in = poll_intake(dp, now);
    if (tick || work || in)
        work += sfc_throttle_poll(dp, now);
    work += in;
    work += expire(dp, now, &dropped);
    dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
    work += sfc_dispatch(dp, now);
    work += sfc_flush_tx(dp);
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
    dp->drain_frames = dp->st.rx_frames + dp->ro_handed;
}

/* Drain stage 1: keep taking input until it has been quiet drain_quiet_ms;
 * then time out what is building and move to stage 2. */
static unsigned drain_quiet(struct sfc_dp *dp)
{
    double hz = (double)rte_get_tsc_hz();
    unsigned work = sfc_dp_poll(dp, 1);
    uint64_t now = rte_get_tsc_cycles();

    uint64_t frames = dp->st.rx_frames + dp->ro_handed;

    if (frames != dp->drain_frames) {
        dp->drain_frames = frames;
        dp->drain_last_rx = now;
    }
    /* On a shared readout port, worker w >= 1 waits until worker 0 no
     * longer reads the port, then until its ring is quiet too. */
    if (dp->c.ro_dist && dp->c.worker != 0 && !dp->c.ro_dist->feed_done)
        return work;
    if (now - dp->drain_last_rx < (uint64_t)(dp->c.drain_quiet_ms * 1e-3 * hz))
        return work;
    if (dp->c.ro_dist && dp->c.worker != 0)
        sfc_dist_flush(dp->c.ro_dist, dp);  /* what it could not take: counted */
    uint64_t dropped = 0;
    sfc_evtab_expire(dp->tab, now, 0, UINT32_MAX, &dropped);
    dp->st.drop[SFC_DROP_PARTIAL_AT_TIMEOUT] += dropped;
    dp->drain_end = now + (uint64_t)(dp->c.drain_timeout_ms * 1e-3 * hz);
    dp->drain_phase = 2;
    return work + 1;
}

/* Drain stage 2: no input; dispatch and wait for every ack until the table
 * is empty or drain_timeout_ms has passed, then drop what is left. */
static unsigned drain_acks(struct sfc_dp *dp, int *done)
{
    struct sfc_evtab_counts k;
    unsigned work = sfc_dp_poll(dp, 0);

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

unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done)
{
    *done = 0;
    switch (dp->drain_phase) {
    case 0:
        return 0;
    case 1:
        return drain_quiet(dp);
    case 2:
        return drain_acks(dp, done);
    default:
        *done = 1;
        return 0;
    }
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
