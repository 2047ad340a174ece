/* SPDX-License-Identifier: BSD-3-Clause */
/* promtext.h - a farm's metrics snapshots as the Prometheus text exposition format (version 0.0.4). */
#ifndef PROMTEXT_H
#define PROMTEXT_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_hist.h"
#include "ebfarm.pb-c.h"

/*
 * Naming (docs/monitoring.md): prefix "ebfarm_", dots and other characters
 * outside [a-zA-Z0-9_] become '_'; counters end in "_total"; gauges keep
 * their name; histograms in "ns" become "<name less _ns>_seconds" with
 * _bucket/_sum/_count in seconds. Every sample carries farm, run (when
 * the process has a snapshot), component and process, then the snapshot's
 * label (reason, node, source, pool, check, port, lcore); none of them is
 * a label Prometheus sets on a target (instance, job). # HELP comes from the component's counter table (readout/ro_stats.h,
 * sfc/sfc_stats.h, node/node_stats.h, lib/ebf_port_stats.h), each
 * component's own when they differ. Counters that are not metrics (flagged
 * EBF_CF_RUN in their table: digests, id records, the id range, clock
 * bounds; for a metric no table describes, names ending in "_digest" or
 * "_ns", and first_event, last_event) are left out. Each family has one
 * # HELP and one # TYPE line and its samples from every process together,
 * families in the order they first appear. DPDK-free; no global state.
 */

/* At most this many finite le values per histogram (plus +Inf). */
#define PROM_MAX_LE 32

struct prom_proc {
    const char *component;            /* "sfc", "node", "readout" */
    const char *process;              /* the process's name in the farm file */
    const char *farm;                 /* the farm's name, when the snapshot has none */
    const Ebfarm__Snapshot *snap;     /* its latest snapshot; NULL: none yet */
    int up;                           /* a snapshot arrived within 3 periods */
};

/*
 * Write the exposition of n processes to f: ebfarm_up, ebfarm_state and
 * ebfarm_run_number per process, then the snapshots' metrics. Returns 0,
 * -ENOMEM, or -EINVAL when a histogram's buckets are malformed (that
 * histogram is left out, the rest written).
 */
int prom_render(FILE *f, const struct prom_proc *p, unsigned n);

/*
 * The cumulative buckets of h for Prometheus: le_ns[i] (an upper bound, in
 * h's unit) and cum[i] (values <= le_ns[i]), at each non-empty bucket's
 * upper bound; when that gives more than max values, at the ends of groups
 * of whole powers of two (1, 2, 4... powers per group) until it does not.
 * A last bucket without a finite bound is left to +Inf. Returns the count.
 */
unsigned prom_hist_buckets(const struct ebf_hist *h, unsigned max, uint64_t *le_ns,
                           uint64_t *cum);

/* v / div written exactly in decimal ("0.000001536", "12"): div is 1 or 1e9. */
void prom_decimal(char *buf, size_t len, uint64_t v, uint64_t div);

#endif /* PROMTEXT_H */
