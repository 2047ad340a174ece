/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fo.h - the readout's failover glue (on with --replay-mb): release frames taken from the SFCs, each event sent recorded in the replay buffer until its SFC releases it (docs/protocol.md 13). */
#ifndef RO_FO_H
#define RO_FO_H

#include <stddef.h>
#include <stdint.h>

#include "ro_failover.h"
#include "ro_replay.h"

/*
 * What the generator keeps when failover is on: the view of the SFC
 * places (ro_failover, fed every release frame) and the replay buffer's
 * bookkeeping (ro_replay; the bytes themselves are regenerated from the
 * id, as the emulator's payload is a function of it). Made at the start
 * of a run (ro_fo_create), freed at its end. One lcore; no allocation
 * after ro_fo_create.
 */
struct ro_fo {
    struct ro_failover view;
    struct ro_replay rb;
    const uint8_t (*sfc_mac)[6];       /* place k's MAC: a release frame must come from it */
    uint16_t n_sfcs;
    uint16_t source_base, n_sources;
    uint32_t event_max;                /* the largest event's bytes (every fragment at max) */
    uint64_t frames;                   /* release frames accepted */
    uint64_t rejected;                 /* release frames that failed the parser */
    uint64_t foreign;                  /* from a MAC that is not their place's */
    uint64_t stale;                    /* not newer than the place's last */
    uint64_t full_polls;               /* polls that found the buffer full (trigger held) */
    uint64_t hold_max_ns;              /* held this long for room: drop the oldest */
    uint64_t full_since_ns;            /* when the current hold for room began; 0: none */
    uint64_t held_ns;                  /* time held for room, finished holds */
    uint64_t low[EBF_ROUTE_MAX];       /* the highest low accepted per place */
    /* Places (bit p) declared dead (silent, or heard at a new epoch)
     * whose records are not all replayed yet (ro_fo_died sets them,
     * ro_fo_tx_replay clears them): their frames free only below low[p]. */
    uint64_t replay_due;
    /* Time to recover (ro_fo_recover_begin/end): from the dead place's last
     * release frame to the end of the replay of what it held. */
    uint64_t recover_since_ns;         /* the recovery in progress began; 0: none */
    uint64_t recover_ns, recover_max_ns;   /* the last recovery's time, the longest */
    uint64_t recoveries;               /* recoveries ended */
    uint64_t notices;                  /* dead notices made (ro_fo_notice) */
    uint32_t notice_seq;               /* their numbers */
    uint64_t ends;                     /* replay ends made (ro_fo_end) */
    uint32_t end_seq;                  /* their numbers */
};

#define RO_FO_HOLD_MAX_NS 1000000000ull    /* replay_hold_max: 1 s (docs/protocol.md 13.3) */

/* A failover state for n_sfcs places (their MACs), sources source_base ..
 * + n_sources - 1 (at most RO_REPLAY_MAX_SRC), a buffer of replay_mb MiB,
 * events of at most event_max bytes and a place silent for dead_ns dead
 * (the detection bound, --sfc-dead-ms). NULL with errno EINVAL or ENOMEM. */
struct ro_fo *ro_fo_create(const uint8_t (*sfc_mac)[6], uint16_t n_sfcs, uint16_t source_base,
                           uint16_t n_sources, uint32_t replay_mb, uint32_t event_min,
                           uint32_t event_max, uint64_t dead_ns);

void ro_fo_destroy(struct ro_fo *f);

/* One received frame of len bytes at now_ns (next_id: the next event id
 * the readout will make). 1 when it was a release frame (taken, counted,
 * its release applied to the buffer), 0 when it is not one (the caller
 * offers it elsewhere). */
int ro_fo_offer(struct ro_fo *f, const uint8_t *frame, size_t len, uint16_t udp_port,
                uint64_t next_id, uint64_t now_ns);

/* 1 when the largest event still fits the buffer, else 0 (the trigger is
 * held, counted in full_polls). */
int ro_fo_room(struct ro_fo *f);

/*
 * The trigger's hold for room at now_ns (docs/protocol.md 13.3): 0 when
 * the largest event fits (a hold in progress ends, its time added to
 * held_ns); 1 while it does not, for up to hold_max_ns; then the oldest
 * unreleased events are freed until it fits (counted in rb.dropped: they
 * cannot be replayed any more) and 0.
 */
int ro_fo_hold(struct ro_fo *f, uint64_t now_ns);

/* Event e of `bytes` bytes went to place (recorded also when the place
 * died while it was being sent: it is then replayed with the others);
 * seq[s] is the next sequence
 * number of local source s toward that place (its last frame's + 1). */
void ro_fo_sent(struct ro_fo *f, uint64_t e, uint16_t place, uint32_t bytes, const uint32_t *seq);

/* The dead notice to place p (docs/protocol.md 13.4: a release frame,
 * readout -> SFC, flag DEAD, the epoch the readout holds it dead at, low
 * its release.low of it, no records) as ebfarm bytes into buf (at least
 * EBF_RELEASE_HLEN). Returns the bytes written; counted in notices. */
size_t ro_fo_notice(struct ro_fo *f, uint32_t p, uint8_t *buf);

/*
 * The replay end of dead place p to one survivor (docs/protocol.md
 * 13.4.1: a release frame, readout -> SFC, flag END, epoch the one the
 * readout holds p dead at, seq its own count of ends, low = from (its
 * first event routed around p: every unreleased event of p below it that
 * routes to the survivor went there before this frame), at = hi (1 + the
 * highest id replayed to the survivor in that replay, 0: none), one
 * record per local source with next_seq[s], the next sequence number of
 * source s toward the survivor) as ebfarm bytes into buf (at least
 * ebf_release_len(n_sources)). Returns the bytes written (0 when the
 * readout has more than EBF_RELEASE_MAX_SRC sources); counted in ends.
 */
size_t ro_fo_end(struct ro_fo *f, uint32_t p, uint64_t from, uint64_t hi, const uint32_t *next_seq,
                 uint8_t *buf);

/* Place p was declared dead (silent for the bound, or heard at a new
 * epoch): until ro_fo_tx_replay has replayed its records (replay_due), a
 * release frame of p frees none of them at or above low[p], the low this
 * readout last accepted from it and sends in its dead notices. A place
 * only muted is heard again at its epoch while a slow replay is under way
 * (a refusing port polled); its later low would free records not replayed
 * yet, which its fence records as decided twice (docs/protocol.md 13.6). */
void ro_fo_died(struct ro_fo *f, uint32_t p);

/* A place died whose last release frame came at last_ns (for a place
 * heard at a new epoch, that frame): a recovery begins there, or, when one
 * is in progress (a second death before its replay ended), keeps the
 * earlier beginning. */
void ro_fo_recover_begin(struct ro_fo *f, uint64_t last_ns);

/* The replay of every dead place's events ended at now_ns: the recovery
 * in progress ends, its time (now_ns less its beginning, 0 when the clock
 * went back) kept in recover_ns and recover_max_ns, counted in
 * recoveries. Nothing when none is in progress. */
void ro_fo_recover_end(struct ro_fo *f, uint64_t now_ns);

#endif
