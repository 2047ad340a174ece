/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_scenario.h - faults injected into a running farm: a node killed, restarted, every node stalled. */
#ifndef FARM_SCENARIO_H
#define FARM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#include "farm_types.h"

/*
 * Once the readouts have generated `events` (or finished), kill the
 * node-th node process (fault injection for the demo and the tests):
 * SIGSTOP, then SIGKILL once the SFC has declared it dead (at most 10 s
 * later), which spares the SFC a memif PMD race (see docs/status.md).
 * Returns 0, or -1 with err when there is no such node, the readout does
 * not get there within timeout_s, or a signal cannot be sent.
 */
int farm_kill_node_after(const struct farm_state *st, unsigned node, uint64_t events,
                         double timeout_s, char *err, size_t len);

/*
 * Once the readouts have generated `events` (or finished), kill the
 * sfc-th SFC process (in the demo, the SFC at place sfc of every readout's
 * list). freeze (memif links): SIGSTOP, then SIGKILL once every running
 * readout reports it given up (sfc.gone.<sfc> 1, at most 30 s later), so
 * that its link stays up until the readouts' failover has taken it
 * (docs/status.md); else (af_packet, a NIC: no link that goes down with
 * it) SIGKILL, then the same wait. Its nodes are left
 * running: their records count its events in the ledger. Returns 0, or -1
 * with err when there is no such SFC, the readout does not get there
 * within timeout_s, the readouts do not give it up, or a signal cannot be
 * sent.
 */
int farm_kill_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events, int freeze,
                        double timeout_s, char *err, size_t len);

/*
 * Once the first readout generated `events`, SIGSTOP SFC number sfc,
 * SIGCONT it freeze_ms later (a frozen process, not a dead one: with
 * failover on it fences itself and rejoins). Returns 0, or -1 with err.
 */
int farm_freeze_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events,
                          double freeze_ms, double timeout_s, char *err, size_t len);

/*
 * Once the readouts have generated `events` (or finished), SIGSTOP every
 * node; once the first readout reports a new throttle hold, wait hold_ms more
 * and SIGCONT them. -1 with err when the readout is not held within 20 s
 * (the nodes are continued in any case).
 */
int farm_stall_nodes(const struct farm_state *st, uint64_t events, double hold_ms,
                     double timeout_s, char *err, size_t len);

/* Start the node-th node again (it was killed), configure it and start it
 * into the current run: a new process, so a new epoch at its SFC. Its log
 * goes to <name>.restart.log. Returns 0, or -1 with err. */
int farm_respawn_node(struct farm_state *st, const struct farm_spec *spec, const char *build,
                      unsigned node, char *err, size_t len);

/* farm_kill_node_after, then, when restart_ms > 0, farm_respawn_node
 * restart_ms later. 0, or -1 with err from the step that failed. */
int farm_kill_and_restart(struct farm_state *st, const struct farm_spec *spec, const char *build,
                          unsigned node, uint64_t events, double restart_ms, double timeout_s,
                          char *err, size_t len);

/* Once the first readout generated `events`, SFC number sfc (in farm
 * order) is given the run-control action `action` with ms (faults for
 * tests): "mute" sends no release frame for ms while its loop runs on, so
 * the readouts may declare it dead while it lives; "stall" stops its loop
 * for ms once, in a release round after its low and before its first
 * frame, as a SIGSTOP may (docs/protocol.md 13.4). 0, or -1 with err. */
int farm_act_sfc_after(const struct farm_state *st, unsigned sfc, uint64_t events,
                       const char *action, double ms, double timeout_s, char *err, size_t len);

#endif /* FARM_SCENARIO_H */
