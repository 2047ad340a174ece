/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_evtab_private.h - the event table's state and its FIFOs through the events, for sfc_evtab.c only. */
#ifndef SFC_EVTAB_PRIVATE_H
#define SFC_EVTAB_PRIVATE_H

#include <stdint.h>

#include "sfc_evtab.h"

struct fifo {
    uint32_t head, tail;
};

/* An index entry holds the id, so that a probe never reads the event. */
struct idx_ent {
    uint64_t id;
    uint32_t slot;               /* SFC_NONE: empty */
};

/* One source's fragment in one event: its length and the bytes held. */
struct src_fill {
    uint32_t len;                /* frag_len, 0 = none yet */
    uint32_t got;
    uint32_t in_order;           /* the pieces held are exactly [0, got) */
};

struct sfc_evtab {
    struct sfc_evtab_conf conf;
    struct sfc_event *ev;        /* 64-byte aligned */
    struct sfc_event_cold *cold;
    struct src_fill *src;        /* [slot * n_sources + s] */
    struct sfc_frame_rec *rec;
    uint32_t free_rec;           /* free record list through rec[].next */
    uint32_t n_free_rec;
    uint32_t *free_slots;        /* stack */
    uint32_t n_free_slots;
    struct idx_ent *index;       /* open addressing on event id -> slot */
    uint32_t index_mask;
    uint64_t *done_id;           /* finished ids, indexed by id & done_mask */
    uint8_t *done_tag;
    uint64_t (*done_present)[2]; /* the sources each finished event delivered */
    uint32_t done_mask;
    struct fifo building;
    struct fifo ready;
    uint32_t n_building, n_ready, n_sent;
    uint32_t last_slot;          /* the slot the last piece added went to, or SFC_NONE */
};

/* --- FIFOs through ev[].prev/next ------------------------------------------ */

static inline void fifo_append(struct sfc_evtab *t, struct fifo *f, uint32_t slot)
{
    t->ev[slot].prev = f->tail;
    t->ev[slot].next = SFC_NONE;
    if (f->tail == SFC_NONE)
        f->head = slot;
    else
        t->ev[f->tail].next = slot;
    f->tail = slot;
}

static inline void fifo_prepend(struct sfc_evtab *t, struct fifo *f, uint32_t slot)
{
    t->ev[slot].prev = SFC_NONE;
    t->ev[slot].next = f->head;
    if (f->head == SFC_NONE)
        f->tail = slot;
    else
        t->ev[f->head].prev = slot;
    f->head = slot;
}

static inline void fifo_remove(struct sfc_evtab *t, struct fifo *f, uint32_t slot)
{
    struct sfc_event *e = &t->ev[slot];
    if (e->prev == SFC_NONE)
        f->head = e->next;
    else
        t->ev[e->prev].next = e->next;
    if (e->next == SFC_NONE)
        f->tail = e->prev;
    else
        t->ev[e->next].prev = e->prev;
    e->prev = e->next = SFC_NONE;
}

#endif /* SFC_EVTAB_PRIVATE_H */
