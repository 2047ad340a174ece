/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_trigger.h - the node's trigger stage: the plug-in's run, the event it sees, its guarded decide handed back as a decision word. */
#ifndef NODE_DP_TRIGGER_H
#define NODE_DP_TRIGGER_H

#include <stdint.h>

#include "ebfarm/trigger.h"
#include "node_evtab.h"
#include "node_trigger.h"
#include "node_view.h"

/* What one decide builds the plug-in's view of an event in: one per
 * lcore that decides (tp: the view's max_pieces). */
struct node_decide_scratch {
    struct ebf_trigger_piece *tp;
    struct ebf_trigger_fragment frags[EBF_MAX_SOURCES];
};

/* The plug-in of a run and what the built-in emulation is given. */
struct node_dp_trigger_conf {
    const struct node_trigger *trigger;  /* NULL or built-in: the emulation */
    uint32_t run;                /* the run number the plug-in sees */
    uint16_t node_id;
    double accept;               /* the emulation's accept, accept_seed, trigger_us */
    uint64_t accept_seed;
    double trigger_us;
    double timeout_ms;           /* a longer decide is slow; 0: off */
};

/* The plug-in of this run: set by start, read by every deciding lcore. */
struct node_dp_trigger {
    const struct ebf_trigger_plugin *tp;    /* NULL: not started */
    void *tstate;                /* the plug-in's, for this run */
    const struct node_view *v;   /* the held frames; NULL: lengths only */
    int guard;                   /* a loaded plug-in: under the crash guard */
    uint32_t run;
    uint64_t slow_tsc;           /* timeout_ms in TSC cycles; 0: off */
};

/* 1 when c's plug-in reads payload (a loaded one): frames must be held. */
int node_dp_trigger_reads(const struct node_dp_trigger_conf *c);

/* The plug-in's init for this run (a loaded one with its own parameters,
 * the built-in with accept, accept_seed and trigger_us); v: the held
 * frames it decides on, or NULL (lengths only). 0 or -EINVAL (init
 * refused: t->tp NULL). */
int node_dp_trigger_start(struct node_dp_trigger *t, const struct node_dp_trigger_conf *c,
                          const struct node_view *v);

/* The plug-in's fini; nothing when not started. */
void node_dp_trigger_stop(struct node_dp_trigger *t);

/* x's pieces for t's view (none when t reads lengths only): 0 or -ENOMEM. */
int node_decide_scratch_init(struct node_decide_scratch *x, const struct node_dp_trigger *t);
void node_decide_scratch_free(struct node_decide_scratch *x);

/* The plug-in's decision on e (in slot of the held frames) in x's
 * buffers, as one word (NODE_DEC_*, node_tally.h): safe on several lcores
 * at once, each with its own x; counts nothing. */
uint32_t node_dp_trigger_decide(const struct node_dp_trigger *t, const struct node_ev *e,
                                uint16_t slot, struct node_decide_scratch *x);

#endif /* NODE_DP_TRIGGER_H */
