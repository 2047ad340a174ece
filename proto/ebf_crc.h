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
 * same loop (with AVX-512VL, xor and or in one ternary-logic
 * instruction); with SSE4.2 alone, to one chain, compared in its latency.
 */
uint32_t ebf_crc32c_seq(uint32_t crc, const void *buf, size_t n, uint64_t w, uint64_t step,
                        uint64_t *diff);

/* How many bytes of a frame ahead ebf_crc_prefetch touches at most: a
 * 1 KiB piece and its headers whole; longer ones stream on (the CRC's four
 * chains prefetch ahead in their own blocks). */
#define EBF_CRC_PREFETCH_MAX 1536

/*
 * Prefetch the cache lines of the first len bytes at p (at most
 * EBF_CRC_PREFETCH_MAX) that a CRC will read next: called for a frame a
 * few ahead in a burst (the l3fwd shape applied to the payload), so that
 * its lines come from the last-level cache or DRAM while the CRC of the
 * frames before it runs, instead of one line at a time when the CRC loads
 * them. A hint only: no fault, no change to any result.
 */
static inline void ebf_crc_prefetch(const void *p, size_t len)
{
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
    const char *end = (const char *)p + (len < EBF_CRC_PREFETCH_MAX ? len : EBF_CRC_PREFETCH_MAX);

    for (; c < end; c += 64)
        __builtin_prefetch(c, 0, 3);
}

/* Store the n words w, w + step, w + 2 step ... at buf (little-endian)
 * and continue the CRC32C crc over them, in one pass (ebf_pattern_fill_crc). */
uint32_t ebf_crc32c_fill_seq(uint32_t crc, void *buf, size_t n, uint64_t w, uint64_t step);

/*
 * CRC32C of A || B from crc1 = ebf_crc32c(0, A, |A|), crc2 = the CRC of B
 * alone and len2 = |B|, without touching the bytes (the algebra of zlib's
 * crc32_combine: crc1 times x^(8 len2) mod P, plus crc2). About a
 * thousand cycles (a power of x by squaring): a sender that combines for
 * a few lengths again and again makes an ebf_crc32c_shift once per length.
 */
uint32_t ebf_crc32c_combine(uint32_t crc1, uint32_t crc2, size_t len2);

/* The multiplier that ebf_crc32c_combine computes for len2, in two forms:
 * for the bitwise product and for a carry-less multiply (PCLMULQDQ). */
struct ebf_crc32c_shift {
    uint32_t k;
    uint32_t k_clmul;
};

struct ebf_crc32c_shift ebf_crc32c_shift_make(size_t len2);

/* ebf_crc32c_combine(crc1, crc2, len2) for s = ebf_crc32c_shift_make(len2):
 * a carry-less multiply and a CRC instruction when the CPU has them (a few
 * cycles), a 32-step product otherwise. */
uint32_t ebf_crc32c_combine_shift(uint32_t crc1, uint32_t crc2,
                                  const struct ebf_crc32c_shift *s);

/*
 * The CRC32C of a header of len bytes at hdr without its own 4-byte CRC
 * field at skip, followed by a body whose CRC alone is crc2, s being
 * ebf_crc32c_shift_make(body length): ebf_crc32c_combine_shift of the
 * header's CRC, in one call (a fragment header: skip 28, len 40; with
 * skip and len multiples of 4 and the CPU's CRC and carry-less multiply
 * instructions, five CRC instructions and one multiply).
 */
uint32_t ebf_crc32c_hdr_combine(const void *hdr, size_t skip, size_t len, uint32_t crc2,
                                const struct ebf_crc32c_shift *s);

/* 1 when the CPU has the CRC32 (SSE4.2) and carry-less multiply
 * (PCLMULQDQ) instructions that ebf_crc32c_shift_clmul_x86 and the
 * register-built header CRCs need; 0 elsewhere. Callable from constructors. */
int ebf_crc32c_has_clmul(void);

#if defined(__x86_64__)
/* a * k x^33 mod P for k_clmul (struct ebf_crc32c_shift): the 63-bit
 * carry-less product of the reflected values is a k x (as a 64-bit
 * reflected value), and the CRC instruction over it multiplies by x^32
 * and reduces mod P. For callers compiled for these instructions (a CPU
 * that has PCLMULQDQ and SSE4.2): the shift of ebf_crc32c_combine_shift,
 * inlined. */
__attribute__((target("pclmul,sse4.2")))
static inline uint32_t ebf_crc32c_shift_clmul_x86(uint32_t a, uint32_t k_clmul)
{
    typedef long long ebf_v2di __attribute__((vector_size(16)));
    ebf_v2di va = {(long long)a, 0}, vk = {(long long)k_clmul, 0};
    ebf_v2di pr = __builtin_ia32_pclmulqdq128(va, vk, 0);

    return (uint32_t)__builtin_ia32_crc32di(0, (unsigned long long)pr[0]);
}
#endif

#endif /* EBF_CRC_H */
