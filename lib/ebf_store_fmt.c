/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_fmt.c - the event storage file format v1: little-endian encode and bounds-checked parse of header, records and trailer. */
#include "ebf_store_fmt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ebf_bytes.h"
#include "ebf_crc.h"

static const char *const err_names[] = {
#define EBF_STORE_ERR_NAME(n, s) s,
    EBF_STORE_FOREACH_ERR(EBF_STORE_ERR_NAME)
#undef EBF_STORE_ERR_NAME
};

const char *ebf_store_err_name(enum ebf_store_err e)
{
    return e < EBF_STORE_E_MAX ? err_names[e] : "?";
}

/* The error e with its message, "what: detail". */
static enum ebf_store_err fail(enum ebf_store_err e, char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static enum ebf_store_err fail(enum ebf_store_err e, char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (err && len) {
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return e;
}

/* --- Header ---------------------------------------------------------------- */

void ebf_store_hdr_write(uint8_t out[EBF_STORE_HDR_LEN], const struct ebf_store_hdr *h)
{
    memset(out, 0, EBF_STORE_HDR_LEN);
    memcpy(out, EBF_STORE_MAGIC, 8);
    ebf_put_le16(out + 8, EBF_STORE_VERSION);
    ebf_put_le16(out + 10, EBF_STORE_HDR_LEN);
    ebf_put_le32(out + 12, h->run);
    ebf_put_le16(out + 16, h->node);
    ebf_put_le16(out + 18, h->stream);
    ebf_put_le32(out + 20, h->seq);
    ebf_put_le64(out + 24, h->time_ns);
    memcpy(out + 32, h->farm, strnlen(h->farm, EBF_STORE_FARM_LEN));
    ebf_put_le32(out + 76, ebf_crc32c(0, out, 76));
}

enum ebf_store_err ebf_store_hdr_parse(const uint8_t *p, size_t len, struct ebf_store_hdr *h,
                                       char *err, size_t errlen)
{
    if (len >= 8 && memcmp(p, EBF_STORE_MAGIC, 8) != 0)
        return fail(EBF_STORE_E_BAD_MAGIC, err, errlen, "not an ebfarm event file: its first "
                    "8 bytes are not \"" EBF_STORE_MAGIC "\"");
    if (len < EBF_STORE_HDR_LEN)
        return fail(EBF_STORE_E_SHORT, err, errlen, "file header cut short: %zu of %u bytes",
                    len, EBF_STORE_HDR_LEN);
    memset(h, 0, sizeof(*h));
    h->version = ebf_get_le16(p + 8);
    if (h->version != EBF_STORE_VERSION)
        return fail(EBF_STORE_E_BAD_VERSION, err, errlen, "file header: format version %u "
                    "(this reader knows version %u)", h->version, EBF_STORE_VERSION);
    if (ebf_get_le16(p + 10) != EBF_STORE_HDR_LEN)
        return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "file header: length %u (version 1 "
                    "has %u)", ebf_get_le16(p + 10), EBF_STORE_HDR_LEN);
    uint32_t crc = ebf_crc32c(0, p, 76);
    if (ebf_get_le32(p + 76) != crc)
        return fail(EBF_STORE_E_BAD_CRC, err, errlen, "file header: CRC32C 0x%08x, its bytes "
                    "give 0x%08x", ebf_get_le32(p + 76), crc);
    h->run = ebf_get_le32(p + 12);
    h->node = ebf_get_le16(p + 16);
    h->stream = ebf_get_le16(p + 18);
    h->seq = ebf_get_le32(p + 20);
    h->time_ns = ebf_get_le64(p + 24);
    memcpy(h->farm, p + 32, EBF_STORE_FARM_LEN);
    h->farm[EBF_STORE_FARM_LEN] = '\0';
    return EBF_STORE_E_OK;
}

/* --- Records --------------------------------------------------------------- */

uint8_t *ebf_store_rec_head(uint8_t *out, const struct ebf_store_rec *r)
{
    ebf_put_le32(out, EBF_STORE_REC_MAGIC);
    ebf_put_le32(out + 4, r->len);
    ebf_put_le64(out + 8, r->event_id);
    ebf_put_le16(out + 16, r->flags);
    ebf_put_le16(out + 18, r->n_sources);
    ebf_put_le16(out + 20, r->n_frags);
    ebf_put_le16(out + 22, 0);
    ebf_put_le64(out + 24, r->present[0]);
    ebf_put_le64(out + 32, r->present[1]);
    return out + EBF_STORE_REC_HLEN;
}

uint8_t *ebf_store_frag_head(uint8_t *out, uint16_t source, uint16_t flags, uint32_t len)
{
    ebf_put_le16(out, source);
    ebf_put_le16(out + 2, flags);
    ebf_put_le32(out + 4, len);
    return out + EBF_STORE_FRAG_HLEN;
}

void ebf_store_rec_seal(uint8_t *rec, uint32_t len)
{
    ebf_put_le32(rec + len - EBF_STORE_CRC_LEN, ebf_crc32c(0, rec, len - EBF_STORE_CRC_LEN));
}

static int present(const uint64_t pr[2], unsigned s)
{
    return (int)(pr[s / 64] >> (s % 64) & 1u);
}

/* The fragments of r: one per present source, in ascending order, filling
 * the record exactly. */
static enum ebf_store_err check_frags(const struct ebf_store_rec *r, char *err, size_t errlen)
{
    const uint8_t *p = r->frags, *end = r->frags + (r->len - EBF_STORE_REC_HLEN - EBF_STORE_CRC_LEN);
    int last = -1;
    unsigned n = 0;

    for (unsigned s = 0; s < r->n_sources; s++)
        n += (unsigned)present(r->present, s);
    if (n != r->n_frags)
        return fail(EBF_STORE_E_BAD_FIELD, err, errlen, "event %" PRIu64 ": %u fragments, "
                    "but %u sources present", r->event_id, r->n_frags, n);
    for (unsigned i = 0; i < r->n_frags; i++) {
        if ((size_t)(end - p) < EBF_STORE_FRAG_HLEN)
            return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "event %" PRIu64 ": fragment %u "
                        "header passes the record's end", r->event_id, i);
        uint16_t s = ebf_get_le16(p);
        uint32_t l = ebf_get_le32(p + 4);
        if (s >= r->n_sources || (int)s <= last || !present(r->present, s))
            return fail(EBF_STORE_E_BAD_FIELD, err, errlen, "event %" PRIu64 ": fragment %u "
                        "of source %u (sources must be present, ascending, below %u)",
                        r->event_id, i, s, r->n_sources);
        if (l > (size_t)(end - p) - EBF_STORE_FRAG_HLEN)
            return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "event %" PRIu64 ": fragment of "
                        "source %u has %" PRIu32 " bytes, %zu left in the record", r->event_id,
                        s, l, (size_t)(end - p) - EBF_STORE_FRAG_HLEN);
        last = s;
        p += EBF_STORE_FRAG_HLEN + l;
    }
    if (p != end)
        return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "event %" PRIu64 ": %zu bytes after "
                    "the last fragment", r->event_id, (size_t)(end - p));
    return EBF_STORE_E_OK;
}

enum ebf_store_err ebf_store_rec_parse(const uint8_t *p, size_t avail, struct ebf_store_rec *r,
                                       char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    if (avail < 8)
        return fail(EBF_STORE_E_SHORT, err, errlen, "record cut short: %zu bytes left", avail);
    if (ebf_get_le32(p) != EBF_STORE_REC_MAGIC)
        return fail(EBF_STORE_E_BAD_MAGIC, err, errlen, "record magic 0x%08x (want 0x%08x, "
                    "\"EVRC\")", ebf_get_le32(p), EBF_STORE_REC_MAGIC);
    r->len = ebf_get_le32(p + 4);
    if (r->len < EBF_STORE_REC_MIN || r->len > EBF_STORE_REC_MAX)
        return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "record length %" PRIu32 " outside "
                    "%u..%u", r->len, EBF_STORE_REC_MIN, EBF_STORE_REC_MAX);
    if (r->len > avail)
        return fail(EBF_STORE_E_SHORT, err, errlen, "record of %" PRIu32 " bytes cut short: "
                    "%zu bytes left", r->len, avail);
    uint32_t crc = ebf_crc32c(0, p, r->len - EBF_STORE_CRC_LEN);
    r->event_id = ebf_get_le64(p + 8);
    if (ebf_get_le32(p + r->len - EBF_STORE_CRC_LEN) != crc)
        return fail(EBF_STORE_E_BAD_CRC, err, errlen, "event %" PRIu64 ": record CRC32C 0x%08x,"
                    " its bytes give 0x%08x", r->event_id, ebf_get_le32(p + r->len - EBF_STORE_CRC_LEN),
                    crc);
    r->flags = ebf_get_le16(p + 16);
    r->n_sources = ebf_get_le16(p + 18);
    r->n_frags = ebf_get_le16(p + 20);
    r->present[0] = ebf_get_le64(p + 24);
    r->present[1] = ebf_get_le64(p + 32);
    r->frags = p + EBF_STORE_REC_HLEN;
    if (r->n_sources > EBF_STORE_MAX_SOURCES || ebf_get_le16(p + 22) != 0)
        return fail(EBF_STORE_E_BAD_FIELD, err, errlen, "event %" PRIu64 ": %u sources (at most"
                    " %u; reserved bytes 0)", r->event_id, r->n_sources, EBF_STORE_MAX_SOURCES);
    return check_frags(r, err, errlen);
}

int ebf_store_frag_next(const struct ebf_store_rec *r, size_t *pos, struct ebf_store_frag *f)
{
    size_t body = r->len - EBF_STORE_REC_HLEN - EBF_STORE_CRC_LEN;

    if (*pos + EBF_STORE_FRAG_HLEN > body)
        return 0;
    const uint8_t *p = r->frags + *pos;
    f->source = ebf_get_le16(p);
    f->flags = ebf_get_le16(p + 2);
    f->len = ebf_get_le32(p + 4);
    f->data = p + EBF_STORE_FRAG_HLEN;
    *pos += EBF_STORE_FRAG_HLEN + f->len;
    return 1;
}

/* --- Trailer --------------------------------------------------------------- */

void ebf_store_trailer_write(uint8_t *out, uint64_t trl_off, uint64_t record_bytes, uint64_t n,
                             const struct ebf_store_idx *idx)
{
    uint8_t *p = out;

    ebf_put_le32(p, EBF_STORE_TRL_MAGIC);
    ebf_put_le32(p + 4, 0);
    ebf_put_le64(p + 8, n);
    ebf_put_le64(p + 16, record_bytes);
    p += EBF_STORE_TRL_HLEN;
    for (uint64_t i = 0; i < n; i++, p += EBF_STORE_IDX_LEN) {
        ebf_put_le64(p, idx[i].event_id);
        ebf_put_le64(p + 8, idx[i].offset);
    }
    ebf_put_le64(p, trl_off);
    ebf_put_le32(p + 8, ebf_crc32c(0, out, (size_t)(p + 8 - out)));
    ebf_put_le32(p + 12, EBF_STORE_FOOT_MAGIC);
}

enum ebf_store_err ebf_store_trailer_find(const uint8_t *file, uint64_t size,
                                          struct ebf_store_trailer *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof(t[0]));
    if (size < EBF_STORE_HDR_LEN + ebf_store_trailer_len(0) ||
        ebf_get_le32(file + size - 4) != EBF_STORE_FOOT_MAGIC)
        return fail(EBF_STORE_E_SHORT, err, errlen, "no trailer: the file was cut short");
    const uint8_t *foot = file + size - EBF_STORE_FOOT_LEN;
    t->offset = ebf_get_le64(foot);
    if (t->offset < EBF_STORE_HDR_LEN || t->offset > size - ebf_store_trailer_len(0))
        return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "trailer offset %" PRIu64 " outside "
                    "%u..%" PRIu64, t->offset, EBF_STORE_HDR_LEN, size - ebf_store_trailer_len(0));
    const uint8_t *p = file + t->offset;
    if (ebf_get_le32(p) != EBF_STORE_TRL_MAGIC)
        return fail(EBF_STORE_E_BAD_MAGIC, err, errlen, "trailer at %" PRIu64 ": magic 0x%08x "
                    "(want 0x%08x, \"EVTR\")", t->offset, ebf_get_le32(p), EBF_STORE_TRL_MAGIC);
    t->n_records = ebf_get_le64(p + 8);
    t->record_bytes = ebf_get_le64(p + 16);
    uint64_t room = size - t->offset;
    if (t->n_records > (room - ebf_store_trailer_len(0)) / EBF_STORE_IDX_LEN ||
        ebf_store_trailer_len(t->n_records) != room)
        return fail(EBF_STORE_E_BAD_LENGTH, err, errlen, "trailer at %" PRIu64 ": %" PRIu64
                    " index entries do not fill its %" PRIu64 " bytes", t->offset, t->n_records,
                    room);
    uint32_t crc = ebf_crc32c(0, p, (size_t)(room - 8));
    if (ebf_get_le32(foot + 8) != crc)
        return fail(EBF_STORE_E_BAD_CRC, err, errlen, "trailer CRC32C 0x%08x, its bytes give "
                    "0x%08x", ebf_get_le32(foot + 8), crc);
    if (t->record_bytes != t->offset - EBF_STORE_HDR_LEN)
        return fail(EBF_STORE_E_BAD_FIELD, err, errlen, "trailer counts %" PRIu64 " record "
                    "bytes, the file holds %" PRIu64, t->record_bytes,
                    t->offset - EBF_STORE_HDR_LEN);
    t->idx = p + EBF_STORE_TRL_HLEN;
    return EBF_STORE_E_OK;
}

struct ebf_store_idx ebf_store_trailer_idx(const struct ebf_store_trailer *t, uint64_t i)
{
    const uint8_t *p = t->idx + i * EBF_STORE_IDX_LEN;

    return (struct ebf_store_idx){.event_id = ebf_get_le64(p), .offset = ebf_get_le64(p + 8)};
}
