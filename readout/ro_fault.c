/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fault.c - fault specs, the seeded per-frame decision stream and the fault counters. */
#include "ro_fault.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "ebf_metrics.h"
#include "ebf_mix.h"
#include "ebf_util.h"

#define SPEC_MAX 1024
#define DRAW_ONE ((double)(UINT64_C(1) << 53))     /* a draw is 53 bits */

enum key_what { K_PROB, K_WINDOW, K_DELAY_US, K_DELAY_FRAMES, K_DUP_FRAMES };

static const struct fault_key {
    const char *name;
    enum key_what what;
    unsigned slot;               /* the kind for K_PROB; "given twice" check */
} keys[] = {
#define RO_FAULT_KEY(n, key, ctr) {key, K_PROB, RO_FK_##n},
    RO_FOREACH_FAULT(RO_FAULT_KEY)
#undef RO_FAULT_KEY
    {"corrupt", K_PROB, RO_FK_CORRUPT_PAYLOAD},
    {"window", K_WINDOW, RO_FK_MAX},
    {"delay_us", K_DELAY_US, RO_FK_MAX + 1},
    {"delay_frames", K_DELAY_FRAMES, RO_FK_MAX + 2},
    {"dup_frames", K_DUP_FRAMES, RO_FK_MAX + 3},
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const counter_names[] = {
#define RO_FAULT_CTR(n, key, ctr) ctr,
    RO_FOREACH_FAULT(RO_FAULT_CTR)
#undef RO_FAULT_CTR
};

const char *ro_fault_key(unsigned kind)
{
    return kind < RO_FK_MAX ? keys[kind].name : "unknown";
}

const char *ro_fault_counter(unsigned kind)
{
    return kind < RO_FK_MAX ? counter_names[kind] : "unknown";
}

void ro_fault_conf_init(struct ro_fault_conf *fc)
{
    memset(fc, 0, sizeof(*fc));
    fc->window = 8;
    fc->delay_us = 1000;
    fc->seed = 1;
    fc->silence_source = RO_FAULT_NO_SILENCE;
}

int ro_fault_conf_active(const struct ro_fault_conf *fc)
{
    for (unsigned k = 0; k < RO_FK_MAX; k++)
        if (fc->p[k] > 0)
            return 1;
    return fc->silence_source != RO_FAULT_NO_SILENCE || fc->burst_events > 0;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* "drop, dup, ..., delay_frames": every key, for error messages. */
static void key_list(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < N_KEYS && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", keys[i].name);
}

/* Apply one "key=value" item to fc. */
static int parse_item(char *item, struct ro_fault_conf *fc, unsigned *seen, char *err,
                      size_t errlen)
{
    char *eq = strchr(item, '=');
    const struct fault_key *k = NULL;
    uint64_t v;

    if (!*item)
        return fail(err, errlen, "empty item (want key=value,key=value,...)");
    if (eq)
        *eq = '\0';
    for (unsigned i = 0; i < N_KEYS && !k; i++)
        if (strcmp(item, keys[i].name) == 0)
            k = &keys[i];
    if (!k) {
        char all[256];
        key_list(all, sizeof(all));
        return fail(err, errlen, "unknown key '%s' (allowed: %s)", item, all);
    }
    if (!eq)
        return fail(err, errlen, "'%s' has no value (want %s=VALUE)", item, item);
    if (*seen & (1u << k->slot))
        return fail(err, errlen, "'%s' given twice", item);
    *seen |= 1u << k->slot;
    const char *val = eq + 1;
    switch (k->what) {
    case K_PROB:
        if (ebf_parse_double(val, 0, 1, &fc->p[k->slot]))
            return fail(err, errlen, "'%s': \"%s\" is not a probability in 0..1", item, val);
        return 0;
    case K_WINDOW:
        if (ebf_parse_u64(val, 1, RO_FAULT_WINDOW_MAX, &v))
            return fail(err, errlen, "'%s': \"%s\" is not an integer in 1..%u", item, val,
                        RO_FAULT_WINDOW_MAX);
        fc->window = (uint32_t)v;
        return 0;
    case K_DELAY_US:
        if (ebf_parse_u64(val, 0, 10000000, &v))
            return fail(err, errlen, "'%s': \"%s\" is not an integer in 0..10000000", item,
                        val);
        fc->delay_us = (uint32_t)v;
        return 0;
    case K_DELAY_FRAMES:
        if (ebf_parse_u64(val, 0, RO_FAULT_WINDOW_MAX, &v))
            return fail(err, errlen, "'%s': \"%s\" is not an integer in 0..%u", item, val,
                        RO_FAULT_WINDOW_MAX);
        fc->delay_frames = (uint32_t)v;
        return 0;
    case K_DUP_FRAMES:
        if (ebf_parse_u64(val, 0, RO_FAULT_WINDOW_MAX, &v))
            return fail(err, errlen, "'%s': \"%s\" is not an integer in 0..%u", item, val,
                        RO_FAULT_WINDOW_MAX);
        fc->dup_frames = (uint32_t)v;
        return 0;
    }
    return fail(err, errlen, "'%s': internal error", item);
}

int ro_fault_parse(const char *spec, struct ro_fault_conf *fc, char *err, size_t errlen)
{
    char buf[SPEC_MAX];
    unsigned seen = 0;
    double sum = 0;

    if (strlen(spec) >= sizeof(buf))
        return fail(err, errlen, "spec longer than %d characters", SPEC_MAX - 1);
    if (!*spec)
        return 0;
    strcpy(buf, spec);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        int rc = parse_item(item, fc, &seen, err, errlen);
        if (rc)
            return rc;
    }
    for (unsigned k = 0; k < RO_FK_MAX; k++)
        sum += fc->p[k];
    if (sum > 1 + 1e-9)
        return fail(err, errlen, "probabilities add up to %g, above 1 (a frame gets one "
                    "fault at most)", sum);
    return 0;
}

int ro_fault_parse_silence(const char *val, struct ro_fault_conf *fc, char *err,
                           size_t errlen)
{
    char buf[64];
    uint64_t s, e;
    char *at;

    if (strlen(val) >= sizeof(buf) || !(at = strchr(strcpy(buf, val), '@')))
        return fail(err, errlen, "\"%s\" is not SOURCE@EVENT (for example 3@1000)", val);
    *at = '\0';
    if (ebf_parse_u64(buf, 0, EBF_MAX_SOURCES - 1, &s))
        return fail(err, errlen, "\"%s\": source \"%s\" is not an integer in 0..%d", val, buf,
                    EBF_MAX_SOURCES - 1);
    if (ebf_parse_u64(at + 1, 0, UINT64_MAX, &e))
        return fail(err, errlen, "\"%s\": event \"%s\" is not an unsigned integer", val,
                    at + 1);
    fc->silence_source = (uint32_t)s;
    fc->silence_event = e;
    return 0;
}

/* splitmix64: the next 64-bit draw of the stream. */
static inline uint64_t next_draw(struct ro_fault_plan *p)
{
    uint64_t x = ebf_mix64(p->state);
    p->state += 0x9e3779b97f4a7c15ull;
    return x;
}

void ro_fault_plan_init(struct ro_fault_plan *p, const struct ro_fault_conf *fc)
{
    double cum = 0;

    memset(p, 0, sizeof(*p));
    p->state = ebf_mix64(fc->seed ^ 0x6661756c74ull);          /* "fault" */
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        cum += fc->p[k];
        p->thr[k] = cum >= 1 ? UINT64_C(1) << 53 : (uint64_t)(cum * DRAW_ONE);
    }
    p->window = fc->window ? fc->window : 1;
    p->delay_frames = fc->delay_frames;
}

enum ro_fault_kind ro_fault_decide(struct ro_fault_plan *p, uint32_t *arg)
{
    uint64_t u = next_draw(p) >> 11;
    unsigned k = 0;

    *arg = 0;
    while (k < RO_FK_MAX && u >= p->thr[k])
        k++;
    if (k == RO_FK_REORDER)
        *arg = 1 + (uint32_t)(next_draw(p) % p->window);
    else if (k == RO_FK_DELAY)
        *arg = p->delay_frames;
    else if (k == RO_FK_CORRUPT_PAYLOAD)
        *arg = (uint32_t)(next_draw(p) >> 32);
    return (enum ro_fault_kind)k;
}

void ro_fault_metrics(const struct ro_fault_stats *fs, uint16_t n_sources,
                      struct ebf_metrics *ms)
{
    char key[48];

    ebf_metrics_counter(ms, "fault.frames_in", fs->frames_in);
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        snprintf(key, sizeof(key), "fault.%s", counter_names[k]);
        ebf_metrics_counter(ms, key, fs->n[k]);
    }
    ebf_metrics_counter(ms, "fault.silenced_frames", fs->silenced_frames);
    ebf_metrics_counter(ms, "fault.silenced_fragments", fs->silenced_fragments);
    ebf_metrics_counter(ms, "fault.dup_failed", fs->dup_failed);
    ebf_metrics_counter(ms, "fault.hold_full", fs->hold_full);
    ebf_metrics_counter(ms, "fault.burst_gaps", fs->burst_gaps);
    ebf_metrics_counter(ms, "fault.withheld_events", fs->withheld_events);
    ebf_metrics_counter(ms, "fault.withheld_digest", fs->withheld_digest);
    ebf_metrics_id_record(ms, "ledger.withheld", fs->withheld.count, fs->withheld.id_sum,
                          fs->withheld.hash_sum, EBF_IDSET_CELLS);
    ebf_metrics_counter_index(ms, "fault.dropped.source", "source", fs->dropped_source,
                              n_sources < EBF_MAX_SOURCES ? n_sources : EBF_MAX_SOURCES, 0);
}
