/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_farm.h - a whole farm simulated in virtual time: readouts, switch, SFCs with the real builder, nodes. */
#ifndef SIM_FARM_H
#define SIM_FARM_H

#include <stdint.h>

#include "ebf_hist.h"
#include "sim_conf.h"

/*
 * One run of the model (docs/scale.md, "The model"): triggers at rate_hz
 * for duration_s; every source pushes its fragment of event e to SFC
 * e % sfcs through its link and the switch's output port toward that SFC
 * (finite buffer: incast drops); each SFC builds with sfc_evtab, picks a
 * node with sfc_credit, sends the event through the switch to the node; the
 * node takes its trigger time, decides and acks with one credit back; an
 * SFC's table fill throttles the readouts; faults happen at given times.
 * After the triggers stop, the run drains for at most drain_s; what is
 * left is lost with the reason the SFC gives it at the end of a real run.
 *
 * The ledger is closed the way the farm's is (tools/farm/ledger.c): the
 * events the SFCs acked and lost, plus those of a dead SFC that its nodes
 * decided or that were lost with it, must be every generated id once, by
 * count, by the sum of ebf_mix64(id) and by the id records (ebf_idset).
 */

enum sim_lost {
    SIM_LOST_TABLE_FULL,         /* event_table_full */
    SIM_LOST_BUILDING,           /* stopped_building */
    SIM_LOST_NO_NODE,            /* no_node */
    SIM_LOST_UNACKED,            /* stopped_unacked */
    SIM_LOST_SFC,                /* sfc_lost: a dead SFC's, no node decided (with
                                  * failover: no live SFC was left to replay it to) */
    SIM_LOST_MAX
};

struct sim_ledger {
    uint64_t generated, accepted, rejected, incomplete;
    uint64_t lost[SIM_LOST_MAX], lost_total;
    uint64_t late_acks, nodes_dead, redispatched, revived, gone_decided;
    uint64_t rejoins;            /* restarted nodes taken again (a new epoch) */
    uint64_t replay_acked;       /* failover: acks the survivors took of replayed events */
    uint64_t redecided;          /* failover: decided by a dead SFC's node and again */
    int64_t unaccounted;         /* generated - (accepted + rejected + lost) */
    int digest_match, ids_match, nodes_agree, closed;
};

#define SIM_BINS 128             /* time series: 100 bins over the triggers, then the drain */

/* What happened per bin of farm time (bin_s each; n bins used). */
struct sim_series {
    double bin_s;
    unsigned n;
    uint64_t generated[SIM_BINS];    /* triggers */
    uint64_t decided[SIM_BINS];      /* acks the SFCs took */
    uint64_t drops[SIM_BINS];        /* frames a switch port dropped */
    struct ebf_hist latency_ns[SIM_BINS];   /* of the acks taken in the bin */
};

struct sim_result {
    struct sim_ledger l;
    double farm_s;               /* virtual time simulated */
    uint64_t frames;             /* fragment frames the readouts sent */
    uint64_t switch_drops;       /* refused by a switch port's buffer */
    uint64_t link_lost;          /* lost on a source link that was down */
    uint64_t sfc_gone_frames;    /* not sent: their SFC was given up */
    uint64_t dead_sfc_frames;    /* reached an SFC that was dead */
    uint64_t dead_node_events;   /* reached a node that was dead */
    uint64_t timed_out;          /* events that timed out building */
    uint64_t stale_pieces;       /* refused: older than the SFC's done window */
    uint64_t throttle_on;        /* throttle transitions to on, all SFCs */
    uint64_t intake_pauses;      /* times an SFC stopped reading its port (intake pause) */
    uint64_t rx_missed;          /* frames that found an SFC's receive ring full */
    uint32_t rx_ring_peak;       /* most frames an SFC's receive ring held */
    double held_s;               /* the readouts were held this long */
    uint32_t port_peak;          /* most bytes any SFC port held */
    uint64_t port_peak_sum;      /* sum over SFC ports of their peaks */
    struct ebf_hist port_occ;    /* bytes each fragment frame found ahead of it in its
                                  * SFC's switch port (dropped ones too) */
    uint32_t evtab_peak;         /* most events any SFC held */
    double sfc_busy_max;         /* the busiest SFC lcore's busy time / farm time */
    struct ebf_hist latency_ns;  /* trigger -> ack taken, per decided event */
    struct sim_series series;
    /* Failover (docs/protocol.md 13), when on */
    uint64_t release_frames;     /* release frames the readouts accepted */
    uint64_t sfc_deaths;         /* SFCs the readouts declared dead */
    double died_s, detected_s;   /* the first SFC death, its detection (-1: none) */
    double recovered_s;          /* the last replayed event decided (-1: none) */
    uint64_t replayed;           /* events sent again */
    uint64_t replay_peak_bytes;  /* most bytes one source's replay buffer held */
    uint64_t replay_peak_events;
    double replay_held_s;        /* triggers held for a full replay buffer */
    uint64_t replay_dropped;     /* records freed unreleased (buffer full past the hold) */
    uint64_t ack_drops;          /* acks dropped at an SFC's switch port (ack_port) */
    uint64_t wakes;              /* idle back-off: frames that found their SFC or node asleep */
    uint64_t wake_ps;            /*   and the time they waited for it, in all */
    uint64_t sfc_restarts;       /* SFCs that started again before being declared dead */
    uint64_t freed_by_restart;   /* events sent to an SFC before its restart that its new
                                  * incarnation's release frames freed unreplayed (its
                                  * old one had decided some: the rest are unaccounted) */
    uint64_t joins, leaves;      /* joins and leaves the readouts applied (13.5) */
    uint64_t join_at, leave_at;  /* the last join and leave ids announced (0: none) */
    uint64_t joined_decided;     /* acks SFCs took of ids at or above their own join id */
    uint64_t prejoin_pieces;     /* pieces a restarted SFC refused below its join id, not
                                  * replayed (the readouts replay those events elsewhere) */
    double detected_last_s;      /* the last readout's detection of the first death (-1) */
    uint64_t replay_ends_sent;   /* replay ends the readouts sent (13.4.1) */
    uint64_t replay_ends;        /* replay ends the SFCs took (replay.ends) */
    uint64_t replay_end_refused; /* refused: a place at or above 64 (replay.end_refused) */
    uint64_t replay_dup;         /* replayed pieces of events finished there (replay.dup) */
    uint64_t replay_partial;     /* replayed events timed out incomplete, dropped (replay.partial) */
    uint64_t replay_ended;       /* of them, proven decided by the replay ends (replay.ended) */
    uint64_t replay_waits;       /* kept past their timeout for a late readout (replay.waits) */
    uint64_t replay_wait_cap;    /* of replay_partial: dropped at the 5 s cap (replay.wait_cap) */
    uint64_t replay_unsound;     /* replayed events built incomplete for pieces lost on the
                                  * way that the daemon's old rule drops as decided or
                                  * keeps (replay_lost_piece; the SFC's replay.unsound) */
    uint64_t notices_due;        /* dead notices the readouts sent: an SFC held dead heard
                                  * alive (fo.notices) */
    uint64_t release_lost;       /* release frames lost on the way to a readout (release_loss) */
    uint64_t release_muted;      /* release rounds an SFC lost to sfc_mute (release.muted) */
    uint64_t notices_taken;      /* dead notices the SFCs took (release.notices) */
    uint64_t fences;             /* SFCs fenced on notices (fence_notices) */
    uint64_t replay_fenced;      /* building events a fence dropped (replay.fenced) */
    uint64_t fence_acked;        /* acks the fences recorded as decided twice
                                  * (ledger.fence_acked; in redecided) */
    uint64_t fence_held;         /* release rounds whose low a fence's hold lowered */
    /* The simulator itself */
    uint64_t sim_events;
    uint64_t queue_peak;         /* most events queued at once */
    double wall_s;
};

/* Called about every progress_s of wall time while the run lasts (farm
 * time done, farm time in all). */
typedef void (*sim_progress_fn)(double farm_s, double total_s, void *arg);

/*
 * Run the model of c (checked with sim_conf_check) into *r. Returns 0, or
 * -ENOMEM / -EINVAL (a builder module refused its configuration) with err.
 */
int sim_run(const struct sim_conf *c, struct sim_result *r, sim_progress_fn progress,
            void *progress_arg, char *err, size_t errlen);

#endif /* SIM_FARM_H */
