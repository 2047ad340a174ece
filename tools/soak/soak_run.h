/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_run.h - ebfarm soak: a farm run for a set time, sampled every interval, judged and reported. */
#ifndef SOAK_RUN_H
#define SOAK_RUN_H

#include "soak_verdict.h"

struct soak_opts {
    const char *farm_file;
    double duration_s, interval_s;
    int json;                    /* JSON lines on stdout (live lines go to stderr) */
    const char *out_dir;         /* NULL: soak-<farm>-run<N> in the working directory */
    double kill_every_s;         /* SIGSTOP+SIGKILL a node, then start it again; 0: never */
    double stall_every_s;        /* SIGSTOP every node until throttled, hold, SIGCONT; 0: never */
    double stall_ms;             /* how long a stall holds after the throttle */
    double kill_sfc_every_s;     /* freeze, kill and restart an SFC (failover on); 0: never */
    double drain_sfc_every_s;    /* drain an SFC, then undrain it (failover on); 0: never */
    struct soak_bounds bounds;
};

/*
 * The soak: loads the farm file; attaches to the farm when it is up and
 * RUNNING (its run is soaked, and stopped at the end but the farm stays
 * up), else brings it up with run.events 0 and no duration limit and
 * starts its next run (and takes it down at the end). Samples every
 * process's metrics snapshots every interval_s, with the faults asked for,
 * until duration_s has passed or a signal came (Ctrl-C: the soak ends
 * early, still stopped and judged); then the staged stop, the final
 * counters as the last interval, the ledger, the verdict, and the report
 * in out_dir: soak.jsonl, soak.csv, soak.html. Returns the exit status: 0
 * for a passing verdict, 1 for a failing one, 2 when the soak could not
 * run (a message says why), 130/143 after a signal.
 */
int soak_run(const struct soak_opts *o);

#endif /* SOAK_RUN_H */
