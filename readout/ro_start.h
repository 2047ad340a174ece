/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_start.h - a run's common start instant (wall clock, from START) as this readout's TSC. */
#ifndef RO_START_H
#define RO_START_H

#include <stdint.h>

/* A start instant further ahead than this is refused: the controller
 * picks one tens of ms ahead, so more means clocks out of step. */
#define RO_START_AHEAD_MAX_NS 60000000000ull

/*
 * The TSC at which event 0 of a run is due, for the instant at_ns
 * (CLOCK_REALTIME ns, the same for every readout of a farm), given one
 * reading of both clocks (now_ns, now_tsc) and the TSC rate hz:
 * now_tsc + (at_ns - now_ns) * hz / 1e9. An at_ns of 0 (none given) or
 * not after now_ns gives now_tsc: the run starts at once. *late_ns is set
 * to how far at_ns was past (0 when ahead or none given).
 */
uint64_t ro_start_tsc(uint64_t at_ns, uint64_t now_ns, uint64_t now_tsc, uint64_t hz,
                      uint64_t *late_ns);

#endif /* RO_START_H */
