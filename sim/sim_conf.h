/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_conf.h - what a simulated farm is: sizes, links, switch buffers, costs, trigger times, faults. */
#ifndef SIM_CONF_H
#define SIM_CONF_H

#include <stddef.h>
#include <stdint.h>

/*
 * The simulator's configuration. A farm file gives it in two parts: the
 * farm's own keys (run.rate, run.sources, its SFCs and nodes: the
 * defaults, taken by the caller) and the `sim:` section, whose keys are
 * set one by one with sim_conf_set (docs/scale.md lists every key, its
 * unit and meaning).
 */

#define SIM_MAX_FAULTS 16
#define SIM_MAX_PIECES 512
#define SIM_REPLAY_HOLD_S 1.0    /* a full replay buffer holds the trigger this long, then
                                  * drops its oldest record (docs/protocol.md 13.3) */       /* frames a fragment (an event's tag has 9 bits for it) */

enum sim_dist { SIM_DIST_FIXED, SIM_DIST_EXP, SIM_DIST_LOGNORMAL };

enum sim_fault_kind {
    SIM_FAULT_NODE_DEATH,        /* node dies for good */
    SIM_FAULT_SFC_DEATH,         /* SFC dies for good */
    SIM_FAULT_NODE_STALL,        /* node stops processing for a while */
    SIM_FAULT_LINK_LOSS,         /* a source's link drops every frame for a while */
    SIM_FAULT_NODE_RESTART,      /* a (dead) node starts again with a new epoch */
    SIM_FAULT_SFC_RESTART,       /* an SFC dies and starts again FOR_S later (failover) */
    SIM_FAULT_SFC_DRAIN,         /* an SFC announces a leave (failover, `ebfarm drain`) */
    SIM_FAULT_SFC_UNDRAIN,       /* a drained SFC announces a join (`ebfarm undrain`) */
    SIM_FAULT_SFC_MUTE,          /* an SFC sends no release frame for FOR_S, its loop
                                  * running (failover, the SFC's test action `mute`) */
};

struct sim_fault {
    enum sim_fault_kind kind;
    uint32_t target;             /* node (global index), SFC or source */
    double at_s, for_s;          /* when, how long (stall, link loss) */
};

struct sim_conf {
    uint32_t sources, sfcs, nodes_per_sfc;
    double rate_hz;              /* triggers per second */
    int poisson;                 /* arrivals: 0 fixed period, 1 Poisson */
    uint32_t frag_bytes;         /* fragment payload per source per event */
    uint32_t mtu;                /* IP MTU: fragments split into pieces */
    double link_gbps, link_latency_us;
    double switch_buffer_kb;     /* per output port */
    double ro_spread_us;         /* source s sends an event's fragment s / sources of
                                  * this after the trigger (pacing; 0: all at once) */
    double ro_frame_ns;          /* readout cost per frame sent */
    double sfc_frame_ns;         /* SFC cost per frame received (fragments, acks) */
    double sfc_event_ns;         /* SFC cost per event dispatched */
    enum sim_dist trigger;       /* node's time per event */
    double trigger_us, trigger_sigma;
    double accept;               /* fraction of events the nodes accept */
    uint32_t credits;            /* per node */
    uint32_t capacity;           /* SFC event table */
    double timeout_ms;           /* building -> incomplete */
    double node_timeout_ms;      /* a silent node is declared dead */
    double sfc_timeout_ms;       /* readouts give a silent SFC up */
    double throttle_on, throttle_off;   /* table fill */
    uint64_t seed;
    double duration_s;           /* triggers for this long */
    double drain_s;              /* then at most this long for the last acks */
    uint32_t failover;           /* 1: release frames, replay buffer, route over the live
                                  * SFCs (docs/protocol.md 13); 0: a dead SFC's share is lost */
    double release_ms;           /* failover: an SFC's release period */
    double sfc_dead_ms;          /* failover: the readouts' detection bound */
    double replay_mb;            /* failover: each readout's replay buffer, MiB */
    double replay_gap_us;        /* failover: replayed events this far apart (0: back to back) */
    uint32_t replay_interleave;  /* failover: 1: paced replays go between new events */
    uint32_t ack_port;           /* 1: acks take the SFC's switch port (can drop) */
    uint32_t rx_ring;            /* an SFC's receive descriptors while its intake pauses
                                  * (0: no intake pause) */
    double idle_sleep_us;        /* the SFCs' and nodes' idle back-off: its sleep cap
                                  * (lib/ebf_idle.c: 200); 0: they spin (sim/sim_idle.h) */
    double idle_extra_us;        /* what a sleep takes beyond what it asks (timer slack) */
    double idle_spin_us;         /* the polling before the first sleep */
    uint32_t readouts;           /* the sources shared out in order, as evenly as they go */
    double ro_skew_us;           /* readout r of R sends each event r / (R - 1) of this
                                  * after readout 0 (each paces from its own start, and
                                  * the runner starts them one after another); 0: together */
    double ro_release_lag_ms;    /* failover: readout r of R hears the release frames
                                  * r / (R - 1) of this after readout 0 (its link, its poll
                                  * phase), so it detects a death that much later; 0 */
    uint32_t replay_lost_piece;  /* failover: 1: a survivor judges a replayed event that
                                  * times out by the readouts that sent none of it (one
                                  * that sent a piece lost the rest on the way: no proof;
                                  * none such: built incomplete), as the SFC daemon does
                                  * (sfc_dp_replay_proven); 0: the daemon's old rule */
    double release_loss;         /* failover: each release frame to a readout is lost with
                                  * this probability (the run's generator); 0 */
    unsigned n_faults;
    struct sim_fault fault[SIM_MAX_FAULTS];
};

/* Defaults: a small farm (4 sources, 1 SFC, 4 nodes, 1 kHz, 10 GbE). */
void sim_conf_defaults(struct sim_conf *c);

/* Set key from its text value. 0, or -EINVAL with err naming the key, the
 * value and what is allowed ("key 'sim.foo' is not allowed (allowed: ...)"
 * for an unknown key). */
int sim_conf_set(struct sim_conf *c, const char *key, const char *value, char *err,
                 size_t errlen);

/* Add a fault from "KIND TARGET AT_S [FOR_S]" (KIND: node_death,
 * sfc_death, node_stall, link_loss, node_restart, sfc_restart, sfc_drain,
 * sfc_undrain); 0 or
 * -EINVAL with err. */
int sim_conf_fault(struct sim_conf *c, const char *text, char *err, size_t errlen);

/* Cross checks (design limits, ranges, fault targets). 0 or -EINVAL. */
int sim_conf_check(const struct sim_conf *c, char *err, size_t errlen);

/* The keys, "a, b, c", for messages. */
const char *sim_conf_keys(void);

#endif /* SIM_CONF_H */
