/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_multi.c - an SFC with a port per readout: every port's fragments built into one event, throttle frames per port. */
#include <check.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "sfc_dp.h"
#include "test-eal.h"

#define SOURCES 4                /* 0, 1 from readout a; 2, 3 from readout b */
#define LEN 1000

static const uint8_t mac_a[6] = {2, 0, 0, 0, 0, 0xa};
static const uint8_t mac_b[6] = {2, 0, 0, 0, 0, 0xb};
static const uint8_t mac_never[6] = {2, 0, 0, 0, 0, 0xc};  /* configured, never sends */
static const uint8_t node_mac[6] = {2, 0xeb, 0, 0, 2, 0};

struct multi {
    uint16_t ro[2], rx[2], sfc_node, node;
    uint8_t sfc_mac[6];
    struct rte_mempool *pool;
    struct sfc_dp *dp;
};

/* Two readout ports, each joined by its own rings to a port of the SFC
 * (throttle frames come back on it), and one node port. */
static void up(struct multi *g)
{
    char a[16], b[16];

    test_eal_init();
    for (unsigned i = 0; i < 2; i++) {
        snprintf(a, sizeof(a), "in%u", i);
        snprintf(b, sizeof(b), "back%u", i);
        struct rte_ring *in = test_ring(a, 1024), *back = test_ring(b, 1024);
        snprintf(a, sizeof(a), "ro%u", i);
        snprintf(b, sizeof(b), "rx%u", i);
        g->ro[i] = test_ring_port(a, back, in);
        g->rx[i] = test_ring_port(b, in, back);
    }
    struct rte_ring *down = test_ring("down", 1024), *upr = test_ring("up", 1024);
    g->sfc_node = test_ring_port("sfcnode", upr, down);
    g->node = test_ring_port("node", down, upr);
    g->pool = ebf_pool_create("m_pool", 4095, 2048, 0);
    struct rte_mempool *hdr = ebf_pool_create("m_hdr", 1023, 128, 0);
    struct rte_mempool *clone = ebf_pool_create("m_clone", 4095, 0, 0);
    ck_assert(g->pool && hdr && clone);
    uint16_t ports[] = {g->ro[0], g->ro[1], g->rx[0], g->rx[1], g->sfc_node, g->node};
    for (unsigned i = 0; i < 6; i++)
        ck_assert_int_eq(ebf_port_start(ports[i], g->pool, 0, 512, 512), 0);
    struct rte_ether_addr ea;
    rte_eth_macaddr_get(g->rx[0], &ea);
    memcpy(g->sfc_mac, ea.addr_bytes, 6);
    struct sfc_conf c = {
        .rx_port = g->rx[0], .n_more_rx = 1, .n_sources = SOURCES,
        .udp_port = EBF_UDP_PORT_DEFAULT, .n_nodes = 1, .capacity = 64, .max_frames = 1024,
        .max_credits = 16, .timeout_ms = 10000, .mtu = 1500, .burst = 32, .hdr_pool = hdr,
        .clone_pool = clone, .drain_quiet_ms = 10, .drain_timeout_ms = 100, .n_readouts = 3,
    };
    memcpy(c.mac, g->sfc_mac, 6);       /* one MAC on both readout ports */
    c.more_rx[0] = g->rx[1];
    c.node[0].port = g->sfc_node;
    memcpy(c.node[0].mac, node_mac, 6);
    memcpy(c.readout_mac[0], mac_a, 6);
    memcpy(c.readout_mac[1], mac_b, 6);
    memcpy(c.readout_mac[2], mac_never, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    g->dp = sfc_dp_create(&c);
    ck_assert_ptr_nonnull(g->dp);
}

/* The fragment of (source, event) from src on port, sequence number seq. */
static void send_frag(struct multi *g, uint16_t port, const uint8_t src[6], uint16_t source,
                      uint64_t event, uint32_t seq)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};

    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, src, 6);
    memcpy(a.dst_mac, g->sfc_mac, 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_FRAG_HLEN + LEN);
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + LEN);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, LEN, source, event, 0);
    struct ebf_frag_hdr h = {.source = source, .seq = seq, .event_id = event, .frag_len = LEN,
                             .piece_len = LEN, .tx_ns = 1000};
    ebf_frag_write(p + EBF_ETH_HLEN, &h);
    ck_assert_uint_eq(rte_eth_tx_burst(port, 0, &m, 1), 1);
}

/* The "on" flag of every throttle frame back on readout port i, in order;
 * returns how many. */
static unsigned throttle_flags(struct multi *g, unsigned i, uint8_t *on, unsigned max)
{
    struct rte_mbuf *m[32];
    struct ebf_throttle_hdr h;
    unsigned n = 0;
    uint16_t k;

    while ((k = rte_eth_rx_burst(g->ro[i], 0, m, 32)) > 0) {
        for (uint16_t j = 0; j < k; j++) {
            const uint8_t *p = rte_pktmbuf_mtod(m[j], const uint8_t *);
            ck_assert_int_eq(ebf_throttle_parse(p + EBF_ETH_HLEN, m[j]->data_len - EBF_ETH_HLEN,
                                                &h), EBF_R_OK);
            if (n < max)
                on[n++] = h.on;
        }
        rte_pktmbuf_free_bulk(m, k);
    }
    return n;
}

/* Throttle frames that came back on readout port i: to a, to b, others. */
static void throttle_back(struct multi *g, unsigned i, unsigned *to_a, unsigned *to_b,
                          unsigned *other)
{
    struct rte_mbuf *m[32];
    uint16_t n;

    while ((n = rte_eth_rx_burst(g->ro[i], 0, m, 32)) > 0) {
        for (uint16_t k = 0; k < n; k++) {
            const uint8_t *p = rte_pktmbuf_mtod(m[k], const uint8_t *);
            *to_a += memcmp(p, mac_a, 6) == 0;
            *to_b += memcmp(p, mac_b, 6) == 0;
            *other += memcmp(p, mac_a, 6) != 0 && memcmp(p, mac_b, 6) != 0;
        }
        rte_pktmbuf_free_bulk(m, n);
    }
}

/*
 * Readout a sends sources 0 and 1 on one port, readout b 2 and 3 on the
 * other: the SFC builds every event from both, with no sequence gap; at 48
 * events held (3/4 of 64) it throttles, and each readout's throttle frames
 * come back on its own port only; the configured readout never heard gets
 * none.
 */
START_TEST(test_port_per_readout)
{
    struct multi g;
    unsigned a0 = 0, b0 = 0, o0 = 0, a1 = 0, b1 = 0, o1 = 0;

    up(&g);
    for (uint64_t e = 0; e < 48; e++)
        for (uint16_t s = 0; s < SOURCES; s++)
            send_frag(&g, g.ro[s / 2], s < 2 ? mac_a : mac_b, s, e, (uint32_t)e);
    for (int i = 0; i < 16; i++)
        sfc_dp_poll(g.dp, 1);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 48 * SOURCES);
    ck_assert_uint_eq(st->events_complete, 48);
    for (unsigned s = 0; s < SOURCES; s++) {
        ck_assert_uint_eq(st->seq.gap[s], 0);
        ck_assert_uint_eq(st->next_by_source[s], 48);
    }
    ck_assert_uint_eq(st->throttle_on, 1);
    throttle_back(&g, 0, &a0, &b0, &o0);
    throttle_back(&g, 1, &a1, &b1, &o1);
    ck_assert_uint_ge(a0, 1);
    ck_assert_uint_eq(b0 + o0, 0);
    ck_assert_uint_eq(b1, a0);
    ck_assert_uint_eq(a1 + o1, 0);
    ck_assert_uint_eq(st->throttle_frames, a0 + b1);
    sfc_dp_destroy(g.dp);
    ebf_eal_cleanup();
}
END_TEST

/*
 * Readout b is behind: it sent events 0..39, a 0..47. At 48 events held the
 * SFC throttles: a is held ("on"), b is let go on ("off", throttle.spared),
 * since its frames complete events the SFC holds; once b has caught up
 * both are held.
 */
START_TEST(test_throttle_spares_the_one_behind)
{
    struct multi g;
    uint8_t on_a[8], on_b[8];

    up(&g);
    for (uint64_t e = 0; e < 48; e++)
        for (uint16_t s = 0; s < SOURCES; s++)
            if (s < 2 || e < 40)
                send_frag(&g, g.ro[s / 2], s < 2 ? mac_a : mac_b, s, e, (uint32_t)e);
    for (int i = 0; i < 16; i++)
        sfc_dp_poll(g.dp, 1);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_complete, 40);
    ck_assert_uint_eq(st->throttle_on, 1);
    ck_assert_uint_eq(throttle_flags(&g, 0, on_a, 8), 1);
    ck_assert_uint_eq(throttle_flags(&g, 1, on_b, 8), 1);
    ck_assert_uint_eq(on_a[0], 1);
    ck_assert_uint_eq(on_b[0], 0);
    ck_assert_uint_eq(st->throttle_spared, 1);
    for (uint64_t e = 40; e < 48; e++)      /* b catches up */
        for (uint16_t s = 2; s < SOURCES; s++)
            send_frag(&g, g.ro[1], mac_b, s, e, (uint32_t)e);
    for (int i = 0; i < 16; i++)
        sfc_dp_poll(g.dp, 1);
    ck_assert_uint_eq(st->events_complete, 48);
    rte_delay_us_sleep(60 * 1000);          /* past the 50 ms refresh of "on" */
    for (int i = 0; i < 4; i++)
        sfc_dp_poll(g.dp, 1);
    ck_assert_uint_eq(throttle_flags(&g, 0, on_a, 8), 1);
    ck_assert_uint_eq(throttle_flags(&g, 1, on_b, 8), 1);
    ck_assert_uint_eq(on_a[0], 1);
    ck_assert_uint_eq(on_b[0], 1);
    ck_assert_uint_eq(st->throttle_spared, 1);
    sfc_dp_destroy(g.dp);
    ebf_eal_cleanup();
}
END_TEST

Suite *sfc_multi_suite(void);

Suite *sfc_multi_suite(void)
{
    Suite *s = suite_create("sfc_multi");
    TCase *tc = tcase_create("sfc_multi");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_port_per_readout);
    tcase_add_test(tc, test_throttle_spares_the_one_behind);
    suite_add_tcase(s, tc);
    return s;
}
