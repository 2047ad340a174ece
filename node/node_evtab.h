/* SPDX-License-Identifier: BSD-3-Clause */
/* node_evtab.h - the node's events in reception: slots found by event id, and the window of decided ids that spots an event sent again; no DPDK. */
#ifndef NODE_EVTAB_H
#define NODE_EVTAB_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_idset.h"
#include "ebf_proto.h"

#define NODE_EV_NONE UINT16_MAX
#define NODE_DONE_WINDOW 65536   /* decided ids remembered, by id % window */

/* The event index: open addressing on the event id (entries hold the id). */
struct node_idx {
    uint64_t id;
    uint16_t slot;               /* NODE_EV_NONE: empty */
};

/* Pieces of a source that came out of order, kept to check coverage
 * (node_reasm): at most NODE_COVER_MAX per event. */
#define NODE_COVER_MAX 32

/* Bytes [off, end) of source's fragment, covered by a piece (or by the
 * pieces in order before the first one out of order). */
struct node_cover {
    uint32_t off, end;
    uint16_t source;
};

/* An event being received. */
struct node_ev {
    uint64_t id;
    uint64_t first_tx_ns;
    uint64_t present[2];
    uint32_t bytes;              /* from the header */
    uint32_t got_bytes;          /* piece bytes received */
    uint16_t n_sources;
    uint16_t flags;
    uint16_t frame_count;
    uint16_t frames_got;
    uint8_t status;              /* EBF_ACKS_* found so far */
    uint8_t used;
    uint8_t waiting;             /* at a worker, or accepted and waiting for storage */
    uint16_t stream;             /* the plug-in's output stream */
    uint8_t cover_bad;           /* a byte covered twice, or too many pieces out of order */
    uint8_t n_cover;             /* records in cover */
    uint64_t ooo[2];             /* sources with a piece out of order: theirs are in cover */
    uint32_t src_len[EBF_MAX_SOURCES];
    uint32_t src_got[EBF_MAX_SOURCES];
    struct node_cover cover[NODE_COVER_MAX];   /* n_cover of them; not cleared */
};

/*
 * credits event slots, an index from event id to slot, and the decision
 * each of the last NODE_DONE_WINDOW decided ids got. One lcore (the
 * node's receive lcore) changes it; a trigger worker reads the slot it was
 * handed. The arrays live in one block the caller allocates (zeroed, on a
 * cache line: node_evtab_mem bytes), so the table itself allocates nothing.
 */
struct node_evtab {
    struct node_ev *ev;          /* credits entries */
    struct node_idx *idx;        /* idx_mask + 1 entries */
    uint32_t idx_mask;
    uint16_t credits;
    uint16_t n_free;
    uint16_t *free_ev;           /* stack of free slots */
    uint64_t *done;              /* decided ids + 1, indexed by id % NODE_DONE_WINDOW */
    struct ebf_ack *done_ack;    /* the ack each of them got */
};

/* The bytes of the block a table of credits (> 0) slots lives in. */
size_t node_evtab_mem(uint16_t credits);

/* Lay the table out in mem (node_evtab_mem(credits) zeroed bytes, cache
 * line aligned): every slot free, the index empty, nothing decided. */
void node_evtab_init(struct node_evtab *t, uint16_t credits, void *mem);

/* Every slot free again (slot 0 handed out first), the index empty; the
 * decided ids are kept. */
void node_evtab_reset(struct node_evtab *t);

/* The event of h by its id (an index probe, not a scan of the slots), or
 * a new one in a free slot made from h; NULL when every slot is taken. */
struct node_ev *node_evtab_find(struct node_evtab *t, const struct ebf_event_hdr *h);

/* e is done: out of the index (later entries of its probe run shifted
 * back), its slot free. */
void node_evtab_free(struct node_evtab *t, struct node_ev *e);

/* Remember the decision a of event a->event_id (it evicts the id that
 * shares its place in the window). */
void node_evtab_note_done(struct node_evtab *t, const struct ebf_ack *a);

/*
 * The decided ids at or above the watermark x that the window holds, added
 * to ids (those accepted to acc too), their sum of ebf_mix64(id) added to
 * *digest; returns how many. The record of a dead SFC place's node
 * (docs/protocol.md 13.6, ledger.acks_after_release): it is complete while
 * no id x + NODE_DONE_WINDOW or above was decided (none evicted one at or
 * above x), which *complete says.
 */
uint64_t node_evtab_after(const struct node_evtab *t, uint64_t x, struct ebf_idset *ids,
                          struct ebf_idset *acc, uint64_t *digest, int *complete);

/* Slots holding an event (partial, deciding or waiting). */
uint32_t node_evtab_used(const struct node_evtab *t);

static inline uint16_t node_evtab_slot(const struct node_evtab *t, const struct node_ev *e)
{
    return (uint16_t)(e - t->ev);
}

/* The ack event id got when it was decided, or NULL when it was not (or
 * has left the window). */
static inline const struct ebf_ack *node_evtab_done(const struct node_evtab *t, uint64_t id)
{
    return t->done[id % NODE_DONE_WINDOW] == id + 1 ? &t->done_ack[id % NODE_DONE_WINDOW] : NULL;
}

#endif /* NODE_EVTAB_H */
