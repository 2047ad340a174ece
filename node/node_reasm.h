/* SPDX-License-Identifier: BSD-3-Clause */
/* node_reasm.h - the node's reassembly rules: an event frame's pieces verified into their event, and the checks of a whole event; no DPDK. */
#ifndef NODE_REASM_H
#define NODE_REASM_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_proto.h"
#include "node_evtab.h"
#include "node_stats.h"

/* Where one verified piece lies in its frame, for the trigger's view. */
struct node_piece {
    uint32_t off;                /* of its payload from the frame's first byte */
    uint32_t len;
    uint32_t frag_off;           /* of the piece in its source's fragment */
    uint16_t source;
    uint16_t flags;              /* its fragment header's EBF_FRAGF_* */
};

/* The pieces of one event frame, walked one by one (node_reasm_next). */
struct node_reasm {
    struct node_ev *e;
    const uint8_t *p;            /* the next piece */
    const uint8_t *base;         /* the frame's first byte */
    size_t len;                  /* bytes left after p */
    uint16_t left;               /* pieces left */
};

/* Mark e with what verification found (enum node_verify). */
void node_reasm_flag(struct node_ev *e, enum node_verify v);

/* A frame of e with header h: a header that disagrees with the event's
 * first (sources, flags, frame count, present set) marks it bad_sources. */
void node_reasm_header(struct node_ev *e, const struct ebf_event_hdr *h);

/* Begin the pieces of a frame of e: p after the event header, len bytes,
 * h->n_pieces pieces, base the frame's first byte. */
static inline struct node_reasm node_reasm_start(struct node_ev *e, const uint8_t *base,
                                                 const uint8_t *p, size_t len, uint16_t n)
{
    return (struct node_reasm){.e = e, .p = p, .base = base, .len = len, .left = n};
}

/*
 * Verify the next piece (header, CRC and payload pattern in one pass) into
 * its event: lengths received, first transmit time, verify flags. A piece
 * that fails to parse is counted in piece_reject (by reason) and ends the
 * frame (the rest cannot be located); a bad CRC is counted and the piece
 * stepped over. Returns 1 with the piece's place in *pc, 0 when the frame
 * has no more.
 */
int node_reasm_next(struct node_reasm *r, uint64_t *piece_reject, struct node_piece *pc);

/* Every frame of e is in: a source present with a fragment not whole, one
 * absent with bytes, or a byte total not the header's marks bad_sources.
 * (Each piece was checked as it came: no byte of a fragment covered twice,
 * e->cover_bad and bad_sources else; with the totals, every byte is then
 * covered exactly once.) */
void node_reasm_finish(struct node_ev *e);

#endif /* NODE_REASM_H */
