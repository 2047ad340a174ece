/* SPDX-License-Identifier: BSD-3-Clause */
/* topview.h - ebfarm top's numbers (rates, interval percentiles, totals) and its text frame. */
#ifndef TOPVIEW_H
#define TOPVIEW_H

#include <stdint.h>
#include <stdio.h>

#include "acct.h"
#include "ebf_hist.h"
#include "ebfarm.pb-c.h"

/*
 * Everything here works on received snapshots only (no sockets, no
 * terminal), so that the numbers can be tested on synthetic snapshots.
 * docs/monitoring.md explains every column. Any thread; no global state.
 */

/* The rate of counter name (label value lv; NULL: unlabelled) in events
 * per second: (cur - prev) / (cur.time_ns - prev.time_ns). A counter that
 * went down (a new run) counts from 0. -1 when prev is NULL, the time did
 * not advance, or either snapshot lacks the counter. */
double top_rate(const Ebfarm__Snapshot *prev, const Ebfarm__Snapshot *cur, const char *name,
                const char *lv);

/* Per second: frames, events and payload gigabits; -1 when unknown. */
struct top_rates {
    double frames, events, gbit;
};

/*
 * The rates of a process of this component ("readout": frames, events,
 * payload_bytes; "sfc": rx.frames, events.sent, tx.payload_bytes; "node":
 * rx.frames, events, payload_bytes).
 */
void top_rates(const char *component, const Ebfarm__Snapshot *prev, const Ebfarm__Snapshot *cur,
               struct top_rates *r);

/*
 * The values recorded between two snapshots of a histogram: cur's bucket
 * counts less prev's, count and sum likewise, min 0 and max cur's (an
 * upper bound). When nothing was recorded in between, prev is NULL or a
 * count went down (a new run), out is cur itself. Returns 1 for the
 * interval, 0 for the fallback to cur, -EINVAL for malformed buckets.
 */
int top_hist_window(const Ebfarm__Histogram *prev, const Ebfarm__Histogram *cur,
                    struct ebf_hist *out);

/* One process as top shows it. */
struct top_proc {
    const char *name, *component;
    const Ebfarm__Snapshot *prev, *cur;   /* NULL until received */
    int stale;                            /* cur is older than 3 periods */
    int rejoined;                         /* the caller saw another epoch in this run */
    int placed, place;                    /* placed: place is an SFC's place in the readouts'
                                           * sfcs, or a node's SFC's (farm_spec_place); -1
                                           * or not placed: not known */
    int gone;                             /* the process has exited (status's EXITED) */
};

/*
 * One frame of plain text: a title naming the farm, a header, a line per
 * process (NAME ROLE STATE RUN FRAMES/S EVENTS/S GBIT/S) followed by its
 * detail lines (queues and credits, latency p50/p99 of the last interval
 * and of the run, non-zero rejects,
 * drops and losses by reason), and the totals line.
 */
void top_frame(FILE *f, const char *farm, const struct top_proc *p, unsigned n);

/*
 * top_frame for a terminal of width columns and height lines (0: no
 * limit). When the row does not fit, the columns narrow (NAME to the
 * longest name), then GBIT/S, RUN, ROLE and FRAMES/S are dropped in that
 * order until it fits, and a line "dropped columns: GBIT/S RUN" names
 * them; when the lines do not fit, the detail lines go, and the line
 * "dropped detail lines: too few rows" says so. Longer lines are cut.
 */
void top_frame_fit(FILE *f, const char *farm, const struct top_proc *p, unsigned n,
                   unsigned width, unsigned height);

/*
 * The mark of node row p among the n processes of all: "dead" when an SFC
 * whose node_epoch gauge names p's epoch says node_alive 0 for that node;
 * "rejoined" when p->rejoined is set or p's epoch changed between its two
 * newest snapshots of the same run (a restarted node); NULL otherwise and
 * for other roles.
 */
const char *top_node_mark(const struct top_proc *all, unsigned n, const struct top_proc *p);

/*
 * The farm's totals of the n processes (acct.h), as top's totals line
 * shows them: a process without a snapshot, or with a stale one, gave no
 * counters and is named in t->missing; a node at the place of such an SFC
 * stands in for it.
 */
void top_totals(const struct top_proc *p, unsigned n, struct acct_totals *t);

#endif /* TOPVIEW_H */
