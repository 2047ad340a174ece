/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_evtab.c - bounded event table: events, piece records, FIFOs (the id index and done window: sfc_evtab_index.c). */
#include "sfc_evtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sfc_evtab_private.h"

static uint32_t pow2_at_least(uint32_t v)
{
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* --- Create / destroy ------------------------------------------------------ */

struct sfc_evtab *sfc_evtab_create(const struct sfc_evtab_conf *conf)
{
    if (!conf || conf->capacity == 0 || conf->capacity >= (1u << 30) ||
        conf->max_frames == 0 || conf->max_frames == SFC_NONE ||
        conf->n_sources == 0 || conf->n_sources > EBF_MAX_SOURCES || !conf->free_frame ||
        conf->done_window > (1u << 30)) {
        errno = EINVAL;
        return NULL;
    }
    struct sfc_evtab *t = calloc(1, sizeof(*t));
    if (!t)
        goto nomem;
    t->conf = *conf;
    uint32_t cap = conf->capacity, isz = pow2_at_least(cap * 2);
    uint32_t dsz = pow2_at_least(conf->done_window ? conf->done_window : 1);
    t->ev = aligned_alloc(64, (size_t)cap * sizeof(*t->ev));
    t->cold = calloc(cap, sizeof(*t->cold));
    t->src = calloc((size_t)cap * conf->n_sources, sizeof(*t->src));
    t->rec = calloc(conf->max_frames, sizeof(*t->rec));
    t->free_slots = calloc(cap, sizeof(uint32_t));
    t->index = malloc(isz * sizeof(*t->index));
    t->done_id = calloc(dsz, sizeof(uint64_t));
    t->done_tag = calloc(dsz, 1);
    t->done_present = calloc(dsz, sizeof(*t->done_present));
    if (!t->ev || !t->cold || !t->src || !t->rec || !t->free_slots ||
        !t->index || !t->done_id || !t->done_tag || !t->done_present)
        goto nomem;
    memset(t->ev, 0, (size_t)cap * sizeof(*t->ev));
    memset(t->index, 0xff, isz * sizeof(*t->index));
    t->index_mask = isz - 1;
    t->done_mask = dsz - 1;
    for (uint32_t i = 0; i < cap; i++)
        t->free_slots[i] = cap - 1 - i;     /* slot 0 is handed out first */
    t->n_free_slots = cap;
    for (uint32_t i = 0; i < conf->max_frames; i++)
        t->rec[i].next = i + 1 < conf->max_frames ? i + 1 : SFC_NONE;
    t->free_rec = 0;
    t->n_free_rec = conf->max_frames;
    t->building.head = t->building.tail = SFC_NONE;
    t->ready.head = t->ready.tail = SFC_NONE;
    t->last_slot = SFC_NONE;
    return t;
nomem:
    sfc_evtab_destroy(t);
    errno = ENOMEM;
    return NULL;
}

static void free_records(struct sfc_evtab *t, struct sfc_event *e)
{
    uint32_t r = e->first_rec;
    while (r != SFC_NONE) {
        uint32_t next = t->rec[r].next;
        t->conf.free_frame(t->rec[r].frame, t->conf.free_arg);
        t->rec[r].frame = NULL;
        t->rec[r].next = t->free_rec;
        t->free_rec = r;
        t->n_free_rec++;
        r = next;
    }
    e->first_rec = e->last_rec = SFC_NONE;
    e->n_frames = 0;
}

void sfc_evtab_destroy(struct sfc_evtab *t)
{
    if (!t)
        return;
    if (t->ev && t->rec && t->free_slots)
        for (uint32_t s = 0; s < t->conf.capacity; s++)
            if (t->ev[s].state != SFC_EV_FREE)
                free_records(t, &t->ev[s]);
    free(t->ev);
    free(t->cold);
    free(t->src);
    free(t->rec);
    free(t->free_slots);
    free(t->index);
    free(t->done_id);
    free(t->done_tag);
    free(t->done_present);
    free(t);
}

/* --- Adding pieces --------------------------------------------------------- */

/* A new event id at index position pos (where the lookup found no entry). */
static uint32_t new_event(struct sfc_evtab *t, uint64_t id, uint64_t now, uint32_t pos)
{
    uint32_t slot = t->free_slots[--t->n_free_slots];
    struct sfc_event *e = &t->ev[slot];

    memset(e, 0, sizeof(*e));
    e->event_id = id;
    e->first_tick = now;
    t->cold[slot].first_tx_ns = UINT64_MAX;
    t->cold[slot].declared = 0;
    t->cold[slot].fenced = 0;
    t->cold[slot].wait_tick = 0;
    e->first_rec = e->last_rec = SFC_NONE;
    e->state = SFC_EV_BUILDING;
    memset(&t->src[(size_t)slot * t->conf.n_sources], 0,
           t->conf.n_sources * sizeof(*t->src));
    t->index[pos] = (struct idx_ent){.id = id, .slot = slot};
    fifo_append(t, &t->building, slot);
    t->n_building++;
    if (t->conf.lowmark)
        sfc_lowmark_add(t->conf.lowmark, id);
    return slot;
}

/* Does [off, off+len) overlap a piece of this source already held? */
__attribute__((noinline)) static int overlaps(const struct sfc_evtab *t, const struct sfc_event *e,
                    uint16_t source, uint32_t off, uint32_t len)
{
    for (uint32_t r = e->first_rec; r != SFC_NONE; r = t->rec[r].next) {
        const struct sfc_frame_rec *x = &t->rec[r];
        if (x->source == source && x->offset < off + len && off < x->offset + x->piece_len)
            return 1;
    }
    return 0;
}

/* Would a source's first piece, of a fragment of frag_len bytes, take
 * event slot past the event size limit? It adds its frag_len to what the
 * event declares. (The record limit is checked for every piece by the
 * caller; a piece after a source's first adds nothing here.) */
static int too_big_first(struct sfc_evtab *t, uint32_t slot, uint32_t frag_len)
{
    struct sfc_event_cold *c = &t->cold[slot];

    if (t->conf.max_event && c->declared + frag_len > t->conf.max_event)
        return 1;
    c->declared += frag_len;
    return 0;
}

/* The slot of event id when the last piece added went to it and it still
 * builds, else SFC_NONE: the pieces of a burst come event by event, and
 * this spares them the index probe. A slot that builds id is the index's
 * entry of id (new_event sets both; a slot leaves BUILDING before forget
 * removes its entry and frees it), so the answer is the lookup's. */
static inline uint32_t building_slot(const struct sfc_evtab *t, uint64_t id)
{
    uint32_t s = t->last_slot;

    return s != SFC_NONE && t->ev[s].event_id == id && t->ev[s].state == SFC_EV_BUILDING
               ? s
               : SFC_NONE;
}

/* The slot for a piece of h's event by the index: its building event's,
 * or a new event's, in *slot with SFC_ADD_PARTIAL; else what became of the
 * piece (a finished, refused or unknown event, a full table). */
static enum sfc_add_result find_or_new(struct sfc_evtab *t, const struct ebf_frag_hdr *h,
                                       uint64_t now, uint32_t *slot)
{
    uint32_t pos = sfc_evtab_index_pos(t, h->event_id);

    *slot = t->index[pos].slot;
    if (*slot != SFC_NONE)
        return t->ev[*slot].state == SFC_EV_BUILDING ? SFC_ADD_PARTIAL
               : ebf_present_test(t->ev[*slot].present, h->source) ? SFC_ADD_DUP_SENT
                                                                     : SFC_ADD_LATE;
    const uint64_t *present = NULL;
    int tag = sfc_evtab_done_get(t, h->event_id, &present);
    if (tag == DONE_SENT)
        return ebf_present_test(present, h->source) ? SFC_ADD_DUP_SENT : SFC_ADD_LATE;
    if (tag == DONE_REFUSED)
        return SFC_ADD_REFUSED;
    if (tag == DONE_STALE)
        return SFC_ADD_STALE;
    if (t->conf.max_event && h->frag_len > t->conf.max_event)
        return SFC_ADD_TOO_BIG;
    if (t->n_free_slots == 0) {
        sfc_evtab_done_put(t, h->event_id, DONE_REFUSED, NULL);
        return SFC_ADD_TABLE_FULL;
    }
    if (t->n_free_rec == 0)
        return SFC_ADD_NO_RECORD;
    *slot = new_event(t, h->event_id, now, pos);
    return SFC_ADD_PARTIAL;
}

/* Source h->source of event slot has all its fragment: mark it, and when
 * every source has, move the event from building to ready. */
static inline enum sfc_add_result
source_complete(struct sfc_evtab *t, uint32_t slot, const struct ebf_frag_hdr *h, uint64_t now)
{
    struct sfc_event *e = &t->ev[slot];

    ebf_present_set(e->present, h->source);
    e->bytes += h->frag_len;
    if (++e->n_complete < t->conf.n_sources)
        return SFC_ADD_PARTIAL;
    fifo_remove(t, &t->building, slot);
    t->n_building--;
    e->state = SFC_EV_READY;
    t->cold[slot].ready_tick = now;
    fifo_append(t, &t->ready, slot);
    t->n_ready++;
    return SFC_ADD_COMPLETE;
}

enum sfc_add_result sfc_evtab_add(struct sfc_evtab *t, const struct ebf_frag_hdr *h,
                                  void *frame, uint16_t data_off, uint64_t now,
                                  uint32_t *slot_out)
{
    uint32_t slot = building_slot(t, h->event_id);

    if (slot == SFC_NONE) {     /* not a piece of the last piece's event */
        enum sfc_add_result r = find_or_new(t, h, now, &slot);
        if (r != SFC_ADD_PARTIAL)
            return r;
    }
    t->last_slot = slot;
    struct sfc_event *e = &t->ev[slot];
    struct src_fill *sf = &t->src[(size_t)slot * t->conf.n_sources + h->source];
    uint32_t got = sf->got;
    if (got > 0 && sf->len != h->frag_len)
        return SFC_ADD_LEN_MISMATCH;
    /* The next piece in order cannot overlap: only pieces out of order
     * walk the event's records. */
    int next_in_order = got == 0 ? h->offset == 0 : sf->in_order && h->offset == got;
    if (got > 0 && (got + h->piece_len > h->frag_len ||
                    (!next_in_order && overlaps(t, e, h->source, h->offset, h->piece_len))))
        return SFC_ADD_DUPLICATE;
    if (t->n_free_rec == 0)
        return SFC_ADD_NO_RECORD;
    if (e->n_frames >= SFC_EVENT_RECS_MAX || (got == 0 && too_big_first(t, slot, h->frag_len)))
        return SFC_ADD_TOO_BIG;

    uint32_t r = t->free_rec;
    t->free_rec = t->rec[r].next;
    t->n_free_rec--;
    t->rec[r] = (struct sfc_frame_rec){
        .frame = frame, .next = SFC_NONE, .offset = h->offset,
        .source = h->source, .piece_len = h->piece_len, .data_off = data_off,
    };
    if (e->last_rec == SFC_NONE)
        e->first_rec = r;
    else
        t->rec[e->last_rec].next = r;
    e->last_rec = r;
    e->n_frames++;
    if (h->tx_ns < t->cold[slot].first_tx_ns)
        t->cold[slot].first_tx_ns = h->tx_ns;
    sf->len = h->frag_len;
    sf->got = got + h->piece_len;
    sf->in_order = (uint32_t)next_in_order;
    *slot_out = slot;
    if (sf->got != h->frag_len)
        return SFC_ADD_PARTIAL;

    return source_complete(t, slot, h, now);
}

/* --- Timeouts -------------------------------------------------------------- */

/* Drop the pieces of sources that are not complete; returns how many. */
static uint64_t drop_partial(struct sfc_evtab *t, struct sfc_event *e)
{
    uint32_t r = e->first_rec, keep_tail = SFC_NONE;
    uint64_t dropped = 0;

    e->first_rec = SFC_NONE;
    while (r != SFC_NONE) {
        uint32_t next = t->rec[r].next;
        if (ebf_present_test(e->present, t->rec[r].source)) {
            t->rec[r].next = SFC_NONE;
            if (keep_tail == SFC_NONE)
                e->first_rec = r;
            else
                t->rec[keep_tail].next = r;
            keep_tail = r;
        } else {
            t->conf.free_frame(t->rec[r].frame, t->conf.free_arg);
            t->rec[r].frame = NULL;
            t->rec[r].next = t->free_rec;
            t->free_rec = r;
            t->n_free_rec++;
            e->n_frames--;
            dropped++;
        }
        r = next;
    }
    e->last_rec = keep_tail;
    return dropped;
}

uint32_t sfc_evtab_expire(struct sfc_evtab *t, uint64_t now, uint64_t timeout,
                          uint32_t max, uint64_t *dropped_frames)
{
    uint32_t n = 0;

    while (n < max && t->building.head != SFC_NONE) {
        uint32_t slot = t->building.head;
        struct sfc_event *e = &t->ev[slot];
        if (now - e->first_tick < timeout)
            break;
        *dropped_frames += drop_partial(t, e);
        fifo_remove(t, &t->building, slot);
        t->n_building--;
        e->state = SFC_EV_READY;
        e->incomplete = 1;
        t->cold[slot].ready_tick = now;
        fifo_append(t, &t->ready, slot);
        t->n_ready++;
        n++;
    }
    return n;
}

/* --- Dispatch and acks ----------------------------------------------------- */

uint32_t sfc_evtab_ready_peek(const struct sfc_evtab *t)
{
    return t->ready.head;
}

void sfc_evtab_mark_sent(struct sfc_evtab *t, uint32_t slot, uint16_t node)
{
    struct sfc_event *e = &t->ev[slot];

    fifo_remove(t, &t->ready, slot);
    t->n_ready--;
    e->state = SFC_EV_SENT;
    e->node = node;
    t->n_sent++;
}

uint32_t sfc_evtab_find_sent(const struct sfc_evtab *t, uint64_t event_id, uint16_t node)
{
    uint32_t slot = sfc_evtab_lookup(t, event_id);

    if (slot == SFC_NONE || t->ev[slot].state != SFC_EV_SENT || t->ev[slot].node != node)
        return SFC_NONE;
    return slot;
}

void sfc_evtab_requeue(struct sfc_evtab *t, uint32_t slot)
{
    struct sfc_event *e = &t->ev[slot];

    if (e->state != SFC_EV_SENT)
        return;
    t->n_sent--;
    e->state = SFC_EV_READY;
    e->requeued = 1;
    fifo_prepend(t, &t->ready, slot);
    t->n_ready++;
}

static void forget(struct sfc_evtab *t, uint32_t slot, int remember)
{
    struct sfc_event *e = &t->ev[slot];

    free_records(t, e);
    if (t->conf.lowmark)
        sfc_lowmark_remove(t->conf.lowmark, e->event_id);
    sfc_evtab_index_delete(t, sfc_evtab_index_pos(t, e->event_id));
    if (remember)
        sfc_evtab_done_put(t, e->event_id, DONE_SENT, e->present);
    e->state = SFC_EV_FREE;
    t->free_slots[t->n_free_slots++] = slot;
}

void sfc_evtab_release(struct sfc_evtab *t, uint32_t slot)
{
    t->n_sent--;
    forget(t, slot, 1);
}

void sfc_evtab_drop(struct sfc_evtab *t, uint32_t slot)
{
    sfc_evtab_drop_as(t, slot, 1);
}

void sfc_evtab_drop_as(struct sfc_evtab *t, uint32_t slot, int remember)
{
    struct sfc_event *e = &t->ev[slot];

    if (e->state == SFC_EV_BUILDING) {
        fifo_remove(t, &t->building, slot);
        t->n_building--;
    } else if (e->state == SFC_EV_READY) {
        fifo_remove(t, &t->ready, slot);
        t->n_ready--;
    } else if (e->state == SFC_EV_SENT) {
        t->n_sent--;
    } else {
        return;
    }
    forget(t, slot, remember);
}

struct sfc_event *sfc_evtab_event(struct sfc_evtab *t, uint32_t slot)
{
    return &t->ev[slot];
}

struct sfc_event_cold *sfc_evtab_cold(struct sfc_evtab *t, uint32_t slot)
{
    return &t->cold[slot];
}

const struct sfc_frame_rec *sfc_evtab_rec(const struct sfc_evtab *t, uint32_t rec)
{
    return &t->rec[rec];
}

const struct sfc_frame_rec *sfc_evtab_records(const struct sfc_evtab *t)
{
    return t->rec;
}

uint32_t sfc_evtab_building_head(const struct sfc_evtab *t)
{
    return t->building.head;
}

void sfc_evtab_rewait(struct sfc_evtab *t, uint32_t slot, uint64_t now)
{
    fifo_remove(t, &t->building, slot);
    t->ev[slot].first_tick = now;
    t->cold[slot].wait_tick = t->cold[slot].wait_tick ? t->cold[slot].wait_tick : now;
    fifo_append(t, &t->building, slot);
}

void sfc_evtab_counts(const struct sfc_evtab *t, struct sfc_evtab_counts *c)
{
    c->building = t->n_building;
    c->ready = t->n_ready;
    c->sent = t->n_sent;
    c->free_slots = t->n_free_slots;
    c->free_records = t->n_free_rec;
}
