/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_bytes.h - unaligned loads and stores of fixed byte order: big-endian for the wire, little-endian for storage files. */
#ifndef EBF_BYTES_H
#define EBF_BYTES_H

#include <stdint.h>
#include <string.h>

/*
 * p need not be aligned. The wire format (docs/protocol.md) is big-endian;
 * the storage format (docs/storage.md) is little-endian. Each helper is a
 * memcpy and at most one byte swap, which compilers turn into a single
 * load or store with movbe/bswap on x86. Any thread; no state.
 */

static inline void ebf_put_be16(uint8_t *p, uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap16(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline void ebf_put_be32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline void ebf_put_be64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline uint16_t ebf_get_be16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap16(v);
#endif
    return v;
}

static inline uint32_t ebf_get_be32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t ebf_get_be64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void ebf_put_le16(uint8_t *p, uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap16(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline void ebf_put_le32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline void ebf_put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, sizeof(v));
}

static inline uint16_t ebf_get_le16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap16(v);
#endif
    return v;
}

static inline uint32_t ebf_get_le32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t ebf_get_le64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#endif
