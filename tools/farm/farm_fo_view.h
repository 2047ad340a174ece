/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_fo_view.h - what a farm's failover looks like from its counters: the live SFCs and their shares, deaths, replays, replay buffers. */
#ifndef FARM_FO_VIEW_H
#define FARM_FO_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "farm_types.h"

enum farm_fo_state { FARM_FO_LIVE, FARM_FO_DRAINED, FARM_FO_GONE };

/*
 * Built from each process's counters and gauges (a status reply's
 * snapshot, or a run's final counters): on when any readout or SFC took
 * or sent a release frame (failover on). An SFC is gone when it gave no
 * counters, drained while its leave_at gauge is set, else live; each live
 * SFC's share is 1 / live (the route spreads a missing place's events
 * evenly over the live ones, docs/protocol.md 13.1). The readouts' sums:
 * deaths (fo.deaths: each readout counts each death it saw), failovers
 * recovered (fo.recoveries: each readout counts each replay of its dead
 * places it ended; deaths that come while one is pending join it), replays
 * (replay.replayed), drops (replay.dropped), as ebfarm soak sums them;
 * their largest replay buffer level and peak (replay.held_bytes,
 * replay.peak_bytes) and the times to recover, the slowest readout's
 * (fo.recover_ns of the last one, fo.recover_max_ns of the longest).
 *
 * redecided_marked is the running figure of the stop's redecided
 * (docs/protocol.md 13.6): the SFCs' ledger.fence_acked (acks of a fenced
 * SFC that the readouts replayed) plus the nodes' ledger.acks_after_release
 * (a restarted SFC's nodes' decisions at or above its old incarnation's
 * mark, taken at the restart), as far as they are known now. The stop adds
 * the records of the places still dead then (their nodes are marked at the
 * stop only), so the two are equal when no SFC is gone at the stop and
 * redecided_marked is at most the stop's figure otherwise.
 */
struct farm_fo_view {
    int on;
    unsigned n_sfcs, n_live, n_readouts;
    struct {
        char name[FF_NAME_MAX];
        enum farm_fo_state state;
        uint64_t leave_at;
        double share;
    } sfc[FF_MAX_SFCS];
    uint64_t deaths, replayed, dropped, held_bytes, peak_bytes, joins, leaves;
    uint64_t false_deaths;     /* fo.false_deaths summed: deaths by silence of SFCs
                                * heard again at the same epoch (alive) */
    uint64_t recoveries, recover_ns, recover_max_ns;
    uint64_t redecided_marked;
    /* The SFCs' partial replays (docs/protocol.md 13.4): dropped (replay.partial),
     * of them proven by replay ends (replay.ended) or at the 5 s cap
     * (replay.wait_cap); kept for a replay end (replay.waits); ends taken
     * (replay.ends); built incomplete because their missing pieces were lost
     * on the way (replay.unsound: decided, in the ledger; informational);
     * summed over the live SFCs */
    uint64_t partial, ended, wait_cap, waits, ends, unsound;
};

/* Start an empty view. */
void farm_fo_view_init(struct farm_fo_view *v);

/* Add process name of role: its counters kv and gauge leave_at (NULL kv:
 * it gave none, gone). A node adds its record ledger.acks_after_release
 * to redecided_marked. */
void farm_fo_view_add(struct farm_fo_view *v, enum farm_role role, const char *name,
                      const struct ebf_kv *kv, double leave_at);

/* The shares, once every process was added. */
void farm_fo_view_end(struct farm_fo_view *v);

/* The view of a farm's status replies (rep[i] for st->proc[i], NULL for
 * no answer; farm_status). */
struct farm_state;
struct Ebfarm__Reply;
struct Ebfarm__Snapshot;

/* Add a process from its snapshot m (NULL: none: gone). */
void farm_fo_view_snapshot(struct farm_fo_view *v, enum farm_role role, const char *name,
                           const struct Ebfarm__Snapshot *m);

void farm_fo_view_replies(struct farm_fo_view *v, const struct farm_state *st,
                          struct Ebfarm__Reply **rep);

/* The view of a run's final counters (farm_collect): no gauges there, so
 * a drained SFC shows live with its leaves counted. */
void farm_fo_view_result(struct farm_fo_view *v, const struct farm_result *r);

/* One line into out when on: "<lead>SFCs live 2 of 2 (sfc0 50%, sfc1
 * 50%); deaths seen 0, recovered 0 (sums over 4 readouts; 0 heard alive
 * after); time to recover last 0.0 ms, longest 0.0 ms (slowest readout); joins
 * 0, leaves 0; replayed 0, replay dropped 0; redecided so far 0 (fences,
 * restarts); replay buffer 1.2 MB, peak 3.4 MB (largest readout); partial
 * replays dropped 0 (0 proven by 0 replay ends, 0 at the 5 s cap), kept 0;
 * replays built incomplete 0 (replay.unsound: pieces lost on the way;
 * decided, in the ledger)";
 * nothing when off. */
void farm_fo_view_text(FILE *out, const struct farm_fo_view *v, const char *lead);

/* The same items as a summary's section ("  failover SFCs live ...;"),
 * wrapped as the summary's other sections are; nothing when off. */
void farm_fo_view_summary(FILE *out, const struct farm_fo_view *v);

/*
 * The view as Prometheus gauges of farm (text exposition format 0.0.4),
 * when on: ebfarm_farm_sfcs_live; ebfarm_farm_sfc_share{sfc,state} for
 * each SFC (state live, drained or gone; share 0 unless live);
 * ebfarm_farm_replay_held_bytes and ebfarm_farm_replay_peak_bytes (the
 * largest readout's; each readout's own are its ebfarm_replay_*_bytes_total);
 * ebfarm_farm_sfc_deaths_seen, ebfarm_farm_sfc_false_deaths, ebfarm_farm_replayed_events,
 * ebfarm_farm_failovers_recovered, ebfarm_farm_recover_seconds{which=
 * "last"|"longest"} and ebfarm_farm_redecided_marked.
 * Nothing when off.
 */
void farm_fo_view_prom(FILE *out, const struct farm_fo_view *v, const char *farm);

/* The view as a JSON object, or JSON null when off (NULL: no memory). */
json_t *farm_fo_view_json(const struct farm_fo_view *v);

#endif /* FARM_FO_VIEW_H */
