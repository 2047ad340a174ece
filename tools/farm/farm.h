/* SPDX-License-Identifier: BSD-3-Clause */
/* farm.h - the demo: a whole farm (readout, SFC, nodes) run once as processes on this host over memif. */
#ifndef FARM_H
#define FARM_H

#include "farm_collect.h"
#include "farm_demo.h"
#include "farm_types.h"

/*
 * The demo farm file shaped by c (farm_demo_spec: nodes, run parameters),
 * brought up in a fresh run directory (unique sockets and --file-prefix
 * per process, --no-huge, idle back-off), configured and started under
 * run control; the faults c asks for (a node killed and restarted, every
 * node stalled); once the readout has finished, the staged stop (readout,
 * SFC drain, nodes) and every process's final counters from its status;
 * then down. Removes its sockets and DPDK runtime directories, and the run
 * directory unless keep. Returns 0, or -1 with r->error saying what failed
 * (a process that did not start or answer, a refused command, one that
 * had to be killed); the run directory is then kept for its logs. Free r
 * with farm_result_free in any case.
 */
int farm_run(const struct farm_conf *c, struct farm_result *r);

#endif /* FARM_H */
