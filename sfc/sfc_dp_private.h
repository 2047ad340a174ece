/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_private.h - the SFC data plane's state: the stages it composes, embedded by value; seen only by sfc_dp.c (the pass), sfc_dp_make.c and sfc_dp_drain.c. */
#ifndef SFC_DP_PRIVATE_H
#define SFC_DP_PRIVATE_H

#include <stdint.h>

#include "sfc_conf.h"
#include "sfc_drain.h"
#include "sfc_evtab.h"
#include "sfc_guard.h"
#include "sfc_lat.h"
#include "sfc_nodes.h"
#include "sfc_stats.h"
#include "sfc_release.h"
#include "sfc_throttle.h"
#include "sfc_tx.h"

/* Failover's state in the loop (release frames on): the pass clock for
 * the fence, and the rate of ids heard for a join id (sfc_dp_release.c). */
#define SFC_RECENT_ACKS 131072    /* acks above the low: about 4 s at 30,000 events/s (a low
                                   * held by a replay's wait, 5 s at most, or a cascade of
                                   * fences); 1 MiB */
#define SFC_FENCED_MAX 16384      /* the fence list, for fence_dup's correction only */
#define SFC_END_PLACES 64         /* places a replay end is kept for (64 KiB) */
#define SFC_PRUNE_LAG 32          /* release rounds (320 ms) the recent acks go back */

struct sfc_dp_fo {
    uint64_t last_pass;          /* TSC of the last sfc_dp_poll; 0: none yet */
    uint64_t fence_tsc;          /* a pass gap this long fences (sfc_dp_fence_check) */
    uint64_t id0, tsc0;          /* the first id heard, and when */
    uint64_t heard_max, heard_tsc;   /* 1 + the highest id heard, and when it last grew */
    /* the acks at or above the last release round's low (id, top bit:
     * accepted): a fence's ledger.fence_acked, as the readouts did not
     * hear them released */
    uint64_t recent[SFC_RECENT_ACKS];
    uint32_t n_recent;
    uint8_t recent_overflow;     /* more than SFC_RECENT_ACKS above the low */
    uint64_t replay_tsc;         /* TSC of the last replayed piece taken; 0: none yet */
    uint64_t grace_tsc;          /* SFC_REPLAY_GRACE_NS: the building timeout's floor
                                  * while replayed pieces arrive (sfc_dp_timeout) */
    uint64_t src_tsc[EBF_MAX_SOURCES];  /* TSC of each source's last fragment taken */
    uint64_t replay_src_tsc[EBF_MAX_SOURCES];   /* and of its last replayed piece */
    /* After a fence (sfc_dp_release.c, fence_hold): the low it announces
     * at most, the SFC's low at the fence before the drop, until every
     * bound source's readout has replayed what the fence dropped; the
     * fence's join id and pass TSC tell when (docs/protocol.md 13.4). */
    uint8_t hold_on;
    uint64_t hold_low, hold_join, hold_tsc;
    /* [source][place]: the highest `low` of a replay end from the
     * source's readout for that dead place (its first event routed around
     * it); 0: none (docs/protocol.md 13.4.1) */
    uint64_t end_from[EBF_MAX_SOURCES][SFC_END_PLACES];
    /* [source]: 1 + the lowest source of the last replay end that listed
     * it, the same for the sources of one readout; 0: none yet */
    uint8_t end_ro[EBF_MAX_SOURCES];
    uint64_t wait_max_tsc;       /* SFC_REPLAY_WAIT_MAX_NS */
    /* The recent acks are kept down to the lowest low of the last
     * SFC_PRUNE_LAG rounds (a dead notice's X may be that old), and a
     * fence records those at or above its X. */
    uint64_t lows[SFC_PRUNE_LAG];
    uint32_t n_lows;
    uint64_t pruned_below;       /* acks below this left the list */
    uint32_t round_mark;         /* recent[0 .. round_mark) were taken before the last round */
    struct sfc_notices notices;  /* readouts that hold this SFC dead while it lives */
    /* The ids the last fence put in ledger.fence_acked, sorted (top bit:
     * accepted; SFC_FENCED_OUT: taken out again): a replay of one that
     * comes back to this SFC (no other place was live, the readouts
     * rejoined it at once) is a duplicate here, decided once. */
    uint64_t fenced[SFC_FENCED_MAX];
    uint32_t n_fenced;
    /* The low of the last round a readout's port took: what the readouts
     * may hold, a pause's fence record's X (a round made but not sent
     * before a stop told them nothing). */
    uint64_t told_low;
};

#define SFC_FENCED_OUT (UINT64_C(1) << 62)
#define SFC_FENCED_ID (SFC_FENCED_OUT - 1)

/* A failover's building timeout at least (docs/protocol.md 13.4): the
 * readouts detect a death one by one, each within the bound after the
 * dead SFC's last release but later by its own stalls, and the survivor
 * must hold the pieces of the early ones until the late ones' replays
 * come, or it builds incomplete (a new event rerouted early) or drops
 * as decided (a replayed one) what no node decided. */
#define SFC_REPLAY_GRACE_NS 1000000000ull

/* A replayed event kept past the grace for a missing readout's replay end
 * (sfc_dp_replay_verdict) is dropped this long after its first wait all
 * the same (replay.wait_cap): the last resort for a readout that never
 * sends one (a lost frame, a readout without the marker); the table is
 * bounded. */
#define SFC_REPLAY_WAIT_MAX_NS 5000000000ull

/* What becomes of a replayed event that timed out incomplete. */
enum sfc_replay_verdict {
    SFC_REPLAY_DROP = 0,        /* proven decided by the dead place (replay ends):
                                 * dropped (replay.partial, replay.ended) */
    SFC_REPLAY_BUILD,           /* its missing sources died: built incomplete */
    SFC_REPLAY_WAIT,            /* a missing source's replay end has not come: kept */
    SFC_REPLAY_CAP,             /* no proof, but kept SFC_REPLAY_WAIT_MAX_NS (or the
                                 * staged stop's drain): dropped (replay.partial) */
};

/* The periodic work's timer (node liveness, the throttle's refresh): 100 us. */
#define SFC_TICKS_PER_S 10000

/*
 * One data plane: the poll pass's pointers and limits first, then the
 * stages (each owns its state; only sfc_dp.c calls them, and they call
 * only sfc_evtab, sfc_credit and proto), the configuration, the receive
 * guard's per-source tables, and the 23 KB of statistics last.
 */
struct sfc_dp {
    struct sfc_evtab *tab;
    uint64_t timeout_tsc;
    uint64_t next_tick, tick_tsc;        /* the periodic work's timer */
    double ns_per_tsc;
    uint32_t polls;
    uint8_t rx_mac[6];
    uint64_t rx_now_ns;          /* CLOCK_REALTIME of the receive burst in hand */
    uint64_t rx_any;             /* TSC of the last frame on any readout port */
    uint64_t rx_quiet_tsc;       /* silent this long while others are not: polled
                                  * every 1024 passes only */
    uint64_t ro_handed;          /* readout frames handed to other workers (sfc_dist.h) */
    struct sfc_tx tx;            /* node-port queues, event and throttle frames */
    struct sfc_nodes nodes;      /* liveness, epochs, credits */
    struct sfc_throttle thr;
    struct sfc_drain drain;
    struct sfc_release rel;      /* release frames, when c.release_ms */
    uint64_t join_at;            /* the last join id announced (sfc_dp_leave); 0: none */
    uint64_t mute_until_ns;      /* the fault SFC_MUTE: no release round until then */
    volatile uint64_t stall_ms;  /* the fault SFC_STALL: the next round stops this long */
    struct sfc_lowmark *low;     /* the lowest id held; NULL when release frames are off */
    struct sfc_dp_fo fo;
    uint64_t rx_heard[SFC_MAX_READOUTS];    /* with several rx ports: TSC of each one's
                                             * last frame (rx_port first) */
    struct sfc_conf c;
    struct sfc_guard guard;      /* sequences, bindings, readouts */
    struct sfc_stats st;
};

/* A burst from a port the workers share (sfc_dist.h) into pkts (at most
 * the burst), its hand-over counted (sfc_dp.c). Returns the frames. */
uint16_t sfc_dp_take_shared(struct sfc_dp *dp, struct sfc_dist *d, struct rte_mbuf **pkts);

/* Take the credit frames of every node port (sfc_dp_nodes.c): each
 * node's acks release their events and return its credit, its credits
 * are granted. A port whose nodes are all dead is polled every 1024
 * passes only, to hear a node come back (its peer may be gone: the memif
 * hazard of poll_rx); a shared port always, for the other workers' nodes.
 * Returns the frames taken. */
unsigned sfc_dp_nodes_poll(struct sfc_dp *dp, uint64_t now);

/* The periodic look at the nodes (sfc_dp_nodes.c): the silent ones
 * declared dead, their queued frames purged and the events they held
 * taken back for redispatch. Returns the work done (each dead node and
 * the events taken back from it). */
unsigned sfc_dp_nodes_check(struct sfc_dp *dp, uint64_t now);

/* The loop's failover tick (every SFC_TICKS_PER_S): on workers 1 .. W-1 the
 * replay ends worker 0 handed over (sfc_dp_ends_take); the release
 * stage's round, when due: the watermark and one release frame to each
 * readout heard (sfc_dp_release.c). Returns the work done. */
unsigned sfc_dp_release(struct sfc_dp *dp, uint64_t now);

/* Release frames on: when the gap since the last pass exceeds the
 * detection bound less two release periods (80 ms: a frozen or starved
 * process the readouts may have declared dead), the SFC fences itself: what it
 * builds or holds ready is dropped (replay.fenced), what its readout
 * ports hold is discarded, a new epoch begins and a join is announced
 * (docs/protocol.md 13.4, 13.5). Called at the start of every pass, and
 * again before a release round (a stop within the pass). */
int sfc_dp_fence_check(struct sfc_dp *dp, uint64_t now);


/* A release frame (type 5) of len bytes from mac came in at now: a
 * readout's replay end (flag END) goes to sfc_dp_replay_end, failover on
 * or off (an SFC takes replayed pieces either way); a dead notice (flag
 * DEAD) for this SFC's place and epoch is taken (release.notices); one of
 * another place or epoch is ignored, one that fails the parser is counted
 * under its reason, and any other with failover off as unknown_type
 * (docs/protocol.md 13.4). */
void sfc_dp_notice(struct sfc_dp *dp, const uint8_t *b, size_t len, const uint8_t *mac,
                   uint64_t now);

/* A piece h flagged EBF_FRAGF_REPLAY went into the table at now as a
 * (slot: its event when stored): counted, its event marked replayed, or
 * counted a duplicate when its event was finished (docs/protocol.md
 * 13.4); the grace of sfc_dp_timeout runs from now. */
void sfc_dp_replay_piece(struct sfc_dp *dp, const struct ebf_frag_hdr *h,
                         enum sfc_add_result a, uint32_t slot, uint64_t now);

/* The building timeout at now: the SFC's --timeout-ms, or while a replayed
 * piece came less than SFC_REPLAY_GRACE_NS ago, at least that (one for
 * every building event, so that the building FIFO expires in order). */
uint64_t sfc_dp_timeout(const struct sfc_dp *dp, uint64_t now);

/* Building event slot, with a replayed piece, timed out: dropped, not
 * built (replay.partial; the dead place decided it). */
void sfc_dp_replay_partial(struct sfc_dp *dp, uint32_t slot);

/* A replayed piece of event id was a duplicate here. If the last fence
 * left id to be decided twice (ledger.fence_acked) and the replay came
 * back to this SFC, it is decided once: out of the record (counted in
 * replay.fence_dup), or, still at a node, its ack kept out of it
 * (sfc_dp_release.c). */
void sfc_dp_fence_dup(struct sfc_dp *dp, uint64_t id);

/* Event id acked (accept: its decision; fenced: it was at a node when the
 * SFC fenced itself), failover on: kept for a fence while a release round's
 * low is not above it, and in ledger.fence_acked when fenced. */
void sfc_dp_fence_ack(struct sfc_dp *dp, uint64_t id, int accept, int fenced);

/* Whether replayed event e, timed out, lacks only sources that sent
 * nothing since its first piece came: their readout died too (with the
 * SFC), its replay never comes, and e is built incomplete (its loss is
 * the readout's) rather than dropped; a missing source still sending had
 * e released, so the dead place decided it (docs/protocol.md 13.4). */
int sfc_dp_replay_orphan(const struct sfc_dp *dp, const struct sfc_event *e);

/* Rule 1 on a replayed event (docs/protocol.md 13.4, 13.4.1). */
enum sfc_replay_proof {
    SFC_PROOF_NONE = 0,         /* not proven decided */
    SFC_PROOF_DECIDED,          /* proven decided by the dead place */
    SFC_PROOF_LOST,             /* every missing source's readout sent a piece of it:
                                 * pieces lost on the way, no proof (replay.unsound) */
};

/* Whether replayed event e is proven decided by the dead place (docs/
 * protocol.md 13.4.1): some replay end taken covers it (from the readout
 * of a source it holds: the places N whose end from that readout has a
 * first routed-around id above e), and every missing source's readout
 * sent replay ends above e for every place of N: each had e released
 * (it replayed every unreleased event of those places below its first
 * routed-around one, in FIFO order, before its end), so the dead place's
 * node decided e. A missing source whose readout (the sources its last
 * replay end listed with it) sent another source's piece of e is left
 * out: that readout did send e, its end proves nothing of it; LOST when
 * every missing source is such, else DECIDED or NONE by the others. */
enum sfc_replay_proof sfc_dp_replay_proven(const struct sfc_dp *dp, const struct sfc_event *e);

/*
 * Replayed building event slot timed out incomplete at now (docs/protocol.md
 * 13.4): DROP when proven decided (sfc_dp_replay_proven); BUILD when its
 * missing pieces were lost on the way (LOST: replay.unsound counts those
 * that the rules without that exception drop or keep) or it is orphaned
 * (sfc_dp_replay_orphan); else, when wait, WAIT (a missing
 * source's replay end has not come: its replay may) until
 * SFC_REPLAY_WAIT_MAX_NS after its first wait, then CAP; when not wait
 * (the staged stop's drain), CAP.
 */
enum sfc_replay_verdict sfc_dp_replay_verdict(struct sfc_dp *dp, uint32_t slot, uint64_t now,
                                              int wait);

/* A replay end h (a release frame with flag END, docs/protocol.md 13.4.1)
 * from mac: taken (replay.ends) when each of its sources is one this
 * SFC serves bound to mac and its place is below SFC_END_PLACES, else
 * refused whole (replay.end_refused); the kept replayed events it proves
 * decided (sfc_dp_replay_proven) are dropped at once (replay.ended). On
 * worker 0 of several, a taken end also goes to every other worker's
 * ring (c.end_ring; one full: replay.end_ring_full), as the readouts
 * address ends to the SFC's MAC while a replayed event of the place may
 * sit on any worker. */
void sfc_dp_replay_end(struct sfc_dp *dp, const struct ebf_release_hdr *h, const uint8_t *mac);

/* Worker w >= 1: the replay ends worker 0 handed over (at most 8 a call),
 * taken as if they had come here (not counted again in replay.ends): kept
 * events they prove decided are dropped (replay.ended). Returns how many;
 * 0 on worker 0 or a data plane alone. */
unsigned sfc_dp_ends_take(struct sfc_dp *dp);

/* The oldest building event, due: a replayed one dropped, kept or built by
 * sfc_dp_replay_verdict (kept only when wait: the loop's timeout), any
 * other made READY incomplete, its build time into build_timeout_ns
 * (*now_ns: the clock, read once when 0). Returns the frames dropped. The
 * loop's timeout and the drain's both use it. */
uint64_t sfc_dp_expire_head(struct sfc_dp *dp, uint64_t now, uint64_t *now_ns, int wait);

static inline uint64_t tsc_to_ns(const struct sfc_dp *dp, uint64_t tsc)
{
    return (uint64_t)((double)tsc * dp->ns_per_tsc);
}

#endif /* SFC_DP_PRIVATE_H */
