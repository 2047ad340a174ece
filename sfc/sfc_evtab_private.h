/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_evtab_private.h - the event table's state, its id index and done window, its FIFOs through the events: for sfc_evtab.c and sfc_evtab_index.c only. */
#ifndef SFC_EVTAB_PRIVATE_H
#define SFC_EVTAB_PRIVATE_H

#include <stdint.h>

#include "ebf_mix.h"
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

/* --- Id index and done window (sfc_evtab_index.c) ---------------------------- */

/* Where the probe for id starts in the index. */
static inline uint32_t sfc_evtab_home(const struct sfc_evtab *t, uint64_t id)
{
    return (uint32_t)ebf_mix64(id) & t->index_mask;
}

/* The index position of id: its entry, or the free one where it would go
 * (the index is at most half full: sfc_evtab_create). */
uint32_t sfc_evtab_index_pos(const struct sfc_evtab *t, uint64_t id);

/* Remove the entry at i, shifting later entries of the probe run back. */
void sfc_evtab_index_delete(struct sfc_evtab *t, uint32_t i);

/*
 * The done window's tags. The window is indexed by id & done_mask: ids
 * arrive roughly in order, so the last done_mask + 1 ids each have their
 * own entry and an entry is only ever overwritten by an id that is a
 * multiple of the window size newer. DONE_STALE: the entry holds a newer
 * id, so this one is older than the window and cannot be told apart any
 * more.
 */
enum { DONE_EMPTY = 0, DONE_SENT = 1, DONE_REFUSED = 2, DONE_STALE = 3 };

/* What the window says of id: DONE_EMPTY (not finished within it),
 * DONE_SENT or DONE_REFUSED with *present the sources it delivered, or
 * DONE_STALE. */
int sfc_evtab_done_get(const struct sfc_evtab *t, uint64_t id, const uint64_t **present);

/* Id finished as tag (DONE_SENT, DONE_REFUSED) with the sources present
 * (NULL: none), over whatever the entry held. */
void sfc_evtab_done_put(struct sfc_evtab *t, uint64_t id, int tag, const uint64_t present[2]);

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
