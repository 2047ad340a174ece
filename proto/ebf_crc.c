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
