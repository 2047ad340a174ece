/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_farm_private.h - the simulated farm's state and event kinds, shared by sim_farm.c, sim_sfc.c and sim_node.c. */
#ifndef SIM_FARM_PRIVATE_H
#define SIM_FARM_PRIVATE_H

#include <stdint.h>

#include "ebf_idset.h"
#include "ro_failover.h"
#include "ro_replay.h"
#include "sfc_credit.h"
#include "sfc_evtab.h"
#include "sfc_guard.h"
#include "sfc_lowmark.h"
#include "sfc_release.h"
#include "sfc_stats.h"
#include "sfc_throttle.h"
#include "sim_evq.h"
#include "sim_farm.h"
#include "sim_idle.h"
#include "sim_port.h"
#include "sim_rng.h"

#define PS_PER_NS 1000ull
#define PS_PER_US 1000000ull
#define PS_PER_MS 1000000000ull
#define PS_PER_S 1000000000000ull
#define WIRE_EXTRA 24            /* FCS 4 + preamble 8 + gap 12: on the wire, not in a header */

enum sim_kind {
    EV_GEN,                      /* the next trigger; arg: event id */
    EV_FRAG_SW,                  /* a piece reaches the switch toward its SFC; obj bit 31:
                                  * replayed, bit 30: a replay end (aux its readout, arg F,
                                  * x the dead place) */
    EV_FRAG_SFC,                 /* the SFC has processed a piece */
    EV_EVT_NODE,                 /* an event's last frame reaches its node */
    EV_NODE_DONE,                /* a node decided; aux: its stall count then, x: its epoch */
    EV_NODE_HELLO,               /* a restarted node's first credit frame reaches its SFC */
    EV_ACK_SFC,                  /* an ack reaches its SFC; aux: accepted */
    EV_ACK_SW,                   /* an ack reaches the switch port toward its SFC (ack_port) */
    EV_SFC_TICK,                 /* an SFC's timeouts */
    EV_NODE_CHECK,               /* an SFC looks at a silent node */
    EV_THROTTLE,                 /* readouts hear an SFC's throttle; aux: on */
    EV_FAULT,                    /* fault obj happens */
    EV_SFC_GIVEN_UP,             /* readouts give SFC obj up */
    EV_END,                      /* the drain deadline */
    EV_RELEASE,                  /* failover: SFC obj's release stage is due */
    EV_RELEASE_RO,               /* failover: SFC obj's release frame reaches a readout;
                                  * arg: low, t0: seq << 32 | next_seq (the readout's first
                                  * source's), aux: epoch, x: n_src | flags << 16 |
                                  * readout << 24 */
    EV_RO_POLL,                  /* failover: each readout looks for silent SFCs */
    EV_SFC_RESTART,              /* SFC obj starts again */
    EV_REPLAY,                   /* failover: a paced replay of id arg to SFC obj is due;
                                  * t0: its trigger, x: its replay record, aux: readout */
    EV_NOTICE,                   /* failover: a dead notice reaches SFC obj; aux: its
                                  * readout (SIM_NOTICE_LOOK: none, the wait is over),
                                  * arg: its low, x: its epoch */
};

#define SIM_NOTICE_LOOK UINT16_MAX

/* The record of an SFC's incarnations that are gone (died, or restarted):
 * what ledger_replay.c reads of a gone SFC, from its nodes and by 13.6
 * (sim_ledger_retire). */
struct sim_gone {
    int on;                      /* some incarnation is gone */
    uint64_t accepted, rejected; /* its nodes' decisions of record (below its X) */
    uint64_t lost[SIM_LOST_MAX]; /* its named losses before it went */
    uint64_t digest;             /* ebf_mix64 over the ids of both */
    struct ebf_idset ids;        /* and their records */
};

/* An SFC's answer to dead notices (docs/protocol.md 13.4 rule 4;
 * sim/sim_fence.c, after sfc/sfc_dp_release.c): its recent acks, the
 * notices, the fence's record and the hold of its low. */
struct sim_fence {
    uint64_t mute_until;         /* its release rounds are lost until (sfc_mute), ps */
    uint64_t last_low;           /* its last round's low (release_low) */
    struct sfc_notices notices;
    uint64_t *recent;            /* acks at or above the lowest of its last rounds' lows,
                                  * id | accept << 63 */
    uint32_t n_recent, cap_recent, round_mark;
    uint64_t lows[32];           /* its last SFC_PRUNE_LAG rounds' lows */
    uint32_t n_lows;
    uint8_t *fenced;             /* per table slot: at a node at the fence: its ack is
                                  * recorded */
    struct ebf_idset ids;        /* the record (ledger.fence_acked): acks of events the
                                  * readouts replayed, decided twice */
    uint64_t count, accepted, digest;
    int hold_on;                 /* its low held at hold_low until every bound source
                                  * sent at or above hold_join */
    uint64_t hold_low, hold_join;
    uint32_t gen;                /* its release rounds' chain (a fence starts one) */
};

/* Failover state of one SFC (docs/protocol.md 13; sim/sim_fo.c). */
struct sim_sfc_fo {
    struct sfc_lowmark *lowmark; /* the table's held ids (sfc_evtab_conf.lowmark) */
    struct sfc_guard *guard;     /* its sources' bindings and source 0's sequence */
    struct sfc_seq_stats seq_st;
    struct sfc_release rel;      /* period, numbering */
    uint64_t *next_by_src;       /* 1 + the highest id heard per source */
    uint8_t *replayed;           /* per table slot: built from a replayed piece */
    uint64_t x_low;              /* the highest low the readouts accepted from it */
    uint64_t replay_acked;       /* acks it took of replayed events */
    uint64_t replay_acked_digest;
    uint64_t restarted_at;       /* its last restart (sfc_restart), 0: none */
    uint64_t heard_max;          /* 1 + the highest id heard from any source */
    uint64_t heard_at;           /* when heard_max last grew, ps */
    uint64_t join_id;            /* its last join id (restart, undrain); 0: none */
    uint64_t ann_at;             /* the join or leave id of its last frame (its flags
                                  * travel with the frame, EV_RELEASE_RO's x) */
    uint32_t declared;           /* readouts that declared this incarnation dead */
    uint64_t *end_from;          /* [source * SIM_END_PLACES + place]: the highest F of
                                  * the replay ends taken (13.4.1) */
    uint64_t *src_at;            /* per source: its last piece of any kind, ps */
    uint64_t *seen_id;           /* per table slot: the event seen_ro speaks of */
    uint16_t *seen_ro;           /* and the readouts that sent a piece of it (bit r) */
    uint64_t replay_at;          /* its last replayed piece, ps; 0: none */
    struct sim_gone gone;        /* its past incarnations, and itself once dead */
    struct sim_fence fence;
};

/* A decision a node made at or above its SFC's accepted low of the time:
 * one the readouts may replay if that SFC dies (13.6). */
struct sim_late_dec {
    uint64_t id;
    uint8_t accept;
};

struct sim_sfc {
    struct sfc_evtab *tab;
    struct sfc_credit *credit;
    struct sim_port port;        /* the switch's output port toward this SFC */
    struct sim_port uplink;      /* its own link toward the switch */
    uint64_t cpu_busy;           /* its data-plane lcore is busy until */
    uint64_t busy_ps;            /* and was busy this long in all */
    struct sfc_throttle thr;     /* its throttle (sim_intake.c) */
    uint32_t max_frames;         /* its table's frame records */
    struct sim_ev *rxq;          /* its receive ring while intake pauses (rx_ring) */
    uint32_t rxq_head, rxq_n;
    int heard_on;                /* the readouts heard its throttle on */
    int dead, given_up;
    uint64_t died_at;
    uint64_t accepted, rejected, incomplete, late;
    uint64_t lost[SIM_LOST_MAX];
    uint64_t acked_digest, lost_digest;
    struct ebf_idset acked_ids, lost_ids, late_ids;
    struct ebf_idset ackdrop_ids;    /* acks its switch port dropped (ack_port) */
    struct sim_sfc_fo fo;        /* failover on only */
};

struct sim_node {
    uint64_t busy_until;
    uint64_t stall_from, stall_until;
    uint16_t stalls;             /* stall faults so far: tags its pending decisions */
    uint8_t dead;                /* died (fault) */
    uint8_t declared;            /* its SFC declared it dead */
    uint32_t epoch;              /* restarts so far: tags its pending decisions */
    uint64_t accepted, rejected;
    struct ebf_idset ack_ids;    /* the acks it sent */
    uint64_t ack_digest;         /* sum of ebf_mix64 over them */
    uint64_t *taken;             /* ids its SFC took back from it (declared dead) */
    uint32_t n_taken, cap_taken;
    uint64_t dup_accepted, dup_rejected;    /* its decisions of ids taken back: the
                                             * event went to another node too */
    uint64_t dup_digest;
    struct ebf_idset dup_ids;
    struct sim_late_dec *late;   /* failover: its decisions at or above its SFC's low */
    uint32_t n_late, cap_late;
};

struct sim_source {
    struct sim_port link;        /* its link toward the switch */
    uint64_t cpu_busy;
    uint64_t down_from, down_until;
};

/* The places a replay end can name at an SFC (the daemon's SFC_END_PLACES:
 * an end for a place at or above it is refused). */
#define SIM_END_PLACES 64

/* One readout's failover side (sim/sim_fo.c): its own view (ro_failover:
 * its release frames come with its own lag, so it detects a death at its
 * own moment), its own replay buffer (ro_replay: a record per event it
 * sent, the bytes one source's, as its sources send every event the same
 * size), its first source's sequence numbers toward each SFC. */
struct sim_ro_one {
    struct ro_failover view;
    struct ro_replay rb;
    uint64_t *trig_t;            /* per record of rb: its event's trigger time */
    uint32_t *seq0;              /* per SFC: the next sequence number of its first source */
    uint64_t *low;               /* per SFC: the highest low accepted while it was live,
                                  * frozen at its death (ro_fo.c's low, its dead notices') */
    uint16_t src0, n_src;        /* its sources: src0 .. src0 + n_src - 1 */
    uint64_t lag_ps;             /* its release frames come this much after readout 0's */
    uint64_t full_since;         /* its buffer was found full (trigger held) since */
    int full;
};

/* The readouts' failover side: one struct sim_ro_one each; the trigger
 * is the farm's, so one full buffer holds it for all. */
struct sim_ro_fo {
    struct sim_ro_one *one;      /* c->readouts */
    int full;                    /* some readout's buffer is full: the trigger waits */
    struct ebf_idset lost_ids;   /* no live SFC left to send or replay them to */
    uint64_t lost_digest;
    uint64_t lost_no_place;
};

struct sim_farm {
    const struct sim_conf *c;
    struct sim_result *r;
    struct sim_evq q;
    struct sim_rng rng;
    struct sim_sfc *sfc;
    struct sim_node *node;
    struct sim_source *src;
    uint64_t now;
    uint64_t end_gen;            /* triggers before this time */
    uint64_t next_id;            /* the next event id to generate */
    uint64_t gen_digest;         /* sum of ebf_mix64(id) over generated ids */
    uint64_t ack_delay;          /* node decision -> ack at its SFC, ps */
    uint64_t period;             /* trigger period, ps (fixed arrivals) */
    uint32_t max_piece;          /* fragment payload per frame */
    uint32_t n_pieces;           /* frames per fragment */
    uint32_t n_throttling;       /* SFCs whose throttle the readouts heard on */
    uint64_t held_since;         /* the readouts are held since (when n_throttling) */
    int gen_waiting;             /* a trigger waits for the throttle's release */
    int gen_done;                /* the triggers stopped */
    uint64_t in_flight;          /* fragment frames between a readout and its SFC's table */
    uint64_t tick;               /* SFC timeout tick, ps */
    uint64_t timeout;            /* build timeout, ps */
    uint64_t bin_ps;             /* time series bin */
    int err;                     /* first error (-ENOMEM) */
    struct sim_idle idle;        /* the SFCs' and nodes' idle back-off */
    struct sim_ro_fo ro;         /* failover on only */
};

/* The time series' bin of farm time now. */
static inline unsigned sim_bin(const struct sim_farm *f)
{
    uint64_t b = f->now / f->bin_ps;
    return b < SIM_BINS ? (unsigned)b : SIM_BINS - 1;
}

/* How long after t a daemon whose last work ended at last sees what
 * arrives at t: its idle back-off (sim_idle.h), counted; 0 when it is
 * busy or spins. Draws from the run's generator only at the sleep cap. */
static inline uint64_t sim_wake(struct sim_farm *f, uint64_t last, uint64_t t)
{
    if (!f->idle.max_sleep_ps || last >= t)
        return 0;
    uint64_t idle = t - last;
    double u = sim_idle_capped(&f->idle, idle) ? sim_rng_uniform(&f->rng) : 0;
    uint64_t w = sim_idle_wake(&f->idle, idle, u);
    f->r->wakes += w > 0;
    f->r->wake_ps += w;
    return w;
}

/* Push an event (t0: when its trigger was, for fragments); a failure to
 * grow the queue is kept in f->err and ends the run. */
void sim_push(struct sim_farm *f, uint64_t t, enum sim_kind k, uint32_t obj, uint16_t aux,
              uint64_t arg, uint64_t t0);
/* The same with the third argument x. */
void sim_push_x(struct sim_farm *f, uint64_t t, enum sim_kind k, uint32_t obj, uint16_t aux,
                uint64_t arg, uint64_t t0, uint32_t x);

/* sim_farm.c: every source's fragment of event e (triggered at t0) toward
 * SFC k from now; replay: sent again after a death. */
void sim_emit_to(struct sim_farm *f, uint64_t e, uint32_t k, uint64_t now, uint64_t t0,
                 int replay);
/* The same for the sources of readout ro only. */
void sim_emit_ro(struct sim_farm *f, uint32_t ro, uint64_t e, uint32_t k, uint64_t now,
                 uint64_t t0, int replay);
/* The readout of source s (the sources shared out in order). */
static inline uint32_t sim_ro_of(const struct sim_farm *f, uint32_t s)
{
    return (uint32_t)((uint64_t)s * f->c->readouts / f->c->sources);
}
/* A trigger that waited (throttle, full replay buffer) may go now. */
void sim_trigger_resume(struct sim_farm *f);

/* sim_sfc.c */
int sim_sfc_init(struct sim_farm *f, uint32_t k, char *err, size_t errlen);
void sim_sfc_fini(struct sim_farm *f, uint32_t k);
void sim_sfc_frag_sw(struct sim_farm *f, const struct sim_ev *ev);
void sim_sfc_frag(struct sim_farm *f, const struct sim_ev *ev);
void sim_sfc_ack(struct sim_farm *f, const struct sim_ev *ev);
void sim_sfc_ack_sw(struct sim_farm *f, const struct sim_ev *ev);
void sim_sfc_tick(struct sim_farm *f, uint32_t k);
void sim_sfc_node_check(struct sim_farm *f, uint32_t node);
void sim_sfc_node_hello(struct sim_farm *f, uint32_t node);
void sim_sfc_die(struct sim_farm *f, uint32_t k);
void sim_sfc_restart(struct sim_farm *f, uint32_t k);
void sim_sfc_leftovers(struct sim_farm *f, uint32_t k);
uint32_t sim_sfc_held(const struct sim_farm *f, uint32_t k);

/* sim_intake.c: the throttle and the intake pause */
/* SFC k's throttle (sfc_throttle) and receive ring; 0 or -ENOMEM. */
int sim_intake_init(struct sim_farm *f, uint32_t k, uint32_t max_frames);
void sim_intake_fini(struct sim_farm *f, uint32_t k);
int sim_intake_allowed(const struct sim_farm *f, uint32_t k);
void sim_intake_hold(struct sim_farm *f, uint32_t k, const struct sim_ev *ev);
int sim_intake_next(struct sim_farm *f, uint32_t k, struct sim_ev *ev);
void sim_intake_flush(struct sim_farm *f, uint32_t k);
void sim_intake_throttle(struct sim_farm *f, uint32_t k);

/* sim_node.c */
void sim_node_event(struct sim_farm *f, const struct sim_ev *ev);
void sim_node_done(struct sim_farm *f, const struct sim_ev *ev);
void sim_node_stall(struct sim_farm *f, uint32_t node, uint64_t from, uint64_t len);
void sim_node_restart(struct sim_farm *f, uint32_t node);
/* Its SFC took event id back from node (declared dead): a decision of it
 * there is a duplicate (the event went to another node). */
void sim_node_taken(struct sim_farm *f, uint32_t node, uint64_t id);

/* sim_fo.c: failover (on with c->failover) */
/* The readouts' view and replay buffer, the first poll; 0, -EINVAL or
 * -ENOMEM with err. */
int sim_fo_init(struct sim_farm *f, char *err, size_t errlen);
void sim_fo_fini(struct sim_farm *f);
/* SFC k's release stage, guard and low mark (sfc_sim's table takes the
 * mark), its first release; 0 or -ENOMEM. */
int sim_fo_sfc_init(struct sim_farm *f, uint32_t k);
/* SFC k starts again: a new epoch, nothing heard, its first release now. */
void sim_fo_sfc_restart(struct sim_farm *f, uint32_t k);
void sim_fo_sfc_fini(struct sim_farm *f, uint32_t k);
/* Readout ro's SFC for new event e (ids increasing), or EBF_ROUTE_NONE. */
uint32_t sim_fo_route(struct sim_farm *f, uint32_t ro, uint64_t e);
/* 1 when every readout's replay buffer takes one more event, else 0 (the
 * trigger waits). */
int sim_fo_room(struct sim_farm *f);
/* Readout ro sent new event e (triggered at t0) to SFC k: recorded for replay. */
void sim_fo_sent(struct sim_farm *f, uint32_t ro, uint64_t e, uint32_t k, uint64_t t0);
/* SFC k took a piece of id from source (seq: the frame number of its
 * readout's first source). */
void sim_fo_frag(struct sim_farm *f, uint32_t k, uint16_t source, uint64_t id, uint32_t seq);
/* SFC k's release stage is due (EV_RELEASE of chain gen). */
void sim_fo_release(struct sim_farm *f, uint32_t k, uint32_t gen);
/* A release frame reaches a readout (EV_RELEASE_RO). */
void sim_fo_release_heard(struct sim_farm *f, const struct sim_ev *ev);
/* Each readout looks for silent SFCs and replays the dead ones' events. */
void sim_fo_poll(struct sim_farm *f);
/* A paced, interleaved replay is due (EV_REPLAY). */
void sim_fo_replay_due(struct sim_farm *f, const struct sim_ev *ev);
/* Event id has no live SFC to go to: lost (sfc_lost). */
void sim_fo_lost(struct sim_farm *f, uint64_t id);
void sim_fo_decided(struct sim_farm *f, uint32_t node, uint64_t id, int accept);

/* An SFC's join or leave is announced (faults sfc_drain, sfc_undrain). */
void sim_fo_drain(struct sim_farm *f, uint32_t k, int drain);

/* sim_fo_end.c: replay ends, and the survivor's side of replays (13.4, 13.4.1) */
/* SFC k's replay-end and piece records; 0 or -ENOMEM. */
int sim_fo_sfc_ends_init(struct sim_farm *f, uint32_t k);
void sim_fo_sfc_ends_fini(struct sim_farm *f, uint32_t k);
/* SFC k took a piece of source (replayed: flagged) into slot with rc. */
void sim_fo_piece(struct sim_farm *f, uint32_t k, uint16_t source, int replayed,
                  enum sfc_add_result rc, uint32_t slot);
/* SFC k takes a replay end (ev: aux readout, arg F, x the dead place). */
void sim_fo_end_taken(struct sim_farm *f, uint32_t k, const struct sim_ev *ev);
/* SFC k's building events due now, as sfc_dp's expire: the grace while
 * replays come, the replay ends' verdict for replayed ones. Returns how
 * many timed out incomplete; *dropped: their pieces dropped. */
uint32_t sim_fo_expire(struct sim_farm *f, uint32_t k, uint64_t *dropped);
/* Readout ro sends the replay end of place p to every place it routes
 * to, behind its replayed frames (13.4.1). */
void sim_fo_send_ends(struct sim_farm *f, uint32_t ro, uint32_t p);

struct acct_part;

/* sim_fence.c: an SFC held dead while alive fences on dead notices */
/* SFC k's fence state; 0 or -ENOMEM. */
int sim_fence_init(struct sim_farm *f, uint32_t k);
void sim_fence_fini(struct sim_farm *f, uint32_t k);
/* SFC k restarts (a new process): its acks, notices, hold and record
 * from nothing (sim_ledger_retire took its old incarnation from its
 * nodes). */
void sim_fence_restart(struct sim_farm *f, uint32_t k);
/* SFC k's ack of id in slot (before the slot is freed). */
void sim_fence_ack(struct sim_farm *f, uint32_t k, uint32_t slot, uint64_t id, int accept);
/* SFC k's release round is due: 1 when it is muted (the round is lost);
 * else *low, the round's low, is held by the fence's hold and kept. */
int sim_fence_round(struct sim_farm *f, uint32_t k, uint64_t *low);
/* A dead notice reaches its SFC, or its wait is over (EV_NOTICE). */
void sim_fence_notice(struct sim_farm *f, const struct sim_ev *ev);
/* SFC k's fence record into the ledger: out of its acks (ids and digest
 * into d and *digest, counts out of p), into redecided. */
void sim_fence_terms(struct sim_farm *f, uint32_t k, struct ebf_idset *d, uint64_t *digest,
                     struct acct_part *p);

/* sim_ledger.c */
void sim_ledger_close(struct sim_farm *f);
/* SFC k's present incarnation is gone (it died, or restarts now): what
 * its nodes decided below the highest low the readouts accepted from it
 * is of record and its named losses stay; their decisions at or above it
 * were replayed (counted as redecided). Folded into its sim_gone, and
 * its own and its nodes' counters start again from nothing. */
void sim_ledger_retire(struct sim_farm *f, uint32_t k);

#endif /* SIM_FARM_PRIVATE_H */
