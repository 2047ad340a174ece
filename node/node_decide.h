/* SPDX-License-Identifier: BSD-3-Clause */
/* node_decide.h - the emulated trigger: accept or reject an event from its id, reproducibly. */
#ifndef NODE_DECIDE_H
#define NODE_DECIDE_H

#include <stdint.h>

/*
 * The decision for an event id: 1 (accept) or 0 (reject), a pure function
 * of (event_id, seed, accept). r = ebf_mix64(event_id ^ ebf_mix64(seed)) mod
 * 10^6 is the event's draw, and the event is accepted when r < accept * 10^6:
 * over many ids a fraction accept of them, 0 accepts none and 1 accepts all.
 * Every process that needs to know a node's decision (the node itself, the
 * ledger's checks in the tests) computes the same answer. DPDK-free; any
 * thread.
 */
int node_decide(uint64_t event_id, uint64_t seed, double accept);

#endif /* NODE_DECIDE_H */
