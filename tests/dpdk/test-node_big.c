/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_big.c - the trigger node holding events of many frames whole for storage (a 1.5 MB event at MTU 1500, 10 MB at 9000, among small ones), and one past its held-frame budget rejected as view_overflow with its frames given back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "ebf_store_fmt.h"
#include "ebf_store_read.h"
#include "node_dp.h"
#include "node_stats.h"
#include "test-eal.h"

#define N_EVENTS 5
#define BIG_AT 2                 /* events[2] is the big one */
#define SMALL 1000u
#define CREDITS 8

static const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x03};
static const uint8_t sfc_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x03};

struct rig {
    uint16_t sfc_port;           /* the test plays the SFC on this port */
    struct rte_mempool *pool;
    struct node_dp *dp;
    uint32_t piece;              /* piece bytes an event frame carries */
    char dir[64];
    unsigned acked, accepted;
};

/* A node at mtu that accepts every event and stores it, its blocks holding
 * a record of big bytes, its held-frame budget view_frames. */
static void rig_up(struct rig *g, uint16_t mtu, uint32_t big, uint32_t view_frames)
{
    char err[256];

    memset(g, 0, sizeof(*g));
    test_eal_init();
    snprintf(g->dir, sizeof(g->dir), "/tmp/ebftest-nbig-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g->dir));
    struct rte_ring *down = test_ring("down", 2048), *up = test_ring("up", 1024);
    g->sfc_port = test_ring_port("sfc", up, down);
    uint16_t np = test_ring_port("node", down, up);
    g->pool = ebf_pool_create("test_pool", 2047, (uint16_t)(mtu + 64), 0);
    ck_assert_ptr_nonnull(g->pool);
    ck_assert_int_eq(ebf_port_start(g->sfc_port, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(np, g->pool, 0, 512, 512), 0);
    g->piece = mtu - EBF_EVENT_HLEN - EBF_FRAG_HLEN;
    struct node_conf c = {
        .port = np, .node_id = 3, .epoch = 77, .credits = CREDITS, .accept = 1,
        .ack_batch = 1, .heartbeat_ms = 0, .mtu = mtu, .pool = g->pool, .burst = 32,
        .drain_quiet_ms = 10, .view_frames = view_frames,
        .store = {.max_file_mb = 256, .max_file_s = 0, .buffer_mb = 1,
                  .max_record = (uint32_t)ebf_store_rec_len(1, big)},
    };
    snprintf(c.store.dir, sizeof(c.store.dir), "%s", g->dir);
    memcpy(c.mac, node_mac, 6);
    memcpy(c.sfc_mac, sfc_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    g->dp = node_dp_create(&c);
    ck_assert_ptr_nonnull(g->dp);
    ck_assert_int_eq(node_dp_begin(g->dp, 9, "tfarm", err, sizeof(err)), 0);
}

static void rig_down(struct rig *g)
{
    char cmd[128];

    node_dp_destroy(g->dp);
    ebf_eal_cleanup();
    snprintf(cmd, sizeof(cmd), "rm -rf %s", g->dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Poll the node n times, taking its credit frames: acks counted. */
static void poll_node(struct rig *g, int n)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    struct rte_mbuf *m;
    struct ebf_l2l3 l;

    for (int i = 0; i < n; i++) {
        node_dp_poll(g->dp);
        while (rte_eth_rx_burst(g->sfc_port, 0, &m, 1) == 1) {
            const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
            ck_assert_int_eq(ebf_parse_l2l3(p, m->data_len, EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
            ck_assert_int_eq(ebf_credit_parse(p + l.hlen, l.len, &h, acks), EBF_R_OK);
            for (unsigned k = 0; k < h.n_acks; k++)
                g->accepted += acks[k].decision == EBF_DEC_ACCEPT;
            g->acked += h.n_acks;
            rte_pktmbuf_free(m);
        }
    }
}

/* Frame index of an event of one source, id, frag_len bytes in pieces of
 * g->piece: the event header and the piece at index * piece. */
static struct rte_mbuf *event_frame(struct rig *g, uint64_t id, uint32_t frag_len,
                                    uint16_t index, uint16_t count)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    uint32_t off = index * g->piece;
    uint32_t len = frag_len - off < g->piece ? frag_len - off : g->piece;
    size_t elen = EBF_EVENT_HLEN + EBF_FRAG_HLEN + len;

    ck_assert_ptr_nonnull(m);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + elen));
    ck_assert_ptr_nonnull(p);
    memcpy(a.dst_mac, node_mac, 6);
    memcpy(a.src_mac, sfc_mac, 6);
    ebf_encap_write(p, &a, elen);
    struct ebf_event_hdr eh = {
        .n_sources = 1, .event_id = id, .frame_index = index, .frame_count = count,
        .n_pieces = 1, .event_bytes = frag_len, .present = {1, 0},
    };
    ebf_event_write(p + EBF_ETH_HLEN, &eh);
    struct ebf_frag_hdr h = {.source = 0, .event_id = id, .frag_len = frag_len, .offset = off,
                             .piece_len = (uint16_t)len, .tx_ns = 1};
    ebf_frag_write_pattern(p + EBF_ETH_HLEN + EBF_EVENT_HLEN, &h);
    return m;
}

/* Every frame of event id to the node, 256 at a time, the node polled
 * between them (its ring holds 2047). */
static void send_event(struct rig *g, uint64_t id, uint32_t frag_len)
{
    uint16_t count = (uint16_t)((frag_len + g->piece - 1) / g->piece);

    for (uint16_t i = 0; i < count;) {
        struct rte_mbuf *m[256];
        uint16_t n = 0;
        while (n < 256 && i < count)
            m[n++] = event_frame(g, id, frag_len, i++, count);
        ck_assert_uint_eq(rte_eth_tx_burst(g->sfc_port, 0, m, n), n);
        poll_node(g, 16);
    }
}

/* Events 1..N_EVENTS, the third of big bytes; the node drained: every
 * event acked. */
static void run_events(struct rig *g, uint32_t big)
{
    poll_node(g, 1);             /* the initial grant */
    for (uint64_t id = 1; id <= N_EVENTS; id++)
        send_event(g, id, id == BIG_AT + 1 ? big : SMALL);
    int done = 0;
    node_dp_drain_begin(g->dp);
    for (uint64_t t0 = rte_get_tsc_cycles(); !done && rte_get_tsc_cycles() - t0 <
                                                        20 * rte_get_tsc_hz();) {
        node_dp_drain_poll(g->dp, &done);
        poll_node(g, 0);
    }
    ck_assert(done);
    poll_node(g, 1);
    ck_assert_uint_eq(g->acked, N_EVENTS);
}

/* The stored file holds events ids, in order, each whole (of big bytes for
 * the third), every byte the pattern. */
static void check_file(struct rig *g, const uint64_t *ids, unsigned n, uint32_t big)
{
    char path[160], err[256];
    struct ebf_store_file f;
    struct ebf_store_rec r;
    struct ebf_store_frag fr;

    snprintf(path, sizeof(path), "%s/run000009-sfc00-node03-s0-000000.ebfev", g->dir);
    ck_assert_msg(ebf_store_open(&f, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(f.trl_err, EBF_STORE_E_OK);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
        ck_assert_uint_eq(r.event_id, ids[i]);
        size_t pos = 0;
        ck_assert(ebf_store_frag_next(&r, &pos, &fr));
        ck_assert_uint_eq(fr.source, 0);
        ck_assert_uint_eq(fr.len, ids[i] == BIG_AT + 1 ? big : SMALL);
        ck_assert_int_eq(ebf_pattern_check(fr.data, fr.len, 0, ids[i], 0), -1);
        ck_assert(!ebf_store_frag_next(&r, &pos, &fr));
    }
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 0);
    ebf_store_close(&f);
}

/* A big event of frames frames among small ones at mtu: held whole,
 * verified, accepted and stored exactly; every held frame given back. */
static void big_stored(uint16_t mtu, uint32_t big, uint16_t frames, uint32_t budget)
{
    static const uint64_t ids[N_EVENTS] = {1, 2, 3, 4, 5};
    struct node_store_stats ss;
    struct rig g;

    rig_up(&g, mtu, big, budget);
    ck_assert_uint_eq((big + g.piece - 1) / g.piece, frames);
    unsigned in_use = rte_mempool_in_use_count(g.pool);
    run_events(&g, big);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, frames + N_EVENTS - 1);
    ck_assert_uint_eq(st->events, N_EVENTS);
    ck_assert_uint_eq(st->accepted, N_EVENTS);
    ck_assert_uint_eq(st->events_bad, 0);
    ck_assert_uint_eq(st->trigger_fail[NODE_TF_VIEW_OVERFLOW], 0);
    ck_assert_uint_eq(st->payload_bytes, big + (N_EVENTS - 1) * SMALL);
    ck_assert_uint_eq(g.accepted, N_EVENTS);
    node_dp_store_stats(g.dp, &ss);
    ck_assert_uint_eq(ss.accepted[0], N_EVENTS);
    ck_assert_uint_eq(ss.lost_stream[0], 0);
    ck_assert_uint_le(rte_mempool_in_use_count(g.pool), in_use);
    check_file(&g, ids, N_EVENTS, big);
    rig_down(&g);
}

/* 1,063 frames at MTU 1500: past what a node port's queue takes at once. */
START_TEST(test_big_1500)
{
    big_stored(1500, 1500000, 1063, 1200);
}
END_TEST

/* 10 MB at MTU 9000: 1,123 frames of 8,912 B. */
START_TEST(test_huge_9000)
{
    big_stored(9000, 10000000, 1123, 1200);
}
END_TEST

/* A held-frame budget of 600: the 1.5 MB event (1,063 frames) overflows
 * it, is counted view_overflow and rejected (acked, not stored), its frames
 * given back as soon as it overflowed; the four small events around it are
 * stored exactly. */
START_TEST(test_past_budget)
{
    static const uint64_t ids[N_EVENTS - 1] = {1, 2, 4, 5};
    struct node_store_stats ss;
    struct rig g;

    rig_up(&g, 1500, 1500000, 600);
    unsigned in_use = rte_mempool_in_use_count(g.pool);
    run_events(&g, 1500000);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 1063 + N_EVENTS - 1);
    ck_assert_uint_eq(st->events, N_EVENTS);
    ck_assert_uint_eq(st->trigger_fail[NODE_TF_VIEW_OVERFLOW], 1);
    ck_assert_uint_eq(st->rejected, 1);
    ck_assert_uint_eq(st->accepted, N_EVENTS - 1);
    ck_assert_uint_eq(st->events_bad, 0);
    ck_assert_uint_eq(g.accepted, N_EVENTS - 1);
    node_dp_store_stats(g.dp, &ss);
    ck_assert_uint_eq(ss.accepted[0], N_EVENTS - 1);
    ck_assert_uint_le(rte_mempool_in_use_count(g.pool), in_use);
    check_file(&g, ids, N_EVENTS - 1, 1500000);
    rig_down(&g);
}
END_TEST

Suite *node_big_suite(void);

Suite *node_big_suite(void)
{
    Suite *s = suite_create("node_big");
    TCase *tc = tcase_create("node_big");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_big_1500);
    tcase_add_test(tc, test_huge_9000);
    tcase_add_test(tc, test_past_budget);
    suite_add_tcase(s, tc);
    return s;
}
