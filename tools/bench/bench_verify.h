/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_verify.h - the node's piece verification against a plain CRC32C pass over the same bytes, in-process. */
#ifndef BENCH_VERIFY_H
#define BENCH_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "bench_env.h"

/* Fragments laid out as a node receives them: n pieces, each a fragment
 * header and frag_size bytes of the readout's pattern. */
struct bench_pieces {
    uint8_t *buf;
    size_t n;                    /* pieces */
    size_t stride;               /* bytes of one piece: EBF_FRAG_HLEN + frag_size */
};

/* Build n pieces (8 sources per event, events from 0) of frag_size bytes.
 * Returns 0, or -1 when out of memory. */
int bench_pieces_build(struct bench_pieces *p, size_t n, unsigned frag_size);
void bench_pieces_free(struct bench_pieces *p);

/* One pass over every piece as the node verifies it (ebf_frag_parse with
 * the CRC, then ebf_pattern_check). Returns the pieces that passed. */
size_t bench_verify_pass(const struct bench_pieces *p);

/* One plain CRC32C pass over the same bytes. Returns a digest of the CRCs
 * (so that the pass is not optimised away). */
uint32_t bench_crc_pass(const struct bench_pieces *p);

/* One run: the node's verification (reference 0) or the CRC32C pass
 * (reference 1), repeated for a fixed time; *value is bytes per second. */
int bench_verify_side(struct bench_env *env, int reference, double *value, char *err,
                      size_t len);

#endif /* BENCH_VERIFY_H */
