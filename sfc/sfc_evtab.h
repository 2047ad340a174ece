/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_evtab.h - the SFC's bounded event table: assembly, timeouts, ready queue, acks. */
#ifndef SFC_EVTAB_H
#define SFC_EVTAB_H

#include <stdint.h>

#include "sfc_lowmark.h"

#include "ebf_proto.h"

/*
 * The table holds every event the SFC owns, from its first fragment until a
 * node acks it: BUILDING -> READY (complete, or timed out incomplete) ->
 * SENT -> released. Frames are opaque pointers (mbufs in the SFC, plain
 * buffers in tests); the table never touches their bytes. Memory is fixed at
 * creation: `capacity` events and `max_frames` frame records in all.
 *
 * Single-threaded: only the SFC's data-plane lcore may call these.
 */

#define SFC_NONE UINT32_MAX

enum sfc_ev_state {
    SFC_EV_FREE = 0,
    SFC_EV_BUILDING,
    SFC_EV_READY,
    SFC_EV_SENT,
};

/* What became of one fragment piece offered to the table. */
enum sfc_add_result {
    SFC_ADD_PARTIAL = 0,     /* stored, event still building */
    SFC_ADD_COMPLETE,        /* stored, the event is now complete and READY */
    SFC_ADD_DUPLICATE,       /* piece already held: not stored */
    SFC_ADD_DUP_SENT,        /* a piece of a source its event already delivered
                              * (READY, SENT or done): a duplicate, not stored */
    SFC_ADD_LATE,            /* a source its READY, SENT or done event lacks */
    SFC_ADD_STALE,           /* an id older than the done window remembers */
    SFC_ADD_REFUSED,         /* its event was refused for lack of room */
    SFC_ADD_TABLE_FULL,      /* a new event and no free slot: event refused */
    SFC_ADD_NO_RECORD,       /* no free frame record: not stored */
    SFC_ADD_LEN_MISMATCH,    /* frag_len differs from earlier pieces */
    SFC_ADD_TOO_BIG,         /* its fragment would take its event past max_event
                              * bytes or SFC_EVENT_RECS_MAX frames: not stored */
};

/* Frames (records) of one event at most: an event frame holds one piece at
 * least, and frame_count is 16 bits. */
#define SFC_EVENT_RECS_MAX 65535

struct sfc_evtab_conf {
    uint32_t capacity;       /* events held at once */
    uint32_t max_frames;     /* frame records for all events together */
    uint16_t n_sources;      /* sources every event should have */
    uint32_t max_event;      /* payload bytes of one event at most (fragment lengths
                              * summed); 0: no limit */
    uint32_t done_window;    /* finished ids remembered, rounded up to 2^n, <= 2^30:
                              * the window is indexed by id modulo its size, so
                              * the last done_window ids never evict each other */
    void (*free_frame)(void *frame, void *arg); /* frames the table drops */
    void *free_arg;
    struct sfc_lowmark *lowmark; /* NULL: none; else each held event's id is added
                              * when the table starts holding it and removed when
                              * it stops (the release watermark's held part) */
};

/* One stored piece. `next` links the pieces of an event (SFC_NONE ends). */
struct sfc_frame_rec {
    void *frame;
    uint32_t next;
    uint32_t offset;         /* piece offset in its fragment */
    uint16_t source;
    uint16_t piece_len;
    uint16_t data_off;       /* where the fragment header starts in frame */
};

/* An event: the dispatcher reads these fields, only the table writes them.
 * One cache line: what a piece's arrival touches; the rest is in struct
 * sfc_event_cold. */
struct sfc_event {
    uint64_t event_id;
    uint64_t first_tick;     /* arrival of its first piece */
    uint64_t present[2];     /* sources whose fragment is complete */
    uint32_t bytes;          /* payload bytes of its complete fragments */
    uint32_t n_frames;
    uint32_t first_rec;
    uint32_t last_rec;
    uint32_t prev, next;     /* building FIFO or ready FIFO links */
    uint16_t n_complete;     /* sources complete */
    uint16_t node;           /* when SENT: node it went to */
    uint8_t state;           /* enum sfc_ev_state */
    uint8_t incomplete;      /* READY or SENT with missing sources */
    uint8_t requeued;        /* sent before, back in the ready FIFO (node died) */
    uint8_t replayed;        /* a piece came flagged EBF_FRAGF_REPLAY (set by the caller) */
};
_Static_assert(sizeof(struct sfc_event) == 64, "the hot event record is one cache line");

/* What an event carries that is read once per event, not per piece. */
struct sfc_event_cold {
    uint64_t ready_tick;     /* when it became READY (the dispatcher: when sent) */
    uint64_t first_tx_ns;    /* earliest readout timestamp among its pieces */
    uint64_t declared;       /* frag_len of each source that sent a piece, summed */
    uint8_t fenced;          /* at a node when the SFC fenced itself: its ack is decided
                              * twice (the readouts replay it), ledger.fence_acked */
    uint64_t wait_tick;      /* replayed, kept past its timeout for a late readout's
                              * replay since (sfc_evtab_rewait); 0: not kept */
};

struct sfc_evtab;

/* Create a table; NULL with errno EINVAL (bad conf) or ENOMEM. */
struct sfc_evtab *sfc_evtab_create(const struct sfc_evtab_conf *conf);

/* Free the table, handing every frame still held to free_frame. */
void sfc_evtab_destroy(struct sfc_evtab *t);

/*
 * Offer one parsed piece (header h, stored at frame + data_off); h must have
 * passed ebf_frag_parse() with this table's n_sources, so that h->source is
 * in range and the piece lies within its fragment. Unless the
 * result is SFC_ADD_PARTIAL or SFC_ADD_COMPLETE the table did not keep the
 * frame and the caller still owns it. *slot is set for PARTIAL and COMPLETE.
 * A COMPLETE event is appended to the ready FIFO.
 */
enum sfc_add_result sfc_evtab_add(struct sfc_evtab *t, const struct ebf_frag_hdr *h,
                                  void *frame, uint16_t data_off, uint64_t now,
                                  uint32_t *slot);

/*
 * Time out building events whose first piece came at or before now - timeout:
 * each becomes READY with incomplete set; pieces of sources that are not
 * complete are dropped through free_frame and added to *dropped_frames.
 * Returns how many events timed out (at most max; they go to the ready FIFO).
 */
uint32_t sfc_evtab_expire(struct sfc_evtab *t, uint64_t now, uint64_t timeout,
                          uint32_t max, uint64_t *dropped_frames);

/* Oldest READY event's slot, or SFC_NONE. */
uint32_t sfc_evtab_ready_peek(const struct sfc_evtab *t);

/* A READY event was sent to node: it leaves the ready FIFO and is SENT. */
void sfc_evtab_mark_sent(struct sfc_evtab *t, uint32_t slot, uint16_t node);

/*
 * An ack for event_id from node: returns its slot (still SENT, frames still
 * held, so that the caller can read it before sfc_evtab_release), or
 * SFC_NONE when no such event is SENT to that node.
 */
uint32_t sfc_evtab_find_sent(const struct sfc_evtab *t, uint64_t event_id, uint16_t node);

/* A SENT event goes back to the head of the ready FIFO (its node died):
 * state READY, requeued set, frames still held. */
void sfc_evtab_requeue(struct sfc_evtab *t, uint32_t slot);

/* Release an event: every frame goes to free_frame, the slot is freed and
 * its id remembered as done, so that later pieces count as late. */
void sfc_evtab_release(struct sfc_evtab *t, uint32_t slot);

/* Release an event still BUILDING or READY (for example at the end of a run)
 * and remember it as done. */
void sfc_evtab_drop(struct sfc_evtab *t, uint32_t slot);

/* sfc_evtab_drop, with the id remembered as done only when `remember`: a
 * fence's drop (docs/protocol.md 13.4) forgets it, so that the readouts'
 * replays of the event, which may come back to this SFC, build it anew
 * rather than count as late. */
void sfc_evtab_drop_as(struct sfc_evtab *t, uint32_t slot, int remember);

/* Slot of an event held in any state, or SFC_NONE. */
uint32_t sfc_evtab_lookup(const struct sfc_evtab *t, uint64_t event_id);

struct sfc_event *sfc_evtab_event(struct sfc_evtab *t, uint32_t slot);
struct sfc_event_cold *sfc_evtab_cold(struct sfc_evtab *t, uint32_t slot);

/* Prefetch the index bucket of event_id: for a caller that will add a
 * piece of it soon (the receive burst's second pass). */
void sfc_evtab_prefetch(const struct sfc_evtab *t, uint64_t event_id);
const struct sfc_frame_rec *sfc_evtab_rec(const struct sfc_evtab *t, uint32_t rec);

/* The piece records, indexed by record number: sfc_evtab_rec(t, r) is
 * sfc_evtab_records(t) + r, for a walk of an event's records (rec->next)
 * without a call per record. Valid for the table's life. */
const struct sfc_frame_rec *sfc_evtab_records(const struct sfc_evtab *t);

/* Oldest building event's slot, or SFC_NONE. */
uint32_t sfc_evtab_building_head(const struct sfc_evtab *t);

/* Building event slot, due, is kept: it goes to the building FIFO's tail
 * with now as its new first_tick (its timeout runs again from now), and
 * its cold wait_tick is set to now unless set already. */
void sfc_evtab_rewait(struct sfc_evtab *t, uint32_t slot, uint64_t now);

struct sfc_evtab_counts {
    uint32_t building;
    uint32_t ready;
    uint32_t sent;
    uint32_t free_slots;
    uint32_t free_records;
};

void sfc_evtab_counts(const struct sfc_evtab *t, struct sfc_evtab_counts *c);

#endif /* SFC_EVTAB_H */
