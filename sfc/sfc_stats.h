/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_stats.h - the SFC's counters, gauges and snapshot, and the table that names them; no DPDK. */
#ifndef SFC_STATS_H
#define SFC_STATS_H

#include <stdint.h>

#include "ebf_counters.h"
#include "ebf_hist.h"
#include "ebf_idset.h"
#include "ebf_lcore_stats.h"
#include "ebf_port_stats.h"
#include "ebf_proto.h"

#define SFC_MAX_NODES 64

/* Frames dropped by the SFC itself (after they parsed), by reason. */
#define SFC_FOREACH_DROP(X)                                                   \
    X(NOT_FOR_US, "not_for_us")         /* destination MAC is not ours */     \
    X(NOT_UNICAST, "not_unicast")       /* to a broadcast or multicast MAC */ \
    X(FOREIGN_SOURCE, "foreign_source") /* from no readout of --readout-mac */ \
    X(SOURCE_SPOOFED, "source_spoofed") /* its source is bound to another MAC */ \
    X(WRONG_TYPE, "wrong_type")         /* not a fragment on the rx port */   \
    X(MULTISEG, "multiseg")             /* frame in several mbufs */          \
    X(DUPLICATE, "duplicate")           /* piece already held */              \
    X(DUPLICATE_SENT, "duplicate_sent") /* its source already delivered */    \
    X(LATE, "late")                     /* a source its sent event lacked */  \
    X(STALE, "stale")                   /* id older than the done window */   \
    X(REFUSED_EVENT, "refused_event")   /* its event was refused */           \
    X(LEN_MISMATCH, "len_mismatch")     /* fragment length changed */         \
    X(OVERSIZE, "oversize")             /* frame past the MTU, or piece past an event frame's room */ \
    X(EVENT_TOO_BIG, "event_too_big")   /* event past --max-event or 65,535 frames */ \
    X(NO_RECORD, "no_record")           /* no frame record left */            \
    X(PARTIAL_AT_TIMEOUT, "partial_at_timeout") /* source incomplete */       \
    X(UNKNOWN_NODE, "unknown_node")     /* credit frame from a stranger */    \
    X(DIST_RING_FULL, "dist_ring_full") /* shared port: its worker's ring full */ \
    X(DIST_LEFT, "dist_left")           /* in its worker's ring at the stop */

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

/* Per-source sequence accounting of the fragment frames received. */
struct sfc_seq_stats {
    uint64_t gap[EBF_MAX_SOURCES];      /* frames skipped by the sequence */
    uint64_t reorder[EBF_MAX_SOURCES];  /* skipped frames that came later */
    uint64_t dup[EBF_MAX_SOURCES];      /* a sequence number seen before */
    uint64_t resync[EBF_MAX_SOURCES];   /* numbers beyond the window: not gaps */
};

struct sfc_stats {
    uint64_t rx_frames, rx_bytes;
    uint64_t rx_verified;        /* fragment frames whose CRC was checked (--verify) */
    uint64_t reject[EBF_R_MAX];  /* parse failures by reason */
    uint64_t drop[SFC_DROP_MAX];
    uint64_t lost[SFC_LOST_MAX];
    uint64_t lost_digest;        /* sum of ebf_mix64(id) over lost events */
    uint64_t events_complete, events_incomplete;
    uint64_t events_sent, frames_tx, bytes_tx, tx_refused, clone_fail;
    uint64_t tx_queue_full;      /* a node passed over: its port's queue had no room */
    uint64_t credit_frames, credits_granted, credits_clamped;
    uint64_t acks, acked_accept, acked_reject, ack_unknown, ack_status_errors;
    uint64_t backpressure_polls;
    uint64_t link_rx_cycles;     /* TSC cycles in the readout ports' receive bursts that got frames */
    uint64_t link_tx_cycles;     /* in the node ports' transmit bursts that sent frames */
    uint64_t dist_handed;        /* shared port: frames worker 0 handed to other workers */
    uint64_t dist_held;          /* shared port: polls that left it unread, a worker's ring full */
    uint64_t missing_by_source[EBF_MAX_SOURCES];
    uint64_t late_by_source[EBF_MAX_SOURCES];   /* rx.drop.late by source */
    uint64_t last_by_source[EBF_MAX_SOURCES];   /* source whose piece completed an event */
    uint64_t next_by_source[EBF_MAX_SOURCES];   /* 1 + the highest event id of a valid
                                                 * fragment of the source; 0: none */
    struct sfc_seq_stats seq;
    uint64_t throttle_on, throttle_off;         /* transitions */
    uint64_t throttle_frames, throttle_tx_fail; /* frames sent to readouts, refused */
    uint64_t release_frames, release_tx_fail;   /* release frames (failover on) */
    uint64_t release_link_down;                 /* not sent: the readout's link is down */
    uint64_t release_leaves, release_joins;     /* drains and joins announced */
    uint64_t release_low;        /* the low of the last release round */
    uint64_t release_epoch;      /* this SFC's epoch (docs/protocol.md 13.2) */
    uint64_t replay_pieces;      /* pieces flagged EBF_FRAGF_REPLAY taken */
    uint64_t replay_dup;         /* replayed pieces of events already finished */
    uint64_t replay_fence_dup;   /* of them, events of this SFC's own fence record: out of it */
    uint64_t replay_partial;     /* events with a replayed piece dropped at their timeout */
    uint64_t replay_waits;       /* replayed events kept past their timeout for a late
                                  * readout's replay (counted once each) */
    uint64_t replay_wait_cap;    /* of replay_partial: dropped at the 5 s cap, no replay end */
    uint64_t replay_ended;       /* of replay_partial: proven decided by replay ends */
    uint64_t replay_unsound;     /* replayed events built incomplete for pieces lost on the
                                  * way (every missing source's readout sent a piece) that
                                  * rules 1 to 3 alone would drop as decided or keep */
    uint64_t replay_ends;        /* replay ends taken from the readouts */
    uint64_t replay_end_refused; /* replay ends refused (a source not the sender's, a place
                                  * at or above SFC_END_PLACES) */
    uint64_t replay_end_ring_full;   /* replay ends worker 0 could not hand to a worker:
                                      * its ring full (that worker's kept events wait) */
    uint64_t replay_fenced;      /* events dropped by a fence (the loop stopped too long) */
    uint64_t fences;             /* fences: new epochs after a stopped loop */
    uint64_t fence_notices;      /* of them, after readouts' dead notices */
    uint64_t release_notices;    /* dead notices taken from the readouts */
    uint64_t release_muted;      /* rounds not sent: the fault action mute */
    uint64_t release_stalls;     /* the fault action stall: stops in a round */
    uint64_t fence_frames;       /* frames from before a pause, discarded by a fence */
    uint64_t fence_held;         /* release rounds whose low a fence's hold kept down */
    uint64_t throttle_spared;    /* "off" frames to a readout behind the others while on */
    uint64_t nodes_dead;         /* nodes declared dead (timeout or new epoch) */
    uint64_t redispatched;       /* events taken back from a dead node */
    uint64_t late_acks;          /* acks from a dead node or an old epoch, ignored */
    uint64_t late_accepted;      /* of late_acks, the accepts (stored twice with storage) */
    uint64_t rejoins;            /* nodes back with a new epoch (restarted) */
    uint64_t revived;            /* dead nodes heard again with the same epoch */
    uint64_t acked_incomplete;   /* acked events that were incomplete */
    uint64_t acked_digest;       /* sum of ebf_mix64(id) over acked events */
    uint64_t late_ack_digest;    /* the same over late acks */
    uint64_t fence_acked_accept; /* of ledger_fence_acked, the accepted ones */
    uint64_t fence_acked_digest; /* sum of ebf_mix64(id) over ledger_fence_acked */
    uint64_t fence_overflow;     /* fences whose record may lack acks (too many per round) */
    struct ebf_idset ledger_acked;   /* ids of acked events: decided, once each */
    struct ebf_idset ledger_lost;    /* ids of lost events */
    struct ebf_idset ledger_late;    /* ids of late acks (decided again elsewhere) */
    struct ebf_idset ledger_replay_acked;   /* ids of acked events built with a replayed piece */
    struct ebf_idset ledger_fence_acked;    /* ids acked that the readouts replay after a
                                             * fence: at a node then, or acked at or above
                                             * the last release round's low before it */
    uint64_t node_sent[SFC_MAX_NODES], node_acked[SFC_MAX_NODES];
    uint64_t payload_bytes_sent; /* fragment bytes in dispatched events */
    struct ebf_hist build_ns;    /* readout transmit of the first piece -> complete
                                  * (sfc_lat.h) */
    struct ebf_hist build_timeout_ns; /* the same, to the timeout of an incomplete event */
    struct ebf_hist dispatch_ns; /* ready -> sent */
    struct ebf_hist ack_ns;      /* sent -> acked */
};

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
    uint64_t leave_at;           /* drained: the leave id announced; 0: not drained */
    uint64_t join_at;            /* the last join id announced; 0: none */
};

/* What the lcore copies for the control thread. */
struct sfc_snap {
    struct sfc_stats st;
    struct sfc_gauges g;
    uint64_t rx_pool_in_use;
    struct ebf_port_stats port;                 /* the readout port */
    struct ebf_port_stats node_port[SFC_MAX_NODES];  /* node i's port, when node_port_own[i] */
    uint8_t node_port_own[SFC_MAX_NODES];       /* 1: node i is the first node on its port */
    struct ebf_lcore_stats lcore;               /* the poll loop's busy and idle cycles */
    int link_up, running, paused;
};

/*
 * The SFC's metrics: X(ID, SHAPE, name, field of struct sfc_snap, args,
 * flags, help), lib/ebf_counters.h. The port counters come from the port
 * table (lib/ebf_port_stats.h), labelled port="readout" and port="node<i>",
 * the poll loop's cycles from the lcore table (lib/ebf_lcore_stats.h).
 */
#define SFC_FOREACH_COUNTER(X)                                                                     \
    X(RX_FRAMES, C, "rx.frames", st.rx_frames, (), EBF_CF_SUM,                                     \
      "Frames read from the readout port.")                                                        \
    X(RX_BYTES, C, "rx.bytes", st.rx_bytes, (), 0,                                                 \
      "Bytes of the frames read from the readout port.")                                           \
    X(RX_VERIFIED, C, "rx.verified", st.rx_verified, (), 0,                                        \
      "Fragment frames whose CRC the SFC checked (all of them with --verify full).")               \
    X(RX_REJECT, CA, "rx.reject", st.reject, ("reason", 1, sfc_reason_label), EBF_CF_SUM,          \
      "Frames that failed to parse, by reason.")                                                   \
    X(RX_DROP, CA, "rx.drop", st.drop, ("reason", 0, sfc_drop_label), EBF_CF_SUM,                  \
      "Frames dropped after parsing, by reason.")                                                  \
    X(LOST, CA, "lost", st.lost, ("reason", 0, sfc_lost_label), 0,                                 \
      "Events the SFC lost, by reason: its part of the ledger.")                                   \
    X(LOST_DIGEST, C, "lost_digest", st.lost_digest, (), EBF_CF_RUN,                               \
      "Sum of mix64(id) over lost events.")                                                        \
    X(EVENTS_COMPLETE, C, "events.complete", st.events_complete, (), EBF_CF_SUM,                   \
      "Events the SFC built with every source.")                                                   \
    X(EVENTS_INCOMPLETE, C, "events.incomplete", st.events_incomplete, (), EBF_CF_SUM,             \
      "Events the SFC delivered without some source.")                                             \
    X(EVENTS_SENT, C, "events.sent", st.events_sent, (), EBF_CF_SUM,                               \
      "Built events the SFC sent to nodes.")                                                       \
    X(TX_FRAMES, C, "tx.frames", st.frames_tx, (), EBF_CF_SUM,                                     \
      "Event frames the SFC sent to nodes.")                                                       \
    X(TX_BYTES, C, "tx.bytes", st.bytes_tx, (), 0,                                                 \
      "Bytes of the event frames the SFC sent to nodes.")                                          \
    X(TX_REFUSED, C, "tx.refused", st.tx_refused, (), 0,                                           \
      "Frames a node port refused at first try (retried); each frame counted once.")               \
    X(TX_QUEUE_FULL, C, "tx.queue_full", st.tx_queue_full, (), 0,                                  \
      "Times a node with credit was passed over: its port's queue had no room.")                   \
    X(TX_CLONE_FAIL, C, "tx.clone_fail", st.clone_fail, (), 0,                                     \
      "Zero-copy clones not made for lack of mbufs (retried).")                                    \
    X(TX_PAYLOAD_BYTES, C, "tx.payload_bytes", st.payload_bytes_sent, (), 0,                       \
      "Fragment payload bytes the SFC sent to nodes.")                                             \
    X(CREDIT_FRAMES, C, "credit.frames", st.credit_frames, (), 0,                                  \
      "Credit frames received from nodes.")                                                        \
    X(CREDIT_GRANTED, C, "credit.granted", st.credits_granted, (), 0,                              \
      "Credits nodes granted.")                                                                    \
    X(CREDIT_CLAMPED, C, "credit.clamped", st.credits_clamped, (), 0,                              \
      "Credits refused beyond max_credits.")                                                       \
    X(ACK_EVENTS, C, "ack.events", st.acks, (), EBF_CF_SUM,                                        \
      "Events acked by nodes.")                                                                    \
    X(ACK_ACCEPT, C, "ack.accept", st.acked_accept, (), 0,                                         \
      "Acked events the node's trigger accepted.")                                                 \
    X(ACK_REJECT, C, "ack.reject", st.acked_reject, (), 0,                                         \
      "Acked events the node's trigger rejected.")                                                 \
    X(ACK_UNKNOWN, C, "ack.unknown", st.ack_unknown, (), 0,                                        \
      "Acks for no event the SFC holds.")                                                          \
    X(ACK_STATUS_ERRORS, C, "ack.status_errors", st.ack_status_errors, (), 0,                      \
      "Acks reporting a verification error.")                                                      \
    X(BACKPRESSURE_POLLS, C, "backpressure_polls", st.backpressure_polls, (), 0,                   \
      "Polls that left the readout port unread: the table or records were at 3/4.")                \
    X(LINK_RX_CYCLES, C, "link.rx_cycles", st.link_rx_cycles, (), 0,                               \
      "TSC cycles of the readout ports' receive bursts that got frames (the link's copy in).")     \
    X(LINK_TX_CYCLES, C, "link.tx_cycles", st.link_tx_cycles, (), 0,                               \
      "TSC cycles of the node ports' transmit bursts that sent frames (the link's copy out).")     \
    X(DIST_HANDED, C, "dist.handed", st.dist_handed, (), 0,                                        \
      "Frames of a shared port the receiving worker handed to their owner worker.")                \
    X(DIST_HELD, C, "dist.held", st.dist_held, (), 0,                                              \
      "Polls that left a shared port unread: a worker's ring was full.")                           \
    X(MISSING_SOURCE, CA, "missing.source", st.missing_by_source, ("source", 0, NULL),             \
      EBF_CF_SKIP0 | EBF_CF_SUM, "Incomplete events that lacked this source.")                     \
    X(NODE_SENT, CN, "node.sent", st.node_sent, ("node", NULL, g.n_nodes), 0,                      \
      "Events sent to each node.")                                                                 \
    X(NODE_ACKED, CN, "node.acked", st.node_acked, ("node", NULL, g.n_nodes), 0,                   \
      "Events each node acked.")                                                                   \
    X(SEQ_GAP, CA, "seq.gap", st.seq.gap, ("source", 0, NULL), EBF_CF_SKIP0 | EBF_CF_SUM,          \
      "Fragment frames the sequence of this source skipped.")                                      \
    X(SEQ_REORDER, CA, "seq.reorder", st.seq.reorder, ("source", 0, NULL),                         \
      EBF_CF_SKIP0 | EBF_CF_SUM, "Skipped frames of this source that came later.")                 \
    X(SEQ_DUP, CA, "seq.dup", st.seq.dup, ("source", 0, NULL), EBF_CF_SKIP0 | EBF_CF_SUM,          \
      "Sequence numbers of this source seen before.")                                              \
    X(SEQ_RESYNC, CA, "seq.resync", st.seq.resync, ("source", 0, NULL),                            \
      EBF_CF_SKIP0 | EBF_CF_SUM,                                                                   \
      "Sequence numbers of this source beyond the window of the one due (not counted as gaps).")   \
    X(LATE_SOURCE, CA, "late.source", st.late_by_source, ("source", 0, NULL),                      \
      EBF_CF_SKIP0 | EBF_CF_SUM, "Pieces of this source that came after their event was sent.")    \
    X(LAST_SOURCE, CA, "last.source", st.last_by_source, ("source", 0, NULL), EBF_CF_SKIP0,        \
      "Events this source's piece completed (the slowest source).")                                \
    X(NEXT_EVENT_SOURCE, CA, "source.next_event", st.next_by_source, ("source", 0, NULL),          \
      EBF_CF_SKIP0, "1 + the highest event id heard from this source (from which event on\n"      \
      "a readout that died was lost).")                                                            \
    X(THROTTLE_ON, C, "throttle.on", st.throttle_on, (), EBF_CF_SUM,                               \
      "Times the SFC asked the readouts to hold.")                                                 \
    X(THROTTLE_OFF, C, "throttle.off", st.throttle_off, (), EBF_CF_SUM,                            \
      "Times the SFC released the readouts.")                                                      \
    X(THROTTLE_FRAMES, C, "throttle.frames", st.throttle_frames, (), EBF_CF_SUM,                   \
      "Throttle frames the SFC sent to readouts.")                                                 \
    X(THROTTLE_SPARED, C, "throttle.spared", st.throttle_spared, (), 0,                             \
      "Throttle frames that let a readout behind the others go on while the SFC holds\n"        \
      "the rest (its frames complete events the table holds).")                                 \
    X(THROTTLE_TX_FAIL, C, "throttle.tx_fail", st.throttle_tx_fail, (), EBF_CF_SUM,                \
      "Throttle frames the port refused.")                                                         \
    X(RELEASE_FRAMES, C, "release.frames", st.release_frames, (), 0,                              \
      "Release frames sent to readouts (failover on: --release-ms), one per readout a round.")   \
    X(RELEASE_TX_FAIL, C, "release.tx_fail", st.release_tx_fail, (), 0,                           \
      "Release frames the port refused or that found no header mbuf.")                            \
    X(RELEASE_LINK_DOWN, C, "release.link_down", st.release_link_down, (), 0,                     \
      "Release frames not sent because the readout's port was down (a memif link not yet\n"      \
      "connected or whose peer died): the next round supersedes them.")                           \
    X(RELEASE_LEAVES, C, "release.leaves", st.release_leaves, (), 0,                               \
      "Leaves announced (ebfarm drain).")                                                          \
    X(RELEASE_JOINS, C, "release.joins", st.release_joins, (), 0,                                  \
      "Joins announced (ebfarm undrain, a restarted SFC rejoining).")                             \
    X(RELEASE_LOW, C, "release.low", st.release_low, (), 0,                                        \
      "The low watermark of the last release round (docs/protocol.md 13.2).")                     \
    X(RELEASE_EPOCH, C, "release.epoch", st.release_epoch, (), 0,                                  \
      "This SFC's epoch: its start time in seconds (16 bits); a fence moves it on.")           \
    X(REPLAY_PIECES, C, "replay.pieces", st.replay_pieces, (), 0,                                  \
      "Pieces flagged as replayed (0x0002) taken from the readouts.")                             \
    X(REPLAY_DUP, C, "replay.dup", st.replay_dup, (), 0,                                           \
      "Replayed pieces of events already finished here: not built twice.")                        \
    X(REPLAY_FENCE_DUP, C, "replay.fence_dup", st.replay_fence_dup, (), 0,                         \
      "Events of this SFC's fence record replayed back to it: decided once, out of the record.") \
    X(REPLAY_PARTIAL, C, "replay.partial", st.replay_partial, (), 0,                               \
      "Events with a replayed piece that timed out incomplete: dropped, not built.")              \
    X(REPLAY_WAITS, C, "replay.waits", st.replay_waits, (), 0,                                     \
      "Replayed events kept past their timeout: a missing source's readout had not replayed past them.") \
    X(REPLAY_WAIT_CAP, C, "replay.wait_cap", st.replay_wait_cap, (), 0,                            \
      "Of replay.partial: events dropped unproven 5 s after their first wait (a readout sent no replay end).") \
    X(REPLAY_ENDED, C, "replay.ended", st.replay_ended, (), 0,                                     \
      "Of replay.partial: events proven decided by the dead place (every missing readout's replay end).") \
    X(REPLAY_UNSOUND, C, "replay.unsound", st.replay_unsound, (), 0,                               \
      "Replayed events built incomplete: every missing source's readout sent a piece (lost on the way), its replay end no proof.") \
    X(REPLAY_ENDS, C, "replay.ends", st.replay_ends, (), 0,                                        \
      "Replay ends taken from the readouts (docs/protocol.md 13.4.1).")                            \
    X(REPLAY_END_REFUSED, C, "replay.end_refused", st.replay_end_refused, (), 0,                   \
      "Replay ends refused: a source not the sender's, or a place at or above 64.")               \
    X(REPLAY_END_RING_FULL, C, "replay.end_ring_full", st.replay_end_ring_full, (), 0,             \
      "Replay ends worker 0 could not hand to another worker, its ring full (that worker's kept events wait for the cap).") \
    X(REPLAY_FENCED, C, "replay.fenced", st.replay_fenced, (), 0,                                  \
      "Events dropped by a fence (the poll loop stopped for over 80 ms).")         \
    X(FENCE_FRAMES, C, "fence_frames", st.fence_frames, (), 0,                                     \
      "Frames from before a pause, discarded by a fence.")                                         \
    X(FENCE_HELD, C, "fence_held", st.fence_held, (), 0,                                           \
      "Release rounds whose low a fence kept at its own, until the readouts' replays of what it dropped came.") \
    X(FENCES, C, "fences", st.fences, (), 0,                                                       \
      "Fences: the poll loop stopped too long, the SFC dropped what it held and took a new epoch.") \
    X(FENCE_NOTICES, C, "fence_notices", st.fence_notices, (), 0,                                 \
      "Fences after readouts' dead notices: they held the SFC dead while it lived.")              \
    X(RELEASE_MUTED, C, "release.muted", st.release_muted, (), 0,                                 \
      "Release rounds not sent: the test fault action 'mute'.")                                   \
    X(RELEASE_STALLS, C, "release.stalls", st.release_stalls, (), 0,                               \
      "Stops of the loop within a release round: the test fault action 'stall'.")                  \
    X(RELEASE_NOTICES, C, "release.notices", st.release_notices, (), 0,                           \
      "Dead notices taken from readouts (release frames with flag DEAD for this epoch).")         \
    X(NODE_DECLARED_DEAD, C, "node.declared_dead", st.nodes_dead, (), 0,                           \
      "Nodes declared dead (silent past node_timeout_ms, or back with a new epoch).")              \
    X(NODE_REDISPATCHED, C, "node.redispatched", st.redispatched, (), 0,                           \
      "Events taken back from a dead node and sent again.")                                        \
    X(NODE_REJOINS, C, "node.rejoins", st.rejoins, (), 0,                                          \
      "Nodes back with a new epoch (restarted).")                                                  \
    X(NODE_REVIVED, C, "node.revived", st.revived, (), 0,                                          \
      "Dead nodes heard again with the same epoch.")                                               \
    X(ACK_LATE_DEAD, C, "ack.late_dead", st.late_acks, (), 0,                                      \
      "Acks from a dead node or an old epoch, ignored.")                                           \
    X(ACK_LATE_ACCEPTED, C, "ack.late_accepted", st.late_accepted, (), 0,                          \
      "Of ack.late_dead, the accepts: a storing node stored those events too.")                    \
    X(ACK_INCOMPLETE, C, "ack.incomplete", st.acked_incomplete, (), 0,                             \
      "Acked events that were incomplete.")                                                        \
    X(ACKED_DIGEST, C, "acked_digest", st.acked_digest, (), EBF_CF_RUN,                            \
      "Sum of mix64(id) over acked events.")                                                       \
    X(LATE_ACK_DIGEST, C, "late_ack_digest", st.late_ack_digest, (), EBF_CF_RUN,                   \
      "Sum of mix64(id) over late acks.")                                                          \
    X(LEDGER_ACKED, I, "ledger.acked", st.ledger_acked, (), EBF_CF_RUN,                            \
      "Id record of the acked events (docs/protocol.md, Ledger).")                                 \
    X(LEDGER_LOST, I, "ledger.lost", st.ledger_lost, (), EBF_CF_RUN,                               \
      "Id record of the lost events.")                                                             \
    X(LEDGER_LATE, I, "ledger.late", st.ledger_late, (), EBF_CF_RUN,                               \
      "Id record of the late acks.")                                                               \
    X(LEDGER_REPLAY_ACKED, I, "ledger.replay_acked", st.ledger_replay_acked, (), EBF_CF_RUN,       \
      "Id record of the acked events built with a replayed piece (docs/protocol.md 13.7).")       \
    X(LEDGER_FENCE_ACKED, I, "ledger.fence_acked", st.ledger_fence_acked, (), EBF_CF_RUN,          \
      "Id record of the acks a fence leaves to be decided again: at a node at the fence, or "     \
      "acked at or above the last release round's low before it (docs/protocol.md 13.6).")        \
    X(FENCE_ACKED_ACCEPT, C, "ledger.fence_acked_accept", st.fence_acked_accept, (), EBF_CF_RUN,  \
      "Accepted events in ledger.fence_acked.")                                                    \
    X(FENCE_ACKED_DIGEST, C, "ledger.fence_acked_digest", st.fence_acked_digest, (), EBF_CF_RUN,  \
      "Sum of mix64(id) over ledger.fence_acked.")                                                 \
    X(FENCE_OVERFLOW, C, "ledger.fence_overflow", st.fence_overflow, (), EBF_CF_RUN,              \
      "Fences whose ledger.fence_acked may lack acks (over 131072 acks above the low).")          \
    X(EVENTS_BUILDING, G, "events_building", g.building, (), 0,                                    \
      "Events being built in the SFC's event table.")                                              \
    X(READY_QUEUE, G, "ready_queue", g.ready, (), 0,                                               \
      "Built events waiting for a node credit.")                                                   \
    X(EVENTS_UNACKED, G, "events_unacked", g.unacked, (), 0,                                       \
      "Events sent to nodes and not acked yet.")                                                   \
    X(TABLE_FREE, G, "table_free", g.free_slots, (), 0,                                            \
      "Free event slots.")                                                                         \
    X(RECORDS_FREE, G, "records_free", g.free_records, (), 0,                                      \
      "Free frame records.")                                                                       \
    X(NODE_CREDITS, GN, "node_credits", g.credits, ("node", NULL, g.n_nodes), 0,                   \
      "Credits the SFC holds for each node.")                                                      \
    X(NODE_UNACKED, GN, "node_unacked", g.inflight, ("node", NULL, g.n_nodes), 0,                  \
      "Events the SFC sent to each node and that are not acked yet.")                              \
    X(NODE_ALIVE, GN, "node_alive", g.alive, ("node", NULL, g.n_nodes), 0,                         \
      "1 when the node is alive, 0 when dead or never heard.")                                     \
    X(NODE_EPOCH, GN, "node_epoch", g.epoch, ("node", NULL, g.n_nodes), 0,                         \
      "The epoch each node announced last.")                                                       \
    X(LEAVE_AT, G, "leave_at", g.leave_at, (), 0,                                                  \
      "Drained: the event id from which the readouts send this SFC's share to the others\n"       \
      "(ebfarm drain, docs/protocol.md 13.5); 0 when not drained.")                               \
    X(JOIN_AT, G, "join_at", g.join_at, (), 0,                                                     \
      "The last join id this SFC announced (ebfarm undrain, restart); 0: none.")                  \
    X(THROTTLED, G, "throttled", g.throttled, (), 0,                                               \
      "1 while the SFC asks the readouts to hold.")                                                \
    X(SLOWEST_SOURCE, GMAX, "slowest_source", st.last_by_source, (), 0,                            \
      "The source that most often completed an event last; -1: none.")                             \
    X(MOST_MISSING_SOURCE, GMAX, "most_missing_source", st.missing_by_source, (), 0,               \
      "The source most often missing from incomplete events; -1: none.")                           \
    X(MEMPOOL_RX, GL, "mempool_in_use", rx_pool_in_use, ("pool", "rx"), 0,                         \
      "Mbufs in use, by pool.")                                                                    \
    X(MEMPOOL_HDR, GL, "mempool_in_use", g.hdr_in_use, ("pool", "hdr"), 0,                         \
      "Mbufs in use, by pool.")                                                                    \
    X(MEMPOOL_CLONE, GL, "mempool_in_use", g.clone_in_use, ("pool", "clone"), 0,                   \
      "Mbufs in use, by pool.")                                                                    \
    X(LINK_UP, G, "link_up", link_up, (), 0, "1 when the readout port's link is up.")              \
    X(PAUSED, G, "paused", paused, (), 0, "1 while the run is paused.")                            \
    X(DRAINING, G, "draining", g.draining, (), 0, "1 while the SFC drains at a stop.")             \
    X(BUILD_NS, H, "build_ns", st.build_ns, (), 0,                                                 \
      "Time from the readout's transmit of an event's first piece to its completion at the SFC.")  \
    X(BUILD_TIMEOUT_NS, H, "build_timeout_ns", st.build_timeout_ns, (), 0,                         \
      "Time from the readout's transmit of an event's first piece to its timeout (incomplete).")   \
    X(DISPATCH_NS, H, "dispatch_ns", st.dispatch_ns, (), 0,                                        \
      "Time from an event ready to sent to a node.")                                               \
    X(ACK_NS, H, "ack_ns", st.ack_ns, (), 0, "Time from an event sent to its ack.")

enum sfc_counter_id {
#define SFC_COUNTER_ID(id, ...) SFC_M_##id,
    SFC_FOREACH_COUNTER(SFC_COUNTER_ID)
#undef SFC_COUNTER_ID
    SFC_M_MAX
};

extern const struct ebf_counter_table sfc_counter_table;

/* The SFC's tables, NULL-terminated: its own, the port counters, the lcore cycles. */
extern const struct ebf_counter_table *const sfc_counter_tables[];

/* The metric name of an entry: SFC_NAME(ACK_ACCEPT) is "ack.accept". */
#define SFC_NAME(id) (sfc_counter_table.c[SFC_M_##id].name)

/* The SFC's metric list from a snapshot: the table, then the readout port
 * (port="readout") and each node port once (port="node<i>", i the first
 * node on it), then the lcore cycles. Control thread, or main after the run. */
void sfc_metrics(const void *snap, struct ebf_metrics *ms);

/* An SFC of several workers (sfc_workers.h): into += from. Counters and
 * digests add, id records and histograms merge, the highest event id per
 * source is the higher of the two. */
void sfc_stats_add(struct sfc_stats *into, const struct sfc_stats *from);

/* Gauges of workers serving disjoint nodes: levels and per-node credits add,
 * a node is alive or throttled or draining when any says so, its epoch the
 * highest; the pools are shared, so their use is not added (into's stays). */
void sfc_gauges_add(struct sfc_gauges *into, const struct sfc_gauges *from);

const char *sfc_drop_name(enum sfc_drop d);
const char *sfc_lost_name(enum sfc_lost l);

#endif /* SFC_STATS_H */
