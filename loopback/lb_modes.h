/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_modes.h - the RFC 2544 modes (throughput, latency, loss, back-to-back) over every frame size, on DPDK and on the kernel reference. */
#ifndef LB_MODES_H
#define LB_MODES_H

#include "lb_opts.h"
#include "lb_report.h"
#include "lb_run.h"

/* Called from the main lcore only; each fills r->size[] and adds every
 * trial it runs to r. 0, or a negative errno (-EINTR when *stop was set). */

/*
 * The frame sizes (o->sizes, or the defaults up to max_frame) into r, then
 * o->mode over each of them on the DPDK path of run: the rate found (or the
 * loss points, or the back-to-back burst) and the trial that stands for its
 * latency.
 */
int lb_modes_dpdk(const struct lb_opts *o, struct lb_runner *run, struct lb_report *r,
                  unsigned max_frame);

/*
 * --trials-stdin: the trial function for a search run by another program
 * (CSIT's mlrsearch): each line "LOAD_FPS DURATION_S" on stdin runs one
 * trial of the first frame size on the DPDK path and is answered on stdout
 * with "SENT LOST ACHIEVED_FPS VALID". Returns at end of input: 0, or a
 * negative errno (-EINVAL for a line that is not two positive numbers).
 */
int lb_modes_serve(const struct lb_opts *o, struct lb_runner *run, struct lb_report *r);

/* --compare-kernel: for every size already in r, a throughput search (and
 * in latency mode its latency trial) over the kernel's UDP sockets in the
 * cable's namespaces. Call it after the DPDK ports are closed: it needs the
 * cable to itself. */
int lb_modes_kernel(const struct lb_opts *o, struct lb_report *r, const volatile int *stop);

#endif /* LB_MODES_H */
