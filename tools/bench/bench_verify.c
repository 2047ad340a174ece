/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_verify.c - the node's piece verification against a plain CRC32C pass over the same bytes, in-process. */
#include "bench_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_crc.h"
#include "ebf_pattern.h"
#include "ebf_proto.h"
#include "farm_proc.h"

#define VERIFY_SOURCES 8
/* 256 pieces of 1 KiB: 272 KB, about what a node's receive ring holds. */
#define VERIFY_PIECES 256

int bench_pieces_build(struct bench_pieces *p, size_t n, unsigned frag_size)
{
    p->n = n;
    p->stride = EBF_FRAG_HLEN + (size_t)frag_size;
    p->buf = malloc(p->n * p->stride);
    if (!p->buf)
        return -1;
    for (size_t i = 0; i < n; i++) {
        uint8_t *b = p->buf + i * p->stride;
        struct ebf_frag_hdr h = {
            .source = (uint16_t)(i % VERIFY_SOURCES),
            .seq = (uint32_t)(i / VERIFY_SOURCES),
            .event_id = i / VERIFY_SOURCES,
            .frag_len = frag_size,
            .offset = 0,
            .piece_len = (uint16_t)frag_size,
        };
        ebf_pattern_fill(b + EBF_FRAG_HLEN, frag_size, h.source, h.event_id, 0);
        ebf_frag_write(b, &h);
    }
    return 0;
}

void bench_pieces_free(struct bench_pieces *p)
{
    free(p->buf);
    p->buf = NULL;
}

size_t bench_verify_pass(const struct bench_pieces *p)
{
    size_t ok = 0;
    for (size_t i = 0; i < p->n; i++) {
        const uint8_t *b = p->buf + i * p->stride;
        struct ebf_frag_hdr h;
        size_t used;
        int pattern_bad = 1;
        if (ebf_frag_parse(b, p->stride, VERIFY_SOURCES, 0, &h, &used) == EBF_R_OK &&
            ebf_frag_verify(b, &h, &pattern_bad) == EBF_R_OK && !pattern_bad)
            ok++;
    }
    return ok;
}

uint32_t bench_crc_pass(const struct bench_pieces *p)
{
    uint32_t digest = 0;
    for (size_t i = 0; i < p->n; i++)
        digest ^= ebf_crc32c(0, p->buf + i * p->stride, p->stride);
    return digest;
}

/* Repeat passes for at least run_s seconds; bytes per second. */
static double timed_passes(const struct bench_pieces *p, int reference, double run_s,
                           size_t *bad)
{
    volatile uint32_t sink = 0;
    size_t passes = 0;
    *bad = 0;
    double t0 = farm_now(), t;
    do {
        for (int k = 0; k < 16; k++, passes++) {
            if (reference)
                sink ^= bench_crc_pass(p);
            else
                *bad += p->n - bench_verify_pass(p);
        }
        t = farm_now() - t0;
    } while (t < run_s);
    (void)sink;
    return (double)passes * (double)(p->n * p->stride) / t;
}

int bench_verify_side(struct bench_env *env, int reference, double *value, char *err,
                      size_t len)
{
    struct bench_pieces p;
    if (bench_pieces_build(&p, VERIFY_PIECES, env->o->frag_size) != 0) {
        snprintf(err, len, "out of memory for %u pieces of %u bytes", VERIFY_PIECES,
                 env->o->frag_size);
        return -1;
    }
    size_t bad;
    *value = timed_passes(&p, reference, env->o->quick ? 0.3 : 1.0, &bad);
    bench_pieces_free(&p);
    if (bad) {
        snprintf(err, len, "%zu pieces failed verification: the bench's pieces are wrong", bad);
        return -1;
    }
    return 0;
}
