/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fast.h - the fragment header of the readout's common case from words made once per run: prebuilt payload, one frame per fixed-size fragment; no DPDK. */
#ifndef RO_FAST_H
#define RO_FAST_H

#include <stdint.h>

#include "ebf_proto.h"
#include "ro_payload.h"

/*
 * A run whose fragments all have the same size and fit one frame, with the
 * prebuilt payload (ro_payload.h), makes every header from the same words
 * but for seq, event id and tx_ns: each source's first word (version,
 * type, source) and the words of frag_len, offset 0, piece_len and the
 * flag EBF_FRAGF_PREBUILT are made here once, in wire order, with each
 * source's piece CRC and the shift over the piece. ro_fast_write is then
 * ebf_frag_write_crc's result (the same bytes and CRC, tested) in a
 * handful of instructions: no struct ebf_frag_hdr filled and read back,
 * no piece looked up, no call through the CPU check.
 */
struct ro_fast {
    uint32_t len;                        /* every fragment's bytes; 0: not set up */
    uint32_t k_clmul;                    /* the shift over len bytes (ebf_crc32c_shift) */
    uint64_t w2;                         /* header bytes 16..23: frag_len, offset 0 */
    uint32_t w3;                         /* bytes 24..27: piece_len, flags */
    uint64_t w0[EBF_MAX_SOURCES];        /* bytes 0..7 of each local source, seq 0 */
    uint32_t crc[EBF_MAX_SOURCES];       /* each local source's piece CRC */
    uint64_t tag[EBF_MAX_SOURCES];       /* each local source's ro_payload_tag of it */
};

/*
 * Set f up for fragments of len bytes of local sources 0 .. n_sources - 1
 * (ids source_base + s) with the prebuilt payload p: 0, or -1 (f->len 0)
 * when ro_fast_write cannot make them: len is not p's first piece (a
 * fragment of more than one frame, or p built for another size), or the
 * CPU lacks the CRC32 (SSE4.2) and carry-less multiply instructions.
 */
int ro_fast_init(struct ro_fast *f, const struct ro_payload *p, uint16_t source_base,
                 uint16_t n_sources, uint32_t len);

/* The fragment header of local source s at buf (EBF_FRAG_HLEN bytes), its
 * CRC over the prebuilt piece that follows (or will: the bytes are not
 * read); returns the CRC. Only after ro_fast_init returned 0. */
uint32_t ro_fast_write(const struct ro_fast *f, uint8_t *buf, uint16_t s, uint32_t seq,
                       uint64_t event_id, uint64_t tx_ns);

#endif /* RO_FAST_H */
