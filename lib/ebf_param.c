/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_param.c - the shared parameter table and its strict value parser. */
#include "ebf_param.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ebf_util.h"

const struct ebf_param_def ebf_params[EBF_P_COUNT] = {
#define EBF_PARAM_INT_(id, k, o, t, lo, hi, df, u, f, use_, h)                              \
    [EBF_P_##id] = {.key = (k), .opt = (o), .type = EBF_PT_##t, .min = (lo), .max = (hi),    \
                    .def = (df), .unit = (u), .farm = (f), .use = (use_), .help = (h)},
#define EBF_PARAM_DBL_(id, k, o, lo, hi, df, u, f, use_, h)                                 \
    [EBF_P_##id] = {.key = (k), .opt = (o), .type = EBF_PT_DOUBLE, .dmin = (lo), .dmax = (hi), \
                    .def = (df), .unit = (u), .farm = (f), .use = (use_), .help = (h)},
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

int ebf_param_default(const struct ebf_param_def *d, void *dst)
{
    if (!d->def[0])
        return -ENOENT;
    return ebf_param_parse(d, d->def, strlen(d->def), dst);
}

/* How n names d: "--workers" or pre + "workers". */
static const char *name_of(const struct ebf_param_names *n, const struct ebf_param_def *d,
                           char *buf, size_t len)
{
    if (n->opt)
        snprintf(buf, len, "--%s", d->opt);
    else
        snprintf(buf, len, "%s%s", n->pre ? n->pre : "", d->key);
    return buf;
}

int ebf_param_check_workers(const struct ebf_param_names *n, unsigned workers, unsigned credits,
                            char *why, size_t len)
{
    char a[64], b[64];

    if (workers <= credits)
        return 0;
    snprintf(why, len, "%s %u is more than %s %u (each trigger worker holds at least one event "
             "slot)", name_of(n, EBF_PARAM(WORKERS), a, sizeof(a)), workers,
             name_of(n, EBF_PARAM(CREDITS), b, sizeof(b)), credits);
    return -EINVAL;
}

int ebf_param_check_frag_range(const struct ebf_param_names *n, uint32_t frag_min,
                               uint32_t frag_max, char *why, size_t len)
{
    char a[64], b[64];

    if (frag_min <= frag_max)
        return 0;
    snprintf(why, len, "%s %u is above %s %u", name_of(n, EBF_PARAM(FRAG_MIN), a, sizeof(a)),
             frag_min, name_of(n, EBF_PARAM(FRAG_MAX), b, sizeof(b)), frag_max);
    return -EINVAL;
}

int ebf_param_check_burst_gap(const struct ebf_param_names *n, int gap, uint32_t burst_events,
                              char *why, size_t len)
{
    char a[64], b[64];

    if (!gap || burst_events)
        return 0;
    snprintf(why, len, "%s needs %s above 0 (the pause between bursts of that many events)",
             name_of(n, EBF_PARAM(BURST_GAP_US), a, sizeof(a)),
             name_of(n, EBF_PARAM(BURST_EVENTS), b, sizeof(b)));
    return -EINVAL;
}

const char *ebf_param_range(const struct ebf_param_def *d, char *buf, size_t len)
{
    if (d->type == EBF_PT_DOUBLE)
        snprintf(buf, len, "%g..%g", d->dmin, d->dmax);
    else
        snprintf(buf, len, "%" PRIu64 "..%" PRIu64, d->min, d->max);
    return buf;
}

uint32_t ebf_piece_max(enum ebf_encap encap, uint32_t mtu)
{
    uint32_t l3 = encap == EBF_ENCAP_UDP ? EBF_IPV4_HLEN + EBF_UDP_HLEN : 0;
    uint32_t head = l3 + EBF_FRAG_HLEN + EBF_EVENT_HLEN;

    return mtu > head ? (mtu - head) & ~7u : 0;
}

uint64_t ebf_event_frames(uint32_t n_sources, uint32_t frag_max, enum ebf_encap encap,
                          uint32_t mtu)
{
    uint32_t piece = ebf_piece_max(encap, mtu);

    if (piece == 0)
        return UINT64_MAX;
    return (uint64_t)n_sources * ((frag_max + (uint64_t)piece - 1) / piece);
}

/* The largest fragment of whose n_sources an event takes at most frames
 * frames (at most EBF_FRAG_MAX). */
static uint32_t frag_fit_frames(uint32_t n_sources, enum ebf_encap encap, uint32_t mtu,
                                uint32_t frames)
{
    uint64_t fit = n_sources ? (uint64_t)(frames / n_sources) * ebf_piece_max(encap, mtu)
                             : EBF_FRAG_MAX;

    return fit < EBF_FRAG_MAX ? (uint32_t)fit : EBF_FRAG_MAX;
}

uint32_t ebf_frag_fit(uint32_t n_sources, enum ebf_encap encap, uint32_t mtu)
{
    return frag_fit_frames(n_sources, encap, mtu, EBF_EVENT_QUEUE_FRAMES);
}

int ebf_event_frames_check(uint32_t n_sources, uint32_t frag_max, enum ebf_encap encap,
                           uint32_t mtu, uint32_t max_event, char *why, size_t len)
{
    uint64_t frames = ebf_event_frames(n_sources, frag_max, encap, mtu);
    uint64_t bytes = (uint64_t)n_sources * frag_max;

    if (max_event && bytes > max_event) {
        snprintf(why, len, "events of %u fragments of up to %u B are up to %" PRIu64 " B, more "
                 "than max_event %u B (fragments of at most %u B fit)", n_sources, frag_max,
                 bytes, max_event, n_sources ? max_event / n_sources : 0);
        return -EINVAL;
    }
    if (frames <= EBF_EVENT_FRAMES_MAX)
        return 0;
    snprintf(why, len, "events of %u fragments of up to %u B take %" PRIu64 " frames at MTU %u "
             "(pieces of %u B), more than the %d of an event (fragments of at most %u B fit)",
             n_sources, frag_max, frames, mtu, ebf_piece_max(encap, mtu), EBF_EVENT_FRAMES_MAX,
             frag_fit_frames(n_sources, encap, mtu, EBF_EVENT_FRAMES_MAX));
    return -EINVAL;
}

uint32_t ebf_event_max_fit(uint32_t mtu, uint32_t mbufs)
{
    uint64_t piece = mtu > EBF_EVENT_HLEN + EBF_FRAG_HLEN ? mtu - EBF_EVENT_HLEN - EBF_FRAG_HLEN
                                                          : 0;
    uint64_t frames = mbufs > 1024 ? mbufs - 1024u : 0;
    uint64_t fit;

    frames = frames < UINT16_MAX ? frames : UINT16_MAX;
    fit = piece * frames;
    return fit < EBF_EVENT_MAX_MAX ? (uint32_t)fit : EBF_EVENT_MAX_MAX;
}
