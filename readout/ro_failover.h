/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_failover.h - the readout's view of the SFC places: heard or dead, joins and leaves at event ids, the route of each event (docs/protocol.md 13.4, 13.5). */
#ifndef RO_FAILOVER_H
#define RO_FAILOVER_H

#include <stdint.h>

#include "ebf_release.h"
#include "ebf_route.h"

#define RO_FO_NEVER UINT64_MAX

/*
 * Fed every release frame (ro_failover_offer) and polled once per loop
 * pass (ro_failover_poll), it says which places died (silent for dead_ns
 * after having been heard once: a place never heard is left to the
 * readout's start-up timeout) and routes each event over the places not
 * out (ro_failover_place). A death takes effect at once; a join or leave
 * announced by a place takes effect from its event id, so that every
 * readout switches at the same event. A place out stays out until it
 * joins, even when heard again (a frozen SFC resumed is fenced by its own
 * rule and rejoins). A place heard at a new epoch while routed to is
 * dead too (it restarted or fenced itself): out at once, replayed at the
 * next poll, back at its join id. DPDK-free; one thread; no allocation.
 */
struct ro_failover {
    uint32_t n;                        /* places, 1 .. EBF_ROUTE_MAX */
    uint64_t dead_ns;                  /* the detection bound */
    struct ebf_places out;             /* the places routed around */
    struct ebf_places heard;           /* those a frame was accepted from */
    struct ebf_places reborn;          /* those heard at a new epoch while routed to */
    struct ebf_places dead;            /* those declared dead (silent or reborn), until
                                        * they join again; a left place is out, not dead */
    struct ebf_places silent_dead;     /* those declared dead by silence and not heard
                                        * since (ro_failover_offer: false_deaths) */
    struct ebf_places alive_dead;      /* of them, heard again at the epoch they died in,
                                        * until a newer epoch or their join */
    struct ebf_places notice;          /* alive_dead places heard since the last
                                        * ro_failover_notices: a dead notice is due */
    uint64_t next_change;              /* lowest pending join/leave id, or RO_FO_NEVER */
    struct ebf_route route;            /* by out */
    uint64_t last_ns[EBF_ROUTE_MAX];   /* arrival of p's last accepted frame */
    uint16_t epoch[EBF_ROUTE_MAX];
    uint32_t seq[EBF_ROUTE_MAX];
    uint64_t join_at[EBF_ROUTE_MAX];   /* RO_FO_NEVER: none pending */
    uint64_t leave_at[EBF_ROUTE_MAX];
    uint64_t deaths;                   /* places declared dead */
    uint64_t joins, leaves;            /* applied */
    uint64_t stale;                    /* frames not newer than the last */
    uint64_t join_late;                /* join/leave ids already passed when heard */
    uint64_t last_poll_ns;             /* the last ro_failover_poll; 0: none yet */
    uint64_t own_stalls;               /* polls after a gap over dead_ns / 2: not silence */
    uint64_t join_early;               /* joins applied before their id: every place was out */
    int keep_last;                     /* no death by silence while every place routed to
                                        * is silent at once and no join is pending
                                        * (ro_failover_poll); the readout sets it,
                                        * ro_failover_init leaves it 0 */
    uint64_t all_silent;               /* polls that found every routed place silent */
    uint64_t false_deaths;             /* places declared dead by silence, then heard at
                                        * the epoch they died in: they were alive */
};

/* Sets fo to n places (1 .. EBF_ROUTE_MAX), all routed to, none heard.
 * 0 or -EINVAL. */
int ro_failover_init(struct ro_failover *fo, uint32_t n, uint64_t dead_ns);

/* A parsed release frame h arrived at now_ns; next_id is the readout's
 * next event id. Returns 1 when accepted (the caller then applies its
 * release to the replay buffer), 0 when stale or of an unknown place. A
 * join or leave id below next_id is counted in join_late and ignored. The
 * first frame accepted from a place declared dead by silence counts in
 * false_deaths when it is of the epoch the place died in (the SFC was
 * alive: its frames were late, not missing; it stays out until it joins,
 * docs/protocol.md 13.4), not when of a newer one (it fenced itself or
 * restarted, as a dead place does). Each frame accepted from such a
 * place at that epoch, until it joins or is heard at a newer one, makes a
 * dead notice due to it (ro_failover_notices, docs/protocol.md 13.4). */
int ro_failover_offer(struct ro_failover *fo, const struct ebf_release_hdr *h, uint64_t next_id,
                      uint64_t now_ns);

/* The places a dead notice is due to (each accepted frame of an SFC held
 * dead while alive makes one due) into *due, cleared in fo. Returns how
 * many. */
uint32_t ro_failover_notices(struct ro_failover *fo, struct ebf_places *due);

/* Declares dead every routed place heard once and silent for dead_ns at
 * now_ns, the readout's own stalls not counted (a gap between two polls
 * over dead_ns / 2 moves every place's last frame on by it, counted in
 * own_stalls: a frozen readout wakes to frames it did not read yet, not
 * to dead SFCs); puts them into *died, with the places heard at a new
 * epoch while routed to since the last poll (ro_failover_offer took them
 * out at once: a restarted or fenced SFC lost what it held), so the
 * caller replays what it sent them. Returns how many *died holds. */
uint32_t ro_failover_poll(struct ro_failover *fo, uint64_t now_ns, struct ebf_places *died);

/* When every place is out, applies the pending joins at once (from
 * event e; counted in join_early): no place would build the events until
 * their join ids, so the readouts, which may then switch at different
 * ids, lose less. Returns 1 when some place is routed to after it. */
int ro_failover_join_early(struct ro_failover *fo, uint64_t e);

/* Applies the joins and leaves due at event e (ids must not decrease
 * between calls; when every place is out, the pending joins too:
 * ro_failover_join_early) and returns e's place, or EBF_ROUTE_NONE. */
uint32_t ro_failover_place(struct ro_failover *fo, uint64_t e);

#endif
