/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_crc_private.h - the CRC32C module's paths and its shift of a CRC state, for its tests only. */
#ifndef EBF_CRC_PRIVATE_H
#define EBF_CRC_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

/* The implementations behind ebf_crc32c, ebf_crc32c_seq and ebf_crc32c_fill_seq. */
enum ebf_crc_path {
    EBF_CRC_TABLE = 0,          /* a 256-entry table, a byte at a time */
    EBF_CRC_SSE42 = 1,          /* one chain of the SSE4.2 crc32 instruction */
    EBF_CRC_SSE42_4 = 2,        /* four chains joined by PCLMULQDQ, AVX2 compares (long inputs) */
    EBF_CRC_SSE42_4_AVX512 = 3, /* the same, the compares by AVX-512VL ternary logic */
    EBF_CRC_BEST = EBF_CRC_SSE42_4_AVX512,  /* ebf_crc_use: the best this CPU has */
};

/*
 * Use path `want`, or the best the CPU has below it; returns the path in
 * use. The best one is chosen before main() runs; this exists so that the
 * tests can hold every path against the reference on one machine. Not
 * thread-safe: only while no other thread computes a CRC.
 */
enum ebf_crc_path ebf_crc_use(enum ebf_crc_path want);

/*
 * Whether the four-chain paths prefetch ahead in each chain's block
 * (EBF_CRC_STREAM_AHEAD bytes, inside the block): 1 by default. Returns
 * the setting before. The tests hold the paths against the reference with
 * it on and off; not thread-safe, like ebf_crc_use.
 */
int ebf_crc_stream_prefetch(int on);
#define EBF_CRC_STREAM_AHEAD 320

/* The longest block ebf_crc_join takes, and the most words its last
 * block may have on top, in 8-byte words. */
#define EBF_CRC_JOIN_MAX 256
#define EBF_CRC_JOIN_EXTRA 15

/*
 * The raw CRC32C state (no inversion before or after) after a round of
 * four chains: c is the state before the round's four blocks of b, b, b
 * and b + e 8-byte words (1 <= b <= EBF_CRC_JOIN_MAX, e <=
 * EBF_CRC_JOIN_EXTRA), part[j] the state over block j from 0; the result
 * is the state over the four blocks from c: c x^(64(4b + e)) xor part[0]
 * x^(64(3b + e)) xor part[1] x^(64(2b + e)) xor part[2] x^(64(b + e))
 * xor part[3] modulo the polynomial. On the four-chain path by PCLMULQDQ
 * and the crc32 instruction (what the rounds use); on the others by a
 * carry-less multiplication in software. Both multiply by the same table
 * of powers of x, made before main() runs.
 */
uint32_t ebf_crc_join(uint32_t c, const uint32_t part[4], size_t b, size_t e);

#endif /* EBF_CRC_PRIVATE_H */
