/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_plug.h - the run-control plug: one runner of runs over a daemon's data-plane vtable. */
#ifndef EBF_PLUG_H
#define EBF_PLUG_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_ctl.h"

/*
 * Every daemon runs its data plane the same way under run control: a
 * configure adopts new parameters, a reset goes back to the command line's,
 * a start makes a fresh data plane (new tables, credits and counters) from
 * the parameters, pause and resume hold and release intake, and a stop
 * drains. struct ebf_plug does that once; a daemon gives it the few
 * operations that are its own (struct ebf_plug_ops) and its own snapshot
 * and metrics (struct ebf_ctl_ops), with ebf_plug_apply, ebf_plug_stop and
 * ebf_plug_poll as the ctl ops' apply, stop and poll, and the plug as the
 * "dp" that ebf_ctl_serve passes back.
 *
 * Threads: ebf_plug_init/fini from main; everything else on the data-plane
 * lcore (the control thread reaches it through ebf_ctl's rings).
 */

struct ebf_plug_ops {
    /* A data plane for parameters conf: run is 0 for the first run (and
     * the one made at init), else the run number. NULL with errno set. */
    void *(*create)(void *ctx, const void *conf, uint32_t run);
    void (*destroy)(void *ctx, void *dp);
    /* Optional: check, and complete, parameters a configure brings; 0, or
     * -EINVAL with err naming the parameter. */
    int (*check)(void *conf, char *err, size_t len);
    /* Optional: the run on dp starts now (clocks, schedules); 0 or -EINVAL
     * with err set. */
    int (*begin)(void *ctx, void *dp, char *err, size_t len);
    /* One pass of the data plane; intake 0 while paused (do only what keeps
     * the peers alive, or nothing). Returns the work done (0: idle). */
    unsigned (*poll)(void *dp, int intake);
    /* Optional: the stop begins the drain. */
    void (*drain_begin)(void *dp);
    /* One pass of the drain; *done once it is complete. */
    unsigned (*drain_poll)(void *dp, int *done);
    /* Optional: paused 1 at pause, 0 at resume. */
    void (*pause)(void *dp, int paused);
    /* Optional: the action name (with its argument value) on the run in
     * progress (command ACT); 0, or -errno with err saying why not. */
    int (*act)(void *dp, const char *name, const char *value, char *err, size_t len);
};

struct ebf_plug {
    const struct ebf_plug_ops *ops;
    void *ctx;                   /* the daemon's own, passed to create, destroy, begin */
    void *conf;                  /* the next run's parameters (conf_size bytes) */
    void *initial;               /* the command line's */
    void *scratch;               /* a configure under check */
    size_t conf_size;
    void *dp;                    /* the data plane of the current or last run */
    struct ebf_ctl *ctl;         /* for ebf_plug_yield; set once control runs */
    int running, paused, stopping;
    int used;                    /* dp has run: the next start makes a fresh one */
    uint32_t run;                /* the run number of the current or last start */
    uint64_t start_at_ns;        /* its START's instant of event 0 (CLOCK_REALTIME); 0: now */
    struct ebf_cycles cycles;    /* the lcore's busy and idle cycles (ebf_ctl_serve) */
};

/*
 * Set p up: conf (the daemon's parameter struct, size bytes) is copied to
 * initial, and a data plane is made from it at once, so that parameters it
 * refuses are refused at start; it serves the first run unless a configure
 * changed the parameters. 0, or -errno (p is then empty).
 */
int ebf_plug_init(struct ebf_plug *p, const struct ebf_plug_ops *ops, void *ctx, void *conf,
                  void *initial, size_t size);

/* Destroy the data plane and what init allocated. */
void ebf_plug_fini(struct ebf_plug *p);

/* The ebf_ctl_ops members; arg is the struct ebf_plug. */
int ebf_plug_apply(void *arg, struct ebf_req *r);
void ebf_plug_stop(void *arg);
unsigned ebf_plug_poll(void *arg, int *drained);

/* The run's lcore cycles (loop 0) and the TSC rate, for the daemon's
 * snapshot: on the lcore, or on main once it left ebf_ctl_serve. */
void ebf_plug_lcore_stats(const struct ebf_plug *p, struct ebf_lcore_stats *out);

/*
 * For data planes that block in a loop of their own (a readout while the
 * port refuses frames): answer the control requests waiting now. arg is
 * the struct ebf_plug; harmless before control runs.
 */
void ebf_plug_yield(void *arg);

#endif /* EBF_PLUG_H */
