/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_crc.h - CRC32C (Castagnoli), the checksum of every fragment piece. */
#ifndef EBF_CRC_H
#define EBF_CRC_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC32C of len bytes at buf, continuing from crc (start with 0):
 * ebf_crc32c(ebf_crc32c(0, a, n), b, m) is the CRC of a followed by b.
 * SSE4.2 instructions when the CPU has them, a table otherwise; both are
 * set up before main() runs, so any thread may call it at any time.
 */
uint32_t ebf_crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * CRC32C of n 8-byte words at buf, continuing crc as ebf_crc32c does, and
 * into *diff the OR of each word (little-endian) XOR the sequence w,
 * w + step, w + 2 step ...: *diff is 0 when the words are that sequence.
 * One pass (ebf_pattern_check_crc): with SSE4.2, PCLMULQDQ and AVX2 the
 * words go to four CRC chains and are compared four at a time in the
 * same loop; with SSE4.2 alone, to one chain, compared in its latency.
 */
uint32_t ebf_crc32c_seq(uint32_t crc, const void *buf, size_t n, uint64_t w, uint64_t step,
                        uint64_t *diff);

/* Store the n words w, w + step, w + 2 step ... at buf (little-endian)
 * and continue the CRC32C crc over them, in one pass (ebf_pattern_fill_crc). */
uint32_t ebf_crc32c_fill_seq(uint32_t crc, void *buf, size_t n, uint64_t w, uint64_t step);

#endif /* EBF_CRC_H */
