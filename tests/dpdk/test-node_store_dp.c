/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_store_dp.c - the trigger node storing accepted events under EAL over a net_ring link: credits withheld while the writer is behind, acks in order after, every event in the file, a redispatched one marked as a copy. */
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
#include "ebf_store_read.h"
#include "node_dp.h"
#include "test-eal.h"

#define N_SOURCES 4
#define FRAG 2048                /* records of 8268 B: 15 in a 128 KiB block */
#define PER_BLOCK 15
#define BLOCKS 8                 /* a 1 MiB buffer */
#define CREDITS 8
#define NODE_ID 3

static const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x03};
static const uint8_t sfc_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x03};

struct rig {
    uint16_t sfc_port;           /* the test plays the SFC on this port */
    struct rte_mempool *pool;
    struct node_dp *dp;
    char dir[64];
};

/* A node that accepts every event and stores it in dir through 1 MiB of
 * blocks at 0.25 MB/s: a block takes about 0.5 s to write. */
static void rig_up(struct rig *g)
{
    char err[256];

    test_eal_init();
    snprintf(g->dir, sizeof(g->dir), "/tmp/ebftest-nstore-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g->dir));
    struct rte_ring *down = test_ring("down", 1024), *up = test_ring("up", 1024);
    g->sfc_port = test_ring_port("sfc", up, down);
    uint16_t np = test_ring_port("node", down, up);
    g->pool = ebf_pool_create("test_pool", 2047, 9216, 0);
    ck_assert_ptr_nonnull(g->pool);
    ck_assert_int_eq(ebf_port_start(g->sfc_port, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(np, g->pool, 0, 512, 512), 0);
    struct node_conf c = {
        .port = np, .node_id = NODE_ID, .epoch = 77, .credits = CREDITS, .accept = 1,
        .ack_batch = 1, .heartbeat_ms = 0, .mtu = 9000, .pool = g->pool, .burst = 32,
        .drain_quiet_ms = 10,
        .store = {.max_file_mb = 256, .max_file_s = 0, .buffer_mb = 1, .max_mbs = 0.25},
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

/* One single-frame event of every source, FRAG bytes each, with the event
 * frame flags (EBF_EVF_*). */
static void send_event_flagged(struct rig *g, uint64_t id, uint16_t flags)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    size_t len = EBF_EVENT_HLEN + N_SOURCES * (EBF_FRAG_HLEN + FRAG);
    ck_assert_ptr_nonnull(m);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);

    memcpy(a.dst_mac, node_mac, 6);
    memcpy(a.src_mac, sfc_mac, 6);
    ebf_encap_write(p, &a, len);
    struct ebf_event_hdr eh = {
        .n_sources = N_SOURCES, .flags = flags, .event_id = id, .frame_index = 0,
        .frame_count = 1,
        .n_pieces = N_SOURCES, .event_bytes = N_SOURCES * FRAG, .present = {0xf, 0},
    };
    ebf_event_write(p + EBF_ETH_HLEN, &eh);
    uint8_t *q = p + EBF_ETH_HLEN + EBF_EVENT_HLEN;
    for (uint16_t s = 0; s < N_SOURCES; s++) {
        ebf_pattern_fill(q + EBF_FRAG_HLEN, FRAG, s, id, 0);
        struct ebf_frag_hdr h = {.source = s, .event_id = id, .frag_len = FRAG,
                                 .piece_len = FRAG, .tx_ns = 1};
        ebf_frag_write(q, &h);
        q += EBF_FRAG_HLEN + FRAG;
    }
    ck_assert_uint_eq(rte_eth_tx_burst(g->sfc_port, 0, &m, 1), 1);
}

static void send_event(struct rig *g, uint64_t id)
{
    send_event_flagged(g, id, 0);
}

/* Poll the node n times; the acks it sent (ids appended to acked, each
 * accepted with one credit). */
static unsigned poll_acks(struct rig *g, int n, uint64_t *acked, unsigned *n_acked)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    struct rte_mbuf *m;
    struct ebf_l2l3 l;
    unsigned got = 0;

    for (int i = 0; i < n; i++) {
        node_dp_poll(g->dp);
        while (rte_eth_rx_burst(g->sfc_port, 0, &m, 1) == 1) {
            const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
            ck_assert_int_eq(ebf_parse_l2l3(p, m->data_len, EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
            ck_assert_int_eq(ebf_credit_parse(p + l.hlen, l.len, &h, acks), EBF_R_OK);
            for (unsigned k = 0; k < h.n_acks; k++) {
                ck_assert_uint_eq(acks[k].decision, EBF_DEC_ACCEPT);
                acked[(*n_acked)++] = acks[k].event_id;
            }
            got += h.n_acks;
            rte_pktmbuf_free(m);
        }
    }
    return got;
}

/* The drain to its end (the writer closed the file), within 20 s. */
static void drain_all(struct rig *g)
{
    int done = 0;

    node_dp_drain_begin(g->dp);
    for (uint64_t t0 = rte_get_tsc_cycles();
         !done && rte_get_tsc_cycles() - t0 < 20 * rte_get_tsc_hz();)
        node_dp_drain_poll(g->dp, &done);
    ck_assert(done);
}

START_TEST(test_backpressure_then_in_order)
{
    struct rig g;
    struct node_store_stats st;
    static uint64_t acked[256];
    unsigned n_acked = 0;
    const unsigned fit = PER_BLOCK * BLOCKS;

    rig_up(&g);
    poll_acks(&g, 1, acked, &n_acked);          /* the initial grant */
    /* Every block fills while the writer writes the first one: acked at once. */
    for (uint64_t id = 0; id < fit; id++) {
        send_event(&g, id);
        ck_assert_uint_eq(poll_acks(&g, 2, acked, &n_acked), 1);
        ck_assert_uint_eq(acked[id], id);
    }
    /* The next ones find no free block: each keeps its slot and its credit. */
    for (uint64_t id = fit; id < fit + CREDITS; id++) {
        send_event(&g, id);
        ck_assert_uint_eq(poll_acks(&g, 2, acked, &n_acked), 0);
    }
    uint64_t t0 = rte_get_tsc_cycles();
    while (rte_get_tsc_cycles() - t0 < rte_get_tsc_hz() / 20)
        ck_assert_uint_eq(poll_acks(&g, 1, acked, &n_acked), 0);
    node_dp_store_stats(g.dp, &st);
    ck_assert_uint_eq(st.waiting, CREDITS);
    ck_assert_uint_eq(st.waits, CREDITS);
    ck_assert_uint_eq(st.free_blocks, 0);
    /* A block written frees them, in order. */
    t0 = rte_get_tsc_cycles();
    while (n_acked < fit + CREDITS && rte_get_tsc_cycles() - t0 < 10 * rte_get_tsc_hz())
        poll_acks(&g, 1, acked, &n_acked);
    ck_assert_uint_eq(n_acked, fit + CREDITS);
    for (unsigned i = 0; i < n_acked; i++)
        ck_assert_uint_eq(acked[i], i);
    node_dp_store_stats(g.dp, &st);
    ck_assert_uint_eq(st.waiting, 0);
    ck_assert_uint_gt(st.backpressure_ns, 50000000);
    drain_all(&g);      /* it ends once the writer closed the file */
    node_dp_store_stats(g.dp, &st);
    ck_assert_uint_eq(st.events[0], fit + CREDITS);
    ck_assert_uint_eq(st.accepted[0], fit + CREDITS);
    ck_assert_uint_eq(st.files_closed, 1);

    char path[160], err[256];
    struct ebf_store_file f;
    struct ebf_store_rec r;
    struct ebf_store_frag fr;
    snprintf(path, sizeof(path), "%s/run000009-sfc00-node03-s0-000000.ebfev", g.dir);
    ck_assert_msg(ebf_store_open(&f, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(f.trl_err, EBF_STORE_E_OK);
    ck_assert_str_eq(f.hdr.farm, "tfarm");
    for (uint64_t id = 0; id < fit + CREDITS; id++) {
        ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
        ck_assert_uint_eq(r.event_id, id);
        size_t pos = 0;
        for (unsigned s = 0; s < N_SOURCES; s++) {
            ck_assert(ebf_store_frag_next(&r, &pos, &fr));
            ck_assert_uint_eq(fr.source, s);
            ck_assert_uint_eq(fr.len, FRAG);
            ck_assert_int_eq(ebf_pattern_check(fr.data, fr.len, fr.source, id, 0), -1);
        }
    }
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 0);
    ebf_store_close(&f);
    rig_down(&g);
}
END_TEST

/* An event the SFC redispatched from a node it declared dead (event flag
 * REDISPATCHED) is stored with record flag REPLAYED: the first node may
 * have stored it too, and readers drop this copy then (docs/storage.md,
 * "Copies"); the others are stored unmarked. */
START_TEST(test_redispatched_marked)
{
    struct rig g;
    static uint64_t acked[16];
    unsigned n_acked = 0;

    rig_up(&g);
    poll_acks(&g, 1, acked, &n_acked);
    for (uint64_t id = 0; id < 4; id++) {
        send_event_flagged(&g, id, id % 2 ? EBF_EVF_REDISPATCHED : 0);
        ck_assert_uint_eq(poll_acks(&g, 2, acked, &n_acked), 1);
    }
    drain_all(&g);

    char path[160], err[256];
    struct ebf_store_file f;
    struct ebf_store_rec r;
    snprintf(path, sizeof(path), "%s/run000009-sfc00-node03-s0-000000.ebfev", g.dir);
    ck_assert_msg(ebf_store_open(&f, path, err, sizeof(err)) == 0, "%s", err);
    for (uint64_t id = 0; id < 4; id++) {
        ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 1);
        ck_assert_uint_eq(r.event_id, id);
        ck_assert_uint_eq(r.flags, id % 2 ? EBF_STORE_REC_REPLAYED : 0);
    }
    ck_assert_int_eq(ebf_store_next(&f, &r, err, sizeof(err)), 0);
    ebf_store_close(&f);
    rig_down(&g);
}
END_TEST

Suite *node_store_dp_suite(void);

Suite *node_store_dp_suite(void)
{
    Suite *s = suite_create("node_store_dp");
    TCase *tc = tcase_create("node_store_dp");

    tcase_set_timeout(tc, 90);
    tcase_add_test(tc, test_backpressure_then_in_order);
    tcase_add_test(tc, test_redispatched_marked);
    suite_add_tcase(s, tc);
    return s;
}
