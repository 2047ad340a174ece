/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_pattern.c - fill and check the emulated payload pattern, a 64-bit word at a time. */
#include "ebf_pattern.h"

#include <string.h>

#include "ebf_crc.h"
#include "ebf_mix.h"

/* Word i of a fragment is base + i * weyl, stored little-endian. */
#define PATTERN_WEYL 0x9e3779b97f4a7c15ull

static inline uint64_t pattern_base(uint16_t source, uint64_t event_id)
{
    return ebf_mix64(event_id ^ ((uint64_t)source << 48) ^ 0x65626661726dull);
}

static inline uint8_t pattern_byte(uint64_t base, uint64_t pos)
{
    uint64_t w = base + (pos >> 3) * PATTERN_WEYL;
    return (uint8_t)(w >> ((pos & 7) * 8));
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

void ebf_pattern_fill(uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                      uint32_t off)
{
    uint64_t base = pattern_base(source, event_id);
    uint64_t pos = off;
    size_t i = 0;

    for (; i < len && (pos & 7); i++, pos++)
        buf[i] = pattern_byte(base, pos);
    uint64_t w = base + (pos >> 3) * PATTERN_WEYL;
    for (; i + 8 <= len; i += 8, pos += 8, w += PATTERN_WEYL)
        store_le64(buf + i, w);
    for (; i < len; i++, pos++)
        buf[i] = pattern_byte(base, pos);
}

long ebf_pattern_check(const uint8_t *buf, size_t len, uint16_t source,
                       uint64_t event_id, uint32_t off)
{
    uint64_t base = pattern_base(source, event_id);
    uint64_t pos = off;
    size_t i = 0;

    for (; i < len && (pos & 7); i++, pos++)
        if (buf[i] != pattern_byte(base, pos))
            return (long)i;
    uint64_t w = base + (pos >> 3) * PATTERN_WEYL;
    for (; i + 8 <= len; i += 8, pos += 8, w += PATTERN_WEYL) {
        uint8_t want[8];
        store_le64(want, w);
        if (memcmp(buf + i, want, 8) != 0)
            break;              /* find the byte below */
    }
    for (; i < len; i++, pos++)
        if (buf[i] != pattern_byte(base, pos))
            return (long)i;
    return -1;
}

int ebf_pattern_check_crc(const uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                          uint32_t off, uint32_t *crc)
{
    uint64_t base = pattern_base(source, event_id), pos = off, diff = 0;
    size_t i = 0;
    int ok = 1;

    if (((off | len) & 7) == 0) {       /* a piece of whole words: the node's usual case */
        *crc = ebf_crc32c_seq(*crc, buf, len / 8, base + (pos >> 3) * PATTERN_WEYL,
                              PATTERN_WEYL, &diff);
        return diff == 0;
    }
    for (; i < len && (pos & 7); i++, pos++)
        ok &= buf[i] == pattern_byte(base, pos);
    if (i)                      /* no call for an empty head or tail: a piece */
        *crc = ebf_crc32c(*crc, buf, i);     /* on word boundaries has neither */
    size_t words = (len - i) / 8;
    *crc = ebf_crc32c_seq(*crc, buf + i, words, base + (pos >> 3) * PATTERN_WEYL, PATTERN_WEYL,
                          &diff);
    ok &= diff == 0;
    size_t t = i + 8 * words;
    if (t < len)
        *crc = ebf_crc32c(*crc, buf + t, len - t);
    for (pos += 8 * words; t < len; t++, pos++)
        ok &= buf[t] == pattern_byte(base, pos);
    return ok;
}

void ebf_pattern_fill_crc(uint8_t *buf, size_t len, uint16_t source, uint64_t event_id,
                          uint32_t off, uint32_t *crc)
{
    uint64_t base = pattern_base(source, event_id), pos = off;
    size_t i = 0;

    for (; i < len && (pos & 7); i++, pos++)
        buf[i] = pattern_byte(base, pos);
    *crc = ebf_crc32c(*crc, buf, i);
    size_t words = (len - i) / 8, t = i + 8 * words;
    *crc = ebf_crc32c_fill_seq(*crc, buf + i, words, base + (pos >> 3) * PATTERN_WEYL,
                               PATTERN_WEYL);
    for (pos += 8 * words; t < len; t++, pos++)
        buf[t] = pattern_byte(base, pos);
    *crc = ebf_crc32c(*crc, buf + i + 8 * words, len - i - 8 * words);
}
