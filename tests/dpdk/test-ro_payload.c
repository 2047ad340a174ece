/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_payload.c - Check tests of the readout's prebuilt payload: exact frames on a ring port, and the tags that spare copies. */
#include <check.h>
#include <signal.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ebf_crc.h"
#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "ro_gen.h"
#include "ro_payload.h"
#include "test-eal.h"

#define TX_RING 4096
#define POOL_N 2047              /* >= 1024: the pool has a per-lcore cache (LIFO reuse) */

static const uint8_t src_mac[6] = {0x02, 0xeb, 0, 0, 0x00, 0x01};
static const uint8_t sfc_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x00};

struct rig {
    uint16_t port;
    struct rte_ring *tx;
    struct rte_mempool *pool;    /* with a tag per mbuf (RO_TAG_PRIV_SIZE) */
};

static struct rte_mbuf *pkts[TX_RING];

static void tag_clear(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
    (void)mp;
    (void)arg;
    (void)idx;
    ro_tag_clear(obj);
}

/* EAL, a ring port, and a pool made as the readout makes its own. */
static void rig_up(struct rig *g, int tags)
{
    test_eal_init();
    struct rte_ring *rx = test_ring("ro_rx", 1024);
    g->tx = test_ring("ro_tx", TX_RING);
    g->port = test_ring_port("ro", rx, g->tx);
    g->pool = rte_pktmbuf_pool_create("ro_pool", POOL_N, 256, tags ? RO_TAG_PRIV_SIZE : 0,
                                      2048 + RTE_PKTMBUF_HEADROOM, 0);
    ck_assert_ptr_nonnull(g->pool);
    if (tags)
        rte_mempool_obj_iter(g->pool, tag_clear, NULL);
    ck_assert_int_eq(ebf_port_start(g->port, g->pool, 0, 512, 512), 0);
}

static void conf_init(struct ro_conf *c, const struct rig *g, uint16_t n_sources,
                      uint64_t n_events, uint32_t size_min, uint32_t size_max)
{
    memset(c, 0, sizeof(*c));
    c->port = g->port;
    c->pool = g->pool;
    c->n_sources = n_sources;
    c->source_base = 3;
    c->n_events = n_events;
    c->size_min = size_min;
    c->size_max = size_max;
    c->seed = 1;
    c->encap = EBF_ENCAP_ETH;
    c->udp_port = EBF_UDP_PORT_DEFAULT;
    memcpy(c->src_mac, src_mac, 6);
    c->n_sfcs = 1;
    memcpy(c->sfc_mac[0], sfc_mac, 6);
    c->mtu = 1500;
    c->burst = 32;
    c->payload = RO_PAYLOAD_PREBUILT;
    ebf_idle_init(&c->idle, EBF_IDLE_SPIN);
}

static unsigned drain(struct rig *g)
{
    return rte_ring_dequeue_burst(g->tx, (void **)pkts, TX_RING, NULL);
}

/* One frame of a prebuilt run: its CRC right, the flag set, its bytes the
 * prebuilt pattern of (source, offset), and the verifier content. Returns
 * the piece length. */
static uint32_t check_frame(const struct rte_mbuf *m)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    struct ebf_l2l3 l;
    struct ebf_frag_hdr h;
    size_t used;
    int bad = -1;

    ck_assert_int_eq(ebf_parse_l2l3(p, m->data_len, EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
    p += l.hlen;
    ck_assert_int_eq(ebf_frag_parse(p, l.len, 0, 1, &h, &used), EBF_R_OK);
    ck_assert_uint_eq(h.flags, EBF_FRAGF_PREBUILT);
    ck_assert_int_eq(ebf_pattern_check(p + EBF_FRAG_HLEN, h.piece_len, h.source,
                                       EBF_PATTERN_PREBUILT_ID, h.offset), -1);
    ck_assert_int_eq(ebf_frag_verify(p, &h, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 0);
    return h.piece_len;
}

/*
 * Prebuilt frames of 3 sources, fragments uniform in 1..4000 bytes (one to
 * three pieces, last pieces of every length: their CRC computed, the full
 * ones combined): every frame exact, with tags (_i 1) and without (_i 0);
 * the bytes of a fragment are those of the same source in another event.
 */
START_TEST(test_prebuilt_frames)
{
    static const volatile sig_atomic_t no;
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    uint64_t payload = 0;

    rig_up(&g, _i);
    conf_init(&c, &g, 3, 300, 1, 4000);
    ck_assert_int_eq(ro_run(&c, &st, &no, &no), 0);
    unsigned n = drain(&g);
    ck_assert_uint_eq(n, st.frames);
    ck_assert_uint_gt(n, 300 * 3);                  /* some fragments in several pieces */
    for (unsigned i = 0; i < n; i++)
        payload += check_frame(pkts[i]);
    ck_assert_uint_eq(payload, st.payload_bytes);
    ck_assert_uint_eq(st.events, 300);
    rte_pktmbuf_free_bulk(pkts, n);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    ebf_eal_cleanup();
}
END_TEST

/* The bytes and CRC of a piece built by ro_payload_write: the prebuilt
 * pattern and the plain CRC over header and piece; a last piece shorter
 * than precomputed gets its CRC over its bytes, the same. */
START_TEST(test_payload_write)
{
    static uint8_t a[EBF_FRAG_HLEN + 1440], b[EBF_FRAG_HLEN + 1440];
    struct ro_payload p;

    ck_assert_int_eq(ro_payload_build(&p, 10, 2, 3000, 1440), 0);
    ck_assert_uint_eq(p.n_pieces, 3);
    ck_assert_uint_eq(p.piece[1].len, 1440);
    ck_assert_uint_eq(p.piece[2].len, 120);         /* 3000 - 2 * 1440 */
    for (uint32_t len = 1; len <= 1440; len += (len < 200 ? 1 : 97)) {
        struct ebf_frag_hdr h = {.source = 11, .seq = 5, .event_id = 77, .frag_len = 1440 + len,
                                 .offset = 1440, .piece_len = (uint16_t)len, .tx_ns = 9};
        struct ebf_frag_hdr h2 = h;
        ro_payload_write(&p, a, &h, 1);
        ck_assert_uint_eq(h.flags, EBF_FRAGF_PREBUILT);
        ebf_pattern_fill(b + EBF_FRAG_HLEN, len, 11, EBF_PATTERN_PREBUILT_ID, 1440);
        h2.flags = EBF_FRAGF_PREBUILT;
        ebf_frag_write(b, &h2);
        ck_assert_int_eq(memcmp(a, b, EBF_FRAG_HLEN + len), 0);
        ck_assert_uint_eq(h.crc, h2.crc);
    }
    ck_assert_uint_eq(ro_payload_tag(&p, &(struct ebf_frag_hdr){.offset = 1440, .piece_len = 7}, 1),
                      (uint64_t)p.gen << 48 | 1ull << 40 | 1440ull << 16 | 7);
    ck_assert_uint_ne(p.gen, 0);
    ro_payload_free(&p);
    ck_assert_ptr_null(p.bytes);
    ro_payload_free(&p);                            /* again: nothing */
}
END_TEST

/*
 * Tags: a frame whose buffer kept its tag gets no copy (a byte scribbled
 * over while it was out stays: the proof that nothing was written), one
 * whose tag was cleared gets the bytes again. A per-event run clears the
 * tags it fills over; a run with a fault stage trusts none. One source of one piece an event, burst 1: each
 * event takes the mbuf the last one freed (the pool cache is LIFO).
 */
START_TEST(test_tags_spare_copies)
{
    static const volatile sig_atomic_t no;
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_gen gen;

    rig_up(&g, 1);
    conf_init(&c, &g, 1, 0, 1024, 1024);
    c.burst = 1;
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ck_assert_int_eq(gen.tags, 1);
    ck_assert_int_eq(ro_next(&gen, &no), 1);
    ck_assert_uint_eq(drain(&g), 1);
    struct rte_mbuf *m = pkts[0];
    uint8_t *pl = rte_pktmbuf_mtod_offset(m, uint8_t *, EBF_ETH_HLEN + EBF_FRAG_HLEN + 100);
    uint8_t want = *pl;
    *pl ^= 0x5a;                                    /* tag kept: no copy comes */
    rte_pktmbuf_free(m);
    ck_assert_int_eq(ro_next(&gen, &no), 1);
    ck_assert_uint_eq(drain(&g), 1);
    ck_assert_ptr_eq(pkts[0], m);
    ck_assert_uint_eq(*pl, want ^ 0x5a);
    ro_tag_clear(m);                                /* cleared: copied again */
    rte_pktmbuf_free(m);
    ck_assert_int_eq(ro_next(&gen, &no), 1);
    ck_assert_uint_eq(drain(&g), 1);
    ck_assert_ptr_eq(pkts[0], m);
    ck_assert_uint_eq(*pl, want);
    check_frame(m);
    rte_pktmbuf_free(m);
    ro_finish(&gen);
    ck_assert_ptr_null(gen.pay.bytes);

    /* per-event: tags cleared, never trusted */
    c.payload = RO_PAYLOAD_PER_EVENT;
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ck_assert_int_eq(gen.tags, 0);
    ck_assert_int_eq(ro_next(&gen, &no), 1);
    ck_assert_uint_eq(drain(&g), 1);
    ck_assert_uint_eq(*(uint64_t *)rte_mbuf_to_priv(pkts[0]), 0);
    rte_pktmbuf_free(pkts[0]);
    ro_finish(&gen);

    /* a fault stage: prebuilt, but no tag trusted */
    struct ro_fault_conf fc;
    char err[128];
    ro_fault_conf_init(&fc);
    ck_assert_int_eq(ro_fault_parse("corrupt_payload=0.5", &fc, err, sizeof(err)), 0);
    c.payload = RO_PAYLOAD_PREBUILT;
    c.fault = ro_fault_tx_create(&fc, c.encap, c.pool, 0);
    ck_assert_ptr_nonnull(c.fault);
    ck_assert_int_eq(ro_begin(&gen, &c, &st), 0);
    ck_assert_int_eq(gen.tags, 0);
    ck_assert_int_eq(gen.tag_pool, 1);
    ro_finish(&gen);
    ro_fault_tx_free(c.fault);
    ebf_eal_cleanup();
}
END_TEST

/* The frames of a run of 8 sources x 40 events of 1024 bytes into out
 * (their bytes, at most 32 frames of 1078), the counters into st; with
 * the fast frame path (emit_fast) when fast, else emit_fragment's. */
static unsigned run_frames(struct rig *g, struct ro_conf *c, struct ro_stats *st, int fast,
                           uint8_t (*out)[1078])
{
    static const volatile sig_atomic_t no;
    struct ro_gen gen;
    unsigned n = 0;

    ck_assert_int_eq(ro_begin(&gen, c, st), 0);
    ck_assert_uint_eq(gen.fast.len, 1024);          /* this run qualifies */
    if (!fast)
        gen.fast.len = 0;
    while (!gen.done) {
        ro_next(&gen, &no);
        unsigned k = drain(g);
        for (unsigned i = 0; i < k; i++, n++) {
            ck_assert_uint_eq(pkts[i]->data_len, 1078);
            ck_assert_uint_eq(pkts[i]->pkt_len, 1078);
            check_frame(pkts[i]);
            memcpy(out[n], rte_pktmbuf_mtod(pkts[i], uint8_t *), 1078);
        }
        rte_pktmbuf_free_bulk(pkts, k);
    }
    return n;
}

/*
 * The fast frame path of a fixed size that fits one frame makes the frames
 * and counts of the general one: byte for byte but tx_ns and the CRC over
 * it (each checked by check_frame). Only runs that qualify take it: not a
 * size range, UDP or a per-event payload (nor a fault stage: no tags).
 */
START_TEST(test_fast_frames)
{
    static uint8_t a[320][1078], b[320][1078];
    struct rig g;
    struct ro_conf c;
    struct ro_stats sa, sb;
    struct ro_gen gen;

    rig_up(&g, 1);
    conf_init(&c, &g, 8, 40, 1024, 1024);
    ck_assert_uint_eq(run_frames(&g, &c, &sa, 1, a), 320);
    ck_assert_uint_eq(run_frames(&g, &c, &sb, 0, b), 320);
    for (unsigned i = 0; i < 320; i++) {
        memset(a[i] + EBF_ETH_HLEN + 28, 0, 12);    /* CRC and tx_ns */
        memset(b[i] + EBF_ETH_HLEN + 28, 0, 12);
        ck_assert_msg(memcmp(a[i], b[i], 1078) == 0, "frame %u differs", i);
    }
    ck_assert_uint_eq(sa.frames, 320);
    ck_assert_uint_eq(sb.frames, 320);
    ck_assert_uint_eq(sa.bytes, sb.bytes);
    ck_assert_uint_eq(sa.bytes, 320 * 1078);
    ck_assert_uint_eq(sa.payload_bytes, sb.payload_bytes);
    ck_assert_uint_eq(sa.events, 40);
    ck_assert_uint_eq(sa.id_digest, sb.id_digest);

    c.size_max = 1025;                              /* a range */
    ck_assert_int_eq(ro_begin(&gen, &c, &sa), 0);
    ck_assert_uint_eq(gen.fast.len, 0);
    ro_finish(&gen);
    c.size_max = 1024;
    c.encap = EBF_ENCAP_UDP;
    ck_assert_int_eq(ro_begin(&gen, &c, &sa), 0);
    ck_assert_uint_eq(gen.fast.len, 0);
    ro_finish(&gen);
    c.encap = EBF_ENCAP_ETH;
    c.payload = RO_PAYLOAD_PER_EVENT;
    ck_assert_int_eq(ro_begin(&gen, &c, &sa), 0);
    ck_assert_uint_eq(gen.fast.len, 0);
    ro_finish(&gen);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    ebf_eal_cleanup();
}
END_TEST

Suite *ro_payload_suite(void);

Suite *ro_payload_suite(void)
{
    Suite *s = suite_create("ro_payload");
    TCase *tc = tcase_create("prebuilt");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_payload_write);
    tcase_add_loop_test(tc, test_prebuilt_frames, 0, 2);
    tcase_add_test(tc, test_tags_spare_copies);
    tcase_add_test(tc, test_fast_frames);
    suite_add_tcase(s, tc);
    return s;
}
