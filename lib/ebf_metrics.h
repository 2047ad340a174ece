/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_metrics.h - a daemon's counters, gauges and histograms as a named list (control path). */
#ifndef EBF_METRICS_H
#define EBF_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_hist.h"

/*
 * A metric has a dotted name ("rx.reject") and at most one label
 * ("reason" = "bad_checksum"). The same list feeds the protobuf snapshot,
 * the Prometheus exporter and the stats file, where its key is the name
 * followed by ".<label value>" ("rx.reject.bad_checksum"). Histograms point
 * at the caller's struct ebf_hist, which must outlive the list. Built on the
 * control path from a copy of the data plane's counters; not for lcores.
 */

/* The gauge every daemon's snapshots carry beside its own metrics: its
 * resident memory (VmRSS) in bytes, read by its control
 * thread each metrics period (ebf_ctl). */
#define EBF_METRIC_RSS_BYTES "process.rss_bytes"

/* The counter every daemon's snapshots carry beside its own metrics:
 * control requests refused, labelled reason (ebf_ctl, "control.requests_refused"). */
#define EBF_METRIC_CTL_REFUSED "control.requests_refused"

enum ebf_metric_kind {
    EBF_M_COUNTER,
    EBF_M_GAUGE,
    EBF_M_HIST,
};

struct ebf_metric {
    enum ebf_metric_kind kind;
    char name[40];
    char label[16];              /* "" when none */
    char label_value[40];
    uint64_t count;              /* EBF_M_COUNTER */
    double value;                /* EBF_M_GAUGE */
    const struct ebf_hist *hist; /* EBF_M_HIST */
};

struct ebf_metrics {
    unsigned n, cap;
    int overflow;                /* a metric did not fit */
    struct ebf_metric *m;
};

/* 0, or -ENOMEM. */
int ebf_metrics_init(struct ebf_metrics *ms, unsigned cap);
void ebf_metrics_free(struct ebf_metrics *ms);
void ebf_metrics_clear(struct ebf_metrics *ms);

void ebf_metrics_counter(struct ebf_metrics *ms, const char *name, uint64_t v);
void ebf_metrics_counter_l(struct ebf_metrics *ms, const char *name, const char *label,
                           const char *label_value, uint64_t v);

/* A counter per index i in [first, n) labelled label=name_of(i); with
 * skip_zero, zero entries are left out (for long sparse tables). */
void ebf_metrics_counter_each(struct ebf_metrics *ms, const char *name, const char *label,
                              const uint64_t *v, unsigned first, unsigned n,
                              const char *(*name_of)(unsigned i), int skip_zero);

/* The same with the index itself as the label value ("source" = "3"). */
void ebf_metrics_counter_index(struct ebf_metrics *ms, const char *name, const char *label,
                               const uint64_t *v, unsigned n, int skip_zero);

/* A ledger id record (proto/ebf_idset.h) of n cells as the counters
 * "<name>.count", "<name>.id_sum" and "<name>.hash_sum", labelled by "cell",
 * zero cells left out. */
void ebf_metrics_id_record(struct ebf_metrics *ms, const char *name, const uint64_t *count,
                           const uint64_t *id_sum, const uint64_t *hash_sum, unsigned n);

void ebf_metrics_gauge(struct ebf_metrics *ms, const char *name, const char *label,
                       const char *label_value, double v);
void ebf_metrics_hist(struct ebf_metrics *ms, const char *name, const struct ebf_hist *h);

/* The first metric of this kind, name and label value (NULL: any), or NULL. */
const struct ebf_metric *ebf_metrics_find(const struct ebf_metrics *ms, enum ebf_metric_kind k,
                                          const char *name, const char *label_value);

/* Write every counter and histogram as stats-file lines ("key value");
 * histograms under "hist.<name>" (ebf_hist_write). Gauges are left out. */
void ebf_metrics_write_kv(const struct ebf_metrics *ms, FILE *f);

#endif /* EBF_METRICS_H */
