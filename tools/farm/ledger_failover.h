/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_failover.h - the ledger's terms after an SFC failover: each id once, the events decided twice counted (docs/protocol.md 13.6). */
#ifndef LEDGER_FAILOVER_H
#define LEDGER_FAILOVER_H

#include <stdint.h>

#include "ebf_idset.h"

/*
 * The id records of a run with dead SFC places (docs/protocol.md 13.6):
 * generated = acked_live + replay_acked + (dead_acks - after_release) + lost,
 * cell by cell. after_release holds the dead places' decisions at or above
 * the highest watermark a readout accepted from them: every such id was
 * replayed and decided again by a survivor, so it is counted once (in
 * replay_acked) and named as redecided. Pure: records in, verdict out.
 */
struct ledger_fo_in {
    uint64_t id_lo, n;                         /* the readouts' generated range */
    const struct ebf_idset *acked_live;        /* live places' acks, not replayed */
    const struct ebf_idset *replay_acked;      /* survivors' acks of replayed events */
    const struct ebf_idset *dead_acks;         /* the dead places' nodes' acks */
    const struct ebf_idset *after_release;     /* of dead_acks, ids >= the watermark */
    const struct ebf_idset *lost;              /* every named loss */
};

#define LEDGER_FO_LIST 16

struct ledger_fo_out {
    int closed;                                /* every cell zero */
    int listed;                                /* the ids that differ listed completely */
    uint64_t redecided;                        /* ids in after_release */
    int64_t unaccounted;                       /* generated minus the terms' counts */
    uint64_t missing[LEDGER_FO_LIST], extra[LEDGER_FO_LIST];
    unsigned n_missing, n_extra;
};

/* Closes the failover ledger of in into out. Returns out->closed. */
int ledger_failover_close(const struct ledger_fo_in *in, struct ledger_fo_out *out);

/* The number of ids a record holds (its partition 0's counts summed). */
uint64_t ledger_fo_count(const struct ebf_idset *s);

#endif
