/* SPDX-License-Identifier: BSD-3-Clause */
/* node_stats.h - the node's counters, gauges and snapshot, and the table naming them; no DPDK. */
#ifndef NODE_STATS_H
#define NODE_STATS_H

#include <stdint.h>

#include "ebf_counters.h"
#include "ebf_hist.h"
#include "ebf_idset.h"
#include "ebf_lcore_stats.h"
#include "ebf_port_stats.h"
#include "ebf_proto.h"
#include "node_store_stats.h"

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

/* The ack status bit (EBF_ACKS_*) of v. */
static inline uint8_t node_verify_bit(enum node_verify v)
{
    static const uint8_t bit[] = {
#define NODE_VERIFY_BIT(n, s, b) b,
        NODE_FOREACH_VERIFY(NODE_VERIFY_BIT)
#undef NODE_VERIFY_BIT
    };
    return bit[v];
}

/* Events the trigger plug-in did not decide, each rejected and counted by
 * reason (a slow decide is decided, and counted besides). */
#define NODE_FOREACH_TRIGGER_FAIL(X)                                          \
    X(ERROR, "trigger_error")        /* decide returned nonzero */            \
    X(VIEW_OVERFLOW, "view_overflow") /* more pieces or frames than the view holds */

enum node_trigger_fail {
#define NODE_TF_ENUM(n, s) NODE_TF_##n,
    NODE_FOREACH_TRIGGER_FAIL(NODE_TF_ENUM)
#undef NODE_TF_ENUM
    NODE_TF_MAX
};

struct node_stats {
    uint64_t rx_frames, rx_bytes;
    uint64_t reject[EBF_R_MAX];  /* event frames that failed to parse */
    uint64_t piece_reject[EBF_R_MAX];    /* pieces inside event frames */
    uint64_t wrong_type;         /* not an event frame */
    uint64_t no_slot;            /* an event beyond the credits granted */
    uint64_t dup_frames;         /* frames of an event already decided */
    uint64_t relinks;            /* the link came back after a restart: credits granted anew */
    uint64_t dup_events;         /* events sent again after their decision: re-acked
                                  * with that decision, never decided twice */
    uint64_t events, accepted, rejected, incomplete;
    uint64_t trigger_fail[NODE_TF_MAX];  /* rejected: the plug-in did not decide */
    uint64_t trigger_slow;       /* decide took longer than trigger_timeout_ms */
    uint64_t verify[NODE_V_MAX];
    uint64_t events_bad;         /* events with any verify error */
    uint64_t bad_coverage;       /* of them: a byte of a fragment covered twice (a hole besides) */
    uint64_t stopped_partial;    /* events still partial when the run ended */
    uint64_t payload_bytes;
    uint64_t acks_sent, credit_frames, credits_granted, heartbeats, tx_refused;
    uint64_t tx_no_room;         /* credit frames not built: no room in the mbuf */
    uint64_t decided_digest;     /* sum of ebf_mix64(id) over decided events */
    struct ebf_idset acked_ids;  /* the ledger's record of the ids this node acked:
                                  * each decision once, plus each re-ack */
    struct ebf_hist e2e_ns;      /* readout transmit -> decided */
};

struct node_gauges {
    uint32_t events_in_progress; /* slots holding a partial event */
    uint32_t acks_pending;       /* decided, ack not yet sent */
    uint32_t credits;            /* slots granted in all */
    uint32_t epoch;
    uint32_t pool_in_use;
};

/* What the lcore copies for the control thread. */
struct node_snap {
    struct node_stats st;
    struct node_gauges g;
    struct ebf_port_stats port;
    struct ebf_lcore_stats lcore;   /* the poll loop's busy and idle cycles */
    struct node_store_stats store;  /* storage of accepted events; all 0 when off */
    int link_up, running, paused;
    /* The ledger after an SFC's death (docs/protocol.md 13.6): the ids
     * decided at or above the release watermark the farm tool gave, and
     * which of them were accepted; empty when none was given. */
    struct ebf_idset after_ids, after_accepted;
    uint64_t after_digest;       /* sum of ebf_mix64 over after_ids */
    uint64_t after_evicted;      /* 1: the window may have lost some of them */
    uint64_t after_marks;        /* marks taken while the run went on (SFC restarts) */
};

/*
 * The node's metrics: X(ID, SHAPE, name, field of struct node_snap, args,
 * flags, help), lib/ebf_counters.h. The port counters come from the port
 * table (lib/ebf_port_stats.h), labelled port="sfc", the poll loop's
 * cycles from the lcore table (lib/ebf_lcore_stats.h).
 */
#define NODE_FOREACH_COUNTER(X)                                                                    \
    X(RX_FRAMES, C, "rx.frames", st.rx_frames, (), 0, "Frames read from the node's port.")         \
    X(RX_BYTES, C, "rx.bytes", st.rx_bytes, (), 0,                                                 \
      "Bytes of the frames read from the node's port.")                                            \
    X(RX_REJECT, CA, "rx.reject", st.reject, ("reason", 1, node_reason_label), EBF_CF_SUM,         \
      "Frames that failed to parse, by reason.")                                                   \
    X(PIECE_REJECT, CA, "piece.reject", st.piece_reject, ("reason", 1, node_reason_label), 0,      \
      "Pieces inside event frames that failed to parse, by reason.")                               \
    X(DROP_WRONG_TYPE, CL, "rx.drop", st.wrong_type, ("reason", "wrong_type"), 0,                  \
      "Frames dropped after parsing, by reason.")                                                  \
    X(DROP_NO_SLOT, CL, "rx.drop", st.no_slot, ("reason", "no_slot"), 0,                           \
      "Frames dropped after parsing, by reason.")                                                  \
    X(DROP_DUP_FRAMES, CL, "rx.drop", st.dup_frames, ("reason", "dup_frames"), 0,                  \
      "Frames dropped after parsing, by reason.")                                                  \
    X(EVENTS, C, "events", st.events, (), EBF_CF_SUM, "Events the node decided.")                  \
    X(ACCEPTED, C, "accepted", st.accepted, (), EBF_CF_SUM,                                        \
      "Events the node's trigger accepted.")                                                       \
    X(REJECTED, C, "rejected", st.rejected, (), EBF_CF_SUM,                                        \
      "Events the node's trigger rejected.")                                                       \
    X(INCOMPLETE, C, "incomplete", st.incomplete, (), EBF_CF_SUM,                                  \
      "Decided events that came flagged incomplete.")                                              \
    X(TRIGGER_FAIL, CA, "trigger.fail", st.trigger_fail, ("reason", 0, node_trigger_fail_label), \
      EBF_CF_SUM, "Events the trigger plug-in did not decide (rejected), by reason.")             \
    X(TRIGGER_SLOW, C, "trigger.slow", st.trigger_slow, (), EBF_CF_SUM,                            \
      "Decisions that took longer than trigger_timeout_ms.")                                       \
    X(VERIFY, CA, "verify", st.verify, ("check", 0, node_verify_label), EBF_CF_SUM,                \
      "Events failing a verification check, by check.")                                            \
    X(EVENTS_BAD, C, "events_bad", st.events_bad, (), EBF_CF_SUM,                                  \
      "Events with any verification error.")                                                       \
    X(BAD_COVERAGE, C, "verify.bad_coverage", st.bad_coverage, (), 0,                              \
      "Events with a byte of a fragment covered twice (counted under verify bad_sources too).")    \
    X(STOPPED_PARTIAL, C, "stopped_partial", st.stopped_partial, (), 0,                            \
      "Events still partial when the run ended.")                                                  \
    X(PAYLOAD_BYTES, C, "payload_bytes", st.payload_bytes, (), 0,                                  \
      "Fragment payload bytes the node verified.")                                                 \
    X(ACKS_SENT, C, "acks_sent", st.acks_sent, (), 0, "Acks the node sent to its SFC.")            \
    X(CREDIT_FRAMES, C, "credit_frames", st.credit_frames, (), 0,                                  \
      "Credit frames the node sent to its SFC.")                                                   \
    X(CREDITS_GRANTED, C, "credits_granted", st.credits_granted, (), 0,                            \
      "Credits the node granted its SFC.")                                                         \
    X(HEARTBEATS, C, "heartbeats", st.heartbeats, (), 0,                                           \
      "Empty credit frames sent when the node was silent.")                                        \
    X(TX_REFUSED, C, "tx_refused", st.tx_refused, (), 0,                                           \
      "Credit frames the port refused at first try (retried).")                                    \
    X(TX_NO_ROOM, C, "tx_no_room", st.tx_no_room, (), 0,                                           \
      "Credit frames not built: the mbuf had no room for them (retried).")                         \
    X(DECIDED_DIGEST, C, "decided_digest", st.decided_digest, (), EBF_CF_RUN,                      \
      "Sum of mix64(id) over decided events.")                                                     \
    X(RELINKS, C, "relinks", st.relinks, (), 0,                                                    \
      "Times the link to the SFC came back after it was down (a restarted SFC): credits anew.")  \
    X(DUP_EVENTS, C, "dup_events", st.dup_events, (), 0,                                           \
      "Events sent again after their decision: re-acked, never decided twice.")                    \
    X(LEDGER_ACKS, I, "ledger.acks", st.acked_ids, (), EBF_CF_RUN,                                 \
      "Id record of the acks the node sent (docs/protocol.md, Ledger).")                           \
    X(LEDGER_AFTER, I, "ledger.acks_after_release", after_ids, (), EBF_CF_RUN,                     \
      "Id record of the decisions at or above the release watermarks given (13.6).")      \
    X(LEDGER_AFTER_ACCEPTED, I, "ledger.accepted_after_release", after_accepted, (), EBF_CF_RUN,   \
      "Id record of the accepted ones among ledger.acks_after_release.")                          \
    X(LEDGER_AFTER_DIGEST, C, "ledger.after_release_digest", after_digest, (), EBF_CF_RUN,         \
      "Sum of mix64(id) over ledger.acks_after_release.")                                          \
    X(LEDGER_AFTER_EVICTED, C, "ledger.after_release_evicted", after_evicted, (), EBF_CF_RUN,      \
      "1 when ids 65536 or more above the watermark were decided: the record may lack some.")    \
    X(LEDGER_MARKS, C, "ledger.marks", after_marks, (), EBF_CF_RUN,                               \
      "Watermarks taken while the run went on (an SFC restarted): their records are in "         \
      "ledger.acks_after_release.")                                                                \
    X(EVENTS_IN_PROGRESS, G, "events_in_progress", g.events_in_progress, (), 0,                    \
      "Event slots holding a partial event.")                                                      \
    X(ACKS_PENDING, G, "acks_pending", g.acks_pending, (), 0,                                      \
      "Decided events whose ack is not sent yet.")                                                 \
    X(CREDITS, G, "credits", g.credits, (), 0, "Event slots the node has granted in all.")         \
    X(EPOCH, G, "epoch", g.epoch, (), 0, "The node's epoch in this run.")                          \
    X(MEMPOOL_IN_USE, G, "mempool_in_use", g.pool_in_use, (), 0, "Mbufs in use, by pool.")         \
    X(LINK_UP, G, "link_up", link_up, (), 0, "1 when the port's link is up.")                      \
    X(PAUSED, G, "paused", paused, (), 0, "1 while the run is paused.")                            \
    X(E2E_NS, H, "e2e_ns", st.e2e_ns, (), 0,                                                       \
      "Time from the readout's transmit timestamp to the node's decision.")                         \
    NODE_FOREACH_STORE_COUNTER(X)

/* The storage's entries (docs/storage.md), part of the node's table. */
#define NODE_FOREACH_STORE_COUNTER(X)                                                              \
    X(STORE_ON, C, "store.on", store.on, (), 0,                                                     \
      "1 when the node stores accepted events (a flag, kept with the final counters).")         \
    X(STORE_ACCEPTED, CA, "store.accepted", store.accepted, ("stream", 0, NULL),                   \
      EBF_CF_SKIP0, "Accepted events handed to storage (stored or lost), by stream.") \
    X(STORE_EVENTS, CA, "store.events", store.events, ("stream", 0, NULL),                         \
      EBF_CF_SKIP0, "Events written to storage files, by stream.")                   \
    X(STORE_BYTES, CA, "store.bytes", store.bytes, ("stream", 0, NULL), EBF_CF_SKIP0,              \
      "Record bytes written to storage files, by stream.")                                         \
    X(STORE_LOST_STREAM, CA, "store.lost_stream", store.lost_stream, ("stream", 0, NULL),          \
      EBF_CF_SKIP0, "Accepted events lost at storage, by stream.")                   \
    X(STORE_LOST, CA, "store.lost", store.lost, ("reason", 0, node_store_lost_label),              \
      EBF_CF_SKIP0, "Accepted events lost at storage, by reason.")                   \
    X(STORE_FILES, C, "store.files", store.files, (), 0, "Storage files opened.")         \
    X(STORE_FILES_CLOSED, C, "store.files_closed", store.files_closed, (), 0,                      \
      "Storage files closed with their trailer.")                                                  \
    X(STORE_BLOCKS, C, "store.blocks", store.blocks, (), 0,                                        \
      "Blocks written to storage files (one write each).")                                         \
    X(STORE_WAITS, C, "store.waits", store.waits, (), 0,                                  \
      "Accepted events that waited for a free storage block (back-pressure).")                      \
    X(STORE_BACKPRESSURE_NS, C, "store.backpressure_ns", store.backpressure_ns, (), EBF_CF_RUN, \
      "Time with accepted events waiting for storage, credits withheld, ns.")                      \
    X(STORE_WRITE_NS, H, "store.write_ns", store.write_ns, (), 0,                                  \
      "Time one storage block's write took.")                                                      \
    X(STORE_QUEUE, G, "store.queue_blocks", store.queue_blocks, (), 0,                             \
      "Storage blocks queued for the writer.")                                                     \
    X(STORE_FREE, G, "store.free_blocks", store.free_blocks, (), 0,                                \
      "Storage blocks free for the receive lcore.")                                                \
    X(STORE_WAITING, G, "store.waiting", store.waiting, (), 0,                                     \
      "Accepted events waiting for a storage block.")                                              \
    X(STORE_FAILED, C, "store.failed", store.failed, (), 0,                                        \
      "1 once a storage write failed (the node is in ERROR; a flag, kept with the final counters).")

enum node_counter_id {
#define NODE_COUNTER_ID(id, ...) NODE_M_##id,
    NODE_FOREACH_COUNTER(NODE_COUNTER_ID)
#undef NODE_COUNTER_ID
    NODE_M_MAX
};

extern const struct ebf_counter_table node_counter_table;

/* The node's tables, NULL-terminated: its own, the port counters, the lcore cycles. */
extern const struct ebf_counter_table *const node_counter_tables[];

/* The metric name of an entry: NODE_NAME(EVENTS) is "events". */
#define NODE_NAME(id) (node_counter_table.c[NODE_M_##id].name)

/* The node's metric list from a snapshot: the table, then its port
 * (port="sfc"), then the lcore cycles. Control thread, or main after the run. */
void node_metrics(const void *snap, struct ebf_metrics *ms);

/* Names of the trigger failure reasons ("trigger_error", ...). */
const char *node_trigger_fail_name(unsigned r);

/* Names of the verify counters ("bad_crc", ...). */
const char *node_verify_name(unsigned v);

#endif /* NODE_STATS_H */
