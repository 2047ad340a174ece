/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fault_tx.h - the readout's fault stage: drops, duplicates, reorders, delays, corrupts or silences frames before the port. */
#ifndef RO_FAULT_TX_H
#define RO_FAULT_TX_H

#include <signal.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ebf_proto.h"
#include "ro_fault.h"

/*
 * One stage per run, called only from the lcore that transmits. It owns every
 * frame handed to it until it returns it for sending, frees it (drop,
 * silence; counted) or holds it (reorder, delay). Held frames leave with the
 * frames of a later call, or all at once after ro_fault_tx_finish(); none is
 * lost silently.
 *
 * What each fault does to a frame (at most one per frame, drawn from the
 * seeded stream of ro_fault_decide(), so a run is reproducible frame by frame):
 * - drop: freed; counted per source too.
 * - dup: sent, then a byte-identical copy (rte_pktmbuf_copy from the pool)
 *   right after it, or held until dup_frames more frames have passed (a
 *   duplicate that arrives after its event was built); with the pool empty
 *   it is sent once (dup_failed).
 * - reorder: held until d more frames have passed the stage, d uniform in
 *   1..window, then sent right after the d-th: no frame overtakes it by more
 *   than the window.
 * - delay: held until delay_frames more frames have passed, or when
 *   delay_frames is 0 for at least delay_us (it leaves with the first call
 *   after that time, or at the finish).
 * - corrupt_payload: one piece byte (after the 40-byte fragment header) is
 *   XORed with 0xff: the fragment's CRC32C fails, parsers say bad_checksum.
 * - corrupt_header: fragment header byte 27 (low byte of flags) is XORed
 *   with 0xff, so flags = 0x00ff: parsers say bad_field (the flags check
 *   comes before the source and CRC checks; the encapsulation and the
 *   version/type bytes are untouched).
 * - silence: every frame of the silenced source from its event on is freed
 *   (silenced_frames; silenced_fragments counts the fragments); these frames
 *   take no draw.
 * Frames sent = frames_in - silenced_frames - dropped + duplicated.
 *
 * An event none of whose frames leaves intact (each dropped, corrupted or
 * silenced) is withheld: counted, and its id added to the withheld record,
 * since no SFC can account for it (the frames of one event pass the stage
 * together, so this is known when the next event's first frame arrives, or
 * at ro_fault_tx_end()).
 */

#define RO_FAULT_BURST_MAX 256           /* frames per ro_fault_tx_burst() call */
#define RO_FAULT_HOLD_MAX 1024           /* frames held at once */

struct ro_fault_tx;

/* Create a stage for fc (copied) on frames with this encapsulation; copies
 * come from pool; memory on socket. NULL with errno (EINVAL, ENOMEM). */
struct ro_fault_tx *ro_fault_tx_create(const struct ro_fault_conf *fc, enum ebf_encap encap,
                                       struct rte_mempool *pool, int socket);

/* Free the stage and any frame it still holds. NULL is a no-op. */
void ro_fault_tx_free(struct ro_fault_tx *f);

/*
 * Take n (<= RO_FAULT_BURST_MAX) frames about to be transmitted, in order.
 * Sets *out to the frames to send now, in order (the stage's array, valid
 * until the next call), and returns their count: up to 2 n plus the held
 * frames that came due. The caller owns them from then on. Fast path.
 */
uint16_t ro_fault_tx_burst(struct ro_fault_tx *f, struct rte_mbuf **pkts, uint16_t n,
                           struct rte_mbuf ***out);

/* From now on every call releases every held frame (the end of a run). */
void ro_fault_tx_finish(struct ro_fault_tx *f);

/* Every frame of the run has passed: account for the last event (withheld
 * or not). Call once at the end of a run. */
void ro_fault_tx_end(struct ro_fault_tx *f);

/* Frames held now. */
unsigned ro_fault_tx_held(const struct ro_fault_tx *f);

/* Free every held frame (a forced stop) and return how many. */
unsigned ro_fault_tx_discard(struct ro_fault_tx *f);

/*
 * Bursts: before event event_id, when it starts a new burst (a non-zero
 * multiple of burst_events), wait burst_gap_us, sleeping when sleep_ok,
 * else spinning. Returns 1 if *stop cut the wait short, else 0.
 */
int ro_fault_tx_gap(struct ro_fault_tx *f, uint64_t event_id, int sleep_ok,
                    const volatile sig_atomic_t *stop);

/* The counters so far. */
const struct ro_fault_stats *ro_fault_tx_stats(const struct ro_fault_tx *f);

#endif /* RO_FAULT_TX_H */
