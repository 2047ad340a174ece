/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dist.c - workers on a shared port: receive on worker 0's lcore, each frame to its owner's ring. */
#include "sfc_dist.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>


/* A ring to each worker beyond the first, on the port's socket. */
static int make_rings(struct sfc_dist *d, uint32_t size)
{
    int socket = rte_eth_dev_socket_id(d->port);
    char name[RTE_RING_NAMESIZE];

    for (uint16_t w = 1; w < d->n; w++) {
        snprintf(name, sizeof(name), "sfc_dist%u_%u_%u", d->kind, d->port, w);
        d->ring[w] = rte_ring_create(name, size, socket < 0 ? SOCKET_ID_ANY : socket,
                                     RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
        if (!d->ring[w])
            return -1;
    }
    return 0;
}

struct sfc_dist *sfc_dist_create(const struct sfc_conf *c, enum sfc_dist_kind kind,
                                 uint16_t port, uint32_t ring_size)
{
    static const uint8_t zero[6];
    struct sfc_dist *d = rte_zmalloc("sfc_dist", sizeof(*d), RTE_CACHE_LINE_SIZE);
    uint32_t size = ring_size ? ring_size : SFC_DIST_RING_DEFAULT;
    uint32_t burst = c->burst && c->burst <= SFC_BURST_MAX ? c->burst : 32;
    struct rte_eth_dev_info info;
    struct rte_ether_addr ea;

    if (!d) {
        errno = ENOMEM;
        return NULL;
    }
    d->port = port;
    d->n = c->workers;
    d->kind = (uint8_t)kind;
    d->room = burst < size ? burst : size;
    d->n_rxq = rte_eth_dev_info_get(port, &info) == 0 && info.nb_rx_queues > 1
                   ? info.nb_rx_queues : 1;
    rte_eth_macaddr_get(port, &ea);
    memcpy(d->mac, memcmp(c->mac, zero, 6) ? c->mac : ea.addr_bytes, 6);
    for (uint16_t i = 0; i < c->n_nodes && kind == SFC_DIST_NODES; i++) {
        d->owner[d->n_nodes] = (uint8_t)(i % d->n);
        memcpy(d->node_mac[d->n_nodes++], c->node[i].mac, 6);
    }
    if (make_rings(d, size) != 0) {
        sfc_dist_destroy(d);
        errno = ENOMEM;
        return NULL;
    }
    return d;
}

void sfc_dist_destroy(struct sfc_dist *d)
{
    struct rte_mbuf *m[64];
    unsigned k;

    if (!d)
        return;
    for (uint16_t w = 1; w < d->n; w++) {
        if (!d->ring[w])
            continue;
        while ((k = rte_ring_sc_dequeue_burst(d->ring[w], (void **)m, 64, NULL)) > 0)
            rte_pktmbuf_free_bulk(m, k);
        rte_ring_free(d->ring[w]);
    }
    rte_free(d);
}

int sfc_dist_check_txq(uint16_t port, uint16_t workers, char *err, size_t len)
{
    struct rte_eth_dev_info info;
    char name[RTE_ETH_NAME_MAX_LEN] = "?";

    rte_eth_dev_get_name_by_port(port, name);
    if (rte_eth_dev_info_get(port, &info) != 0) {
        snprintf(err, len, "node port %u (%s): cannot read its device info", port, name);
        return -1;
    }
    if (info.max_tx_queues < workers) {
        snprintf(err, len, "node port %u (%s, driver %s) offers %u tx queue%s; --workers %u on "
                 "one node port needs %u (a tx queue per worker: give the device more queues, "
                 "e.g. qpairs=%u for net_af_packet, or a node port per worker)", port, name,
                 info.driver_name, info.max_tx_queues, info.max_tx_queues == 1 ? "" : "s",
                 workers, workers, workers);
        return -1;
    }
    if (info.nb_tx_queues != 0 && info.nb_tx_queues < workers) {   /* started already */
        snprintf(err, len, "node port %u (%s, driver %s) was started with %u tx queue%s; "
                 "--workers %u on one node port needs %u (a tx queue per worker)", port, name,
                 info.driver_name, info.nb_tx_queues, info.nb_tx_queues == 1 ? "" : "s",
                 workers, workers);
        return -1;
    }
    return 0;
}

uint16_t sfc_dist_rxqs(uint16_t port, uint16_t workers)
{
    struct rte_eth_dev_info info;

    if (rte_eth_dev_info_get(port, &info) != 0 || info.max_rx_queues < 2)
        return 1;
    return info.max_rx_queues < workers ? info.max_rx_queues : workers;
}

void sfc_dist_macs(const struct sfc_dist *d)
{
    static const uint8_t zero[6];
    struct rte_ether_addr ea;

    if (memcmp(d->mac, zero, 6) == 0)
        return;                 /* a virtual port without a MAC: no filter */
    for (uint16_t w = 1; w < d->n; w++) {
        sfc_worker_mac(d->mac, w, ea.addr_bytes);
        if (rte_eth_dev_mac_addr_add(d->port, &ea, 0) != 0) {
            rte_eth_promiscuous_enable(d->port);    /* no filter slot: take every frame */
            return;
        }
    }
}

/* The worker a frame belongs to (0: worker 0's, also for what is no
 * one's: it counts it under its reason). */
static inline uint16_t owner(const struct sfc_dist *d, const struct rte_mbuf *m)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

    if (m->data_len < 12)
        return 0;
    if (d->kind == SFC_DIST_READOUT) {  /* sfc_worker_mac, inverted */
        uint8_t w = (uint8_t)(p[3] - d->mac[3]);
        if (w >= d->n || p[0] != d->mac[0] || p[1] != d->mac[1] || p[2] != d->mac[2] ||
            p[4] != d->mac[4] || p[5] != d->mac[5])
            return 0;
        return w;
    }
    for (uint16_t i = 0; i < d->n_nodes; i++)
        if (memcmp(p + 6, d->node_mac[i], 6) == 0)
            return d->owner[i];
    return 0;
}

/* Worker 0: hand out[w] to each ring; what a ring has no room for is
 * dropped and counted in k (received by worker 0, dropped for that
 * reason). */
static void hand_over(struct sfc_dist *d, struct rte_mbuf *out[][SFC_BURST_MAX],
                      const uint16_t *cnt, struct sfc_dist_counts *k)
{
    for (uint16_t w = 1; w < d->n; w++) {
        if (cnt[w] == 0)
            continue;
        unsigned took = rte_ring_sp_enqueue_burst(d->ring[w], (void **)out[w], cnt[w], NULL);
        k->handed += took;
        if (took == cnt[w])
            continue;
        for (unsigned j = took; j < cnt[w]; j++)
            k->ring_full_bytes += out[w][j]->pkt_len;
        k->ring_full += cnt[w] - took;
        rte_pktmbuf_free_bulk(out[w] + took, cnt[w] - took);
    }
}

uint16_t sfc_dist_take(struct sfc_dist *d, uint16_t worker, struct rte_mbuf **pkts, uint16_t max,
                       struct sfc_dist_counts *k)
{
    struct rte_mbuf *out[SFC_WORKERS_MAX][SFC_BURST_MAX];
    uint16_t cnt[SFC_WORKERS_MAX] = {0}, own = 0;

    memset(k, 0, sizeof(*k));
    if (worker != 0)
        return (uint16_t)rte_ring_sc_dequeue_burst(d->ring[worker], (void **)pkts, max, NULL);
    for (uint16_t w = 1; w < d->n; w++)
        if (rte_ring_free_count(d->ring[w]) < d->room) {
            k->held = 1;        /* the link backs up until worker w takes some */
            return 0;
        }
    uint16_t n = rte_eth_rx_burst(d->port, 0, pkts, max);
    for (uint16_t q = 1; q < d->n_rxq && n < max; q++)
        n = (uint16_t)(n + rte_eth_rx_burst(d->port, q, pkts + n, (uint16_t)(max - n)));
    for (uint16_t i = 0; i < n && i < 2; i++)
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
    for (uint16_t i = 0; i < n; i++) {
        if (i + 2 < n)
            rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 2], void *));  /* its MACs */
        uint16_t w = owner(d, pkts[i]);
        if (w == 0)
            pkts[own++] = pkts[i];
        else
            out[w][cnt[w]++] = pkts[i];
    }
    if (own != n)
        hand_over(d, out, cnt, k);
    return own;
}

unsigned sfc_dist_flush(struct sfc_dist *d, uint16_t w, uint64_t *bytes)
{
    struct rte_mbuf *m[64];
    unsigned k, n = 0;

    *bytes = 0;
    while (w && (k = rte_ring_sc_dequeue_burst(d->ring[w], (void **)m, 64, NULL)) > 0) {
        for (unsigned j = 0; j < k; j++)
            *bytes += m[j]->pkt_len;
        n += k;
        rte_pktmbuf_free_bulk(m, k);
    }
    return n;
}

unsigned sfc_dist_pending(const struct sfc_dist *d, uint16_t w)
{
    return w >= 1 && w < d->n ? rte_ring_count(d->ring[w]) : 0;
}
