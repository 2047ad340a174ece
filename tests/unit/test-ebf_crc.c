/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_crc.c - Check unit tests of CRC32C: published vectors, incremental use, the bitwise reference. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_mix.h"
#include "ref-crc32c.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

START_TEST(test_crc32c_vectors)
{
    uint8_t b[32];

    ck_assert_uint_eq(ebf_crc32c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(ebf_crc32c(0, "", 0), 0);
    memset(b, 0, sizeof(b));                 /* RFC 3720 B.4 vectors */
    ck_assert_uint_eq(ebf_crc32c(0, b, 32), 0x8A9136AAu);
    memset(b, 0xff, sizeof(b));
    ck_assert_uint_eq(ebf_crc32c(0, b, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    ck_assert_uint_eq(ebf_crc32c(0, b, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)(31 - i);
    ck_assert_uint_eq(ebf_crc32c(0, b, 32), 0x113FDB5Cu);
}
END_TEST

START_TEST(test_crc32c_incremental)
{
    uint8_t b[1000];
    uint32_t whole;

    for (size_t i = 0; i < sizeof(b); i++)
        b[i] = (uint8_t)(i * 7 + 3);
    whole = ebf_crc32c(0, b, sizeof(b));
    ck_assert_uint_eq(whole, ref_crc32c(0, b, sizeof(b)));
    for (size_t cut = 0; cut <= sizeof(b); cut++) {
        uint32_t c = ebf_crc32c(0, b, cut);
        ck_assert_uint_eq(ebf_crc32c(c, b + cut, sizeof(b) - cut), whole);
    }
    /* three pieces at odd cuts, and byte by byte */
    uint32_t c = ebf_crc32c(0, b, 13);
    c = ebf_crc32c(c, b + 13, 500);
    c = ebf_crc32c(c, b + 513, sizeof(b) - 513);
    ck_assert_uint_eq(c, whole);
    c = 0;
    for (size_t i = 0; i < sizeof(b); i++)
        c = ebf_crc32c(c, b + i, 1);
    ck_assert_uint_eq(c, whole);
}
END_TEST

/* Whatever implementation is picked (table or SSE4.2), every length and
 * alignment gives the bitwise reference. */
START_TEST(test_crc32c_reference)
{
    uint8_t b[200];

    for (size_t i = 0; i < sizeof(b); i++)
        b[i] = (uint8_t)(ebf_mix64(i) >> 17);
    for (size_t start = 0; start < 8; start++)
        for (size_t n = 0; start + n <= 120; n++)
            ck_assert_uint_eq(ebf_crc32c(0, b + start, n), ref_crc32c(0, b + start, n));
    ck_assert_uint_eq(ebf_crc32c(0x12345678u, b, 77), ref_crc32c(0x12345678u, b, 77));
}
END_TEST

/* crc(A || B) from crc(A), crc(B), |B|: every cut of a buffer, and both
 * forms of the shift (the carry-less one when the CPU has it), against
 * the plain CRC over the whole. */
START_TEST(test_crc32c_combine)
{
    static uint8_t b[9000];

    for (size_t i = 0; i < sizeof(b); i++)
        b[i] = (uint8_t)(ebf_mix64(i + 7) >> 23);
    for (size_t n = 0; n <= 1100; n += (n < 80 ? 1 : 37)) {
        uint32_t whole = ebf_crc32c(0, b, n);
        for (size_t cut = 0; cut <= n; cut += (n < 80 ? 1 : 13)) {
            uint32_t c1 = ebf_crc32c(0, b, cut), c2 = ebf_crc32c(0, b + cut, n - cut);
            struct ebf_crc32c_shift s = ebf_crc32c_shift_make(n - cut);
            ck_assert_uint_eq(ebf_crc32c_combine(c1, c2, n - cut), whole);
            ck_assert_uint_eq(ebf_crc32c_combine_shift(c1, c2, &s), whole);
        }
    }
    /* the lengths of pieces: header 40 + up to 8,000 bytes */
    for (size_t len2 = 1; len2 <= 8000; len2 += 997) {
        uint32_t whole = ebf_crc32c(0, b, 40 + len2);
        struct ebf_crc32c_shift s = ebf_crc32c_shift_make(len2);
        uint32_t c1 = ebf_crc32c(0, b, 40), c2 = ebf_crc32c(0, b + 40, len2);
        ck_assert_uint_eq(ebf_crc32c_combine(c1, c2, len2), whole);
        ck_assert_uint_eq(ebf_crc32c_combine_shift(c1, c2, &s), whole);
    }
    /* a 40-byte header without its CRC field at 28 (and other layouts),
     * then B, in one call */
    static const size_t layouts[][2] = {{28, 40}, {0, 4}, {0, 40}, {36, 40}, {4, 12}, {28, 41}};
    for (unsigned j = 0; j < sizeof(layouts) / sizeof(layouts[0]); j++) {
        size_t skip = layouts[j][0], hl = layouts[j][1];
        for (size_t len2 = 0; len2 <= 1500; len2 += 61) {
            uint8_t cat[1600];
            memcpy(cat, b, skip);
            memcpy(cat + skip, b + skip + 4, hl - skip - 4);
            memcpy(cat + hl - 4, b + 5000, len2);
            struct ebf_crc32c_shift s = ebf_crc32c_shift_make(len2);
            ck_assert_uint_eq(ebf_crc32c_hdr_combine(b, skip, hl, ebf_crc32c(0, b + 5000, len2),
                                                     &s),
                              ebf_crc32c(0, cat, hl - 4 + len2));
        }
    }
    /* an empty B leaves crc(A); an empty A gives crc(B) */
    ck_assert_uint_eq(ebf_crc32c_combine(0xE3069283u, 0, 0), 0xE3069283u);
    ck_assert_uint_eq(ebf_crc32c_combine(0, 0xE3069283u, 9), 0xE3069283u);
    /* "1234" then "56789" is the published check value */
    ck_assert_uint_eq(ebf_crc32c_combine(ebf_crc32c(0, "1234", 4), ebf_crc32c(0, "56789", 5), 5),
                      0xE3069283u);
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

Suite *ebf_crc_suite(void);   /* called by check-main.c, which has no header */

Suite *ebf_crc_suite(void)
{
    Suite *s = suite_create("crc");
    TCase *tc = tcase_create("crc32c");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_crc32c_vectors);
    tcase_add_test(tc, test_crc32c_incremental);
    tcase_add_test(tc, test_crc32c_reference);
    tcase_add_test(tc, test_crc32c_combine);
    suite_add_tcase(s, tc);
    return s;
}
