/* SPDX-License-Identifier: BSD-3-Clause */
/* node_store_stats.h - the storage counters of a node: per stream, by loss reason, the writer's latency and queue; no DPDK. */
#ifndef NODE_STORE_STATS_H
#define NODE_STORE_STATS_H

#include <stdint.h>

#include "ebf_hist.h"

#define NODE_STORE_STREAMS 8     /* output streams 0..7 */

/* Why an accepted event was not stored: X(NAME, "label"). */
#define NODE_FOREACH_STORE_LOST(X)                                            \
    X(FAILED, "store_failed")        /* the writer failed (ENOSPC, EIO ...) */ \
    X(TOO_LARGE, "store_too_large")  /* larger than a block */                \
    X(BAD_STREAM, "store_bad_stream") /* the plug-in's stream is not 0..7 */  \
    X(ABANDONED, "store_abandoned")  /* accepted after the run's storage closed */

enum node_store_lost {
#define NODE_SL_ENUM(n, s) NODE_SL_##n,
    NODE_FOREACH_STORE_LOST(NODE_SL_ENUM)
#undef NODE_SL_ENUM
    NODE_SL_MAX
};

struct node_store_stats {
    int on;                      /* storage is configured */
    int failed;                  /* the writer failed: the node is in ERROR */
    uint64_t accepted[NODE_STORE_STREAMS];  /* handed to storage: stored or lost */
    uint64_t events[NODE_STORE_STREAMS];    /* written to a file */
    uint64_t bytes[NODE_STORE_STREAMS];     /* record bytes written */
    uint64_t lost_stream[NODE_STORE_STREAMS];   /* lost at storage, by stream */
    uint64_t lost[NODE_SL_MAX];  /* lost at storage, by reason */
    uint64_t files;              /* files opened */
    uint64_t files_closed;       /* files closed with their trailer */
    uint64_t blocks;             /* blocks written */
    uint64_t waits;              /* accepted events that waited for a block (back-pressure) */
    uint64_t backpressure_ns;    /* time with events waiting for a block */
    struct ebf_hist write_ns;    /* duration of one block's write() calls */
    uint32_t queue_blocks;       /* gauge: blocks queued for the writer */
    uint32_t free_blocks;        /* gauge: blocks free for the lcore */
    uint32_t waiting;            /* gauge: events waiting for a block */
};

/* "store_failed", ... */
const char *node_store_lost_name(unsigned r);

#endif /* NODE_STORE_STATS_H */
