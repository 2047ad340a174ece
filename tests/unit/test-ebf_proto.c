/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_proto.c - Check unit tests of the wire frames: layouts, round trips, malformed and truncated frames. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_mix.h"
#include "ebf_pattern.h"
#include "ebf_proto.h"
#include "ref-crc32c.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */
#define T_PORT EBF_UDP_PORT_DEFAULT
#define T_SRC_IP 0x0a000001u    /* 10.0.0.1 */
#define T_DST_IP 0x0a000002u    /* 10.0.0.2 */
#define T_NSRC 4                /* n_sources given to ebf_frag_parse */
#define T_PIECE 100             /* payload bytes of the test fragment piece */
#define FRAME_MAX 2048

static const uint8_t t_dst_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t t_src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static const enum ebf_encap encaps[] = { EBF_ENCAP_ETH, EBF_ENCAP_UDP };
#define N_ENCAPS (sizeof(encaps) / sizeof(encaps[0]))

/* --- Helpers ------------------------------------------------------------- */

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)rd16(p) << 16) | rd16(p + 2);
}

static uint64_t rd64(const uint8_t *p)
{
    return ((uint64_t)rd32(p) << 32) | rd32(p + 4);
}

static void wr16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    wr16(p, (uint16_t)(v >> 16));
    wr16(p + 2, (uint16_t)v);
}

/* The fragment CRC as docs/protocol.md defines it, computed independently. */
static uint32_t ref_frag_crc(const uint8_t *frag, size_t piece_len)
{
    uint32_t c = ref_crc32c(0, frag, 28);
    c = ref_crc32c(c, frag + 32, 8);
    return ref_crc32c(c, frag + EBF_FRAG_HLEN, piece_len);
}

static struct ebf_addr test_addr(enum ebf_encap encap)
{
    struct ebf_addr a;

    memset(&a, 0, sizeof(a));
    memcpy(a.dst_mac, t_dst_mac, 6);
    memcpy(a.src_mac, t_src_mac, 6);
    a.encap = encap;
    a.src_ip = T_SRC_IP;
    a.dst_ip = T_DST_IP;
    a.udp_port = T_PORT;
    return a;
}

static struct ebf_frag_hdr test_frag_hdr(void)
{
    struct ebf_frag_hdr h = {
        .source = 3,
        .seq = 0x01020304,
        .event_id = 0x1122334455667788ull,
        .frag_len = 1000,
        .offset = 300,
        .piece_len = T_PIECE,
        .flags = 0,
        .crc = 0xdeadbeef,      /* ignored by ebf_frag_write */
        .tx_ns = 0xa1a2a3a4a5a6a7a8ull,
    };
    return h;
}

/* Write a fragment piece (header + pattern payload) at p; returns its length. */
static size_t put_frag(uint8_t *p, struct ebf_frag_hdr *h)
{
    ebf_pattern_fill(p + EBF_FRAG_HLEN, h->piece_len, h->source, h->event_id, h->offset);
    ebf_frag_write(p, h);
    return EBF_FRAG_HLEN + (size_t)h->piece_len;
}

/* A whole fragment frame: encapsulation + fragment header + piece. */
static size_t build_frag_frame(uint8_t *buf, enum ebf_encap encap, struct ebf_frag_hdr *h)
{
    struct ebf_addr a = test_addr(encap);
    size_t hl = ebf_encap_hlen(encap);
    size_t n = put_frag(buf + hl, h);

    ck_assert_uint_eq(ebf_encap_write(buf, &a, n), hl);
    return hl + n;
}

/* What an SFC's rx path does with a frame that should carry a fragment. */
static enum ebf_reason parse_frag_frame(const uint8_t *buf, size_t len, uint16_t n_sources,
                                        struct ebf_l2l3 *l, struct ebf_frag_hdr *h,
                                        size_t *consumed)
{
    enum ebf_reason r = ebf_parse_l2l3(buf, len, T_PORT, l);

    if (r != EBF_R_OK)
        return r;
    return ebf_frag_parse(buf + l->hlen, l->len, n_sources, 1, h, consumed);
}

static void assert_frag_eq(const struct ebf_frag_hdr *got, const struct ebf_frag_hdr *want)
{
    ck_assert_uint_eq(got->source, want->source);
    ck_assert_uint_eq(got->seq, want->seq);
    ck_assert_uint_eq(got->event_id, want->event_id);
    ck_assert_uint_eq(got->frag_len, want->frag_len);
    ck_assert_uint_eq(got->offset, want->offset);
    ck_assert_uint_eq(got->piece_len, want->piece_len);
    ck_assert_uint_eq(got->flags, want->flags);
    ck_assert_uint_eq(got->crc, want->crc);
    ck_assert_uint_eq(got->tx_ns, want->tx_ns);
}

/* Check the encapsulation bytes of a frame written by ebf_encap_write. */
static void assert_encap_bytes(const uint8_t *f, enum ebf_encap encap, size_t ebf_len)
{
    ck_assert_mem_eq(f, t_dst_mac, 6);
    ck_assert_mem_eq(f + 6, t_src_mac, 6);
    if (encap == EBF_ENCAP_ETH) {
        ck_assert_uint_eq(f[12], 0x88);
        ck_assert_uint_eq(f[13], 0xB5);
        return;
    }
    const uint8_t *ip = f + EBF_ETH_HLEN;
    const uint8_t *udp = ip + EBF_IPV4_HLEN;
    uint32_t sum = 0;

    ck_assert_uint_eq(f[12], 0x08);
    ck_assert_uint_eq(f[13], 0x00);
    ck_assert_uint_eq(ip[0], 0x45);
    ck_assert_uint_eq(ip[1], 0x00);
    ck_assert_uint_eq(rd16(ip + 2), 20 + 8 + ebf_len);
    ck_assert_uint_eq(rd16(ip + 4), 0);
    ck_assert_uint_eq(ip[6], 0x40);          /* DF */
    ck_assert_uint_eq(ip[7], 0x00);
    ck_assert_uint_eq(ip[8], 64);
    ck_assert_uint_eq(ip[9], 17);
    ck_assert_uint_eq(rd32(ip + 12), T_SRC_IP);
    ck_assert_uint_eq(rd32(ip + 16), T_DST_IP);
    for (int i = 0; i < 20; i += 2)          /* a correct header sums to 0xffff */
        sum += rd16(ip + i);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    ck_assert_uint_eq(sum, 0xffff);
    ck_assert_uint_eq(rd16(udp), T_PORT);
    ck_assert_uint_eq(rd16(udp + 2), T_PORT);
    ck_assert_uint_eq(rd16(udp + 4), 8 + ebf_len);
    ck_assert_uint_eq(rd16(udp + 6), 0);
}

/* --- IPv4 checksum ---------------------------------------------------------- */

START_TEST(test_ipv4_cksum_known)
{
    uint8_t h[20] = {
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
        0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
    };

    ck_assert_uint_eq(ebf_ipv4_cksum(h, 20), 0xB861);
    h[10] = 0x12;                            /* the field is taken as zero */
    h[11] = 0x34;
    ck_assert_uint_eq(ebf_ipv4_cksum(h, 20), 0xB861);
    h[10] = 0;
    h[11] = 0;
    ck_assert_uint_eq(ebf_ipv4_cksum(h, 20), 0xB861);
    h[15] = 0x02;                            /* 192.168.0.2: one less */
    ck_assert_uint_eq(ebf_ipv4_cksum(h, 20), 0xB860);
}
END_TEST

/* --- Encapsulation and round trips ---------------------------------------- */

START_TEST(test_encap_headers)
{
    uint8_t f[64];
    struct ebf_addr a;

    ck_assert_uint_eq(ebf_encap_hlen(EBF_ENCAP_ETH), 14);
    ck_assert_uint_eq(ebf_encap_hlen(EBF_ENCAP_UDP), 42);

    a = test_addr(EBF_ENCAP_ETH);
    memset(f, 0xee, sizeof(f));
    ck_assert_uint_eq(ebf_encap_write(f, &a, 140), 14);
    assert_encap_bytes(f, EBF_ENCAP_ETH, 140);
    ck_assert_uint_eq(f[14], 0xee);          /* nothing written past the header */

    a = test_addr(EBF_ENCAP_UDP);
    memset(f, 0xee, sizeof(f));
    ck_assert_uint_eq(ebf_encap_write(f, &a, 140), 42);
    assert_encap_bytes(f, EBF_ENCAP_UDP, 140);
    ck_assert_uint_eq(f[42], 0xee);
    /* 20 + 8 + 140 = 168 = 0x00a8; 8 + 140 = 148 = 0x0094 */
    ck_assert_uint_eq(f[16], 0x00);
    ck_assert_uint_eq(f[17], 0xa8);
    ck_assert_uint_eq(f[38], 0x00);
    ck_assert_uint_eq(f[39], 0x94);
    /* 10.0.0.1 -> 10.0.0.2, ports 50505 = 0xc549 */
    static const uint8_t tail[] = {
        0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02, 0xc5, 0x49, 0xc5, 0x49,
    };
    ck_assert_mem_eq(f + 26, tail, sizeof(tail));
}
END_TEST

/* The fragment header layout byte by byte (big-endian fields). */
START_TEST(test_frag_layout)
{
    uint8_t p[EBF_FRAG_HLEN + 16];
    struct ebf_frag_hdr h = {
        .source = 0x0102,
        .seq = 0x03040506,
        .event_id = 0x0708090a0b0c0d0eull,
        .frag_len = 0x11121314,
        .offset = 0x00000100,
        .piece_len = 16,
        .flags = 0,
        .tx_ns = 0x2122232425262728ull,
    };
    static const uint8_t want[28] = {
        0x01, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
        0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
        0x11, 0x12, 0x13, 0x14, 0x00, 0x00, 0x01, 0x00,
        0x00, 0x10, 0x00, 0x00,
    };
    static const uint8_t want_ts[8] = { 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28 };

    for (int i = 0; i < 16; i++)
        p[EBF_FRAG_HLEN + i] = (uint8_t)(0xc0 + i);
    ebf_frag_write(p, &h);
    ck_assert_mem_eq(p, want, sizeof(want));
    ck_assert_mem_eq(p + 32, want_ts, sizeof(want_ts));
    ck_assert_uint_eq(rd32(p + 28), h.crc);
    ck_assert_uint_eq(h.crc, ref_frag_crc(p, 16));
    for (int i = 0; i < 16; i++)             /* the payload is left alone */
        ck_assert_uint_eq(p[EBF_FRAG_HLEN + i], 0xc0 + i);
}
END_TEST

START_TEST(test_frag_roundtrip)
{
    enum ebf_encap encap = encaps[_i];
    size_t hl = ebf_encap_hlen(encap);
    uint8_t f[FRAME_MAX];
    struct ebf_frag_hdr want = test_frag_hdr(), got;
    struct ebf_l2l3 l;
    size_t n, consumed = 0;

    n = build_frag_frame(f, encap, &want);
    ck_assert_uint_eq(n, hl + EBF_FRAG_HLEN + T_PIECE);
    assert_encap_bytes(f, encap, EBF_FRAG_HLEN + T_PIECE);
    ck_assert_uint_eq(want.crc, ref_frag_crc(f + hl, T_PIECE));

    memset(&got, 0, sizeof(got));
    ck_assert_int_eq(parse_frag_frame(f, n, T_NSRC, &l, &got, &consumed), EBF_R_OK);
    ck_assert_int_eq(l.encap, encap);
    ck_assert_uint_eq(l.hlen, hl);
    ck_assert_uint_eq(l.len, EBF_FRAG_HLEN + T_PIECE);
    ck_assert_uint_eq(l.type, EBF_T_FRAGMENT);
    ck_assert_ptr_eq(l.dst_mac, f);
    ck_assert_ptr_eq(l.src_mac, f + 6);
    assert_frag_eq(&got, &want);
    ck_assert_uint_eq(consumed, EBF_FRAG_HLEN + T_PIECE);
    ck_assert_int_eq(ebf_pattern_check(f + hl + EBF_FRAG_HLEN, T_PIECE, got.source,
                                       got.event_id, got.offset), -1);
    /* n_sources 0 means any source; check_crc 0 skips the CRC */
    ck_assert_int_eq(ebf_frag_parse(f + hl, l.len, 0, 1, &got, &consumed), EBF_R_OK);
    f[n - 1] ^= 1;
    ck_assert_int_eq(ebf_frag_parse(f + hl, l.len, 0, 0, &got, &consumed), EBF_R_OK);
    assert_frag_eq(&got, &want);
}
END_TEST

/* Extreme field values survive: full-width ids, the last byte of a 4 GB
 * fragment, the largest source. */
START_TEST(test_frag_roundtrip_extremes)
{
    uint8_t f[FRAME_MAX];
    struct ebf_frag_hdr want = {
        .source = 0xffff,
        .seq = 0xffffffffu,
        .event_id = 0xffffffffffffffffull,
        .frag_len = 0xffffffffu,
        .offset = 0xffffffffu - 9,
        .piece_len = 9,
        .tx_ns = 0x8000000000000001ull,
    }, got;
    struct ebf_l2l3 l;
    size_t n, consumed = 0;

    n = build_frag_frame(f, EBF_ENCAP_UDP, &want);
    ck_assert_int_eq(parse_frag_frame(f, n, 0, &l, &got, &consumed), EBF_R_OK);
    assert_frag_eq(&got, &want);
    ck_assert_uint_eq(consumed, EBF_FRAG_HLEN + 9);
}
END_TEST

/* Raw Ethernet has no length field and short frames are padded to 60 bytes:
 * the ebfarm lengths bound the content, padding is ignored. */
START_TEST(test_frag_padded)
{
    uint8_t f[64];
    struct ebf_frag_hdr want = test_frag_hdr(), got;
    struct ebf_l2l3 l;
    size_t n, consumed = 0;

    want.piece_len = 2;
    memset(f, 0, sizeof(f));
    n = build_frag_frame(f, EBF_ENCAP_ETH, &want);
    ck_assert_uint_eq(n, 56);
    ck_assert_int_eq(parse_frag_frame(f, 60, T_NSRC, &l, &got, &consumed), EBF_R_OK);
    ck_assert_uint_eq(l.len, 46);
    ck_assert_uint_eq(consumed, EBF_FRAG_HLEN + 2);
    assert_frag_eq(&got, &want);
}
END_TEST

START_TEST(test_vlan)
{
    uint8_t f[FRAME_MAX], t[FRAME_MAX];
    struct ebf_frag_hdr want = test_frag_hdr(), got;
    struct ebf_l2l3 l;
    size_t n, consumed = 0;

    for (size_t e = 0; e < N_ENCAPS; e++) {
        size_t hl = ebf_encap_hlen(encaps[e]);

        n = build_frag_frame(f, encaps[e], &want);
        memcpy(t, f, 12);                    /* insert 81 00 00 05 after the MACs */
        t[12] = 0x81;
        t[13] = 0x00;
        t[14] = 0x00;
        t[15] = 0x05;
        memcpy(t + 16, f + 12, n - 12);
        ck_assert_int_eq(parse_frag_frame(t, n + 4, T_NSRC, &l, &got, &consumed), EBF_R_OK);
        ck_assert_int_eq(l.encap, encaps[e]);
        ck_assert_uint_eq(l.hlen, hl + 4);
        ck_assert_uint_eq(l.len, EBF_FRAG_HLEN + T_PIECE);
        ck_assert_uint_eq(l.type, EBF_T_FRAGMENT);
        assert_frag_eq(&got, &want);
    }
    ck_assert_uint_eq(l.hlen, 46);
    /* raw Ethernet with a tag: 18 bytes */
    n = build_frag_frame(f, EBF_ENCAP_ETH, &want);
    memcpy(t, f, 12);
    memcpy(t + 12, "\x81\x00\x00\x05", 4);
    memcpy(t + 16, f + 12, n - 12);
    ck_assert_int_eq(ebf_parse_l2l3(t, n + 4, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.hlen, 18);
    /* every prefix of the tagged frame, from exact-size heap copies */
    for (size_t len = 0; len < n + 4; len++) {
        uint8_t *b = malloc(len);

        ck_assert(len == 0 || b != NULL);
        if (len)
            memcpy(b, t, len);
        enum ebf_reason r = parse_frag_frame(b, len, T_NSRC, &l, &got, &consumed);
        free(b);
        ck_assert_msg(r == EBF_R_TRUNCATED, "tagged len %zu: %s", len, ebf_reason_name(r));
    }
    /* a tag followed by another EtherType */
    t[16] = 0x86;
    t[17] = 0xdd;
    ck_assert_int_eq(ebf_parse_l2l3(t, n + 4, T_PORT, &l), EBF_R_NOT_EBFARM);
}
END_TEST

/* An event frame: header, then the pieces as received (fragment header + piece). */
START_TEST(test_event_roundtrip)
{
    enum ebf_encap encap = encaps[_i];
    size_t hl = ebf_encap_hlen(encap);
    uint8_t f[FRAME_MAX];
    struct ebf_event_hdr want = {
        .n_sources = 70,
        .sfc_id = 0xbeef,
        .flags = 0,
        .event_id = 0xfedcba9876543210ull,
        .frame_index = 2,
        .frame_count = 5,
        .n_pieces = 2,
        .event_bytes = 0x01020304,
        .present = { ~0ull, (1ull << 6) - 1 },
    }, got;
    struct ebf_frag_hdr fr[2] = { test_frag_hdr(), test_frag_hdr() }, g;
    struct ebf_addr a = test_addr(encap);
    struct ebf_l2l3 l;
    size_t n = hl + EBF_EVENT_HLEN, consumed = 0;

    fr[0].source = 0;
    fr[0].piece_len = 17;
    fr[1].source = 69;
    fr[1].offset = 0;
    fr[1].piece_len = 250;
    ebf_event_write(f + hl, &want);
    for (int i = 0; i < 2; i++)
        n += put_frag(f + n, &fr[i]);
    ck_assert_uint_eq(ebf_encap_write(f, &a, n - hl), hl);
    assert_encap_bytes(f, encap, n - hl);

    ck_assert_int_eq(ebf_parse_l2l3(f, n, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.hlen, hl);
    ck_assert_uint_eq(l.len, n - hl);
    ck_assert_uint_eq(l.type, EBF_T_EVENT);
    memset(&got, 0, sizeof(got));
    ck_assert_int_eq(ebf_event_parse(f + hl, l.len, &got), EBF_R_OK);
    ck_assert_uint_eq(got.n_sources, want.n_sources);
    ck_assert_uint_eq(got.sfc_id, want.sfc_id);
    ck_assert_uint_eq(got.flags, want.flags);
    ck_assert_uint_eq(got.event_id, want.event_id);
    ck_assert_uint_eq(got.frame_index, want.frame_index);
    ck_assert_uint_eq(got.frame_count, want.frame_count);
    ck_assert_uint_eq(got.n_pieces, want.n_pieces);
    ck_assert_uint_eq(got.event_bytes, want.event_bytes);
    ck_assert_uint_eq(got.present[0], want.present[0]);
    ck_assert_uint_eq(got.present[1], want.present[1]);
    ck_assert_uint_eq(ebf_present_count(got.present), 70);

    size_t off = hl + EBF_EVENT_HLEN;
    for (unsigned i = 0; i < got.n_pieces; i++) {
        ck_assert_int_eq(ebf_frag_parse(f + off, n - off, got.n_sources, 1, &g, &consumed),
                         EBF_R_OK);
        assert_frag_eq(&g, &fr[i]);
        ck_assert_uint_eq(consumed, EBF_FRAG_HLEN + fr[i].piece_len);
        ck_assert_int_eq(ebf_pattern_check(f + off + EBF_FRAG_HLEN, g.piece_len, g.source,
                                           g.event_id, g.offset), -1);
        off += consumed;
    }
    ck_assert_uint_eq(off, n);
}
END_TEST

START_TEST(test_event_layout)
{
    uint8_t p[EBF_EVENT_HLEN];
    struct ebf_event_hdr h = {
        .n_sources = 0x0102,
        .sfc_id = 0x0304,
        .flags = EBF_EVF_INCOMPLETE,
        .event_id = 0x0708090a0b0c0d0eull,
        .frame_index = 0x1112,
        .frame_count = 0x1314,
        .n_pieces = 0x1516,
        .event_bytes = 0x1718191a,
        .present = { 0x2122232425262728ull, 0x3132333435363738ull },
    };
    static const uint8_t want[EBF_EVENT_HLEN] = {
        0x01, 0x02, 0x01, 0x02, 0x03, 0x04, 0x00, 0x01,
        0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
        0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x00, 0x00,
        0x17, 0x18, 0x19, 0x1a, 0x00, 0x00, 0x00, 0x00,
        0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
        0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38,
    };

    memset(p, 0xee, sizeof(p));
    ebf_event_write(p, &h);
    ck_assert_mem_eq(p, want, sizeof(want));
}
END_TEST

START_TEST(test_present_bits)
{
    uint64_t p[2] = { 0, 0 };

    ebf_present_set(p, 0);
    ebf_present_set(p, 63);
    ebf_present_set(p, 64);
    ebf_present_set(p, 127);
    ck_assert_uint_eq(p[0], 0x8000000000000001ull);
    ck_assert_uint_eq(p[1], 0x8000000000000001ull);
    ck_assert_uint_eq(ebf_present_count(p), 4);
    ck_assert_int_eq(ebf_present_test(p, 63), 1);
    ck_assert_int_eq(ebf_present_test(p, 62), 0);
    ck_assert_int_eq(ebf_present_test(p, 64), 1);
    ck_assert_int_eq(ebf_present_test(p, 65), 0);
}
END_TEST

static const unsigned credit_n_acks[] = { 0, 1, EBF_MAX_ACKS };

/* Loop index: encapsulation x ack count. */
START_TEST(test_credit_roundtrip)
{
    enum ebf_encap encap = encaps[_i / 3];
    unsigned na = credit_n_acks[_i % 3];
    size_t hl = ebf_encap_hlen(encap);
    uint8_t f[FRAME_MAX];
    struct ebf_credit_hdr want = {
        .node_id = 0x0a0b,
        .credits = (uint16_t)(na + 5),
        .n_acks = (uint16_t)na,
        .epoch = 0xc0c1c2c3,
        .seq = 0xd0d1d2d3,
    }, got;
    struct ebf_ack acks[EBF_MAX_ACKS], gacks[EBF_MAX_ACKS];
    struct ebf_addr a = test_addr(encap);
    struct ebf_l2l3 l;
    size_t n = hl + ebf_credit_len(na);

    for (unsigned i = 0; i < na; i++) {
        acks[i].event_id = ebf_mix64(i) | 1;
        acks[i].decision = (uint8_t)(i & 1);
        acks[i].status = (uint8_t)(i & 0x0f);
    }
    memset(f, 0xee, sizeof(f));
    ebf_credit_write(f + hl, &want, acks);
    ck_assert_uint_eq(f[n], 0xee);           /* exactly ebf_credit_len bytes */
    ck_assert_uint_eq(ebf_encap_write(f, &a, n - hl), hl);
    assert_encap_bytes(f, encap, n - hl);

    ck_assert_int_eq(ebf_parse_l2l3(f, n, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.hlen, hl);
    ck_assert_uint_eq(l.len, 16 + 12 * na);
    ck_assert_uint_eq(l.type, EBF_T_CREDIT);
    memset(&got, 0, sizeof(got));
    memset(gacks, 0, sizeof(gacks));
    ck_assert_int_eq(ebf_credit_parse(f + hl, l.len, &got, gacks), EBF_R_OK);
    ck_assert_uint_eq(got.node_id, want.node_id);
    ck_assert_uint_eq(got.credits, want.credits);
    ck_assert_uint_eq(got.n_acks, na);
    ck_assert_uint_eq(got.epoch, want.epoch);
    ck_assert_uint_eq(got.seq, want.seq);
    for (unsigned i = 0; i < na; i++) {
        const uint8_t *r = f + hl + EBF_CREDIT_HLEN + (size_t)i * EBF_ACK_LEN;

        ck_assert_uint_eq(gacks[i].event_id, acks[i].event_id);
        ck_assert_uint_eq(gacks[i].decision, acks[i].decision);
        ck_assert_uint_eq(gacks[i].status, acks[i].status);
        ck_assert_uint_eq(rd64(r), acks[i].event_id);
        ck_assert_uint_eq(r[8], acks[i].decision);
        ck_assert_uint_eq(r[9], acks[i].status);
        ck_assert_uint_eq(rd16(r + 10), 0);
    }
}
END_TEST

START_TEST(test_credit_layout)
{
    uint8_t p[EBF_CREDIT_HLEN + EBF_ACK_LEN];
    struct ebf_credit_hdr h = {
        .node_id = 0x0102,
        .credits = 0x0304,
        .n_acks = 1,
        .epoch = 0x05060708,
        .seq = 0x090a0b0c,
    };
    struct ebf_ack ack = {
        .event_id = 0x1112131415161718ull,
        .decision = EBF_DEC_ACCEPT,
        .status = EBF_ACKS_BAD_PATTERN | EBF_ACKS_BAD_EVENT_ID,
    };
    static const uint8_t want[] = {
        0x01, 0x03, 0x01, 0x02, 0x03, 0x04, 0x00, 0x01,
        0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
        0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
        0x01, 0x0a, 0x00, 0x00,
    };

    memset(p, 0xee, sizeof(p));
    ebf_credit_write(p, &h, &ack);
    ck_assert_mem_eq(p, want, sizeof(want));
}
END_TEST

/* A credit frame of 58 bytes over UDP is padded to 60: the UDP length, not
 * the frame length, tells where the ebfarm bytes end. */
START_TEST(test_udp_padded)
{
    uint8_t f[64];
    struct ebf_credit_hdr h = { .node_id = 7, .credits = 0, .n_acks = 0 }, got;
    struct ebf_ack acks[EBF_MAX_ACKS];
    struct ebf_addr a = test_addr(EBF_ENCAP_UDP);
    struct ebf_l2l3 l;

    memset(f, 0, sizeof(f));
    ebf_credit_write(f + 42, &h, NULL);
    ebf_encap_write(f, &a, EBF_CREDIT_HLEN);
    ck_assert_int_eq(ebf_parse_l2l3(f, 60, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.hlen, 42);
    ck_assert_uint_eq(l.len, 16);
    ck_assert_int_eq(ebf_credit_parse(f + l.hlen, l.len, &got, acks), EBF_R_OK);
    ck_assert_uint_eq(got.node_id, 7);
    ck_assert_uint_eq(got.credits, 0);       /* a heartbeat */
    ck_assert_uint_eq(got.n_acks, 0);
}
END_TEST

/* --- Truncation ------------------------------------------------------------ */

/* Parse every prefix of a valid frame from a heap copy of exactly that length. */
START_TEST(test_frag_truncated)
{
    enum ebf_encap encap = encaps[_i];
    uint8_t f[FRAME_MAX];
    struct ebf_frag_hdr want = test_frag_hdr(), got;
    struct ebf_l2l3 l;
    size_t n = build_frag_frame(f, encap, &want), consumed;
    size_t hl = ebf_encap_hlen(encap);

    for (size_t len = 0; len < n; len++) {
        uint8_t *b = malloc(len);

        ck_assert(len == 0 || b != NULL);
        if (len)
            memcpy(b, f, len);
        consumed = 12345;
        enum ebf_reason r = parse_frag_frame(b, len, T_NSRC, &l, &got, &consumed);
        free(b);
        ck_assert_msg(r == EBF_R_TRUNCATED, "encap %d len %zu: %s", (int)encap, len,
                      ebf_reason_name(r));
        ck_assert_uint_eq(consumed, 12345);
    }
    /* the bare fragment (no encapsulation) too */
    for (size_t len = 0; len < n - hl; len++) {
        uint8_t *b = malloc(len);

        ck_assert(len == 0 || b != NULL);
        if (len)
            memcpy(b, f + hl, len);
        ck_assert_msg(ebf_frag_parse(b, len, T_NSRC, 1, &got, &consumed) == EBF_R_TRUNCATED,
                      "bare len %zu", len);
        free(b);
    }
    ck_assert_int_eq(parse_frag_frame(f, n, T_NSRC, &l, &got, &consumed), EBF_R_OK);
}
END_TEST

START_TEST(test_event_truncated)
{
    uint8_t f[EBF_EVENT_HLEN];
    struct ebf_event_hdr h = {
        .n_sources = 1, .frame_count = 1, .present = { 1, 0 },
    }, got;

    ebf_event_write(f, &h);
    for (size_t len = 0; len < EBF_EVENT_HLEN; len++) {
        uint8_t *b = malloc(len);

        ck_assert(len == 0 || b != NULL);
        if (len)
            memcpy(b, f, len);
        ck_assert_msg(ebf_event_parse(b, len, &got) == EBF_R_TRUNCATED, "len %zu", len);
        free(b);
    }
    ck_assert_int_eq(ebf_event_parse(f, sizeof(f), &got), EBF_R_OK);
}
END_TEST

START_TEST(test_credit_truncated)
{
    unsigned na = credit_n_acks[_i];
    size_t n = ebf_credit_len(na);
    uint8_t f[EBF_CREDIT_HLEN + EBF_MAX_ACKS * EBF_ACK_LEN];
    struct ebf_credit_hdr h = { .node_id = 1, .credits = 2, .n_acks = (uint16_t)na }, got;
    struct ebf_ack acks[EBF_MAX_ACKS];

    memset(acks, 0, sizeof(acks));
    ebf_credit_write(f, &h, acks);
    for (size_t len = 0; len < n; len++) {
        uint8_t *b = malloc(len);

        ck_assert(len == 0 || b != NULL);
        if (len)
            memcpy(b, f, len);
        ck_assert_msg(ebf_credit_parse(b, len, &got, acks) == EBF_R_TRUNCATED,
                      "n_acks %u len %zu", na, len);
        free(b);
    }
    ck_assert_int_eq(ebf_credit_parse(f, n, &got, acks), EBF_R_OK);
}
END_TEST

/* --- Malformed frames: tables of mutations ---------------------------------- */

enum mut_op { M_END = 0, M_SET8, M_XOR8, M_SET16, M_SET32 };

/* Where a mutation offset counts from. */
enum mut_at { AT_FRAME, AT_IP, AT_UDP, AT_EBF, AT_PAYLOAD };

struct mut {
    enum mut_op op;
    enum mut_at at;
    unsigned off;
    uint32_t val;
};

#define FIX_IP  0x1     /* recompute the IPv4 header checksum afterwards */
#define FIX_CRC 0x2     /* recompute the fragment CRC afterwards */

struct bad_frag {
    const char *name;
    enum ebf_encap encap;
    struct mut m[3];
    unsigned fix;
    enum ebf_reason want;
};

static const struct bad_frag bad_frags[] = {
    { "valid eth", EBF_ENCAP_ETH, { { M_END, 0, 0, 0 } }, 0, EBF_R_OK },
    { "valid udp", EBF_ENCAP_UDP, { { M_END, 0, 0, 0 } }, 0, EBF_R_OK },
    /* version and type */
    { "version 0", EBF_ENCAP_ETH, { { M_SET8, AT_EBF, 0, 0 } }, FIX_CRC, EBF_R_BAD_VERSION },
    { "version 2", EBF_ENCAP_ETH, { { M_SET8, AT_EBF, 0, 2 } }, FIX_CRC, EBF_R_BAD_VERSION },
    { "version 2 udp", EBF_ENCAP_UDP, { { M_SET8, AT_EBF, 0, 2 } }, FIX_CRC, EBF_R_BAD_VERSION },
    { "type 0", EBF_ENCAP_ETH, { { M_SET8, AT_EBF, 1, 0 } }, FIX_CRC, EBF_R_UNKNOWN_TYPE },
    { "type 9", EBF_ENCAP_ETH, { { M_SET8, AT_EBF, 1, 9 } }, FIX_CRC, EBF_R_UNKNOWN_TYPE },
    { "type 5", EBF_ENCAP_UDP, { { M_SET8, AT_EBF, 1, 5 } }, FIX_CRC, EBF_R_UNKNOWN_TYPE },
    { "type throttle", EBF_ENCAP_UDP, { { M_SET8, AT_EBF, 1, EBF_T_THROTTLE } }, FIX_CRC,
      EBF_R_BAD_FIELD },
    { "type 255", EBF_ENCAP_UDP, { { M_SET8, AT_EBF, 1, 255 } }, FIX_CRC, EBF_R_UNKNOWN_TYPE },
    /* a known type where a fragment is expected */
    { "type credit", EBF_ENCAP_ETH, { { M_SET8, AT_EBF, 1, EBF_T_CREDIT } }, FIX_CRC,
      EBF_R_BAD_FIELD },
    /* lengths: the test piece is 100 bytes at offset 300 of a 1000-byte fragment */
    { "piece_len 0", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 24, 0 } }, FIX_CRC, EBF_R_BAD_LENGTH },
    { "frag_len 399", EBF_ENCAP_ETH, { { M_SET32, AT_EBF, 16, 399 } }, FIX_CRC,
      EBF_R_BAD_LENGTH },
    { "frag_len 400", EBF_ENCAP_ETH, { { M_SET32, AT_EBF, 16, 400 } }, FIX_CRC, EBF_R_OK },
    { "frag_len 0", EBF_ENCAP_UDP, { { M_SET32, AT_EBF, 16, 0 } }, FIX_CRC, EBF_R_BAD_LENGTH },
    { "offset 901", EBF_ENCAP_ETH, { { M_SET32, AT_EBF, 20, 901 } }, FIX_CRC,
      EBF_R_BAD_LENGTH },
    { "offset 900", EBF_ENCAP_ETH, { { M_SET32, AT_EBF, 20, 900 } }, FIX_CRC, EBF_R_OK },
    { "offset wraps", EBF_ENCAP_ETH,
      { { M_SET32, AT_EBF, 20, 0xffffffffu }, { M_SET32, AT_EBF, 16, 0xffffffffu } }, FIX_CRC,
      EBF_R_BAD_LENGTH },
    { "piece_len 101", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 24, 101 } }, 0, EBF_R_TRUNCATED },
    { "piece_len 99", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 24, 99 } }, FIX_CRC, EBF_R_OK },
    /* flags: EBF_FRAGF_PREBUILT and EBF_FRAGF_REPLAY are known, the rest reserved */
    { "flags 0x0001", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 26, EBF_FRAGF_PREBUILT } }, FIX_CRC,
      EBF_R_OK },
    { "flags 0x0002", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 26, EBF_FRAGF_REPLAY } }, FIX_CRC,
      EBF_R_OK },
    { "flags 0x0003", EBF_ENCAP_UDP, { { M_SET16, AT_EBF, 26, 0x0003 } }, FIX_CRC, EBF_R_OK },
    { "flags 0x0004", EBF_ENCAP_UDP, { { M_SET16, AT_EBF, 26, 0x0004 } }, FIX_CRC,
      EBF_R_BAD_FIELD },
    { "flags 0x8000", EBF_ENCAP_UDP, { { M_SET16, AT_EBF, 26, 0x8000 } }, FIX_CRC,
      EBF_R_BAD_FIELD },
    /* source against n_sources (T_NSRC = 4) */
    { "source 4", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 2, T_NSRC } }, FIX_CRC,
      EBF_R_BAD_SOURCE },
    { "source 65535", EBF_ENCAP_UDP, { { M_SET16, AT_EBF, 2, 0xffff } }, FIX_CRC,
      EBF_R_BAD_SOURCE },
    { "source 0", EBF_ENCAP_ETH, { { M_SET16, AT_EBF, 2, 0 } }, FIX_CRC, EBF_R_OK },
    /* CRC32C */
    { "payload bit", EBF_ENCAP_ETH, { { M_XOR8, AT_PAYLOAD, 37, 0x10 } }, 0,
      EBF_R_BAD_CHECKSUM },
    { "last payload bit", EBF_ENCAP_UDP, { { M_XOR8, AT_PAYLOAD, T_PIECE - 1, 0x80 } }, 0,
      EBF_R_BAD_CHECKSUM },
    { "seq bit", EBF_ENCAP_ETH, { { M_XOR8, AT_EBF, 5, 0x01 } }, 0, EBF_R_BAD_CHECKSUM },
    { "event_id bit", EBF_ENCAP_UDP, { { M_XOR8, AT_EBF, 15, 0x04 } }, 0,
      EBF_R_BAD_CHECKSUM },
    { "tx_ns bit", EBF_ENCAP_ETH, { { M_XOR8, AT_EBF, 39, 0x01 } }, 0, EBF_R_BAD_CHECKSUM },
    { "crc bit", EBF_ENCAP_ETH, { { M_XOR8, AT_EBF, 28, 0x80 } }, 0, EBF_R_BAD_CHECKSUM },
    { "source bit", EBF_ENCAP_ETH, { { M_XOR8, AT_EBF, 3, 0x01 } }, 0, EBF_R_BAD_CHECKSUM },
    /* Ethernet */
    { "ethertype arp", EBF_ENCAP_ETH, { { M_SET16, AT_FRAME, 12, 0x0806 } }, 0,
      EBF_R_NOT_EBFARM },
    { "ethertype ipv6", EBF_ENCAP_UDP, { { M_SET16, AT_FRAME, 12, 0x86dd } }, 0,
      EBF_R_NOT_EBFARM },
    { "ethertype 88b6", EBF_ENCAP_ETH, { { M_SET16, AT_FRAME, 12, 0x88b6 } }, 0,
      EBF_R_NOT_EBFARM },
    /* IPv4 */
    { "udp dst port", EBF_ENCAP_UDP, { { M_SET16, AT_UDP, 2, T_PORT + 1 } }, 0,
      EBF_R_NOT_EBFARM },
    { "udp src port", EBF_ENCAP_UDP, { { M_SET16, AT_UDP, 0, 12345 } }, 0, EBF_R_OK },
    { "ip proto tcp", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 9, 6 } }, FIX_IP, EBF_R_NOT_EBFARM },
    { "ip proto icmp", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 9, 1 } }, FIX_IP,
      EBF_R_NOT_EBFARM },
    { "ip MF", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 6, 0x6000 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip frag offset", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 6, 0x0001 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip no DF", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 6, 0 } }, FIX_IP, EBF_R_OK },
    { "ip ihl 4", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 0, 0x44 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip ihl 0", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 0, 0x40 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip version 6", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 0, 0x65 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip tot < ihl", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 2, 19 } }, FIX_IP,
      EBF_R_BAD_IP_HEADER },
    { "ip tot > frame", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 2, 20 + 8 + 140 + 1 } }, FIX_IP,
      EBF_R_TRUNCATED },
    { "ip tot < udp hdr", EBF_ENCAP_UDP, { { M_SET16, AT_IP, 2, 27 } }, FIX_IP,
      EBF_R_TRUNCATED },
    { "ip checksum", EBF_ENCAP_UDP, { { M_XOR8, AT_IP, 11, 0x01 } }, 0,
      EBF_R_BAD_IP_CHECKSUM },
    { "ip src changed", EBF_ENCAP_UDP, { { M_XOR8, AT_IP, 15, 0x02 } }, 0,
      EBF_R_BAD_IP_CHECKSUM },
    { "ip ttl changed", EBF_ENCAP_UDP, { { M_SET8, AT_IP, 8, 1 } }, 0, EBF_R_BAD_IP_CHECKSUM },
    { "udp len + 1", EBF_ENCAP_UDP, { { M_SET16, AT_UDP, 4, 8 + 140 + 1 } }, 0,
      EBF_R_BAD_UDP_LENGTH },
    { "udp len - 1", EBF_ENCAP_UDP, { { M_SET16, AT_UDP, 4, 8 + 140 - 1 } }, 0,
      EBF_R_BAD_UDP_LENGTH },
    { "udp len 0", EBF_ENCAP_UDP, { { M_SET16, AT_UDP, 4, 0 } }, 0, EBF_R_BAD_UDP_LENGTH },
    /* IP and UDP shortened together: the fragment piece no longer fits */
    { "ip+udp short", EBF_ENCAP_UDP,
      { { M_SET16, AT_IP, 2, 20 + 8 + 139 }, { M_SET16, AT_UDP, 4, 8 + 139 } }, FIX_IP,
      EBF_R_TRUNCATED },
    { "ip+udp 1 byte", EBF_ENCAP_UDP,
      { { M_SET16, AT_IP, 2, 20 + 8 + 1 }, { M_SET16, AT_UDP, 4, 8 + 1 } }, FIX_IP,
      EBF_R_TRUNCATED },
};

#define N_BAD_FRAGS ((int)(sizeof(bad_frags) / sizeof(bad_frags[0])))

static void apply_mut(uint8_t *base, const struct mut *m)
{
    uint8_t *p = base + m->off;

    switch (m->op) {
    case M_SET8:
        *p = (uint8_t)m->val;
        break;
    case M_XOR8:
        *p ^= (uint8_t)m->val;
        break;
    case M_SET16:
        wr16(p, (uint16_t)m->val);
        break;
    case M_SET32:
        wr32(p, m->val);
        break;
    case M_END:
        break;
    }
}

START_TEST(test_frag_malformed)
{
    const struct bad_frag *t = &bad_frags[_i];
    size_t hl = ebf_encap_hlen(t->encap);
    uint8_t f[FRAME_MAX];
    struct ebf_frag_hdr h = test_frag_hdr(), got;
    struct ebf_l2l3 l;
    size_t n = build_frag_frame(f, t->encap, &h), consumed;
    uint8_t *at[] = {
        [AT_FRAME] = f,
        [AT_IP] = f + EBF_ETH_HLEN,
        [AT_UDP] = f + EBF_ETH_HLEN + EBF_IPV4_HLEN,
        [AT_EBF] = f + hl,
        [AT_PAYLOAD] = f + hl + EBF_FRAG_HLEN,
    };

    ck_assert_uint_eq(n, hl + EBF_FRAG_HLEN + T_PIECE);
    for (int k = 0; k < 3 && t->m[k].op != M_END; k++)
        apply_mut(at[t->m[k].at], &t->m[k]);
    if (t->fix & FIX_IP) {
        wr16(f + EBF_ETH_HLEN + 10, 0);
        wr16(f + EBF_ETH_HLEN + 10, ebf_ipv4_cksum(f + EBF_ETH_HLEN, EBF_IPV4_HLEN));
    }
    if (t->fix & FIX_CRC) {
        size_t pl = rd16(f + hl + 24);
        wr32(f + hl + 28, ref_frag_crc(f + hl, pl <= T_PIECE ? pl : T_PIECE));
    }

    /* an exact-size heap copy, so a read past the frame is caught by ASan/valgrind */
    uint8_t *b = malloc(n);
    ck_assert_ptr_nonnull(b);
    memcpy(b, f, n);
    enum ebf_reason r = parse_frag_frame(b, n, T_NSRC, &l, &got, &consumed);
    free(b);
    ck_assert_msg(r == t->want, "%s: got %s, want %s", t->name, ebf_reason_name(r),
                  ebf_reason_name(t->want));
}
END_TEST

/* Event header mutations, applied to a valid header of 70 sources, all present. */
struct bad_event {
    const char *name;
    struct mut m[3];
    enum ebf_reason want;
};

static const struct bad_event bad_events[] = {
    { "valid", { { M_END, 0, 0, 0 } }, EBF_R_OK },
    { "version 0", { { M_SET8, AT_EBF, 0, 0 } }, EBF_R_BAD_VERSION },
    { "version 2", { { M_SET8, AT_EBF, 0, 2 } }, EBF_R_BAD_VERSION },
    { "type 0", { { M_SET8, AT_EBF, 1, 0 } }, EBF_R_UNKNOWN_TYPE },
    { "type 9", { { M_SET8, AT_EBF, 1, 9 } }, EBF_R_UNKNOWN_TYPE },
    { "type fragment", { { M_SET8, AT_EBF, 1, EBF_T_FRAGMENT } }, EBF_R_BAD_FIELD },
    { "n_sources 0", { { M_SET16, AT_EBF, 2, 0 } }, EBF_R_BAD_FIELD },
    { "n_sources 129", { { M_SET16, AT_EBF, 2, EBF_MAX_SOURCES + 1 } }, EBF_R_BAD_FIELD },
    { "n_sources 65535", { { M_SET16, AT_EBF, 2, 0xffff } }, EBF_R_BAD_FIELD },
    { "n_sources 128 all present",
      { { M_SET16, AT_EBF, 2, 128 }, { M_SET32, AT_EBF, 40, 0xffffffffu },
        { M_SET32, AT_EBF, 44, 0xffffffffu } }, EBF_R_OK },
    { "frame_index == count", { { M_SET16, AT_EBF, 16, 2 } }, EBF_R_BAD_FIELD },
    { "frame_index > count", { { M_SET16, AT_EBF, 16, 0xffff } }, EBF_R_BAD_FIELD },
    { "frame_index last", { { M_SET16, AT_EBF, 16, 1 } }, EBF_R_OK },
    { "frame_count 0", { { M_SET16, AT_EBF, 18, 0 }, { M_SET16, AT_EBF, 16, 0 } },
      EBF_R_BAD_FIELD },
    { "flag 0x0004", { { M_SET16, AT_EBF, 6, 0x0004 } }, EBF_R_BAD_FIELD },
    { "flag redispatched", { { M_SET16, AT_EBF, 6, EBF_EVF_REDISPATCHED } }, EBF_R_OK },
    { "flag 0x8001", { { M_SET16, AT_EBF, 6, 0x8001 } }, EBF_R_BAD_FIELD },
    { "flag incomplete, all present", { { M_SET16, AT_EBF, 6, EBF_EVF_INCOMPLETE } },
      EBF_R_OK },
    { "reserved 22", { { M_SET8, AT_EBF, 23, 1 } }, EBF_R_BAD_FIELD },
    { "reserved 28", { { M_SET8, AT_EBF, 28, 0x80 } }, EBF_R_BAD_FIELD },
    /* present bits: source s is bit s & 63 of present[s >> 6] */
    { "present bit 70", { { M_XOR8, AT_EBF, 47, 0x40 } }, EBF_R_BAD_SOURCE },
    { "present bit 127", { { M_XOR8, AT_EBF, 40, 0x80 } }, EBF_R_BAD_SOURCE },
    { "present bit 64 of 64",
      { { M_SET16, AT_EBF, 2, 64 }, { M_SET16, AT_EBF, 6, EBF_EVF_INCOMPLETE } },
      EBF_R_BAD_SOURCE },
    { "present bit 127 incomplete",
      { { M_XOR8, AT_EBF, 40, 0x80 }, { M_SET16, AT_EBF, 6, EBF_EVF_INCOMPLETE } },
      EBF_R_BAD_SOURCE },
    { "complete, source 0 missing", { { M_XOR8, AT_EBF, 39, 0x01 } }, EBF_R_BAD_FIELD },
    { "complete, source 69 missing", { { M_XOR8, AT_EBF, 47, 0x20 } }, EBF_R_BAD_FIELD },
    { "complete, none present",
      { { M_SET32, AT_EBF, 32, 0 }, { M_SET32, AT_EBF, 36, 0 }, { M_SET32, AT_EBF, 44, 0 } },
      EBF_R_BAD_FIELD },
    { "incomplete, source 0 missing",
      { { M_XOR8, AT_EBF, 39, 0x01 }, { M_SET16, AT_EBF, 6, EBF_EVF_INCOMPLETE } }, EBF_R_OK },
};

#define N_BAD_EVENTS ((int)(sizeof(bad_events) / sizeof(bad_events[0])))

START_TEST(test_event_malformed)
{
    const struct bad_event *t = &bad_events[_i];
    struct ebf_event_hdr h = {
        .n_sources = 70,
        .sfc_id = 1,
        .event_id = 42,
        .frame_index = 0,
        .frame_count = 2,
        .n_pieces = 70,
        .event_bytes = 7000,
        .present = { ~0ull, (1ull << 6) - 1 },
    }, got;
    uint8_t *b = malloc(EBF_EVENT_HLEN);

    ck_assert_ptr_nonnull(b);
    ebf_event_write(b, &h);
    for (int k = 0; k < 3 && t->m[k].op != M_END; k++)
        apply_mut(b, &t->m[k]);
    enum ebf_reason r = ebf_event_parse(b, EBF_EVENT_HLEN, &got);
    free(b);
    ck_assert_msg(r == t->want, "%s: got %s, want %s", t->name, ebf_reason_name(r),
                  ebf_reason_name(t->want));
}
END_TEST

/* Credit frame mutations, applied to a valid frame with 2 acks (40 bytes). */
static const struct bad_event bad_credits[] = {
    { "valid", { { M_END, 0, 0, 0 } }, EBF_R_OK },
    { "version 2", { { M_SET8, AT_EBF, 0, 2 } }, EBF_R_BAD_VERSION },
    { "type 0", { { M_SET8, AT_EBF, 1, 0 } }, EBF_R_UNKNOWN_TYPE },
    { "type 9", { { M_SET8, AT_EBF, 1, 9 } }, EBF_R_UNKNOWN_TYPE },
    { "type event", { { M_SET8, AT_EBF, 1, EBF_T_EVENT } }, EBF_R_BAD_FIELD },
    { "n_acks 65", { { M_SET16, AT_EBF, 6, EBF_MAX_ACKS + 1 } }, EBF_R_BAD_LENGTH },
    { "n_acks 65535", { { M_SET16, AT_EBF, 6, 0xffff } }, EBF_R_BAD_LENGTH },
    { "n_acks 3 of 2", { { M_SET16, AT_EBF, 6, 3 } }, EBF_R_TRUNCATED },
    { "n_acks 64 of 2", { { M_SET16, AT_EBF, 6, EBF_MAX_ACKS } }, EBF_R_TRUNCATED },
    { "n_acks 1 of 2", { { M_SET16, AT_EBF, 6, 1 } }, EBF_R_OK },
    { "decision 2", { { M_SET8, AT_EBF, 16 + 8, 2 } }, EBF_R_BAD_FIELD },
    { "decision 255, ack 1", { { M_SET8, AT_EBF, 28 + 8, 255 } }, EBF_R_BAD_FIELD },
    { "ack reserved", { { M_SET8, AT_EBF, 28 + 11, 1 } }, EBF_R_BAD_FIELD },
    { "status all bits", { { M_SET8, AT_EBF, 16 + 9, 0x0f } }, EBF_R_OK },
    { "credits 65535", { { M_SET16, AT_EBF, 4, 0xffff } }, EBF_R_OK },
};

#define N_BAD_CREDITS ((int)(sizeof(bad_credits) / sizeof(bad_credits[0])))

START_TEST(test_credit_malformed)
{
    const struct bad_event *t = &bad_credits[_i];
    struct ebf_credit_hdr h = { .node_id = 3, .credits = 2, .n_acks = 2, .epoch = 1 }, got;
    struct ebf_ack acks[EBF_MAX_ACKS] = {
        { .event_id = 10, .decision = EBF_DEC_ACCEPT, .status = 0 },
        { .event_id = 11, .decision = EBF_DEC_REJECT, .status = EBF_ACKS_BAD_CRC },
    };
    size_t n = ebf_credit_len(2);
    uint8_t *b = malloc(n);

    ck_assert_ptr_nonnull(b);
    ebf_credit_write(b, &h, acks);
    for (int k = 0; k < 3 && t->m[k].op != M_END; k++)
        apply_mut(b, &t->m[k]);
    enum ebf_reason r = ebf_credit_parse(b, n, &got, acks);
    free(b);
    ck_assert_msg(r == t->want, "%s: got %s, want %s", t->name, ebf_reason_name(r),
                  ebf_reason_name(t->want));
}
END_TEST

/* Short Ethernet and IPv4 headers, short ebfarm headers after them, and the
 * version and type bytes as ebf_parse_l2l3 sees them. */
START_TEST(test_l2l3_edges)
{
    uint8_t f[64];
    struct ebf_l2l3 l;
    struct ebf_addr a = test_addr(EBF_ENCAP_ETH);

    memset(f, 0, sizeof(f));
    ebf_encap_write(f, &a, 1);
    f[14] = EBF_PROTO_VERSION;
    f[15] = EBF_T_FRAGMENT;
    ck_assert_int_eq(ebf_parse_l2l3(f, 14, T_PORT, &l), EBF_R_TRUNCATED);
    ck_assert_int_eq(ebf_parse_l2l3(f, 15, T_PORT, &l), EBF_R_TRUNCATED);
    ck_assert_int_eq(ebf_parse_l2l3(f, 16, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.len, 2);

    a = test_addr(EBF_ENCAP_UDP);
    ebf_encap_write(f, &a, 1);               /* a 1-byte UDP payload */
    f[42] = EBF_PROTO_VERSION;
    f[43] = EBF_T_FRAGMENT;
    ck_assert_int_eq(ebf_parse_l2l3(f, 60, T_PORT, &l), EBF_R_TRUNCATED);
    ebf_encap_write(f, &a, 2);
    ck_assert_int_eq(ebf_parse_l2l3(f, 60, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.len, 2);
    ck_assert_uint_eq(l.type, EBF_T_FRAGMENT);

    /* IPv4 options (IHL 6) are skipped: the ebfarm header follows the UDP header */
    struct ebf_frag_hdr h = test_frag_hdr(), got;
    uint8_t g[FRAME_MAX], o[FRAME_MAX];
    size_t n = build_frag_frame(g, EBF_ENCAP_UDP, &h), consumed;

    memcpy(o, g, 34);
    memset(o + 34, 0x01, 4);                 /* four NOP options */
    memcpy(o + 38, g + 34, n - 34);
    o[14] = 0x46;
    wr16(o + 16, (uint16_t)(rd16(o + 16) + 4));
    wr16(o + 24, 0);
    wr16(o + 24, ebf_ipv4_cksum(o + 14, 24));
    ck_assert_int_eq(parse_frag_frame(o, n + 4, T_NSRC, &l, &got, &consumed), EBF_R_OK);
    ck_assert_uint_eq(l.hlen, 46);
    assert_frag_eq(&got, &h);
    ck_assert_int_eq(parse_frag_frame(o, 14 + 23, T_NSRC, &l, &got, &consumed),
                     EBF_R_TRUNCATED);

    /* the version and type bytes are checked here already */
    static const struct { uint8_t v, t; enum ebf_reason want; } vt[] = {
        { 1, 1, EBF_R_OK }, { 1, 2, EBF_R_OK }, { 1, 3, EBF_R_OK },
        { 1, 4, EBF_R_OK }, { 1, 0, EBF_R_UNKNOWN_TYPE }, { 1, 5, EBF_R_UNKNOWN_TYPE },
        { 1, 9, EBF_R_UNKNOWN_TYPE }, { 1, 255, EBF_R_UNKNOWN_TYPE },
        { 0, 1, EBF_R_BAD_VERSION }, { 2, 1, EBF_R_BAD_VERSION }, { 2, 0, EBF_R_BAD_VERSION },
    };
    for (size_t i = 0; i < sizeof(vt) / sizeof(vt[0]); i++) {
        f[42] = vt[i].v;
        f[43] = vt[i].t;
        ck_assert_int_eq(ebf_parse_l2l3(f, 60, T_PORT, &l), vt[i].want);
        if (vt[i].want == EBF_R_OK)
            ck_assert_uint_eq(l.type, vt[i].t);
    }
}
END_TEST

/*
 * Found by tests/fuzz: a raw frame with more than 65535 ebfarm bytes was
 * accepted with its length wrapped to 16 bits (65538 bytes became 2). Raw
 * Ethernet takes every byte after the EtherType, so such a frame is now
 * refused as bad_length; UDP frames are bounded by their own lengths, so
 * the same padding after one changes nothing.
 */
START_TEST(test_l2l3_oversize)
{
    static const size_t tags[] = { 0, 4 };
    size_t big = EBF_ETH_HLEN + 4 + UINT16_MAX + 1;
    uint8_t *f = calloc(1, big);
    struct ebf_l2l3 l;

    ck_assert_ptr_nonnull(f);
    for (size_t i = 0; i < 2; i++) {
        struct ebf_addr a = test_addr(EBF_ENCAP_ETH);
        size_t hl = EBF_ETH_HLEN + tags[i];

        memset(f, 0, big);
        ebf_encap_write(f, &a, 2);
        if (tags[i]) {
            wr16(f + 12, 0x8100);
            wr16(f + 16, EBF_ETHERTYPE);
        }
        f[hl] = EBF_PROTO_VERSION;
        f[hl + 1] = EBF_T_CREDIT;
        ck_assert_int_eq(ebf_parse_l2l3(f, hl + UINT16_MAX, T_PORT, &l), EBF_R_OK);
        ck_assert_uint_eq(l.hlen, hl);
        ck_assert_uint_eq(l.len, UINT16_MAX);
        ck_assert_int_eq(ebf_parse_l2l3(f, hl + UINT16_MAX + 1, T_PORT, &l), EBF_R_BAD_LENGTH);
    }

    /* a UDP frame keeps its own length however long the padding */
    struct ebf_frag_hdr h = test_frag_hdr(), got;
    size_t n, consumed;

    memset(f, 0, big);
    n = build_frag_frame(f, EBF_ENCAP_UDP, &h);
    ck_assert_int_eq(parse_frag_frame(f, big, T_NSRC, &l, &got, &consumed), EBF_R_OK);
    ck_assert_uint_eq(l.len, n - ebf_encap_hlen(EBF_ENCAP_UDP));
    assert_frag_eq(&got, &h);
    free(f);
}
END_TEST

/* --- Throttle frames ------------------------------------------------------- */

/* Throttle frames: the bytes, the encapsulation's type byte, and what the
 * parser refuses. (The readout's use of them: test-ro_throttle.c.) */
START_TEST(test_throttle_frame)
{
    uint8_t f[64];
    struct ebf_throttle_hdr h = {.sfc_id = 3, .on = 1, .fill = 750, .seq = 0x01020304}, g;
    struct ebf_addr a = test_addr(EBF_ENCAP_ETH);
    struct ebf_l2l3 l;
    static const uint8_t want[EBF_THROTTLE_LEN] = {
        0x01, 0x04, 0x00, 0x03, 0x01, 0x00, 0x02, 0xee,
        0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00,
    };

    memset(f, 0, sizeof(f));
    size_t hl = ebf_encap_write(f, &a, EBF_THROTTLE_LEN);
    ebf_throttle_write(f + hl, &h);
    ck_assert_int_eq(memcmp(f + hl, want, sizeof(want)), 0);
    ck_assert_int_eq(ebf_parse_l2l3(f, 60, T_PORT, &l), EBF_R_OK);
    ck_assert_uint_eq(l.type, EBF_T_THROTTLE);
    ck_assert_uint_eq(l.hlen, EBF_ETH_HLEN);
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_OK);
    ck_assert_uint_eq(g.sfc_id, 3);
    ck_assert_uint_eq(g.on, 1);
    ck_assert_uint_eq(g.fill, 750);
    ck_assert_uint_eq(g.seq, 0x01020304);
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN - 1, &g), EBF_R_TRUNCATED);
    f[hl + 4] = 2;
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_BAD_FIELD);
    f[hl + 4] = 1;
    f[hl + 13] = 1;
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_BAD_FIELD);
    f[hl + 13] = 0;
    f[hl + 1] = EBF_T_CREDIT;
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_BAD_FIELD);
    f[hl + 1] = 9;
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_UNKNOWN_TYPE);
    f[hl + 1] = EBF_T_THROTTLE;
    ck_assert_int_eq(ebf_throttle_parse(f + hl, EBF_THROTTLE_LEN, &g), EBF_R_OK);
}
END_TEST

/* --- Reason names ---------------------------------------------------------- */

START_TEST(test_reason_names)
{
    static const char *const want[EBF_R_MAX] = {
        [EBF_R_OK] = "ok",
        [EBF_R_TRUNCATED] = "truncated",
        [EBF_R_NOT_EBFARM] = "not_ebfarm",
        [EBF_R_BAD_IP_HEADER] = "bad_ip_header",
        [EBF_R_BAD_IP_CHECKSUM] = "bad_ip_checksum",
        [EBF_R_BAD_UDP_LENGTH] = "bad_udp_length",
        [EBF_R_BAD_VERSION] = "bad_version",
        [EBF_R_UNKNOWN_TYPE] = "unknown_type",
        [EBF_R_BAD_LENGTH] = "bad_length",
        [EBF_R_BAD_SOURCE] = "bad_source",
        [EBF_R_BAD_CHECKSUM] = "bad_checksum",
        [EBF_R_BAD_FIELD] = "bad_field",
    };

    ck_assert_int_eq(EBF_R_MAX, 12);
    for (int r = 0; r < EBF_R_MAX; r++) {
        const char *s = ebf_reason_name((enum ebf_reason)r);

        ck_assert_ptr_nonnull(s);
        ck_assert_uint_gt(strlen(s), 0);
        ck_assert_str_eq(s, want[r]);
        ck_assert_str_ne(s, "unknown");
        for (int q = 0; q < r; q++)
            ck_assert_str_ne(s, ebf_reason_name((enum ebf_reason)q));
    }
    ck_assert_str_eq(ebf_reason_name(EBF_R_MAX), "unknown");
    ck_assert_str_eq(ebf_reason_name((enum ebf_reason)(EBF_R_MAX + 100)), "unknown");
    ck_assert_str_eq(ebf_reason_name((enum ebf_reason)-1), "unknown");
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

/* CRC and pattern in one pass (ebf_frag_verify), against the two checks
 * done apart: a 1300-byte piece at offset 2000 (three chunks), a byte
 * changed in its second chunk with the CRC rewritten (pattern bad) or not
 * (CRC bad, pattern not judged), and a byte in the header. */
START_TEST(test_frag_verify_one_pass)
{
    static uint8_t buf[EBF_FRAG_HLEN + 1300];
    struct ebf_frag_hdr h = {.source = 3, .seq = 1, .event_id = 77, .frag_len = 4000,
                             .offset = 2000, .piece_len = 1300, .tx_ns = 5};
    struct ebf_frag_hdr p;
    size_t used;
    int bad = -1;

    ebf_pattern_fill(buf + EBF_FRAG_HLEN, 1300, 3, 77, 2000);
    ebf_frag_write(buf, &h);
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(ebf_frag_crc_ok(buf, &p), 1);

    buf[EBF_FRAG_HLEN + 700] ^= 1;                  /* CRC now wrong */
    bad = -1;
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_BAD_CHECKSUM);
    ck_assert_int_eq(bad, 0);
    ck_assert_int_eq(ebf_frag_crc_ok(buf, &p), 0);
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 1, &p, &used), EBF_R_BAD_CHECKSUM);

    ebf_frag_write(buf, &h);                        /* CRC over the changed byte */
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 1);
    ck_assert_int_eq(ebf_pattern_check(buf + EBF_FRAG_HLEN, 1300, 3, 77, 2000), 700);

    buf[EBF_FRAG_HLEN + 700] ^= 1;                  /* pattern right again, CRC wrong */
    buf[33] ^= 0x80;                                /* and tx_ns changed */
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_BAD_CHECKSUM);
}
END_TEST

/* A piece of whole words (1 KiB at offset 2048: the node's usual case,
 * the header's CRC in registers and the payload in one call of four
 * chains): every covered header byte counts, the CRC field itself not, and
 * a changed word at each block boundary of the chains is found. */
START_TEST(test_frag_verify_words)
{
    static uint8_t buf[EBF_FRAG_HLEN + 1024];
    static const size_t words[] = { 0, 31, 32, 63, 64, 95, 96, 127 };
    struct ebf_frag_hdr h = {.source = 5, .seq = 9, .event_id = 1234567, .frag_len = 4096,
                             .offset = 2048, .piece_len = 1024, .tx_ns = 0x1122334455667788ull};
    struct ebf_frag_hdr p;
    size_t used;
    int bad = -1;

    ebf_pattern_fill(buf + EBF_FRAG_HLEN, 1024, 5, 1234567, 2048);
    ebf_frag_write(buf, &h);
    ck_assert_uint_eq(h.crc, ref_frag_crc(buf, 1024));
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 0);
    for (size_t i = 0; i < EBF_FRAG_HLEN; i++) {
        buf[i] ^= 0x10;
        bad = -1;
        ck_assert_msg(ebf_frag_verify(buf, &p, &bad) == (i >= 28 && i < 32 ? EBF_R_OK
                                                                          : EBF_R_BAD_CHECKSUM),
                      "header byte %zu changed", i);
        buf[i] ^= 0x10;
    }
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
        buf[EBF_FRAG_HLEN + 8 * words[k] + 3] ^= 4;
        ebf_frag_write(buf, &h);                    /* the CRC over the changed word */
        ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
        bad = -1;
        ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_OK);
        ck_assert_msg(bad == 1, "word %zu changed: pattern_bad %d", words[k], bad);
        buf[EBF_FRAG_HLEN + 8 * words[k] + 3] ^= 4;
    }
    ebf_frag_write(buf, &h);
    ck_assert_int_eq(ebf_frag_parse(buf, sizeof(buf), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(buf, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* ebf_frag_write_pattern writes what ebf_pattern_fill and ebf_frag_write
 * write, byte for byte, and sets the same CRC. */
START_TEST(test_frag_write_pattern)
{
    static uint8_t a[EBF_FRAG_HLEN + 1446], b[EBF_FRAG_HLEN + 1446];
    struct ebf_frag_hdr h = {.source = 2, .seq = 9, .event_id = 1ull << 40, .frag_len = 8000,
                             .offset = 1446 * 3, .piece_len = 1446, .tx_ns = 123456789};
    struct ebf_frag_hdr h2 = h;

    ebf_pattern_fill(a + EBF_FRAG_HLEN, 1446, 2, 1ull << 40, 1446 * 3);
    ebf_frag_write(a, &h);
    ebf_frag_write_pattern(b, &h2);
    ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
    ck_assert_uint_eq(h.crc, h2.crc);
}
END_TEST

/* A prebuilt piece (EBF_FRAGF_PREBUILT): ebf_frag_write_crc over the
 * payload's own CRC writes what ebf_frag_write writes, byte for byte; the
 * verifier checks it against the prebuilt pattern (not the event's), and a
 * corrupted byte is caught as with the per-event pattern: CRC bad, or
 * pattern bad when the CRC was rewritten over it. */
START_TEST(test_frag_prebuilt)
{
    static uint8_t a[EBF_FRAG_HLEN + 1446], b[EBF_FRAG_HLEN + 1446];
    struct ebf_frag_hdr h = {.source = 6, .seq = 4, .event_id = 991, .frag_len = 3000,
                             .offset = 1446, .piece_len = 1446, .flags = EBF_FRAGF_PREBUILT,
                             .tx_ns = 42};
    struct ebf_frag_hdr h2 = h, p;
    size_t used;
    int bad = -1;

    ebf_pattern_fill(a + EBF_FRAG_HLEN, 1446, 6, EBF_PATTERN_PREBUILT_ID, 1446);
    memcpy(b + EBF_FRAG_HLEN, a + EBF_FRAG_HLEN, 1446);
    ebf_frag_write(a, &h);
    struct ebf_crc32c_shift sh = ebf_crc32c_shift_make(1446);
    ebf_frag_write_crc(b, &h2, ebf_crc32c(0, b + EBF_FRAG_HLEN, 1446), &sh);
    ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
    ck_assert_uint_eq(h.crc, h2.crc);
    ck_assert_uint_eq(h2.crc, ref_crc32c(ref_crc32c(0, b, 28), b + 32, 8 + 1446));
    ck_assert_uint_eq(b[26], 0x00);                 /* flags, big-endian */
    ck_assert_uint_eq(b[27], 0x01);

    ck_assert_int_eq(ebf_frag_parse(b, sizeof(b), 8, 1, &p, &used), EBF_R_OK);
    ck_assert_uint_eq(p.flags, EBF_FRAGF_PREBUILT);
    ck_assert_int_eq(ebf_frag_verify(b, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 0);

    /* the same bytes claimed as the event's own pattern: a pattern error */
    h2.flags = 0;
    ebf_frag_write(b, &h2);
    ck_assert_int_eq(ebf_frag_parse(b, sizeof(b), 8, 1, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(b, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 1);

    /* corrupted: CRC bad; CRC rewritten over it: pattern bad */
    h2.flags = EBF_FRAGF_PREBUILT;
    b[EBF_FRAG_HLEN + 1000] ^= 0x10;
    ck_assert_int_eq(ebf_frag_parse(b, sizeof(b), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(b, &p, &bad), EBF_R_BAD_CHECKSUM);
    ck_assert_int_eq(bad, 0);
    ebf_frag_write(b, &h2);
    ck_assert_int_eq(ebf_frag_parse(b, sizeof(b), 8, 0, &p, &used), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_verify(b, &p, &bad), EBF_R_OK);
    ck_assert_int_eq(bad, 1);
}
END_TEST

Suite *ebf_proto_suite(void);   /* called by check-main.c, which has no header */

static TCase *tcase(const char *name)
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, T_TIMEOUT);
    return tc;
}

Suite *ebf_proto_suite(void)
{
    Suite *s = suite_create("proto");
    TCase *tc;

    tc = tcase("checksums");
    tcase_add_test(tc, test_ipv4_cksum_known);
    suite_add_tcase(s, tc);

    tc = tcase("roundtrip");
    tcase_add_test(tc, test_encap_headers);
    tcase_add_test(tc, test_frag_layout);
    tcase_add_loop_test(tc, test_frag_roundtrip, 0, N_ENCAPS);
    tcase_add_test(tc, test_frag_roundtrip_extremes);
    tcase_add_test(tc, test_frag_padded);
    tcase_add_test(tc, test_vlan);
    tcase_add_loop_test(tc, test_event_roundtrip, 0, N_ENCAPS);
    tcase_add_test(tc, test_event_layout);
    tcase_add_test(tc, test_present_bits);
    tcase_add_loop_test(tc, test_credit_roundtrip, 0, N_ENCAPS * 3);
    tcase_add_test(tc, test_credit_layout);
    tcase_add_test(tc, test_udp_padded);
    suite_add_tcase(s, tc);

    tc = tcase("malformed");
    tcase_add_loop_test(tc, test_frag_truncated, 0, N_ENCAPS);
    tcase_add_test(tc, test_event_truncated);
    tcase_add_loop_test(tc, test_credit_truncated, 0, 3);
    tcase_add_loop_test(tc, test_frag_malformed, 0, N_BAD_FRAGS);
    tcase_add_loop_test(tc, test_event_malformed, 0, N_BAD_EVENTS);
    tcase_add_loop_test(tc, test_credit_malformed, 0, N_BAD_CREDITS);
    tcase_add_test(tc, test_l2l3_edges);
    tcase_add_test(tc, test_l2l3_oversize);
    tcase_add_test(tc, test_reason_names);
    tcase_add_test(tc, test_throttle_frame);
    tcase_add_test(tc, test_frag_verify_one_pass);
    tcase_add_test(tc, test_frag_verify_words);
    tcase_add_test(tc, test_frag_write_pattern);
    tcase_add_test(tc, test_frag_prebuilt);
    suite_add_tcase(s, tc);

    return s;
}
