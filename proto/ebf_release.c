/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_release.c - encode and bounds-checked parse of the release frame (type 5). */
#include <string.h>

#include "ebf_bytes.h"
#include "ebf_release.h"

size_t ebf_release_write(uint8_t *buf, const struct ebf_release_hdr *h)
{
    size_t len;

    if (h->n_src > EBF_RELEASE_MAX_SRC)
        return 0;
    len = ebf_release_len(h->n_src);
    memset(buf, 0, len);
    buf[0] = EBF_PROTO_VERSION;
    buf[1] = EBF_T_RELEASE;
    ebf_put_be16(buf + 2, h->place);
    buf[4] = h->flags;
    buf[5] = h->n_src;
    ebf_put_be16(buf + 6, h->epoch);
    ebf_put_be32(buf + 8, h->seq);
    ebf_put_be64(buf + 12, h->low);
    ebf_put_be64(buf + 20, h->at);
    for (unsigned i = 0; i < h->n_src; i++) {
        uint8_t *r = buf + EBF_RELEASE_HLEN + i * EBF_RELEASE_REC_LEN;

        ebf_put_be16(r, h->src[i].source);
        ebf_put_be32(r + 4, h->src[i].next_seq);
    }
    return len;
}

/* Version, type and the fixed header's length. */
static enum ebf_reason release_vt(const uint8_t *buf, size_t len)
{
    if (len < 2)
        return EBF_R_TRUNCATED;
    if (buf[0] != EBF_PROTO_VERSION)
        return EBF_R_BAD_VERSION;
    if (buf[1] != EBF_T_RELEASE)
        return buf[1] >= EBF_T_FRAGMENT && buf[1] <= EBF_T_LAST ? EBF_R_BAD_FIELD
                                                                : EBF_R_UNKNOWN_TYPE;
    return len < EBF_RELEASE_HLEN ? EBF_R_TRUNCATED : EBF_R_OK;
}

/* Flags, at and reserved fields of a parsed header. A replay end (END
 * alone) takes any at and at least one record; JOIN or LEAVE alone, or no
 * flag with at 0, is a release. */
static int release_fields_ok(const uint8_t *buf, const struct ebf_release_hdr *h)
{
    const uint8_t known = EBF_RELF_JOIN | EBF_RELF_LEAVE;

    if (h->flags == EBF_RELF_DEAD)
        return !h->at && !h->n_src && !ebf_get_be32(buf + 28);   /* a notice */
    if (h->flags == EBF_RELF_END ? !h->n_src
                                 : (h->flags & ~known) || h->flags == known || (!h->flags && h->at))
        return 0;
    if (ebf_get_be32(buf + 28))
        return 0;
    for (unsigned i = 0; i < h->n_src; i++)
        if (ebf_get_be16(buf + EBF_RELEASE_HLEN + i * EBF_RELEASE_REC_LEN + 2))
            return 0;
    return 1;
}

enum ebf_reason ebf_release_parse(const uint8_t *buf, size_t len, struct ebf_release_hdr *h)
{
    enum ebf_reason r = release_vt(buf, len);

    if (r != EBF_R_OK)
        return r;
    h->place = ebf_get_be16(buf + 2);
    h->flags = buf[4];
    h->n_src = buf[5];
    h->epoch = ebf_get_be16(buf + 6);
    h->seq = ebf_get_be32(buf + 8);
    h->low = ebf_get_be64(buf + 12);
    h->at = ebf_get_be64(buf + 20);
    if (h->n_src > EBF_RELEASE_MAX_SRC)
        return EBF_R_BAD_LENGTH;
    if (len < ebf_release_len(h->n_src))
        return EBF_R_TRUNCATED;
    if (!release_fields_ok(buf, h))
        return EBF_R_BAD_FIELD;
    for (unsigned i = 0; i < h->n_src; i++) {
        const uint8_t *p = buf + EBF_RELEASE_HLEN + i * EBF_RELEASE_REC_LEN;

        h->src[i].source = ebf_get_be16(p);
        h->src[i].next_seq = ebf_get_be32(p + 4);
    }
    return EBF_R_OK;
}
