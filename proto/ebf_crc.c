/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_crc.c - CRC32C, by SSE4.2 instructions when the CPU has them, else by table. */
#include "ebf_crc.h"

#include <string.h>

static uint32_t crc_table[256];
static int crc_hw;

/* Runs before main(): the table and the CPU probe are ready before any thread. */
__attribute__((constructor)) static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
        crc_table[i] = c;
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#else
    crc_hw = 0;
#endif
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t len)
{
    while (len--)
        c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw_x86(uint32_t c, const uint8_t *p, size_t len)
{
    uint64_t c64 = c;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c64 = __builtin_ia32_crc32di(c64, w);
        p += 8;
        len -= 8;
    }
    c = (uint32_t)c64;
    while (len--)
        c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}
#endif

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_seq_x86(uint32_t c, const uint8_t *p, size_t n, uint64_t w, uint64_t step,
                            uint64_t *diff)
{
    uint64_t c64 = c, d = 0;
    for (size_t i = 0; i < n; i++, p += 8, w += step) {
        uint64_t x;
        memcpy(&x, p, 8);
        c64 = __builtin_ia32_crc32di(c64, x);
        d |= x ^ w;
    }
    *diff = d;
    return (uint32_t)c64;
}
#endif

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

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_fill_x86(uint32_t c, uint8_t *p, size_t n, uint64_t w, uint64_t step)
{
    uint64_t c64 = c;
    for (size_t i = 0; i < n; i++, p += 8, w += step) {
        memcpy(p, &w, 8);
        c64 = __builtin_ia32_crc32di(c64, w);
    }
    return (uint32_t)c64;
}
#endif

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

/* --- Combining CRCs: crc(A || B) from crc(A), crc(B) and |B| ------------------ */

/*
 * Polynomials mod P in the reflected form of the CRC itself: bit 31 is the
 * coefficient of x^0, bit 0 that of x^31. The CRC of A || B, with the
 * pre- and post-inversion ebf_crc32c does, is crc(A) x^(8|B|) + crc(B)
 * mod P (the inversions cancel out: the same algebra as zlib's
 * crc32_combine).
 */
#define CRC32C_POLY 0x82F63B78u

/* a * b mod P. */
static uint32_t crc_mulmod(uint32_t a, uint32_t b)
{
    uint32_t p = 0;

    for (uint32_t m = 1u << 31; m; m >>= 1) {
        if (a & m)
            p ^= b;
        b = (b >> 1) ^ (CRC32C_POLY & (0u - (b & 1u)));
    }
    return p;
}

/* x^(2^k) mod P for k = 0..63, and x^-33 mod P (the pclmul form's factor). */
static uint32_t crc_x2k[64];
static uint32_t crc_xm33;
static int crc_clmul;

__attribute__((constructor)) static void crc_combine_init(void)
{
    uint32_t xinv = (CRC32C_POLY << 1) | 1u;    /* x^-1: x (P - 1) / x = 1 mod P */

    crc_x2k[0] = 1u << 30;      /* x^1 */
    for (int k = 1; k < 64; k++)
        crc_x2k[k] = crc_mulmod(crc_x2k[k - 1], crc_x2k[k - 1]);
    crc_xm33 = 1u << 31;
    for (int k = 0; k < 33; k++)
        crc_xm33 = crc_mulmod(crc_xm33, xinv);
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
#endif
}

/* x^n mod P. */
static uint32_t crc_xpow(uint64_t n)
{
    uint32_t p = 1u << 31;      /* x^0 */

    for (int k = 0; n; n >>= 1, k++)
        if (n & 1)
            p = crc_mulmod(crc_x2k[k], p);
    return p;
}

uint32_t ebf_crc32c_combine(uint32_t crc1, uint32_t crc2, size_t len2)
{
    return crc_mulmod(crc_xpow(8 * (uint64_t)len2), crc1) ^ crc2;
}

struct ebf_crc32c_shift ebf_crc32c_shift_make(size_t len2)
{
    uint32_t k = crc_xpow(8 * (uint64_t)len2);
    struct ebf_crc32c_shift s = {.k = k, .k_clmul = crc_mulmod(k, crc_xm33)};

    return s;
}

#if defined(__x86_64__)
/* a * k x^33 mod P: the 63-bit carry-less product of the reflected values
 * is a k x (as a 64-bit reflected value), and the CRC instruction over it
 * multiplies by x^32 and reduces mod P. */
__attribute__((target("pclmul,sse4.2")))
static uint32_t crc_shift_clmul(uint32_t a, uint32_t k_clmul)
{
    typedef long long v2di __attribute__((vector_size(16)));
    v2di va = {(long long)a, 0}, vk = {(long long)k_clmul, 0};
    v2di pr = __builtin_ia32_pclmulqdq128(va, vk, 0);

    return (uint32_t)__builtin_ia32_crc32di(0, (unsigned long long)pr[0]);
}
#endif

uint32_t ebf_crc32c_combine_shift(uint32_t crc1, uint32_t crc2, const struct ebf_crc32c_shift *s)
{
#if defined(__x86_64__)
    if (crc_clmul)
        return crc_shift_clmul(crc1, s->k_clmul) ^ crc2;
#endif
    return crc_mulmod(s->k, crc1) ^ crc2;
}

#if defined(__x86_64__)
/* The words of [i, end) (end - i a multiple of 4) into c. */
__attribute__((target("sse4.2")))
static inline uint64_t crc_words_x86(uint64_t c, const uint8_t *p, size_t i, size_t end)
{
    for (; i + 8 <= end; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    if (i < end) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        c = __builtin_ia32_crc32si((uint32_t)c, w);
    }
    return c;
}

__attribute__((target("pclmul,sse4.2")))
static uint32_t crc_hdr_combine_x86(const uint8_t *p, size_t skip, size_t len, uint32_t crc2,
                                    uint32_t k_clmul)
{
    uint64_t c = crc_words_x86(0xffffffffu, p, 0, skip);

    c = crc_words_x86(c, p, skip + 4, len);
    return crc_shift_clmul(~(uint32_t)c, k_clmul) ^ crc2;
}
#endif

uint32_t ebf_crc32c_hdr_combine(const void *hdr, size_t skip, size_t len, uint32_t crc2,
                                const struct ebf_crc32c_shift *s)
{
    const uint8_t *p = hdr;

#if defined(__x86_64__)
    if (crc_clmul && (skip | len) % 4 == 0)
        return crc_hdr_combine_x86(p, skip, len, crc2, s->k_clmul);
#endif
    uint32_t c = ebf_crc32c(ebf_crc32c(0, p, skip), p + skip + 4, len - skip - 4);
    return crc_mulmod(s->k, c) ^ crc2;
}
