/* SPDX-License-Identifier: BSD-3-Clause */
/* node_evtab.c - the node's events in reception: slots by event id (open addressing), decided ids in a window. */
#include "node_evtab.h"

#include <string.h>

#include "ebf_mix.h"

#define ALIGN_UP(n) (((n) + 63) & ~(size_t)63)

static uint32_t idx_entries(uint16_t credits)
{
    uint32_t mask = 1;

    while (mask + 1 < 2u * credits)
        mask = (mask << 1) | 1;
    return mask + 1;
}

size_t node_evtab_mem(uint16_t credits)
{
    return ALIGN_UP(sizeof(struct node_ev) * credits) +
           ALIGN_UP(sizeof(struct node_idx) * idx_entries(credits)) +
           ALIGN_UP(sizeof(uint64_t) * NODE_DONE_WINDOW) +
           ALIGN_UP(sizeof(struct ebf_ack) * NODE_DONE_WINDOW) + sizeof(uint16_t) * credits;
}

void node_evtab_init(struct node_evtab *t, uint16_t credits, void *mem)
{
    uint8_t *p = mem;
    uint32_t n_idx = idx_entries(credits);

    t->credits = credits;
    t->idx_mask = n_idx - 1;
    t->ev = (struct node_ev *)p;
    p += ALIGN_UP(sizeof(struct node_ev) * credits);
    t->idx = (struct node_idx *)p;
    p += ALIGN_UP(sizeof(struct node_idx) * n_idx);
    t->done = (uint64_t *)p;
    p += ALIGN_UP(sizeof(uint64_t) * NODE_DONE_WINDOW);
    t->done_ack = (struct ebf_ack *)p;
    p += ALIGN_UP(sizeof(struct ebf_ack) * NODE_DONE_WINDOW);
    t->free_ev = (uint16_t *)p;
    node_evtab_reset(t);
}

void node_evtab_reset(struct node_evtab *t)
{
    memset(t->ev, 0, sizeof(*t->ev) * t->credits);
    for (uint32_t i = 0; i <= t->idx_mask; i++)
        t->idx[i].slot = NODE_EV_NONE;
    for (uint16_t i = 0; i < t->credits; i++)
        t->free_ev[i] = (uint16_t)(t->credits - 1 - i);
    t->n_free = t->credits;
}

static inline uint32_t idx_home(const struct node_evtab *t, uint64_t id)
{
    return (uint32_t)ebf_mix64(id) & t->idx_mask;
}

/* A new event of h in slot. */
static struct node_ev *ev_new(struct node_evtab *t, uint16_t slot, const struct ebf_event_hdr *h)
{
    struct node_ev *e = &t->ev[slot];

    memset(e, 0, offsetof(struct node_ev, src_len));
    memset(e->src_len, 0, sizeof(e->src_len[0]) * h->n_sources);
    memset(e->src_got, 0, sizeof(e->src_got[0]) * h->n_sources);
    e->used = 1;
    e->id = h->event_id;
    e->n_sources = h->n_sources;
    e->flags = h->flags;
    e->frame_count = h->frame_count;
    e->present[0] = h->present[0];
    e->present[1] = h->present[1];
    e->bytes = h->event_bytes;
    e->first_tx_ns = UINT64_MAX;
    return e;
}

struct node_ev *node_evtab_find(struct node_evtab *t, const struct ebf_event_hdr *h)
{
    uint32_t i = idx_home(t, h->event_id);

    for (; t->idx[i].slot != NODE_EV_NONE; i = (i + 1) & t->idx_mask)
        if (t->idx[i].id == h->event_id)
            return &t->ev[t->idx[i].slot];
    if (t->n_free == 0)
        return NULL;
    uint16_t slot = t->free_ev[--t->n_free];
    t->idx[i] = (struct node_idx){.id = h->event_id, .slot = slot};
    return ev_new(t, slot, h);
}

void node_evtab_free(struct node_evtab *t, struct node_ev *e)
{
    uint32_t i = idx_home(t, e->id), j;

    while (t->idx[i].id != e->id || t->idx[i].slot == NODE_EV_NONE)
        i = (i + 1) & t->idx_mask;
    for (j = i;;) {
        j = (j + 1) & t->idx_mask;
        if (t->idx[j].slot == NODE_EV_NONE)
            break;
        uint32_t k = idx_home(t, t->idx[j].id);
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            t->idx[i] = t->idx[j];
            i = j;
        }
    }
    t->idx[i].slot = NODE_EV_NONE;
    e->used = 0;
    t->free_ev[t->n_free++] = node_evtab_slot(t, e);
}

void node_evtab_note_done(struct node_evtab *t, const struct ebf_ack *a)
{
    t->done[a->event_id % NODE_DONE_WINDOW] = a->event_id + 1;
    t->done_ack[a->event_id % NODE_DONE_WINDOW] = *a;
}

uint64_t node_evtab_after(const struct node_evtab *t, uint64_t x, struct ebf_idset *ids,
                          struct ebf_idset *acc, uint64_t *digest, int *complete)
{
    uint64_t n = 0;

    *complete = 1;
    for (uint32_t i = 0; i < NODE_DONE_WINDOW; i++) {
        uint64_t id = t->done[i] - 1;
        if (t->done[i] == 0 || id < x)
            continue;
        ebf_idset_add(ids, id);
        if (t->done_ack[i].decision == EBF_DEC_ACCEPT)
            ebf_idset_add(acc, id);
        *digest += ebf_mix64(id);
        *complete &= id - x < NODE_DONE_WINDOW;
        n++;
    }
    return n;
}

uint32_t node_evtab_used(const struct node_evtab *t)
{
    uint32_t n = 0;

    for (uint16_t i = 0; i < t->credits; i++)
        n += t->ev[i].used;
    return n;
}
