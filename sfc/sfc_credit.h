/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_credit.h - credit scheduler: which trigger node may take the next event. */
#ifndef SFC_CREDIT_H
#define SFC_CREDIT_H

#include <stdint.h>

/*
 * A node grants credits (event slots it has free); each event sent to it
 * consumes one; each ack ends one in-flight event. A node is only ever
 * chosen while it has credit. Among nodes with credit the one with the most
 * is chosen (the least loaded), ties going round-robin.
 *
 * Single-threaded: only the SFC's data-plane lcore may call these.
 */

struct sfc_credit;

/* NULL with errno EINVAL (no nodes, or more than 1024) or ENOMEM.
 * max_outstanding bounds credits + in-flight per node (SFC memory). */
struct sfc_credit *sfc_credit_create(uint16_t n_nodes, uint32_t max_outstanding);
void sfc_credit_destroy(struct sfc_credit *c);

/* Add n credits to node. Credits beyond max_outstanding are refused;
 * returns how many were accepted. */
uint32_t sfc_credit_grant(struct sfc_credit *c, uint16_t node, uint32_t n);

/* Node for the next event, or -1 when no node has credit. */
int sfc_credit_pick(struct sfc_credit *c);

/* The same among the nodes whose bit is clear in skip (nodes 0..63; a
 * node from 64 on is never skipped): for a caller that cannot send to some
 * nodes now (their port's queue is full). */
int sfc_credit_pick_skip(struct sfc_credit *c, uint64_t skip);

/* An event was sent to node (which must have credit): one credit spent. */
void sfc_credit_consume(struct sfc_credit *c, uint16_t node);

/* Node acked one in-flight event. Returns 0, or -EINVAL when node had none
 * in flight. */
int sfc_credit_ack(struct sfc_credit *c, uint16_t node);

/* Forget everything about node (it died or rejoined with a new epoch):
 * no credit, nothing in flight. */
void sfc_credit_revoke(struct sfc_credit *c, uint16_t node);

uint32_t sfc_credit_available(const struct sfc_credit *c, uint16_t node);
uint32_t sfc_credit_inflight(const struct sfc_credit *c, uint16_t node);
uint16_t sfc_credit_nodes(const struct sfc_credit *c);

#endif /* SFC_CREDIT_H */
