/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_rig.c - the SFC data-plane test rig: EAL, crossed net_ring ports, hand-made fragment and credit frames. */
#include "sfc_rig.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ring.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "test-eal.h"

const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x00};
const uint8_t node1_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x01};
const uint8_t ro_mac[6] = {2, 0, 0, 0, 0, 9};
const uint8_t ro2_mac[6] = {2, 0, 0, 0, 0, 10};      /* a second readout */
const uint8_t stranger_mac[6] = {2, 0x66, 0, 0, 0, 1};

/* EAL in this (forked) test process, four ports joined by rings:
 * readout -> sfc_rx, sfc_node <-> node. */
void rig_up_opts(struct rig *g, const struct rig_opts *o)
{
    test_eal_init();

    struct rte_ring *r_in = test_ring("r_in", 1024), *r_down = test_ring("r_down", 1024);
    struct rte_ring *r_up = test_ring("r_up", 1024);
    struct rte_ring *r_void1 = test_ring("r_void1", 1024), *r_void2 = test_ring("r_void2", 1024);
    g->ro_port = test_ring_port("ro", r_void1, r_in);
    g->sfc_rx = test_ring_port("sfcrx", r_in, r_void1);   /* throttle frames to ro */
    (void)r_void2;
    g->sfc_node = test_ring_port("sfcnode", r_up, r_down);
    g->node_port = test_ring_port("node", r_down, r_up);
    uint16_t mtu = o->mtu ? o->mtu : 1500;
    g->pool = ebf_pool_create("test_pool", 4095,
                              mtu <= 1500 ? 2048 : (uint16_t)(mtu + EBF_L2_MAX_HLEN + 128), 0);
    ck_assert_ptr_nonnull(g->pool);
    struct rte_mempool *hdr = ebf_pool_create("test_hdr", 1023, 128, 0);
    struct rte_mempool *clone = ebf_pool_create("test_clone", 4095, 0, 0);
    ck_assert_ptr_nonnull(hdr);
    ck_assert_ptr_nonnull(clone);
    uint16_t ports[] = {g->ro_port, g->sfc_rx, g->sfc_node, g->node_port};
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(ebf_port_start(ports[i], g->pool, 0, 512, 512), 0);

    struct rte_ether_addr ea;
    rte_eth_macaddr_get(g->sfc_rx, &ea);
    memcpy(g->sfc_rx_mac, ea.addr_bytes, 6);
    rte_eth_macaddr_get(g->sfc_node, &ea);
    memcpy(g->sfc_node_mac, ea.addr_bytes, 6);

    struct sfc_conf c = {
        .rx_port = g->sfc_rx, .n_sources = o->n_sources ? o->n_sources : N_SOURCES,
        .udp_port = EBF_UDP_PORT_DEFAULT, .max_event = o->max_event,
        .n_nodes = o->n_nodes ? o->n_nodes : 1, .capacity = 64,
        .max_frames = o->max_frames ? o->max_frames : 1024,
        .max_credits = 16, .timeout_ms = o->timeout_ms, .node_timeout_ms = o->node_timeout_ms,
        .mtu = mtu, .burst = 32, .hdr_pool = hdr,
        .clone_pool = clone, .drain_quiet_ms = 10, .drain_timeout_ms = 100,
    };
    c.node[0].port = g->sfc_node;
    memcpy(c.node[0].mac, node_mac, 6);
    c.node[1].port = g->sfc_node;
    memcpy(c.node[1].mac, node1_mac, 6);
    c.n_readouts = o->n_readouts;
    c.verify = o->verify;
    c.verify_every = o->verify_every;
    c.release_ms = o->release_ms;
    c.sfc_dead_ms = o->sfc_dead_ms;
    memcpy(c.readout_mac[0], ro_mac, 6);
    memcpy(c.readout_mac[1], ro2_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    g->dp = sfc_dp_create(&c);
    ck_assert_ptr_nonnull(g->dp);
}

void rig_up(struct rig *g, double timeout_ms)
{
    struct rig_opts o = {.timeout_ms = timeout_ms};
    rig_up_opts(g, &o);
}

void rig_down(struct rig *g)
{
    sfc_dp_destroy(g->dp);
    ebf_eal_cleanup();
}

uint64_t rig_tx_ns = 1000;

/* One single-piece fragment frame of (source, event) to dst. */
struct rte_mbuf *fragment(struct rig *g, const uint8_t dst[6], uint16_t source,
                          uint64_t event)
{
    return fragment_seq(g, dst, source, event, (uint32_t)event);
}

/* The same with a given sequence number, from the readout ro_mac. */
struct rte_mbuf *fragment_seq(struct rig *g, const uint8_t dst[6], uint16_t source,
                              uint64_t event, uint32_t seq)
{
    return fragment_from(g, ro_mac, dst, source, event, seq);
}

/* The same from the MAC src. */
struct rte_mbuf *fragment_from(struct rig *g, const uint8_t src[6], const uint8_t dst[6],
                               uint16_t source, uint64_t event, uint32_t seq)
{
    return fragment_flagged(g, src, dst, source, event, seq, 0);
}

/* The same with the fragment header's flags. */
struct rte_mbuf *fragment_flagged(struct rig *g, const uint8_t src[6], const uint8_t dst[6],
                                  uint16_t source, uint64_t event, uint32_t seq, uint16_t flags)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, src, 6);
    memcpy(a.dst_mac, dst, 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_FRAG_HLEN + FRAG_LEN);
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + FRAG_LEN);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, FRAG_LEN, source, event, 0);
    struct ebf_frag_hdr h = {.source = source, .seq = seq, .event_id = event,
                             .frag_len = FRAG_LEN, .piece_len = FRAG_LEN, .tx_ns = rig_tx_ns,
                             .flags = flags};
    ebf_frag_write(p + EBF_ETH_HLEN, &h);
    return m;
}

void send_frames(uint16_t port, struct rte_mbuf **m, uint16_t n)
{
    ck_assert_uint_eq(rte_eth_tx_burst(port, 0, m, n), n);
}

/* A credit frame from node 0, epoch 1: credits and acks. */
void credit(struct rig *g, uint16_t credits, const struct ebf_ack *acks, uint16_t n)
{
    credit_from(g, 0, 1, credits, acks, n);
}

/* A credit frame from node (0 or 1) of incarnation epoch. */
void credit_from(struct rig *g, uint16_t node, uint32_t epoch, uint16_t credits,
                 const struct ebf_ack *acks, uint16_t n)
{
    credit_to(g, g->sfc_node_mac, node, epoch, credits, acks, n);
}

/* The same to the MAC dst. */
void credit_to(struct rig *g, const uint8_t dst[6], uint16_t node, uint32_t epoch,
               uint16_t credits, const struct ebf_ack *acks, uint16_t n)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.dst_mac, dst, 6);
    memcpy(a.src_mac, node ? node1_mac : node_mac, 6);
    size_t len = ebf_credit_len(n);
    ck_assert_ptr_nonnull(m);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {.node_id = node, .credits = credits, .n_acks = n, .epoch = epoch};
    ebf_credit_write(p + EBF_ETH_HLEN, &h, acks);
    send_frames(g->node_port, &m, 1);
}

void poll_n(struct rig *g, int n)
{
    for (int i = 0; i < n; i++)
        sfc_dp_poll(g->dp, 1);
}

/* Receive up to max frames at the node. */
uint16_t node_rx(struct rig *g, struct rte_mbuf **m, uint16_t max)
{
    return rte_eth_rx_burst(g->node_port, 0, m, max);
}

/* The fragments of event id from the sources in mask, each with the next
 * sequence number of its source. */
void send_event(struct rig *g, uint64_t id, unsigned mask)
{
    send_event_flagged(g, id, mask, 0);
}

/* The same with the fragment headers' flags. */
void send_event_flagged(struct rig *g, uint64_t id, unsigned mask, uint16_t flags)
{
    struct rte_mbuf *m[N_SOURCES];
    uint16_t n = 0;

    for (uint16_t s = 0; s < N_SOURCES; s++)
        if (mask & (1u << s))
            m[n++] = fragment_flagged(g, ro_mac, g->sfc_rx_mac, s, id, g->seq[s]++, flags);
    send_frames(g->ro_port, m, n);
}

/* Read every event frame at the node port: per frame its event id, the
 * node it was addressed to (0 or 1) and (the first 64) its flags; returns
 * the number of frames. */
unsigned node_take(struct rig *g, uint64_t *ids, uint8_t *to, unsigned max)
{
    struct rte_mbuf *rx[64];
    unsigned got = 0;
    uint16_t n;

    while ((n = node_rx(g, rx, 64)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            const uint8_t *p = rte_pktmbuf_mtod(rx[i], const uint8_t *);
            struct ebf_event_hdr eh;
            ck_assert_int_eq(ebf_event_parse(p + EBF_ETH_HLEN, EBF_EVENT_HLEN, &eh), EBF_R_OK);
            ck_assert_uint_lt(got, max);
            if (got < 64)
                g->took_flags[got] = eh.flags;
            ids[got] = eh.event_id;
            to[got++] = memcmp(p, node1_mac, 6) == 0;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
    return got;
}

void drain(struct rig *g)
{
    int done = 0;
    sfc_dp_drain_begin(g->dp);
    while (!done) {
        sfc_dp_drain_poll(g->dp, &done);
        usleep(100);
    }
}

uint64_t lost_total(const struct sfc_stats *st)
{
    uint64_t n = 0;
    for (unsigned r = 0; r < SFC_LOST_MAX; r++)
        n += st->lost[r];
    return n;
}
