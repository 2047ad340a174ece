/* SPDX-License-Identifier: BSD-3-Clause */
/* ref-crc32c.h - a bit-at-a-time CRC32C that the tests hold the library's CRC32C against. */
#ifndef REF_CRC32C_H
#define REF_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Bit-at-a-time CRC32C (reflected polynomial 0x82F63B78): the reference. */
static inline uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

#endif /* REF_CRC32C_H */
