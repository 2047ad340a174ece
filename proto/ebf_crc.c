/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_crc.c - CRC32C: by SSE4.2 instructions in four interleaved chains when the CPU has them, else by table. */
#include "ebf_crc.h"
#include "ebf_crc_private.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define CRC_POLY 0x82F63B78u    /* Castagnoli, reflected: bit k is the coefficient of x^(31-k) */

/*
 * The crc32 instruction takes 3 cycles and can start one every cycle: one
 * chain of it runs at a third of what it allows. Long inputs therefore go
 * in rounds of four blocks, b words each, the last with e more (only in
 * the last round), one chain each, every chain from 0. The state after a
 * round is the state before it shifted over the round's 4b + e words, xor
 * each chain's state shifted over the words that follow its block
 * (ebf_crc_join). No chain waits for the state before it, so a round
 * overlaps whatever computed that state. Four chains rather than three:
 * a 1 KiB payload is then four blocks of 32 words with nothing left over
 * for the 4-word vectors of the pattern check, and each chain has slack
 * (measured: the node's check 0.72-0.78 of the plain pass with three,
 * 0.80-0.83 with four; docs/changes.md).
 * CRC4_MIN: the shortest block. CRC4_FROM_*: inputs shorter than these
 * (in words) go in one chain: measured on this project's 2-vCPU Xeon,
 * calls of 8..64 words, four chains are faster from 28 words on for
 * ebf_crc32c, 32 for ebf_crc32c_seq and 48 for ebf_crc32c_fill_seq (its
 * stores, four a round, leave less to gain).
 */
#define CRC4_MIN 7
#define CRC4_FROM_CRC 28
#define CRC4_FROM_SEQ 32
#define CRC4_FROM_FILL 48
#define CRC4_MAX EBF_CRC_JOIN_MAX
#define CRC4_XK (4 * CRC4_MAX + EBF_CRC_JOIN_EXTRA + 1)

static uint32_t crc_table[256];
static int crc_hw;              /* enum ebf_crc_path in use */
static int crc_best;            /* the best path this CPU has */
static int crc_pf = 1;          /* ebf_crc_stream_prefetch */
/* crc_xk[m] = x^(64m - 33) mod P: the factor that shifts a state by m
 * words, less the x^33 that the carry-less product and the crc32
 * instruction's reduction bring (crc4_join). */
static uint32_t crc_xk[CRC4_XK];

static inline uint32_t crc_mulx(uint32_t a)
{
    return (a >> 1) ^ (CRC_POLY & (0u - (a & 1u)));
}

/* Runs before main(): the tables and the CPU probe are ready before any thread. */
__attribute__((constructor)) static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = crc_mulx(c);
        crc_table[i] = c;
    }
    uint32_t x = 1u;            /* x^31 = x^(64 - 33) */
    for (size_t m = 1; m < CRC4_XK; m++) {
        crc_xk[m] = x;
        for (int k = 0; k < 64; k++)
            x = crc_mulx(x);
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_best = !__builtin_cpu_supports("sse4.2") ? EBF_CRC_TABLE
               : !__builtin_cpu_supports("pclmul") || !__builtin_cpu_supports("avx2") ? EBF_CRC_SSE42
               : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
                   ? EBF_CRC_SSE42_4_AVX512
                   : EBF_CRC_SSE42_4;
#else
    crc_best = EBF_CRC_TABLE;
#endif
    crc_hw = crc_best;
}

int ebf_crc_stream_prefetch(int on)
{
    int was = crc_pf;
    crc_pf = on != 0;
    return was;
}

enum ebf_crc_path ebf_crc_use(enum ebf_crc_path want)
{
    crc_hw = (int)want < crc_best ? (int)want : crc_best;
    return (enum ebf_crc_path)crc_hw;
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t len)
{
    while (len--)
        c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* a times b modulo the polynomial, both reflected; Horner from b's x^31. */
static uint32_t crc_gf_mul(uint32_t a, uint32_t b)
{
    uint32_t r = 0;
    for (int k = 0; k < 32; k++, b >>= 1)
        r = crc_mulx(r) ^ (a & (0u - (b & 1u)));
    return r;
}

/* The raw state c over m more words of zeros, in software. */
static uint32_t crc_shift_sw(uint32_t c, size_t m)
{
    uint32_t r = crc_gf_mul(c, crc_xk[m]);
    for (int k = 0; k < 33; k++)
        r = crc_mulx(r);
    return r;
}

#if defined(__x86_64__)
/* One chain: 8 bytes per instruction, then 4, then 1 at a time. */
__attribute__((target("sse4.2")))
static inline uint32_t crc1_x86(uint32_t c, const uint8_t *p, size_t len)
{
    uint64_t c64 = c;
    while (len >= 8) {
        c64 = __builtin_ia32_crc32di(c64, load_le64(p));
        p += 8;
        len -= 8;
    }
    c = (uint32_t)c64;
    if (len >= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        c = __builtin_ia32_crc32si(c, w);
        p += 4;
        len -= 4;
    }
    while (len--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}

__attribute__((target("sse4.2")))
static inline uint32_t crc1_seq_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w,
                                    uint64_t step, uint64_t *diff)
{
    uint64_t c64 = c, d = 0;
    for (size_t i = 0; i < n; i++, p += 8, w += step) {
        uint64_t x = load_le64(p);
        c64 = __builtin_ia32_crc32di(c64, x);
        d |= x ^ w;
    }
    *diff = d;
    return (uint32_t)c64;
}

__attribute__((target("sse4.2")))
static inline uint32_t crc1_fill_x86(uint32_t c, uint8_t *p, size_t n, uint64_t w, uint64_t step)
{
    uint64_t c64 = c;
    for (size_t i = 0; i < n; i++, p += 8, w += step) {
        memcpy(p, &w, 8);
        c64 = __builtin_ia32_crc32di(c64, w);
    }
    return (uint32_t)c64;
}

/*
 * The state after a round (see the top of the file): c shifted over
 * 4b + e words, c0 over 3b + e, c1 over 2b + e, c2 over b + e, xor c3.
 * A state times x^(64m - 33) by PCLMULQDQ is a product of at most 63
 * bits, and crc32 of it from 0 is the state times x^(64m) mod P: the
 * instruction multiplies by x^32 and reduces, and the product of two
 * reflected numbers is one place short of the reflected 64-bit product.
 * The four products are added before the one reduction.
 */
__attribute__((target("sse4.2,pclmul")))
static inline uint32_t crc4_join(uint32_t c, uint64_t c0, uint64_t c1, uint64_t c2, uint64_t c3,
                                 size_t b, size_t e)
{
    __m128i u = _mm_set_epi64x((long long)c1, (long long)c0);
    __m128i ku = _mm_set_epi64x(crc_xk[2 * b + e], crc_xk[3 * b + e]);
    __m128i v = _mm_set_epi64x((long long)c, (long long)c2);
    __m128i kv = _mm_set_epi64x(crc_xk[4 * b + e], crc_xk[b + e]);
    __m128i x = _mm_xor_si128(_mm_clmulepi64_si128(u, ku, 0x00),
                              _mm_clmulepi64_si128(u, ku, 0x11));
    x = _mm_xor_si128(x, _mm_clmulepi64_si128(v, kv, 0x00));
    x = _mm_xor_si128(x, _mm_clmulepi64_si128(v, kv, 0x11));
    return (uint32_t)__builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(x)) ^ (uint32_t)c3;
}

/* The next round over n words: returns b, a multiple of unit (0: one
 * chain for the rest), and e, what the fourth block takes on top of b
 * when fewer than four units would be left over. */
static inline size_t crc4_block(size_t n, size_t unit, size_t *e)
{
    size_t b = n / 4;
    if (b > CRC4_MAX)
        b = CRC4_MAX;
    b -= b % unit;
    *e = n - 4 * b < 4 * unit ? n - 4 * b : 0;
    return b >= CRC4_MIN ? b : 0;
}

/* The four chains of a round and the blocks they read. */
struct crc4 {
    uint64_t c[4];
    const uint8_t *p[4];
};

static inline void crc4_start(struct crc4 *k, const uint8_t *p, size_t b)
{
    for (int j = 0; j < 4; j++) {
        k->c[j] = 0;
        k->p[j] = p + 8 * b * (size_t)j;
    }
}

/*
 * At offset i of a round's blocks of b words, on each new cache line:
 * prefetch the line EBF_CRC_STREAM_AHEAD bytes further on in each of the
 * four blocks, while that is still inside its block. The four chains read
 * four separate regions, which a hardware stream prefetcher may not follow
 * all at once; a long piece (a jumbo frame's 8000 B: blocks of 2 KiB) then
 * has its next lines on their way while the chains work on these.
 */
static inline void crc4_ahead(const struct crc4 *k, size_t i, size_t b)
{
    if ((i & 63) == 0 && crc_pf && i + EBF_CRC_STREAM_AHEAD < 8 * b)
        for (int j = 0; j < 4; j++)
            __builtin_prefetch(k->p[j] + i + EBF_CRC_STREAM_AHEAD, 0, 3);
}

/* The word at offset i of each block into its chain. */
__attribute__((target("sse4.2")))
static inline void crc4_word(struct crc4 *k, size_t i)
{
    k->c[0] = __builtin_ia32_crc32di(k->c[0], load_le64(k->p[0] + i));
    k->c[1] = __builtin_ia32_crc32di(k->c[1], load_le64(k->p[1] + i));
    k->c[2] = __builtin_ia32_crc32di(k->c[2], load_le64(k->p[2] + i));
    k->c[3] = __builtin_ia32_crc32di(k->c[3], load_le64(k->p[3] + i));
}

__attribute__((target("sse4.2,pclmul")))
static uint32_t crc4_x86(uint32_t c, const uint8_t *p, size_t len)
{
    size_t b, e;
    while ((b = crc4_block(len / 8, 1, &e)) != 0) {
        struct crc4 k;
        crc4_start(&k, p, b);
        for (size_t i = 0; i < 8 * b; i += 8) {
            crc4_ahead(&k, i, b);
            crc4_word(&k, i);
        }
        k.c[3] = crc1_x86((uint32_t)k.c[3], k.p[3] + 8 * b, 8 * e);
        c = crc4_join(c, k.c[0], k.c[1], k.c[2], k.c[3], b, e);
        p += 8 * (4 * b + e);
        len -= 8 * (4 * b + e);
    }
    return crc1_x86(c, p, len);
}

/* The OR of the four AVX2 lanes. */
__attribute__((target("sse4.2,pclmul,avx2")))
static inline uint64_t crc4_or_lanes(__m256i d)
{
    __m128i h = _mm_or_si128(_mm256_castsi256_si128(d), _mm256_extracti128_si256(d, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(h, _mm_unpackhi_epi64(h, h)));
}

/* d | (the 4 words at p ^ *w), and the next 4 expected words into *w. */
__attribute__((target("sse4.2,pclmul,avx2")))
static inline __m256i crc4_cmp(__m256i d, const uint8_t *p, __m256i *w, __m256i s4)
{
    d = _mm256_or_si256(d, _mm256_xor_si256(_mm256_loadu_si256((const void *)p), *w));
    *w = _mm256_add_epi64(*w, s4);
    return d;
}

/* The same in one AVX-512VL instruction, ternary logic 0xf6: d | (w ^ p). */
__attribute__((target("sse4.2,pclmul,avx2,avx512f,avx512vl")))
static inline __m256i crc4_cmp3(__m256i d, const uint8_t *p, __m256i *w, __m256i s4)
{
    d = _mm256_ternarylogic_epi64(d, *w, _mm256_loadu_si256((const void *)p), 0xf6);
    *w = _mm256_add_epi64(*w, s4);
    return d;
}

/* The expected words w + j step (j = 0..3) of the first 4-word vector of
 * each block of b words. */
#define CRC4_SEQ_V(w, b, step, lane, j)                                                   \
    _mm256_add_epi64(_mm256_set1_epi64x((long long)((w) + (size_t)(j) * (b) * (step))), (lane))

/*
 * Four chains, and the words compared with the sequence four at a time on
 * vectors in the same loop: per 32 bytes of each block, four crc32
 * instructions and, with AVX2 (CMP crc4_cmp), three vector operations (xor
 * with the loaded words, or into the difference, add to the expected
 * words); with AVX-512VL (crc4_cmp3) two, the xor and the or in one
 * ternary-logic instruction, so that fewer of them compete with the crc32
 * instructions for their port. b is a multiple of 4; the fourth block's e
 * more words go one at a time on its chain. One body for both: a macro,
 * as each needs its own target attribute.
 */
#define CRC4_SEQ_BODY(CMP)                                                                 \
    const __m256i s4 = _mm256_set1_epi64x((long long)(4 * step));                         \
    const __m256i lane = _mm256_set_epi64x((long long)(3 * step), (long long)(2 * step),  \
                                           (long long)step, 0);                           \
    __m256i d = _mm256_setzero_si256();                                                    \
    uint64_t t = 0, te;                                                                    \
    size_t b, e;                                                                           \
    while ((b = crc4_block(n, 4, &e)) != 0) {                                              \
        struct crc4 k;                                                                     \
        crc4_start(&k, p, b);                                                              \
        __m256i v0 = CRC4_SEQ_V(w, b, step, lane, 0), v1 = CRC4_SEQ_V(w, b, step, lane, 1); \
        __m256i v2 = CRC4_SEQ_V(w, b, step, lane, 2), v3 = CRC4_SEQ_V(w, b, step, lane, 3); \
        for (size_t i = 0; i < 8 * b; i += 32) {                                           \
            crc4_ahead(&k, i, b);                                                          \
            crc4_word(&k, i);                                                              \
            crc4_word(&k, i + 8);                                                          \
            crc4_word(&k, i + 16);                                                         \
            crc4_word(&k, i + 24);                                                         \
            d = CMP(d, k.p[0] + i, &v0, s4);                                               \
            d = CMP(d, k.p[1] + i, &v1, s4);                                               \
            d = CMP(d, k.p[2] + i, &v2, s4);                                               \
            d = CMP(d, k.p[3] + i, &v3, s4);                                               \
        }                                                                                  \
        k.c[3] = crc1_seq_x86((uint32_t)k.c[3], k.p[3] + 8 * b, e, w + 4 * b * step, step,  \
                              &te);                                                        \
        t |= te;                                                                           \
        c = crc4_join(c, k.c[0], k.c[1], k.c[2], k.c[3], b, e);                            \
        p += 8 * (4 * b + e);                                                              \
        n -= 4 * b + e;                                                                    \
        w += (4 * b + e) * step;                                                           \
    }                                                                                      \
    c = crc1_seq_x86(c, p, n, w, step, &te);                                               \
    *diff = t | te | crc4_or_lanes(d);                                                     \
    return c

__attribute__((target("sse4.2,pclmul,avx2")))
static uint32_t crc4_seq_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w, uint64_t step,
                             uint64_t *diff)
{
    CRC4_SEQ_BODY(crc4_cmp);
}

__attribute__((target("sse4.2,pclmul,avx2,avx512f,avx512vl")))
static uint32_t crc4_seq3_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w, uint64_t step,
                              uint64_t *diff)
{
    CRC4_SEQ_BODY(crc4_cmp3);
}

/* The word at offset i + j of each of the four blocks into its chain. */
#define CRC4_ONE_WORD(j)                                                \
    c0 = __builtin_ia32_crc32di(c0, load_le64(p + i + (j)));            \
    c1 = __builtin_ia32_crc32di(c1, load_le64(p1 + i + (j)));           \
    c2 = __builtin_ia32_crc32di(c2, load_le64(p2 + i + (j)));           \
    c3 = __builtin_ia32_crc32di(c3, load_le64(p3 + i + (j)))

/* crc4_ahead's four lines, from the straight-line rounds' block pointers. */
#define CRC4_ONE_AHEAD()                                                \
    do {                                                                \
        __builtin_prefetch(p + i + EBF_CRC_STREAM_AHEAD, 0, 3);         \
        __builtin_prefetch(p1 + i + EBF_CRC_STREAM_AHEAD, 0, 3);        \
        __builtin_prefetch(p2 + i + EBF_CRC_STREAM_AHEAD, 0, 3);        \
        __builtin_prefetch(p3 + i + EBF_CRC_STREAM_AHEAD, 0, 3);        \
    } while (0)

/*
 * crc4_seq3_x86 for n < 4 (CRC4_MAX + 4) words, every piece a node checks:
 * one round, blocks of b = 4 floor(n / 16) words, the fourth with the
 * e = n mod 16 more (at most EBF_CRC_JOIN_EXTRA). Straight-line, the
 * chains and block pointers in registers: none of the round loop's
 * bookkeeping, its struct on the stack or its final one-chain call over
 * no words (about 2 ns of a 1 KiB piece's 37.6).
 */
__attribute__((target("sse4.2,pclmul,avx2,avx512f,avx512vl")))
static uint32_t crc4_seq3_one_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w,
                                  uint64_t step, uint64_t *diff)
{
    size_t b = (n / 16) * 4, e = n - 4 * b;
    const uint8_t *p1 = p + 8 * b, *p2 = p1 + 8 * b, *p3 = p2 + 8 * b;
    const __m256i s4 = _mm256_set1_epi64x((long long)(4 * step));
    const __m256i lane = _mm256_set_epi64x((long long)(3 * step), (long long)(2 * step),
                                           (long long)step, 0);
    __m256i v0 = CRC4_SEQ_V(w, b, step, lane, 0), v1 = CRC4_SEQ_V(w, b, step, lane, 1);
    __m256i v2 = CRC4_SEQ_V(w, b, step, lane, 2), v3 = CRC4_SEQ_V(w, b, step, lane, 3);
    __m256i d = _mm256_setzero_si256();
    uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, te;

    for (size_t i = 0; i < 8 * b; i += 32) {
        if ((i & 63) == 0 && crc_pf && i + EBF_CRC_STREAM_AHEAD < 8 * b)
            CRC4_ONE_AHEAD();
        CRC4_ONE_WORD(0);
        CRC4_ONE_WORD(8);
        CRC4_ONE_WORD(16);
        CRC4_ONE_WORD(24);
        d = crc4_cmp3(d, p + i, &v0, s4);
        d = crc4_cmp3(d, p1 + i, &v1, s4);
        d = crc4_cmp3(d, p2 + i, &v2, s4);
        d = crc4_cmp3(d, p3 + i, &v3, s4);
    }
    c3 = crc1_seq_x86((uint32_t)c3, p3 + 8 * b, e, w + 4 * b * step, step, &te);
    *diff = te | crc4_or_lanes(d);
    return crc4_join(c, c0, c1, c2, c3, b, e);
}

/*
 * crc4_x86 for fewer than 4 (CRC4_MAX + 1) words, every piece up to a
 * jumbo frame's (8000 B: 250-word blocks): one round, blocks of b = n / 4
 * words, the fourth with the e = n mod 4 more, the len mod 8 bytes after
 * the join. Straight-line as crc4_seq3_one_x86, the chains and block
 * pointers in registers, eight words of each block per pass and the
 * stream prefetch once a pass (crc4_ahead's lines): none of the round
 * loop's bookkeeping, its struct or its second look at the length.
 */
__attribute__((target("sse4.2,pclmul")))
static uint32_t crc4_one_x86(uint32_t c, const uint8_t *p, size_t len)
{
    size_t n = len / 8, b = n / 4, e = n - 4 * b, end = 8 * b, i = 0;
    const uint8_t *p1 = p + end, *p2 = p1 + end, *p3 = p2 + end;
    uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;

    for (; i + 64 <= end; i += 64) {
        if (crc_pf && i + EBF_CRC_STREAM_AHEAD < end)
            CRC4_ONE_AHEAD();
        CRC4_ONE_WORD(0);
        CRC4_ONE_WORD(8);
        CRC4_ONE_WORD(16);
        CRC4_ONE_WORD(24);
        CRC4_ONE_WORD(32);
        CRC4_ONE_WORD(40);
        CRC4_ONE_WORD(48);
        CRC4_ONE_WORD(56);
    }
    for (; i < end; i += 8) {
        CRC4_ONE_WORD(0);
    }
    c3 = crc1_x86((uint32_t)c3, p3 + end, 8 * e);
    return crc1_x86(crc4_join(c, c0, c1, c2, c3, b, e), p + 8 * n, len & 7);
}
#undef CRC4_ONE_WORD
#undef CRC4_ONE_AHEAD

/* Four chains over the words as they are stored. */
__attribute__((target("sse4.2,pclmul")))
static uint32_t crc4_fill_x86(uint32_t c, uint8_t *p, size_t n, uint64_t w, uint64_t step)
{
    size_t b, e;
    while ((b = crc4_block(n, 1, &e)) != 0) {
        uint8_t *q = p + 8 * b, *r = q + 8 * b, *s = r + 8 * b;
        uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0, v0 = w, v1 = w + b * step;
        uint64_t v2 = v1 + b * step, v3 = v2 + b * step;
        for (size_t i = 0; i < 8 * b; i += 8, v0 += step, v1 += step, v2 += step, v3 += step) {
            memcpy(p + i, &v0, 8);
            memcpy(q + i, &v1, 8);
            memcpy(r + i, &v2, 8);
            memcpy(s + i, &v3, 8);
            c0 = __builtin_ia32_crc32di(c0, v0);
            c1 = __builtin_ia32_crc32di(c1, v1);
            c2 = __builtin_ia32_crc32di(c2, v2);
            c3 = __builtin_ia32_crc32di(c3, v3);
        }
        c3 = crc1_fill_x86((uint32_t)c3, s + 8 * b, e, v3, step);
        c = crc4_join(c, c0, c1, c2, c3, b, e);
        p += 8 * (4 * b + e);
        n -= 4 * b + e;
        w += (4 * b + e) * step;
    }
    return crc1_fill_x86(c, p, n, w, step);
}

__attribute__((target("sse4.2")))
static uint32_t crc_hw_x86(uint32_t c, const uint8_t *p, size_t len)
{
    if (len >= 8 * CRC4_FROM_CRC && len < 32 * (CRC4_MAX + 1) && crc_hw >= EBF_CRC_SSE42_4)
        return crc4_one_x86(c, p, len);
    if (len >= 8 * CRC4_FROM_CRC && crc_hw >= EBF_CRC_SSE42_4)
        return crc4_x86(c, p, len);
    return crc1_x86(c, p, len);
}

__attribute__((target("sse4.2")))
static uint32_t crc_seq_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w, uint64_t step,
                            uint64_t *diff)
{
    if (n >= CRC4_FROM_SEQ && n < 4 * (CRC4_MAX + 4) && crc_hw == EBF_CRC_SSE42_4_AVX512)
        return crc4_seq3_one_x86(c, p, n, w, step, diff);
    if (n >= CRC4_FROM_SEQ && crc_hw == EBF_CRC_SSE42_4_AVX512)
        return crc4_seq3_x86(c, p, n, w, step, diff);
    if (n >= CRC4_FROM_SEQ && crc_hw == EBF_CRC_SSE42_4)
        return crc4_seq_x86(c, p, n, w, step, diff);
    return crc1_seq_x86(c, p, n, w, step, diff);
}

__attribute__((target("sse4.2")))
static uint32_t crc_fill_x86(uint32_t c, uint8_t *p, size_t n, uint64_t w, uint64_t step)
{
    if (n >= CRC4_FROM_FILL && crc_hw >= EBF_CRC_SSE42_4)
        return crc4_fill_x86(c, p, n, w, step);
    return crc1_fill_x86(c, p, n, w, step);
}
#endif

uint32_t ebf_crc_join(uint32_t c, const uint32_t part[4], size_t b, size_t e)
{
#if defined(__x86_64__)
    if (crc_hw >= EBF_CRC_SSE42_4)
        return crc4_join(c, part[0], part[1], part[2], part[3], b, e);
#endif
    return crc_shift_sw(c, 4 * b + e) ^ crc_shift_sw(part[0], 3 * b + e) ^
           crc_shift_sw(part[1], 2 * b + e) ^ crc_shift_sw(part[2], b + e) ^ part[3];
}

uint32_t ebf_crc32c_seq(uint32_t crc, const void *buf, size_t n, uint64_t w, uint64_t step,
                        uint64_t *diff)
{
    const uint8_t *p = buf;
    uint64_t d = 0;

#if defined(__x86_64__)
    if (crc_hw)
        return ~crc_seq_x86(~crc, p, n, w, step, diff);
#endif
    for (size_t i = 0; i < n; i++, w += step)
        d |= load_le64(p + 8 * i) ^ w;
    *diff = d;
    return ~crc_sw(~crc, p, 8 * n);
}

uint32_t ebf_crc32c_fill_seq(uint32_t crc, void *buf, size_t n, uint64_t w, uint64_t step)
{
    uint8_t *p = buf;

#if defined(__x86_64__)
    if (crc_hw)
        return ~crc_fill_x86(~crc, p, n, w, step);
#endif
    for (size_t i = 0; i < n; i++, w += step) {
        uint64_t v = w;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
#endif
        memcpy(p + 8 * i, &v, 8);
    }
    return ~crc_sw(~crc, p, 8 * n);
}

uint32_t ebf_crc32c(uint32_t crc, const void *buf, size_t len)
{
    uint32_t c = ~crc;

#if defined(__x86_64__)
    if (crc_hw)
        return ~crc_hw_x86(c, buf, len);
#endif
    return ~crc_sw(c, buf, len);
}
