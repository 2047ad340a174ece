/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_fast.c - the SFC's fast-path choices under EAL: the CRC policy, node ports' queues and refusals. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <rte_bus_vdev.h>

#include "ebf_port.h"
#include "ebf_proto.h"
#include "sfc_dp.h"
#include "sfc_rig.h"
#include "test-eal.h"

/* Flip one payload byte of a fragment frame (its CRC no longer matches). */
static void corrupt(struct rte_mbuf *m)
{
    rte_pktmbuf_mtod(m, uint8_t *)[EBF_ETH_HLEN + EBF_FRAG_HLEN + 100] ^= 0x5a;
}

/* Pieces of the event frames at the node port whose CRC is wrong, and the
 * frames seen. */
static unsigned node_bad_pieces(struct rig *g, unsigned *frames)
{
    struct rte_mbuf *rx[64];
    unsigned bad = 0;
    uint16_t n;

    while ((n = node_rx(g, rx, 64)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            /* a piece per segment; the head's after the event frame's
             * headers (none when the head is a header mbuf) */
            for (struct rte_mbuf *piece = rx[i]; piece; piece = piece->next) {
                uint16_t off = piece == rx[i] ? EBF_ETH_HLEN + EBF_EVENT_HLEN : 0;
                struct ebf_frag_hdr h;
                size_t used;
                if (piece->data_len == off)
                    continue;
                enum ebf_reason r = ebf_frag_parse(rte_pktmbuf_mtod_offset(piece, uint8_t *, off),
                                                   piece->data_len - off, N_SOURCES, 1, &h,
                                                   &used);
                ck_assert(r == EBF_R_OK || r == EBF_R_BAD_CHECKSUM);
                bad += r == EBF_R_BAD_CHECKSUM;
            }
            (*frames)++;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
    return bad;
}

/* --verify sampled, every 4th frame of each source: of 8 corrupted frames
 * of each of sources 0 and 1, the SFC checks and rejects the 1st and the
 * 5th (bad_checksum); the 12 others reach the node, where the end-to-end
 * check finds each: every corrupted frame is counted, once. */
START_TEST(test_verify_sampled_counts_every_corruption)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 20, .verify = SFC_VERIFY_SAMPLED, .verify_every = 4};
    unsigned frames = 0;

    rig_up_opts(&g, &o);
    credit(&g, 16, NULL, 0);
    for (uint64_t id = 0; id < 8; id++) {
        struct rte_mbuf *m[N_SOURCES];
        for (uint16_t s = 0; s < N_SOURCES; s++) {
            m[s] = fragment_seq(&g, g.sfc_rx_mac, s, id, g.seq[s]++);
            if (s < 2)
                corrupt(m[s]);
        }
        send_frames(g.ro_port, m, N_SOURCES);
        poll_n(&g, 2);
    }
    usleep(40 * 1000);
    poll_n(&g, 8);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 8 * N_SOURCES);
    ck_assert_uint_eq(st->rx_verified, 2 * N_SOURCES);        /* frames 0 and 4 of each */
    ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], 4);
    ck_assert_uint_eq(st->events_sent, 8);
    ck_assert_uint_eq(st->events_complete, 6);
    ck_assert_uint_eq(st->events_incomplete, 2);               /* events 0 and 4 */
    ck_assert_uint_eq(st->missing_by_source[0], 2);
    ck_assert_uint_eq(st->missing_by_source[1], 2);
    ck_assert_uint_eq(node_bad_pieces(&g, &frames), 12);
    ck_assert_uint_eq(frames, 8 * N_SOURCES - 4);
    rig_down(&g);
}
END_TEST

/* 4 events whose source 3 is corrupted, under policy v: full checks every
 * frame (the SFC rejects the 4), none checks none (the node finds all 4). */
static void verify_all_or_none(uint8_t v)
{
    {
        struct rig g;
        struct rig_opts o = {.timeout_ms = 20, .verify = v, .verify_every = 4};
        unsigned frames = 0;

        rig_up_opts(&g, &o);
        credit(&g, 16, NULL, 0);
        for (uint64_t id = 0; id < 4; id++) {
            struct rte_mbuf *m[N_SOURCES];
            for (uint16_t s = 0; s < N_SOURCES; s++) {
                m[s] = fragment_seq(&g, g.sfc_rx_mac, s, id, g.seq[s]++);
                if (s == 3)
                    corrupt(m[s]);
            }
            send_frames(g.ro_port, m, N_SOURCES);
            poll_n(&g, 2);
        }
        usleep(40 * 1000);
        poll_n(&g, 8);
        const struct sfc_stats *st = sfc_dp_stats(g.dp);
        int full = v == SFC_VERIFY_FULL;
        ck_assert_uint_eq(st->rx_verified, full ? 4 * N_SOURCES : 0);
        ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], full ? 4 : 0);
        ck_assert_uint_eq(st->events_sent, 4);
        ck_assert_uint_eq(st->events_incomplete, full ? 4 : 0);
        ck_assert_uint_eq(node_bad_pieces(&g, &frames), full ? 0 : 4);
        ck_assert_uint_eq(frames, full ? 4 * (N_SOURCES - 1) : 4 * N_SOURCES);
        rig_down(&g);
    }
}

START_TEST(test_verify_full)
{
    verify_all_or_none(SFC_VERIFY_FULL);
}
END_TEST

START_TEST(test_verify_none)
{
    verify_all_or_none(SFC_VERIFY_NONE);
}
END_TEST

/* A node port whose driver does not offer multi-segment transmit
 * (net_null) is refused with its name and what is needed; a ring port
 * passes. */
START_TEST(test_multi_segs_required)
{
    char err[320];
    uint16_t null_port;

    test_eal_init();
    struct rte_ring *r1 = test_ring("r1", 64), *r2 = test_ring("r2", 64);
    uint16_t rx = test_ring_port("rx", r1, r2), ring_node = test_ring_port("rn", r2, r1);
    ck_assert_int_eq(rte_vdev_init("net_null0", NULL), 0);
    ck_assert_int_eq(ebf_port_find("net_null0", &null_port), 0);
    struct rte_mempool *pool = ebf_pool_create("p", 1023, 2048, 0);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(ebf_port_start(null_port, pool, 0, 256, 256), 0);
    ck_assert_int_eq(ebf_port_start(ring_node, pool, 0, 256, 256), 0);
    struct sfc_conf c = {.rx_port = rx, .n_sources = 4, .n_nodes = 2, .capacity = 64,
                         .max_frames = 1023, .max_credits = 16, .mtu = 1500};
    c.node[0].port = ring_node;
    c.node[1].port = null_port;
    ck_assert_int_eq(sfc_dp_check_node_ports(&c, err, sizeof(err)), -1);
    char want[320];
    snprintf(want, sizeof(want),
             "node port %u (net_null0, driver net_null) does not offer multi-segment transmit "
             "(RTE_ETH_TX_OFFLOAD_MULTI_SEGS): the SFC sends each event frame as a chain of "
             "mbufs; use a driver that offers it (net_memif, net_ring, net_af_packet, most NICs)",
             null_port);
    ck_assert_str_eq(err, want);
    errno = 0;
    ck_assert_ptr_null(sfc_dp_create(&c));
    ck_assert_int_eq(errno, ENOTSUP);
    c.n_nodes = 1;                                  /* the ring port alone */
    ck_assert_int_eq(sfc_dp_check_node_ports(&c, err, sizeof(err)), 0);
    ebf_eal_cleanup();
}
END_TEST

/* Two nodes on two ports; node A's link holds 63 frames and A has far
 * more credit than B, so A is chosen until its queue is full. */
struct two {
    struct rig g;                /* the readout side: pool, ports, sequence numbers */
    uint16_t sfc_a, node_a, sfc_b, node_b;
    struct sfc_dp *dp;
};

static void two_up(struct two *t)
{
    memset(t, 0, sizeof(*t));
    test_eal_init();
    struct rte_ring *in = test_ring("in", 2048), *back = test_ring("back", 1024);
    struct rte_ring *up_a = test_ring("up_a", 64), *down_a = test_ring("down_a", 64);
    struct rte_ring *up_b = test_ring("up_b", 1024), *down_b = test_ring("down_b", 1024);
    t->g.ro_port = test_ring_port("ro", back, in);
    t->g.sfc_rx = test_ring_port("sfcrx", in, back);
    t->sfc_a = test_ring_port("sfca", up_a, down_a);
    t->node_a = test_ring_port("nodea", down_a, up_a);
    t->sfc_b = test_ring_port("sfcb", up_b, down_b);
    t->node_b = test_ring_port("nodeb", down_b, up_b);
    t->g.pool = ebf_pool_create("two_pool", 8191, 2048, 0);
    struct rte_mempool *hdr = ebf_pool_create("two_hdr", 4095, 128, 0);
    struct rte_mempool *clone = ebf_pool_create("two_clone", 8191, 0, 0);
    ck_assert(t->g.pool && hdr && clone);
    uint16_t ports[] = {t->g.ro_port, t->g.sfc_rx, t->sfc_a, t->node_a, t->sfc_b, t->node_b};
    for (unsigned i = 0; i < 6; i++)
        ck_assert_int_eq(ebf_port_start(ports[i], t->g.pool, 0, 512, 512), 0);
    struct rte_ether_addr ea;
    rte_eth_macaddr_get(t->g.sfc_rx, &ea);
    memcpy(t->g.sfc_rx_mac, ea.addr_bytes, 6);
    struct sfc_conf c = {
        .rx_port = t->g.sfc_rx, .n_sources = N_SOURCES, .udp_port = EBF_UDP_PORT_DEFAULT,
        .n_nodes = 2, .capacity = 1024, .max_frames = 8191, .max_credits = 512,
        .timeout_ms = 10000, .mtu = 1500, .burst = 32, .hdr_pool = hdr, .clone_pool = clone,
        .drain_quiet_ms = 10, .drain_timeout_ms = 100,
    };
    c.node[0].port = t->sfc_a;
    memcpy(c.node[0].mac, node_mac, 6);
    c.node[1].port = t->sfc_b;
    memcpy(c.node[1].mac, node1_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    t->dp = t->g.dp = sfc_dp_create(&c);
    ck_assert_ptr_nonnull(t->dp);
}

/* Frames waiting at a node port's receive side (taken and freed). */
static unsigned take_all(uint16_t port)
{
    struct rte_mbuf *rx[64];
    unsigned got = 0;
    uint16_t n;

    while ((n = rte_eth_rx_burst(port, 0, rx, 64)) > 0) {
        got += n;
        rte_pktmbuf_free_bulk(rx, n);
    }
    return got;
}

/* Node A's port is full and its queue fills: dispatch goes on to node B
 * (no head-of-line blocking across ports), and tx.refused counts each
 * frame A's port refused once, however often it was retried. */
START_TEST(test_full_port_does_not_block_others)
{
    struct two t;
    struct rte_ether_addr ea;

    two_up(&t);
    rte_eth_macaddr_get(t.sfc_a, &ea);
    t.g.node_port = t.node_a;
    credit_to(&t.g, ea.addr_bytes, 0, 1, 400, NULL, 0);
    rte_eth_macaddr_get(t.sfc_b, &ea);
    t.g.node_port = t.node_b;
    credit_to(&t.g, ea.addr_bytes, 1, 1, 8, NULL, 0);
    for (uint64_t id = 0; id < 300; id++) {
        send_event(&t.g, id, ALL);
        poll_n(&t.g, 1);
    }
    poll_n(&t.g, 100);
    const struct sfc_stats *st = sfc_dp_stats(t.dp);
    ck_assert_uint_eq(st->events_complete, 300);
    ck_assert_uint_eq(st->node_sent[1], 8);                 /* B got its 8 */
    ck_assert_uint_eq(take_all(t.node_b), 8 * N_SOURCES);
    ck_assert_uint_ge(st->tx_queue_full, 1);
    ck_assert_uint_eq(st->events_sent, st->node_sent[0] + 8);
    ck_assert_uint_eq(st->frames_tx, st->events_sent * N_SOURCES);
    /* A's link took 63 frames; every other frame of A's was refused, once. */
    uint64_t queued_a = st->node_sent[0] * N_SOURCES - 63;
    ck_assert_uint_gt(queued_a, 900);
    ck_assert_uint_eq(st->tx_refused, queued_a);
    ck_assert_uint_eq(take_all(t.node_a), 63);
    poll_n(&t.g, 1);                                        /* 63 more go, none new refused */
    ck_assert_uint_eq(st->tx_refused, queued_a);
    ck_assert_uint_eq(take_all(t.node_a), 63);
    sfc_dp_destroy(t.dp);
    ebf_eal_cleanup();
}
END_TEST

Suite *sfc_fast_suite(void);

Suite *sfc_fast_suite(void)
{
    Suite *s = suite_create("sfc_fast");
    TCase *tc = tcase_create("sfc_fast");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_verify_sampled_counts_every_corruption);
    tcase_add_test(tc, test_verify_full);
    tcase_add_test(tc, test_verify_none);
    tcase_add_test(tc, test_multi_segs_required);
    tcase_add_test(tc, test_full_port_does_not_block_others);
    suite_add_tcase(s, tc);
    return s;
}
