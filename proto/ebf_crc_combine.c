/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_crc_combine.c - CRC32C of A || B from the CRCs of A and B and |B|: the shift by carry-less multiply, a header's CRC combined with its body's. */
#include "ebf_crc.h"

#include <string.h>

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
    crc_clmul = ebf_crc32c_has_clmul();
}

int ebf_crc32c_has_clmul(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
#else
    return 0;
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
__attribute__((target("pclmul,sse4.2")))
static uint32_t crc_shift_clmul(uint32_t a, uint32_t k_clmul)
{
    return ebf_crc32c_shift_clmul_x86(a, k_clmul);
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
