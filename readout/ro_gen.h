/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_gen.h - readout-board emulator: events -> fragments -> frames -> one port. */
#ifndef RO_GEN_H
#define RO_GEN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ebf_cycles.h"
#include "ebf_idle.h"
#include "ebf_proto.h"
#include "ro_fault_tx.h"
#include "ro_fo.h"
#include "ro_fast.h"
#include "ro_payload.h"
#include "ro_size.h"
#include "ro_stats.h"
#include "ro_throttle.h"

#define RO_MAX_SFCS RO_STATS_MAX_SFCS

/* The first sequence number of a readout that rejoins a run (first_event
 * above 0): beyond every SFC's window of its past frames. */
#define RO_REJOIN_SEQ 0x80000000u

struct ro_conf {
    uint16_t port;
    struct rte_mempool *pool;
    uint16_t n_sources;          /* sources source_base .. source_base + n_sources - 1 */
    uint16_t source_base;        /* the first source id: unique across a farm's readouts */
    uint64_t n_events;           /* 0: until duration or stop */
    uint64_t first_event;        /* the run's first event id: 0, or where a restarted
                                  * readout rejoins a run in progress (ebfarm restart) */
    uint32_t rejoin_run;         /* the run first_event is for (control parameter
                                  * rejoin: RUN:EVENT); other runs start at 0 */
    uint64_t start_at_ns;        /* event first_event due at this wall clock (the
                                  * START's common instant, ro_start.h); 0: at once */
    double duration_s;           /* 0: no limit */
    double rate;                 /* events/s; 0: as fast as the port takes them */
    uint32_t size_min, size_max; /* fragment bytes, uniform in [min, max] */
    uint64_t seed;
    enum ebf_encap encap;
    uint16_t udp_port;
    uint32_t src_ip;
    uint8_t src_mac[6];
    uint16_t n_sfcs;             /* event e goes to sfc_mac[e % n_sfcs] */
    uint8_t sfc_mac[RO_MAX_SFCS][6];
    uint32_t sfc_ip[RO_MAX_SFCS];
    uint16_t n_sfc_ports;        /* 0: every SFC on `port` (behind one switch); else
                                  * n_sfcs, one port each (memif links) ... */
    uint16_t sfc_port[RO_MAX_SFCS];  /* ... the port toward SFC k */
    /* An SFC whose port refused every frame this long while no throttle
     * frame came from it, or whose link went down, is given up: nothing
     * more is sent to it (counted), the others are served. 0: never. */
    double sfc_timeout_ms;
    /* Failover (docs/protocol.md 13): a replay buffer of this many MiB
     * keeps each event sent until its SFC's release frames free it; the
     * trigger is held while the largest event would not fit. 0 (the
     * default): off, release frames are counted as other frames. */
    uint32_t replay_mb;
    uint32_t sfc_dead_ms;        /* the detection bound (13.4); 0: EBF_RELEASE_DEAD_NS */
    uint16_t mtu;                /* L3 MTU of the links, 1500 by default */
    uint16_t burst;
    struct ebf_idle idle;
    /* Called while the port refuses frames (back-pressure), so a caller
     * can answer control requests meanwhile; NULL: none. */
    void (*yield)(void *arg);
    void *yield_arg;
    /* The lcore's cycle accounting, when the caller has one: while the
     * port refuses frames, each try is a pass of its loop (one the port
     * took nothing of is idle, its back-off too); NULL: none. */
    struct ebf_cycles *cycles;
    enum ro_size_dist size_dist; /* uniform in [size_min, size_max], or log-normal */
    double size_mu, size_sigma;  /* log-normal: ro_size_lognormal_params() */
    double size_mean, size_sd;   /* log-normal: the mean and deviation asked, bytes */
    enum ro_payload_mode payload;    /* per-event pattern, or prebuilt once per run */
    struct ro_fault_conf faults; /* what the fault stage of each run is made from */
    struct ro_fault_tx *fault;   /* NULL, or the caller's fault stage for this run */
};

/* Largest piece payload for this conf: what fits in the MTU after the
 * encapsulation, the fragment header and the room an SFC needs for its
 * event header, rounded down to 8 bytes. */
uint32_t ro_max_piece(const struct ro_conf *c);

/* Fragment size of (source, event) under this conf: deterministic. A
 * log-normal size is clamped to [size_min, size_max]. */
uint32_t ro_frag_size(const struct ro_conf *c, uint16_t source, uint64_t event_id);

/*
 * Prebuilt payload tags: a pool whose mbufs have a private area of at
 * least RO_TAG_PRIV_SIZE bytes (rte_pktmbuf_pool_create's priv_size) keeps
 * there the ro_payload_tag of the bytes each mbuf holds, so a frame that
 * gets the same piece again is not copied into. The pool's maker clears
 * every tag once (ro_tag_clear over rte_mempool_obj_iter); the generator
 * clears the tags of frames it receives, trusts none while a fault stage
 * may write into frames, and clears the tag of every frame it fills
 * without trusting tags (per-event payload, faults).
 */
#define RO_TAG_PRIV_SIZE 8

static inline void ro_tag_clear(struct rte_mbuf *m)
{
    *(uint64_t *)rte_mbuf_to_priv(m) = 0;
}

#define RO_BURST_MAX 256

struct ro_txq {
    struct rte_mbuf *pkt[RO_BURST_MAX];
    uint16_t n;
    struct rte_mbuf *spare[RO_BURST_MAX];   /* allocated in bulk, not used yet */
    uint16_t n_spare;
};

/* A generator between events; the caller owns it, one lcore drives it. */
struct ro_gen {
    const struct ro_conf *c;
    struct ro_stats *st;
    struct ro_txq q;
    const volatile sig_atomic_t *force;     /* the last ro_next's: ro_finish's flush */
    struct ebf_idle idle;
    uint32_t seq[RO_MAX_SFCS][EBF_MAX_SOURCES];  /* per (SFC, source): no false gaps */
    uint16_t q_sfc;              /* the SFC of the frames queued (without a fault stage) */
    uint16_t sfc_port[RO_MAX_SFCS];  /* the port toward each SFC */
    uint16_t n_ports;            /* distinct ports among them ... */
    uint16_t port[RO_MAX_SFCS];  /*   ... and which */
    uint64_t refused_since[RO_MAX_SFCS];    /* TSC of the first refusal in a row; 0: none */
    uint64_t sfc_timeout_tsc;
    uint64_t t0, end;            /* TSC at start, and of the deadline */
    int before_start;            /* t0 (the START's common instant) is still ahead */
    double tsc_per_event;        /* 0: unpaced */
    uint64_t next_event;
    uint64_t stop_at;            /* no event at or above it is begun (ro_stop_at); UINT64_MAX */
    struct ro_throttle_view tv;  /* what the SFCs asked for */
    struct ro_fo *fo;            /* failover state, NULL when off (replay_mb 0) */
    uint64_t fo_pending;         /* places declared dead, their events not yet replayed */
    uint64_t relink_ns;          /* when the links of places out were last looked at */
    uint16_t frag_flags;         /* added to each fragment header ro_frame_emit makes */
    struct ro_payload pay;       /* payload prebuilt: built by ro_begin, freed by ro_finish */
    uint32_t max_piece;          /* ro_max_piece(c) */
    size_t hlen;                 /* ebf_encap_hlen(c->encap) */
    uint8_t eth_hdr[RO_MAX_SFCS][EBF_ETH_HLEN];  /* raw Ethernet: each SFC's frame header */
    int tag_pool;                /* the pool's mbufs have a tag (RO_TAG_PRIV_SIZE) ... */
    int tags;                    /*   ... and this run trusts it: copies skipped */
    struct ro_fast fast;         /* fast.len: every fragment one frame of the prebuilt
                                  * payload whose copy the tags skip (ro_frame_emit_fast) */
    uint16_t fast_flen;          /* the frame length of such a fragment */
    uint64_t held_since;         /* TSC when the current hold began; 0: not held */
    int done;                    /* nothing more will be generated */
    int rc;                      /* 0 or -ENOMEM when it ended for lack of mbufs */
    int forced;                  /* cut short by a forced stop */
};

/* Start a run of conf c into st (zeroed); a prebuilt payload is built
 * here. 0, -EINVAL for a bad conf or -ENOMEM (then g is done and nothing
 * is sent). */
int ro_begin(struct ro_gen *g, const struct ro_conf *c, struct ro_stats *st);

/*
 * Generate and send the next event if it is due: every fragment of every
 * source, retrying refused frames (*force abandons them, counted); unpaced
 * and without a fault stage, the events after it too while their frames
 * fill the burst the first one began. Returns the events generated, 0 when
 * the next is not due yet, when an SFC holds the readout (throttle), or the
 * run is over (g->done: event count or deadline reached, or out of mbufs).
 *
 * Throttle (docs/protocol.md, section 10): every call first takes a burst
 * from the port's receive queue (also between tries while the port refuses
 * frames) and offers each frame to the throttle view. While the view holds
 * the readout nothing is generated; when it lets go, the pacing schedule is
 * moved on by the time held, so that the held events are not sent in a
 * burst to catch up. A deadline (duration) is not moved. A throttling SFC
 * holds the whole readout, not only the events that map to it: events
 * leave in id order, and every readout of a farm sends every event.
 *
 * Several SFCs: event e goes to SFC k = e % n_sfcs (failover on: its
 * place over the live set, ro_failover_place, and the events of a place
 * declared dead are replayed first, ro_fo_tx_replay), on its port
 * c->sfc_port[k] with its MAC; frames are numbered per (source, SFC), so
 * every SFC sees one gap-free sequence per source. An SFC given up (see
 * sfc_timeout_ms) gets nothing more: the frames of its events are
 * counted in sfc_gone_frames, the events still count as generated.
 */
int ro_next(struct ro_gen *g, const volatile sig_atomic_t *force);

/*
 * The staged stop's common end (docs/protocol.md, "The common stop"): no
 * event at or above id at is begun; a readout that reaches it holds there
 * (its run not finished, so a later, higher id still lets it go on) and
 * its drain generates up to it. 0, or -ERANGE when an event at or above at
 * was begun already (g->st->next_event says where the run is): the end is
 * then left as it was. Lcore (or a yield within ro_next).
 */
int ro_stop_at(struct ro_gen *g, uint64_t at);

/* Whether g holds at its stop_at with events left before it: the drain
 * generates those first. */
int ro_short_of_stop(const struct ro_gen *g);

/* End the run now (between events): nothing more is generated. */
void ro_finish(struct ro_gen *g);

/*
 * Generate events until n_events, duration or *stop. A stop request is
 * honoured between events; *force makes the current event's unsent frames be
 * abandoned (counted). With c->fault, every frame passes the fault stage on
 * its way to the port, bursts pause before their first event, and the frames
 * the stage still holds are sent at the end (abandoned, freed and counted,
 * after a forced stop). Returns 0 or -errno. Runs on one lcore.
 */
int ro_run(const struct ro_conf *c, struct ro_stats *st, const volatile sig_atomic_t *stop,
           const volatile sig_atomic_t *force);

#endif /* RO_GEN_H */
