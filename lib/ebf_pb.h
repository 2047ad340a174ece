/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_pb.h - metric lists to and from protobuf snapshots (control path only). */
#ifndef EBF_PB_H
#define EBF_PB_H

#include <stdint.h>

#include "ebf_hist.h"
#include "ebf_kv.h"
#include "ebf_metrics.h"
#include "ebfarm.pb-c.h"

/*
 * A Snapshot message built from a metric list. It borrows the list's names
 * and histograms' buckets are copied into it, so it must be freed with
 * ebf_pb_snapshot_free() before the list is cleared. NULL on ENOMEM.
 */
Ebfarm__Snapshot *ebf_pb_snapshot(const struct ebf_metrics *ms, const char *component,
                                  const char *instance, uint64_t seq, uint32_t run_number,
                                  int state);
void ebf_pb_snapshot_free(Ebfarm__Snapshot *s);

/* Counters and histograms of a received snapshot as stats-file pairs, with
 * the keys ebf_metrics_write_kv() would write. 0 or -ENOMEM. */
int ebf_pb_snapshot_kv(const Ebfarm__Snapshot *s, struct ebf_kv *kv);

/* A received histogram back into an ebf_hist; -EINVAL for a bucket index
 * out of range or mismatched arrays. */
int ebf_pb_hist(const Ebfarm__Histogram *pb, struct ebf_hist *h);

/* The counter of this name and label value (NULL: none) in s, or def. */
uint64_t ebf_pb_counter(const Ebfarm__Snapshot *s, const char *name, const char *label_value,
                        uint64_t def);
double ebf_pb_gauge(const Ebfarm__Snapshot *s, const char *name, const char *label_value,
                    double def);
const Ebfarm__Histogram *ebf_pb_find_hist(const Ebfarm__Snapshot *s, const char *name);

#endif /* EBF_PB_H */
