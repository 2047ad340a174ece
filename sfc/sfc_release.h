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
    uint8_t flags;                     /* EBF_RELF_JOIN or _LEAVE announced, or 0 */
    uint64_t at;                       /* the announced join or leave id */
    uint64_t until_ns;                 /* announced until then; UINT64_MAX: until changed */
};

#define SFC_RELEASE_JOIN_MIN 65536u        /* the join margin's least ids (13.5) */
#define SFC_RELEASE_JOIN_NS 1000000000ull  /* a join is repeated this long (> 2 x 100 ms) */

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

/* Announces, in every frame made until until_ns (UINT64_MAX: until the
 * next announcement), flag (EBF_RELF_JOIN or EBF_RELF_LEAVE) with id at
 * (docs/protocol.md 13.5). */
void sfc_release_announce(struct sfc_release *rel, uint8_t flag, uint64_t at, uint64_t until_ns);

/* A drain: from event id at on, every readout routes around this place;
 * announced until changed (an undrain is a join). The entry point for a
 * `drain` control request. */
void sfc_release_leave(struct sfc_release *rel, uint64_t at);

/* The flags and id (*at) a frame made at now_ns carries: the current
 * announcement, dropped once past its until_ns. */
uint8_t sfc_release_flags(struct sfc_release *rel, uint64_t now_ns, uint64_t *at);

/* A new incarnation (a fence): the epoch moves on (to `epoch`, or + 1 when
 * that is not newer), frame numbers restart from 0. */
void sfc_release_new_epoch(struct sfc_release *rel, uint16_t epoch);

/* A join id J for an SFC whose highest heard id + 1 is next_max, heard
 * `ago_s` seconds ago at ids_per_s: next_max plus the ids the readouts
 * made since, plus the margin (the ids of margin_s, at least
 * SFC_RELEASE_JOIN_MIN). */
uint64_t sfc_release_join_id(uint64_t next_max, double ids_per_s, double ago_s, double margin_s);

/* Fills h for readout ro (an index into the guard's readouts) with low,
 * flags and at, and one record per source below n_sources bound to that
 * readout's MAC (its next expected sequence number), at most
 * EBF_RELEASE_MAX_SRC; takes a sequence number. Returns the records. */
unsigned sfc_release_make(struct sfc_release *rel, const struct sfc_guard *g, uint16_t ro,
                          uint16_t n_sources, uint64_t low, uint8_t flags, uint64_t at,
                          struct ebf_release_hdr *h);

/*
 * Dead notices (docs/protocol.md 13.4): readouts that hold this SFC dead
 * at its epoch although it is alive tell it so. The SFC fences itself as
 * after a pause, once every readout it sends to told it or a wait passed
 * since the first notice; its ledger.fence_acked then holds its acks at or
 * above X, the highest low any readout accepted: the notices' highest low
 * when every readout sent one, else its last round's low (a readout that
 * sent none accepted it). DPDK-free.
 */
struct sfc_notices {
    uint64_t since_ns;                 /* the first notice of this epoch; 0: none */
    uint64_t low;                      /* the highest low they carry */
    uint64_t from;                     /* bit r: readout r (guard index < 64) sent one */
    uint64_t taken, ignored;           /* notices counted; of another place or epoch */
};

#define SFC_NOTICE_WAIT_NS (2 * EBF_RELEASE_PERIOD_NS)  /* the others' notices */

/* Notice h from guard readout ro (-1: not known) at now_ns for this
 * SFC's place and epoch. 1 when taken, 0 when ignored (another place or
 * epoch: a stale one, from before a fence). */
int sfc_notice_take(struct sfc_notices *n, const struct ebf_release_hdr *h, uint16_t place,
                    uint16_t epoch, int ro, uint64_t now_ns);

/* 1 when the fence is due at now_ns: every readout of `known` (bit r:
 * guard readout r, the ones the SFC sends release frames to) sent a
 * notice, or SFC_NOTICE_WAIT_NS passed since the first; *x is then the
 * fence's X (last_low when some readout of known sent none). The notices
 * are cleared. 0 otherwise. */
int sfc_notice_due(struct sfc_notices *n, uint64_t known, uint64_t last_low, uint64_t now_ns,
                   uint64_t *x);

#endif
