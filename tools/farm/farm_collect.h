/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_collect.h - every process's final counters, after the staged stop, into a farm_result. */
#ifndef FARM_COLLECT_H
#define FARM_COLLECT_H

#include <stddef.h>

#include "farm_types.h"

/*
 * Ask every process of st for its status and take its counters, and its
 * TSC rate as "tsc_hz" (a gauge, the one kept), into r (zeroed by the
 * caller): each node's into r->node[] in farm order, the readouts' and the
 * SFCs' summed into r->readout and r->sfc so that several read as one
 * (start_ns and first_event: the earliest; end_ns, last_event, *.max and
 * tsc_hz: the latest or largest; *.min: the least). r->wall_s is then
 * the readouts' start_ns to end_ns. A node process that is gone (killed)
 * is counted in r->nodes_silent; a gone readout in r->readouts_gone (the
 * first one named in r->readout_gone; the ledger then closes over what
 * the SFCs saw); a gone SFC in r->sfcs_gone (the ledger counts its
 * events from the readouts' and its nodes' records). Each readout's and
 * SFC's own counters are in r->ro[] and r->sfcs[] too. Every SFC gone, or
 * a process that does not answer or sends no counters, is an error: -1
 * with err naming it. Returns 0.
 */
int farm_collect(const struct farm_state *st, struct farm_result *r, char *err, size_t len);

/* The farm's shape into r from its spec: how many SFCs events are spread
 * over (r->n_places), each SFC's place and each node's SFC's place, by
 * name; what the ledger needs when an SFC is gone. */
void farm_result_shape(const struct farm_spec *s, struct farm_result *r);

/* The place of process name in s, as the farm's accounting takes it
 * (acct.h): an SFC's place in the readouts' sfcs, a node's SFC's place;
 * -1 for a readout, a name s does not have, or s NULL. */
int farm_spec_place(const struct farm_spec *s, const char *name);

/* place[i]: the place of st->proc[i] in the farm file st was brought up
 * from (farm_spec_place); -1 each when that file cannot be loaded. */
void farm_state_places(const struct farm_state *st, int *place);

/*
 * Mark each node of r whose events come from a readout on another host
 * than its own (r->node[i].apart), from the hosts of s: its end-to-end
 * latency subtracts a timestamp of one host's clock from one of another's,
 * which share no base, and the summary leaves it out. Nodes are matched
 * by name; one that s does not name is left as it is. Also note where
 * every process of s ran (r->placed, for the summary's hosts). Then
 * farm_result_shape.
 */
void farm_result_hosts(const struct farm_spec *s, struct farm_result *r);

/* Free what farm_collect allocated in r (r may be zeroed or partly filled). */
void farm_result_free(struct farm_result *r);

#endif /* FARM_COLLECT_H */
