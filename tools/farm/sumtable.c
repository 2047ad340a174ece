/* SPDX-License-Identifier: BSD-3-Clause */
/* sumtable.c - summary text items and JSON members made from counter tables and final counters. */
#include "sumtable.h"

#include <stdlib.h>
#include <string.h>

/* 1 when c has a label: its values are the keys "<name>.<label value>". */
static int labelled(const struct ebf_counter *c)
{
    return c->label != NULL;
}

/* 1 when entry i is a summary entry and not a further fixed-label entry of
 * the name before it (those are listed together, under the first). */
static int shown(const struct ebf_counter_table *t, unsigned i)
{
    const struct ebf_counter *c = &t->c[i];

    if (!(c->flags & EBF_CF_SUM))
        return 0;
    return i == 0 || !labelled(c) || strcmp(t->c[i - 1].name, c->name) != 0 ||
           !(t->c[i - 1].flags & EBF_CF_SUM);
}

/* The label value of kv pair p when it is a value of the labelled name
 * (key "<name>.<value>" with no further dot), else NULL. */
static const char *label_of(const struct ebf_kv_pair *p, const char *name, size_t n)
{
    if (strncmp(p->key, name, n) != 0 || p->key[n] != '.' || strchr(p->key + n + 1, '.'))
        return NULL;
    return p->key + n + 1;
}

void sum_begin(struct sum_line *ln, FILE *out, const char *who)
{
    ln->out = out;
    ln->items = 0;
    ln->col = (unsigned)fprintf(out, "  %-8s ", who);
}

void sum_item(struct sum_line *ln, const char *item)
{
    size_t n = strlen(item);

    if (ln->items && ln->col + 2 + n > SUM_WIDTH) {
        fprintf(ln->out, ";\n%*s", SUM_INDENT, "");
        ln->col = SUM_INDENT;
    } else if (ln->items) {
        fputs("; ", ln->out);
        ln->col += 2;
    }
    fputs(item, ln->out);
    ln->col += (unsigned)n;
    ln->items++;
}

void sum_end(struct sum_line *ln)
{
    fputc('\n', ln->out);
}

void sum_values_text(FILE *out, const char *name, const struct ebf_kv *kv)
{
    size_t n = strlen(name);
    int any = 0;

    for (unsigned i = 0; i < kv->n; i++) {
        const char *v = label_of(&kv->pair[i], name, n);
        if (v && strtoull(kv->pair[i].val, NULL, 0) != 0) {
            fprintf(out, "%s%s %s", any ? ", " : "", v, kv->pair[i].val);
            any = 1;
        }
    }
    if (!any)
        fputs("none", out);
}

/* "name: a N, b N", or "name: none"; malloc'd, NULL when out of memory. */
static char *labelled_item(const char *name, const struct ebf_kv *kv)
{
    size_t len = 0;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    fprintf(f, "%s: ", name);
    sum_values_text(f, name, kv);
    fclose(f);
    return buf;
}

void sum_text(struct sum_line *ln, const struct ebf_counter_table *t, const struct ebf_kv *kv)
{
    char item[160];

    for (unsigned i = 0; i < t->n; i++) {
        const struct ebf_counter *c = &t->c[i];
        if (!shown(t, i))
            continue;
        if (!labelled(c)) {
            snprintf(item, sizeof(item), "%s %llu", c->name,
                     (unsigned long long)ebf_kv_u64(kv, c->name, 0));
            sum_item(ln, item);
            continue;
        }
        char *s = labelled_item(c->name, kv);
        if (s)
            sum_item(ln, s);
        free(s);
    }
}

json_t *sum_values_json(const char *name, const struct ebf_kv *kv)
{
    size_t n = strlen(name);
    json_t *o = json_object();

    for (unsigned i = 0; o && i < kv->n; i++) {
        const char *v = label_of(&kv->pair[i], name, n);
        if (v && jout_set(o, v, jout_u64(strtoull(kv->pair[i].val, NULL, 0))) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

int sum_json(json_t *obj, const struct ebf_counter_table *t, const struct ebf_kv *kv)
{
    char key[64];

    for (unsigned i = 0; i < t->n; i++) {
        const struct ebf_counter *c = &t->c[i];
        if (!shown(t, i))
            continue;
        ebf_counter_key(key, sizeof(key), c->name);
        if (jout_set(obj, key, labelled(c) ? sum_values_json(c->name, kv)
                                           : jout_u64(ebf_kv_u64(kv, c->name, 0))) != 0)
            return -1;
    }
    return 0;
}
