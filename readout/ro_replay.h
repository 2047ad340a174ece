/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_replay.h - the readout's replay buffer bookkeeping: what was sent where, until its SFC releases it (docs/protocol.md 13.3). */
#ifndef RO_REPLAY_H
#define RO_REPLAY_H

#include <stdint.h>

#define RO_REPLAY_MAX_SRC 32           /* sources of one readout (a release frame's records) */

/*
 * One record per event sent: its id, the SFC place it went to, its bytes,
 * and per source of this readout the sequence number of the event's last
 * frame on that place. The records form a ring in send order; new events
 * have increasing ids and a replay changes a record in place, so the ring
 * stays sorted by id. A release frame from place p (low, next_seq per
 * source) releases every record of p with id < low whose frames all
 * arrived (seq < next_seq, wrapping); released records leave the ring when
 * they reach its head. The bytes themselves are the caller's (mbuf
 * references or regenerated from the id); this module counts them against
 * the bound. DPDK-free; one thread; no allocation after ro_replay_init.
 */
struct ro_replay_rec {
    uint64_t id;
    uint32_t bytes;
    uint16_t place;
    uint8_t released;                  /* 1: freed, waiting to reach the head */
    uint8_t replays;                   /* times sent again (saturates) */
};

struct ro_replay {
    struct ro_replay_rec *rec;         /* cap records */
    uint32_t *seq;                     /* cap * n_src last sequence numbers */
    uint32_t cap;                      /* records, a power of two */
    uint16_t n_src;
    uint32_t head, tail;               /* free-running; tail - head records in the ring */
    uint64_t cap_bytes;
    uint64_t held_bytes;               /* bytes of records not released */
    uint64_t held_events;
    uint64_t peak_bytes;
    uint64_t released;                 /* events released by their SFC */
    uint64_t replayed;                 /* events sent again after a death */
    uint64_t dropped;                  /* events freed unreleased because the buffer was full */
};

/* Sets rb up for at most cap_events records (rounded up to a power of
 * two, at least 1) and cap_bytes bytes, for n_src sources (1 ..
 * RO_REPLAY_MAX_SRC). 0, or -EINVAL (bad sizes) or -ENOMEM; rb is then
 * empty and ro_replay_fini is still safe. */
int ro_replay_init(struct ro_replay *rb, uint32_t cap_events, uint64_t cap_bytes, uint16_t n_src);

/* Frees what ro_replay_init allocated; rb is left empty. */
void ro_replay_fini(struct ro_replay *rb);

/* 1 when an event of `bytes` bytes fits now (a free record and the bytes
 * within the bound), else 0: the caller holds its trigger. */
int ro_replay_fits(const struct ro_replay *rb, uint32_t bytes);

/* Records event id, sent to place with `bytes` bytes, seq[i] the last
 * frame's sequence number of source i on that place. ids must increase
 * from push to push. 0, -ENOSPC when it does not fit, -EINVAL when id is
 * not above the last one pushed. */
int ro_replay_push(struct ro_replay *rb, uint64_t id, uint16_t place, uint32_t bytes,
                   const uint32_t *seq);

/* A release frame from place: every event below low is decided there,
 * and next_seq[i] is the next frame it expects from source i. Releases
 * the records it covers and trims the head; returns the events released
 * by this frame. */
uint32_t ro_replay_release(struct ro_replay *rb, uint16_t place, uint64_t low,
                           const uint32_t *next_seq);

/* Iterates the unreleased records of place in id order: *cursor starts at
 * 0; returns the next record and advances *cursor, or NULL at the end.
 * Records must not be pushed or released while iterating; moved may be. */
struct ro_replay_rec *ro_replay_next_of(struct ro_replay *rb, uint16_t place, uint32_t *cursor);

/* Iterates the unreleased records whose place is in the bit set places
 * (bit p: place p, p < 64) in id order. *cursor is a free-running ring
 * index: set it to rb->head to begin. Unlike ro_replay_next_of, releases
 * (which trim the head) may happen between calls: a cursor the head
 * passed restarts at the head. Records must not be pushed meanwhile. */
struct ro_replay_rec *ro_replay_next_in(struct ro_replay *rb, uint64_t places, uint32_t *cursor);

/* rec (from ro_replay_next_of) was sent again to new_place with last
 * sequence numbers seq[]; counts a replay. */
void ro_replay_moved(struct ro_replay *rb, struct ro_replay_rec *rec, uint16_t new_place,
                     const uint32_t *seq);

/* The buffer is full and the hold ran out: frees the oldest unreleased
 * record, counted in dropped. Returns 1 and its id in *id, or 0 when no
 * record is held. */
int ro_replay_drop_oldest(struct ro_replay *rb, uint64_t *id);

#endif
