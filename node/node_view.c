/* SPDX-License-Identifier: BSD-3-Clause */
/* node_view.c - held frames and piece lists per event slot, gathered into the plug-in's fragments without copies. */
#include "node_view.h"

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

int node_view_init(struct node_view *v, uint16_t slots)
{
    memset(v, 0, sizeof(*v));
    v->slots = slots;
    v->vp = rte_zmalloc("node_vp", sizeof(*v->vp) * slots * NODE_VIEW_PIECES, 0);
    v->held = rte_zmalloc("node_held", sizeof(*v->held) * slots * NODE_VIEW_FRAMES, 0);
    v->n_vp = rte_zmalloc("node_nvp", sizeof(*v->n_vp) * slots, 0);
    v->n_held = rte_zmalloc("node_nheld", sizeof(*v->n_held) * slots, 0);
    v->overflow = rte_zmalloc("node_vover", slots, 0);
    if (!v->vp || !v->held || !v->n_vp || !v->n_held || !v->overflow) {
        node_view_free(v);
        return -ENOMEM;
    }
    return 0;
}

void node_view_free(struct node_view *v)
{
    if (v->n_held)
        for (uint16_t s = 0; s < v->slots; s++)
            node_view_reset(v, s);
    rte_free(v->vp);
    rte_free(v->held);
    rte_free(v->n_vp);
    rte_free(v->n_held);
    rte_free(v->overflow);
    memset(v, 0, sizeof(*v));
}

void node_view_reset(struct node_view *v, uint16_t slot)
{
    struct rte_mbuf **h = &v->held[(size_t)slot * NODE_VIEW_FRAMES];

    for (uint16_t i = 0; i < v->n_held[slot]; i++)
        rte_pktmbuf_free(h[i]);
    v->n_held[slot] = 0;
    v->n_vp[slot] = 0;
    v->overflow[slot] = 0;
}

int node_view_hold(struct node_view *v, uint16_t slot, struct rte_mbuf *m)
{
    if (v->n_held[slot] >= NODE_VIEW_FRAMES) {
        v->overflow[slot] = 1;
        return 0;
    }
    v->held[(size_t)slot * NODE_VIEW_FRAMES + v->n_held[slot]++] = m;
    return 1;
}

void node_view_add(struct node_view *v, uint16_t slot, const struct rte_mbuf *m, uint32_t off,
                   uint32_t len, uint16_t source, uint32_t frag_off, uint16_t flags)
{
    struct node_vpiece *vp = &v->vp[(size_t)slot * NODE_VIEW_PIECES];

    while (m && off >= m->data_len) {
        off -= m->data_len;
        m = m->next;
    }
    while (len && m) {
        uint32_t n = m->data_len - off < len ? m->data_len - off : len;
        if (v->n_vp[slot] >= NODE_VIEW_PIECES) {
            v->overflow[slot] = 1;
            return;
        }
        vp[v->n_vp[slot]++] = (struct node_vpiece){
            .data = rte_pktmbuf_mtod_offset(m, const uint8_t *, off), .len = n,
            .offset = frag_off, .source = source, .flags = flags,
        };
        frag_off += n;
        len -= n;
        off = 0;
        m = m->next;
    }
}

static int before(const struct node_vpiece *a, const struct node_vpiece *b)
{
    return a->source != b->source ? a->source < b->source : a->offset < b->offset;
}

/* Insertion sort by (source, offset): the pieces mostly come in order. */
static void sort_pieces(struct node_vpiece *vp, uint16_t n)
{
    for (uint16_t i = 1; i < n; i++) {
        struct node_vpiece x = vp[i];
        uint16_t j = i;
        while (j > 0 && before(&x, &vp[j - 1])) {
            vp[j] = vp[j - 1];
            j--;
        }
        vp[j] = x;
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
    struct node_vpiece *vp = &v->vp[(size_t)slot * NODE_VIEW_PIECES];
    uint16_t n = v->n_vp[slot];

    if (v->overflow[slot])
        return -1;
    sort_pieces(vp, n);
    memset(frags, 0, sizeof(frags[0]) * n_sources);
    if (flags)
        memset(flags, 0, sizeof(flags[0]) * n_sources);
    for (uint16_t i = 0; i < n; i++) {
        struct ebf_trigger_fragment *f = &frags[vp[i].source];
        tp[i] = (struct ebf_trigger_piece){vp[i].data, vp[i].len};
        if (f->n_pieces++ == 0)
            f->pieces = &tp[i];
        f->len += vp[i].len;
        if (flags)
            flags[vp[i].source] |= vp[i].flags;
    }
    return 0;
}
