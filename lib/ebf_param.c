/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_param.c - the shared parameter table and its strict value parser. */
#include "ebf_param.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_util.h"

const struct ebf_param_def ebf_params[EBF_P_COUNT] = {
#define EBF_PARAM_INT_(id, k, o, t, lo, hi, u, f, use_, h)                                  \
    [EBF_P_##id] = {.key = (k), .opt = (o), .type = EBF_PT_##t, .min = (lo), .max = (hi),    \
                    .unit = (u), .farm = (f), .use = (use_), .help = (h)},
#define EBF_PARAM_DBL_(id, k, o, lo, hi, u, f, use_, h)                                     \
    [EBF_P_##id] = {.key = (k), .opt = (o), .type = EBF_PT_DOUBLE, .dmin = (lo), .dmax = (hi), \
                    .unit = (u), .farm = (f), .use = (use_), .help = (h)},
    EBF_PARAMS(EBF_PARAM_INT_, EBF_PARAM_DBL_)
#undef EBF_PARAM_INT_
#undef EBF_PARAM_DBL_
};

size_t ebf_param_size(enum ebf_param_type t)
{
    switch (t) {
    case EBF_PT_U16:
        return sizeof(uint16_t);
    case EBF_PT_U32:
        return sizeof(uint32_t);
    case EBF_PT_U64:
        return sizeof(uint64_t);
    case EBF_PT_DOUBLE:
        return sizeof(double);
    }
    return 0;
}

const struct ebf_param_def *ebf_param_find(const char *key, size_t len)
{
    for (unsigned i = 0; i < EBF_P_COUNT; i++)
        if (strlen(ebf_params[i].key) == len && memcmp(ebf_params[i].key, key, len) == 0)
            return &ebf_params[i];
    return NULL;
}

int ebf_param_parse(const struct ebf_param_def *d, const char *text, size_t len, void *dst)
{
    char buf[64];                /* longer than any number written out */
    uint64_t v;
    double x;

    if (len >= sizeof(buf) || memchr(text, '\0', len))
        return -EINVAL;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (d->type == EBF_PT_DOUBLE) {
        if (ebf_parse_double(buf, d->dmin, d->dmax, &x))
            return -EINVAL;
        *(double *)dst = x;
        return 0;
    }
    if (ebf_parse_u64(buf, d->min, d->max, &v))
        return -EINVAL;
    if (d->type == EBF_PT_U16)
        *(uint16_t *)dst = (uint16_t)v;
    else if (d->type == EBF_PT_U32)
        *(uint32_t *)dst = (uint32_t)v;
    else
        *(uint64_t *)dst = v;
    return 0;
}

const char *ebf_param_range(const struct ebf_param_def *d, char *buf, size_t len)
{
    if (d->type == EBF_PT_DOUBLE)
        snprintf(buf, len, "%g..%g", d->dmin, d->dmax);
    else
        snprintf(buf, len, "%" PRIu64 "..%" PRIu64, d->min, d->max);
    return buf;
}
