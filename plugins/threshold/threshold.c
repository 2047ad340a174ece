/* SPDX-License-Identifier: BSD-3-Clause */
/* threshold.c - example trigger plug-in: accept when the sum of the 32-bit words of chosen sources reaches a threshold. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ebfarm/trigger.h>

/*
 * Parameters:
 *   sources    the sources summed, "0,3" (required; 0..127, each once)
 *   threshold  accept when the sum >= threshold (required; 0..2^64-1)
 *   word       the word read from the payload: "u32" (default), a
 *              little-endian 32-bit unsigned word at every offset 4k of a
 *              fragment; a last partial word is not counted
 * A chosen source missing from an event adds 0. The sum is 64-bit and
 * wraps. Every accepted event goes to stream 0.
 */
struct threshold {
    uint64_t threshold;
    uint16_t n;
    uint16_t source[EBF_TRIGGER_MAX_SOURCES];
};

static const char *const known[] = {"sources", "threshold", "word", NULL};

/* "0,3" into t->source; 0 or -EINVAL naming the key and the value. */
static int parse_sources(const char *v, struct threshold *t, char *err, size_t len)
{
    uint8_t seen[EBF_TRIGGER_MAX_SOURCES] = {0};
    const char *p = v;

    while (*p) {
        char *end;
        errno = 0;
        unsigned long s = strtoul(p, &end, 10);
        if (end == p || errno || s >= EBF_TRIGGER_MAX_SOURCES || (*end && *end != ',') ||
            *p == '-' || *p == '+' || *p == ' ') {
            snprintf(err, len, "parameter 'sources': '%s' is not a list of source ids "
                     "0..%d separated by commas", v, EBF_TRIGGER_MAX_SOURCES - 1);
            return -EINVAL;
        }
        if (seen[s]++) {
            snprintf(err, len, "parameter 'sources': '%s' names source %lu twice", v, s);
            return -EINVAL;
        }
        t->source[t->n++] = (uint16_t)s;
        p = *end ? end + 1 : end;
        if (*end && !*p) {
            snprintf(err, len, "parameter 'sources': '%s' ends with a comma", v);
            return -EINVAL;
        }
    }
    if (t->n == 0) {
        snprintf(err, len, "parameter 'sources': empty (give at least one source id)");
        return -EINVAL;
    }
    return 0;
}

static int parse_threshold(const char *v, uint64_t *out, char *err, size_t len)
{
    char *end;

    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno || *v == '-') {
        snprintf(err, len, "parameter 'threshold': '%s' is not an integer 0..%llu", v,
                 (unsigned long long)UINT64_MAX);
        return -EINVAL;
    }
    *out = x;
    return 0;
}

static int th_init(const struct ebf_trigger_run *run, void **state, char *err, size_t len)
{
    struct threshold t = {0}, *s;
    const char *src = ebf_trigger_param_get(run, "sources");
    const char *thr = ebf_trigger_param_get(run, "threshold");
    const char *word = ebf_trigger_param_get(run, "word");

    if (ebf_trigger_params_known(run, known, err, len))
        return -EINVAL;
    if (!src || !thr) {
        snprintf(err, len, "parameter '%s' is required", !src ? "sources" : "threshold");
        return -EINVAL;
    }
    if (word && strcmp(word, "u32") != 0) {
        snprintf(err, len, "parameter 'word': '%s' (allowed: u32)", word);
        return -EINVAL;
    }
    if (parse_sources(src, &t, err, len) || parse_threshold(thr, &t.threshold, err, len))
        return -EINVAL;
    s = malloc(sizeof(*s));
    if (!s) {
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
    *s = t;
    *state = s;
    return 0;
}

/* The sum of the little-endian 32-bit words of f, across its pieces. */
static uint64_t word_sum(const struct ebf_trigger_fragment *f)
{
    uint64_t sum = 0;
    uint32_t w = 0;
    unsigned have = 0;

    for (uint32_t i = 0; i < f->n_pieces; i++) {
        const uint8_t *p = f->pieces[i].data;
        for (uint32_t k = 0; k < f->pieces[i].len; k++) {
            w |= (uint32_t)p[k] << (8 * have);
            if (++have == 4) {
                sum += w;
                w = 0;
                have = 0;
            }
        }
    }
    return sum;
}

static int th_decide(void *state, const struct ebf_trigger_event *ev,
                     struct ebf_trigger_decision *d)
{
    const struct threshold *t = state;
    uint64_t sum = 0;

    for (uint16_t i = 0; i < t->n; i++)
        if (ebf_trigger_present(ev, t->source[i]))
            sum += word_sum(&ev->fragments[t->source[i]]);
    d->accept = sum >= t->threshold;
    d->stream = 0;
    return 0;
}

static void th_fini(void *state)
{
    free(state);
}

const struct ebf_trigger_plugin ebf_trigger_plugin = {
    .abi_version = EBF_TRIGGER_ABI_VERSION,
    .name = "threshold",
    .init = th_init,
    .decide = th_decide,
    .fini = th_fini,
};
