/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_mark.h - the staged stop's ledger step after an SFC death: each dead place's release watermark, from the readouts, given to that place's nodes. */
#ifndef FARM_MARK_H
#define FARM_MARK_H

#include "farm_types.h"

/*
 * For every SFC of st that is gone (farm_launch_answers) and whose place
 * the readouts report a watermark for (release.low.<place>) or declared
 * dead (fo.dead_from.<place>: failover on), X = the highest watermark (0
 * where none is reported); each answering node of that place is then
 * configured with ledger_mark=<run>:<X>, so that its counters carry the
 * record of the ids it decided at or above X (ledger.acks_after_release,
 * docs/protocol.md 13.6). Call after the nodes stopped and before the
 * final counters are taken. A node that refuses is named on stderr (the
 * ledger then finds the ids it decided twice). places[i]: the place of
 * st->proc[i] (farm_spec_place), or NULL to take them from the farm file
 * st was brought up from (farm_state_places). Returns the nodes marked.
 */
unsigned farm_mark_nodes(const struct farm_state *st, const int *places);

/*
 * The same for SFC sfc of st, killed and about to be restarted while the
 * run goes on (ebfarm restart): X, the highest watermark the readouts
 * accepted from its place (its old incarnation's: they have not heard the
 * new one), is given to each answering node of its place by the action
 * ledger_mark X, which takes the node's record of the ids it decided at
 * or above X at once. The ledger then treats the place as dead for that
 * incarnation (docs/protocol.md 13.6). Call after the SFC is gone and
 * before it starts again. Returns the nodes marked (0 with failover off);
 * *below: their decisions so far outside their marks' records (each
 * incarnation of the SFC's decisions below its X; a soak's count of what
 * the dead incarnation decided).
 */
unsigned farm_mark_restart(const struct farm_state *st, const struct farm_proc *sfc,
                           uint64_t *below);

/*
 * Each answering node of SFC sfc's place, marked by farm_mark_restart, is
 * told that sfc runs again (the action sfc_new): it grants the new SFC its
 * free slots, which a node learns by itself only on a link that went down
 * with the old SFC (memif), not on af_packet. Call once the new SFC is
 * started, before its join. Returns the nodes told; one that refuses is
 * named on stderr.
 */
unsigned farm_mark_sfc_new(const struct farm_state *st, const struct farm_proc *sfc);

#endif /* FARM_MARK_H */
