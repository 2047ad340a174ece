/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_dp.c - the trigger node under EAL over a net_ring link: credits, verification, decisions, acks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_idset.h"
#include "ebf_mix.h"
#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "node_decide.h"
#include "node_dp.h"
#include "test-eal.h"

#define N_SOURCES 4
#define FRAG 200
#define CREDITS 4
#define NODE_ID 3

static const uint8_t node_mac[6] = {0x02, 0xeb, 0, 0, 0x02, 0x03};
static const uint8_t sfc_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x03};

struct rig {
    uint16_t sfc_port;           /* the test plays the SFC on this port */
    struct rte_mempool *pool;
    struct node_dp *dp;
};

/* Slots of the ring the node sends its credit frames on (size - 1 usable). */
static unsigned up_ring_size = 1024;

/* The node with credits slots, ack_batch acks per credit frame, at mtu. */
static void rig_up_with(struct rig *g, uint16_t credits, uint16_t ack_batch, uint16_t mtu)
{
    test_eal_init();

    struct rte_ring *down = test_ring("down", 1024), *up = test_ring("up", up_ring_size);
    g->sfc_port = test_ring_port("sfc", up, down);
    uint16_t np = test_ring_port("node", down, up);
    g->pool = ebf_pool_create("test_pool", 2047, 2048, 0);
    ck_assert_ptr_nonnull(g->pool);
    ck_assert_int_eq(ebf_port_start(g->sfc_port, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(np, g->pool, 0, 512, 512), 0);

    struct node_conf c = {
        .port = np, .node_id = NODE_ID, .epoch = 77, .credits = credits,
        .accept = 0.5, .accept_seed = 0, .ack_batch = ack_batch, .heartbeat_ms = 0,
        .mtu = mtu, .pool = g->pool, .burst = 32, .drain_quiet_ms = 10,
    };
    memcpy(c.mac, node_mac, 6);
    memcpy(c.sfc_mac, sfc_mac, 6);
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    g->dp = node_dp_create(&c);
    ck_assert_ptr_nonnull(g->dp);
}

static void rig_up(struct rig *g)
{
    rig_up_with(g, CREDITS, 16, 0);
}

static void rig_down(struct rig *g)
{
    node_dp_destroy(g->dp);
    ebf_eal_cleanup();
}

/* How to spoil the pieces of an event frame. */
enum spoil {
    SPOIL_NONE,
    SPOIL_CRC,                   /* flip a payload byte after the CRC */
    SPOIL_PATTERN,               /* wrong pattern, consistent CRC */
    SPOIL_EVENT_ID,              /* a piece of another event */
};

/*
 * One event frame of event id: frame index/count as given, carrying full
 * single-piece fragments of the sources in mask (bit s), present bits
 * present, flags flags.
 */
static struct rte_mbuf *event_frame(struct rig *g, uint64_t id, uint16_t index, uint16_t count,
                                    unsigned mask, uint64_t present, uint16_t flags,
                                    enum spoil spoil)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    unsigned n = (unsigned)__builtin_popcount(mask);
    size_t len = EBF_EVENT_HLEN + n * (EBF_FRAG_HLEN + FRAG);
    ck_assert_ptr_nonnull(m);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);

    memcpy(a.dst_mac, node_mac, 6);
    memcpy(a.src_mac, sfc_mac, 6);
    ebf_encap_write(p, &a, len);
    struct ebf_event_hdr eh = {
        .n_sources = N_SOURCES, .flags = flags, .event_id = id, .frame_index = index,
        .frame_count = count, .n_pieces = (uint16_t)n,
        .event_bytes = (uint32_t)__builtin_popcountll(present) * FRAG,
        .present = {present, 0},
    };
    ebf_event_write(p + EBF_ETH_HLEN, &eh);
    uint8_t *q = p + EBF_ETH_HLEN + EBF_EVENT_HLEN;
    for (uint16_t s = 0; s < N_SOURCES; s++) {
        if (!(mask & (1u << s)))
            continue;
        uint64_t piece_id = spoil == SPOIL_EVENT_ID ? id + 1000 : id;
        ebf_pattern_fill(q + EBF_FRAG_HLEN, FRAG, s,
                         spoil == SPOIL_PATTERN ? id + 1 : piece_id, 0);
        struct ebf_frag_hdr h = {.source = s, .event_id = piece_id, .frag_len = FRAG,
                                 .piece_len = FRAG, .tx_ns = 1};
        ebf_frag_write(q, &h);
        if (spoil == SPOIL_CRC)
            q[EBF_FRAG_HLEN + 17] ^= 0x01;     /* every piece */
        q += EBF_FRAG_HLEN + FRAG;
    }
    return m;
}

static void to_node(struct rig *g, struct rte_mbuf *m)
{
    ck_assert_uint_eq(rte_eth_tx_burst(g->sfc_port, 0, &m, 1), 1);
}

/* Read the next credit frame the node sent; 0 when there is none. */
static int from_node(struct rig *g, struct ebf_credit_hdr *h, struct ebf_ack *acks)
{
    struct rte_mbuf *m;
    struct ebf_l2l3 l;

    if (rte_eth_rx_burst(g->sfc_port, 0, &m, 1) == 0)
        return 0;
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    ck_assert_int_eq(ebf_parse_l2l3(p, m->data_len, EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.type, EBF_T_CREDIT);
    ck_assert_int_eq(memcmp(l.dst_mac, sfc_mac, 6), 0);
    ck_assert_int_eq(memcmp(l.src_mac, node_mac, 6), 0);
    ck_assert_int_eq(ebf_credit_parse(p + l.hlen, l.len, h, acks), EBF_R_OK);
    ck_assert_uint_eq(h->node_id, NODE_ID);
    ck_assert_uint_eq(h->epoch, 77);
    rte_pktmbuf_free(m);
    return 1;
}

static void poll_n(struct rig *g, int n)
{
    for (int i = 0; i < n; i++)
        node_dp_poll(g->dp);
}

/* The initial grant, then one ack per event with one credit each. */
static void expect_grant(struct rig *g)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];

    poll_n(g, 1);
    ck_assert(from_node(g, &h, acks));
    ck_assert_uint_eq(h.credits, CREDITS);
    ck_assert_uint_eq(h.n_acks, 0);
    ck_assert(!from_node(g, &h, acks));
}

/* Send one single-frame event and return the status of its ack. */
static uint8_t one_event(struct rig *g, uint64_t id, unsigned mask, uint64_t present,
                         uint16_t flags, enum spoil spoil)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];

    to_node(g, event_frame(g, id, 0, 1, mask, present, flags, spoil));
    poll_n(g, 2);
    ck_assert(from_node(g, &h, acks));
    ck_assert_uint_eq(h.n_acks, 1);
    ck_assert_uint_eq(h.credits, 1);
    ck_assert_uint_eq(acks[0].event_id, id);
    ck_assert_uint_eq(acks[0].decision,
                      node_decide(id, 0, 0.5) ? EBF_DEC_ACCEPT : EBF_DEC_REJECT);
    return acks[0].status;
}

START_TEST(test_good_event)
{
    struct rig g;
    rig_up(&g);
    expect_grant(&g);
    ck_assert_uint_eq(one_event(&g, 5, 0xf, 0xf, 0, SPOIL_NONE), 0);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->events, 1);
    ck_assert_uint_eq(st->accepted + st->rejected, 1);
    ck_assert_uint_eq(st->events_bad, 0);
    ck_assert_uint_eq(st->payload_bytes, N_SOURCES * FRAG);
    ck_assert_uint_eq(st->decided_digest, ebf_mix64(5));
    ck_assert_uint_eq(st->e2e_ns.count, 1);
    rig_down(&g);
}
END_TEST

/* The ledger's record after a release watermark (docs/protocol.md 13.6):
 * events 100..109 decided; the record at or above 105 holds 105..109,
 * the accepted ones among them (node_decide at 0.5), their digest. */
START_TEST(test_after_release_record)
{
    struct ebf_idset want, want_acc;
    struct node_snap *snap = calloc(1, sizeof(*snap));
    uint64_t digest = 0;
    struct rig g;

    ck_assert_ptr_nonnull(snap);
    rig_up(&g);
    expect_grant(&g);
    ebf_idset_init(&want);
    ebf_idset_init(&want_acc);
    for (uint64_t id = 100; id < 110; id++) {
        ck_assert_uint_eq(one_event(&g, id, 0xf, 0xf, 0, SPOIL_NONE), 0);
        if (id < 105)
            continue;
        ebf_idset_add(&want, id);
        if (node_decide(id, 0, 0.5))
            ebf_idset_add(&want_acc, id);
        digest += ebf_mix64(id);
    }
    node_dp_after(g.dp, 1, 105, snap);
    ck_assert_int_eq(memcmp(&want, &snap->after_ids, sizeof(want)), 0);
    ck_assert_int_eq(memcmp(&want_acc, &snap->after_accepted, sizeof(want)), 0);
    ck_assert_uint_eq(snap->after_digest, digest);
    ck_assert_uint_eq(snap->after_evicted, 0);
    rig_down(&g);
    free(snap);
}
END_TEST

/* A mark taken while the run goes on (an SFC of the node restarted:
 * node_dp_mark): events 100..109 decided, marked at 105 (the record holds
 * 105..109, 1 mark); events 110..114 decided after it (the new SFC's) stay
 * out of the record; the stop's mark at 112 then adds 112..114. */
START_TEST(test_mark_during_run)
{
    struct ebf_idset want;
    struct node_snap *snap = calloc(1, sizeof(*snap));
    uint64_t digest = 0;
    struct rig g;

    ck_assert_ptr_nonnull(snap);
    rig_up(&g);
    expect_grant(&g);
    ebf_idset_init(&want);
    for (uint64_t id = 100; id < 110; id++)
        ck_assert_uint_eq(one_event(&g, id, 0xf, 0xf, 0, SPOIL_NONE), 0);
    ebf_idset_add_range(&want, 105, 5);
    for (uint64_t id = 105; id < 110; id++)
        digest += ebf_mix64(id);
    node_dp_mark(g.dp, 105);
    for (uint64_t id = 110; id < 115; id++)
        ck_assert_uint_eq(one_event(&g, id, 0xf, 0xf, 0, SPOIL_NONE), 0);
    node_dp_after(g.dp, 0, 0, snap);
    ck_assert_int_eq(memcmp(&want, &snap->after_ids, sizeof(want)), 0);
    ck_assert_uint_eq(snap->after_digest, digest);
    ck_assert_uint_eq(snap->after_marks, 1);
    ck_assert_uint_eq(snap->after_evicted, 0);
    memset(snap, 0, sizeof(*snap));
    node_dp_after(g.dp, 1, 112, snap);
    ebf_idset_add_range(&want, 112, 3);
    for (uint64_t id = 112; id < 115; id++)
        digest += ebf_mix64(id);
    ck_assert_int_eq(memcmp(&want, &snap->after_ids, sizeof(want)), 0);
    ck_assert_uint_eq(snap->after_digest, digest);
    ck_assert_uint_eq(snap->after_marks, 1);
    rig_down(&g);
    free(snap);
}
END_TEST

/* Each kind of damage is found, counted, and reported in the ack status;
 * the event is still decided and acked, so its credit comes back. */
START_TEST(test_verify_errors)
{
    struct rig g;
    rig_up(&g);
    expect_grant(&g);
    ck_assert_uint_eq(one_event(&g, 10, 0xf, 0xf, 0, SPOIL_CRC), EBF_ACKS_BAD_CRC);
    ck_assert_uint_eq(one_event(&g, 11, 0xf, 0xf, 0, SPOIL_PATTERN), EBF_ACKS_BAD_PATTERN);
    ck_assert_uint_eq(one_event(&g, 12, 0xf, 0xf, 0, SPOIL_EVENT_ID), EBF_ACKS_BAD_EVENT_ID);
    /* Claims all four sources, carries three. */
    ck_assert_uint_eq(one_event(&g, 13, 0x7, 0xf, 0, SPOIL_NONE), EBF_ACKS_BAD_SOURCES);
    /* Incomplete, missing source 3, carries a piece of source 3 anyway. */
    ck_assert_uint_eq(one_event(&g, 14, 0xf, 0x7, EBF_EVF_INCOMPLETE, SPOIL_NONE),
                      EBF_ACKS_BAD_SOURCES);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->events, 5);
    ck_assert_uint_eq(st->events_bad, 5);
    ck_assert_uint_eq(st->verify[NODE_V_BAD_CRC], 1);
    ck_assert_uint_eq(st->piece_reject[EBF_R_BAD_CHECKSUM], N_SOURCES); /* every piece */
    ck_assert_uint_eq(st->verify[NODE_V_BAD_PATTERN], 1);
    ck_assert_uint_eq(st->verify[NODE_V_BAD_EVENT_ID], 1);
    ck_assert_uint_eq(st->verify[NODE_V_BAD_SOURCES], 2);
    rig_down(&g);
}
END_TEST

/* An incomplete event that carries exactly its present sources is fine. */
START_TEST(test_incomplete_event)
{
    struct rig g;
    rig_up(&g);
    expect_grant(&g);
    ck_assert_uint_eq(one_event(&g, 20, 0x5, 0x5, EBF_EVF_INCOMPLETE, SPOIL_NONE), 0);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->incomplete, 1);
    ck_assert_uint_eq(st->events_bad, 0);
    ck_assert_uint_eq(st->payload_bytes, 2 * FRAG);
    rig_down(&g);
}
END_TEST

/* A two-frame event is decided only when both frames are in; frames of an
 * event already decided are dropped and counted, never decided twice; the
 * event sent again (its SFC took this node for dead) is re-acked once, on
 * its last frame, with the same decision. */
START_TEST(test_multi_frame_and_duplicates)
{
    struct rig g;
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];

    rig_up(&g);
    expect_grant(&g);
    to_node(&g, event_frame(&g, 30, 1, 2, 0xc, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    ck_assert(!from_node(&g, &h, acks));
    ck_assert_uint_eq(node_dp_stats(g.dp)->events, 0);
    to_node(&g, event_frame(&g, 30, 0, 2, 0x3, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    ck_assert(from_node(&g, &h, acks));
    ck_assert_uint_eq(h.n_acks, 1);
    ck_assert_uint_eq(acks[0].event_id, 30);
    ck_assert_uint_eq(acks[0].status, 0);

    to_node(&g, event_frame(&g, 30, 0, 2, 0x3, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    ck_assert(!from_node(&g, &h, acks));
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->events, 1);
    ck_assert_uint_eq(st->dup_frames, 1);
    uint8_t decision = acks[0].decision;
    to_node(&g, event_frame(&g, 30, 1, 2, 0xc, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    ck_assert(from_node(&g, &h, acks));
    ck_assert_uint_eq(h.n_acks, 1);
    ck_assert_uint_eq(h.credits, 1);
    ck_assert_uint_eq(acks[0].event_id, 30);
    ck_assert_uint_eq(acks[0].decision, decision);
    ck_assert_uint_eq(st->events, 1);
    ck_assert_uint_eq(st->dup_frames, 2);
    ck_assert_uint_eq(st->dup_events, 1);
    struct ebf_idset want = {0};
    ebf_idset_add(&want, 30);               /* the decision's ack */
    ebf_idset_add(&want, 30);               /* and the re-ack */
    ck_assert_int_eq(memcmp(&want, &st->acked_ids, sizeof(want)), 0);
    rig_down(&g);
}
END_TEST

/* Event ids across 2^16 and 2^32, with ids that share a done-window slot
 * (equal modulo 65536): each is decided exactly once, with the decision of
 * its full 64-bit id; the newest sent again is re-acked, not decided again. */
START_TEST(test_ids_beyond_16_and_32_bits)
{
    static const uint64_t ids[] = {
        65534, 65535, 65536, 65537, 131072,
        (1ull << 32) - 2, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, (1ull << 32) + 65536,
        10000000000ull, 10000000001ull,
    };
    const unsigned n = sizeof(ids) / sizeof(ids[0]);
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    struct ebf_idset want;
    uint64_t digest = 0;
    struct rig g;

    rig_up(&g);
    expect_grant(&g);
    ebf_idset_init(&want);
    for (unsigned k = 0; k < n; k++) {
        ck_assert_uint_eq(one_event(&g, ids[k], 0xf, 0xf, 0, SPOIL_NONE), 0);
        ebf_idset_add(&want, ids[k]);
        digest += ebf_mix64(ids[k]);
    }
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->events, n);
    ck_assert_uint_eq(st->events_bad, 0);
    ck_assert_uint_eq(st->dup_events, 0);
    ck_assert_uint_eq(st->decided_digest, digest);
    ck_assert_int_eq(memcmp(&want, &st->acked_ids, sizeof(want)), 0);
    /* The last one sent again (its SFC took this node for dead): re-acked
     * with the same decision, not decided twice. */
    to_node(&g, event_frame(&g, ids[n - 1], 0, 1, 0xf, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    ck_assert(from_node(&g, &h, acks));
    ck_assert_uint_eq(h.n_acks, 1);
    ck_assert_uint_eq(acks[0].event_id, ids[n - 1]);
    ck_assert_uint_eq(acks[0].decision,
                      node_decide(ids[n - 1], 0, 0.5) ? EBF_DEC_ACCEPT : EBF_DEC_REJECT);
    ck_assert_uint_eq(st->events, n);
    ck_assert_uint_eq(st->dup_events, 1);
    rig_down(&g);
}
END_TEST

/* Events beyond the credits granted find no slot and are counted. */
START_TEST(test_beyond_credits)
{
    struct rig g;
    rig_up(&g);
    expect_grant(&g);
    for (uint64_t id = 40; id < 40 + CREDITS + 1; id++)
        to_node(&g, event_frame(&g, id, 0, 2, 0x3, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->no_slot, 1);
    ck_assert_uint_eq(st->events, 0);
    rig_down(&g);
}
END_TEST

/* Frames that are not event frames are counted by reason. */
START_TEST(test_rejects)
{
    struct rig g;
    rig_up(&g);
    expect_grant(&g);
    struct rte_mbuf *m = event_frame(&g, 50, 0, 1, 0xf, 0xf, 0, SPOIL_NONE);
    rte_pktmbuf_mtod(m, uint8_t *)[EBF_ETH_HLEN + 1] = EBF_T_FRAGMENT;
    to_node(&g, m);
    m = event_frame(&g, 51, 0, 1, 0xf, 0xf, 0, SPOIL_NONE);
    rte_pktmbuf_mtod(m, uint8_t *)[EBF_ETH_HLEN] = 2;      /* version 2 */
    to_node(&g, m);
    m = event_frame(&g, 52, 0, 1, 0xf, 0xf, 0, SPOIL_NONE);
    rte_pktmbuf_trim(m, m->data_len - (EBF_ETH_HLEN + 20));
    to_node(&g, m);
    poll_n(&g, 2);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 3);
    ck_assert_uint_eq(st->wrong_type, 1);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_VERSION], 1);
    ck_assert_uint_eq(st->reject[EBF_R_TRUNCATED], 1);
    ck_assert_uint_eq(st->events, 0);
    rig_down(&g);
}
END_TEST

/* The acks a credit frame holds: 64, or fewer when the MTU is small. */
START_TEST(test_max_acks)
{
    ck_assert_uint_eq(node_max_acks(0), 64);        /* 1500 */
    ck_assert_uint_eq(node_max_acks(9000), 64);
    ck_assert_uint_eq(node_max_acks(784), 64);      /* 16 + 64 x 12 */
    ck_assert_uint_eq(node_max_acks(783), 63);
    ck_assert_uint_eq(node_max_acks(256), 20);
}
END_TEST

/* At MTU 256 a credit frame carries at most 20 acks, whatever the batch
 * asked: 24 events are acked in frames of 20 and 4. */
START_TEST(test_acks_within_mtu)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    struct rig g;
    unsigned frames = 0, n_acks = 0;

    rig_up_with(&g, 24, 64, 256);
    poll_n(&g, 1);
    ck_assert(from_node(&g, &h, acks));
    ck_assert_uint_eq(h.credits, 24);
    for (uint64_t id = 0; id < 24; id++)
        to_node(&g, event_frame(&g, id, 0, 1, 0xf, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 2);
    while (from_node(&g, &h, acks)) {
        ck_assert_uint_eq(h.n_acks, frames == 0 ? 20 : 4);
        ck_assert_uint_le(ebf_credit_len(h.n_acks), 256);
        n_acks += h.n_acks;
        frames++;
    }
    ck_assert_uint_eq(frames, 2);
    ck_assert_uint_eq(n_acks, 24);
    ck_assert_uint_eq(node_dp_stats(g.dp)->tx_no_room, 0);
    rig_down(&g);
}
END_TEST

/* Acks of events of ids [from, from + n) in the credit frames waiting at
 * the SFC's side: each exactly once. Returns the acks read. */
static unsigned take_acks(struct rig *g, uint8_t *seen, unsigned max)
{
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    unsigned got = 0;

    while (from_node(g, &h, acks)) {
        for (uint16_t i = 0; i < h.n_acks; i++) {
            ck_assert_uint_lt(acks[i].event_id, max);
            ck_assert_uint_eq(seen[acks[i].event_id]++, 0);
        }
        got += h.n_acks;
    }
    return got;
}

/* The port refuses credit frames (its ring holds 3): the node does not
 * wait on it inside the handling of a frame; the acks stay queued, the
 * refusal is counted once, and the first frame the port takes carries
 * every pending ack. */
START_TEST(test_refused_acks_wait_without_spin)
{
    struct rig g;
    uint8_t seen[40] = {0};

    up_ring_size = 4;
    rig_up_with(&g, 64, 1, 0);
    for (uint64_t id = 0; id < 40; id++)
        to_node(&g, event_frame(&g, id, 0, 1, 0xf, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 3);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->events, 40);
    ck_assert_uint_eq(st->tx_refused, 1);
    ck_assert_uint_eq(st->credit_frames, 3);        /* the grant and 2 acks: ring full */
    ck_assert_uint_eq(take_acks(&g, seen, 40), 2);
    poll_n(&g, 1);
    ck_assert_uint_eq(st->credit_frames, 4);
    ck_assert_uint_eq(take_acks(&g, seen, 40), 38);  /* all the rest in one frame */
    ck_assert_uint_eq(st->tx_refused, 1);
    ck_assert_uint_eq(st->acks_sent, 40);
    rig_down(&g);
}
END_TEST

/* With the port refusing, acks pile up to a full queue (64 credits + 64
 * of a credit frame + a burst of 32: 192): then the node stops receiving
 * until they leave; nothing is lost. */
START_TEST(test_full_ack_queue_stops_intake)
{
    struct rig g;
    uint8_t seen[250] = {0};
    unsigned acked = 0;

    up_ring_size = 4;
    rig_up_with(&g, 64, 1, 0);
    for (uint64_t id = 0; id < 250; id++)
        to_node(&g, event_frame(&g, id, 0, 1, 0xf, 0xf, 0, SPOIL_NONE));
    poll_n(&g, 12);
    const struct node_stats *st = node_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 192);          /* 2 acks out, 190 queued: no burst fits */
    ck_assert_uint_eq(st->events, 192);
    for (int round = 0; round < 30 && acked < 250; round++) {
        acked += take_acks(&g, seen, 250);
        poll_n(&g, 2);
    }
    acked += take_acks(&g, seen, 250);
    ck_assert_uint_eq(acked, 250);
    ck_assert_uint_eq(st->events, 250);
    ck_assert_uint_eq(st->acks_sent, 250);
    rig_down(&g);
}
END_TEST

Suite *node_dp_suite(void);

Suite *node_dp_suite(void)
{
    Suite *s = suite_create("node_dp");
    TCase *tc = tcase_create("node_dp");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_good_event);
    tcase_add_test(tc, test_verify_errors);
    tcase_add_test(tc, test_incomplete_event);
    tcase_add_test(tc, test_multi_frame_and_duplicates);
    tcase_add_test(tc, test_beyond_credits);
    tcase_add_test(tc, test_rejects);
    tcase_add_test(tc, test_max_acks);
    tcase_add_test(tc, test_acks_within_mtu);
    tcase_add_test(tc, test_refused_acks_wait_without_spin);
    tcase_add_test(tc, test_full_ack_queue_stops_intake);
    tcase_add_test(tc, test_ids_beyond_16_and_32_bits);
    tcase_add_test(tc, test_after_release_record);
    tcase_add_test(tc, test_mark_during_run);
    suite_add_tcase(s, tc);
    return s;
}
