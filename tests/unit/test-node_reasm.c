/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_reasm.c - Check unit tests of the node's reassembly rules: pieces verified into their event, exact flags, counts and places. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_proto.h"
#include "node_reasm.h"
#include "node_tally.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */
#define ID 0x1234
#define HOFF 20                 /* where the pieces begin in the frame */

static uint8_t frame[4096];
static uint64_t rejects[EBF_R_MAX];
static struct node_ev ev;

/* An event of 3 sources, 0 and 2 present, 100 bytes each, in one frame. */
static void setup(void)
{
    memset(frame, 0, sizeof(frame));
    memset(rejects, 0, sizeof(rejects));
    memset(&ev, 0, sizeof(ev));
    ev.id = ID;
    ev.n_sources = 3;
    ev.present[0] = 0x5;
    ev.bytes = 200;
    ev.frame_count = 1;
    ev.first_tx_ns = UINT64_MAX;
    ev.used = 1;
}

/* A piece of source's fragment (frag_len bytes) at off in frame: the
 * bytes from frag_off, the event's pattern. Returns the bytes it takes. */
static size_t piece(size_t off, uint16_t source, uint32_t frag_len, uint32_t frag_off,
                    uint16_t len, uint64_t tx_ns)
{
    struct ebf_frag_hdr h = {
        .source = source, .event_id = ID, .frag_len = frag_len, .offset = frag_off,
        .piece_len = len, .tx_ns = tx_ns,
    };
    ebf_frag_write_pattern(frame + off, &h);
    return EBF_FRAG_HLEN + len;
}

/* Walk every piece; returns how many came back, their places in pcs. */
static unsigned walk(size_t len, uint16_t n, struct node_piece *pcs)
{
    struct node_reasm r = node_reasm_start(&ev, frame, frame + HOFF, len, n);
    unsigned got = 0;

    while (node_reasm_next(&r, rejects, &pcs[got]))
        got++;
    return got;
}

static uint64_t rejects_total(void)
{
    uint64_t n = 0;

    for (unsigned i = 0; i < EBF_R_MAX; i++)
        n += rejects[i];
    return n;
}

/* Two good pieces: both noted with their places, the event whole. */
START_TEST(test_reasm_good)
{
    struct node_piece pc[4];
    size_t a = piece(HOFF, 0, 100, 0, 100, 5000);
    size_t b = piece(HOFF + a, 2, 100, 0, 100, 4000);

    ck_assert_uint_eq(walk(a + b, 2, pc), 2);
    ck_assert_uint_eq(pc[0].off, HOFF + EBF_FRAG_HLEN);
    ck_assert_uint_eq(pc[0].len, 100);
    ck_assert_uint_eq(pc[0].source, 0);
    ck_assert_uint_eq(pc[1].off, HOFF + a + EBF_FRAG_HLEN);
    ck_assert_uint_eq(pc[1].source, 2);
    ck_assert_uint_eq(ev.got_bytes, 200);
    ck_assert_uint_eq(ev.src_got[0], 100);
    ck_assert_uint_eq(ev.src_len[2], 100);
    ck_assert_uint_eq(ev.first_tx_ns, 4000);
    ck_assert_uint_eq(ev.status, 0);
    ck_assert_uint_eq(rejects_total(), 0);
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, 0);
}
END_TEST

/* A fragment in two pieces over two frames, the second piece first. */
START_TEST(test_reasm_split)
{
    struct node_piece pc[2];

    ev.frame_count = 2;
    size_t a = piece(HOFF, 2, 100, 60, 40, 10);
    size_t b = piece(HOFF + a, 0, 100, 0, 100, 10);
    ck_assert_uint_eq(walk(a + b, 2, pc), 2);
    ck_assert_uint_eq(pc[0].frag_off, 60);
    node_reasm_finish(&ev);      /* source 2 has 40 of 100 bytes */
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    ev.status = 0;
    a = piece(HOFF, 2, 100, 0, 60, 10);
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.src_got[2], 100);
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, 0);
}
END_TEST

/* A bad CRC is counted and stepped over: the next piece is still read. */
START_TEST(test_reasm_bad_crc)
{
    struct node_piece pc[4];
    size_t a = piece(HOFF, 0, 100, 0, 100, 1);
    size_t b = piece(HOFF + a, 2, 100, 0, 100, 1);

    frame[HOFF + EBF_FRAG_HLEN + 5] ^= 0xff;
    ck_assert_uint_eq(walk(a + b, 2, pc), 2);
    ck_assert_uint_eq(rejects[EBF_R_BAD_CHECKSUM], 1);
    ck_assert_uint_eq(rejects_total(), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_CRC);
    ck_assert_uint_eq(ev.got_bytes, 200);
}
END_TEST

/* A payload that is not the pattern, with a right CRC: bad_pattern. */
START_TEST(test_reasm_bad_pattern)
{
    struct node_piece pc[2];
    size_t a = piece(HOFF, 0, 100, 0, 100, 1);
    struct ebf_frag_hdr h = {
        .source = 0, .event_id = ID, .frag_len = 100, .piece_len = 100, .tx_ns = 1,
    };

    frame[HOFF + EBF_FRAG_HLEN + 7] ^= 0x01;
    ebf_frag_write(frame + HOFF, &h);   /* the CRC of the changed bytes */
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_PATTERN);
    ck_assert_uint_eq(rejects_total(), 0);
}
END_TEST

/* A piece cut short ends the frame: counted by reason, bad_sources. */
START_TEST(test_reasm_truncated)
{
    struct node_piece pc[4];
    size_t a = piece(HOFF, 0, 100, 0, 100, 1);
    size_t b = piece(HOFF + a, 2, 100, 0, 100, 1);

    ck_assert_uint_eq(walk(a + b - 10, 3, pc), 1);
    ck_assert_uint_eq(rejects[EBF_R_TRUNCATED], 1);
    ck_assert_uint_eq(rejects_total(), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    ck_assert_uint_eq(ev.got_bytes, 100);
}
END_TEST

/* Another event's piece, and a source not in the present set. */
START_TEST(test_reasm_wrong_piece)
{
    struct node_piece pc[2];
    size_t a = piece(HOFF, 1, 100, 0, 100, 1);  /* source 1 is absent */

    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    ev.status = 0;
    ev.id = ID + 1;
    a = piece(HOFF, 0, 100, 0, 100, 1);
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_EVENT_ID);
}
END_TEST

/* Two pieces of one source that disagree on its fragment's length. */
START_TEST(test_reasm_frag_len)
{
    struct node_piece pc[2];
    size_t a = piece(HOFF, 0, 100, 0, 50, 1);
    size_t b = piece(HOFF + a, 0, 120, 50, 50, 1);

    ck_assert_uint_eq(walk(a + b, 2, pc), 2);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
}
END_TEST

/* A later frame whose header disagrees with the first's; and an event
 * whose byte total is not the header's. */
START_TEST(test_reasm_header_finish)
{
    struct ebf_event_hdr h = {
        .n_sources = 3, .event_id = ID, .frame_count = 1, .present = {0x5, 0},
    };

    node_reasm_header(&ev, &h);
    ck_assert_uint_eq(ev.status, 0);
    h.present[1] = 1;
    node_reasm_header(&ev, &h);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    setup();
    ev.src_len[0] = ev.src_got[0] = 100;
    ev.src_len[2] = ev.src_got[2] = 100;
    ev.got_bytes = 200;
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, 0);
    ev.bytes = 201;
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    setup();
    ev.src_len[0] = ev.src_got[0] = 100;   /* source 2 present, nothing came */
    ev.got_bytes = ev.bytes = 100;
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
}
END_TEST

/* Source 0's fragment of 16 bytes as [0,8) twice and [8,16) never: the
 * byte totals agree, but the event is not clean: bad_sources, counted
 * under verify.bad_coverage. The same pieces out of order but each byte
 * once are clean. */
START_TEST(test_reasm_coverage)
{
    struct node_piece pc[4];
    struct node_stats st;
    uint16_t stream = 0;

    ev.bytes = 116;
    ev.frame_count = 2;
    size_t a = piece(HOFF, 0, 16, 0, 8, 10);
    size_t b = piece(HOFF + a, 2, 100, 0, 100, 10);
    ck_assert_uint_eq(walk(a + b, 2, pc), 2);
    ck_assert_uint_eq(ev.status, 0);
    a = piece(HOFF, 0, 16, 0, 8, 10);          /* the piece at 0 again, none at 8 */
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.src_got[0], 16);
    ck_assert_uint_eq(ev.got_bytes, 116);
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    ck_assert_uint_eq(ev.cover_bad, 1);
    ck_assert_uint_eq(rejects_total(), 0);
    memset(&st, 0, sizeof(st));
    node_tally_decided(&st, &ev, 0, 0, &stream);
    ck_assert_uint_eq(st.bad_coverage, 1);
    ck_assert_uint_eq(st.verify[NODE_V_BAD_SOURCES], 1);
    ck_assert_uint_eq(st.events_bad, 1);

    setup();                                   /* 8..16, 0..4, 4..8: each byte once */
    ev.bytes = 116;
    ev.frame_count = 2;
    a = piece(HOFF, 0, 16, 8, 8, 10);
    b = piece(HOFF + a, 2, 100, 0, 100, 10);
    size_t c = piece(HOFF + a + b, 0, 16, 0, 4, 10);
    ck_assert_uint_eq(walk(a + b + c, 3, pc), 3);
    a = piece(HOFF, 0, 16, 4, 4, 10);
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    node_reasm_finish(&ev);
    ck_assert_uint_eq(ev.status, 0);
    ck_assert_uint_eq(ev.cover_bad, 0);
    ck_assert_uint_eq(ev.n_cover, 3);
    a = piece(HOFF, 0, 16, 6, 4, 10);          /* one more, over 6..10: covered already */
    ck_assert_uint_eq(walk(a, 1, pc), 1);
    ck_assert_uint_eq(ev.status, EBF_ACKS_BAD_SOURCES);
    ck_assert_uint_eq(ev.cover_bad, 1);
}
END_TEST

Suite *node_reasm_suite(void);   /* called by check-main.c, which has no header */

Suite *node_reasm_suite(void)
{
    Suite *s = suite_create("node_reasm");
    TCase *tc = tcase_create("reasm");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_reasm_good);
    tcase_add_test(tc, test_reasm_split);
    tcase_add_test(tc, test_reasm_bad_crc);
    tcase_add_test(tc, test_reasm_bad_pattern);
    tcase_add_test(tc, test_reasm_truncated);
    tcase_add_test(tc, test_reasm_wrong_piece);
    tcase_add_test(tc, test_reasm_frag_len);
    tcase_add_test(tc, test_reasm_header_finish);
    tcase_add_test(tc, test_reasm_coverage);
    suite_add_tcase(s, tc);
    return s;
}
