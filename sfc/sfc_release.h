/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_release.h - the SFC's release stage: when to send, the release watermark, each readout's release frame (docs/protocol.md 13.2). */
#ifndef SFC_RELEASE_H
#define SFC_RELEASE_H

#include <stdint.h>

#include "ebf_release.h"
#include "sfc_guard.h"

#define SFC_RELEASE_NONE_HELD UINT64_MAX   /* held_low when the SFC holds no event */

/*
 * Owns the release frames' numbering and clock. Every period the loop asks
 * sfc_release_due; when due it computes the watermark once
 * (sfc_release_low, from the lowest event id it holds and the highest id
 * heard per source) and makes one frame per readout heard
 * (sfc_release_make: that readout's sources' next expected sequence
 * numbers from the guard). The frames go out like throttle frames.
 * DPDK-free; one thread; no allocation.
 */
struct sfc_release {
    uint16_t place;                    /* this SFC's place in the readouts' list */
    uint16_t epoch;                    /* incarnation */
    uint32_t seq;                      /* the next frame's number */
    uint64_t period_ns;
    uint64_t next_ns;                  /* when the next round is due */
    uint64_t rounds;                   /* rounds made */
    uint8_t flags;                     /* EBF_RELF_JOIN or EBF_RELF_LEAVE announced, or 0 */
    uint64_t at;                       /* the join or leave id announced (0: none) */
    uint64_t join_rounds;              /* rounds a JOIN is still repeated */
    uint64_t join_at;                  /* the last join id announced (0: none) */
    uint64_t top;                      /* 1 + the highest id heard, at the last round */
    uint64_t per_round;                /* ids heard in the last round (the rate it sees) */
};

/* The join margin (docs/protocol.md 13.5): 200 ms of events at the rate
 * of per_round ids a period_ns, and at least 65536 ids. */
#define SFC_RELEASE_JOIN_MIN 65536u
#define SFC_RELEASE_JOIN_NS 200000000ull
uint64_t sfc_release_margin(uint64_t per_round, uint64_t period_ns);

/* Announce a leave (drain) or a join (undrain, rejoin) at id at from the
 * next round on: a LEAVE stays until a join replaces it; a JOIN is
 * repeated for SFC_RELEASE_JOIN_NS x 2 (twice the detection bound at
 * most) of rounds, then the frames carry no flag again. */
void sfc_release_announce(struct sfc_release *rel, uint8_t flag, uint64_t at);

/* Notes top (1 + the highest id heard now) at a round, for the margin. */
void sfc_release_heard(struct sfc_release *rel, uint64_t top);

/* Sets rel up for place, epoch and period_ns; the first round is due at
 * once. */
void sfc_release_init(struct sfc_release *rel, uint16_t place, uint16_t epoch, uint64_t period_ns);

/* 1 when a round is due at now_ns (then the next is due one period
 * later, or a period after now when the loop fell behind), else 0. */
int sfc_release_due(struct sfc_release *rel, uint64_t now_ns);

/* The watermark: the smaller of held_low (the lowest id held building,
 * ready or unacked; SFC_RELEASE_NONE_HELD for none) and, for each source
 * bound to a readout, next_by_source[s] (1 + the highest event id heard
 * from s). 0 when no source is bound and nothing is held (nothing can be
 * released yet). */
uint64_t sfc_release_low(const struct sfc_guard *g, uint64_t held_low,
                         const uint64_t *next_by_source, uint16_t n_sources);

/* Fills h for readout ro (an index into the guard's readouts) with low,
 * flags and at, and one record per source below n_sources bound to that
 * readout's MAC (its next expected sequence number), at most
 * EBF_RELEASE_MAX_SRC; takes a sequence number. Returns the records. */
unsigned sfc_release_make(struct sfc_release *rel, const struct sfc_guard *g, uint16_t ro,
                          uint16_t n_sources, uint64_t low, uint8_t flags, uint64_t at,
                          struct ebf_release_hdr *h);

#endif
