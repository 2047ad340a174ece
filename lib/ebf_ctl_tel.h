/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_tel.h - the daemon's state, counters, gauges and histograms as DPDK telemetry commands (/ebfarm/...). */
#ifndef EBF_CTL_TEL_H
#define EBF_CTL_TEL_H

#include "ebf_ctl_types.h"
#include "ebf_metrics.h"

/* Register the /ebfarm/... commands, once per process; any thread. */
void ebf_ctl_tel_register(void);

/* Control thread: keep a copy of the metric list ms and of the status st
 * for the telemetry commands (the only thing they read, under a lock of
 * their own). */
void ebf_ctl_tel_publish(const struct ebf_metrics *ms, const struct ebf_ctl_status *st);

#endif /* EBF_CTL_TEL_H */
