/* SPDX-License-Identifier: BSD-3-Clause */
/* node_reasm.c - the node's reassembly rules: pieces verified into their event, the event checked whole. */
#include "node_reasm.h"

void node_reasm_flag(struct node_ev *e, enum node_verify v)
{
    e->status |= node_verify_bit(v);
}

void node_reasm_header(struct node_ev *e, const struct ebf_event_hdr *h)
{
    if (h->n_sources != e->n_sources || h->flags != e->flags ||
        h->frame_count != e->frame_count || h->present[0] != e->present[0] ||
        h->present[1] != e->present[1])
        node_reasm_flag(e, NODE_V_BAD_SOURCES);
}

/* Coverage of [off, end) of source s in e: bad when it overlaps a byte
 * already covered. A source's pieces in order (each at the end of those
 * before) cannot overlap and are not kept; from its first piece out of
 * order on, the bytes before it ([0, got), one record) and each later
 * piece are kept in e->cover and checked against the others. More than
 * NODE_COVER_MAX records cannot be checked: bad too. */
static void cover_note(struct node_ev *e, uint16_t s, uint32_t off, uint32_t end)
{
    if (!ebf_present_test(e->ooo, s)) {
        if (off == e->src_got[s])
            return;              /* in order */
        ebf_present_set(e->ooo, s);
        if (e->src_got[s] > 0)
            cover_note(e, s, 0, e->src_got[s]);
    }
    for (unsigned i = 0; i < e->n_cover; i++) {
        const struct node_cover *c = &e->cover[i];
        if (c->source == s && c->off < end && off < c->end) {
            e->cover_bad = 1;
            return;
        }
    }
    if (e->n_cover == NODE_COVER_MAX) {
        e->cover_bad = 1;
        return;
    }
    e->cover[e->n_cover++] = (struct node_cover){.off = off, .end = end, .source = s};
}

/* Piece h (found bad or not) into e's lengths and flags. */
static void piece_note(struct node_ev *e, const struct ebf_frag_hdr *h)
{
    if (h->event_id != e->id)
        node_reasm_flag(e, NODE_V_BAD_EVENT_ID);
    if (!ebf_present_test(e->present, h->source) ||
        (e->src_got[h->source] && e->src_len[h->source] != h->frag_len))
        node_reasm_flag(e, NODE_V_BAD_SOURCES);
    e->src_len[h->source] = h->frag_len;
    cover_note(e, h->source, h->offset, h->offset + h->piece_len);
    if (e->cover_bad)
        node_reasm_flag(e, NODE_V_BAD_SOURCES);
    e->src_got[h->source] += h->piece_len;
    e->got_bytes += h->piece_len;
    if (h->tx_ns < e->first_tx_ns)
        e->first_tx_ns = h->tx_ns;
}

int node_reasm_next(struct node_reasm *r, uint64_t *piece_reject, struct node_piece *pc)
{
    struct node_ev *e = r->e;
    struct ebf_frag_hdr h;
    size_t used;
    int pattern_bad = 0;

    if (r->left == 0)
        return 0;
    enum ebf_reason why = ebf_frag_parse(r->p, r->len, e->n_sources, 0, &h, &used);
    if (why == EBF_R_OK)
        why = ebf_frag_verify(r->p, &h, &pattern_bad);   /* CRC and pattern, one pass */
    if (why == EBF_R_BAD_CHECKSUM) {
        /* Lengths and source were checked before the CRC: the piece can be
         * stepped over, its bytes are just not to be trusted. */
        piece_reject[why]++;
        node_reasm_flag(e, NODE_V_BAD_CRC);
        used = EBF_FRAG_HLEN + (size_t)h.piece_len;
    } else if (why != EBF_R_OK) {
        piece_reject[why]++;
        node_reasm_flag(e, NODE_V_BAD_SOURCES);
        r->left = 0;
        return 0;               /* the rest of the frame cannot be located */
    } else if (pattern_bad) {
        node_reasm_flag(e, NODE_V_BAD_PATTERN);
    }
    piece_note(e, &h);
    *pc = (struct node_piece){
        .off = (uint32_t)(r->p + EBF_FRAG_HLEN - r->base), .len = h.piece_len,
        .frag_off = h.offset, .source = h.source, .flags = h.flags,
    };
    r->p += used;
    r->len -= used;
    r->left--;
    return 1;
}

void node_reasm_finish(struct node_ev *e)
{
    for (unsigned s = 0; s < e->n_sources; s++) {
        int present = ebf_present_test(e->present, s);
        if (present ? e->src_got[s] != e->src_len[s] || e->src_len[s] == 0 : e->src_got[s] != 0)
            node_reasm_flag(e, NODE_V_BAD_SOURCES);
    }
    if (e->got_bytes != e->bytes)
        node_reasm_flag(e, NODE_V_BAD_SOURCES);
}
