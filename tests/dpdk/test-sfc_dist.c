/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_dist.c - SFC workers on one shared readout port and one shared node port: 2 workers against 1 on the same input, a full distribution ring counted exactly, the tx queue check. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "ebf_pattern.h"
#include "ebf_port.h"
#include "sfc_dist.h"
#include "sfc_workers.h"
#include "test-eal.h"

#define SOURCES 4
#define FRAG 256
#define NODES 4
#define EVENTS 120

static const uint8_t ro_mac[6] = {2, 0, 0, 0, 0, 9};

/* A readout on one link to the SFC's readout port; NODES nodes behind one
 * node port (a switch: the SFC's side with a tx queue per worker into the
 * one ring to the nodes, and with more than one, 2 rx queues). */
struct drig {
    uint16_t ro, sfc_rx, sfc_node, nd, nq;
    uint8_t rx_mac[6], node_side_mac[6], node_mac[NODES][6];
    struct rte_mempool *pool;
    struct sfc_conf c;
    struct sfc_workers *sw;
    uint32_t seq[2][SOURCES];    /* per (worker place, source) */
};

static void eal_up(void)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "t", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--lcores=0@(0,1),1@(0,1)", prefix, "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(9, argv), 0);
}

static struct rte_ring *ring(const char *tag, unsigned i)
{
    char name[32];
    snprintf(name, sizeof(name), "%s%u", tag, i);
    struct rte_ring *r = rte_ring_create(name, 4096, 0, 0);     /* MP/MC: tx queues share it */
    ck_assert_ptr_nonnull(r);
    return r;
}

/* The rig for an SFC of `workers` (the node port with `txqs` tx queues),
 * named apart by tag so that two rigs live in one process. */
static void rig_up(struct drig *g, unsigned tag, uint16_t workers, uint16_t txqs)
{
    char name[32];
    struct rte_ring *a = ring("da", tag), *b = ring("db", tag), *d = ring("dd", tag);
    struct rte_ring *up[2] = {ring("dc", tag), ring("de", tag)}, *tx[SFC_WORKERS_MAX];

    memset(g, 0, sizeof(*g));
    snprintf(name, sizeof(name), "dpool%u", tag);
    g->pool = ebf_pool_create(name, 8191, 2048, 0);
    snprintf(name, sizeof(name), "dhdr%u", tag);
    struct rte_mempool *hdr = ebf_pool_create(name, 1023, 128, 0);
    snprintf(name, sizeof(name), "dclone%u", tag);
    struct rte_mempool *clone = ebf_pool_create(name, 4095, 0, 0);
    ck_assert(g->pool && hdr && clone);
    snprintf(name, sizeof(name), "dro%u", tag);
    g->ro = test_ring_port(name, a, b);
    snprintf(name, sizeof(name), "dsfcrx%u", tag);
    g->sfc_rx = test_ring_port(name, b, a);
    for (uint16_t q = 0; q < txqs; q++)
        tx[q] = d;
    snprintf(name, sizeof(name), "dsfcnd%u", tag);
    /* With more tx queues, 2 rx queues too (as net_af_packet with qpairs
     * has): nodes 1 and 3 send on the second. */
    g->nq = txqs > 1 ? 2 : 1;
    int p = rte_eth_from_rings(name, up, g->nq, tx, txqs, 0);
    ck_assert_int_ge(p, 0);
    g->sfc_node = (uint16_t)p;
    snprintf(name, sizeof(name), "dnd%u", tag);
    p = rte_eth_from_rings(name, &d, 1, up, g->nq, 0);
    ck_assert_int_ge(p, 0);
    g->nd = (uint16_t)p;
    ck_assert_int_eq(ebf_port_start(g->ro, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(g->sfc_rx, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start_queues(g->nd, g->pool, 0, 512, 512, 1, g->nq), 0);
    ck_assert_int_eq(ebf_port_start_queues(g->sfc_node, g->pool, 0, 512, 512, g->nq, txqs), 0);
    struct rte_ether_addr ea;
    rte_eth_macaddr_get(g->sfc_rx, &ea);
    memcpy(g->rx_mac, ea.addr_bytes, 6);
    rte_eth_macaddr_get(g->sfc_node, &ea);
    memcpy(g->node_side_mac, ea.addr_bytes, 6);
    g->c = (struct sfc_conf){
        .rx_port = g->sfc_rx, .n_sources = SOURCES, .udp_port = EBF_UDP_PORT_DEFAULT,
        .n_nodes = NODES, .capacity = 64, .max_frames = 2048, .max_credits = 64,
        .timeout_ms = 20, .mtu = 1500, .burst = 32, .hdr_pool = hdr, .clone_pool = clone,
        .drain_quiet_ms = 10, .drain_timeout_ms = 100, .n_readouts = 1, .workers = workers,
    };
    memcpy(g->c.readout_mac[0], ro_mac, 6);
    for (unsigned i = 0; i < NODES; i++) {
        uint8_t m[6] = {2, 0xeb, 0, 0, 2, (uint8_t)i};
        memcpy(g->node_mac[i], m, 6);
        g->c.node[i].port = g->sfc_node;
        memcpy(g->c.node[i].mac, m, 6);
    }
    ebf_idle_init(&g->c.idle, EBF_IDLE_SPIN);
}

/* The fragment of (source, event) to worker place w (the SFC's MAC + w in
 * its fourth byte); skip: lost on the wire (its sequence number used). */
static void send_frag(struct drig *g, unsigned w, uint16_t source, uint64_t event, int skip)
{
    struct ebf_frag_hdr h = {.source = source, .seq = g->seq[w][source]++, .event_id = event,
                             .frag_len = FRAG, .piece_len = FRAG, .tx_ns = 1};
    if (skip)
        return;
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->rx_mac, 6);
    a.dst_mac[3] = (uint8_t)(a.dst_mac[3] + w);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_FRAG_HLEN + FRAG);
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + FRAG);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, FRAG, source, event, 0);
    ebf_frag_write(p + EBF_ETH_HLEN, &h);
    ck_assert_uint_eq(rte_eth_tx_burst(g->ro, 0, &m, 1), 1);
}

/* A credit frame from node n (epoch 1) with its acks. */
static void credit(struct drig *g, unsigned n, uint16_t credits, const struct ebf_ack *acks,
                   uint16_t n_acks)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    size_t len = ebf_credit_len(n_acks);
    ck_assert_ptr_nonnull(m);
    memcpy(a.dst_mac, g->node_side_mac, 6);
    memcpy(a.src_mac, g->node_mac[n], 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {.node_id = (uint16_t)n, .credits = credits, .n_acks = n_acks,
                               .epoch = 1};
    ebf_credit_write(p + EBF_ETH_HLEN, &h, acks);
    ck_assert_uint_eq(rte_eth_tx_burst(g->nd, (uint16_t)(n % g->nq), &m, 1), 1);
}

/* Every worker's passes from this thread (not launched), worker 0 first. */
static void poll_all(struct drig *g, int passes)
{
    for (int i = 0; i < passes; i++)
        for (unsigned w = 0; w < sfc_workers_count(g->sw); w++)
            sfc_dp_poll(sfc_workers_dp(g->sw, w), 1);
}

/* The nodes: every event frame at the node port acked (accepted) by the
 * node it went to, with one credit back per event. Returns the events. */
static unsigned nodes_ack(struct drig *g)
{
    struct rte_mbuf *m[32];
    struct ebf_ack acks[NODES][32];
    uint16_t na[NODES] = {0}, k;
    unsigned got = 0;

    while ((k = rte_eth_rx_burst(g->nd, 0, m, 32)) > 0) {
        for (uint16_t j = 0; j < k; j++) {
            struct ebf_event_hdr eh;
            const uint8_t *p = rte_pktmbuf_mtod(m[j], const uint8_t *);
            ck_assert_int_eq(ebf_event_parse(p + EBF_ETH_HLEN, m[j]->pkt_len - EBF_ETH_HLEN,
                                             &eh), EBF_R_OK);
            unsigned n = p[5];                           /* the node's MAC, last byte */
            ck_assert_uint_lt(n, NODES);
            ck_assert_uint_lt(na[n], 32);
            acks[n][na[n]++] = (struct ebf_ack){.event_id = eh.event_id,
                                                .decision = EBF_DEC_ACCEPT};
            got++;
        }
        rte_pktmbuf_free_bulk(m, k);
    }
    for (unsigned n = 0; n < NODES; n++)
        if (na[n])
            credit(g, n, na[n], acks[n], na[n]);
    return got;
}

/* The same input for any worker count: EVENTS events of SOURCES sources,
 * event e to worker place e % workers; every 7th event lacks source 2 (lost
 * on the wire: incomplete, a sequence gap), event 5's source 0 twice (a
 * duplicate); the nodes ack everything. Returns the summed counters. */
static void run(struct drig *g, struct sfc_stats *st)
{
    uint16_t w = g->c.workers ? g->c.workers : 1;

    g->sw = sfc_workers_create(&g->c);
    ck_assert_ptr_nonnull(g->sw);
    for (unsigned n = 0; n < NODES; n++)
        credit(g, n, 8, NULL, 0);
    for (uint64_t e = 0; e < EVENTS; e++) {
        for (uint16_t s = 0; s < SOURCES; s++)
            send_frag(g, (unsigned)(e % w), s, e, e % 7 == 3 && s == 2);
        if (e == 5)
            send_frag(g, (unsigned)(e % w), 0, e, 0);
        if (e % 16 == 15) {
            poll_all(g, 8);
            nodes_ack(g);
        }
    }
    poll_all(g, 8);
    usleep(40 * 1000);           /* the incomplete ones time out */
    for (int i = 0; i < 20; i++) {
        poll_all(g, 4);
        nodes_ack(g);
    }
    sfc_workers_stats(g->sw, st);
}

static uint64_t sum(const uint64_t *v)
{
    uint64_t t = 0;
    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++)
        t += v[s];
    return t;
}

/* 2 workers sharing the readout port and the node port against 1 on the
 * same input: the same frames, events, incomplete events, duplicates,
 * sequence gaps, acks and ledger. */
START_TEST(test_two_like_one)
{
    static struct drig g1, g2;
    static struct sfc_stats a, b;

    eal_up();
    rig_up(&g1, 1, 1, 1);
    rig_up(&g2, 2, 2, 2);
    run(&g1, &a);
    run(&g2, &b);
    uint64_t incomplete = (EVENTS + 3) / 7;         /* e % 7 == 3 */
    ck_assert_uint_eq(a.rx_frames, EVENTS * SOURCES - incomplete + 1);
    ck_assert_uint_eq(b.rx_frames, a.rx_frames);
    ck_assert_uint_eq(a.events_complete, EVENTS - incomplete);
    ck_assert_uint_eq(b.events_complete, a.events_complete);
    ck_assert_uint_eq(a.events_incomplete, incomplete);
    ck_assert_uint_eq(b.events_incomplete, a.events_incomplete);
    ck_assert_uint_eq(a.drop[SFC_DROP_DUPLICATE_SENT], 1);      /* complete already */
    ck_assert_uint_eq(b.drop[SFC_DROP_DUPLICATE_SENT], 1);
    ck_assert_uint_eq(a.drop[SFC_DROP_DIST_RING_FULL], 0);
    ck_assert_uint_eq(b.drop[SFC_DROP_DIST_RING_FULL], 0);
    ck_assert_uint_eq(sum(a.seq.gap), incomplete);
    ck_assert_uint_eq(sum(b.seq.gap), incomplete);
    ck_assert_uint_eq(b.seq.gap[2], incomplete);
    ck_assert_uint_eq(sum(a.seq.dup) + sum(b.seq.dup), 0);     /* a new number each */
    ck_assert_uint_eq(a.events_sent, EVENTS);
    ck_assert_uint_eq(b.events_sent, EVENTS);
    ck_assert_uint_eq(a.acks, EVENTS);
    ck_assert_uint_eq(b.acks, EVENTS);
    ck_assert_uint_eq(b.acked_incomplete, a.acked_incomplete);
    ck_assert_uint_eq(a.acked_incomplete, incomplete);
    ck_assert_uint_eq(b.acked_digest, a.acked_digest);
    ck_assert_uint_eq(a.ack_unknown + b.ack_unknown, 0);
    ck_assert_uint_eq(a.drop[SFC_DROP_UNKNOWN_NODE] + b.drop[SFC_DROP_UNKNOWN_NODE], 0);
    ebf_idset_merge(&a.ledger_acked, &b.ledger_acked, -1);
    ck_assert(ebf_idset_empty(&a.ledger_acked));
    ck_assert(ebf_idset_empty(&a.ledger_lost));
    ck_assert(ebf_idset_empty(&b.ledger_lost));
    for (unsigned r = 0; r < SFC_LOST_MAX; r++)
        ck_assert_uint_eq(a.lost[r] + b.lost[r], 0);
    /* Worker 0 kept its own (events 0, 2, ...) and handed the others over:
     * fragments of the odd events and the credit frames of nodes 1 and 3. */
    ck_assert_uint_eq(a.dist_handed, 0);
    uint64_t odd_frags = 1;      /* event 5's second source 0 */
    for (uint64_t e = 1; e < EVENTS; e += 2)
        odd_frags += SOURCES - (e % 7 == 3);
    ck_assert_uint_ge(b.dist_handed, odd_frags + 1);    /* and credit frames of nodes 1, 3 */
    for (unsigned n = 0; n < NODES; n++)
        ck_assert_uint_gt(b.node_sent[n], 0);
    ck_assert_uint_eq(b.node_sent[0] + b.node_sent[2], EVENTS / 2);  /* worker 0's nodes */
    sfc_workers_destroy(g1.sw);
    sfc_workers_destroy(g2.sw);
    ebf_eal_cleanup();
}
END_TEST

/* Worker 1 not polled: with its ring of 50 frames, worker 0 hands it one
 * burst of 32 and then leaves the port unread (dist.held: 18 free, less
 * than a burst), losing nothing; once worker 1 took them, the next 32. */
START_TEST(test_ring_held)
{
    static struct drig g;
    struct sfc_stats st;

    eal_up();
    rig_up(&g, 1, 2, 2);
    g.c.dist_ring = 50;
    g.c.capacity = 256;          /* 128 a worker: room for all */
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    for (uint64_t e = 0; e < 100; e++)
        send_frag(&g, 1, 0, 2 * e + 1, 0);
    for (int i = 0; i < 5; i++)
        sfc_dp_poll(sfc_workers_dp(g.sw, 0), 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.dist_handed, 32);
    ck_assert_uint_eq(st.dist_held, 4);
    ck_assert_uint_eq(st.rx_frames, 0);
    sfc_dp_poll(sfc_workers_dp(g.sw, 1), 1);        /* its 32 */
    sfc_dp_poll(sfc_workers_dp(g.sw, 0), 1);        /* 32 more handed over */
    sfc_dp_poll(sfc_workers_dp(g.sw, 1), 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.dist_handed, 64);
    ck_assert_uint_eq(st.rx_frames, 64);
    ck_assert_uint_eq(st.drop[SFC_DROP_DIST_RING_FULL], 0);
    ck_assert_uint_eq(st.seq.gap[0], 0);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* A ring smaller than a burst (20 frames, bursts of 32): worker 0 hands
 * over 20 of its first burst and drops 12 (dist_ring_full, counted with
 * rx.frames), then holds the port until worker 1 empties the ring; worker
 * 1 sees the drop as a gap of 12. */
START_TEST(test_ring_full)
{
    static struct drig g;
    struct sfc_stats st;

    eal_up();
    rig_up(&g, 1, 2, 2);
    g.c.dist_ring = 20;
    g.c.capacity = 256;
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    for (uint64_t e = 0; e < 100; e++)
        send_frag(&g, 1, 0, 2 * e + 1, 0);
    for (int i = 0; i < 3; i++)
        sfc_dp_poll(sfc_workers_dp(g.sw, 0), 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.dist_handed, 20);
    ck_assert_uint_eq(st.drop[SFC_DROP_DIST_RING_FULL], 12);
    ck_assert_uint_eq(st.rx_frames, 12);           /* worker 0's: the dropped ones */
    ck_assert_uint_eq(st.dist_held, 2);
    sfc_dp_poll(sfc_workers_dp(g.sw, 1), 1);        /* its 20 */
    sfc_dp_poll(sfc_workers_dp(g.sw, 0), 1);        /* 20 more, 12 dropped */
    sfc_dp_poll(sfc_workers_dp(g.sw, 1), 1);
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.dist_handed, 40);
    ck_assert_uint_eq(st.drop[SFC_DROP_DIST_RING_FULL], 24);
    ck_assert_uint_eq(st.rx_frames, 64);
    ck_assert_uint_eq(st.seq.gap[0], 12);          /* the first 12 dropped: a gap once seq 32
                                                    * came; the last 12 not yet */
    struct sfc_gauges ga;
    sfc_workers_gauges(g.sw, &ga);
    ck_assert_uint_eq(ga.building, 40);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* Ports that do not fit are refused with what is needed; a node port
 * with one tx queue cannot serve 2 workers. */
START_TEST(test_check)
{
    static struct drig g;
    char err[400];

    eal_up();
    rig_up(&g, 1, 2, 1);
    struct sfc_conf c = g.c;
    ck_assert_int_eq(sfc_workers_check(&c, err, sizeof(err)), 0);
    ck_assert_uint_eq(sfc_workers_node_txqs(&c), 2);
    c.n_nodes = 1;
    ck_assert_int_eq(sfc_workers_check(&c, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--workers 2: 1 node on one node port: the workers share it, node i "
                          "served by worker i % 2; give every worker a node (2 at least)");
    c = g.c;
    c.n_more_rx = 2;
    c.more_rx[0] = c.more_rx[1] = g.sfc_rx;
    ck_assert_int_eq(sfc_workers_check(&c, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--workers 2: 3 readout ports (--port and 2 --readout-port) do not cut "
                          "into 2 equal runs: give one readout port (the workers share it: "
                          "worker 0 hands each frame to the worker its destination MAC names) "
                          "or a multiple of 2 (each worker its own: a memif link per readout "
                          "and worker)");
    ck_assert_int_eq(sfc_dist_check_txq(g.sfc_node, 2, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "node port 2 (net_ring_dsfcnd1, driver net_ring) offers 1 tx queue; --workers "
                          "2 on one node port needs 2 (a tx queue per worker: give the device "
                          "more queues, e.g. qpairs=2 for net_af_packet, or a node port per "
                          "worker)");
    errno = 0;
    ck_assert_ptr_null(sfc_workers_create(&g.c));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(sfc_dist_check_txq(g.sfc_node, 1, err, sizeof(err)), 0);
    /* A device that offers 2 but was started with 1. */
    struct rte_ring *r = ring("dx", 1), *two[2] = {r, r};
    int p = rte_eth_from_rings("dtwo", &r, 1, two, 2, 0);
    ck_assert_int_ge(p, 0);
    ck_assert_int_eq(ebf_port_start((uint16_t)p, g.pool, 0, 512, 512), 0);
    ck_assert_int_eq(sfc_dist_check_txq((uint16_t)p, 2, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "node port 4 (net_ring_dtwo, driver net_ring) was started with 1 tx "
                          "queue; --workers 2 on one node port needs 2 (a tx queue per worker)");
    ebf_eal_cleanup();
}
END_TEST

/* Launched: worker 1 on its lcore takes its frames from its ring and its
 * acks through worker 0; the drain waits for both, with nothing left in
 * the ring. */
START_TEST(test_launched_drain)
{
    static struct drig g;
    char err[128];
    int done = 0;

    eal_up();
    rig_up(&g, 1, 2, 2);
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    ck_assert_int_eq(sfc_workers_begin(g.sw, err, sizeof(err)), 0);
    for (unsigned n = 0; n < NODES; n++)
        credit(&g, n, 8, NULL, 0);
    for (uint64_t e = 0; e < 8; e++)
        for (uint16_t s = 0; s < SOURCES; s++)
            send_frag(&g, (unsigned)(e % 2), s, e, 0);
    unsigned got = 0;
    for (int i = 0; i < 4000000 && got < 8; i++) {
        sfc_workers_poll(g.sw, 1);
        if (i % 64 == 0)
            got += nodes_ack(&g);
    }
    ck_assert_uint_eq(got, 8);
    sfc_workers_drain_begin(g.sw);
    for (int i = 0; i < 100000000 && !done; i++)
        sfc_workers_drain_poll(g.sw, &done);
    ck_assert(done);
    struct sfc_stats st;
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.events_sent, 8);
    ck_assert_uint_eq(st.acks, 8);
    ck_assert_uint_eq(st.rx_frames, 8 * SOURCES);
    ck_assert(ebf_idset_empty(&st.ledger_lost));
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

/* At the stop, worker 1's table full (8 slots, 1 source of each event
 * held) and 12 frames still in its ring: once worker 0 no longer reads
 * the port and worker 1 has been quiet, they are freed and counted
 * (dist_left), and the drain ends. */
START_TEST(test_drain_left)
{
    static struct drig g;
    int d0 = 0, d1 = 0;

    eal_up();
    rig_up(&g, 1, 2, 2);
    g.c.capacity = 16;           /* 8 a worker */
    g.c.burst = 4;
    g.sw = sfc_workers_create(&g.c);
    ck_assert_ptr_nonnull(g.sw);
    struct sfc_dp *w1 = sfc_workers_dp(g.sw, 1);
    for (uint64_t e = 0; e < 20; e++)
        send_frag(&g, 1, 0, 2 * e + 1, 0);
    for (int i = 0; i < 8; i++) {
        sfc_dp_poll(sfc_workers_dp(g.sw, 0), 1);
        sfc_dp_poll(w1, 1);
    }
    struct sfc_gauges ga;
    sfc_workers_gauges(g.sw, &ga);
    ck_assert_uint_eq(ga.building, 8);
    sfc_workers_drain_begin(g.sw);
    sfc_dp_drain_begin(w1);
    for (long i = 0; i < 100000000 && !(d0 && d1); i++) {
        sfc_workers_drain_poll(g.sw, &d0);
        if (!d1)
            sfc_dp_drain_poll(w1, &d1);
    }
    ck_assert(d1);
    struct sfc_stats st;
    sfc_workers_stats(g.sw, &st);
    ck_assert_uint_eq(st.rx_frames, 20);
    ck_assert_uint_eq(st.drop[SFC_DROP_DIST_LEFT], 12);
    ck_assert_uint_eq(st.drop[SFC_DROP_DIST_RING_FULL], 0);
    ck_assert_uint_eq(st.dist_handed, 20);
    sfc_workers_destroy(g.sw);
    ebf_eal_cleanup();
}
END_TEST

Suite *sfc_dist_suite(void);

Suite *sfc_dist_suite(void)
{
    Suite *s = suite_create("sfc_dist");
    TCase *tc = tcase_create("sfc_dist");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_two_like_one);
    tcase_add_test(tc, test_ring_held);
    tcase_add_test(tc, test_ring_full);
    tcase_add_test(tc, test_check);
    tcase_add_test(tc, test_launched_drain);
    tcase_add_test(tc, test_drain_left);
    suite_add_tcase(s, tc);
    return s;
}
