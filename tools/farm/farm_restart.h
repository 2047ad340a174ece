/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_restart.h - one process of a running farm restarted into its run; an SFC drained and given its share back. */
#ifndef FARM_RESTART_H
#define FARM_RESTART_H

#include <stddef.h>
#include <stdint.h>

#include "farm_types.h"

/* The process called name in st, or NULL. */
struct farm_proc *farm_proc_named(const struct farm_state *st, const char *name);

/* What a restart did, for its report. */
struct farm_restart_info {
    int was_running;             /* the old process ran (else it had exited) */
    int killed;                  /* it was killed (a node, an SFC, a readout that did
                                  * not stop in stages) */
    uint32_t run;                /* the run it was started into; 0: none in progress */
    uint64_t from_event;         /* a readout: its first event id; an SFC: the join id */
    uint64_t last_event;         /* a readout stopped in stages: its last event before */
    double took_s;               /* from the stop to the restarted process in the run */
    double dead_after_s;         /* a node or an SFC: from its freeze until its peers
                                  * declared it dead (the SFC: every readout); -1: they
                                  * did not within 10 s */
    unsigned marked;             /* an SFC: its place's nodes given the ledger's mark
                                  * of its old incarnation (farm_mark_restart) */
    uint64_t below;              /* then: their decisions outside the marks' records */
};

/*
 * Restart process name of st (brought up from spec, daemons in build):
 * stop it, start it again with the same command line, configure it and,
 * when a run is in progress, start it into that run. By role:
 *
 * - a node: SIGSTOP, SIGKILL once its SFC declared it dead (as
 *   farm_kill_node_after); the new process rejoins its SFC with a new
 *   epoch;
 * - a readout: the staged stop of that one process and a shutdown
 *   (SIGKILL when it does not answer); the new one begins at the event
 *   after the last that any readout generated (control parameter rejoin);
 * - an SFC (failover on, another SFC live): SIGSTOP, SIGKILL once every
 *   readout declared it dead; the new one announces a join at an event id
 *   the margin ahead of every readout (action join).
 *
 * Its log goes to <name>.restart<N>.log. 0 with info filled, or -1 with
 * err naming what was wrong (no such process, an SFC without failover or
 * with no other SFC live) or which step failed.
 */
int farm_restart(struct farm_state *st, const struct farm_spec *spec, const char *build,
                 const char *name, struct farm_restart_info *info, char *err, size_t len);

/* Work a caller does while farm_drain waits, about every 50 ms: ebfarm
 * soak samples its intervals there, so that they go on through a drain. */
struct farm_idle {
    void (*fn)(void *arg);
    void *arg;
};

/* What a drain or an undrain did, for its report. */
struct farm_drain_info {
    uint64_t at;                 /* the leave or join id */
    double took_s;               /* until the SFC held nothing (drain) or every readout
                                  * passed the join id (undrain) */
};

/*
 * Drain (drain 1) SFC name of st: it announces a leave id to the
 * readouts, which route its share to the others from there; wait until
 * every readout generated past that id and the SFC holds nothing
 * (nothing building, ready or unacked). Undrain (drain 0): it announces a
 * join id the margin ahead of every readout; wait until every readout
 * passed it. At most timeout_s; idle (NULL: none) is called while it
 * waits. 0 with info, or -1 with err: no such
 * process, not an SFC, failover off, no run in progress, the last live
 * SFC, already drained / not drained, or the wait timed out.
 */
int farm_drain(const struct farm_state *st, const struct farm_spec *spec, const char *name,
               int drain, double timeout_s, const struct farm_idle *idle,
               struct farm_drain_info *info, char *err, size_t len);

#endif /* FARM_RESTART_H */
