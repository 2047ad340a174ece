/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger.h - a run's ledger: every generated event accepted, rejected or lost with a reason. */
#ifndef LEDGER_H
#define LEDGER_H

#include <stdint.h>

#include "farm_types.h"
#include "ledger_store.h"

#define LEDGER_MAX_REASONS 16
#define LEDGER_MAX_IDS 16        /* differing ids shown, each way */
#define LEDGER_LIST_IDS 64       /* differing ids listed, each way: more than the id
                                  * records' 48 cells can peel in practice */

struct ledger {
    uint64_t generated;          /* events the readout generated: ids lo .. lo+generated-1;
                                  * with a readout gone, the ids the SFCs saw */
    uint64_t id_lo;
    uint64_t range_digest;       /* sum of ebf_mix64(id) over the generated ids */
    unsigned readouts_gone;      /* readouts that gave no final counters (killed) */
    char readout_gone[48];       /* the first of them; "" when none */
    uint64_t gone_from;          /* with one gone: the first id no SFC saw */
    unsigned n_ro_lost;          /* the gone readouts named below (r's shape known) */
    char ro_lost[LEDGER_MAX_REASONS][48];   /* each gone readout ... */
    uint64_t ro_lost_from[LEDGER_MAX_REASONS];  /* ... lost from this event on: 1 + the
                                             * highest id any SFC heard from its sources */
    uint64_t accepted, rejected; /* decided: the acks the SFCs took, once per event */
    uint64_t incomplete;         /* delivered incomplete (within the above) */
    unsigned n_lost;
    char lost_name[LEDGER_MAX_REASONS][48];
    uint64_t lost[LEDGER_MAX_REASONS];
    uint64_t lost_total;
    int digest_match;            /* every id once: sum of mix64(id) agrees */
    int ids_match;               /* the id records equal the readout's range */
    int ids_listed;              /* every differing id is in missing/extra */
    uint64_t missing[LEDGER_LIST_IDS];  /* generated, in no bucket */
    uint64_t extra[LEDGER_LIST_IDS];    /* in a bucket twice, or never generated */
    unsigned n_missing, n_extra;
    int nodes_reported;          /* every node incarnation gave its final counters
                                  * (none killed, none restarted) */
    int nodes_agree;             /* ids the nodes acked == acks taken + late acks */
    unsigned nodes_silent;       /* nodes without final counters (killed) */
    uint64_t late_acks, nodes_dead, redispatched, rejoins, revived;
    uint64_t late_accepted;      /* of late_acks, accepts: a storing node stored them too */
    unsigned sfcs_gone;          /* SFCs that gave no final counters (killed) */
    char sfc_gone[48];           /* the first of them; "" when none */
    uint64_t sfc_lost;           /* their events no node of theirs decided (in lost) */
    uint64_t gone_decided;       /* their events their nodes decided (in accepted, rejected) */
    int failover;                /* the gone SFCs' places were routed around and their
                                  * events replayed: closed by docs/protocol.md 13.6 */
    unsigned sfcs_restarted;     /* live SFCs closed as dead for their old incarnations */
    uint64_t fences;             /* live SFCs' fences (frozen past the bound) */
    uint64_t replay_fenced;      /* events a fence dropped: built again by a survivor */
    uint64_t replay_partial;     /* replays dropped partial: decided by the dead place */
    uint64_t replay_ended;       /* of them, proven by the readouts' replay ends */
    uint64_t replay_wait_cap;    /* of them, dropped unproven at the 5 s cap */
    uint64_t replay_unsound;     /* replays built incomplete, their missing pieces lost
                                  * on the way (replay.unsound): decided, in accepted or
                                  * rejected; informational */
    uint64_t redecided;          /* ids decided by a dead place's node and again by a
                                  * survivor (counted once, in the survivor's decision) */
    uint64_t replayed;           /* replayed events the survivors acked */
    uint64_t replay_full;        /* lost: replays that lacked a readout's fragments */
    uint64_t release_mark;       /* the first dead place's watermark X */
    int mark_evicted;            /* a dead place's node may lack ids at or above X */
    int withheld_agree;          /* several readouts withheld the same events (one fault
                                  * seed, fixed sizes); 1 with one readout */
    int64_t unaccounted;         /* generated - (accepted + rejected + lost) */
    struct ledger_store store;   /* accepted events stored or lost at storage */
    int closed;
};

/*
 * Closed means generated == accepted + rejected + lost, the id digests
 * agree (the readout's sum of ebf_mix64(id) over generated ids equals the
 * SFCs' over acked plus lost ids) and the id records agree: the SFCs'
 * records of acked and lost ids (docs/protocol.md, "Ledger") equal the
 * record of the readout's id range lo .. lo + generated - 1. When they do
 * not, missing and extra list the first ids that differ. When every node
 * reported, the nodes' records of the acks they sent must also equal the
 * SFCs' acked plus late-acked ids (nodes_agree): no event decided by two
 * nodes without the SFC knowing.
 *
 * With storage on (a node's store.on), every accepted event must also be
 * stored or lost at storage with a reason, in all and per stream
 * (store.balanced), when every node reported.
 *
 * When a readout is gone (r->readouts_gone), its generated count is
 * unknown: the ledger closes over what the survivors saw. The ids the
 * SFCs acked or lost must form one range lo .. lo + n - 1 (generated is
 * then n, the readout lost from event lo + n on, gone_from); the range's
 * digest stands for the readout's, and the surviving readouts' counters
 * (withheld events included) are left out. Each gone readout is named
 * with the event it was lost from (ro_lost, ro_lost_from): 1 + the highest
 * id an SFC heard from any of its sources (source.next_event).
 *
 * Several readouts each generate the same ids: generated is the longest
 * range any of them generated (an id one readout did not reach is seen by
 * the SFCs from the others, incomplete). An event is withheld only when
 * no readout let a frame of it through: with one fault seed and fixed
 * sizes every readout withholds the same events, and the ledger takes
 * the first readout's record once; records that differ do not close
 * (withheld_agree 0).
 *
 * When an SFC is gone (r->sfcs_gone, with r's shape known), its events,
 * the generated ids e with e % n_places at its place, are decided where
 * its nodes' own records say (their accepted and rejected counts join the
 * ledger's) and lost as sfc_lost otherwise: sfc_lost = its ids - the ids
 * its nodes decided. The id records then check that the surviving SFCs'
 * acked and lost ids plus the withheld ones are exactly the other ids.
 *
 * After a failover (every gone SFC's place routed around by the readouts,
 * ledger_replay.h) the gone places' ids are closed by docs/protocol.md
 * 13.6 instead: their nodes' acks below the watermark X, the survivors'
 * acks (replayed ones included), the named losses; redecided counts the
 * nodes' decisions at or above X, made again by a survivor (the
 * survivor's decision is the one counted). Ids still missing that the
 * readouts' replay drops explain are lost as replay_full. An SFC that was
 * killed and restarted during the run (its nodes took a mark at the
 * restart) is a dead place for its old incarnations by the same terms,
 * its new incarnation's acks counted as a live SFC's (sfcs_restarted).
 * A live SFC that fenced itself counts once the acks it made that the
 * readouts replayed (ledger.fence_acked, in redecided); the events its
 * fence dropped (replay_fenced) were built by a survivor and those a
 * survivor dropped partial (replay_partial) were decided by the dead
 * place: both are named, neither is lost. Replayed events a survivor
 * built incomplete because their missing pieces were lost on the way
 * (replay_unsound, the SFCs' replay.unsound) are decided and counted as
 * any event is: the figure is named, not a term of the sum.
 */
void ledger_close(const struct farm_result *r, struct ledger *l);

#endif /* LEDGER_H */
