/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_release.c - the release frame (type 5): exact bytes, round trip, each receiver check, newer-than. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_release.h"

/* A frame with two records, as bytes: the layout of docs/protocol.md 13.2. */
START_TEST(test_release_bytes)
{
    struct ebf_release_hdr h = {.place = 0x0102, .flags = EBF_RELF_JOIN, .n_src = 2,
                                .epoch = 3, .seq = 0x0a0b0c0d, .low = 0x1122334455667788ull,
                                .at = 0x99, .src = {{7, 0xdeadbeef}, {0x0100, 1}}};
    const uint8_t want[48] = {
        1, 5, 0x01, 0x02, 0x01, 2, 0, 3, 0x0a, 0x0b, 0x0c, 0x0d,
        0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
        0, 0, 0, 0, 0, 0, 0, 0x99, 0, 0, 0, 0,
        0, 7, 0, 0, 0xde, 0xad, 0xbe, 0xef,
        0x01, 0x00, 0, 0, 0, 0, 0, 1};
    uint8_t buf[EBF_RELEASE_LEN_MAX];
    struct ebf_release_hdr g;

    ck_assert_uint_eq(ebf_release_write(buf, &h), 48);
    ck_assert_mem_eq(buf, want, 48);
    memset(&g, 0xff, sizeof(g));
    ck_assert_int_eq(ebf_release_parse(buf, 60, &g), EBF_R_OK); /* padding ignored */
    ck_assert_uint_eq(g.place, 0x0102);
    ck_assert_uint_eq(g.flags, EBF_RELF_JOIN);
    ck_assert_uint_eq(g.n_src, 2);
    ck_assert_uint_eq(g.epoch, 3);
    ck_assert_uint_eq(g.seq, 0x0a0b0c0d);
    ck_assert_uint_eq(g.low, 0x1122334455667788ull);
    ck_assert_uint_eq(g.at, 0x99);
    ck_assert_uint_eq(g.src[0].source, 7);
    ck_assert_uint_eq(g.src[0].next_seq, 0xdeadbeef);
    ck_assert_uint_eq(g.src[1].source, 0x100);
    ck_assert_uint_eq(g.src[1].next_seq, 1);
    h.n_src = EBF_RELEASE_MAX_SRC + 1;
    ck_assert_uint_eq(ebf_release_write(buf, &h), 0);
}
END_TEST

/* Each receiver check, in the order of the text. */
START_TEST(test_release_checks)
{
    struct ebf_release_hdr h = {.place = 1, .n_src = 1, .low = 5, .src = {{0, 9}}};
    uint8_t buf[EBF_RELEASE_LEN_MAX], b[EBF_RELEASE_LEN_MAX];
    struct ebf_release_hdr g;
    size_t len = ebf_release_write(buf, &h);

    ck_assert_uint_eq(len, 40);
    ck_assert_int_eq(ebf_release_parse(buf, 1, &g), EBF_R_TRUNCATED);
#define MUT(off, val, want)                                      \
    do {                                                         \
        memcpy(b, buf, len);                                     \
        b[off] = (uint8_t)(val);                                 \
        ck_assert_int_eq(ebf_release_parse(b, len, &g), (want)); \
    } while (0)
    MUT(0, 2, EBF_R_BAD_VERSION);
    MUT(1, EBF_T_THROTTLE, EBF_R_BAD_FIELD);
    MUT(1, 9, EBF_R_UNKNOWN_TYPE);
    ck_assert_int_eq(ebf_release_parse(buf, 31, &g), EBF_R_TRUNCATED);
    MUT(5, EBF_RELEASE_MAX_SRC + 1, EBF_R_BAD_LENGTH);
    ck_assert_int_eq(ebf_release_parse(buf, 39, &g), EBF_R_TRUNCATED);
    MUT(4, 0x04, EBF_R_BAD_FIELD);                  /* unknown flag */
    MUT(4, EBF_RELF_JOIN | EBF_RELF_LEAVE, EBF_R_BAD_FIELD);
    MUT(27, 1, EBF_R_BAD_FIELD);                    /* at without a flag */
    MUT(31, 1, EBF_R_BAD_FIELD);                    /* reserved */
    MUT(35, 1, EBF_R_BAD_FIELD);                    /* a record's reserved */
    MUT(4, EBF_RELF_LEAVE, EBF_R_OK);               /* leave with at 0: event 0 on */
    MUT(4, EBF_RELF_DEAD, EBF_R_BAD_FIELD);         /* a notice with records and at */
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_OK);
#undef MUT
}
END_TEST

/* A dead notice (readout -> SFC): flag DEAD alone, no records, at 0;
 * with a record, an at, another flag or a reserved byte it is bad_field. */
START_TEST(test_release_notice)
{
    struct ebf_release_hdr h = {.place = 3, .flags = EBF_RELF_DEAD, .epoch = 7, .seq = 9,
                                .low = 123456}, g;
    uint8_t buf[EBF_RELEASE_LEN_MAX], b[EBF_RELEASE_LEN_MAX];
    size_t len = ebf_release_write(buf, &h);

    ck_assert_uint_eq(len, EBF_RELEASE_HLEN);
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_OK);
    ck_assert_uint_eq(g.flags, EBF_RELF_DEAD);
    ck_assert_uint_eq(g.place, 3);
    ck_assert_uint_eq(g.epoch, 7);
    ck_assert_uint_eq(g.low, 123456);
    memcpy(b, buf, len);
    b[4] = EBF_RELF_DEAD | EBF_RELF_JOIN;
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    memcpy(b, buf, len);
    b[27] = 1;                                      /* at */
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    memcpy(b, buf, len);
    b[31] = 1;                                      /* reserved */
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    h.n_src = 1;
    len = ebf_release_write(buf, &h);
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_BAD_FIELD);
}
END_TEST

/* A replay end (readout -> survivor SFC, docs/protocol.md 13.4.1): dead
 * place 2, epoch 1, first event routed around it 0x1000, highest replayed
 * id 0xffe (at 0xfff), one source 4 whose next frame on the link is 77;
 * END with another flag, without records, or with a reserved byte set is
 * bad_field; at 0 (nothing replayed) is a valid end. */
START_TEST(test_release_end)
{
    struct ebf_release_hdr h = {.place = 2, .flags = EBF_RELF_END, .n_src = 1, .epoch = 1,
                                .seq = 0, .low = 0x1000, .at = 0xfff, .src = {{4, 77}}}, g;
    const uint8_t want[40] = {
        1, 5, 0, 2, 0x08, 1, 0, 1, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0x10, 0x00,
        0, 0, 0, 0, 0, 0, 0x0f, 0xff, 0, 0, 0, 0,
        0, 4, 0, 0, 0, 0, 0, 77};
    uint8_t buf[EBF_RELEASE_LEN_MAX], b[EBF_RELEASE_LEN_MAX];
    size_t len = ebf_release_write(buf, &h);

    ck_assert_uint_eq(len, 40);
    ck_assert_mem_eq(buf, want, 40);
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_OK);
    ck_assert_uint_eq(g.flags, EBF_RELF_END);
    ck_assert_uint_eq(g.low, 0x1000);
    ck_assert_uint_eq(g.at, 0xfff);
    ck_assert_uint_eq(g.src[0].source, 4);
    ck_assert_uint_eq(g.src[0].next_seq, 77);
    memcpy(b, buf, len);
    b[4] = EBF_RELF_END | EBF_RELF_JOIN;
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    b[4] = EBF_RELF_END | EBF_RELF_DEAD;
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    memcpy(b, buf, len);
    b[31] = 1;                                      /* reserved */
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    memcpy(b, buf, len);
    b[35] = 1;                                      /* a record's reserved */
    ck_assert_int_eq(ebf_release_parse(b, len, &g), EBF_R_BAD_FIELD);
    ck_assert_int_eq(ebf_release_parse(buf, 39, &g), EBF_R_TRUNCATED);
    h.n_src = 0;
    len = ebf_release_write(buf, &h);
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_BAD_FIELD);   /* no source */
    h.n_src = 1;
    h.at = 0;
    len = ebf_release_write(buf, &h);
    ck_assert_int_eq(ebf_release_parse(buf, len, &g), EBF_R_OK);         /* none replayed */
}
END_TEST

/* Epoch first, then wrapping seq. */
START_TEST(test_release_newer)
{
    ck_assert_int_eq(ebf_release_newer(0, 1, 0, 0), 1);
    ck_assert_int_eq(ebf_release_newer(0, 0, 0, 0), 0);
    ck_assert_int_eq(ebf_release_newer(0, 0, 0, UINT32_MAX), 1);
    ck_assert_int_eq(ebf_release_newer(1, 0, 0, 500), 1);
    ck_assert_int_eq(ebf_release_newer(0, 900, 1, 0), 0);
    ck_assert_int_eq(ebf_release_newer(0, 0, UINT16_MAX, 7), 1);
}
END_TEST

Suite *ebf_release_suite(void);

Suite *ebf_release_suite(void)
{
    Suite *s = suite_create("release");
    TCase *tc = tcase_create("release");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_release_bytes);
    tcase_add_test(tc, test_release_checks);
    tcase_add_test(tc, test_release_newer);
    tcase_add_test(tc, test_release_notice);
    tcase_add_test(tc, test_release_end);
    suite_add_tcase(s, tc);
    return s;
}
