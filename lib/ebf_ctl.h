/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl.h - a daemon's control thread: ZeroMQ run control, metrics publisher, rings to the lcore. */
#ifndef EBF_CTL_H
#define EBF_CTL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ebf_ctl_types.h"
#include "ebf_cycles.h"
#include "ebf_fsm.h"
#include "ebf_idle.h"
#include "ebf_metrics.h"

/*
 * The control thread owns the ZeroMQ sockets and the state machine
 * (ebf_fsm). It never touches data-plane state: it sends requests on a ring
 * that the data-plane lcore polls, and reads the answers on a second ring.
 * Run parameters are validated on the control thread into a copy of the
 * daemon's parameter struct, which the lcore then adopts.
 *
 * Threads: ebf_ctl_create/destroy and ebf_ctl_signal from main;
 * ebf_ctl_serve on the data-plane lcore; everything else is internal.
 */

enum ebf_op {
    EBF_OP_CONFIGURE,            /* adopt req->conf */
    EBF_OP_RESET,                /* back to the command-line parameters */
    EBF_OP_START,                /* fresh counters, run req->run_number */
    EBF_OP_PAUSE,
    EBF_OP_RESUME,
    EBF_OP_STOP,                 /* drain; answered when drained */
    EBF_OP_SNAPSHOT,             /* copy counters and gauges into req->snap */
    EBF_OP_ACT,                  /* the daemon's action req->act on the run */
    EBF_OP_EXIT,                 /* leave ebf_ctl_serve (the last) */
};

struct ebf_req {
    enum ebf_op op;
    uint32_t run_number;
    uint64_t start_at_ns;        /* START: event 0 due at (CLOCK_REALTIME ns); 0: now */
    const void *conf;            /* CONFIGURE */
    void *snap;                  /* SNAPSHOT, STOP: filled by the lcore */
    int finished;                /* SNAPSHOT, STOP: the run has nothing left to do */
    struct ebf_ctl_param act;    /* ACT: the action's name (key) and argument (value) */
    int rc;                      /* 0 or -errno, from the lcore */
    char err[256];               /* why rc != 0 */
};

/* What a daemon plugs in. */
struct ebf_ctl_ops {
    const char *component;       /* "readout", "sfc", "node" */
    size_t conf_size;            /* run-parameter struct */
    size_t snap_size;            /* counters + gauges copied by the lcore */
    /* Control thread: set one run parameter in conf. 0, or -EINVAL with
     * err naming the key, the value and what is allowed. key and value are
     * checked text (no NUL inside, within EBF_CTL_KEY_MAX and
     * EBF_CTL_VALUE_MAX), each key at most once per configure. */
    int (*param)(void *conf, const char *key, const char *value, char *err, size_t len);
    /* Control thread: the metric list of a snapshot. */
    void (*metrics)(const void *snap, struct ebf_metrics *ms);
    /* Control thread (or main, for the stats file): the ports' counters
     * and link into a snapshot the lcore just filled, from the command
     * line's conf (ebf_ctl_conf.conf), so that rte_eth_stats_get and the
     * link query stay off the data-plane lcore. NULL: none. */
    void (*ports)(const void *conf, void *snap);

    /* Lcore: apply a request other than STOP and EXIT; 0 or -errno with
     * r->err set. */
    int (*apply)(void *dp, struct ebf_req *r);
    /* Lcore: begin the drain of the run. */
    void (*stop)(void *dp);
    /* Lcore: one pass of the data plane; sets *drained once a drain begun
     * by stop() is complete. Returns the work done (0: idle). */
    unsigned (*poll)(void *dp, int *drained);
    /* Lcore: fill snap; *finished when the run has nothing left to do. */
    void (*snapshot)(void *dp, void *snap, int *finished);
    /* Optional, lcore, with every snapshot: 1 when the data plane failed
     * on its own while running (a node's storage hit a write error), with
     * why naming what failed; the daemon then goes to ERROR with why. */
    int (*fault)(void *dp, char *why, size_t len);
};

struct ebf_ctl_conf {
    const char *instance;        /* the process's name */
    const char *control;         /* REP endpoint; NULL: standalone */
    const char *metrics;         /* PUB endpoint; NULL: none */
    const char *curve_keys;      /* key directory (ebf_curve.h): CURVE on tcp:// endpoints */
    int insecure;                /* tcp:// without keys allowed */
    double period_ms;            /* metrics period (1000) */
    const void *conf;            /* the command line's run parameters */
    int autostart;               /* configure and start run 1 at once */
    int exit_when_finished;      /* stop and exit when the run is finished */
    double reply_timeout_s;      /* the lcore must answer within this (5) */
    /* Refused requests are logged at most refusal_log_burst times per
     * refusal_log_window_s, then counted and reported (10 per 10 s). */
    unsigned refusal_log_burst;
    double refusal_log_window_s;
};

struct ebf_ctl;

/* Bind the endpoints, create the rings, start the control thread. NULL with
 * errno set and a message on stderr naming the endpoint. A tcp:// endpoint
 * needs curve_keys (then only the listed clients get through) or insecure
 * (EPERM otherwise); an ipc:// path that exists and is not a socket is
 * never replaced (EEXIST). */
struct ebf_ctl *ebf_ctl_create(const struct ebf_ctl_conf *c, const struct ebf_ctl_ops *ops);

/* Join the control thread (it ends after SHUTDOWN) and free everything. */
void ebf_ctl_destroy(struct ebf_ctl *ctl);

/*
 * Lcore: run the data plane under control until SHUTDOWN. Requests are
 * polled every few passes and whenever the data plane is idle. Every pass
 * ends in ebf_cycles_pass_end(cycles, idle, work): cycles counts the run's
 * busy and idle cycles, from a START it applies (zeroed just before) to the
 * end of the pass that completed the run's drain (the final snapshot
 * includes that pass); between runs it keeps its values. The data plane's
 * snapshot op copies it (ebf_cycles_read) on this lcore.
 */
void ebf_ctl_serve(struct ebf_ctl *ctl, void *dp, struct ebf_idle *idle,
                   struct ebf_cycles *cycles);

/*
 * Lcore: answer the requests waiting now. For data planes that block in a
 * loop of their own (a readout retrying refused frames): call it from there.
 */
void ebf_ctl_service(struct ebf_ctl *ctl, void *dp);

/*
 * Main, after ebf_ctl_serve returned: the data plane's counters now (the
 * ports' from conf, ops->ports), as a stats file at path (written
 * atomically). 0, or -1 with errno set.
 */
int ebf_ctl_write_stats(const struct ebf_ctl_ops *ops, void *dp, const void *conf,
                        const char *path);

/* Signal handler: SIGINT/SIGTERM. The first asks for a staged stop and
 * exit; a second one sets *ebf_ctl_force, which data planes honour by
 * abandoning what they cannot finish (counted). */
void ebf_ctl_on_signal(int sig);
extern volatile sig_atomic_t ebf_ctl_force;

/* The farm name of the last configure ("" before one). Lcore, while it
 * applies a request (the configure's answer came before). */
const char *ebf_ctl_farm(const struct ebf_ctl *ctl);

/* Final state and the last run's final snapshot (valid after the lcore
 * left ebf_ctl_serve); NULL when no run was stopped. */
const void *ebf_ctl_final(const struct ebf_ctl *ctl);
enum ebf_state ebf_ctl_state(const struct ebf_ctl *ctl);

#endif /* EBF_CTL_H */
