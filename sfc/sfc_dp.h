/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp.h - the SFC data plane: receive, build, dispatch on credit, hold until acked. */
#ifndef SFC_DP_H
#define SFC_DP_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

#include "ebf_proto.h"
#include "sfc_conf.h"
#include "sfc_stats.h"

struct sfc_dp;

/*
 * The SFC sends every event frame as a chain of mbufs (a header mbuf, then
 * the received fragments, not copied): each node port must offer
 * multi-segment transmit (ebf_port_start enables it when offered) and take as many segments per frame as an event frame of
 * conf->mtu can have. Returns 0, or -1 with err naming the port, what it
 * lacks and what is needed.
 */
int sfc_dp_check_node_ports(const struct sfc_conf *conf, char *err, size_t len);

/* Create the data plane (event table, credit scheduler, tx buffers); NULL
 * with errno set (ENOTSUP, logged: a node port failed
 * sfc_dp_check_node_ports). Ports must be started by the caller. */
struct sfc_dp *sfc_dp_create(const struct sfc_conf *conf);
void sfc_dp_destroy(struct sfc_dp *dp);

/*
 * One pass of the poll loop: credits and acks, intake (unless back-pressure
 * holds it), timeouts, dispatch, transmit. Returns the work done (0: idle).
 */
unsigned sfc_dp_poll(struct sfc_dp *dp, int intake);

/*
 * Run until *stop, then drain: take input until it has been quiet for
 * drain_quiet_ms, time out what is still building, dispatch and wait for
 * acks up to drain_timeout_ms; whatever is left is lost with its reason.
 */
void sfc_dp_run(struct sfc_dp *dp, const volatile sig_atomic_t *stop);

/*
 * The drain as steps, for a caller that must keep answering requests:
 * begin, then call drain_poll until *done. Same stages as sfc_dp_run.
 */
void sfc_dp_drain_begin(struct sfc_dp *dp);
unsigned sfc_dp_drain_poll(struct sfc_dp *dp, int *done);

/* 1 once its drain has ended intake (its input is quiet and what was
 * building timed out): on a shared readout port, the other workers' rings
 * get no more. For the lcore that runs it. */
int sfc_dp_intake_over(const struct sfc_dp *dp);

void sfc_dp_gauges(const struct sfc_dp *dp, struct sfc_gauges *g);

const struct sfc_stats *sfc_dp_stats(const struct sfc_dp *dp);

/* What sfc_dp_leave announces: a leave (drain), a join of a drained SFC
 * (undrain), a join in any case (a restarted SFC rejoining); or, a fault
 * for tests, no release frame for `at` ms while the loop runs on (frames
 * lost on the way: the readouts may declare it dead while it lives). */
enum sfc_leave { SFC_LEAVE, SFC_UNDRAIN, SFC_JOIN, SFC_MUTE, SFC_STALL };

/* Announce how at event id at (0: the margin ahead of the highest id
 * heard) in the release frames from the next round on (docs/protocol.md
 * 13.5). 0, or -ENOTSUP (failover off), -EALREADY (drained already, or
 * undrain when not drained), with err saying so. */
int sfc_dp_leave(struct sfc_dp *dp, enum sfc_leave how, uint64_t at, char *err, size_t len);

#endif /* SFC_DP_H */
