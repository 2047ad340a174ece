/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc-dp.c - the SFC data plane under EAL over crossed net_ring ports: zero copy, credits, timeouts, rejects. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_port.h"
#include "ebf_proto.h"
#include "sfc_dp.h"
#include "test-eal.h"

#define N_SOURCES 4
#define FRAG_LEN 1000

static const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x00};

struct rig {
    uint16_t ro_port, sfc_rx, sfc_node, node_port;
    struct rte_mempool *pool;
    struct sfc_dp *dp;
    uint8_t sfc_rx_mac[6], sfc_node_mac[6];
};

/* EAL in this (forked) test process, four ports joined by rings:
 * readout -> sfc_rx, sfc_node <-> node. */
static void rig_up(struct rig *g, double timeout_ms)
{
    test_eal_init();

    struct rte_ring *r_in = test_ring("r_in", 1024), *r_down = test_ring("r_down", 1024);
    struct rte_ring *r_up = test_ring("r_up", 1024);
    struct rte_ring *r_void1 = test_ring("r_void1", 1024), *r_void2 = test_ring("r_void2", 1024);
    g->ro_port = test_ring_port("ro", r_void1, r_in);
    g->sfc_rx = test_ring_port("sfcrx", r_in, r_void2);
    g->sfc_node = test_ring_port("sfcnode", r_up, r_down);
    g->node_port = test_ring_port("node", r_down, r_up);
    g->pool = ebf_pool_create("test_pool", 4095, 2048, 0);
    ck_assert_ptr_nonnull(g->pool);
    struct rte_mempool *hdr = ebf_pool_create("test_hdr", 1023, 128, 0);
    struct rte_mempool *clone = ebf_pool_create("test_clone", 4095, 0, 0);
    ck_assert_ptr_nonnull(hdr);
    ck_assert_ptr_nonnull(clone);
    uint16_t ports[] = {g->ro_port, g->sfc_rx, g->sfc_node, g->node_port};
    for (unsigned i = 0; i < 4; i++)
        ck_assert_int_eq(ebf_port_start(ports[i], g->pool, 512, 512), 0);

    struct rte_ether_addr ea;
    rte_eth_macaddr_get(g->sfc_rx, &ea);
    memcpy(g->sfc_rx_mac, ea.addr_bytes, 6);
    rte_eth_macaddr_get(g->sfc_node, &ea);
    memcpy(g->sfc_node_mac, ea.addr_bytes, 6);

    struct sfc_conf c = {
        .rx_port = g->sfc_rx, .n_sources = N_SOURCES, .udp_port = EBF_UDP_PORT_DEFAULT,
        .n_nodes = 1, .capacity = 64, .max_frames = 1024, .max_credits = 16,
        .timeout_ms = timeout_ms, .mtu = 1500, .burst = 32, .hdr_pool = hdr,
        .clone_pool = clone, .drain_quiet_ms = 10, .drain_timeout_ms = 100,
    };
    c.node[0].port = g->sfc_node;
    memcpy(c.node[0].mac, node_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    g->dp = sfc_dp_create(&c);
    ck_assert_ptr_nonnull(g->dp);
}

static void rig_down(struct rig *g)
{
    sfc_dp_destroy(g->dp);
    ebf_eal_cleanup();
}

/* One single-piece fragment frame of (source, event) to dst. */
static struct rte_mbuf *fragment(struct rig *g, const uint8_t dst[6], uint16_t source,
                                 uint64_t event)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH, .src_mac = {2, 0, 0, 0, 0, 9}};
    ck_assert_ptr_nonnull(m);
    memcpy(a.dst_mac, dst, 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_FRAG_HLEN + FRAG_LEN);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + FRAG_LEN);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, FRAG_LEN, source, event, 0);
    struct ebf_frag_hdr h = {.source = source, .seq = (uint32_t)event, .event_id = event,
                             .frag_len = FRAG_LEN, .piece_len = FRAG_LEN, .tx_ns = 1000};
    ebf_frag_write(p + EBF_ETH_HLEN, &h);
    return m;
}

static void send_frames(uint16_t port, struct rte_mbuf **m, uint16_t n)
{
    ck_assert_uint_eq(rte_eth_tx_burst(port, 0, m, n), n);
}

/* A credit frame from the node: credits and acks. */
static void credit(struct rig *g, uint16_t credits, const struct ebf_ack *acks, uint16_t n)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.dst_mac, g->sfc_node_mac, 6);
    memcpy(a.src_mac, node_mac, 6);
    size_t len = ebf_credit_len(n);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {.node_id = 0, .credits = credits, .n_acks = n, .epoch = 1};
    ebf_credit_write(p + EBF_ETH_HLEN, &h, acks);
    send_frames(g->node_port, &m, 1);
}

static void poll_n(struct rig *g, int n)
{
    for (int i = 0; i < n; i++)
        sfc_dp_poll(g->dp, 1);
}

/* Receive up to max frames at the node. */
static uint16_t node_rx(struct rig *g, struct rte_mbuf **m, uint16_t max)
{
    return rte_eth_rx_burst(g->node_port, 0, m, max);
}

/* A complete event waits for credit, then goes out as header mbufs chained
 * to clones of the very mbufs the SFC received; the ack frees them all. */
START_TEST(test_zero_copy_dispatch_and_ack)
{
    struct rig g;
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    rig_up(&g, 1000);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        orig[s] = fragment(&g, g.sfc_rx_mac, s, 7);
    send_frames(g.ro_port, orig, N_SOURCES);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, N_SOURCES);
    ck_assert_uint_eq(st->events_complete, 1);
    ck_assert_uint_eq(st->events_sent, 0);          /* no credit yet */
    ck_assert_uint_eq(node_rx(&g, rx, 16), 0);

    credit(&g, 2, NULL, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->credits_granted, 2);
    ck_assert_uint_eq(st->events_sent, 1);
    uint16_t n = node_rx(&g, rx, 16);
    ck_assert_uint_eq(n, N_SOURCES);                /* 48 + 2 x 1040 > 1500 */
    ck_assert_uint_eq(st->frames_tx, N_SOURCES);
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *h = rx[i], *piece = h->next;
        struct ebf_event_hdr eh;
        ck_assert_uint_eq(h->nb_segs, 2);
        ck_assert_uint_eq(h->data_len, EBF_ETH_HLEN + EBF_EVENT_HLEN);
        ck_assert_int_eq(ebf_event_parse(rte_pktmbuf_mtod(h, uint8_t *) + EBF_ETH_HLEN,
                                         EBF_EVENT_HLEN, &eh), EBF_R_OK);
        ck_assert_uint_eq(eh.event_id, 7);
        ck_assert_uint_eq(eh.frame_index, i);
        ck_assert_uint_eq(eh.frame_count, N_SOURCES);
        ck_assert_uint_eq(eh.n_pieces, 1);
        ck_assert_uint_eq(eh.flags, 0);
        ck_assert_uint_eq(eh.event_bytes, N_SOURCES * FRAG_LEN);
        ck_assert_uint_eq(ebf_present_count(eh.present), N_SOURCES);
        /* Zero copy: the piece is an indirect mbuf onto the received one. */
        ck_assert(RTE_MBUF_CLONED(piece));
        struct rte_mbuf *direct = rte_mbuf_from_indirect(piece);
        ck_assert_ptr_eq(direct, orig[i]);
        ck_assert_ptr_eq(rte_pktmbuf_mtod(piece, uint8_t *),
                         rte_pktmbuf_mtod(orig[i], uint8_t *) + EBF_ETH_HLEN);
        ck_assert_uint_eq(piece->data_len, EBF_FRAG_HLEN + FRAG_LEN);
        struct ebf_frag_hdr fh;
        size_t used;
        ck_assert_int_eq(ebf_frag_parse(rte_pktmbuf_mtod(piece, uint8_t *), piece->data_len,
                                        N_SOURCES, 1, &fh, &used), EBF_R_OK);
        ck_assert_uint_eq(fh.source, i);
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[i]), 2);   /* SFC + in flight */
    }
    rte_pktmbuf_free_bulk(rx, n);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 1);  /* held until acked */

    struct ebf_ack ack = {.event_id = 7, .decision = EBF_DEC_ACCEPT};
    credit(&g, 1, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    ck_assert_uint_eq(st->acked_accept, 1);
    ck_assert_uint_eq(st->ack_unknown, 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);    /* all released */

    /* A second ack of the same event is unknown and changes nothing. */
    credit(&g, 0, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    ck_assert_uint_eq(st->ack_unknown, 1);
    rig_down(&g);
}
END_TEST

/* An event missing a source goes out after the timeout, flagged incomplete,
 * with the missing source named and counted. */
START_TEST(test_timeout_incomplete)
{
    struct rig g;
    struct rte_mbuf *m[N_SOURCES], *rx[16];

    rig_up(&g, 20);
    credit(&g, 4, NULL, 0);
    for (uint16_t s = 0; s < N_SOURCES - 1; s++)
        m[s] = fragment(&g, g.sfc_rx_mac, s, 9);
    send_frames(g.ro_port, m, N_SOURCES - 1);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_sent, 0);
    usleep(40 * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 1);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(st->events_complete, 0);
    ck_assert_uint_eq(st->missing_by_source[N_SOURCES - 1], 1);
    ck_assert_uint_eq(st->missing_by_source[0], 0);
    uint16_t n = node_rx(&g, rx, 16);
    ck_assert_uint_eq(n, N_SOURCES - 1);
    struct ebf_event_hdr eh;
    ck_assert_int_eq(ebf_event_parse(rte_pktmbuf_mtod(rx[0], uint8_t *) + EBF_ETH_HLEN,
                                     EBF_EVENT_HLEN, &eh), EBF_R_OK);
    ck_assert_uint_eq(eh.flags, EBF_EVF_INCOMPLETE);
    ck_assert_uint_eq(eh.present[0], 0x7);
    ck_assert_uint_eq(eh.event_bytes, (N_SOURCES - 1) * FRAG_LEN);
    rte_pktmbuf_free_bulk(rx, n);

    /* The missing piece arriving now is late, counted, and freed. */
    m[0] = fragment(&g, g.sfc_rx_mac, N_SOURCES - 1, 9);
    send_frames(g.ro_port, m, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_LATE], 1);
    rig_down(&g);
}
END_TEST

/* Malformed or misaddressed frames are counted by reason and freed. */
START_TEST(test_rejects_counted)
{
    struct rig g;
    struct rte_mbuf *m[4];
    static const uint8_t other[6] = {0x02, 0x99, 0, 0, 0, 1};

    rig_up(&g, 1000);
    m[0] = fragment(&g, g.sfc_rx_mac, 0, 1);
    rte_pktmbuf_mtod(m[0], uint8_t *)[EBF_ETH_HLEN + EBF_FRAG_HLEN + 5] ^= 0x10;
    m[1] = fragment(&g, g.sfc_rx_mac, 1, 1);
    rte_pktmbuf_trim(m[1], FRAG_LEN / 2);
    m[2] = fragment(&g, other, 2, 1);
    m[3] = fragment(&g, g.sfc_rx_mac, 3, 1);
    rte_pktmbuf_mtod(m[3], uint8_t *)[EBF_ETH_HLEN] = 9;        /* version 9 */
    send_frames(g.ro_port, m, 4);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 4);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], 1);
    ck_assert_uint_eq(st->reject[EBF_R_TRUNCATED], 1);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_VERSION], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_NOT_FOR_US], 1);
    ck_assert_uint_eq(st->events_complete + st->events_incomplete, 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

Suite *sfc_dp_suite(void);

Suite *sfc_dp_suite(void)
{
    Suite *s = suite_create("sfc_dp");
    TCase *tc = tcase_create("sfc_dp");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_zero_copy_dispatch_and_ack);
    tcase_add_test(tc, test_timeout_incomplete);
    tcase_add_test(tc, test_rejects_counted);
    suite_add_tcase(s, tc);
    return s;
}
