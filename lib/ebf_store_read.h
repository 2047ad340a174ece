/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_read.h - read an event storage file: header, records in order, trailer and index checked; a cut file read up to its last whole record. */
#ifndef EBF_STORE_READ_H
#define EBF_STORE_READ_H

#include <stdint.h>

#include "ebf_store_fmt.h"

/*
 * A file mapped read-only. ebf_store_open checks the header and looks for
 * the trailer: with a good one, records end where it begins; without one
 * (cut short) records are read while whole ones remain. One thread per
 * file; no DPDK.
 */
struct ebf_store_file {
    const uint8_t *map;
    uint64_t size;
    struct ebf_store_hdr hdr;
    struct ebf_store_trailer trl;
    enum ebf_store_err trl_err;  /* OK: the trailer is good; SHORT: none (cut short) */
    char trl_why[256];
    uint64_t end;                /* records end here: the trailer, or the file's end */
    uint64_t pos;                /* the next record */
    uint64_t n;                  /* records returned so far */
    int truncated;               /* stopped at a record cut short */
};

/* Map path and check its header. 0, or -errno (open, mmap) or -EINVAL
 * (the header: err says what) with err naming the path. */
int ebf_store_open(struct ebf_store_file *f, const char *path, char *err, size_t len);
void ebf_store_close(struct ebf_store_file *f);

/*
 * The next record: 1 with *r; 0 at the end of the records (f->truncated
 * when the last one was cut short, err then says where); -1 on a bad
 * record with err saying which and why. After a bad CRC the reader steps
 * over the record (its length was sane) and may be called again; after
 * any other error the records end there.
 */
int ebf_store_next(struct ebf_store_file *f, struct ebf_store_rec *r, char *err, size_t len);

/* Offset of the record last returned. */
static inline uint64_t ebf_store_last_offset(const struct ebf_store_file *f, const struct ebf_store_rec *r)
{
    return f->pos - r->len;
}

#endif /* EBF_STORE_READ_H */
