/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_port.c - FIFO serialisation with a tail-drop byte buffer, exact in ps of virtual time. */
#include "sim_port.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sim_port_init(struct sim_port *p, uint64_t rate_bps, uint64_t latency_ps, uint32_t buffer)
{
    memset(p, 0, sizeof(*p));
    p->rate_bps = rate_bps ? rate_bps : 1;
    p->latency_ps = latency_ps;
    p->buffer = buffer;
    if (!buffer)
        return 0;
    p->cap = 16;
    p->q = malloc(p->cap * sizeof(*p->q));
    return p->q ? 0 : -ENOMEM;
}

void sim_port_fini(struct sim_port *p)
{
    free(p->q);
    p->q = NULL;
}

/* Frames whose last bit left at or before now give their bytes back. */
static void release(struct sim_port *p, uint64_t now)
{
    while (p->n && p->q[p->head].done <= now) {
        p->occ -= p->q[p->head].len;
        p->head = (p->head + 1) & (p->cap - 1);
        p->n--;
    }
}

/* Double the ring (cap is a power of two), keeping the order. */
static int grow(struct sim_port *p)
{
    struct sim_port_q *q = malloc(2 * (size_t)p->cap * sizeof(*q));

    if (!q)
        return -ENOMEM;
    for (uint32_t i = 0; i < p->n; i++)
        q[i] = p->q[(p->head + i) & (p->cap - 1)];
    free(p->q);
    p->q = q;
    p->head = 0;
    p->cap *= 2;
    return 0;
}

int sim_port_send(struct sim_port *p, uint64_t now, uint32_t len, uint64_t *arrive)
{
    if (p->buffer) {
        release(p, now);
        if ((uint64_t)p->occ + len > p->buffer || (p->n == p->cap && grow(p) != 0)) {
            p->drops++;
            p->drop_bytes += len;
            return (uint64_t)p->occ + len > p->buffer ? -ENOBUFS : -ENOMEM;
        }
    }
    uint64_t start = p->busy_until > now ? p->busy_until : now;
    p->busy_until = start + sim_port_ser(p, len);
    if (p->buffer) {
        p->q[(p->head + p->n) & (p->cap - 1)] = (struct sim_port_q){p->busy_until, len};
        p->n++;
        p->occ += len;
        if (p->occ > p->peak_occ)
            p->peak_occ = p->occ;
    }
    p->frames++;
    p->bytes += len;
    *arrive = p->busy_until + p->latency_ps;
    return 0;
}
