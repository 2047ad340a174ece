/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_crc_paths.c - Check unit tests of every CRC32C path (table, one chain, four chains with AVX2 or AVX-512VL compares, with and without their stream prefetch): all lengths and alignments, the pattern's diff, the fill, the join of the chains. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_crc_private.h"
#include "ebf_mix.h"
#include "ref-crc32c.h"

#define T_TIMEOUT 60            /* seconds per test; valgrind runs are slow */

#define MAX_LEN 4096            /* every length 0..MAX_LEN */
#define SLACK 64                /* room for the misalignments */
#define STEP 0x9e3779b97f4a7c15ull

static const size_t offsets[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 31, 33, 63 };
#define N_OFFSETS (sizeof(offsets) / sizeof(offsets[0]))

static const enum ebf_crc_path paths[] = { EBF_CRC_TABLE, EBF_CRC_SSE42, EBF_CRC_SSE42_4,
                                            EBF_CRC_SSE42_4_AVX512 };
#define N_PATHS (sizeof(paths) / sizeof(paths[0]))

static uint8_t buf[MAX_LEN + SLACK];
static uint32_t want[MAX_LEN + 1];      /* the reference CRC of each prefix */

static void fill_random(uint8_t *b, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(ebf_mix64(seed + i) >> 29);
}

/* want[L] = the reference CRC32C of the first L bytes at p, from crc. */
static void ref_prefixes(uint32_t crc, const uint8_t *p, size_t max)
{
    want[0] = crc;
    for (size_t l = 1; l <= max; l++)
        want[l] = ref_crc32c(want[l - 1], p + l - 1, 1);
}

/* The words w, w + step ... little-endian at p. */
static void store_seq(uint8_t *p, size_t n, uint64_t w)
{
    for (size_t i = 0; i < n; i++, w += STEP)
        for (int k = 0; k < 8; k++)
            p[8 * i + (size_t)k] = (uint8_t)(w >> (8 * k));
}

/* Use path k; 0 when this CPU does not have it (the test then skips it). */
static int use_path(size_t k)
{
    return ebf_crc_use(paths[k]) == paths[k];
}

/* The table path is there on every CPU, the best one is chosen by default. */
START_TEST(test_paths_available)
{
    enum ebf_crc_path best = ebf_crc_use(EBF_CRC_BEST);

    ck_assert_int_eq(ebf_crc_use(EBF_CRC_TABLE), EBF_CRC_TABLE);
    ck_assert_int_le(ebf_crc_use(EBF_CRC_SSE42), EBF_CRC_SSE42);
    ck_assert_int_le(ebf_crc_use(EBF_CRC_SSE42_4), EBF_CRC_SSE42_4);
    ck_assert_int_eq(ebf_crc_use(EBF_CRC_BEST), best);
}
END_TEST

/* ebf_crc32c: every length 0..4096 at every offset, from 0 and from a
 * nonzero CRC, on the path of the loop's index. */
START_TEST(test_crc32c_all_lengths)
{
    if (!use_path((size_t)_i))
        return;
    fill_random(buf, sizeof(buf), 0x1234);
    for (size_t o = 0; o < N_OFFSETS; o++) {
        const uint8_t *p = buf + offsets[o];
        uint32_t start = o % 2 ? 0xdeadbeefu : 0;

        ref_prefixes(start, p, MAX_LEN);
        for (size_t l = 0; l <= MAX_LEN; l++)
            if (ebf_crc32c(start, p, l) != want[l])
                ck_abort_msg("path %d offset %zu length %zu: %08x, want %08x", _i, offsets[o],
                             l, ebf_crc32c(start, p, l), want[l]);
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* ebf_crc32c_seq over the sequence itself: the CRC of every word count
 * 0..512 at every offset, and a diff of 0. */
START_TEST(test_seq_all_lengths)
{
    uint64_t w = 0x0123456789abcdefull, diff;

    if (!use_path((size_t)_i))
        return;
    for (size_t o = 0; o < N_OFFSETS; o++) {
        uint8_t *p = buf + offsets[o];

        store_seq(p, MAX_LEN / 8, w);
        ref_prefixes(0, p, MAX_LEN);
        for (size_t n = 0; n <= MAX_LEN / 8; n++) {
            diff = 1;
            uint32_t c = ebf_crc32c_seq(0, p, n, w, STEP, &diff);
            if (c != want[8 * n] || diff != 0)
                ck_abort_msg("path %d offset %zu words %zu: crc %08x want %08x, diff %llx", _i,
                             offsets[o], n, c, want[8 * n], (unsigned long long)diff);
        }
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* Over other bytes the diff is the OR of each word XOR its expected word. */
START_TEST(test_seq_diff_random)
{
    uint64_t w = 77, diff;

    if (!use_path((size_t)_i))
        return;
    for (size_t o = 0; o < N_OFFSETS; o++) {
        uint8_t *p = buf + offsets[o];

        fill_random(buf, sizeof(buf), 99 + o);
        store_seq(p, MAX_LEN / 8, w);
        for (size_t k = 0; k < 64; k++)         /* 64 words with one byte in 256 off */
            p[(ebf_mix64(k + 1000 * o) >> 7) % MAX_LEN] ^= (uint8_t)(1u << (k % 8));
        ref_prefixes(0, p, MAX_LEN);
        for (size_t n = 0; n <= MAX_LEN / 8; n += 1 + n / 64) {
            uint64_t d = 0, x = w;
            for (size_t i = 0; i < n; i++, x += STEP) {
                uint64_t v = 0;
                for (int k = 0; k < 8; k++)
                    v |= (uint64_t)p[8 * i + (size_t)k] << (8 * k);
                d |= v ^ x;
            }
            ck_assert_uint_eq(ebf_crc32c_seq(0, p, n, w, STEP, &diff), want[8 * n]);
            ck_assert_uint_eq(diff, d);
        }
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* A single flipped bit anywhere is found: the diff is exactly that bit,
 * and the CRC is the CRC of the flipped bytes (and not the unflipped one). */
START_TEST(test_seq_flipped_bit)
{
    static const size_t counts[] = { 1, 7, 31, 32, 33, 35, 47, 128, 133, 300, 512 };
    uint64_t w = 0xfedcba9876543210ull, diff;

    if (!use_path((size_t)_i))
        return;
    for (size_t m = 0; m < sizeof(counts) / sizeof(counts[0]); m++) {
        size_t n = counts[m];
        uint8_t *p = buf + 3 * m % 16;

        store_seq(p, n, w);
        uint32_t good = ebf_crc32c(0, p, 8 * n);
        for (size_t bit = 0; bit < 64 * n; bit += n > 133 ? 13 : 1) {
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            uint32_t c = ebf_crc32c_seq(0, p, n, w, STEP, &diff);
            uint32_t flipped = ebf_crc32c(0, p, 8 * n);
            p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            if (diff != 1ull << (bit % 64) || c != flipped || c == good)
                ck_abort_msg("path %d words %zu bit %zu: diff %llx, crc %08x (flipped %08x, "
                             "good %08x)", _i, n, bit, (unsigned long long)diff, c, flipped, good);
        }
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* ebf_crc32c_fill_seq stores exactly the sequence, nothing around it, and
 * returns the CRC of what it stored, for every word count at every offset. */
START_TEST(test_fill_all_lengths)
{
    static uint8_t expect[MAX_LEN + SLACK];
    uint64_t w = 0x1111222233334444ull;

    if (!use_path((size_t)_i))
        return;
    for (size_t o = 0; o < N_OFFSETS; o += 3) {
        size_t off = offsets[o];

        memset(expect, 0xa5, sizeof(expect));
        store_seq(expect + off, MAX_LEN / 8, w);
        ref_prefixes(0x5a5a5a5au, expect + off, MAX_LEN);
        for (size_t n = 0; n <= MAX_LEN / 8; n++) {
            memset(buf, 0xa5, sizeof(buf));
            uint32_t c = ebf_crc32c_fill_seq(0x5a5a5a5au, buf + off, n, w, STEP);
            ck_assert_msg(c == want[8 * n], "path %d offset %zu words %zu: %08x, want %08x",
                          _i, off, n, c, want[8 * n]);
            ck_assert_msg(memcmp(buf, expect, off + 8 * n) == 0, "words %zu", n);
            size_t i = off + 8 * n;
            while (i < sizeof(buf) && buf[i] == 0xa5)
                i++;
            ck_assert_msg(i == sizeof(buf), "words %zu: byte %zu written", n, i);
        }
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* Inputs of more than one round (a round takes at most 4 x 256 words and
 * the last one up to 15 more): the three functions over lengths around
 * the rounds' edges, against the reference. */
START_TEST(test_long_inputs)
{
    static const size_t words[] = { 1023, 1024, 1025, 1039, 1040, 1041, 1055, 1071, 2048,
                                    2083, 2100, 3072, 3100 };
    static uint8_t big[8 * 3100 + 8], expect[8 * 3100 + 8];
    static uint32_t pre[8 * 3100 + 1];
    uint64_t w = 0xabcdef0123456789ull, diff;

    if (!use_path((size_t)_i))
        return;
    for (size_t o = 0; o < 8; o += 5) {
        store_seq(expect + o, 3100, w);
        pre[0] = 0;
        for (size_t l = 1; l <= 8 * 3100; l++)
            pre[l] = ref_crc32c(pre[l - 1], expect + o + l - 1, 1);
        for (size_t m = 0; m < sizeof(words) / sizeof(words[0]); m++) {
            size_t n = words[m];
            memset(big, 0, sizeof(big));
            ck_assert_uint_eq(ebf_crc32c_fill_seq(0, big + o, n, w, STEP), pre[8 * n]);
            ck_assert_int_eq(memcmp(big + o, expect + o, 8 * n), 0);
            ck_assert_uint_eq(ebf_crc32c(0, big + o, 8 * n), pre[8 * n]);
            ck_assert_uint_eq(ebf_crc32c(0, big + o, 8 * n - 3), pre[8 * n - 3]);
            ck_assert_uint_eq(ebf_crc32c_seq(0, big + o, n, w, STEP, &diff), pre[8 * n]);
            ck_assert_uint_eq(diff, 0);
            big[o + 8 * n - 1] ^= 0x80;     /* the last bit of the last word */
            ebf_crc32c_seq(0, big + o, n, w, STEP, &diff);
            ck_assert_uint_eq(diff, 1ull << 63);
        }
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* The raw state (no inversions) over n bytes from c, by the reference. */
static uint32_t raw_ref(uint32_t c, const uint8_t *p, size_t n)
{
    return ~ref_crc32c(~c, p, n);
}

/* ebf_crc_join of the four blocks' states is the state over all of them,
 * for every block length b and every extra e, on the path of the index. */
START_TEST(test_join)
{
    static uint8_t d[8 * (4 * EBF_CRC_JOIN_MAX + EBF_CRC_JOIN_EXTRA)];

    if (!use_path((size_t)_i))
        return;
    fill_random(d, sizeof(d), 4242);
    for (size_t b = 1; b <= EBF_CRC_JOIN_MAX; b++) {
        size_t e = b == EBF_CRC_JOIN_MAX ? EBF_CRC_JOIN_EXTRA : b % (EBF_CRC_JOIN_EXTRA + 1);
        uint32_t c = (uint32_t)ebf_mix64(b), part[4];

        for (size_t j = 0; j < 4; j++)
            part[j] = raw_ref(0, d + 8 * b * j, 8 * (b + (j == 3 ? e : 0)));
        uint32_t all = raw_ref(c, d, 8 * (4 * b + e));
        ck_assert_msg(ebf_crc_join(c, part, b, e) == all, "path %d b %zu e %zu: %08x want %08x",
                      _i, b, e, ebf_crc_join(c, part, b, e), all);
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* The PCLMULQDQ join and the software one agree on every b and e. */
START_TEST(test_join_paths_agree)
{
    if (ebf_crc_use(EBF_CRC_SSE42_4) != EBF_CRC_SSE42_4)
        return;
    for (size_t b = 1; b <= EBF_CRC_JOIN_MAX; b++)
        for (size_t e = 0; e <= EBF_CRC_JOIN_EXTRA; e++) {
            uint32_t c = (uint32_t)ebf_mix64(b * 131 + e), part[4];
            for (size_t j = 0; j < 4; j++)
                part[j] = (uint32_t)ebf_mix64(b * 977 + e * 5 + j);
            ebf_crc_use(EBF_CRC_BEST);
            uint32_t hw = ebf_crc_join(c, part, b, e);
            ebf_crc_use(EBF_CRC_TABLE);
            uint32_t sw = ebf_crc_join(c, part, b, e);
            ck_assert_msg(hw == sw, "b %zu e %zu: %08x and %08x", b, e, hw, sw);
        }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* The prefetching paths against the plain ones: the CRC and the sequence
 * check of every length up to a jumbo piece and past a round (8 KiB + 400
 * words) at several alignments, with the chains' stream prefetch on and
 * off, and after the frame-ahead hint (ebf_crc_prefetch), which leaves
 * the bytes as they were; all equal to the reference. */
START_TEST(test_prefetch_agrees)
{
    static uint8_t big[8 * 1440 + 64], copy[sizeof(big)];
    static uint32_t pre[8 * 1440 + 1];
    uint64_t w = 0x5555aaaa3333ccccull, d_on, d_off;

    if (!use_path((size_t)_i))
        return;
    for (size_t o = 0; o < 64; o += 21) {
        store_seq(big + o, 1440, w);
        pre[0] = 0;
        for (size_t l = 1; l <= 8 * 1440; l++)
            pre[l] = ref_crc32c(pre[l - 1], big + o + l - 1, 1);
        memcpy(copy, big, sizeof(big));
        for (size_t n = 0; n <= 1440; n++) {
            ebf_crc_prefetch(big + o, 8 * n);
            ck_assert_int_eq(ebf_crc_stream_prefetch(0), 1);
            uint32_t off = ebf_crc32c(0, big + o, 8 * n), soff = ebf_crc32c_seq(0, big + o, n, w,
                                                                              STEP, &d_off);
            ck_assert_int_eq(ebf_crc_stream_prefetch(1), 0);
            uint32_t on = ebf_crc32c(0, big + o, 8 * n), son = ebf_crc32c_seq(0, big + o, n, w,
                                                                            STEP, &d_on);
            if (on != pre[8 * n] || off != pre[8 * n] || son != pre[8 * n] ||
                soff != pre[8 * n] || d_on != 0 || d_off != 0)
                ck_abort_msg("path %d offset %zu words %zu: crc %08x/%08x seq %08x/%08x "
                             "(prefetch on/off), want %08x", _i, o, n, on, off, son, soff,
                             pre[8 * n]);
        }
        ck_assert_int_eq(memcmp(copy, big, sizeof(big)), 0);
    }
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

/* The four-chain paths' one-round CRC (inputs under 4 (EBF_CRC_JOIN_MAX +
 * 1) words, a jumbo piece's included) past test_crc32c_all_lengths' 4096:
 * every byte length from there to a word past the one-round limit, at
 * six alignments, from 0 and from a nonzero CRC, after the frame-ahead
 * hint (ebf_crc_prefetch), which leaves the bytes as they were; all equal
 * to the reference. The table and one-chain
 * paths have no rounds: their lengths are the other tests'. */
START_TEST(test_one_round_all_lengths)
{
    enum { TOP = 8 * (4 * (EBF_CRC_JOIN_MAX + 1) + 1) };
    static const size_t offs[] = { 0, 1, 3, 8, 33, 63 };
    static uint8_t big[TOP + 64], copy[sizeof(big)];
    static uint32_t pre[TOP + 1];

    if (paths[_i] < EBF_CRC_SSE42_4 || !use_path((size_t)_i))
        return;
    fill_random(big, sizeof(big), 0x77);
    memcpy(copy, big, sizeof(big));
    for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++) {
        uint32_t start = o % 2 ? 0x12345678u : 0;
        pre[0] = start;
        for (size_t l = 1; l <= TOP; l++)
            pre[l] = ref_crc32c(pre[l - 1], big + offs[o] + l - 1, 1);
        for (size_t l = MAX_LEN; l <= TOP; l++) {
            ebf_crc_prefetch(big + offs[o], l);
            uint32_t got = ebf_crc32c(start, big + offs[o], l);
            if (got != pre[l])
                ck_abort_msg("path %d offset %zu length %zu: %08x, want %08x", _i, offs[o], l,
                             got, pre[l]);
        }
    }
    ck_assert_int_eq(memcmp(copy, big, sizeof(big)), 0);
    ebf_crc_use(EBF_CRC_BEST);
}
END_TEST

static void stream_prefetch_off(void)
{
    ebf_crc_stream_prefetch(0);
}

static void stream_prefetch_on(void)
{
    ebf_crc_stream_prefetch(1);
}

/* --- Suite ----------------------------------------------------------------- */

Suite *ebf_crc_paths_suite(void);   /* called by check-main.c, which has no header */

Suite *ebf_crc_paths_suite(void)
{
    Suite *s = suite_create("crc_paths");
    TCase *tc = tcase_create("paths");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_paths_available);
    tcase_add_loop_test(tc, test_crc32c_all_lengths, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_seq_all_lengths, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_seq_diff_random, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_seq_flipped_bit, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_fill_all_lengths, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_long_inputs, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_join, 0, (int)N_PATHS);
    tcase_add_test(tc, test_join_paths_agree);
    tcase_add_loop_test(tc, test_prefetch_agrees, 0, (int)N_PATHS);
    tcase_add_loop_test(tc, test_one_round_all_lengths, 0, (int)N_PATHS);
    suite_add_tcase(s, tc);

    /* The same checks of every length and alignment on the plain paths
     * (no stream prefetch in the chains; the case above has it on). */
    TCase *plain = tcase_create("paths_no_prefetch");
    tcase_set_timeout(plain, T_TIMEOUT);
    tcase_add_checked_fixture(plain, stream_prefetch_off, stream_prefetch_on);
    tcase_add_loop_test(plain, test_crc32c_all_lengths, 0, (int)N_PATHS);
    tcase_add_loop_test(plain, test_seq_all_lengths, 0, (int)N_PATHS);
    tcase_add_loop_test(plain, test_long_inputs, 0, (int)N_PATHS);
    tcase_add_loop_test(plain, test_one_round_all_lengths, 0, (int)N_PATHS);
    suite_add_tcase(s, plain);
    return s;
}
