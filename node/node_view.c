/* SPDX-License-Identifier: BSD-3-Clause */
/* node_view.c - held frames and piece lists per event slot, from budgets the slots share, gathered into the plug-in's fragments without copies. */
#include "node_view.h"

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#define PIECES_PER_FRAME 8       /* the piece budget per held frame */

int node_view_init(struct node_view *v, uint16_t slots, uint32_t max_frames)
{
    memset(v, 0, sizeof(*v));
    v->slots = slots;
    v->max_frames = max_frames > NODE_VIEW_FRAMES_MIN ? max_frames : NODE_VIEW_FRAMES_MIN;
    v->max_pieces = v->max_frames * PIECES_PER_FRAME;
    v->held = rte_zmalloc("node_held", sizeof(*v->held) * v->max_frames, 0);
    v->held_next = rte_malloc("node_held_next", sizeof(uint32_t) * v->max_frames, 0);
    v->vp = rte_malloc("node_vp", sizeof(*v->vp) * v->max_pieces, 0);
    v->tp = rte_malloc("node_tp", sizeof(*v->tp) * v->max_pieces, 0);
    v->slot = rte_zmalloc("node_vslot", sizeof(*v->slot) * slots, 0);
    v->src_head = rte_malloc("node_vhead", sizeof(uint32_t) * slots * EBF_MAX_SOURCES, 0);
    v->src_tail = rte_malloc("node_vtail", sizeof(uint32_t) * slots * EBF_MAX_SOURCES, 0);
    if (!v->held || !v->held_next || !v->vp || !v->tp || !v->slot || !v->src_head ||
        !v->src_tail) {
        node_view_free(v);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < v->max_frames; i++)      /* every entry free, in order */
        v->held_next[i] = i + 1 < v->max_frames ? i + 1 : NODE_VIEW_NONE;
    for (uint32_t i = 0; i < v->max_pieces; i++)
        v->vp[i].next = i + 1 < v->max_pieces ? i + 1 : NODE_VIEW_NONE;
    v->free_held = v->free_vp = 0;
    v->n_free_held = v->max_frames;
    v->n_free_vp = v->max_pieces;
    for (uint16_t s = 0; s < slots; s++)
        v->slot[s].held = NODE_VIEW_NONE;
    return 0;
}

void node_view_free(struct node_view *v)
{
    if (v->slot && v->held_next)
        for (uint16_t s = 0; s < v->slots; s++)
            node_view_reset(v, s);
    rte_free(v->held);
    rte_free(v->held_next);
    rte_free(v->vp);
    rte_free(v->tp);
    rte_free(v->slot);
    rte_free(v->src_head);
    rte_free(v->src_tail);
    memset(v, 0, sizeof(*v));
}

/* Give slot's frames and pieces back to the budgets; its overflow mark
 * stays. */
static void release(struct node_view *v, uint16_t slot)
{
    struct node_vslot *sl = &v->slot[slot];
    uint32_t *head = &v->src_head[(size_t)slot * EBF_MAX_SOURCES];

    for (uint32_t i = sl->held, next; i != NODE_VIEW_NONE; i = next) {
        next = v->held_next[i];
        rte_pktmbuf_free(v->held[i]);
        v->held_next[i] = v->free_held;
        v->free_held = i;
    }
    v->n_free_held += sl->n_held;
    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++) {
        if (!ebf_present_test(sl->sources, s))
            continue;
        for (uint32_t i = head[s], next; i != NODE_VIEW_NONE; i = next) {
            next = v->vp[i].next;
            v->vp[i].next = v->free_vp;
            v->free_vp = i;
        }
    }
    v->n_free_vp += sl->n_vp;
    sl->held = NODE_VIEW_NONE;
    sl->n_held = sl->n_vp = 0;
    sl->sources[0] = sl->sources[1] = 0;
}

void node_view_reset(struct node_view *v, uint16_t slot)
{
    release(v, slot);
    v->slot[slot].overflow = 0;
}

int node_view_hold(struct node_view *v, uint16_t slot, struct rte_mbuf *m)
{
    struct node_vslot *sl = &v->slot[slot];
    uint32_t i = v->free_held;

    if (!sl->overflow && i == NODE_VIEW_NONE)
        sl->overflow = 1;
    if (sl->overflow) {
        if (sl->n_held || sl->n_vp)
            release(v, slot);   /* the frames before are done with */
        return 0;
    }
    v->free_held = v->held_next[i];
    v->n_free_held--;
    v->held[i] = m;
    v->held_next[i] = sl->held;
    sl->held = i;
    sl->n_held++;
    return 1;
}

/* Piece i into source's list of slot, in offset order (at the tail when
 * it comes after it: the usual case). */
static void link_piece(struct node_view *v, uint16_t slot, uint32_t i)
{
    size_t k = (size_t)slot * EBF_MAX_SOURCES + v->vp[i].source;
    struct node_vslot *sl = &v->slot[slot];

    if (!ebf_present_test(sl->sources, v->vp[i].source)) {
        ebf_present_set(sl->sources, v->vp[i].source);
        v->vp[i].next = NODE_VIEW_NONE;
        v->src_head[k] = v->src_tail[k] = i;
        return;
    }
    if (v->vp[v->src_tail[k]].offset < v->vp[i].offset) {
        v->vp[i].next = NODE_VIEW_NONE;
        v->vp[v->src_tail[k]].next = i;
        v->src_tail[k] = i;
        return;
    }
    uint32_t *at = &v->src_head[k];
    while (v->vp[*at].offset < v->vp[i].offset)
        at = &v->vp[*at].next;
    v->vp[i].next = *at;
    *at = i;
}

void node_view_add(struct node_view *v, uint16_t slot, const struct rte_mbuf *m, uint32_t off,
                   uint32_t len, uint16_t source, uint32_t frag_off, uint16_t flags)
{
    struct node_vslot *sl = &v->slot[slot];

    while (m && off >= m->data_len) {
        off -= m->data_len;
        m = m->next;
    }
    while (len && m && !sl->overflow) {
        uint32_t n = m->data_len - off < len ? m->data_len - off : len, i = v->free_vp;
        if (i == NODE_VIEW_NONE || source >= EBF_MAX_SOURCES) {
            sl->overflow = 1;   /* frames given back at the next hold or the reset */
            return;
        }
        v->free_vp = v->vp[i].next;
        v->n_free_vp--;
        sl->n_vp++;
        v->vp[i] = (struct node_vpiece){
            .data = rte_pktmbuf_mtod_offset(m, const uint8_t *, off), .len = n,
            .offset = frag_off, .source = source, .flags = flags,
        };
        link_piece(v, slot, i);
        frag_off += n;
        len -= n;
        off = 0;
        m = m->next;
    }
}

int node_view_build(struct node_view *v, uint16_t slot, uint16_t n_sources)
{
    return node_view_build_into(v, slot, n_sources, v->tp, v->frags, v->frag_flags);
}

int node_view_build_into(const struct node_view *v, uint16_t slot, uint16_t n_sources,
                         struct ebf_trigger_piece *tp, struct ebf_trigger_fragment *frags,
                         uint16_t *flags)
{
    const struct node_vslot *sl = &v->slot[slot];
    const uint32_t *head = &v->src_head[(size_t)slot * EBF_MAX_SOURCES];
    uint32_t k = 0;

    if (sl->overflow)
        return -1;
    memset(frags, 0, sizeof(frags[0]) * n_sources);
    if (flags)
        memset(flags, 0, sizeof(flags[0]) * n_sources);
    for (uint16_t s = 0; s < n_sources; s++) {
        if (!ebf_present_test(sl->sources, s))
            continue;
        struct ebf_trigger_fragment *f = &frags[s];
        f->pieces = &tp[k];
        for (uint32_t i = head[s]; i != NODE_VIEW_NONE; i = v->vp[i].next) {
            tp[k++] = (struct ebf_trigger_piece){v->vp[i].data, v->vp[i].len};
            f->n_pieces++;
            f->len += v->vp[i].len;
            if (flags)
                flags[s] |= v->vp[i].flags;
        }
    }
    return 0;
}
