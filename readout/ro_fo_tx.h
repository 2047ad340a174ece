/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fo_tx.h - the readout's failover on the wire: each event's place over the live set, and the replay of a dead place's events (docs/protocol.md 13.1, 13.4). */
#ifndef RO_FO_TX_H
#define RO_FO_TX_H

#include <signal.h>
#include <stdint.h>

#include "ro_gen.h"

/*
 * With failover on (g->fo), the places declared dead since the last
 * replay are in g->fo_pending (set by the receive poll, ro_link_rx);
 * ro_fo_tx_replay sends their unreleased events again before any new
 * event. The frames are made again from the id (sizes and payload are
 * functions of it), with EBF_FRAGF_REPLAY, the next sequence numbers of
 * (source, new place) and a CRC over the new header. The generator's
 * lcore only.
 */

/* Sends every unreleased event of the places in g->fo_pending to its
 * place over the live set, in increasing id order, recording each move
 * (ro_replay_moved); places that die meanwhile are replayed in turn.
 * With every place out, a pending join applies first
 * (ro_failover_join_early); with none, nothing is done and the places
 * stay pending for a later call (the buffer's hold and drop bound what
 * waits). 0, or the error of ro_frame_emit / ro_link_flush
 * (-ENOMEM, -EMSGSIZE, -EINTR on a forced stop). */
int ro_fo_tx_replay(struct ro_gen *g, const volatile sig_atomic_t *force, uint64_t now_ns);

#endif
