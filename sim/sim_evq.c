/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_evq.c - a binary min-heap of simulator events keyed by (time, push order). */
#include "sim_evq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline int before(const struct sim_ev *a, const struct sim_ev *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int sim_evq_init(struct sim_evq *q, uint64_t cap)
{
    memset(q, 0, sizeof(*q));
    q->cap = cap ? cap : 1024;
    q->h = malloc(q->cap * sizeof(*q->h));
    return q->h ? 0 : -ENOMEM;
}

void sim_evq_fini(struct sim_evq *q)
{
    free(q->h);
    memset(q, 0, sizeof(*q));
}

int sim_evq_push(struct sim_evq *q, struct sim_ev ev)
{
    if (q->n == q->cap) {
        struct sim_ev *h = realloc(q->h, 2 * q->cap * sizeof(*h));
        if (!h)
            return -ENOMEM;
        q->h = h;
        q->cap *= 2;
    }
    ev.seq = q->seq++;
    uint64_t i = q->n++;
    while (i > 0) {              /* sift up */
        uint64_t p = (i - 1) / 2;
        if (!before(&ev, &q->h[p]))
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i] = ev;
    q->pushed++;
    if (q->n > q->peak)
        q->peak = q->n;
    return 0;
}

int sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
    if (q->n == 0)
        return 0;
    *ev = q->h[0];
    struct sim_ev last = q->h[--q->n];
    uint64_t i = 0, n = q->n;
    for (;;) {                   /* sift the last one down from the root */
        uint64_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&q->h[c + 1], &q->h[c]))
            c++;
        if (!before(&q->h[c], &last))
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (n)
        q->h[i] = last;
    q->popped++;
    return 1;
}
