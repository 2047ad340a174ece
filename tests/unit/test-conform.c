/* SPDX-License-Identifier: BSD-3-Clause */
/* test-conform.c - ebfarm conform's reader and judge: a pcapng of good frames passes, one with faults fails under the rules they break, with exact counts and frame numbers. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"
#include "conform_pcap.h"
#include "ebf_proto.h"
#include "sfc_stats.h"

static const uint8_t sfc_mac[6] = {2, 0, 0, 0, 0, 2}, board[6] = {2, 0, 0, 0, 0, 1},
                     other[6] = {2, 0, 0, 0, 0, 7};

/* A raw fragment frame of (source, event), piece [off, off + len) of a
 * fragment of frag_len, sequence seq, from src; in buf, its length back. */
static uint32_t frame(uint8_t *buf, const uint8_t *src, uint16_t source, uint64_t event,
                      uint32_t frag_len, uint32_t off, uint16_t len, uint32_t seq)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    struct ebf_frag_hdr h = {.source = source, .seq = seq, .event_id = event,
                             .frag_len = frag_len, .offset = off, .piece_len = len,
                             .tx_ns = 1000};

    memcpy(a.dst_mac, sfc_mac, 6);
    memcpy(a.src_mac, src, 6);
    ebf_encap_write(buf, &a, EBF_FRAG_HLEN + len);
    memset(buf + EBF_ETH_HLEN + EBF_FRAG_HLEN, 0x5a, len);
    ebf_frag_write(buf + EBF_ETH_HLEN, &h);
    return EBF_ETH_HLEN + EBF_FRAG_HLEN + len;
}

static void put32(FILE *f, uint32_t v)
{
    ck_assert_uint_eq(fwrite(&v, 4, 1, f), 1);
}

/* A pcapng file of n frames, nanosecond times 1 us apart; its path. */
static const char *write_pcapng(uint8_t frames[][2048], const uint32_t *len, unsigned n)
{
    static char path[64];
    snprintf(path, sizeof(path), "/tmp/ebf-conform-%d.pcapng", (int)getpid());
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    static const uint8_t shb[] = {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a,
                                  1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  28, 0, 0, 0};
    static const uint8_t idb[] = {1, 0, 0, 0, 32, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0, 0,
                                  9, 0, 1, 0, 9, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0, 0};
    fwrite(shb, sizeof(shb), 1, f);
    fwrite(idb, sizeof(idb), 1, f);
    for (unsigned i = 0; i < n; i++) {
        uint32_t pad = (4 - len[i] % 4) % 4, blen = 32 + len[i] + pad;
        uint64_t t = 1700000000000000000ull + i * 1000ull;
        put32(f, 6);
        put32(f, blen);
        put32(f, 0);
        put32(f, (uint32_t)(t >> 32));
        put32(f, (uint32_t)t);
        put32(f, len[i]);
        put32(f, len[i]);
        fwrite(frames[i], len[i] + pad, 1, f);
        put32(f, blen);
    }
    fclose(f);
    return path;
}

static uint8_t fr[16][2048];
static uint32_t fl[16];

/* Read path into c (8 sources, MTU 1500, the SFC's MAC): the frames read. */
static unsigned judge(struct conform *c, const char *path)
{
    struct cap_file f;
    struct cap_frame x;
    char err[128];
    unsigned n = 0;

    conform_init(c, 8, 1500, sfc_mac, EBF_UDP_PORT_DEFAULT);
    ck_assert_int_eq(cap_open(&f, path, err, sizeof(err)), 0);
    while (cap_next(&f, &x, err, sizeof(err)) == 1) {
        ck_assert(x.ethernet);
        ck_assert_uint_eq(x.ns, 1700000000000000000ull + n * 1000ull);
        conform_frame(c, ++n, x.data, x.caplen, x.ns);
    }
    cap_close(&f);
    unlink(path);
    return n;
}

/* Ten frames of source 3, five events of two pieces, seq 0..9: pass. */
START_TEST(test_good_capture_passes)
{
    static struct conform c;

    for (unsigned i = 0; i < 10; i++)
        fl[i] = frame(fr[i], board, 3, 100 + i / 2, 200, 100 * (i % 2), 100, i);
    ck_assert_uint_eq(judge(&c, write_pcapng(fr, fl, 10)), 10);
    ck_assert(conform_passed(&c));
    for (unsigned r = 0; r < CR_COUNT; r++) {
        ck_assert_uint_eq(c.rule[r].checked, 10);
        ck_assert_uint_eq(c.rule[r].deviations, 0);
    }
    ck_assert_uint_eq(c.src[3].frames, 10);
    ck_assert_uint_eq(c.src[3].events, 5);
    ck_assert_uint_eq(c.src[3].max_gap_ns, 1000);
}
END_TEST

/* The same with faults: frame 3's CRC broken, frame 5 from another MAC,
 * frame 7's seq skipping 2, frame 9's frag_len changed, frame 10 with a
 * 1413-byte piece, frame 11 source 8: each under its rule, the verdict
 * fails. As at the SFC, a frame refused before the sequence rule is
 * missing from its source's sequence: frames 4 and 6 show a gap of 1 each,
 * frame 7 its own 2. */
START_TEST(test_faults_named)
{
    static struct conform c;
    unsigned n = 11;

    for (unsigned i = 0; i < 9; i++)
        fl[i] = frame(fr[i], board, 3, 100 + i / 2, 200, 100 * (i % 2), 100, i);
    fr[2][EBF_ETH_HLEN + EBF_FRAG_HLEN] ^= 1;                               /* frame 3 */
    fl[4] = frame(fr[4], other, 3, 102, 200, 0, 100, 4);                     /* frame 5 */
    fl[6] = frame(fr[6], board, 3, 103, 200, 0, 100, 8);                     /* frame 7: 6, 7 lost */
    fl[7] = frame(fr[7], board, 3, 103, 200, 100, 100, 9);
    fl[8] = frame(fr[8], board, 3, 103, 300, 100, 100, 10);                  /* frame 9 */
    fl[9] = frame(fr[9], board, 3, 105, 1413, 0, 1413, 11);                  /* frame 10 */
    fl[10] = frame(fr[10], board, 8, 106, 100, 0, 100, 0);                   /* frame 11 */
    ck_assert_uint_eq(judge(&c, write_pcapng(fr, fl, n)), n);
    ck_assert(!conform_passed(&c));
    ck_assert_uint_eq(c.rule[CR_HEADER].deviations, 1);
    ck_assert_uint_eq(c.rule[CR_HEADER].first[0], 11);
    ck_assert_uint_eq(c.rule[CR_HEADER].reasons[EBF_R_BAD_SOURCE], 1);
    ck_assert_uint_eq(c.rule[CR_CRC].deviations, 1);
    ck_assert_uint_eq(c.rule[CR_CRC].first[0], 3);
    ck_assert_uint_eq(c.rule[CR_SIZE].deviations, 1);
    ck_assert_uint_eq(c.rule[CR_SIZE].first[0], 10);
    ck_assert_uint_eq(c.rule[CR_BINDING].deviations, 1);
    ck_assert_uint_eq(c.rule[CR_BINDING].first[0], 5);
    ck_assert_uint_eq(c.rule[CR_SEQ].deviations, 3);
    ck_assert_uint_eq(c.rule[CR_SEQ].first[0], 4);
    ck_assert_uint_eq(c.rule[CR_SEQ].first[1], 6);
    ck_assert_uint_eq(c.rule[CR_SEQ].first[2], 7);
    ck_assert_uint_eq(c.rule[CR_FRAG_LEN].deviations, 1);
    ck_assert_uint_eq(c.rule[CR_FRAG_LEN].first[0], 9);
    ck_assert_uint_eq(c.rule[CR_ENCAP].checked, 11);
    ck_assert_uint_eq(c.rule[CR_SEQ].checked, 7);
    ck_assert_uint_eq(c.seq.gap[3], 4);
    ck_assert_uint_eq(c.seq.reorder[3], 0);
    ck_assert_uint_eq(c.src[3].frames, 7);
}
END_TEST

/* Pieces that overlap: frame 3 ([50, 150) over [0, 200) held) and frame
 * 6 (event 101's [0, 100) sent again, with a new seq) under overlap, as
 * the SFC's rx.drop.duplicate; an event's ranges start anew with the next
 * event; every other rule holds. */
START_TEST(test_overlap)
{
    static const uint32_t off[6] = {0, 100, 50, 200, 0, 0};
    static const uint64_t ev[6] = {100, 100, 100, 100, 101, 101};
    static struct conform c;

    for (unsigned i = 0; i < 6; i++)
        fl[i] = frame(fr[i], board, 3, ev[i], 300, off[i], 100, i);
    ck_assert_uint_eq(judge(&c, write_pcapng(fr, fl, 6)), 6);
    ck_assert(!conform_passed(&c));
    for (unsigned r = 0; r < CR_COUNT; r++) {
        ck_assert_uint_eq(c.rule[r].checked, 6);
        ck_assert_uint_eq(c.rule[r].deviations, r == CR_OVERLAP ? 2 : 0);
    }
    ck_assert_uint_eq(c.rule[CR_OVERLAP].first[0], 3);
    ck_assert_uint_eq(c.rule[CR_OVERLAP].first[1], 6);
    ck_assert_uint_eq(c.rule[CR_OVERLAP].reasons[EBF_R_MAX + SFC_DROP_DUPLICATE], 2);
    ck_assert_uint_eq(c.src[3].events, 2);
    ck_assert_str_eq(conform_rule_name(CR_OVERLAP), "overlap");
}
END_TEST

Suite *conform_suite(void);

Suite *conform_suite(void)
{
    Suite *s = suite_create("conform");
    TCase *tc = tcase_create("conform");

    tcase_add_test(tc, test_good_capture_passes);
    tcase_add_test(tc, test_faults_named);
    tcase_add_test(tc, test_overlap);
    suite_add_tcase(s, tc);
    return s;
}
