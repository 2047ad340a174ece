/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_workers.c - trigger workers: the same decisions, acks and counters with 0, 1 and 2 workers; credits are the workers' slots. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "node_dp.h"
#include "test-eal.h"

#define N_SOURCES 4
#define FRAG 64
#define CREDITS 7
#define N_EVENTS 600

static const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x03};
static const uint8_t sfc_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x03};

/* What one run gave: every ack by event id, and the counters. */
struct outcome {
    struct ebf_ack ack[N_EVENTS];
    unsigned n_acks;
    uint64_t granted;            /* credits in the node's frames */
    struct node_stats st;
};

static void eal_up(void)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "t", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--lcores=0@(0,1),1@(0,1),2@(0,1)", prefix, "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(9, argv), 0);
}

/* Event id as one frame: every 7th with a bad CRC, every 11th incomplete
 * (source 3 missing). */
static struct rte_mbuf *event_frame(struct rte_mempool *pool, uint64_t id)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    unsigned n = id % 11 == 0 ? 3 : 4;
    size_t len = EBF_EVENT_HLEN + n * (EBF_FRAG_HLEN + FRAG);
    ck_assert_ptr_nonnull(m);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    memcpy(a.dst_mac, node_mac, 6);
    memcpy(a.src_mac, sfc_mac, 6);
    ebf_encap_write(p, &a, len);
    struct ebf_event_hdr eh = {
        .n_sources = N_SOURCES, .flags = n == 3 ? EBF_EVF_INCOMPLETE : 0, .event_id = id,
        .frame_index = 0, .frame_count = 1, .n_pieces = (uint16_t)n,
        .event_bytes = n * FRAG, .present = {n == 3 ? 0x7 : 0xf, 0},
    };
    ebf_event_write(p + EBF_ETH_HLEN, &eh);
    uint8_t *q = p + EBF_ETH_HLEN + EBF_EVENT_HLEN;
    for (uint16_t s = 0; s < n; s++) {
        ebf_pattern_fill(q + EBF_FRAG_HLEN, FRAG, s, id, 0);
        struct ebf_frag_hdr h = {.source = s, .event_id = id, .frag_len = FRAG,
                                 .piece_len = FRAG, .tx_ns = 1};
        ebf_frag_write(q, &h);
        if (id % 7 == 0)
            q[EBF_FRAG_HLEN + 3] ^= 0x01;
        q += EBF_FRAG_HLEN + FRAG;
    }
    return m;
}

/* The credit frames waiting at the SFC's port: their acks into o; returns
 * the acks read. */
static unsigned read_credits(uint16_t port, struct outcome *o)
{
    struct rte_mbuf *m;
    unsigned got = 0;

    while (rte_eth_rx_burst(port, 0, &m, 1) == 1) {
        struct ebf_l2l3 l;
        struct ebf_credit_hdr h;
        struct ebf_ack acks[EBF_MAX_ACKS];
        const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
        ck_assert_int_eq(ebf_parse_l2l3(p, m->data_len, EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
        ck_assert_int_eq(ebf_credit_parse(p + l.hlen, l.len, &h, acks), EBF_R_OK);
        o->granted += h.credits;
        for (unsigned i = 0; i < h.n_acks; i++) {
            ck_assert_uint_lt(acks[i].event_id, N_EVENTS);
            ck_assert_uint_eq(o->ack[acks[i].event_id].event_id, UINT64_MAX);  /* once */
            o->ack[acks[i].event_id] = acks[i];
            o->n_acks++;
        }
        got += h.n_acks;
        rte_pktmbuf_free(m);
    }
    return got;
}

/* N_EVENTS events through a node with workers trigger workers, never more
 * outstanding than its credits (the test plays the SFC). */
static void run(uint16_t workers, struct outcome *o)
{
    char name[32];
    memset(o, 0, sizeof(*o));
    for (unsigned i = 0; i < N_EVENTS; i++)
        o->ack[i].event_id = UINT64_MAX;
    snprintf(name, sizeof(name), "down%u", workers);
    struct rte_ring *down = test_ring(name, 1024);
    snprintf(name, sizeof(name), "up%u", workers);
    struct rte_ring *up = test_ring(name, 1024);
    snprintf(name, sizeof(name), "sfc%u", workers);
    uint16_t sfc = test_ring_port(name, up, down);
    snprintf(name, sizeof(name), "node%u", workers);
    uint16_t np = test_ring_port(name, down, up);
    snprintf(name, sizeof(name), "pool%u", workers);
    struct rte_mempool *pool = ebf_pool_create(name, 2047, 2048, 0);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(ebf_port_start(sfc, pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(np, pool, 0, 512, 512), 0);
    struct node_conf c = {
        .port = np, .node_id = 3, .epoch = 77, .credits = CREDITS, .accept = 0.5,
        .accept_seed = 9, .ack_batch = 4, .pool = pool, .burst = 32, .drain_quiet_ms = 10,
        .trigger_us = 2, .workers = workers,
    };
    memcpy(c.mac, node_mac, 6);
    memcpy(c.sfc_mac, sfc_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    struct node_dp *dp = node_dp_create(&c);
    ck_assert_ptr_nonnull(dp);
    unsigned slots = 0;
    for (unsigned w = 0; w < workers; w++)
        slots += node_dp_worker_slots(dp, w);
    ck_assert_uint_eq(slots, workers ? CREDITS : 0);
    ck_assert_uint_eq(node_dp_worker_slots(dp, workers), 0);
    uint64_t next = 0, outstanding = 0;
    for (int spins = 0; o->n_acks < N_EVENTS && spins < 50000000; spins++) {
        while (outstanding < CREDITS && next < N_EVENTS) {
            struct rte_mbuf *m = event_frame(pool, next++);
            ck_assert_uint_eq(rte_eth_tx_burst(sfc, 0, &m, 1), 1);
            outstanding++;
        }
        node_dp_poll(dp);
        outstanding -= read_credits(sfc, o);
    }
    ck_assert_uint_eq(o->n_acks, N_EVENTS);
    o->st = *node_dp_stats(dp);
    struct node_gauges g;
    node_dp_gauges(dp, &g);
    ck_assert_uint_eq(g.credits, CREDITS);
    ck_assert_uint_eq(g.events_in_progress, 0);
    node_dp_destroy(dp);
}

/* The same events through 0, 1 and 2 workers: every ack (decision and
 * status) the same, the counters of the ledger the same, the credits
 * granted the same (the initial grant, which is the workers' slots
 * together, and one per event). */
START_TEST(test_workers_same_as_one)
{
    static struct outcome o[3];

    eal_up();
    for (uint16_t w = 0; w < 3; w++)
        run(w, &o[w]);
    for (unsigned w = 1; w < 3; w++) {
        for (unsigned i = 0; i < N_EVENTS; i++) {
            ck_assert_uint_eq(o[w].ack[i].event_id, i);
            ck_assert_uint_eq(o[w].ack[i].decision, o[0].ack[i].decision);
            ck_assert_uint_eq(o[w].ack[i].status, o[0].ack[i].status);
        }
        ck_assert_uint_eq(o[w].granted, CREDITS + N_EVENTS);
        ck_assert_uint_eq(o[w].st.events, N_EVENTS);
        ck_assert_uint_eq(o[w].st.accepted, o[0].st.accepted);
        ck_assert_uint_eq(o[w].st.rejected, o[0].st.rejected);
        ck_assert_uint_eq(o[w].st.incomplete, o[0].st.incomplete);
        ck_assert_uint_eq(o[w].st.events_bad, o[0].st.events_bad);
        ck_assert_uint_eq(o[w].st.payload_bytes, o[0].st.payload_bytes);
        ck_assert_uint_eq(o[w].st.decided_digest, o[0].st.decided_digest);
        ck_assert_uint_eq(o[w].st.acks_sent, N_EVENTS);
        ck_assert_uint_eq(o[w].st.credits_granted, CREDITS + N_EVENTS);
        ck_assert_int_eq(memcmp(o[w].st.verify, o[0].st.verify, sizeof(o[0].st.verify)), 0);
        ck_assert_int_eq(memcmp(o[w].st.trigger_fail, o[0].st.trigger_fail,
                                sizeof(o[0].st.trigger_fail)), 0);
    }
    /* The mix is what was meant: 86 spoiled (id % 7), 55 incomplete (id % 11). */
    ck_assert_uint_eq(o[0].st.verify[NODE_V_BAD_CRC], 86);
    ck_assert_uint_eq(o[0].st.incomplete, 55);
    ck_assert_uint_gt(o[0].st.accepted, 200);
    ck_assert_uint_gt(o[0].st.rejected, 200);
    ebf_eal_cleanup();
}
END_TEST

/* More workers than EAL has lcores: the data plane is refused (ERANGE). */
START_TEST(test_too_few_lcores)
{
    eal_up();
    struct rte_ring *down = test_ring("down", 64), *up = test_ring("up", 64);
    uint16_t np = test_ring_port("node", down, up);
    struct rte_mempool *pool = ebf_pool_create("pool", 511, 2048, 0);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(ebf_port_start(np, pool, 0, 64, 64), 0);
    struct node_conf c = {.port = np, .credits = 8, .pool = pool, .workers = 3,
                          .drain_quiet_ms = 10};
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    ck_assert_ptr_null(node_dp_create(&c));
    ck_assert_int_eq(errno, ERANGE);
    c.workers = 9;               /* more than the credits */
    ck_assert_ptr_null(node_dp_create(&c));
    ck_assert_int_eq(errno, EINVAL);
    ebf_eal_cleanup();
}
END_TEST

Suite *node_workers_suite(void);

Suite *node_workers_suite(void)
{
    Suite *s = suite_create("node_workers");
    TCase *tc = tcase_create("node_workers");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_workers_same_as_one);
    tcase_add_test(tc, test_too_few_lcores);
    suite_add_tcase(s, tc);
    return s;
}
