/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_meta.h - what a benchmark ran on: CPU model and frequency, DPDK version, date. */
#ifndef BENCH_META_H
#define BENCH_META_H

#include <stdio.h>

#include "bench_report.h"

/* Fill the CPU fields from cpuinfo (a /proc/cpuinfo stream): the first
 * "model name" and "cpu MHz"; absent ones stay "unknown" and 0. */
void bench_meta_cpu(struct bench_meta *m, FILE *cpuinfo);

/* Fill m for this machine now: CPU (/proc/cpuinfo), online CPUs, the DPDK
 * version the tools were built against, the UTC date. The caller sets the
 * driver, frame and fragment sizes, pairs and quick. */
void bench_meta_collect(struct bench_meta *m);

#endif /* BENCH_META_H */
