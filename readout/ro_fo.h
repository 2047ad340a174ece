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
    uint64_t forgotten;                /* records of dead places freed unreplayed */
};

/* A failover state for n_sfcs places (their MACs), sources source_base ..
 * + n_sources - 1 (at most RO_REPLAY_MAX_SRC), a buffer of replay_mb MiB
 * and events of at most event_max bytes. NULL with errno EINVAL or
 * ENOMEM. */
struct ro_fo *ro_fo_create(const uint8_t (*sfc_mac)[6], uint16_t n_sfcs, uint16_t source_base,
                           uint16_t n_sources, uint32_t replay_mb, uint32_t event_min,
                           uint32_t event_max);

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

/* Place was declared dead: replay is not wired yet, so its records are
 * freed (next_seq[s]: the next sequence number of local source s toward
 * it, above every record's), counted in forgotten, and no later event
 * to it is recorded; else its records would never leave the ring and the
 * trigger would be held for good. */
void ro_fo_forget(struct ro_fo *f, uint16_t place, const uint32_t *next_seq);

/* Event e of `bytes` bytes went to place (not recorded when the place
 * is out); seq[s] is the next sequence
 * number of local source s toward that place (its last frame's + 1). */
void ro_fo_sent(struct ro_fo *f, uint64_t e, uint16_t place, uint32_t bytes, const uint32_t *seq);

#endif
