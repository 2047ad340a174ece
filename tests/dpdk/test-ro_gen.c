/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_gen.c - the readout emulator under EAL into a net_ring port: frames, pieces, pacing, stops, bad confs. */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_idle.h"
#include "ebf_mix.h"
#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "ro_gen.h"
#include "test-eal.h"

/* A run of a few hundred events must fit in the TX ring and the pool, since
 * ro_run() blocks and nothing drains the ring while it runs. */
#define TX_RING 16384
#define POOL_N 16383
#define MAX_FRAMES (TX_RING - 1)
#define N_SFCS 2
#define SRC_IP 0x0a000001u        /* 10.0.0.1 */
#define SFC_IP(i) (0x0a000101u + (uint32_t)(i))   /* 10.0.1.1, 10.0.1.2, ... */

static const uint8_t src_mac[6] = {0x02, 0xeb, 0, 0, 0x00, 0x01};

struct rig {
    uint16_t port;
    struct rte_ring *tx;         /* what the readout's port sends ends up here */
    struct rte_mempool *pool;
};

/* What check_stream() found in a run's frames. */
struct seen {
    uint64_t frames, bytes, payload_bytes;
    uint64_t multi;              /* pieces at a non-zero offset */
    uint64_t full;               /* pieces of exactly ro_max_piece() bytes */
};

static struct rte_mbuf *pkts[MAX_FRAMES];

/* EAL in this (forked) test process and one ring port for the readout whose
 * TX ring holds tx_size - 1 frames, at mtu, its pool's mbufs of room bytes. */
static void rig_up_room(struct rig *g, unsigned tx_size, uint16_t mtu, uint16_t room)
{
    test_eal_init();

    struct rte_ring *rx = test_ring("ro_rx", 1024);
    g->tx = test_ring("ro_tx", tx_size);
    g->port = test_ring_port("ro", rx, g->tx);
    g->pool = ebf_pool_create("ro_pool", room > 2048 ? 2047 : POOL_N, room, 0);
    ck_assert_ptr_nonnull(g->pool);
    ck_assert_int_eq(ebf_port_start(g->port, g->pool, mtu, 512, 512), 0);
}

static void rig_up(struct rig *g, unsigned tx_size)
{
    rig_up_room(g, tx_size, 0, 2048);
}

static void rig_down(struct rig *g)
{
    (void)g;
    ebf_eal_cleanup();
}

/* A conf for N_SFCS SFCs, MTU 1500, burst 32, spinning; g may be NULL for
 * the functions that need no port. */
static void conf_init(struct ro_conf *c, const struct rig *g, uint16_t n_sources,
                      uint64_t n_events, uint32_t size_min, uint32_t size_max,
                      enum ebf_encap encap)
{
    memset(c, 0, sizeof(*c));
    if (g) {
        c->port = g->port;
        c->pool = g->pool;
    }
    c->n_sources = n_sources;
    c->n_events = n_events;
    c->size_min = size_min;
    c->size_max = size_max;
    c->seed = 1;
    c->encap = encap;
    c->udp_port = EBF_UDP_PORT_DEFAULT;
    c->src_ip = SRC_IP;
    memcpy(c->src_mac, src_mac, 6);
    c->n_sfcs = N_SFCS;
    for (unsigned i = 0; i < N_SFCS; i++) {
        uint8_t mac[6] = {0x02, 0xeb, 0, 0, 0x01, (uint8_t)i};
        memcpy(c->sfc_mac[i], mac, 6);
        c->sfc_ip[i] = SFC_IP(i);
    }
    c->mtu = 1500;
    c->burst = 32;
    ebf_idle_init(&c->idle, EBF_IDLE_SPIN);
}

/* Take every frame the readout sent out of its TX ring. */
static unsigned drain(struct rig *g)
{
    unsigned n = rte_ring_dequeue_burst(g->tx, (void **)pkts, MAX_FRAMES, NULL);
    ck_assert_uint_eq(rte_ring_count(g->tx), 0);
    return n;
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint64_t digest(uint64_t n_events)
{
    uint64_t d = 0;
    for (uint64_t e = 0; e < n_events; e++)
        d += ebf_mix64(e);
    return d;
}

/* The addressing of one frame: MACs by event, and for UDP the IPv4 and UDP
 * header fields (the parser has checked the IPv4 checksum already). */
static void check_addr(const struct ro_conf *c, const uint8_t *p, const struct ebf_l2l3 *l,
                       uint64_t e)
{
    unsigned sfc = (unsigned)(e % c->n_sfcs);

    ck_assert_int_eq(memcmp(l->dst_mac, c->sfc_mac[sfc], 6), 0);
    ck_assert_int_eq(memcmp(l->src_mac, c->src_mac, 6), 0);
    ck_assert_int_eq(l->encap, c->encap);
    ck_assert_uint_eq(l->hlen, ebf_encap_hlen(c->encap));
    ck_assert_uint_eq(l->type, EBF_T_FRAGMENT);
    if (c->encap != EBF_ENCAP_UDP)
        return;
    const uint8_t *ip = p + EBF_ETH_HLEN, *udp = ip + EBF_IPV4_HLEN;
    ck_assert_uint_eq(be32(ip + 12), c->src_ip);
    ck_assert_uint_eq(be32(ip + 16), c->sfc_ip[sfc]);
    ck_assert_uint_eq(be16(udp), c->udp_port);
    ck_assert_uint_eq(be16(udp + 2), c->udp_port);
}

/*
 * Check n frames as one run of n_events events should produce them: each
 * frame parses (CRC checked), is addressed by its event, carries the next
 * piece of the next fragment in (event, source, offset) order, with
 * sequence numbers 0, 1, 2, ... per (source, SFC of the event): each SFC
 * sees every source gap-free, a payload that matches the
 * pattern and pieces cut at ro_max_piece(). Totals go to out.
 */
static void check_stream(const struct ro_conf *c, struct rte_mbuf **m, unsigned n,
                         uint64_t n_events, struct seen *out)
{
    static uint32_t seq[RO_MAX_SFCS][EBF_MAX_SOURCES];
    uint32_t max_piece = ro_max_piece(c);
    uint64_t e = 0;
    uint16_t s = 0;
    uint32_t off = 0, len = ro_frag_size(c, 0, 0);

    memset(out, 0, sizeof(*out));
    memset(seq, 0, sizeof(seq));
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
        struct ebf_l2l3 l;
        struct ebf_frag_hdr h;
        size_t used;

        ck_assert_uint_eq(m[i]->nb_segs, 1);
        ck_assert_uint_eq(m[i]->pkt_len, m[i]->data_len);
        ck_assert_int_eq(ebf_parse_l2l3(p, m[i]->data_len, c->udp_port, &l), EBF_R_OK);
        ck_assert_int_eq(ebf_frag_parse(p + l.hlen, l.len, c->n_sources, 1, &h, &used),
                         EBF_R_OK);
        ck_assert_uint_eq(used, l.len);
        ck_assert_uint_eq(m[i]->data_len, l.hlen + EBF_FRAG_HLEN + h.piece_len);
        if (off == len) {               /* the fragment is done: on to the next */
            if (++s == c->n_sources) {
                s = 0;
                e++;
            }
            off = 0;
            len = ro_frag_size(c, s, e);
            ck_assert_uint_gt(len, 0);
        }
        ck_assert_uint_eq(h.event_id, e);
        ck_assert_uint_eq(h.source, s);
        ck_assert_uint_eq(h.offset, off);
        ck_assert_uint_eq(h.frag_len, len);
        ck_assert_uint_le(h.piece_len, max_piece);
        ck_assert_uint_eq(h.piece_len, len - off < max_piece ? len - off : max_piece);
        ck_assert_uint_eq(h.seq, seq[e % c->n_sfcs][s]);
        seq[e % c->n_sfcs][s]++;
        check_addr(c, p, &l, e);
        ck_assert_int_eq(ebf_pattern_check(p + l.hlen + EBF_FRAG_HLEN, h.piece_len, s, e, off),
                         -1);
        off += h.piece_len;
        out->frames++;
        out->bytes += m[i]->data_len;
        out->payload_bytes += h.piece_len;
        out->multi += h.offset > 0;
        out->full += h.piece_len == max_piece;
    }
    if (n_events == 0) {
        ck_assert_uint_eq(n, 0);
        return;
    }
    ck_assert_uint_eq(e, n_events - 1);     /* the last event, */
    ck_assert_uint_eq(s, c->n_sources - 1); /* its last source, */
    ck_assert_uint_eq(off, len);            /* all of it */
}

static void free_frames(struct rig *g, unsigned n)
{
    rte_pktmbuf_free_bulk(pkts, n);
    ck_assert_uint_eq(rte_mempool_in_use_count(g->pool), 0);   /* none leaked */
}

/* 100 events x 4 sources x 1024 B over raw Ethernet to 2 SFCs: exact counts,
 * one frame a fragment, every frame well formed and in event order. */
START_TEST(test_fixed_size_eth)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 4, 100, 1024, 1024, EBF_ENCAP_ETH);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 100);
    ck_assert_uint_eq(st.frames, 400);
    ck_assert_uint_eq(st.payload_bytes, 400 * 1024);
    ck_assert_uint_eq(st.bytes, 400 * (EBF_ETH_HLEN + EBF_FRAG_HLEN + 1024));
    ck_assert_uint_eq(st.tx_refused, 0);
    ck_assert_uint_eq(st.tx_abandoned, 0);
    ck_assert_uint_eq(st.events_abandoned, 0);
    ck_assert_uint_eq(st.id_digest, digest(100));
    ck_assert_uint_eq(st.first_event, 0);
    ck_assert_uint_eq(st.last_event, 99);
    ck_assert_uint_le(st.start_ns, st.end_ns);

    unsigned n = drain(&g);
    ck_assert_uint_eq(n, 400);
    check_stream(&c, pkts, n, 100, &sn);
    ck_assert_uint_eq(sn.frames, 400);
    ck_assert_uint_eq(sn.multi, 0);
    ck_assert_uint_eq(sn.bytes, st.bytes);
    ck_assert_uint_eq(sn.payload_bytes, st.payload_bytes);
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/* The largest piece: MTU less encapsulation, fragment header and the SFC's
 * event header, rounded down to 8. */
START_TEST(test_max_piece)
{
    static const struct {
        enum ebf_encap encap;
        uint16_t mtu;
        uint32_t want;
    } t[] = {
        {EBF_ENCAP_ETH, 1500, 1408},    /* 1500 - 40 - 48 = 1412 -> 1408 */
        {EBF_ENCAP_UDP, 1500, 1384},    /* 1500 - 28 - 40 - 48 = 1384 */
        {EBF_ENCAP_ETH, 9000, 8912},
        {EBF_ENCAP_UDP, 9000, 8880},    /* 8884 -> 8880 */
        {EBF_ENCAP_ETH, 256, 168},
    };
    struct ro_conf c;

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        conf_init(&c, NULL, 1, 1, 1, 1, t[i].encap);
        c.mtu = t[i].mtu;
        ck_assert_msg(ro_max_piece(&c) == t[i].want, "case %u: %u, want %u", i,
                      ro_max_piece(&c), t[i].want);
    }
}
END_TEST

/* Fragment sizes: deterministic from the seed, within [min, max], both
 * bounds reached; a fixed size when min == max. */
START_TEST(test_frag_size)
{
    struct ro_conf a, b, d;
    unsigned hits[3] = {0, 0, 0}, differ = 0;

    conf_init(&a, NULL, 4, 0, 1, 5000, EBF_ENCAP_ETH);
    a.seed = 42;
    b = a;
    d = a;
    d.seed = 43;
    for (uint16_t s = 0; s < 4; s++) {
        for (uint64_t e = 0; e < 1000; e++) {
            uint32_t x = ro_frag_size(&a, s, e);
            ck_assert_uint_ge(x, 1);
            ck_assert_uint_le(x, 5000);
            ck_assert_uint_eq(ro_frag_size(&b, s, e), x);
            ck_assert_uint_eq(ro_frag_size(&a, s, e), x);
            differ += ro_frag_size(&d, s, e) != x;
        }
    }
    ck_assert_uint_gt(differ, 0);

    a.size_min = 10;
    a.size_max = 12;
    for (uint16_t s = 0; s < 4; s++) {
        for (uint64_t e = 0; e < 1000; e++) {
            uint32_t x = ro_frag_size(&a, s, e);
            ck_assert_uint_ge(x, 10);
            ck_assert_uint_le(x, 12);
            hits[x - 10]++;
        }
    }
    ck_assert_uint_gt(hits[0], 0);
    ck_assert_uint_gt(hits[1], 0);
    ck_assert_uint_gt(hits[2], 0);

    a.size_min = a.size_max = 777;
    for (uint64_t e = 0; e < 100; e++)
        ck_assert_uint_eq(ro_frag_size(&a, (uint16_t)(e % 4), e), 777);
}
END_TEST

/* Sizes uniform in [1, 5000]: fragments cut into pieces of ro_max_piece()
 * at offsets 0, p, 2p, ..., the counters match the sizes exactly. */
START_TEST(test_multi_frame_fragments)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;
    uint64_t frames = 0, payload = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 4, 300, 1, 5000, EBF_ENCAP_ETH);
    c.seed = 0x5eed;
    ck_assert_uint_eq(ro_max_piece(&c), 1408);
    for (uint64_t e = 0; e < 300; e++) {
        for (uint16_t s = 0; s < 4; s++) {
            uint32_t x = ro_frag_size(&c, s, e);
            frames += (x + 1407) / 1408;
            payload += x;
        }
    }
    ck_assert_uint_le(frames, MAX_FRAMES);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 300);
    ck_assert_uint_eq(st.frames, frames);
    ck_assert_uint_eq(st.payload_bytes, payload);
    ck_assert_uint_eq(st.bytes, frames * (EBF_ETH_HLEN + EBF_FRAG_HLEN) + payload);
    ck_assert_uint_eq(st.tx_refused, 0);
    ck_assert_uint_eq(st.id_digest, digest(300));

    unsigned n = drain(&g);
    ck_assert_uint_eq(n, frames);
    check_stream(&c, pkts, n, 300, &sn);
    ck_assert_uint_eq(sn.payload_bytes, payload);
    ck_assert_uint_eq(sn.bytes, st.bytes);
    ck_assert_uint_gt(sn.multi, 0);             /* the run did cut fragments */
    ck_assert_uint_gt(sn.full, 0);
    ck_assert_uint_lt(sn.multi, frames);        /* and sent single pieces too */
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/* UDP on port 50600: 42-byte headers, destination IP per SFC, a valid IPv4
 * checksum; 3000-byte fragments make 1384 + 1384 + 232 byte pieces. */
START_TEST(test_udp_encap)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 20, 3000, 3000, EBF_ENCAP_UDP);
    c.udp_port = 50600;
    ck_assert_uint_eq(ro_max_piece(&c), 1384);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 20);
    ck_assert_uint_eq(st.frames, 20 * 2 * 3);
    ck_assert_uint_eq(st.payload_bytes, 20 * 2 * 3000);
    ck_assert_uint_eq(st.bytes, 120 * (42 + EBF_FRAG_HLEN) + 20 * 2 * 3000);
    ck_assert_uint_eq(st.id_digest, digest(20));

    unsigned n = drain(&g);
    ck_assert_uint_eq(n, 120);
    check_stream(&c, pkts, n, 20, &sn);         /* checks hlen 42 and IPs too */
    ck_assert_uint_eq(sn.multi, 80);
    ck_assert_uint_eq(sn.full, 80);
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
        struct ebf_l2l3 l;
        ck_assert_int_eq(ebf_parse_l2l3(p, pkts[i]->data_len, 50600, &l), EBF_R_OK);
        ck_assert_int_eq(l.encap, EBF_ENCAP_UDP);
        ck_assert_uint_eq(l.hlen, 42);
        /* Event i / 6 (3 pieces x 2 sources) goes to SFC (i / 6) % 2. */
        ck_assert_uint_eq(be32(p + EBF_ETH_HLEN + 16), SFC_IP((i / 6) % 2));
        /* Another port is not ours. */
        ck_assert_int_eq(ebf_parse_l2l3(p, pkts[i]->data_len, 50601, &l), EBF_R_NOT_EBFARM);
    }
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/* Sources, bursts and sizes around the burst boundaries, several runs in
 * one process: every frame of every event is flushed, the last one too, and
 * each run starts its sequence numbers at 0 again. */
START_TEST(test_bursts_table)
{
    static const struct {
        uint16_t n_sources, burst;
        uint32_t size;
        uint64_t n_events, frames;
    } t[] = {
        {1, 32, 100, 7, 7},             /* one frame an event */
        {5, 3, 100, 7, 35},             /* events straddle bursts */
        {3, 1, 3000, 4, 36},            /* 1408 + 1408 + 184, one frame a burst */
        {4, 8, 1024, 10, 40},           /* events fill bursts exactly */
        {EBF_MAX_SOURCES, 256, 10, 10, 1280},
    };
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        conf_init(&c, &g, t[i].n_sources, t[i].n_events, t[i].size, t[i].size,
                  EBF_ENCAP_ETH);
        c.burst = t[i].burst;
        ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
        ck_assert_msg(st.events == t[i].n_events && st.frames == t[i].frames,
                      "case %u: %" PRIu64 " events, %" PRIu64 " frames", i, st.events,
                      st.frames);
        ck_assert_uint_eq(st.payload_bytes, t[i].n_events * t[i].n_sources * t[i].size);
        unsigned n = drain(&g);
        ck_assert_msg(n == t[i].frames, "case %u: %u frames sent, want %" PRIu64, i, n,
                      t[i].frames);
        check_stream(&c, pkts, n, t[i].n_events, &sn);
        ck_assert_uint_eq(sn.bytes, st.bytes);
        free_frames(&g, n);
    }
    rig_down(&g);
}
END_TEST

/* A stop requested before the run: nothing at all. */
START_TEST(test_stop_before_run)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 1, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 4, 100, 1024, 1024, EBF_ENCAP_ETH);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 0);
    ck_assert_uint_eq(st.frames, 0);
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_uint_eq(st.events_abandoned, 0);
    ck_assert_uint_eq(st.id_digest, 0);
    ck_assert_uint_eq(rte_ring_count(g.tx), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* Unbounded events, 50 ms at 1000 events/s: the run ends by itself. */
START_TEST(test_duration_paced)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 0, 64, 64, EBF_ENCAP_ETH);
    c.duration_s = 0.05;
    c.rate = 1000;
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    /* Timing: about 50 events are due in 50 ms, but a loaded machine can
     * deschedule this process, so only a loose window is asserted. */
    ck_assert_uint_ge(st.events, 30);
    ck_assert_uint_le(st.events, 70);
    ck_assert_uint_eq(st.frames, st.events * 2);
    ck_assert_uint_eq(st.id_digest, digest(st.events));

    unsigned n = drain(&g);
    ck_assert_uint_eq(n, st.frames);
    check_stream(&c, pkts, n, st.events, &sn);
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/*
 * Duration with a slow rate: at 2 events/s and 50 ms only event 0 is due
 * (event 1 is due at 500 ms, after the deadline), so the run should send
 * one event and end at about 50 ms.
 */
START_TEST(test_duration_not_overrun_by_pacing)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 0, 64, 64, EBF_ENCAP_ETH);
    c.duration_s = 0.05;
    c.rate = 2;
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    uint64_t ms = (st.end_ns - st.start_ns) / 1000000;
    /* Clean up first: a failed assertion ends the process. */
    rte_pktmbuf_free_bulk(pkts, drain(&g));
    rig_down(&g);
    ck_assert_msg(st.events == 1 && ms < 300,
                  "duration 50 ms at 2 events/s: %" PRIu64 " events in %" PRIu64
                  " ms, want 1 event in about 50 ms", st.events, ms);
}
END_TEST

static volatile sig_atomic_t alarm_stop;

static void on_alarm(int sig)
{
    (void)sig;
    alarm_stop = 1;
}

/*
 * A stop that arrives while the readout waits for the next event's slot
 * (2 events/s: event 1 is due at 500 ms, the stop comes at 20 ms) ends the
 * run between events: event 0 only, nothing sent after the stop.
 */
START_TEST(test_stop_while_pacing)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t force = 0;
    struct sigaction sa;
    struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 20000}};

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 10, 64, 64, EBF_ENCAP_ETH);
    c.rate = 2;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    alarm_stop = 0;
    ck_assert_int_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
    ck_assert_int_eq(ro_run(&c, &st, &alarm_stop, &force), 0);
    uint64_t ms = (st.end_ns - st.start_ns) / 1000000;
    /* Clean up first: a failed assertion ends the process. */
    rte_pktmbuf_free_bulk(pkts, drain(&g));
    rig_down(&g);
    ck_assert_int_eq(alarm_stop, 1);
    ck_assert_uint_lt(ms, 300);                 /* the wait was cut short */
    ck_assert_msg(st.events == 1 && st.frames == 2,
                  "stop at 20 ms, event 1 due at 500 ms: %" PRIu64 " events, %" PRIu64
                  " frames, want 1 and 2", st.events, st.frames);
}
END_TEST

/*
 * A forced stop while the port refuses frames: a TX ring of 64 holds 63
 * frames, so events 0..14 (60 frames) go out, event 15 gets 3 of its 4
 * frames in and the 4th is abandoned and freed. frames counts every frame
 * built and offered, the abandoned one included.
 */
START_TEST(test_force_abandons)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 1;

    rig_up(&g, 64);
    conf_init(&c, &g, 4, 100, 1024, 1024, EBF_ENCAP_ETH);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 15);
    ck_assert_uint_eq(st.last_event, 14);
    ck_assert_uint_eq(st.events_abandoned, 1);
    ck_assert_uint_eq(st.frames, 64);
    ck_assert_uint_eq(st.tx_refused, 1);
    ck_assert_uint_eq(st.tx_abandoned, 1);
    ck_assert_uint_eq(st.id_digest, digest(16));   /* generated ids: 0..15 */

    unsigned n = drain(&g);
    ck_assert_uint_eq(n, st.frames - st.tx_abandoned);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), n);   /* abandoned one freed */
    check_stream(&c, pkts, 60, 15, &sn);
    for (unsigned i = 60; i < n; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
        struct ebf_frag_hdr h;
        size_t used;
        ck_assert_int_eq(ebf_frag_parse(p + EBF_ETH_HLEN, pkts[i]->data_len - EBF_ETH_HLEN,
                                        4, 1, &h, &used), EBF_R_OK);
        ck_assert_uint_eq(h.event_id, 15);
        ck_assert_uint_eq(h.source, i - 60);
    }
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/* A yield hook that empties the TX ring at its at-th call. */
struct drain_at {
    struct rig *g;
    unsigned calls, at;
};

static void drain_on_call(void *arg)
{
    struct drain_at *d = arg;

    if (++d->calls == d->at)
        rte_pktmbuf_free_bulk(pkts, drain(d->g));   /* one frame is still the readout's */
}

/*
 * While the port refuses frames each try is a pass of the lcore's cycle
 * accounting: a TX ring of 64 takes events 0..14 whole (no pass of their
 * own) and 3 of event 15's 4 frames: that try is busy (it made the frames),
 * the next four take nothing (idle), the yield hook empties the ring at its
 * 5th call, and the sixth try sends the last frame (busy).
 */
START_TEST(test_refused_tries_are_passes)
{
    static const volatile sig_atomic_t no_force;
    static struct ebf_cycles cy;
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_gen gen;
    struct drain_at d = {.g = &g, .at = 5};

    rig_up(&g, 64);
    conf_init(&c, &g, 4, 16, 1024, 1024, EBF_ENCAP_ETH);
    c.yield = drain_on_call;
    c.yield_arg = &d;
    c.cycles = &cy;
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ebf_cycles_start(&cy);
    uint64_t t0 = cy.last;
    for (unsigned e = 0; e < 16; e++)
        ck_assert_int_eq(ro_next(&gen, &no_force), 1);
    uint64_t t1 = rte_rdtsc();
    ck_assert_uint_eq(st.events, 16);
    ck_assert_uint_eq(st.tx_refused, 1);
    ck_assert_uint_eq(d.calls, 5);
    ck_assert_uint_eq(cy.busy_passes, 2);
    ck_assert_uint_eq(cy.idle_passes, 4);
    ck_assert_uint_eq(cy.busy_cycles + cy.idle_cycles, cy.last - t0);
    ck_assert_uint_le(cy.last, t1);
    free_frames(&g, drain(&g));
    rig_down(&g);
}
END_TEST

/* Unpaced with one SFC, the frames of events wait for a full burst of 32:
 * 8 sources of one frame each go out four events at a time, each four
 * made by one call; the last events' go out when the generator ends.
 * Every mbuf comes back to the pool. */
START_TEST(test_full_bursts)
{
    static const volatile sig_atomic_t no_force;
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_gen gen;
    static const unsigned made[] = {4, 4, 2}, in_ring[] = {32, 64, 64};

    rig_up(&g, 1024);
    conf_init(&c, &g, 8, 10, 1024, 1024, EBF_ENCAP_ETH);
    c.n_sfcs = 1;                                   /* several: each event's frames at once */
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_int_eq(ro_next(&gen, &no_force), made[i]);
        ck_assert_uint_eq(rte_ring_count(g.tx), in_ring[i]);
    }
    ck_assert_int_eq(ro_next(&gen, &no_force), 0);  /* done: the last 16 go */
    ck_assert_uint_eq(rte_ring_count(g.tx), 80);
    ck_assert_uint_eq(st.frames, 80);
    ck_assert_uint_eq(st.events, 10);
    ck_assert_uint_eq(st.tx_refused, 0);
    free_frames(&g, drain(&g));
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);    /* no spare kept */
    rig_down(&g);
}
END_TEST

/* The staged stop's common end: an id below where the run is is refused
 * (-ERANGE, nothing changed); the readout holds at its end with the last
 * events' frames sent (not finished: a higher end lets it go on), and
 * ro_short_of_stop says whether events remain before the end. */
START_TEST(test_stop_at)
{
    static const volatile sig_atomic_t no_force;
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_gen gen;

    rig_up(&g, 1024);
    conf_init(&c, &g, 8, 0, 1024, 1024, EBF_ENCAP_ETH);
    c.n_sfcs = 1;                                   /* 4 events fill a burst of 32 */
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ck_assert_uint_eq(st.next_event, 0);
    ck_assert_int_eq(ro_next(&gen, &no_force), 4);
    ck_assert_uint_eq(st.next_event, 4);
    ck_assert_int_eq(ro_stop_at(&gen, 3), -ERANGE);
    ck_assert_uint_eq(st.stop_at, 0);
    ck_assert_int_eq(ro_short_of_stop(&gen), 0);
    ck_assert_int_eq(ro_stop_at(&gen, 6), 0);
    ck_assert_uint_eq(st.stop_at, 6);
    ck_assert_int_eq(ro_short_of_stop(&gen), 1);
    ck_assert_int_eq(ro_next(&gen, &no_force), 2);  /* 4 and 5, their frames queued */
    ck_assert_uint_eq(rte_ring_count(g.tx), 32);
    ck_assert_int_eq(ro_short_of_stop(&gen), 0);
    for (unsigned k = 0; k < 3; k++)
        ck_assert_int_eq(ro_next(&gen, &no_force), 0);
    ck_assert_uint_eq(rte_ring_count(g.tx), 48);    /* held: what was queued went out */
    ck_assert_int_eq(gen.done, 0);
    ck_assert_uint_eq(st.events, 6);
    ck_assert_uint_eq(st.last_event, 5);
    ck_assert_int_eq(ro_stop_at(&gen, 9), 0);       /* raised: it goes on */
    ck_assert_int_eq(ro_short_of_stop(&gen), 1);
    ck_assert_int_eq(ro_next(&gen, &no_force), 3);
    ck_assert_int_eq(ro_next(&gen, &no_force), 0);
    ck_assert_uint_eq(st.events, 9);
    ck_assert_uint_eq(st.next_event, 9);
    ck_assert_uint_eq(rte_ring_count(g.tx), 72);
    ck_assert_uint_eq(st.id_digest, digest(9));
    ro_finish(&gen);
    ck_assert_int_eq(gen.done, 1);
    free_frames(&g, drain(&g));
    rig_down(&g);
}
END_TEST

/* Put one frame from SFC 0 on the readout's receive ring: a throttle frame
 * (on 0 or 1, or 2: malformed), or with ethertype set, a frame of another
 * protocol. */
static void put_rx(struct rig *g, uint8_t on, uint32_t seq, uint16_t ethertype)
{
    struct rte_ring *rx = rte_ring_lookup("ro_rx");
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH, .src_mac = {0x02, 0xeb, 0, 0, 0x01, 0}};
    struct ebf_throttle_hdr h = {.sfc_id = 0, .on = on > 1 ? 1 : on, .fill = 800, .seq = seq};

    ck_assert_ptr_nonnull(rx);
    ck_assert_ptr_nonnull(m);
    memcpy(a.dst_mac, src_mac, 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_THROTTLE_LEN);
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_THROTTLE_LEN);
    ebf_throttle_write(p + EBF_ETH_HLEN, &h);
    if (on > 1)
        p[EBF_ETH_HLEN + 4] = on;
    if (ethertype) {
        p[12] = (uint8_t)(ethertype >> 8);
        p[13] = (uint8_t)ethertype;
    }
    ck_assert_int_eq(rte_ring_enqueue(rx, m), 0);
}

/* Calls of ro_next() that generated an event. */
static unsigned next_n(struct ro_gen *gen, unsigned calls)
{
    static const volatile sig_atomic_t no_force;
    unsigned n = 0;

    for (unsigned i = 0; i < calls; i++)
        n += (unsigned)ro_next(gen, &no_force);
    return n;
}

/* Throttle frames on the readout's port hold generation: "on" until "off",
 * or until it is not refreshed; stale, malformed and foreign frames are
 * counted and change nothing; the schedule moves on by the time held; every
 * received frame is freed; the run still sends every event. */
START_TEST(test_throttle_obeyed)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_gen gen;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 100, 64, 64, EBF_ENCAP_ETH);
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ck_assert_uint_eq(next_n(&gen, 10), 10);

    put_rx(&g, 0, 0, 0x86dd);           /* another protocol */
    put_rx(&g, 2, 1, 0);                /* a malformed throttle frame */
    put_rx(&g, 1, 1, 0);                /* on */
    ck_assert_uint_eq(next_n(&gen, 50), 0);
    ck_assert_uint_eq(st.events, 10);
    ck_assert_uint_eq(st.rx_frames, 3);
    ck_assert_uint_eq(st.rx_other, 1);
    ck_assert_uint_eq(st.throttle_rejected, 1);
    ck_assert_uint_eq(st.throttle_frames, 1);
    ck_assert_uint_eq(st.throttle_on_frames, 1);
    ck_assert_uint_eq(st.throttle_holds, 1);
    ck_assert_uint_eq(st.throttle_held_polls, 50);
    ck_assert_uint_eq(st.throttle_held_ns, 0);      /* counted when the hold ends */

    uint64_t t0 = gen.t0;
    put_rx(&g, 0, 2, 0);                /* off */
    ck_assert_uint_eq(next_n(&gen, 5), 5);
    ck_assert_uint_eq(st.throttle_off_frames, 1);
    ck_assert_uint_gt(st.throttle_held_ns, 0);
    /* the schedule moved on by exactly the time held */
    ck_assert_uint_eq((uint64_t)((double)(gen.t0 - t0) * 1e9 / (double)rte_get_tsc_hz()),
                      st.throttle_held_ns);

    put_rx(&g, 1, 1, 0);                /* an old "on": stale, ignored */
    ck_assert_uint_eq(next_n(&gen, 5), 5);
    ck_assert_uint_eq(st.throttle_stale, 1);
    ck_assert_uint_eq(st.throttle_holds, 1);

    /* "on" without a refresh lets go after EBF_THROTTLE_HOLD_NS */
    put_rx(&g, 1, 3, 0);
    ck_assert_uint_eq(next_n(&gen, 3), 0);
    ck_assert_uint_eq(st.throttle_holds, 2);
    rte_delay_us_sleep((unsigned)(EBF_THROTTLE_HOLD_NS / 1000) + 50000);
    ck_assert_uint_eq(next_n(&gen, 1), 1);
    ck_assert_uint_ge(st.throttle_held_ns, EBF_THROTTLE_HOLD_NS);

    while (!gen.done)
        next_n(&gen, 1);
    ck_assert_uint_eq(st.events, 100);
    ck_assert_uint_eq(st.id_digest, digest(100));
    ck_assert_uint_eq(st.rx_frames, 6);
    ck_assert_uint_eq(st.throttle_frames, 4);
    unsigned n = drain(&g);
    ck_assert_uint_eq(n, 200);
    free_frames(&g, n);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);     /* received frames freed */
    rig_down(&g);
}
END_TEST

/* MTU 9000, pool rooms of 9018 B: 8000-byte fragments in one frame each. */
START_TEST(test_jumbo_frames)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct seen sn;
    volatile sig_atomic_t stop = 0, force = 0;
    uint16_t mtu;

    rig_up_room(&g, TX_RING, 9000, 9018);
    ck_assert_int_eq(rte_eth_dev_get_mtu(g.port, &mtu), 0);
    ck_assert_uint_eq(mtu, 9000);
    conf_init(&c, &g, 4, 50, 8000, 8000, EBF_ENCAP_ETH);
    c.mtu = 9000;
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 50);
    ck_assert_uint_eq(st.frames, 200);
    ck_assert_uint_eq(st.bytes, 200 * (EBF_ETH_HLEN + EBF_FRAG_HLEN + 8000));
    ck_assert_uint_eq(st.tx_no_room, 0);
    unsigned n = drain(&g);
    ck_assert_uint_eq(n, 200);
    check_stream(&c, pkts, n, 50, &sn);
    ck_assert_uint_eq(sn.multi, 0);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(pkts[i]->nb_segs, 1);
    free_frames(&g, n);
    rig_down(&g);
}
END_TEST

/* A frame of the MTU that does not fit an mbuf of the pool (9000 against a
 * room of 2048): not built, counted, the run ends with -EMSGSIZE, nothing
 * sent, no mbuf leaked. */
START_TEST(test_frame_without_room)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    conf_init(&c, &g, 2, 10, 4000, 4000, EBF_ENCAP_ETH);
    c.mtu = 9000;
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), -EMSGSIZE);
    ck_assert_uint_eq(st.tx_no_room, 1);
    ck_assert_uint_eq(st.frames, 0);
    ck_assert_uint_eq(st.events, 0);
    ck_assert_uint_eq(st.events_abandoned, 1);
    ck_assert_uint_eq(st.id_digest, digest(1));
    ck_assert_uint_eq(rte_ring_count(g.tx), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* Confs ro_run() must refuse, sending nothing. */
START_TEST(test_bad_conf)
{
    static const struct {
        const char *what;
        uint16_t burst, n_sfcs, n_sources;
    } t[] = {
        {"burst 0", 0, N_SFCS, 4},
        {"burst 257", 257, N_SFCS, 4},
        {"n_sfcs 0", 32, 0, 4},
        {"n_sources 0", 32, N_SFCS, 0},
        {"n_sources 129", 32, N_SFCS, EBF_MAX_SOURCES + 1},
    };
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        conf_init(&c, &g, t[i].n_sources, 10, 100, 100, EBF_ENCAP_ETH);
        c.burst = t[i].burst;
        c.n_sfcs = t[i].n_sfcs;
        ck_assert_msg(ro_run(&c, &st, &stop, &force) == -EINVAL, "%s accepted", t[i].what);
        ck_assert_uint_eq(rte_ring_count(g.tx), 0);
    }
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/*
 * Two SFCs on ports of their own (--sfc-port): SFC 0's port takes every
 * frame, SFC 1's holds 255 and then refuses. The readout sends sources 4
 * and 5 (--source-base 4), numbers frames per (source, SFC), gives SFC 1
 * up once its port refused for sfc_timeout_ms with no throttle frame, and
 * serves SFC 0 to the end: every frame toward SFC 1 taken or counted.
 */
START_TEST(test_sfc_given_up)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g, TX_RING);
    struct rte_ring *rx1 = test_ring("ro1_rx", 1024), *tx1 = test_ring("ro1_tx", 256);
    uint16_t port1 = test_ring_port("ro1", rx1, tx1);
    ck_assert_int_eq(ebf_port_start(port1, g.pool, 0, 512, 512), 0);
    conf_init(&c, &g, 2, 2000, 1024, 1024, EBF_ENCAP_ETH);
    c.source_base = 4;
    c.n_sfc_ports = 2;
    c.sfc_port[0] = g.port;
    c.sfc_port[1] = port1;
    c.sfc_timeout_ms = 50;
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(st.events, 2000);
    ck_assert_uint_eq(st.sfcs_gone, 1);
    ck_assert_uint_eq(st.sfc_gone[0], 0);
    ck_assert_uint_eq(st.sfc_gone[1], 1);
    /* 127 odd events whole, then event 255's first frame: the 255th */
    ck_assert_uint_eq(st.sfc_gone_from[1], 255);
    ck_assert_uint_eq(st.sfc_frames[1], 255);
    ck_assert_uint_eq(st.sfc_frames[1] + st.sfc_gone_frames, 1000 * 2);
    ck_assert_uint_eq(st.sfc_frames[0], 1000 * 2);
    ck_assert_uint_eq(rte_ring_count(tx1), 255);
    unsigned n = drain(&g);
    ck_assert_uint_eq(n, 2000);
    uint32_t seq[2] = {0, 0};
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
        struct ebf_l2l3 l;
        struct ebf_frag_hdr h;
        size_t used;
        ck_assert_int_eq(ebf_parse_l2l3(p, pkts[i]->data_len, c.udp_port, &l), EBF_R_OK);
        ck_assert_int_eq(ebf_frag_parse(p + l.hlen, l.len, 8, 1, &h, &used), EBF_R_OK);
        ck_assert_uint_eq(h.event_id % 2, 0);
        ck_assert_uint_eq(h.source, 4 + i % 2);
        ck_assert_uint_eq(h.seq, seq[i % 2]++);     /* SFC 0's own sequence */
    }
    rte_pktmbuf_free_bulk(pkts, n);
    n = rte_ring_dequeue_burst(tx1, (void **)pkts, MAX_FRAMES, NULL);
    rte_pktmbuf_free_bulk(pkts, n);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

Suite *ro_gen_suite(void);

Suite *ro_gen_suite(void)
{
    Suite *s = suite_create("readout");
    TCase *pure = tcase_create("sizes");
    TCase *tc = tcase_create("run");

    tcase_set_timeout(pure, 10);
    tcase_add_test(pure, test_max_piece);
    tcase_add_test(pure, test_frag_size);
    suite_add_tcase(s, pure);

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fixed_size_eth);
    tcase_add_test(tc, test_multi_frame_fragments);
    tcase_add_test(tc, test_udp_encap);
    tcase_add_test(tc, test_bursts_table);
    tcase_add_test(tc, test_stop_before_run);
    tcase_add_test(tc, test_duration_paced);
    tcase_add_test(tc, test_duration_not_overrun_by_pacing);
    tcase_add_test(tc, test_stop_while_pacing);
    tcase_add_test(tc, test_force_abandons);
    tcase_add_test(tc, test_refused_tries_are_passes);
    tcase_add_test(tc, test_full_bursts);
    tcase_add_test(tc, test_stop_at);
    tcase_add_test(tc, test_bad_conf);
    tcase_add_test(tc, test_jumbo_frames);
    tcase_add_test(tc, test_frame_without_room);
    tcase_add_test(tc, test_throttle_obeyed);
    tcase_add_test(tc, test_sfc_given_up);
    suite_add_tcase(s, tc);
    return s;
}
