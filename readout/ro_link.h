/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_link.h - a readout's links to its SFCs: frames handed to their ports with retries, throttle frames taken, SFCs given up. */
#ifndef RO_LINK_H
#define RO_LINK_H

#include <signal.h>
#include <stdint.h>

#include "ro_gen.h"

/*
 * The generator's side toward the SFCs (docs/protocol.md, section 10):
 * each SFC's port, the receive poll that feeds throttle frames to the
 * view (g->tv) and the holds it makes, and the transmit queue (g->q)
 * handed to the ports, retried while a port refuses frames until its SFC
 * is given up (--sfc-timeout-ms). Counts go to g->st. Called by ro_gen.c
 * and ro_frame.c on the generator's lcore; once per burst, not per frame.
 */

/* Each SFC's port (g->sfc_port), and the distinct ones among them. */
void ro_link_map(struct ro_gen *g, const struct ro_conf *c);

/* Take what every port still in use received (a port whose SFCs are all
 * given up is no longer touched: its peer may be gone): throttle frames
 * to the view, all freed and counted. Returns the frames taken. */
unsigned ro_link_rx(struct ro_gen *g, uint64_t now_ns);

/* Copies the failover state's counters (g->fo, not NULL) into the stats. */
void ro_link_fo_stats(struct ro_gen *g);

/* Whether an SFC holds the readout now, or (failover on) the replay buffer
 * has no room for the largest event; a hold that begins is counted, and
 * every poll held. now: the TSC, or 0 when the caller did not read it. */
int ro_link_held(struct ro_gen *g, uint64_t now_ns, uint64_t now);

/* The end of a hold at TSC now: its time is counted, and the schedule
 * moves on by it (no catch-up burst). */
void ro_link_hold_end(struct ro_gen *g, uint64_t now);

/* A control frame of len ebfarm bytes (a dead notice, a replay end) to
 * SFC place `to`: an mbuf from the readout's pool with the raw Ethernet
 * header from the readout's MAC to the SFC's written and its payload tag
 * cleared (ro_gen.h: a tag left from an earlier fragment would have the
 * pool's next fragment trusted as prebuilt). Returns where the ebfarm
 * bytes go, the mbuf in *m; NULL when the pool is empty. */
uint8_t *ro_link_ctl_frame(struct ro_gen *g, uint16_t to, size_t len, struct rte_mbuf **m);

/* Sends control frame m (ro_link_ctl_frame) on the port toward place to,
 * behind what was flushed there; 1 when the port took it, else 0 and m
 * freed. */
int ro_link_ctl_send(struct ro_gen *g, uint16_t to, struct rte_mbuf *m);

/* Hand every queued frame (through the fault stage, if any) to its SFC's
 * port, in order per SFC. Returns 0, or -EINTR when *force cut it short
 * (the rest freed and counted). */
int ro_link_flush(struct ro_gen *g, const volatile sig_atomic_t *force);

#endif /* RO_LINK_H */
