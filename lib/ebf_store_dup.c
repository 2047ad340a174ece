/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_dup.c - event ids stored more than once across files: each id kept once, replayed copies dropped, unmarked ones counted. */
#include "ebf_store_dup.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_store_fmt.h"

int ebf_store_dups_add(struct ebf_store_dups *d, uint64_t id, uint16_t flags)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 1024;
        struct ebf_store_seen *v = realloc(d->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n] = (struct ebf_store_seen){.id = id, .order = d->n, .flags = flags};
    d->n++;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    const struct ebf_store_seen *x = a, *y = b;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The copies v[0..k) of one id into c. */
static void one_id(const struct ebf_store_seen *v, size_t k, struct ebf_store_dup_count *c)
{
    uint64_t unmarked = 0;

    for (size_t i = 0; i < k; i++)
        unmarked += !(v[i].flags & EBF_STORE_REC_REPLAYED);
    c->distinct++;
    if (unmarked > 1) {
        if (!c->unmarked || v[0].id < c->first_unmarked)
            c->first_unmarked = v[0].id;
        c->unmarked += unmarked - 1;
        c->dropped += k - unmarked;
    } else {
        c->dropped += k - 1;
    }
}

void ebf_store_dups_count(struct ebf_store_dups *d, struct ebf_store_dup_count *c)
{
    memset(c, 0, sizeof(*c));
    if (d->n)
        qsort(d->v, d->n, sizeof(d->v[0]), by_id);
    for (size_t i = 0, j; i < d->n; i = j) {
        for (j = i; j < d->n && d->v[j].id == d->v[i].id; j++)
            c->replayed += (d->v[j].flags & EBF_STORE_REC_REPLAYED) != 0;
        one_id(&d->v[i], j - i, c);
    }
    c->records = d->n;
}

void ebf_store_dups_free(struct ebf_store_dups *d)
{
    free(d->v);
    memset(d, 0, sizeof(*d));
}
