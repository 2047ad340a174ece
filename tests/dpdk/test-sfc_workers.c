/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_workers.c - an SFC of 2 workers: ports and nodes cut per worker, events to their worker's nodes only, the throttle on for both, counters summed. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_release.h"
#include "sfc_workers.h"
#include "test-eal.h"

#define SOURCES 4
#define FRAG 256

static const uint8_t ro_mac[6] = {2, 0, 0, 0, 0, 9};
static const uint8_t node_mac[2][6] = {{2, 0xeb, 0, 0, 2, 0}, {2, 0xeb, 0, 0, 2, 1}};

/* Readout port i <-> worker i's readout port, node i <-> worker i's node
 * port; the SFC of 2 workers on them. */
struct wrig {
    uint16_t ro[2], sfc_rx[2], sfc_node[2], node[2];
    uint8_t rx_mac[2][6], node_side_mac[2][6];
    struct rte_mempool *pool;
    struct sfc_conf c;
    struct sfc_workers *sw;
    uint32_t seq[2][SOURCES];
};

static uint16_t port_pair(const char *a, const char *b, unsigned i, uint16_t *other)
{
    char n1[32], n2[32];
    snprintf(n1, sizeof(n1), "%s%u_a", a, i);
    snprintf(n2, sizeof(n2), "%s%u_b", b, i);
    struct rte_ring *x = test_ring(n1, 1024), *y = test_ring(n2, 1024);
    *other = test_ring_port(n2, y, x);
    return test_ring_port(n1, x, y);
}

static void up(struct wrig *g)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "t", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--lcores=0@(0,1),1@(0,1)", prefix, "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(9, argv), 0);
    memset(g, 0, sizeof(*g));
    g->pool = ebf_pool_create("w_pool", 4095, 2048, 0);
    struct rte_mempool *hdr = ebf_pool_create("w_hdr", 1023, 128, 0);
    struct rte_mempool *clone = ebf_pool_create("w_clone", 4095, 0, 0);
    ck_assert(g->pool && hdr && clone);
    for (unsigned i = 0; i < 2; i++) {
        g->ro[i] = port_pair("ro", "sfcrx", i, &g->sfc_rx[i]);
        g->node[i] = port_pair("nd", "sfcnd", i, &g->sfc_node[i]);
        uint16_t p[] = {g->ro[i], g->sfc_rx[i], g->node[i], g->sfc_node[i]};
        for (unsigned k = 0; k < 4; k++)
            ck_assert_int_eq(ebf_port_start(p[k], g->pool, 0, 512, 512), 0);
        struct rte_ether_addr ea;
        rte_eth_macaddr_get(g->sfc_rx[i], &ea);
        memcpy(g->rx_mac[i], ea.addr_bytes, 6);
        rte_eth_macaddr_get(g->sfc_node[i], &ea);
        memcpy(g->node_side_mac[i], ea.addr_bytes, 6);
    }
    g->c = (struct sfc_conf){
        .rx_port = g->sfc_rx[0], .n_more_rx = 1, .more_rx = {g->sfc_rx[1]},
        .n_sources = SOURCES, .udp_port = EBF_UDP_PORT_DEFAULT, .n_nodes = 2, .capacity = 64,
        .max_frames = 1024, .max_credits = 16, .timeout_ms = 10000, .mtu = 1500, .burst = 32,
        .hdr_pool = hdr, .clone_pool = clone, .drain_quiet_ms = 10, .drain_timeout_ms = 100,
        .n_readouts = 1, .workers = 2,
    };
    memcpy(g->c.readout_mac[0], ro_mac, 6);
    for (unsigned i = 0; i < 2; i++) {
        g->c.node[i].port = g->sfc_node[i];
        memcpy(g->c.node[i].mac, node_mac[i], 6);
    }
    ebf_idle_init(&g->c.idle, EBF_IDLE_SPIN);
}

/* The fragment of (source, event) from the readout on readout port w,
 * with the fragment header's flags (EBF_FRAGF_REPLAY: a replayed one). */
static void send_frag_flagged(struct wrig *g, unsigned w, uint16_t source, uint64_t event,
                              uint16_t flags)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->rx_mac[w], 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_FRAG_HLEN + FRAG);
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + FRAG);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, FRAG, source, event, 0);
    struct ebf_frag_hdr h = {.source = source, .seq = g->seq[w][source]++, .event_id = event,
                             .frag_len = FRAG, .piece_len = FRAG, .tx_ns = 1, .flags = flags};
    ebf_frag_write(p + EBF_ETH_HLEN, &h);
    ck_assert_uint_eq(rte_eth_tx_burst(g->ro[w], 0, &m, 1), 1);
}

static void send_frag(struct wrig *g, unsigned w, uint16_t source, uint64_t event)
{
    send_frag_flagged(g, w, source, event, 0);
}

/* A replay end of dead place `place` (docs/protocol.md 13.4.1) from the
 * readout to worker 0's MAC on readout port 0, for every source: first
 * routed-around id `from`. */
static void send_end(struct wrig *g, uint16_t place, uint64_t from, unsigned mask)
{
    struct ebf_release_hdr h = {.place = place, .flags = EBF_RELF_END, .low = from};
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};

    for (uint16_t s = 0; s < SOURCES; s++)
        if (mask >> s & 1)
            h.src[h.n_src++] = (struct ebf_release_src){.source = s, .next_seq = g->seq[0][s]};
    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->rx_mac[0], 6);
    size_t len = ebf_release_len(h.n_src);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, len);
    ck_assert_uint_eq(ebf_release_write(p + EBF_ETH_HLEN, &h), len);
    ck_assert_uint_eq(rte_eth_tx_burst(g->ro[0], 0, &m, 1), 1);
}

/* A credit frame from node n (epoch 1) on its port. */
static void credit(struct wrig *g, unsigned n, uint16_t credits, const struct ebf_ack *acks,
                   uint16_t n_acks)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    size_t len = ebf_credit_len(n_acks);
    ck_assert_ptr_nonnull(m);
    memcpy(a.dst_mac, g->node_side_mac[n], 6);
    memcpy(a.src_mac, node_mac[n], 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {.node_id = (uint16_t)n, .credits = credits, .n_acks = n_acks,
                               .epoch = 1};
    ebf_credit_write(p + EBF_ETH_HLEN, &h, acks);
    ck_assert_uint_eq(rte_eth_tx_burst(g->node[n], 0, &m, 1), 1);
}

/* Both workers' passes, from this thread (not launched). */
static void poll_both(struct wrig *g, int passes)
{
    for (int i = 0; i < passes; i++)
        for (unsigned w = 0; w < 2; w++)
            sfc_dp_poll(sfc_workers_dp(g->sw, w), 1);
}

/* The event ids of the event frames at node n, freed. */
static unsigned node_events(struct wrig *g, unsigned n, uint64_t *ids, unsigned max)
{
    struct rte_mbuf *m[32];
    unsigned got = 0;
    uint16_t k;

    while ((k = rte_eth_rx_burst(g->node[n], 0, m, 32)) > 0) {
        for (uint16_t j = 0; j < k; j++) {
            struct ebf_event_hdr eh;
            const uint8_t *p = rte_pktmbuf_mtod(m[j], const uint8_t *);
            ck_assert_int_eq(ebf_event_parse(p + EBF_ETH_HLEN, m[j]->pkt_len - EBF_ETH_HLEN,
                                             &eh), EBF_R_OK);
            if (got < max)
                ids[got++] = eh.event_id;
        }
        rte_pktmbuf_free_bulk(m, k);
    }
    return got;
}

/* Ports that do not cut are refused with what is needed; with 2 readout
 * ports and 2 node ports the SFC is made. */
START_TEST(test_check)
{
    struct wrig g;
    char err[320];

    up(&g);
    struct sfc_conf c = g.c;
    c.n_more_rx = 2;
    c.more_rx[1] = g.sfc_rx[1];
    ck_assert_int_eq(sfc_workers_check(&c, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--workers 2: 3 readout ports (--port and 2 --readout-port) do not "
                          "cut into 2 equal runs: give one readout port (the workers share it: "
                          "worker 0 hands each frame to the worker its destination MAC names) "
                          "or a multiple of 2 (each worker its own: a memif link per readout "
                          "and worker)");
    ck_assert_uint_eq(sfc_workers_node_txqs(&g.c), 1);     /* a node port each */
    c = g.c;
    c.node[1].port = g.sfc_node[0];     /* one node port, shared (tests/dpdk/test-sfc_dist.c) */
    ck_assert_int_eq(sfc_workers_check(&c, err, sizeof(err)), 0);
    ck_assert_uint_eq(sfc_workers_node_txqs(&c), 2);
    c = g.c;
    c.workers = 3;
    ck_assert_ptr_null(sfc_workers_create(&c));      /* 2 lcores, and ports for 2 */
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    ck_assert_uint_eq(sfc_workers_count(g.sw), 2);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* Events 0, 2, 4 to worker 0 and 1, 3, 5 to worker 1 (as readouts send a
 * 2-worker SFC): each worker builds its own and sends them to its own node
 * only; the acks come back to it; the counters are the sum. */
START_TEST(test_events_to_own_nodes)
{
    struct wrig g;
    uint64_t ids[16];

    up(&g);
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    credit(&g, 0, 8, NULL, 0);
    credit(&g, 1, 8, NULL, 0);
    for (uint64_t e = 0; e < 6; e++)
        for (uint16_t s = 0; s < SOURCES; s++)
            send_frag(&g, (unsigned)(e % 2), s, e);
    poll_both(&g, 20);
    for (unsigned n = 0; n < 2; n++) {
        ck_assert_uint_eq(node_events(&g, n, ids, 16), 3);
        for (unsigned i = 0; i < 3; i++)
            ck_assert_uint_eq(ids[i], 2 * i + n);
        struct ebf_ack acks[3];
        for (unsigned i = 0; i < 3; i++)
            acks[i] = (struct ebf_ack){.event_id = 2 * i + n, .decision = EBF_DEC_ACCEPT};
        credit(&g, n, 3, acks, 3);
    }
    poll_both(&g, 20);
    struct sfc_stats st;
    struct sfc_gauges ga;
    sfc_workers_stats(g.sw, &st);
    sfc_workers_gauges(g.sw, &ga);
    ck_assert_uint_eq(st.rx_frames, 6 * SOURCES);
    ck_assert_uint_eq(st.events_complete, 6);
    ck_assert_uint_eq(st.events_sent, 6);
    ck_assert_uint_eq(st.acks, 6);
    ck_assert_uint_eq(st.node_sent[0], 3);
    ck_assert_uint_eq(st.node_sent[1], 3);
    ck_assert_uint_eq(st.drop[SFC_DROP_UNKNOWN_NODE], 0);
    for (uint16_t s = 0; s < SOURCES; s++) {
        ck_assert_uint_eq(st.seq.gap[s], 0);
        ck_assert_uint_eq(st.next_by_source[s], 6);     /* the highest of either, not a sum */
    }
    ck_assert_uint_eq(ga.unacked, 0);
    ck_assert_uint_eq(ga.credits[0], 8);
    ck_assert_uint_eq(ga.credits[1], 8);
    ck_assert_uint_eq(ga.alive[0], 1);
    ck_assert_uint_eq(ga.alive[1], 1);
    ck_assert_uint_eq(ga.free_slots, 64);               /* 32 each */
    struct ebf_idset want;
    ebf_idset_init(&want);
    for (uint64_t e = 0; e < 6; e++)
        ebf_idset_add(&want, e);
    ebf_idset_merge(&want, &st.ledger_acked, -1);
    ck_assert(ebf_idset_empty(&want));
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* The throttle frames back on readout port w: how many "on", the last
 * sequence number. */
static unsigned throttle_on(struct wrig *g, unsigned w, uint32_t *seq)
{
    struct rte_mbuf *m[32];
    unsigned on = 0;
    uint16_t k;

    while ((k = rte_eth_rx_burst(g->ro[w], 0, m, 32)) > 0) {
        for (uint16_t j = 0; j < k; j++) {
            struct ebf_throttle_hdr h;
            const uint8_t *p = rte_pktmbuf_mtod(m[j], const uint8_t *);
            ck_assert_int_eq(ebf_throttle_parse(p + EBF_ETH_HLEN, m[j]->data_len - EBF_ETH_HLEN,
                                                &h), EBF_R_OK);
            on += h.on;
            *seq = h.seq;
        }
        rte_pktmbuf_free_bulk(m, k);
    }
    return on;
}

/* Worker 1's table at 3/4 (24 of its 32 events building), worker 0's
 * empty: the SFC throttles, and both workers say so on their own readout
 * ports (worker 0 by its next timer tick), numbered by one sequence; the
 * transition is counted once. */
START_TEST(test_throttle_any_worker)
{
    struct wrig g;
    uint32_t seq0 = 0, seq1 = 0;

    up(&g);
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    for (uint64_t e = 1; e < 48; e += 2)              /* 24 events of worker 1, 1 source */
        send_frag(&g, 1, 0, e);
    poll_both(&g, 4);
    ck_assert_uint_eq(throttle_on(&g, 1, &seq1), 1);
    usleep(300);                /* worker 0 looks at the throttle on its 100 us timer */
    poll_both(&g, 4);
    ck_assert_uint_eq(throttle_on(&g, 0, &seq0), 1);
    ck_assert_uint_ne(seq0, seq1);
    ck_assert_uint_le(seq0, 1);
    ck_assert_uint_le(seq1, 1);
    struct sfc_stats st;
    struct sfc_gauges ga;
    sfc_workers_stats(g.sw, &st);
    sfc_workers_gauges(g.sw, &ga);
    ck_assert_uint_eq(st.throttle_on, 1);
    ck_assert_uint_eq(st.throttle_frames, 2);
    ck_assert_int_eq(ga.throttled, 1);
    ck_assert_uint_eq(ga.building, 24);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* Launched: worker 1 on its lcore drains on its own at the stop; the
 * drain is done once both are. */
START_TEST(test_launched_drain)
{
    struct wrig g;
    char err[128];
    int done = 0;

    up(&g);
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    ck_assert_int_eq(sfc_workers_begin(g.sw, err, sizeof(err)), 0);
    credit(&g, 1, 8, NULL, 0);
    for (uint16_t s = 0; s < SOURCES; s++)
        send_frag(&g, 1, s, 1);
    uint64_t ids[4];
    unsigned got = 0;
    for (int i = 0; i < 2000000 && got == 0; i++) {
        sfc_workers_poll(g.sw, 1);
        got = node_events(&g, 1, ids, 4);
    }
    ck_assert_uint_eq(got, 1);
    ck_assert_uint_eq(ids[0], 1);
    struct ebf_ack ack = {.event_id = 1, .decision = EBF_DEC_REJECT};
    credit(&g, 1, 1, &ack, 1);
    sfc_workers_drain_begin(g.sw);
    for (int i = 0; i < 100000000 && !done; i++)
        sfc_workers_drain_poll(g.sw, &done);
    ck_assert(done);
    struct sfc_stats st;
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.acks, 1);
    ck_assert_uint_eq(st.acked_reject, 1);
    ck_assert_uint_eq(st.events_sent, 1);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/*
 * A replay end reaches worker 0 only (the readouts address the SFC's MAC),
 * while the replayed event it proves decided sits on worker 1: event 21
 * came replayed from sources 0 and 1 only; sources 2 and 3 go on sending
 * (event 23), so past the grace (1 s) it is kept for their readout's
 * replay end (replay.waits). The ends of place 1 at id 50 of both
 * readouts come to worker 0, which hands them to worker 1 over its ring:
 * worker 1 drops event 21 at its next tick as proven decided
 * (replay.partial, replay.ended), not 5 s later at the cap; each end is
 * counted once (replay.ends 2), none lost (replay.end_ring_full 0).
 */
START_TEST(test_replay_end_to_every_worker)
{
    struct wrig g;
    uint64_t ids[8];
    struct sfc_stats st;

    up(&g);
    g.c.timeout_ms = 20;
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    credit(&g, 0, 8, NULL, 0);
    credit(&g, 1, 8, NULL, 0);
    for (uint16_t s = 0; s < SOURCES; s++)
        send_frag(&g, 0, s, 0);             /* worker 0 binds the sources to ro_mac */
    for (uint16_t s = 0; s < 2; s++)
        send_frag_flagged(&g, 1, s, 21, EBF_FRAGF_REPLAY);
    for (uint16_t s = 0; s < SOURCES; s++)
        send_frag(&g, 1, s, 23);
    poll_both(&g, 8);
    ck_assert_uint_eq(node_events(&g, 0, ids, 8), 1);
    ck_assert_uint_eq(node_events(&g, 1, ids, 8), 1);
    ck_assert_uint_eq(ids[0], 23);
    usleep(1100 * 1000);                    /* past SFC_REPLAY_GRACE_NS */
    poll_both(&g, 8);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.replay_waits, 1);
    ck_assert_uint_eq(st.replay_partial, 0);
    send_end(&g, 1, 50, 0x3);               /* the readout of sources 0 and 1 */
    send_end(&g, 1, 50, 0xc);               /* and that of sources 2 and 3 */
    for (int i = 0; i < 4; i++) {
        poll_both(&g, 2);
        usleep(200);                        /* the workers' 100 us tick */
    }
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.replay_ends, 2);
    ck_assert_uint_eq(st.replay_end_refused, 0);
    ck_assert_uint_eq(st.replay_end_ring_full, 0);
    ck_assert_uint_eq(st.replay_partial, 1);
    ck_assert_uint_eq(st.replay_ended, 1);
    ck_assert_uint_eq(st.replay_wait_cap, 0);
    ck_assert_uint_eq(st.replay_waits, 1);
    ck_assert_uint_eq(st.replay_pieces, 2);
    ck_assert_uint_eq(st.events_sent, 2);
    ck_assert_uint_eq(st.events_incomplete, 0);
    struct sfc_gauges ga;
    sfc_workers_gauges(g.sw, &ga);
    ck_assert_uint_eq(ga.building, 0);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* Worker 1 does not take its ring (not polled): worker 0 hands it the
 * first SFC_END_RING ends and counts the rest lost to it
 * (replay.end_ring_full); once worker 1 takes them the ring is empty
 * and the next end goes through. */
START_TEST(test_replay_end_ring_full)
{
    struct wrig g;
    struct sfc_stats st;

    up(&g);
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    struct sfc_dp *w0 = sfc_workers_dp(g.sw, 0), *w1 = sfc_workers_dp(g.sw, 1);
    for (uint16_t s = 0; s < SOURCES; s++)
        send_frag(&g, 0, s, 0);
    for (int i = 0; i < 4; i++)
        sfc_dp_poll(w0, 1);
    for (unsigned k = 0; k < SFC_END_RING + 3; k++) {
        send_end(&g, 1, 50 + k, 0xf);
        if (k % 64 == 63)
            for (int i = 0; i < 4; i++)
                sfc_dp_poll(w0, 1);
    }
    for (int i = 0; i < 8; i++)
        sfc_dp_poll(w0, 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.replay_ends, SFC_END_RING + 3);
    ck_assert_uint_eq(st.replay_end_ring_full, 3);
    for (int i = 0; i < SFC_END_RING / 8 + 4; i++) {
        sfc_dp_poll(w1, 1);
        usleep(200);
    }
    send_end(&g, 1, 1000, 0xf);
    for (int i = 0; i < 4; i++)
        sfc_dp_poll(w0, 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.replay_ends, SFC_END_RING + 4);
    ck_assert_uint_eq(st.replay_end_ring_full, 3);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

Suite *sfc_workers_suite(void);

Suite *sfc_workers_suite(void)
{
    Suite *s = suite_create("sfc_workers");
    TCase *tc = tcase_create("sfc_workers");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_events_to_own_nodes);
    tcase_add_test(tc, test_throttle_any_worker);
    tcase_add_test(tc, test_launched_drain);
    tcase_add_test(tc, test_replay_end_to_every_worker);
    tcase_add_test(tc, test_replay_end_ring_full);
    suite_add_tcase(s, tc);
    return s;
}
