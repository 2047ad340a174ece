/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_counters.c - walking a counter table over a stats struct into a metric list. */
#include "ebf_counters.h"

#include <stdio.h>
#include <string.h>

static const size_t type_size[] = {
    [EBF_CT_U64] = sizeof(uint64_t), [EBF_CT_U32] = sizeof(uint32_t),
    [EBF_CT_U16] = sizeof(uint16_t), [EBF_CT_U8] = sizeof(uint8_t),
    [EBF_CT_INT] = sizeof(int),      [EBF_CT_DOUBLE] = sizeof(double),
};

/* The number at p, of the entry's type, as a double (gauges). */
static double load_double(const struct ebf_counter *c, const char *p)
{
    uint64_t u64;
    uint32_t u32;
    uint16_t u16;
    int i;
    double d;

    switch (c->type) {
    case EBF_CT_U64: memcpy(&u64, p, sizeof(u64)); return (double)u64;
    case EBF_CT_U32: memcpy(&u32, p, sizeof(u32)); return u32;
    case EBF_CT_U16: memcpy(&u16, p, sizeof(u16)); return u16;
    case EBF_CT_U8: return (uint8_t)*p;
    case EBF_CT_INT: memcpy(&i, p, sizeof(i)); return i;
    case EBF_CT_DOUBLE: memcpy(&d, p, sizeof(d)); return d;
    default: return 0;
    }
}

/* The same as an unsigned count (counters): negative values read as 0. */
static uint64_t load_u64(const struct ebf_counter *c, const char *p)
{
    uint64_t v;

    if (c->type == EBF_CT_U64) {
        memcpy(&v, p, sizeof(v));
        return v;
    }
    double d = load_double(c, p);
    return d > 0 ? (uint64_t)d : 0;
}

static void put(struct ebf_metrics *ms, const struct ebf_counter *c, const char *p,
                const char *label, const char *value)
{
    if (c->kind == EBF_M_COUNTER)
        ebf_metrics_counter_l(ms, c->name, label, value, load_u64(c, p));
    else
        ebf_metrics_gauge(ms, c->name, label, value, load_double(c, p));
}

/* Index of the largest of the n u64 at p, or -1 when all are 0. */
static double argmax(const char *p, unsigned n)
{
    int best = -1;
    uint64_t most = 0, v;

    for (unsigned i = 0; i < n; i++) {
        memcpy(&v, p + i * sizeof(v), sizeof(v));
        if (v > most) {
            most = v;
            best = (int)i;
        }
    }
    return best;
}

/* The entries of an array from first to end (exclusive). */
static void put_array(struct ebf_metrics *ms, const struct ebf_counter *c, const char *p,
                      unsigned first, unsigned end)
{
    size_t size = type_size[c->type];
    char idx[16];

    for (unsigned i = first; i < end; i++) {
        const char *e = p + i * size;
        if ((c->flags & EBF_CF_SKIP0) && load_double(c, e) == 0)
            continue;
        const char *value = idx;
        if (c->label_of)
            value = c->label_of(i);
        else
            snprintf(idx, sizeof(idx), "%u", i);
        put(ms, c, e, c->label, value);
    }
}

static void walk_one(struct ebf_metrics *ms, const struct ebf_counter *c, const char *base,
                     const char *label, const char *value)
{
    const char *p = base + c->off;
    uint16_t count;

    switch (c->shape) {
    case EBF_CS_SCALAR:
        if (c->type == EBF_CT_HIST) {
            ebf_metrics_hist(ms, c->name, (const struct ebf_hist *)(const void *)p);
        } else if (c->type == EBF_CT_IDSET) {
            const struct ebf_idset *r = (const struct ebf_idset *)(const void *)p;
            ebf_metrics_id_record(ms, c->name, r->count, r->id_sum, r->hash_sum,
                                  EBF_IDSET_CELLS);
        } else if (c->label) {
            put(ms, c, p, c->label, c->label_value);
        } else {
            put(ms, c, p, label, value);
        }
        break;
    case EBF_CS_ARRAY:
        put_array(ms, c, p, c->first, c->n);
        break;
    case EBF_CS_COUNTED:
        memcpy(&count, base + c->count_off, sizeof(count));
        put_array(ms, c, p, 0, count < c->n ? count : c->n);
        break;
    case EBF_CS_ARGMAX:
        ebf_metrics_gauge(ms, c->name, label, value, argmax(p, c->n));
        break;
    default:
        break;
    }
}

void ebf_counters_metrics_l(const struct ebf_counter_table *t, const void *base,
                            const char *label, const char *value, struct ebf_metrics *ms)
{
    for (unsigned i = 0; i < t->n; i++)
        walk_one(ms, &t->c[i], base, label, value);
}

void ebf_counters_metrics(const struct ebf_counter_table *t, const void *base,
                          struct ebf_metrics *ms)
{
    ebf_counters_metrics_l(t, base, NULL, NULL, ms);
}

/* 1 when name is one of the metrics id record c makes: "<c->name>.count"... */
static int id_record_part(const struct ebf_counter *c, const char *name)
{
    static const char *const parts[] = {"count", "id_sum", "hash_sum"};
    size_t n = strlen(c->name);

    if (c->type != EBF_CT_IDSET || strncmp(name, c->name, n) != 0 || name[n] != '.')
        return 0;
    for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (strcmp(name + n + 1, parts[i]) == 0)
            return 1;
    return 0;
}

const struct ebf_counter *ebf_counters_find(const struct ebf_counter_table *t, const char *name)
{
    for (unsigned i = 0; i < t->n; i++)
        if (strcmp(t->c[i].name, name) == 0 || id_record_part(&t->c[i], name))
            return &t->c[i];
    return NULL;
}

const struct ebf_counter *ebf_counters_find_in(const struct ebf_counter_table *const *tables,
                                               const char *name)
{
    for (; tables && *tables; tables++) {
        const struct ebf_counter *c = ebf_counters_find(*tables, name);
        if (c)
            return c;
    }
    return NULL;
}

void ebf_counter_key(char *out, size_t len, const char *name)
{
    size_t o = 0;

    if (!len)
        return;
    for (; *name && o + 1 < len; name++) {
        char ch = *name;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '_';
        out[o++] = ok ? ch : '_';
    }
    out[o] = '\0';
}
