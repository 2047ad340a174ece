/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_make.c - an SFC data plane built from its stages and torn down; its gauges. */
#include "sfc_dp.h"

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ebf_util.h"
#include "sfc_dist.h"
#include "sfc_dp_private.h"

extern int sfc_logtype;          /* sfc_dp.c's */
#define SFC_LOG(level, ...) rte_log(RTE_LOG_##level, sfc_logtype, "sfc: " __VA_ARGS__)

/* A frame the table drops (one segment: intake drops the others) loses
 * the table's reference. Not rte_pktmbuf_free: an event frame's chain
 * that held the frame and was freed first leaves its next stale
 * (rte_pktmbuf_prefree_seg clears it on the last reference only). */
static void free_mbuf(void *frame, void *arg)
{
    (void)arg;
    rte_pktmbuf_free_seg(frame);
}

int sfc_dp_check_node_ports(const struct sfc_conf *conf, char *err, size_t len)
{
    return sfc_tx_check_ports(conf, err, len);
}

/* The stages of dp (its conf set): 0, or -errno. */
static int make_stages(struct sfc_dp *dp)
{
    const struct sfc_conf *c = &dp->c;
    double hz = (double)rte_get_tsc_hz();
    uint16_t ro_port[SFC_MAX_READOUTS];
    /* a link per readout (memif pairs, one data plane): port i is the
     * i-th readout's, in --readout-mac's order */
    int pairs = c->n_more_rx && c->n_more_rx + 1u == c->n_readouts && c->workers <= 1;
    struct sfc_guard_conf gc = {
        .n_readouts = c->n_readouts, .readout_mac = c->readout_mac, .verify = c->verify,
        .verify_every = c->verify_every, .rx_port = c->rx_port, .multi_rx = c->n_more_rx != 0,
        .ro_port = pairs ? ro_port : NULL,
    };
    struct sfc_throttle_conf tc = {
        .on = c->throttle_on, .off = c->throttle_off, .capacity = c->capacity,
        .max_frames = c->max_frames, .refresh_tsc = (uint64_t)(EBF_THROTTLE_REFRESH_NS * 1e-9 * hz),
        .worker = c->worker, .quiet = c->ro_dist && c->worker != 0, .share = c->share,
    };
    int rc = sfc_tx_init(&dp->tx, c, c->node_dist ? c->node_dist->port : UINT32_MAX);
    struct sfc_nodes_conf nc = {
        .n_nodes = c->n_nodes, .node = c->node, .max_credits = c->max_credits, .mask = c->node_mask,
        .timeout_tsc = (uint64_t)(c->node_timeout_ms * 1e-3 * hz), .port_of = dp->tx.node_txq,
    };

    if (rc != 0)
        return rc;
    ro_port[0] = c->rx_port;
    for (uint16_t i = 0; pairs && i < c->n_more_rx; i++)
        ro_port[i + 1] = c->more_rx[i];
    sfc_guard_init(&dp->guard, &gc);
    sfc_throttle_init(&dp->thr, &tc);
    sfc_drain_init(&dp->drain, (uint64_t)(c->drain_quiet_ms * 1e-3 * hz),
                   (uint64_t)(c->drain_timeout_ms * 1e-3 * hz));
    return sfc_nodes_init(&dp->nodes, &nc);
}

/* The timers and the histograms and id sets of the statistics. */
static void init_clocks_and_stats(struct sfc_dp *dp)
{
    dp->rx_quiet_tsc = rte_get_tsc_hz();        /* 1 s */
    for (uint16_t i = 0; i < SFC_MAX_READOUTS; i++)
        dp->rx_heard[i] = rte_get_tsc_cycles();
    dp->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
    dp->timeout_tsc = (uint64_t)(dp->c.timeout_ms * 1e-3 * (double)rte_get_tsc_hz());
    dp->fo.grace_tsc = (uint64_t)((double)SFC_REPLAY_GRACE_NS * 1e-9 * (double)rte_get_tsc_hz());
    dp->fo.wait_max_tsc = (uint64_t)((double)SFC_REPLAY_WAIT_MAX_NS * 1e-9 *
                                     (double)rte_get_tsc_hz());
    dp->tick_tsc = rte_get_tsc_hz() / SFC_TICKS_PER_S;
    ebf_hist_init(&dp->st.build_ns);
    ebf_hist_init(&dp->st.build_timeout_ns);
    ebf_hist_init(&dp->st.dispatch_ns);
    ebf_hist_init(&dp->st.ack_ns);
    ebf_idset_init(&dp->st.ledger_acked);
    ebf_idset_init(&dp->st.ledger_lost);
    ebf_idset_init(&dp->st.ledger_late);
    ebf_idset_init(&dp->st.ledger_replay_acked);
    ebf_idset_init(&dp->st.ledger_fence_acked);
}

struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf)
{
    static const uint8_t zero[6];
    struct rte_ether_addr ea;
    struct sfc_dp *dp;
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
    if (dp->c.burst == 0 || dp->c.burst > SFC_BURST_MAX)
        dp->c.burst = 32;
    if (conf->release_ms) {
        dp->low = rte_zmalloc("sfc_lowmark", sizeof(*dp->low), RTE_CACHE_LINE_SIZE);
        if (dp->low)
            sfc_lowmark_init(dp->low);
        /* the epoch tells this incarnation from an earlier one of the place */
        sfc_release_init(&dp->rel, conf->sfc_id, (uint16_t)(ebf_now_ns() / 1000000000ull),
                         (uint64_t)conf->release_ms * 1000000ull);
    }
    struct sfc_evtab_conf tc = {
        .capacity = conf->capacity, .max_frames = conf->max_frames,
        .n_sources = conf->n_sources, .max_event = conf->max_event, .done_window = 1u << 16,
        .free_frame = free_mbuf, .lowmark = dp->low,
    };
    dp->tab = conf->release_ms && !dp->low ? NULL : sfc_evtab_create(&tc);
    if (!dp->tab || make_stages(dp) != 0) {
        sfc_dp_destroy(dp);
        errno = ENOMEM;
        return NULL;
    }
    rte_eth_macaddr_get(conf->rx_port, &ea);
    memcpy(dp->rx_mac, memcmp(conf->mac, zero, 6) ? conf->mac : ea.addr_bytes, 6);
    init_clocks_and_stats(dp);
    return dp;
}

void sfc_dp_destroy(struct sfc_dp *dp)
{
    if (!dp)
        return;
    sfc_tx_fini(&dp->tx);
    sfc_nodes_fini(&dp->nodes);
    sfc_evtab_destroy(dp->tab);
    rte_free(dp->low);
    rte_free(dp);
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
        g->credits[n] = sfc_credit_available(dp->nodes.credit, n);
        g->inflight[n] = sfc_credit_inflight(dp->nodes.credit, n);
        g->alive[n] = sfc_nodes_alive(&dp->nodes, n);
        g->epoch[n] = sfc_nodes_epoch(&dp->nodes, n);
    }
    g->throttled = sfc_throttle_is_on(&dp->thr);
    g->hdr_in_use = rte_mempool_in_use_count(dp->c.hdr_pool);
    g->clone_in_use = rte_mempool_in_use_count(dp->c.clone_pool);
    g->draining = dp->drain.phase == SFC_DRAIN_QUIET || dp->drain.phase == SFC_DRAIN_ACKS;
    g->leave_at = dp->rel.flags == EBF_RELF_LEAVE ? dp->rel.at : 0;
    g->join_at = dp->join_at;
}

const struct sfc_stats *sfc_dp_stats(const struct sfc_dp *dp)
{
    return &dp->st;
}
