/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_payload.h - the readout's payload modes: per-event pattern, or prebuilt bytes of (source, offset) built once per run; no DPDK. */
#ifndef RO_PAYLOAD_H
#define RO_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_crc.h"
#include "ebf_proto.h"

/*
 * per-event: every piece carries the pattern of its own (source, event),
 * generated and checksummed per frame (ebf_frag_write_pattern). prebuilt:
 * the pattern of (source, EBF_PATTERN_PREBUILT_ID) (flag
 * EBF_FRAGF_PREBUILT), built once per run with the CRC of every piece a
 * fragment is cut into; per frame the piece is copied and only the header
 * is checksummed, its CRC combined with the piece's (ebf_frag_write_crc).
 */
#define RO_PAYLOAD_FOREACH(X)        \
    X(PER_EVENT, "per-event")        \
    X(PREBUILT, "prebuilt")

enum ro_payload_mode {
#define RO_PAYLOAD_ENUM(n, s) RO_PAYLOAD_##n,
    RO_PAYLOAD_FOREACH(RO_PAYLOAD_ENUM)
#undef RO_PAYLOAD_ENUM
    RO_PAYLOAD_MAX
};

/* The mode's name ("per-event", "prebuilt"), "unknown" for a bad value. */
const char *ro_payload_name(enum ro_payload_mode m);

/* The mode named s: 0, or -1 when s names none. */
int ro_payload_parse(const char *s, enum ro_payload_mode *m);

/* One piece of a source's prebuilt fragment: its length when the fragment
 * is cut at max_piece steps from size_max, and its CRC alone. */
struct ro_piece_crc {
    uint32_t len;
    uint32_t crc;
    struct ebf_crc32c_shift shift;
};

/* The prebuilt bytes and piece CRCs of one run's sources. Built on the
 * control path (ro_payload_build), read by the lcore. */
struct ro_payload {
    uint8_t *bytes;              /* source s's bytes 0 .. size_max-1 at s * stride */
    size_t stride;
    struct ro_piece_crc *piece;  /* source s's piece k at s * n_pieces + k */
    uint32_t n_pieces;
    uint32_t max_piece;
    uint16_t gen;                /* this build's number in the process: tags of frames
                                  * that hold its bytes (ro_payload_tag) */
};

/*
 * Build the prebuilt payload of sources source_base .. source_base +
 * n_sources - 1 for fragments of at most size_max bytes cut into pieces
 * of max_piece: the bytes, and the CRC of every piece of a size_max
 * fragment (the only pieces whose length is known ahead; other last
 * pieces are checksummed when sent). 0, or -ENOMEM (p then empty).
 */
int ro_payload_build(struct ro_payload *p, uint16_t source_base, uint16_t n_sources,
                     uint32_t size_max, uint32_t max_piece);

/* Release what ro_payload_build allocated; p is empty after (again safe). */
void ro_payload_free(struct ro_payload *p);

/*
 * The piece h describes (h->offset a multiple of max_piece, within
 * size_max) of local source s (0 .. n_sources-1), for a fragment at buf:
 * ro_payload_copy puts the prebuilt bytes after the header;
 * ro_payload_header adds EBF_FRAGF_PREBUILT to h->flags and writes the
 * header and its CRC (combined with the piece's when its length is the
 * one precomputed, else computed over the bytes at buf, which must be
 * there); ro_payload_write does both.
 */
void ro_payload_copy(const struct ro_payload *p, uint8_t *buf, const struct ebf_frag_hdr *h,
                     uint16_t s);
static inline void ro_payload_header(const struct ro_payload *p, uint8_t *buf,
                                     struct ebf_frag_hdr *h, uint16_t s)
{
    uint32_t k = h->offset < p->max_piece ? 0 : h->offset / p->max_piece;
    const struct ro_piece_crc *pc = &p->piece[(size_t)s * p->n_pieces + k];

    h->flags |= EBF_FRAGF_PREBUILT;
    if (pc->len == h->piece_len)
        ebf_frag_write_crc(buf, h, pc->crc, &pc->shift);
    else
        ebf_frag_write(buf, h);     /* a last piece shorter than size_max's */
}

void ro_payload_write(const struct ro_payload *p, uint8_t *buf, struct ebf_frag_hdr *h,
                      uint16_t s);

/* What a frame holds after ro_payload_copy of this piece: a sender that
 * keeps it with the frame's buffer (and clears it whenever anything else
 * writes there) copies the bytes only when the tag differs. Never 0. */
static inline uint64_t ro_payload_tag(const struct ro_payload *p, const struct ebf_frag_hdr *h,
                                      uint16_t s)
{
    return (uint64_t)p->gen << 48 | (uint64_t)s << 40 | (uint64_t)h->offset << 16 |
           h->piece_len;
}

#endif /* RO_PAYLOAD_H */
