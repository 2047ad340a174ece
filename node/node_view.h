/* SPDX-License-Identifier: BSD-3-Clause */
/* node_view.h - the trigger plug-in's view of an event: received mbufs held per event slot, fragments as pieces in them. */
#ifndef NODE_VIEW_H
#define NODE_VIEW_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "ebfarm/trigger.h"
#include "ebf_proto.h"

#define NODE_VIEW_PIECES 512     /* pieces of one event */
#define NODE_VIEW_FRAMES 128     /* frames of one event */

/* One piece where it was received: its source and offset in the fragment. */
struct node_vpiece {
    const void *data;
    uint32_t len;
    uint32_t offset;
    uint16_t source;
    uint16_t flags;              /* its fragment header's EBF_FRAGF_* */
};

/*
 * Per event slot: the frames held (not freed after the burst) and the
 * pieces found in them; built into fragments for decide, then released.
 * Data-plane lcore only; an event with more pieces or frames than the view
 * holds is marked overflowed (the node counts it, rejects it, and never
 * hands it to the plug-in half seen).
 */
struct node_view {
    uint16_t slots;
    struct node_vpiece *vp;      /* slots * NODE_VIEW_PIECES */
    struct rte_mbuf **held;      /* slots * NODE_VIEW_FRAMES */
    uint16_t *n_vp, *n_held;
    uint8_t *overflow;
    struct ebf_trigger_piece tp[NODE_VIEW_PIECES];
    struct ebf_trigger_fragment frags[EBF_MAX_SOURCES];
    uint16_t frag_flags[EBF_MAX_SOURCES];   /* node_view_build: each fragment's EBF_FRAGF_* */
};

/* 0, or -ENOMEM. */
int node_view_init(struct node_view *v, uint16_t slots);
/* Release every held frame and the arrays. */
void node_view_free(struct node_view *v);

/* Release the frames of slot and forget its pieces. */
void node_view_reset(struct node_view *v, uint16_t slot);

/* Keep frame m for slot: 1, or 0 (slot full: marked overflowed; m is the
 * caller's to free). */
int node_view_hold(struct node_view *v, uint16_t slot, struct rte_mbuf *m);

/* The piece of len bytes at offset off of frame m (a chain: the piece may
 * span segments, it becomes one view piece per segment), source's bytes
 * from frag_off on, its header's flags (EBF_FRAGF_*). */
void node_view_add(struct node_view *v, uint16_t slot, const struct rte_mbuf *m, uint32_t off,
                   uint32_t len, uint16_t source, uint32_t frag_off, uint16_t flags);

/* The fragments of slot's event, pieces in offset order, in v->frags, and
 * their flags in v->frag_flags (of a piece of each: the OR of its pieces').
 * 0, or -1 when the slot overflowed. */
int node_view_build(struct node_view *v, uint16_t slot, uint16_t n_sources);

/* node_view_build into the caller's tp (NODE_VIEW_PIECES), frags and,
 * unless NULL, flags (EBF_MAX_SOURCES each): a worker lcore's own, so
 * workers build at once. */
int node_view_build_into(const struct node_view *v, uint16_t slot, uint16_t n_sources,
                         struct ebf_trigger_piece *tp, struct ebf_trigger_fragment *frags,
                         uint16_t *flags);

#endif /* NODE_VIEW_H */
