/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_credit.c - credit accounting per node and the least-loaded node choice. */
#include "sfc_credit.h"

#include <errno.h>
#include <stdlib.h>

struct node_credit {
    uint32_t available;
    uint32_t inflight;
};

struct sfc_credit {
    uint16_t n_nodes;
    uint16_t next;               /* round-robin start among equals */
    uint32_t max_outstanding;
    struct node_credit node[];
};

struct sfc_credit *sfc_credit_create(uint16_t n_nodes, uint32_t max_outstanding)
{
    if (n_nodes == 0 || n_nodes > 1024 || max_outstanding == 0) {
        errno = EINVAL;
        return NULL;
    }
    struct sfc_credit *c = calloc(1, sizeof(*c) + n_nodes * sizeof(c->node[0]));
    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->n_nodes = n_nodes;
    c->max_outstanding = max_outstanding;
    return c;
}

void sfc_credit_destroy(struct sfc_credit *c)
{
    free(c);
}

uint32_t sfc_credit_grant(struct sfc_credit *c, uint16_t node, uint32_t n)
{
    struct node_credit *nc = &c->node[node];
    uint32_t room = c->max_outstanding - (nc->available + nc->inflight);

    if (n > room)
        n = room;
    nc->available += n;
    return n;
}

int sfc_credit_pick(struct sfc_credit *c)
{
    return sfc_credit_pick_skip(c, 0);
}

/* The most credit wins; among equals the first from c->next on, so that
 * equals take turns. No division: the index wraps by a compare. */
int sfc_credit_pick_skip(struct sfc_credit *c, uint64_t skip)
{
    int best = -1;
    uint32_t most = 0;
    uint16_t i = c->next;

    for (uint16_t k = 0; k < c->n_nodes; k++, i++) {
        if (i == c->n_nodes)
            i = 0;
        if (c->node[i].available > most && !(i < 64 && (skip >> i) & 1)) {
            most = c->node[i].available;
            best = i;
        }
    }
    if (best >= 0)
        c->next = (uint16_t)(best + 1 == c->n_nodes ? 0 : best + 1);
    return best;
}

void sfc_credit_consume(struct sfc_credit *c, uint16_t node)
{
    c->node[node].available--;
    c->node[node].inflight++;
}

int sfc_credit_ack(struct sfc_credit *c, uint16_t node)
{
    if (c->node[node].inflight == 0)
        return -EINVAL;
    c->node[node].inflight--;
    return 0;
}

void sfc_credit_revoke(struct sfc_credit *c, uint16_t node)
{
    c->node[node].available = 0;
    c->node[node].inflight = 0;
}

uint32_t sfc_credit_available(const struct sfc_credit *c, uint16_t node)
{
    return c->node[node].available;
}

uint32_t sfc_credit_inflight(const struct sfc_credit *c, uint16_t node)
{
    return c->node[node].inflight;
}

uint16_t sfc_credit_nodes(const struct sfc_credit *c)
{
    return c->n_nodes;
}
