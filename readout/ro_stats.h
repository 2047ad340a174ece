/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_stats.h - the readout's counters and snapshot, and the tables that name them; no DPDK. */
#ifndef RO_STATS_H
#define RO_STATS_H

#include <stdint.h>

#include "ebf_counters.h"
#include "ebf_lcore_stats.h"
#include "ebf_port_stats.h"
#include "ro_fault.h"

#define RO_STATS_MAX_SFCS 64     /* the SFCs one readout sends to (RO_MAX_SFCS) */

struct ro_stats {
    uint64_t events;             /* events whose every frame the port took */
    uint64_t frames;
    uint64_t bytes;              /* frame bytes handed to the port */
    uint64_t payload_bytes;
    uint64_t tx_refused;         /* frames the port refused at first (then retried) */
    uint64_t tx_abandoned;       /* frames given up at a forced stop */
    uint64_t tx_no_room;         /* frames not built: the mbuf had no room for them */
    uint64_t events_abandoned;   /* events cut short by a forced stop */
    uint64_t id_digest;          /* sum of ebf_mix64(id) over events */
    uint64_t first_event, last_event;
    uint64_t next_event;         /* the id after the last event begun: where the run is */
    uint64_t stop_at;            /* the staged stop's common end (action stop_at); 0: none */
    uint64_t start_ns, end_ns;
    uint64_t start_late_ns;      /* the START's instant was this far past on arrival */
    /* What the port received: throttle frames from the SFCs, anything else
     * (freed, counted). The throttle counters are the view's. */
    uint64_t rx_frames;
    uint64_t rx_other;           /* not a throttle frame */
    uint64_t throttle_frames;    /* valid throttle frames, stale ones included */
    uint64_t throttle_on_frames, throttle_off_frames, throttle_stale;
    uint64_t throttle_rejected;  /* throttle frames that failed the parser */
    uint64_t throttle_foreign;   /* throttle frames from no SFC of --sfc-mac */
    uint64_t throttle_holds;     /* times generation was held */
    uint64_t throttle_held_ns;   /* time held, in total */
    uint64_t throttle_held_polls;/* polls that found generation held */
    /* Per SFC, by its place k in --sfc-mac (event e goes to SFC e % n). */
    uint64_t sfc_frames[RO_STATS_MAX_SFCS];     /* frames the port took toward SFC k */
    uint64_t sfc_gone[RO_STATS_MAX_SFCS];       /* 1 once SFC k was given up */
    uint64_t sfc_gone_from[RO_STATS_MAX_SFCS];  /* the first event id not sent to it */
    uint64_t sfcs_gone;          /* SFCs given up (their port refused, silent) */
    uint64_t sfc_gone_frames;    /* frames not sent: their SFC was gone */
    /* Failover on (--replay-mb): release frames and the replay buffer. */
    uint64_t release_frames;     /* accepted release frames */
    uint64_t release_rejected;   /* release frames failing the parser, foreign or stale */
    uint64_t replay_held_bytes, replay_held_events;     /* in the buffer, not released */
    uint64_t replay_peak_bytes;
    uint64_t replay_released;    /* events released by their SFC */
    uint64_t replay_full_polls;  /* polls that found the buffer full: trigger held */
    uint64_t replay_replayed;    /* events sent again after their place died */
    uint64_t replay_dropped;     /* events freed unreleased: the buffer stayed full */
    uint64_t replay_held_ns;     /* trigger time held for room in the buffer */
    uint64_t fo_deaths;          /* places declared dead: silent, or heard at a new epoch */
    uint64_t fo_joins, fo_leaves;   /* joins and leaves applied at their event ids */
    uint64_t fo_join_late;       /* join/leave ids heard after the readout passed them */
    uint64_t fo_unsent_frames;   /* frames toward a place that died while they were refused */
    uint64_t fo_relinks;         /* restarts of a dead place's memif link, to reconnect */
    uint64_t fo_out;             /* bit k: place k routed around now (dead or left) */
    uint64_t fo_join_early;      /* joins applied before their id: every place was out */
    uint64_t fo_recoveries;      /* failovers recovered: the dead places' events replayed */
    uint64_t fo_false_deaths;    /* places declared dead by silence, heard again at that epoch */
    uint64_t fo_notices, fo_notice_fail;    /* dead notices sent to them; refused */
    uint64_t fo_ends, fo_end_fail;          /* replay ends sent to survivors; refused */
    uint64_t fo_recover_ns, fo_recover_max_ns;  /* the last one's time to recover, the longest */
    uint64_t fo_own_stalls;      /* looks after a loop gap over half the bound: not silence */
    uint64_t fo_all_silent;      /* looks that found every routed place silent: no death */
    uint64_t fo_dead_from[RO_STATS_MAX_SFCS];   /* first id routed around place k; UINT64_MAX */
    uint64_t release_low[RO_STATS_MAX_SFCS];    /* the highest low accepted from place k */
};

/* What the lcore copies for the control thread. */
struct ro_snap {
    struct ro_stats st;
    uint64_t mempool_in_use;
    struct ebf_port_stats port;
    struct ebf_lcore_stats lcore;   /* the poll loop's busy and idle cycles */
    int link_up, running, paused;
    int throttled;               /* an SFC holds the readout now */
    int finished;                /* the run generated every event it was asked for */
    double rate;                 /* the run's target, events/s (0: unpaced) */
    int faults;                  /* a fault stage is configured */
    uint16_t n_sources;          /* source ids below this: the readout's top one + 1 */
    uint16_t n_sfcs;
    struct ro_fault_stats fault; /* what the fault stage did */
};

/*
 * The readout's metrics: X(ID, SHAPE, name, field of struct ro_snap, args,
 * flags, help), lib/ebf_counters.h. The port counters come from the port
 * table (lib/ebf_port_stats.h), labelled port="sfc", the poll loop's
 * cycles from the lcore table (lib/ebf_lcore_stats.h); the fault stage's
 * from RO_FOREACH_FAULT_COUNTER, with fault injection only.
 */
#define RO_FOREACH_COUNTER(X)                                                                      \
    X(EVENTS, C, "events", st.events, (), EBF_CF_SUM,                                              \
      "Events whose every frame the readout's port took.")                                         \
    X(FRAMES, C, "frames", st.frames, (), EBF_CF_SUM, "Frames the readout sent.")                  \
    X(BYTES, C, "bytes", st.bytes, (), EBF_CF_SUM, "Bytes of the frames the readout sent.")        \
    X(PAYLOAD_BYTES, C, "payload_bytes", st.payload_bytes, (), 0,                                  \
      "Fragment payload bytes the readout sent.")                                                  \
    X(TX_REFUSED, C, "tx_refused", st.tx_refused, (), EBF_CF_SUM,                                  \
      "Frames the port refused at first try (back-pressure); each was retried.")                   \
    X(TX_ABANDONED, C, "tx_abandoned", st.tx_abandoned, (), EBF_CF_SUM,                            \
      "Frames given up at a forced stop.")                                                         \
    X(TX_NO_ROOM, C, "tx_no_room", st.tx_no_room, (), 0,                                           \
      "Frames not built: the mbuf had no room for them (the run ends).")                           \
    X(EVENTS_ABANDONED, C, "events_abandoned", st.events_abandoned, (), EBF_CF_SUM,                \
      "Events cut short by a forced stop or a lack of mbufs (generated, in the ledger).")          \
    X(ID_DIGEST, C, "id_digest", st.id_digest, (), EBF_CF_RUN,                                     \
      "Sum of mix64(id) over generated ids.")                                                      \
    X(FIRST_EVENT, C, "first_event", st.first_event, (), EBF_CF_RUN, "The run's first event id.")  \
    X(LAST_EVENT, C, "last_event", st.last_event, (), EBF_CF_RUN, "The run's last event id.")      \
    X(NEXT_EVENT, C, "next_event", st.next_event, (), EBF_CF_RUN,                                  \
      "The id after the last event begun (where the run is).")                                     \
    X(STOP_AT, C, "stop_at", st.stop_at, (), EBF_CF_RUN,                                           \
      "The id the staged stop ends the run before (action stop_at); 0: none.")                     \
    X(START_NS, C, "start_ns", st.start_ns, (), EBF_CF_RUN,                                        \
      "Wall clock of the run's first event, ns.")                                                  \
    X(END_NS, C, "end_ns", st.end_ns, (), EBF_CF_RUN, "Wall clock of the run's last event, ns.")   \
    X(START_LATE_NS, C, "start.late_ns", st.start_late_ns, (), EBF_CF_RUN,                         \
      "How far the START's common start instant was past when it arrived, ns (0: in time).")      \
    X(RX_FRAMES, C, "rx.frames", st.rx_frames, (), 0,                                              \
      "Frames the readout's port received (throttle frames from the SFCs, others).")               \
    X(RX_OTHER, C, "rx.other", st.rx_other, (), EBF_CF_SUM,                                        \
      "Received frames that were not throttle frames (freed).")                                    \
    X(THROTTLE_FRAMES, C, "throttle.frames", st.throttle_frames, (), EBF_CF_SUM,                   \
      "Throttle frames heard, stale ones included.")                                               \
    X(THROTTLE_ON_FRAMES, C, "throttle.on_frames", st.throttle_on_frames, (), 0,                   \
      "Throttle frames asking to hold.")                                                           \
    X(THROTTLE_OFF_FRAMES, C, "throttle.off_frames", st.throttle_off_frames, (), 0,                \
      "Throttle frames releasing the hold.")                                                       \
    X(THROTTLE_STALE, C, "throttle.stale", st.throttle_stale, (), EBF_CF_SUM,                      \
      "Throttle frames not newer than the last from that SFC.")                                    \
    X(THROTTLE_REJECTED, C, "throttle.rejected", st.throttle_rejected, (), EBF_CF_SUM,             \
      "Throttle frames that failed the parser.")                                                   \
    X(THROTTLE_FOREIGN, C, "throttle.foreign", st.throttle_foreign, (), 0,                         \
      "Throttle frames from no SFC of --sfc-mac, ignored.")                                        \
    X(THROTTLE_HOLDS, C, "throttle.holds", st.throttle_holds, (), EBF_CF_SUM,                      \
      "Times an SFC held generation.")                                                             \
    X(THROTTLE_HELD_NS, C, "throttle.held_ns", st.throttle_held_ns, (), EBF_CF_SUM | EBF_CF_RUN,   \
      "Time generation was held, ns in all.")                                                      \
    X(THROTTLE_HELD_POLLS, C, "throttle.held_polls", st.throttle_held_polls, (), 0,                \
      "Polls that found generation held.")                                                         \
    X(SFCS_GONE, C, "sfcs_gone", st.sfcs_gone, (), EBF_CF_SUM,                                     \
      "SFCs given up: their port refused every frame, and no throttle frame came, for\n"          \
      "--sfc-timeout-ms, or its link went down.")                                                  \
    X(SFC_GONE_FRAMES, C, "sfc_gone_frames", st.sfc_gone_frames, (), EBF_CF_SUM,                   \
      "Frames not sent because their SFC was gone.")                                               \
    X(RELEASE_FRAMES, C, "release.frames", st.release_frames, (), 0,                               \
      "Release frames accepted from the SFCs (failover on: --replay-mb).")                         \
    X(RELEASE_REJECTED, C, "release.rejected", st.release_rejected, (), 0,                         \
      "Release frames refused: failing the parser, from a MAC not their place's, or stale.")     \
    X(FO_DEATHS, C, "fo.deaths", st.fo_deaths, (), 0,                                              \
      "SFC places declared dead: no release frame for 100 ms, or heard at a new epoch.")         \
    X(FO_JOINS, C, "fo.joins", st.fo_joins, (), 0, "SFC joins applied at their join id.")          \
    X(FO_LEAVES, C, "fo.leaves", st.fo_leaves, (), 0, "SFC leaves applied at their leave id.")     \
    X(FO_JOIN_LATE, C, "fo.join_late", st.fo_join_late, (), 0,                                     \
      "Join or leave ids heard after the readout passed them (ignored).")                          \
    X(FO_JOIN_EARLY, C, "fo.join_early", st.fo_join_early, (), 0,                                 \
      "Joins applied before their id because every SFC place was out.")                           \
    X(FO_OUT, C, "fo.out", st.fo_out, (), 0,                                                       \
      "Bit k set: SFC place k is routed around now (declared dead, or left).")                    \
    X(FO_UNSENT_FRAMES, C, "fo.unsent_frames", st.fo_unsent_frames, (), 0,                         \
      "Frames refused by a place that was then declared dead (their events replayed).")           \
    X(FO_FALSE_DEATHS, C, "fo.false_deaths", st.fo_false_deaths, (), 0,                         \
      "SFC places declared dead by silence, then heard again at the epoch they died in.")         \
    X(FO_NOTICES, C, "fo.notices", st.fo_notices, (), 0,                                         \
      "Dead notices sent to SFCs held dead while alive (they fence and rejoin).")                 \
    X(FO_NOTICE_FAIL, C, "fo.notice_fail", st.fo_notice_fail, (), 0,                             \
      "Dead notices the pool or the port refused (the next frame of the SFC makes another).")     \
    X(FO_ENDS, C, "fo.ends", st.fo_ends, (), 0,                                                   \
      "Replay ends sent to the live SFCs after each replay of a dead place (docs/protocol.md 13.4.1).") \
    X(FO_END_FAIL, C, "fo.end_fail", st.fo_end_fail, (), 0,                                       \
      "Replay ends the pool or the port refused (the survivor's kept events wait out the 5 s cap).") \
    X(FO_RECOVERIES, C, "fo.recoveries", st.fo_recoveries, (), 0,                                 \
      "Failovers recovered: every dead SFC place's unreleased events replayed.")                  \
    X(FO_RECOVER_NS, C, "fo.recover_ns", st.fo_recover_ns, (), EBF_CF_RUN,                        \
      "The last failover's time to recover, ns: from the dead place's last release frame to "     \
      "the end of its replay.")                                                                   \
    X(FO_RECOVER_MAX_NS, C, "fo.recover_max_ns", st.fo_recover_max_ns, (), EBF_CF_RUN,            \
      "The longest failover's time to recover, ns.")                                              \
    X(FO_OWN_STALLS, C, "fo.own_stalls", st.fo_own_stalls, (), 0,                                 \
      "Looks for silent SFCs after a loop gap over half the bound: the gap is not their silence.") \
    X(FO_ALL_SILENT, C, "fo.all_silent", st.fo_all_silent, (), 0,                                 \
      "Looks that found every routed SFC silent at once: none declared dead (docs/protocol.md 13.4).") \
    X(FO_RELINKS, C, "fo.relinks", st.fo_relinks, (), 0,                                          \
      "Restarts of a dead SFC place's memif link, once a second until its SFC is back.")          \
    X(REPLAY_REPLAYED, C, "replay.replayed", st.replay_replayed, (), 0,                           \
      "Events sent again to a live SFC after their SFC died.")                                    \
    X(REPLAY_DROPPED, C, "replay.dropped", st.replay_dropped, (), 0,                              \
      "Events freed unreleased because the replay buffer stayed full (replay_full).")             \
    X(REPLAY_HELD_NS, C, "replay.held_ns", st.replay_held_ns, (), EBF_CF_RUN,                      \
      "Trigger time held because the replay buffer was full, ns.")                                \
    X(REPLAY_HELD_BYTES, C, "replay.held_bytes", st.replay_held_bytes, (), 0,                      \
      "Bytes of events sent and not yet released by their SFC (the replay buffer's level).")     \
    X(REPLAY_HELD_EVENTS, C, "replay.held_events", st.replay_held_events, (), 0,                   \
      "Events sent and not yet released by their SFC.")                                           \
    X(REPLAY_PEAK_BYTES, C, "replay.peak_bytes", st.replay_peak_bytes, (), 0,                      \
      "The replay buffer's highest level, bytes.")                                                \
    X(REPLAY_RELEASED, C, "replay.released", st.replay_released, (), 0,                            \
      "Events released by their SFC's release frames.")                                           \
    X(REPLAY_FULL_POLLS, C, "replay.full_polls", st.replay_full_polls, (), 0,                      \
      "Polls that found the replay buffer full: the trigger held.")                               \
    X(SFC_FRAMES, CN, "sfc.frames", st.sfc_frames, ("sfc", NULL, n_sfcs), EBF_CF_SUM,              \
      "Frames the port took toward each SFC, by its place in --sfc-mac.")                          \
    X(SFC_GONE, CN, "sfc.gone", st.sfc_gone, ("sfc", NULL, n_sfcs), 0,                             \
      "1 once the SFC was given up: nothing more is sent to it.")                                  \
    X(SFC_GONE_FROM, CN, "sfc.gone_from", st.sfc_gone_from, ("sfc", NULL, n_sfcs), 0,              \
      "The first event id not sent to a gone SFC.")                                                \
    X(FO_DEAD_FROM, CN, "fo.dead_from", st.fo_dead_from, ("sfc", NULL, n_sfcs), 0,                 \
      "The first event id routed around a place declared dead (UINT64_MAX: never).")              \
    X(RELEASE_LOW, CN, "release.low", st.release_low, ("sfc", NULL, n_sfcs), 0,                    \
      "The highest release low accepted from each SFC place.")                                    \
    X(MEMPOOL_IN_USE, G, "mempool_in_use", mempool_in_use, (), 0, "Mbufs in use, by pool.")        \
    X(LINK_UP, G, "link_up", link_up, (), 0, "1 when the port's link is up.")                      \
    X(PAUSED, G, "paused", paused, (), 0, "1 while the run is paused.")                            \
    X(THROTTLED, G, "throttled", throttled, (), 0, "1 while an SFC holds the readout.")            \
    X(FINISHED, G, "finished", finished, (), 0,                                                    \
      "1 once the run generated every event it was asked for (run.events).")                       \
    X(RATE_TARGET, G, "rate_target", rate, (), 0, "The run's event rate, events/s (0: unpaced).")

/* One fault kind's counter, "fault.<counter name>" (RO_FOREACH_FAULT_P). */
#define RO_FAULT_KIND_COUNTER_(k, key, ctr, X)                                                     \
    X(k, C, "fault." ctr, fault.n[RO_FK_##k], (), EBF_CF_SUM,                                      \
      "Frames the fault stage gave the fault '" key "'.")

#define RO_FOREACH_FAULT_COUNTER(X)                                                                \
    X(FRAMES_IN, C, "fault.frames_in", fault.frames_in, (), EBF_CF_SUM,                            \
      "Frames that reached the fault stage.")                                                      \
    RO_FOREACH_FAULT_P(RO_FAULT_KIND_COUNTER_, X)                                                  \
    X(SILENCED_FRAMES, C, "fault.silenced_frames", fault.silenced_frames, (), EBF_CF_SUM,          \
      "Frames of a silenced source, freed.")                                                       \
    X(SILENCED_FRAGMENTS, C, "fault.silenced_fragments", fault.silenced_fragments, (),             \
      EBF_CF_SUM, "Fragments the silenced frames were pieces of.")                                 \
    X(DUP_FAILED, C, "fault.dup_failed", fault.dup_failed, (), EBF_CF_SUM,                         \
      "Duplicates not made: the pool was empty.")                                                  \
    X(HOLD_FULL, C, "fault.hold_full", fault.hold_full, (), EBF_CF_SUM,                            \
      "Reorders and delays not done: the hold was full.")                                          \
    X(BURST_GAPS, C, "fault.burst_gaps", fault.burst_gaps, (), EBF_CF_SUM,                         \
      "Pauses taken between bursts.")                                                              \
    X(WITHHELD_EVENTS, C, "fault.withheld_events", fault.withheld_events, (), EBF_CF_SUM,          \
      "Events none of whose frames left intact: lost, reason withheld.")                           \
    X(WITHHELD_DIGEST, C, "fault.withheld_digest", fault.withheld_digest, (), EBF_CF_RUN,          \
      "Sum of mix64(id) over withheld events.")                                                    \
    X(LEDGER_WITHHELD, I, "ledger.withheld", fault.withheld, (), EBF_CF_RUN,                       \
      "Id record of the withheld events (docs/protocol.md, Ledger).")                              \
    X(DROPPED_SOURCE, CN, "fault.dropped.source", fault.dropped_source,                      \
      ("source", NULL, n_sources), EBF_CF_SUM, "Frames dropped by the fault stage, by source.")

enum ro_counter_id {
#define RO_COUNTER_ID(id, ...) RO_M_##id,
    RO_FOREACH_COUNTER(RO_COUNTER_ID)
#undef RO_COUNTER_ID
    RO_M_MAX
};

enum ro_fault_counter_id {
#define RO_FAULT_COUNTER_ID(id, ...) RO_FM_##id,
    RO_FOREACH_FAULT_COUNTER(RO_FAULT_COUNTER_ID)
#undef RO_FAULT_COUNTER_ID
    RO_FM_MAX
};

extern const struct ebf_counter_table ro_counter_table;
extern const struct ebf_counter_table ro_fault_counter_table;

/* The readout's tables, NULL-terminated: its own, the fault stage's, the
 * port counters, the lcore cycles. */
extern const struct ebf_counter_table *const ro_counter_tables[];

/* The metric name of an entry: RO_NAME(EVENTS) is "events",
 * RO_FAULT_NAME(DROP) "fault.dropped". */
#define RO_NAME(id) (ro_counter_table.c[RO_M_##id].name)
#define RO_FAULT_NAME(id) (ro_fault_counter_table.c[RO_FM_##id].name)

/* The readout's metric list from a snapshot: the table, its port
 * (port="sfc"), the lcore cycles, and the fault stage's when it had one.
 * Control thread, or main after the run. */
void ro_metrics(const void *snap, struct ebf_metrics *ms);

/* The fault stage's counters of a snapshot only (s->fault, s->n_sources). */
void ro_fault_metrics(const struct ro_snap *s, struct ebf_metrics *ms);

#endif /* RO_STATS_H */
