/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_payload.c - the prebuilt payload: built once per run, copied per frame under a header whose CRC is combined. */
#include "ro_payload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_pattern.h"

static const char *const mode_names[] = {
#define RO_PAYLOAD_NAME(n, s) s,
    RO_PAYLOAD_FOREACH(RO_PAYLOAD_NAME)
#undef RO_PAYLOAD_NAME
};

const char *ro_payload_name(enum ro_payload_mode m)
{
    return (unsigned)m < RO_PAYLOAD_MAX ? mode_names[m] : "unknown";
}

int ro_payload_parse(const char *s, enum ro_payload_mode *m)
{
    for (unsigned i = 0; i < RO_PAYLOAD_MAX; i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (enum ro_payload_mode)i;
            return 0;
        }
    return -1;
}

int ro_payload_build(struct ro_payload *p, uint16_t source_base, uint16_t n_sources,
                     uint32_t size_max, uint32_t max_piece)
{
    static uint16_t gens;

    memset(p, 0, sizeof(*p));
    if (n_sources == 0 || size_max == 0 || max_piece == 0 || size_max > (1u << 24))
        return -EINVAL;         /* offsets fit the tag's 24 bits */
    p->gen = ++gens ? gens : ++gens;    /* 1 .. 65535: a tag is never 0 */
    p->max_piece = max_piece;
    p->n_pieces = (size_max + max_piece - 1) / max_piece;
    p->stride = ((size_t)size_max + 63) & ~(size_t)63;     /* each source on its own lines */
    p->bytes = aligned_alloc(64, p->stride * n_sources);
    p->piece = calloc((size_t)n_sources * p->n_pieces, sizeof(*p->piece));
    if (!p->bytes || !p->piece) {
        ro_payload_free(p);
        return -ENOMEM;
    }
    for (uint16_t s = 0; s < n_sources; s++) {
        uint8_t *b = p->bytes + (size_t)s * p->stride;
        ebf_pattern_fill(b, size_max, (uint16_t)(source_base + s), EBF_PATTERN_PREBUILT_ID, 0);
        for (uint32_t k = 0; k < p->n_pieces; k++) {
            uint32_t off = k * max_piece, len = size_max - off < max_piece ? size_max - off
                                                                          : max_piece;
            struct ro_piece_crc *pc = &p->piece[(size_t)s * p->n_pieces + k];
            pc->len = len;
            pc->crc = ebf_crc32c(0, b + off, len);
            pc->shift = ebf_crc32c_shift_make(len);
        }
    }
    return 0;
}

void ro_payload_free(struct ro_payload *p)
{
    free(p->bytes);
    free(p->piece);
    memset(p, 0, sizeof(*p));
}

void ro_payload_copy(const struct ro_payload *p, uint8_t *buf, const struct ebf_frag_hdr *h,
                     uint16_t s)
{
    memcpy(buf + EBF_FRAG_HLEN, p->bytes + (size_t)s * p->stride + h->offset, h->piece_len);
}

void ro_payload_write(const struct ro_payload *p, uint8_t *buf, struct ebf_frag_hdr *h,
                      uint16_t s)
{
    ro_payload_copy(p, buf, h, s);
    ro_payload_header(p, buf, h, s);
}

