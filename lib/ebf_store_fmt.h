/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_fmt.h - the event storage file format v1 (docs/storage.md): file header, event records, trailer; encode and bounds-checked parse, no DPDK. */
#ifndef EBF_STORE_FMT_H
#define EBF_STORE_FMT_H

#include <stddef.h>
#include <stdint.h>

/*
 * A storage file is a file header, event records one after another, and a
 * trailer (an index of every record and the counts) ending in a fixed
 * footer. Every integer is little-endian; nothing is padded. Each record
 * and the header carry a CRC32C of their own bytes, the trailer one of its
 * own, so a reader checks every byte it trusts. A file without its footer
 * was cut short (a writer that died, a full disk): its records are read up
 * to the last whole one. docs/storage.md has the byte layout.
 *
 * Pure functions on caller buffers: any thread may call them.
 */

#define EBF_STORE_MAGIC "EBFARMEV"      /* 8 bytes at offset 0 */
#define EBF_STORE_VERSION 1
#define EBF_STORE_HDR_LEN 80
#define EBF_STORE_FARM_LEN 44            /* the farm's name, NUL-padded */
#define EBF_STORE_REC_MAGIC 0x43525645u  /* "EVRC" */
#define EBF_STORE_REC_HLEN 40            /* a record's fixed part */
#define EBF_STORE_FRAG_HLEN 8            /* before each fragment's bytes */
#define EBF_STORE_CRC_LEN 4              /* a record's last bytes */
#define EBF_STORE_REC_MIN (EBF_STORE_REC_HLEN + EBF_STORE_CRC_LEN)
#define EBF_STORE_REC_MAX (64u << 20)    /* the largest record a reader takes */
#define EBF_STORE_MAX_SOURCES 128
/* Record flags: the event frame's (EBF_EVF_INCOMPLETE, bit 0), and bit 1 set
 * by the node when a piece of the event came replayed (EBF_FRAGF_REPLAY) or
 * the event frame was redispatched (EBF_EVF_REDISPATCHED, the same bit):
 * a copy a reader drops when the id is also stored unmarked. */
#define EBF_STORE_REC_INCOMPLETE 0x0001
#define EBF_STORE_REC_REPLAYED 0x0002
#define EBF_STORE_TRL_MAGIC 0x52545645u  /* "EVTR" */
#define EBF_STORE_TRL_HLEN 24
#define EBF_STORE_IDX_LEN 16             /* one index entry: event id, offset */
#define EBF_STORE_FOOT_MAGIC 0x444e5645u /* "EVND" */
#define EBF_STORE_FOOT_LEN 16

/* What a parse found; X(name, text). */
#define EBF_STORE_FOREACH_ERR(X)                                              \
    X(OK, "ok")                                                               \
    X(SHORT, "cut short")            /* needs bytes past the end */           \
    X(BAD_MAGIC, "bad magic")                                                 \
    X(BAD_VERSION, "unknown format version")                                  \
    X(BAD_LENGTH, "bad length")                                               \
    X(BAD_FIELD, "bad field")                                                 \
    X(BAD_CRC, "bad CRC32C")

enum ebf_store_err {
#define EBF_STORE_ERR_ENUM(n, s) EBF_STORE_E_##n,
    EBF_STORE_FOREACH_ERR(EBF_STORE_ERR_ENUM)
#undef EBF_STORE_ERR_ENUM
    EBF_STORE_E_MAX
};

const char *ebf_store_err_name(enum ebf_store_err e);

/* The file header. */
struct ebf_store_hdr {
    uint16_t version;
    uint16_t node;
    uint16_t stream;
    uint32_t run;
    uint32_t seq;                /* the file's number among its stream's files */
    uint64_t time_ns;            /* UTC, ns since 1970, when the file was opened */
    char farm[EBF_STORE_FARM_LEN + 1];
};

/* Write h (version EBF_STORE_VERSION; farm cut to 44 bytes) into out. */
void ebf_store_hdr_write(uint8_t out[EBF_STORE_HDR_LEN], const struct ebf_store_hdr *h);

/* Parse the first len bytes of a file. EBF_STORE_E_OK, or an error with
 * err saying what was found and what is allowed. */
enum ebf_store_err ebf_store_hdr_parse(const uint8_t *p, size_t len, struct ebf_store_hdr *h,
                                       char *err, size_t errlen);

/* One event record. */
struct ebf_store_rec {
    uint32_t len;                /* the whole record, CRC included */
    uint64_t event_id;
    uint16_t flags;              /* EBF_STORE_REC_*: the event frame's EBF_EVF_*, REPLAYED */
    uint16_t n_sources;
    uint16_t n_frags;            /* = the present sources */
    uint64_t present[2];
    const uint8_t *frags;        /* parse: the first fragment's header */
};

/* Bytes of a record of n_frags fragments of payload bytes in all. */
static inline uint64_t ebf_store_rec_len(unsigned n_frags, uint64_t payload)
{
    return EBF_STORE_REC_HLEN + (uint64_t)n_frags * EBF_STORE_FRAG_HLEN + payload +
           EBF_STORE_CRC_LEN;
}

/*
 * Writing a record in place: ebf_store_rec_head writes the fixed part
 * (r->len must be ebf_store_rec_len of what follows) and returns where the
 * first fragment goes; ebf_store_frag_head writes one fragment's header
 * (its bytes follow it; flags: its pieces' EBF_FRAGF_*, ebf_proto.h) and
 * returns where they go; ebf_store_rec_seal
 * writes the CRC over the record's first len - 4 bytes.
 */
uint8_t *ebf_store_rec_head(uint8_t *out, const struct ebf_store_rec *r);
uint8_t *ebf_store_frag_head(uint8_t *out, uint16_t source, uint16_t flags, uint32_t len);
void ebf_store_rec_seal(uint8_t *rec, uint32_t len);

/*
 * Parse the record at p, with avail bytes left in the file. Checks the
 * magic, the length (EBF_STORE_REC_MIN..EBF_STORE_REC_MAX), the CRC, and
 * the fragments: one per present source, sources ascending and below
 * n_sources, lengths filling the record exactly. SHORT when the record
 * runs past avail; r->len is then what it claims (0 when not even the
 * length is there).
 */
enum ebf_store_err ebf_store_rec_parse(const uint8_t *p, size_t avail, struct ebf_store_rec *r,
                                       char *err, size_t errlen);

/* One fragment of a parsed record. */
struct ebf_store_frag {
    uint16_t source;
    uint16_t flags;              /* EBF_FRAGF_* of its pieces: which pattern they carry */
    uint32_t len;
    const uint8_t *data;
};

/* The fragment after *pos (start at 0) of a parsed record: 1 and *f, or 0
 * after the last. */
int ebf_store_frag_next(const struct ebf_store_rec *r, size_t *pos, struct ebf_store_frag *f);

/* One index entry of the trailer: a record's event id and file offset. */
struct ebf_store_idx {
    uint64_t event_id;
    uint64_t offset;
};

static inline uint64_t ebf_store_trailer_len(uint64_t n_records)
{
    return EBF_STORE_TRL_HLEN + n_records * EBF_STORE_IDX_LEN + EBF_STORE_FOOT_LEN;
}

/* Write the trailer of n records (record_bytes in all) starting at file
 * offset trl_off into out (ebf_store_trailer_len(n) bytes). */
void ebf_store_trailer_write(uint8_t *out, uint64_t trl_off, uint64_t record_bytes, uint64_t n,
                             const struct ebf_store_idx *idx);

/* What a trailer says. */
struct ebf_store_trailer {
    uint64_t offset;             /* of the trailer in the file */
    uint64_t n_records;
    uint64_t record_bytes;
    const uint8_t *idx;          /* n_records entries of EBF_STORE_IDX_LEN bytes */
};

/*
 * Find and check the trailer of a whole file (size bytes at file): the
 * footer's magic and offset, the trailer's magic, length and CRC, and the
 * counts against the file (record_bytes == offset - header). SHORT when
 * the file has no footer (cut short); another error when it has one that
 * is wrong.
 */
enum ebf_store_err ebf_store_trailer_find(const uint8_t *file, uint64_t size,
                                          struct ebf_store_trailer *t, char *err, size_t errlen);

/* Index entry i of a checked trailer. */
struct ebf_store_idx ebf_store_trailer_idx(const struct ebf_store_trailer *t, uint64_t i);

#endif /* EBF_STORE_FMT_H */
