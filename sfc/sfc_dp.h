/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.h - the SFC data plane: receive, build, dispatch on credit, hold until acked. */
#ifndef SFC_DP_H
#define SFC_DP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "ebf_hist.h"
#include "ebf_idle.h"
#include "ebf_idset.h"
#include "ebf_proto.h"

#define SFC_MAX_NODES 64

/* Frames dropped by the SFC itself (after they parsed), by reason. */
#define SFC_FOREACH_DROP(X)                                                   \
    X(NOT_FOR_US, "not_for_us")         /* destination MAC is not ours */     \
    X(WRONG_TYPE, "wrong_type")         /* not a fragment on the rx port */   \
    X(MULTISEG, "multiseg")             /* frame in several mbufs */          \
    X(DUPLICATE, "duplicate")           /* piece already held */              \
    X(DUPLICATE_SENT, "duplicate_sent") /* its source already delivered */    \
    X(LATE, "late")                     /* a source its sent event lacked */  \
    X(STALE, "stale")                   /* id older than the done window */   \
    X(REFUSED_EVENT, "refused_event")   /* its event was refused */           \
    X(LEN_MISMATCH, "len_mismatch")     /* fragment length changed */         \
    X(NO_RECORD, "no_record")           /* no frame record left */            \
    X(PARTIAL_AT_TIMEOUT, "partial_at_timeout") /* source incomplete */       \
    X(UNKNOWN_NODE, "unknown_node")     /* credit frame from a stranger */

enum sfc_drop {
#define SFC_DROP_ENUM(n, s) SFC_DROP_##n,
    SFC_FOREACH_DROP(SFC_DROP_ENUM)
#undef SFC_DROP_ENUM
    SFC_DROP_MAX
};

/* Events the SFC lost, by reason: the SFC's part of the ledger. */
#define SFC_FOREACH_LOST(X)                                                   \
    X(EVENT_TABLE_FULL, "event_table_full")   /* no slot for a new event */   \
    X(STOPPED_BUILDING, "stopped_building")   /* run ended while building */  \
    X(STOPPED_NO_CREDIT, "no_node")           /* run ended, no node had credit */ \
    X(STOPPED_UNACKED, "stopped_unacked")     /* run ended before the ack */

enum sfc_lost {
#define SFC_LOST_ENUM(n, s) SFC_LOST_##n,
    SFC_FOREACH_LOST(SFC_LOST_ENUM)
#undef SFC_LOST_ENUM
    SFC_LOST_MAX
};

struct sfc_node_conf {
    uint16_t port;
    uint8_t mac[6];
};

struct sfc_conf {
    uint16_t sfc_id;
    uint16_t rx_port;            /* readout-facing port */
    uint8_t mac[6];              /* ours on rx_port; all zero: the port's */
    uint16_t n_sources;
    uint16_t udp_port;           /* UDP encapsulated fragments */
    uint16_t n_nodes;
    struct sfc_node_conf node[SFC_MAX_NODES];
    uint32_t capacity;           /* events held at once */
    uint32_t max_frames;         /* frame records (<= rx mbufs) */
    uint32_t max_credits;        /* credits + in-flight per node */
    double timeout_ms;           /* building -> incomplete */
    uint16_t mtu;
    uint16_t burst;
    struct rte_mempool *hdr_pool;    /* event frame headers */
    struct rte_mempool *clone_pool;  /* indirect mbufs: zero-copy payload */
    struct ebf_idle idle;
    double drain_quiet_ms;       /* at stop: input idle this long ends intake */
    double drain_timeout_ms;     /* at stop: give up on acks after this */
    double node_timeout_ms;      /* a node silent this long is dead; 0: never */
    double throttle_on;          /* throttle the readouts at this fill (0.75) */
    double throttle_off;         /* and release them at this fill (0.5) */
};

/* Per-source sequence accounting of the fragment frames received. */
struct sfc_seq_stats {
    uint64_t gap[EBF_MAX_SOURCES];      /* frames skipped by the sequence */
    uint64_t reorder[EBF_MAX_SOURCES];  /* skipped frames that came later */
    uint64_t dup[EBF_MAX_SOURCES];      /* a sequence number seen before */
};

struct sfc_stats {
    uint64_t rx_frames, rx_bytes;
    uint64_t reject[EBF_R_MAX];  /* parse failures by reason */
    uint64_t drop[SFC_DROP_MAX];
    uint64_t lost[SFC_LOST_MAX];
    uint64_t lost_digest;        /* sum of ebf_mix64(id) over lost events */
    uint64_t events_complete, events_incomplete;
    uint64_t events_sent, frames_tx, bytes_tx, tx_refused, clone_fail;
    uint64_t credit_frames, credits_granted, credits_clamped;
    uint64_t acks, acked_accept, acked_reject, ack_unknown, ack_status_errors;
    uint64_t backpressure_polls;
    uint64_t missing_by_source[EBF_MAX_SOURCES];
    uint64_t late_by_source[EBF_MAX_SOURCES];   /* rx.drop.late by source */
    uint64_t last_by_source[EBF_MAX_SOURCES];   /* source whose piece completed an event */
    struct sfc_seq_stats seq;
    uint64_t throttle_on, throttle_off;         /* transitions */
    uint64_t throttle_frames, throttle_tx_fail; /* frames sent to readouts, refused */
    uint64_t nodes_dead;         /* nodes declared dead (timeout or new epoch) */
    uint64_t redispatched;       /* events taken back from a dead node */
    uint64_t late_acks;          /* acks from a dead node or an old epoch, ignored */
    uint64_t rejoins;            /* nodes back with a new epoch (restarted) */
    uint64_t revived;            /* dead nodes heard again with the same epoch */
    uint64_t acked_incomplete;   /* acked events that were incomplete */
    uint64_t acked_digest;       /* sum of ebf_mix64(id) over acked events */
    uint64_t late_ack_digest;    /* the same over late acks */
    struct ebf_idset ledger_acked;   /* ids of acked events: decided, once each */
    struct ebf_idset ledger_lost;    /* ids of lost events */
    struct ebf_idset ledger_late;    /* ids of late acks (decided again elsewhere) */
    uint64_t node_sent[SFC_MAX_NODES], node_acked[SFC_MAX_NODES];
    uint64_t payload_bytes_sent; /* fragment bytes in dispatched events */
    struct ebf_hist build_ns;    /* first piece -> complete */
    struct ebf_hist dispatch_ns; /* ready -> sent */
    struct ebf_hist ack_ns;      /* sent -> acked */
};

struct sfc_dp;

/* Create the data plane (event table, credit scheduler, tx buffers); NULL
 * with errno set. Ports must be started by the caller. */
struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf);
void sfc_dp_destroy(struct sfc_dp *dp);

/*
 * One pass of the poll loop: credits and acks, intake (unless back-pressure
 * holds it), timeouts, dispatch, transmit. Returns the work done (0: idle).
 */
unsigned sfc_dp_poll(struct sfc_dp *dp, int intake);

/*
 * Run until *stop, then drain: take input until it has been quiet for
 * drain_quiet_ms, time out what is still building, dispatch and wait for
 * acks up to drain_timeout_ms; whatever is left is lost with its reason.
 */
void sfc_dp_run(struct sfc_dp *dp, const volatile sig_atomic_t *stop);

/*
 * The drain as steps, for a caller that must keep answering requests:
 * begin, then call drain_poll until *done. Same stages as sfc_dp_run.
 */
void sfc_dp_drain_begin(struct sfc_dp *dp);
unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done);

/* Levels now: events by stage, credit and in-flight events per node. */
struct sfc_gauges {
    uint32_t building, ready, unacked, free_slots, free_records;
    uint16_t n_nodes;
    uint32_t credits[SFC_MAX_NODES], inflight[SFC_MAX_NODES];
    uint32_t hdr_in_use, clone_in_use;
    uint8_t alive[SFC_MAX_NODES];        /* 1 alive, 0 dead or never heard */
    uint32_t epoch[SFC_MAX_NODES];
    int throttled;               /* the readouts are asked to hold */
    int draining;
};

void sfc_dp_gauges(const struct sfc_dp *dp, struct sfc_gauges *g);

const struct sfc_stats *sfc_dp_stats(const struct sfc_dp *dp);

const char *sfc_drop_name(enum sfc_drop d);
const char *sfc_lost_name(enum sfc_lost l);

#endif /* SFC_DP_H */
