/* SPDX-License-Identifier: BSD-3-Clause */
/* node_tally.h - a decision as one word (what the trigger stage hands back) and its count in the node's counters; no DPDK. */
#ifndef NODE_TALLY_H
#define NODE_TALLY_H

#include <stdint.h>

#include "node_evtab.h"
#include "node_stats.h"

/* A decision as one word: the stream in bits 0-15, accept, slow, failed
 * and the failure reason (enum node_trigger_fail) above. */
#define NODE_DEC_ACCEPT (1u << 16)
#define NODE_DEC_SLOW (1u << 17)
#define NODE_DEC_FAILED (1u << 18)
#define NODE_DEC_FAIL(r) (NODE_DEC_FAILED | ((uint32_t)(r) << 19))
#define NODE_DEC_REASON(o) (((o) >> 19) & 0xf)

/*
 * Count the decision outcome (a decision word) of e, decided at now_ns, in
 * st: trigger.slow and trigger.fail, events, accepted or rejected,
 * incomplete, payload bytes, the decided digest, each verify flag, bad
 * events and, when e has a transmit time before now_ns, the end-to-end
 * latency. Returns 1 when accepted; *stream is its output stream (0 when
 * the trigger failed).
 */
int node_tally_decided(struct node_stats *st, const struct node_ev *e, uint32_t outcome,
                       uint64_t now_ns, uint16_t *stream);

#endif /* NODE_TALLY_H */
