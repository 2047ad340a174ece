/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_pattern.c - Check unit tests of the emulated payload pattern: its definition, piecewise fill and check. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_mix.h"
#include "ebf_crc.h"
#include "ebf_pattern.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

#define PAT_LEN 1001
#define PAT_SRC 5
#define PAT_EVT 0x0123456789abcdefull

static const size_t piece_sizes[] = { 1, 7, 13, 333 };
#define N_PIECE_SIZES (sizeof(piece_sizes) / sizeof(piece_sizes[0]))

/* The definition in docs/protocol.md, written out independently. */
START_TEST(test_pattern_definition)
{
    uint8_t b[24];
    uint64_t base = ebf_mix64(PAT_EVT ^ ((uint64_t)PAT_SRC << 48) ^ 0x65626661726dull);

    ebf_pattern_fill(b, sizeof(b), PAT_SRC, PAT_EVT, 0);
    for (int i = 0; i < 24; i++) {
        uint64_t w = base + (uint64_t)(i / 8) * 0x9e3779b97f4a7c15ull;
        ck_assert_uint_eq(b[i], (uint8_t)(w >> (8 * (i % 8))));  /* little-endian */
    }
    /* splitmix64 finaliser of 0: a published value */
    ck_assert_uint_eq(ebf_mix64(0), 0xe220a8397b1dcdafull);
}
END_TEST

/* The prebuilt payload: the pattern of (source, EBF_PATTERN_PREBUILT_ID),
 * written out independently; the same for every event, different per
 * source; ebf_pattern_id picks it by the fragment flag. */
START_TEST(test_pattern_prebuilt)
{
    uint8_t b[24], c[24];
    uint64_t base = ebf_mix64(UINT64_MAX ^ ((uint64_t)PAT_SRC << 48) ^ 0x65626661726dull);

    ebf_pattern_fill(b, sizeof(b), PAT_SRC, EBF_PATTERN_PREBUILT_ID, 0);
    for (int i = 0; i < 24; i++) {
        uint64_t w = base + (uint64_t)(i / 8) * 0x9e3779b97f4a7c15ull;
        ck_assert_uint_eq(b[i], (uint8_t)(w >> (8 * (i % 8))));
    }
    ck_assert_uint_eq(ebf_pattern_id(PAT_EVT, EBF_FRAGF_PREBUILT), EBF_PATTERN_PREBUILT_ID);
    ck_assert_uint_eq(ebf_pattern_id(PAT_EVT, 0), PAT_EVT);
    ebf_pattern_fill(c, sizeof(c), PAT_SRC + 1, EBF_PATTERN_PREBUILT_ID, 0);
    ck_assert_int_ne(memcmp(b, c, sizeof(b)), 0);
    /* a prebuilt piece is not the event's pattern, at the first byte */
    ck_assert_int_eq(ebf_pattern_check(b, sizeof(b), PAT_SRC, PAT_EVT, 0), 0);
    ck_assert_int_eq(ebf_pattern_check(b + 5, 19, PAT_SRC, EBF_PATTERN_PREBUILT_ID, 5), -1);
}
END_TEST

START_TEST(test_pattern_piecewise_check)
{
    uint8_t b[PAT_LEN];
    size_t off = 0;

    ebf_pattern_fill(b, PAT_LEN, PAT_SRC, PAT_EVT, 0);
    ck_assert_int_eq(ebf_pattern_check(b, PAT_LEN, PAT_SRC, PAT_EVT, 0), -1);
    for (size_t k = 0; off < PAT_LEN; k++) {
        size_t n = piece_sizes[k % N_PIECE_SIZES];

        if (n > PAT_LEN - off)
            n = PAT_LEN - off;
        ck_assert_msg(ebf_pattern_check(b + off, n, PAT_SRC, PAT_EVT, (uint32_t)off) == -1,
                      "piece at %zu len %zu", off, n);
        off += n;
    }
    /* every start offset with a piece length that straddles words */
    for (off = 0; off + 29 <= PAT_LEN; off++)
        ck_assert_int_eq(ebf_pattern_check(b + off, 29, PAT_SRC, PAT_EVT, (uint32_t)off), -1);
    ck_assert_int_eq(ebf_pattern_check(b, 0, PAT_SRC, PAT_EVT, 0), -1);
}
END_TEST

START_TEST(test_pattern_bad_byte)
{
    uint8_t b[PAT_LEN];

    ebf_pattern_fill(b, PAT_LEN, PAT_SRC, PAT_EVT, 0);
    for (size_t k = 0; k < PAT_LEN; k++) {
        b[k] ^= 0x01;
        ck_assert_int_eq(ebf_pattern_check(b, PAT_LEN, PAT_SRC, PAT_EVT, 0), (long)k);
        if (k >= 3)                          /* from an unaligned offset */
            ck_assert_int_eq(ebf_pattern_check(b + 3, PAT_LEN - 3, PAT_SRC, PAT_EVT, 3),
                             (long)(k - 3));
        b[k] ^= 0x01;
    }
    /* a second bad byte after the first does not move the answer */
    b[500] ^= 0xff;
    b[900] ^= 0xff;
    ck_assert_int_eq(ebf_pattern_check(b, PAT_LEN, PAT_SRC, PAT_EVT, 0), 500);
}
END_TEST

START_TEST(test_pattern_wrong_ids)
{
    uint8_t b[PAT_LEN];
    static const struct { uint16_t src; uint64_t evt; uint32_t off; } wrong[] = {
        { PAT_SRC + 1, PAT_EVT, 0 },
        { PAT_SRC - 1, PAT_EVT, 0 },
        { PAT_SRC, PAT_EVT + 1, 0 },
        { PAT_SRC, PAT_EVT ^ (1ull << 63), 0 },
        { 0xffff, 0, 0 },
        { PAT_SRC, PAT_EVT, 8 },             /* wrong offset */
    };

    ebf_pattern_fill(b, PAT_LEN, PAT_SRC, PAT_EVT, 0);
    for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
        long r = ebf_pattern_check(b, PAT_LEN, wrong[i].src, wrong[i].evt, wrong[i].off);

        ck_assert_msg(r != -1 && r >= 0 && r <= 7, "case %zu: %ld", i, r);
    }
    /* from an unaligned offset as well */
    ck_assert_int_ne(ebf_pattern_check(b + 5, 100, PAT_SRC + 1, PAT_EVT, 5), -1);
    ck_assert_int_le(ebf_pattern_check(b + 5, 100, PAT_SRC + 1, PAT_EVT, 5), 7);
}
END_TEST

START_TEST(test_pattern_piecewise_fill)
{
    uint8_t whole[PAT_LEN + 64], pw[PAT_LEN + 64];
    uint32_t base_off = (uint32_t)_i * 5;      /* fragment offsets 0 and 5 */
    size_t off = 0;

    memset(whole, 0xee, sizeof(whole));
    memset(pw, 0xee, sizeof(pw));
    ebf_pattern_fill(whole, PAT_LEN, PAT_SRC, PAT_EVT, base_off);
    for (size_t k = 0; off < PAT_LEN; k++) {
        size_t n = piece_sizes[(k + 2) % N_PIECE_SIZES];

        if (n > PAT_LEN - off)
            n = PAT_LEN - off;
        ebf_pattern_fill(pw + off, n, PAT_SRC, PAT_EVT, base_off + (uint32_t)off);
        off += n;
    }
    ck_assert_mem_eq(pw, whole, sizeof(whole));  /* incl. the untouched tail */
    ck_assert_uint_eq(whole[PAT_LEN], 0xee);
    ebf_pattern_fill(pw, 0, PAT_SRC, PAT_EVT, 3);
    ck_assert_mem_eq(pw, whole, sizeof(whole));
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

/* The one-pass check and CRC give what the two apart give: every length
 * 0..40 and 1000..1010 at offsets 0..9 and 4093, intact and with one byte
 * changed at the start, the middle and the end. */
START_TEST(test_check_crc_one_pass)
{
    static uint8_t buf[1100];
    static const uint32_t offs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4093};

    for (size_t len = 0; len <= 1010; len = len == 40 ? 1000 : len + 1)
        for (unsigned k = 0; k < sizeof(offs) / sizeof(offs[0]); k++)
            for (int spoil = -1; spoil < 3; spoil++) {
                size_t at = spoil == 0 ? 0 : spoil == 1 ? len / 2 : len - 1;
                ebf_pattern_fill(buf, len, 5, 99, offs[k]);
                if (spoil >= 0 && len > 0)
                    buf[at] ^= 0x10;
                uint32_t crc = 0x1234, want = ebf_crc32c(0x1234, buf, len);
                int ok = ebf_pattern_check_crc(buf, len, 5, 99, offs[k], &crc);
                ck_assert_uint_eq(crc, want);
                ck_assert_int_eq(ok, ebf_pattern_check(buf, len, 5, 99, offs[k]) < 0);
                ck_assert_int_eq(ok, spoil < 0 || len == 0);
            }
}
END_TEST

/* Fill and CRC in one pass write what the fill writes and give its CRC:
 * every length 0..40 and 1000..1010 at offsets 0..9 and 4093. */
START_TEST(test_fill_crc_one_pass)
{
    static uint8_t a[1100], b[1100];
    static const uint32_t offs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 4093};

    for (size_t len = 0; len <= 1010; len = len == 40 ? 1000 : len + 1)
        for (unsigned k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
            memset(a, 0xaa, sizeof(a));
            memset(b, 0xaa, sizeof(b));
            ebf_pattern_fill(a, len, 6, 1234, offs[k]);
            uint32_t crc = 0x55;
            ebf_pattern_fill_crc(b, len, 6, 1234, offs[k], &crc);
            ck_assert_int_eq(memcmp(a, b, sizeof(a)), 0);
            ck_assert_uint_eq(crc, ebf_crc32c(0x55, a, len));
        }
}
END_TEST

Suite *ebf_pattern_suite(void);   /* called by check-main.c, which has no header */

Suite *ebf_pattern_suite(void)
{
    Suite *s = suite_create("pattern");
    TCase *tc = tcase_create("pattern");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_pattern_definition);
    tcase_add_test(tc, test_pattern_prebuilt);
    tcase_add_test(tc, test_pattern_piecewise_check);
    tcase_add_test(tc, test_pattern_bad_byte);
    tcase_add_test(tc, test_pattern_wrong_ids);
    tcase_add_test(tc, test_check_crc_one_pass);
    tcase_add_test(tc, test_fill_crc_one_pass);
    tcase_add_loop_test(tc, test_pattern_piecewise_fill, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
