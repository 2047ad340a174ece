/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_pb.c - metric lists to and from protobuf snapshots. */
#include "ebf_pb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One allocation holds every message of a snapshot; the Snapshot is first. */
struct pb_block {
    Ebfarm__Snapshot snap;
    Ebfarm__Counter *cp_store;
    Ebfarm__Gauge *gp_store;
    Ebfarm__Histogram *hp_store;
    Ebfarm__Label *labels;
    Ebfarm__Label **label_ptrs;
};

static Ebfarm__Label **label_of(struct pb_block *b, unsigned i, const struct ebf_metric *m,
                                size_t *n)
{
    if (!m->label[0]) {
        *n = 0;
        return NULL;
    }
    ebfarm__label__init(&b->labels[i]);
    b->labels[i].name = (char *)m->label;
    b->labels[i].value = (char *)m->label_value;
    b->label_ptrs[i] = &b->labels[i];
    *n = 1;
    return &b->label_ptrs[i];
}

static int fill_hist(Ebfarm__Histogram *h, const struct ebf_hist *src)
{
    unsigned nb = 0;

    for (unsigned k = 0; k < EBF_HIST_BUCKETS; k++)
        nb += src->bucket[k] != 0;
    h->unit = (char *)"ns";
    h->count = src->count;
    h->sum = src->sum;
    h->min = src->count ? src->min : 0;
    h->max = src->max;
    h->bucket_index = calloc(nb ? nb : 1, sizeof(*h->bucket_index));
    h->bucket_count = calloc(nb ? nb : 1, sizeof(*h->bucket_count));
    if (!h->bucket_index || !h->bucket_count)
        return -ENOMEM;
    for (unsigned k = 0; k < EBF_HIST_BUCKETS; k++) {
        if (!src->bucket[k])
            continue;
        h->bucket_index[h->n_bucket_index++] = k;
        h->bucket_count[h->n_bucket_count++] = src->bucket[k];
    }
    return 0;
}

Ebfarm__Snapshot *ebf_pb_snapshot(const struct ebf_metrics *ms, const char *component,
                                  const char *instance, uint64_t seq, uint32_t run_number,
                                  int state)
{
    struct pb_block *b = calloc(1, sizeof(*b));
    unsigned nc = 0, ng = 0, nh = 0, n = ms->n ? ms->n : 1;

    if (!b)
        return NULL;
    Ebfarm__Snapshot *s = &b->snap;
    ebfarm__snapshot__init(s);
    s->component = (char *)component;
    s->instance = (char *)instance;
    s->seq = seq;
    s->run_number = run_number;
    s->state = (Ebfarm__State)state;
    b->cp_store = calloc(n, sizeof(*b->cp_store));
    b->gp_store = calloc(n, sizeof(*b->gp_store));
    b->hp_store = calloc(n, sizeof(*b->hp_store));
    b->labels = calloc(n, sizeof(*b->labels));
    b->label_ptrs = calloc(n, sizeof(*b->label_ptrs));
    s->counters = calloc(n, sizeof(*s->counters));
    s->gauges = calloc(n, sizeof(*s->gauges));
    s->histograms = calloc(n, sizeof(*s->histograms));
    if (!b->cp_store || !b->gp_store || !b->hp_store || !b->labels || !b->label_ptrs ||
        !s->counters || !s->gauges || !s->histograms)
        goto fail;
    for (unsigned i = 0; i < ms->n; i++) {
        const struct ebf_metric *m = &ms->m[i];
        if (m->kind == EBF_M_COUNTER) {
            Ebfarm__Counter *c = &b->cp_store[nc];
            ebfarm__counter__init(c);
            c->name = (char *)m->name;
            c->labels = label_of(b, i, m, &c->n_labels);
            c->value = m->count;
            s->counters[nc++] = c;
        } else if (m->kind == EBF_M_GAUGE) {
            Ebfarm__Gauge *g = &b->gp_store[ng];
            ebfarm__gauge__init(g);
            g->name = (char *)m->name;
            g->labels = label_of(b, i, m, &g->n_labels);
            g->value = m->value;
            s->gauges[ng++] = g;
        } else {
            Ebfarm__Histogram *h = &b->hp_store[nh];
            ebfarm__histogram__init(h);
            h->name = (char *)m->name;
            h->labels = label_of(b, i, m, &h->n_labels);
            s->histograms[nh++] = h;
            if (fill_hist(h, m->hist))
                goto fail;
        }
    }
    s->n_counters = nc;
    s->n_gauges = ng;
    s->n_histograms = nh;
    return s;
fail:
    s->n_histograms = nh;
    ebf_pb_snapshot_free(s);
    return NULL;
}

void ebf_pb_snapshot_free(Ebfarm__Snapshot *s)
{
    struct pb_block *b = (struct pb_block *)s;

    if (!s)
        return;
    for (size_t i = 0; i < s->n_histograms; i++) {
        free(s->histograms[i]->bucket_index);
        free(s->histograms[i]->bucket_count);
    }
    free(s->counters);
    free(s->gauges);
    free(s->histograms);
    free(b->cp_store);
    free(b->gp_store);
    free(b->hp_store);
    free(b->labels);
    free(b->label_ptrs);
    free(b);
}

static int kv_add(struct ebf_kv *kv, unsigned *cap, const char *key, uint64_t v)
{
    if (kv->n == *cap) {
        unsigned ncap = *cap ? 2 * *cap : 256;
        struct ebf_kv_pair *p = realloc(kv->pair, ncap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        kv->pair = p;
        *cap = ncap;
    }
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
    return 0;
}

int ebf_pb_snapshot_kv(const Ebfarm__Snapshot *s, struct ebf_kv *kv)
{
    char key[160];
    unsigned cap = 0;
    int rc = 0;

    memset(kv, 0, sizeof(*kv));
    for (size_t i = 0; i < s->n_counters && rc == 0; i++) {
        const Ebfarm__Counter *c = s->counters[i];
        if (c->n_labels)
            snprintf(key, sizeof(key), "%s.%s", c->name, c->labels[0]->value);
        else
            snprintf(key, sizeof(key), "%s", c->name);
        rc = kv_add(kv, &cap, key, c->value);
    }
    for (size_t i = 0; i < s->n_histograms && rc == 0; i++) {
        const Ebfarm__Histogram *h = s->histograms[i];
        static const char *const part[] = {"count", "sum", "min", "max"};
        const uint64_t val[] = {h->count, h->sum, h->min, h->max};
        for (unsigned k = 0; k < 4 && rc == 0; k++) {
            snprintf(key, sizeof(key), "hist.%s.%s", h->name, part[k]);
            rc = kv_add(kv, &cap, key, val[k]);
        }
        for (size_t k = 0; k < h->n_bucket_index && k < h->n_bucket_count && rc == 0; k++) {
            snprintf(key, sizeof(key), "hist.%s.bucket.%u", h->name, h->bucket_index[k]);
            rc = kv_add(kv, &cap, key, h->bucket_count[k]);
        }
    }
    if (rc)
        ebf_kv_free(kv);
    return rc;
}

int ebf_pb_hist(const Ebfarm__Histogram *pb, struct ebf_hist *h)
{
    ebf_hist_init(h);
    if (pb->n_bucket_index != pb->n_bucket_count)
        return -EINVAL;
    for (size_t k = 0; k < pb->n_bucket_index; k++) {
        if (pb->bucket_index[k] >= EBF_HIST_BUCKETS)
            return -EINVAL;
        h->bucket[pb->bucket_index[k]] = pb->bucket_count[k];
    }
    h->count = pb->count;
    h->sum = pb->sum;
    h->min = pb->count ? pb->min : UINT64_MAX;
    h->max = pb->max;
    return 0;
}

static int label_is(size_t n, Ebfarm__Label **l, const char *lv)
{
    if (!lv)
        return n == 0;
    return n == 1 && strcmp(l[0]->value, lv) == 0;
}

uint64_t ebf_pb_counter(const Ebfarm__Snapshot *s, const char *name, const char *label_value,
                        uint64_t def)
{
    for (size_t i = 0; i < s->n_counters; i++) {
        const Ebfarm__Counter *c = s->counters[i];
        if (strcmp(c->name, name) == 0 && label_is(c->n_labels, c->labels, label_value))
            return c->value;
    }
    return def;
}

double ebf_pb_gauge(const Ebfarm__Snapshot *s, const char *name, const char *label_value,
                    double def)
{
    for (size_t i = 0; i < s->n_gauges; i++) {
        const Ebfarm__Gauge *g = s->gauges[i];
        if (strcmp(g->name, name) == 0 && label_is(g->n_labels, g->labels, label_value))
            return g->value;
    }
    return def;
}

const Ebfarm__Histogram *ebf_pb_find_hist(const Ebfarm__Snapshot *s, const char *name)
{
    for (size_t i = 0; i < s->n_histograms; i++)
        if (strcmp(s->histograms[i]->name, name) == 0)
            return s->histograms[i];
    return NULL;
}
