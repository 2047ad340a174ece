/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_kv.h - the stats file: one "key value" pair a line, written by daemons at exit. */
#ifndef EBF_KV_H
#define EBF_KV_H

#include <stdint.h>
#include <stdio.h>

/*
 * Daemons write their final counters as "key value" lines (keys are dotted
 * names such as "rx.reject.bad_checksum", values unsigned integers or plain
 * words). The ebfarm tool reads them back. Not for the fast path.
 */

struct ebf_kv_pair {
    char key[96];
    char val[64];
};

struct ebf_kv {
    unsigned n;
    struct ebf_kv_pair *pair;
};

/* Load a stats file; returns 0, or -errno (ENOENT, ENOMEM, EINVAL for a
 * line that is not "key value"). */
int ebf_kv_load(struct ebf_kv *kv, const char *path);
void ebf_kv_free(struct ebf_kv *kv);

/* Value of key as an integer, or def when absent or not a number. */
uint64_t ebf_kv_u64(const struct ebf_kv *kv, const char *key, uint64_t def);

/* Value of key as text, or NULL. */
const char *ebf_kv_str(const struct ebf_kv *kv, const char *key);

/* Open a stats file for writing: the lines go to "<path>.tmp" until
 * ebf_kv_commit() renames it to path, so a reader never sees half a file.
 * NULL with errno set. */
FILE *ebf_kv_create(const char *path);

/* Close f and rename it to path; returns 0, or -1 with errno set. */
int ebf_kv_commit(FILE *f, const char *path);

/* Write "key value" with an unsigned value. */
void ebf_kv_put(FILE *f, const char *key, uint64_t v);

/* Write "<prefix><name(i)> v[i]" for i in [first, n): a counter per reason. */
void ebf_kv_put_each(FILE *f, const char *prefix, const uint64_t *v, unsigned first,
                     unsigned n, const char *(*name)(unsigned i));

#endif /* EBF_KV_H */
