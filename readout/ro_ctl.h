/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_ctl.h - the readout under run control: parameters, runs, snapshots, metrics. */
#ifndef RO_CTL_H
#define RO_CTL_H

#include "ebf_ctl.h"
#include "ebf_plug.h"
#include "ro_gen.h"
#include "ro_stats.h"

/* One run: the readout's data plane, made afresh at every start. */
struct ro_run {
    struct ro_conf conf;         /* the run's parameters and fault stage; g points here */
    struct ro_gen g;
    struct ro_stats st;
    uint64_t pause_tsc;
};

/* The readout's run-control plug; the control thread only passes it back
 * to the ops. */
struct ro_runner {
    struct ebf_plug plug;        /* dp: a struct ro_run */
    struct ro_conf conf;         /* the run's parameters, adopted from control */
    struct ro_conf initial;      /* the command line's */
};

extern const struct ebf_ctl_ops ro_ctl_ops;

/* Set up r from the command line's conf; the conf's yield hook is pointed
 * at the control service, so requests are answered under back-pressure.
 * 0, or -errno when the first run's fault stage cannot be made. */
int ro_runner_init(struct ro_runner *r, const struct ro_conf *c);

/* Free what the runs left (the last run and its fault stage). */
void ro_runner_fini(struct ro_runner *r);

/* 1 when the last run ended for lack of mbufs. */
int ro_runner_failed(const struct ro_runner *r);

/* Set run parameter key in conf (control thread): events, rate, duration_s,
 * frag_size, frag_min, frag_max, frag_dist (fixed|uniform|lognormal),
 * frag_mean, frag_sigma, seed, faults (a --faults spec, or none: it replaces
 * the frame faults), fault_seed, silence (S@E or none), burst_events,
 * burst_gap_us. 0 or -EINVAL with err set; the checks across keys come when
 * the lcore adopts the configuration. */
int ro_param(void *conf, const char *key, const char *value, char *err, size_t len);

/* The checks that take several parameters together, when a configure is
 * adopted (on the lcore): frag_min <= frag_max, events that fit the frames
 * an SFC sends of one, the log-normal parameters (derived here), silence,
 * bursts. 0 or -EINVAL with err naming the parameter. */
int ro_conf_check(void *conf, char *err, size_t len);

#endif /* RO_CTL_H */
