/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp.h - trigger node data plane: receive events, verify, decide, ack with credit. */
#ifndef NODE_DP_H
#define NODE_DP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "ebf_hist.h"
#include "ebf_idle.h"
#include "ebf_idset.h"
#include "ebf_proto.h"

/* What the node found wrong, counted per event (an event may count in
 * several) and reported to the SFC in the ack status bits. */
#define NODE_FOREACH_VERIFY(X)                                                \
    X(BAD_CRC, "bad_crc", EBF_ACKS_BAD_CRC)                                   \
    X(BAD_PATTERN, "bad_pattern", EBF_ACKS_BAD_PATTERN)                       \
    X(BAD_SOURCES, "bad_sources", EBF_ACKS_BAD_SOURCES)                       \
    X(BAD_EVENT_ID, "bad_event_id", EBF_ACKS_BAD_EVENT_ID)

enum node_verify {
#define NODE_VERIFY_ENUM(n, s, b) NODE_V_##n,
    NODE_FOREACH_VERIFY(NODE_VERIFY_ENUM)
#undef NODE_VERIFY_ENUM
    NODE_V_MAX
};

struct node_conf {
    uint16_t port;
    uint16_t node_id;
    uint32_t epoch;
    uint8_t mac[6];
    uint8_t sfc_mac[6];
    uint16_t credits;            /* event slots granted at start */
    double trigger_us;           /* busy time per event */
    double accept;               /* fraction accepted, from the event id */
    uint64_t accept_seed;
    uint16_t ack_batch;          /* acks per credit frame, at most EBF_MAX_ACKS */
    double heartbeat_ms;         /* empty credit frame when silent this long */
    struct rte_mempool *pool;
    uint16_t burst;
    struct ebf_idle idle;
    double drain_quiet_ms;       /* at stop: input quiet this long ends the run */
};

struct node_stats {
    uint64_t rx_frames, rx_bytes;
    uint64_t reject[EBF_R_MAX];  /* event frames that failed to parse */
    uint64_t piece_reject[EBF_R_MAX];    /* pieces inside event frames */
    uint64_t wrong_type;         /* not an event frame */
    uint64_t no_slot;            /* an event beyond the credits granted */
    uint64_t dup_frames;         /* frames of an event already decided */
    uint64_t dup_events;         /* events sent again after their decision: re-acked
                                  * with that decision, never decided twice */
    uint64_t events, accepted, rejected, incomplete;
    uint64_t verify[NODE_V_MAX];
    uint64_t events_bad;         /* events with any verify error */
    uint64_t stopped_partial;    /* events still partial when the run ended */
    uint64_t payload_bytes;
    uint64_t acks_sent, credit_frames, credits_granted, heartbeats, tx_refused;
    uint64_t decided_digest;     /* sum of ebf_mix64(id) over decided events */
    struct ebf_idset acked_ids;  /* the ledger's record of the ids this node acked:
                                  * each decision once, plus each re-ack */
    struct ebf_hist e2e_ns;      /* readout transmit -> decided */
};

struct node_dp;

/* NULL with errno set. The port must be started. */
struct node_dp *node_dp_create(const struct node_conf *conf);
void node_dp_destroy(struct node_dp *dp);

/* One pass of the poll loop; returns the work done. */
unsigned node_dp_poll(struct node_dp *dp);

/* Grant the initial credits, run until *stop, then finish what arrives until
 * the input has been quiet for drain_quiet_ms and flush every ack. */
void node_dp_run(struct node_dp *dp, const volatile sig_atomic_t *stop);

/* The drain as steps: begin, then drain_poll until *done (input quiet for
 * drain_quiet_ms and every ack sent; partial events counted). */
void node_dp_drain_begin(struct node_dp *dp);
unsigned node_dp_drain_poll(struct node_dp *dp, int *done);

struct node_gauges {
    uint32_t events_in_progress; /* slots holding a partial event */
    uint32_t acks_pending;       /* decided, ack not yet sent */
    uint32_t credits;            /* slots granted in all */
    uint32_t epoch;
    uint32_t pool_in_use;
};

void node_dp_gauges(const struct node_dp *dp, struct node_gauges *g);

const struct node_stats *node_dp_stats(const struct node_dp *dp);

/* Names of the verify counters ("bad_crc", ...). */
const char *node_verify_name(unsigned v);

#endif /* NODE_DP_H */
