/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_metrics.c - building the metric list and writing it as a stats file. */
#include "ebf_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_kv.h"

int ebf_metrics_init(struct ebf_metrics *ms, unsigned cap)
{
    memset(ms, 0, sizeof(*ms));
    ms->m = calloc(cap, sizeof(*ms->m));
    if (!ms->m)
        return -ENOMEM;
    ms->cap = cap;
    return 0;
}

void ebf_metrics_free(struct ebf_metrics *ms)
{
    free(ms->m);
    memset(ms, 0, sizeof(*ms));
}

void ebf_metrics_clear(struct ebf_metrics *ms)
{
    ms->n = 0;
    ms->overflow = 0;
}

static struct ebf_metric *add(struct ebf_metrics *ms, enum ebf_metric_kind k, const char *name,
                              const char *label, const char *label_value)
{
    if (ms->n == ms->cap) {
        ms->overflow = 1;
        return NULL;
    }
    struct ebf_metric *m = &ms->m[ms->n++];
    memset(m, 0, sizeof(*m));
    m->kind = k;
    snprintf(m->name, sizeof(m->name), "%s", name);
    snprintf(m->label, sizeof(m->label), "%s", label ? label : "");
    snprintf(m->label_value, sizeof(m->label_value), "%s", label_value ? label_value : "");
    return m;
}

void ebf_metrics_counter_l(struct ebf_metrics *ms, const char *name, const char *label,
                           const char *label_value, uint64_t v)
{
    struct ebf_metric *m = add(ms, EBF_M_COUNTER, name, label, label_value);

    if (m)
        m->count = v;
}

void ebf_metrics_counter(struct ebf_metrics *ms, const char *name, uint64_t v)
{
    ebf_metrics_counter_l(ms, name, NULL, NULL, v);
}

void ebf_metrics_counter_each(struct ebf_metrics *ms, const char *name, const char *label,
                              const uint64_t *v, unsigned first, unsigned n,
                              const char *(*name_of)(unsigned i), int skip_zero)
{
    for (unsigned i = first; i < n; i++)
        if (v[i] || !skip_zero)
            ebf_metrics_counter_l(ms, name, label, name_of(i), v[i]);
}

void ebf_metrics_counter_index(struct ebf_metrics *ms, const char *name, const char *label,
                               const uint64_t *v, unsigned n, int skip_zero)
{
    char idx[16];

    for (unsigned i = 0; i < n; i++) {
        if (!v[i] && skip_zero)
            continue;
        snprintf(idx, sizeof(idx), "%u", i);
        ebf_metrics_counter_l(ms, name, label, idx, v[i]);
    }
}

void ebf_metrics_id_record(struct ebf_metrics *ms, const char *name, const uint64_t *count,
                           const uint64_t *id_sum, const uint64_t *hash_sum, unsigned n)
{
    char key[64];

    snprintf(key, sizeof(key), "%s.count", name);
    ebf_metrics_counter_index(ms, key, "cell", count, n, 1);
    snprintf(key, sizeof(key), "%s.id_sum", name);
    ebf_metrics_counter_index(ms, key, "cell", id_sum, n, 1);
    snprintf(key, sizeof(key), "%s.hash_sum", name);
    ebf_metrics_counter_index(ms, key, "cell", hash_sum, n, 1);
}

void ebf_metrics_gauge(struct ebf_metrics *ms, const char *name, const char *label,
                       const char *label_value, double v)
{
    struct ebf_metric *m = add(ms, EBF_M_GAUGE, name, label, label_value);

    if (m)
        m->value = v;
}

void ebf_metrics_hist(struct ebf_metrics *ms, const char *name, const struct ebf_hist *h)
{
    struct ebf_metric *m = add(ms, EBF_M_HIST, name, NULL, NULL);

    if (m)
        m->hist = h;
}

const struct ebf_metric *ebf_metrics_find(const struct ebf_metrics *ms, enum ebf_metric_kind k,
                                          const char *name, const char *label_value)
{
    for (unsigned i = 0; i < ms->n; i++) {
        const struct ebf_metric *m = &ms->m[i];
        if (m->kind == k && strcmp(m->name, name) == 0 &&
            (!label_value || strcmp(m->label_value, label_value) == 0))
            return m;
    }
    return NULL;
}

void ebf_metrics_write_kv(const struct ebf_metrics *ms, FILE *f)
{
    char key[128];

    for (unsigned i = 0; i < ms->n; i++) {
        const struct ebf_metric *m = &ms->m[i];
        if (m->kind == EBF_M_COUNTER) {
            if (m->label[0])
                snprintf(key, sizeof(key), "%s.%s", m->name, m->label_value);
            else
                snprintf(key, sizeof(key), "%s", m->name);
            ebf_kv_put(f, key, m->count);
        } else if (m->kind == EBF_M_HIST) {
            snprintf(key, sizeof(key), "hist.%s", m->name);
            ebf_hist_write(m->hist, key, f);
        }
    }
}
