/* SPDX-License-Identifier: BSD-3-Clause */
/* node_view.h - the trigger plug-in's view of an event: received mbufs held per event slot, fragments as pieces in them. */
#ifndef NODE_VIEW_H
#define NODE_VIEW_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "ebfarm/trigger.h"
#include "ebf_proto.h"

#define NODE_VIEW_NONE UINT32_MAX
#define NODE_VIEW_FRAMES_MIN 128 /* held frames in all, at least */

/* One piece where it was received: its source and offset in the fragment,
 * and the next piece of its source in its slot (NODE_VIEW_NONE: last). */
struct node_vpiece {
    const void *data;
    uint32_t len;
    uint32_t offset;
    uint32_t next;
    uint16_t source;
    uint16_t flags;              /* its fragment header's EBF_FRAGF_* */
};

/* What one slot holds: its frames (a list through held_next), its pieces
 * (a list per source, in offset order, through vpiece.next). */
struct node_vslot {
    uint32_t held;               /* first held frame; NODE_VIEW_NONE: none */
    uint32_t n_held, n_vp;
    uint8_t overflow;            /* the budget ran out: the event is not shown */
    uint64_t sources[2];         /* sources with a piece list in this slot */
};

/*
 * The frames and pieces the events of every slot hold, from two budgets
 * shared by the slots (max_frames held frames, max_pieces pieces), so one
 * event may hold any number of frames while the others hold few. The
 * receive lcore alone changes it; a worker reads the lists of the slot it
 * was handed (never changed while it decides). An event that finds a
 * budget empty is marked overflowed: its frames are given back at once,
 * and the node counts it, rejects it, and never hands it to the plug-in
 * half seen.
 */
struct node_view {
    uint16_t slots;
    uint32_t max_frames, max_pieces;
    struct rte_mbuf **held;      /* max_frames */
    uint32_t *held_next;         /* a slot's list, or the free list */
    uint32_t free_held, n_free_held;
    struct node_vpiece *vp;      /* max_pieces */
    uint32_t free_vp, n_free_vp; /* the free list through vp[].next */
    struct node_vslot *slot;     /* slots */
    uint32_t *src_head, *src_tail;  /* slots * EBF_MAX_SOURCES */
    struct ebf_trigger_piece *tp;   /* max_pieces: node_view_build's */
    struct ebf_trigger_fragment frags[EBF_MAX_SOURCES];
    uint16_t frag_flags[EBF_MAX_SOURCES];   /* node_view_build: each fragment's EBF_FRAGF_* */
};

/* The budgets for slots: frames held in all (at least
 * NODE_VIEW_FRAMES_MIN) and pieces (8 a frame). 0, or -ENOMEM. */
int node_view_init(struct node_view *v, uint16_t slots, uint32_t max_frames);
/* Release every held frame and the arrays. */
void node_view_free(struct node_view *v);

/* Release the frames of slot and forget its pieces. */
void node_view_reset(struct node_view *v, uint16_t slot);

/* Keep frame m for slot: 1, or 0 (slot overflowed, now or before: its
 * frames are given back, m is the caller's to free). */
int node_view_hold(struct node_view *v, uint16_t slot, struct rte_mbuf *m);

/* The piece of len bytes at offset off of frame m (a chain: the piece may
 * span segments, it becomes one view piece per segment), source's bytes
 * from frag_off on, its header's flags (EBF_FRAGF_*). No piece left: the
 * slot overflows (its frames go at its next hold or reset). */
void node_view_add(struct node_view *v, uint16_t slot, const struct rte_mbuf *m, uint32_t off,
                   uint32_t len, uint16_t source, uint32_t frag_off, uint16_t flags);

/* The fragments of slot's event, pieces in offset order, in v->frags, and
 * their flags in v->frag_flags (of a piece of each: the OR of its pieces').
 * 0, or -1 when the slot overflowed. */
int node_view_build(struct node_view *v, uint16_t slot, uint16_t n_sources);

/* node_view_build into the caller's tp (v->max_pieces), frags and,
 * unless NULL, flags (EBF_MAX_SOURCES each): a worker lcore's own, so
 * workers build at once. */
int node_view_build_into(const struct node_view *v, uint16_t slot, uint16_t n_sources,
                         struct ebf_trigger_piece *tp, struct ebf_trigger_fragment *frags,
                         uint16_t *flags);

#endif /* NODE_VIEW_H */
