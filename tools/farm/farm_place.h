/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_place.h - the demo's CPU placement and idle policy per process (--cpus, --idle), checked and applied to a spec. */
#ifndef FARM_PLACE_H
#define FARM_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "farm_types.h"
#include "farmfile.h"

/*
 * --cpus SPEC: comma-separated WHO=CPUS items. WHO is a process name
 * (sfc0, ro1, node3), a kind (sfc, readout, node: each process of it not
 * named on its own) or "other" (every process not placed by name or kind);
 * CPUS is N or N-M (CPUs 0 to FARM_PLACE_CPUS - 1). A placed process's
 * lcores all float over its CPUs; it starts on its CPUs and the other
 * CPUs, so that DPDK's control threads (the start CPUs less the lcores')
 * and the threads the daemon starts off its lcores run there. Without
 * "other", the processes not placed get every online CPU no item names
 * (every online CPU when the items name them all).
 *
 * --idle SPEC: spin or backoff for every process, or WHO=MODE items with
 * the same WHO as --cpus ("other": every process not named by name or kind).
 */
#define FARM_PLACE_CPUS 64

/* Check a --cpus (idle 0) or --idle (idle 1) value: 0, or -1 with a message
 * in err naming the item and what is allowed. Names are checked against
 * the farm in farm_place_apply. */
int farm_place_check(const char *spec, int idle, char *err, size_t len);

/*
 * Apply c->cpus and c->idle (each "" for none) to s: the processes' idle
 * policy, and their cpus and start_cpus masks (ff_proc), with online the
 * CPUs this machine has (a mask). Returns 0, or -1 with err when an item
 * names no process of s or a CPU that is not online.
 */
int farm_place_apply(const struct farm_conf *c, uint64_t online, struct farm_spec *s, char *err,
                     size_t len);

/* The CPUs this process may run on, as a mask of CPUs 0 to 63. */
uint64_t farm_place_online(void);

/* A mask as a CPU list ("0-2,5") into buf; "" for 0. */
void farm_place_list(uint64_t mask, char *buf, size_t len);

#endif /* FARM_PLACE_H */
