/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_store.h - the ledger's storage part: every accepted event stored or lost at storage with a reason, per stream. */
#ifndef LEDGER_STORE_H
#define LEDGER_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_hist.h"
#include "farm_types.h"
#include "jsonout.h"

#define LEDGER_STREAMS 8         /* node/node_store_stats.h NODE_STORE_STREAMS */
#define LEDGER_STORE_REASONS 8

struct ledger_store {
    int on;                      /* a node stored accepted events (store.on) */
    uint64_t accepted;           /* the nodes' accepted events handed to storage */
    uint64_t stored;             /* written to files */
    uint64_t lost_total;         /* lost at storage, all reasons */
    uint64_t s_accepted[LEDGER_STREAMS], s_stored[LEDGER_STREAMS], s_lost[LEDGER_STREAMS];
    unsigned n_lost;
    char lost_name[LEDGER_STORE_REASONS][48];
    uint64_t lost[LEDGER_STORE_REASONS];
    uint64_t bytes, files, waits, backpressure_ns;
    unsigned failed_nodes;       /* nodes whose storage failed (store.failed) */
    struct ebf_hist write_ns;    /* every node's block writes */
    int balanced;                /* accepted == stored + lost, in all and per stream */
};

/* The storage figures from the nodes' final counters (the gone ones give
 * none). balanced also needs the nodes' handed-over total to equal the
 * SFCs' accepted count (accepted). */
void ledger_store_close(const struct farm_result *r, uint64_t accepted, struct ledger_store *s);

/* The summary's storage lines: text, and the members "stored" (N or null)
 * and "store" ({...} or null) set in the JSON object ledger, after its
 * other members (0, or -1 when out of memory). */
void ledger_store_text(FILE *out, const struct ledger_store *s);
int ledger_store_json(json_t *ledger, const struct ledger_store *s);

#endif /* LEDGER_STORE_H */
