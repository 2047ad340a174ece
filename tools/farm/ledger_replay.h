/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_replay.h - the ledger's terms when SFC places died and the readouts replayed their events (docs/protocol.md 13.6), from the processes' final counters. */
#ifndef LEDGER_REPLAY_H
#define LEDGER_REPLAY_H

#include <stdint.h>

#include "ebf_idset.h"
#include "farm_types.h"

/* The readouts' and SFCs' keys the terms are read from (docs/protocol.md
 * 13.6, docs/daemons.md). */
#define LEDGER_RO_DEAD_FROM "fo.dead_from"      /* readout: fo.dead_from.<place>, the
                                                 * first event it routed around place */
#define LEDGER_RO_LOW "release.low"             /* readout: release.low.<place>, the
                                                 * highest low it accepted from place */
#define LEDGER_RO_DROPPED "replay.dropped"      /* readout: events freed unreleased */
#define LEDGER_SFC_REPLAY_ACKED "ledger.replay_acked"   /* SFC: id record */
#define LEDGER_NODE_MARKS "ledger.marks"        /* node: marks taken during the run */
#define LEDGER_SFC_FENCE_ACKED "ledger.fence_acked"    /* SFC: id record */

struct ledger_replay {
    int on;                      /* every gone SFC's place was declared dead by a readout */
    unsigned n_dead;             /* those places */
    uint64_t dead_places;        /* bit p: place p (below 64) */
    uint64_t mark;               /* the first dead place's watermark X */
    uint64_t redecided;          /* ids its nodes decided at or above X */
    uint64_t redecided_accepted; /* of them, accepted there */
    uint64_t replayed;           /* replayed events the survivors acked (replay_acked) */
    uint64_t dropped;            /* the readouts' replay.dropped, summed */
    int evicted;                 /* a dead place's node may have lost ids above X */
    struct ebf_idset dead;       /* the dead places' nodes' acks minus their records at or
                                  * above X: the ids counted as decided by them */
    uint64_t dead_digest;        /* the same as a sum of ebf_mix64 */
    unsigned n_restarted;        /* live SFCs whose place died and came back: their
                                  * nodes took a mark (ledger.marks) at the restart */
    struct ebf_idset restarted;  /* the restarted places' nodes' acks minus the new
                                  * incarnations' acked and late acks: the old
                                  * incarnations' decisions (for nodes_agree) */
    uint64_t old_accepted, old_rejected;  /* the old incarnations' nodes' decisions,
                                  * redecided ones included */
    /* Live SFCs that fenced themselves (a freeze): their acks that the
     * readouts replayed, decided again by a survivor (ledger.fence_acked,
     * summed over the SFCs; set whether or not on). */
    uint64_t fences;             /* the SFCs' fences */
    struct ebf_idset fence_ids;  /* ledger.fence_acked */
    uint64_t fence_count, fence_accepted, fence_digest;
    int fence_overflow;          /* a fence's record may lack acks */
    uint64_t fenced, partial;    /* replay.fenced (built again by a survivor) and
                                  * replay.partial (decided by the dead place) */
    uint64_t ended, wait_cap;    /* of partial: proven by replay ends, dropped at the cap */
    uint64_t unsound;            /* replay.unsound: built incomplete, pieces lost on the way */
};

/* The id record kept in kv under prefix ("<prefix>.count.<cell>", ...),
 * 0 cells where absent. */
void ledger_kv_idset(const struct ebf_kv *kv, const char *prefix, struct ebf_idset *s);

/* 1 when node i of r belongs to an SFC that is gone (its place known). */
int ledger_node_of_gone_sfc(const struct farm_result *r, unsigned i);

/*
 * The terms of 13.6 into x. x->on is 1 when r's shape is known, for every
 * gone SFC's place some readout says it routed around it
 * (fo.dead_from.<place>), and some SFC is gone or restarted; otherwise 0
 * and the ledger counts a gone SFC's events as before (sfc_lost). With it
 * on, every id of a dead place is either below X and decided by its nodes
 * (x->dead: their ledger.acks minus ledger.acks_after_release), or at or
 * above X and replayed (in the survivors' ledger.acked, as
 * ledger.replay_acked, or lost there by a named reason); redecided is the
 * count of the nodes' records at or above X.
 *
 * A restarted SFC (alive at the stop, its place's nodes marked at each
 * restart: ledger.marks > 0) is a dead place for its old incarnations:
 * its nodes' acks minus their marks' records (the old incarnations'
 * decisions at or above each death's X) minus what the new incarnation
 * acked or took late (its ledger.acked, ledger.late) are the old
 * incarnations' decisions below X (x->restarted, also in x->dead); the
 * new incarnation's acks count as any live SFC's.
 *
 * A live SFC that fenced itself (frozen past the bound, docs/protocol.md
 * 13.4) acked, after the fence or at or above its last low before it,
 * events the readouts replayed to a survivor: its ledger.fence_acked, in
 * x->fence_* whether or not x->on (x->on is also 1 with fences), count
 * once and join redecided.
 */
void ledger_replay_terms(const struct farm_result *r, struct ledger_replay *x);

/*
 * The ids still missing after every term (missing, n of them, listed
 * completely, none extra) are named lost as replay_full when the readouts
 * freed at least that many events unreleased (x->dropped) and each is of
 * a dead place: its replay lacked a readout's fragments. Returns how many
 * (their digest added to *digest), or 0 when they are not all so.
 */
uint64_t ledger_replay_full(const struct farm_result *r, const struct ledger_replay *x,
                            const uint64_t *missing, unsigned n, uint64_t *digest);

#endif /* LEDGER_REPLAY_H */
