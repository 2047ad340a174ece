/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_throttle.h - the readout's throttle policy: which SFCs hold it, from the throttle frames they send. */
#ifndef RO_THROTTLE_H
#define RO_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_proto.h"

/*
 * What the readout has heard from up to RO_THROTTLE_MAX_SFCS SFCs (by
 * sfc_id). A throttle-on expires EBF_THROTTLE_HOLD_NS after it arrived
 * unless refreshed (the SFC repeats "on" every EBF_THROTTLE_REFRESH_NS
 * while it holds it), so a lost "off" frame or a dead SFC cannot stop the
 * readout for good; "off" releases at once; a frame not newer than the last
 * one of its SFC (wrapping 32-bit sequence numbers) is stale and ignored.
 * DPDK-free. One view belongs to one thread (the readout's lcore), which
 * alone may call these functions on it.
 */
#define RO_THROTTLE_MAX_SFCS 64
#define RO_THROTTLE_MAX_MACS 64  /* the SFC MACs a view trusts (the readout's --sfc-mac) */

struct ro_throttle_view {
    uint64_t held_until_ns;      /* the latest on_until_ns: held checks read this only */
    uint64_t on_until_ns[RO_THROTTLE_MAX_SFCS]; /* 0: not throttled by that SFC */
    uint32_t last_seq[RO_THROTTLE_MAX_SFCS];
    uint8_t heard[RO_THROTTLE_MAX_SFCS];
    uint64_t frames;             /* throttle frames taken */
    uint64_t on_frames, off_frames;
    uint64_t stale;              /* older than the last frame of that SFC */
    uint64_t rejected;           /* not a valid throttle frame */
    uint64_t foreign;            /* valid, but from no SFC the view trusts */
    uint16_t n_macs;             /* 0: throttle frames from any MAC count */
    uint8_t mac[RO_THROTTLE_MAX_MACS][6];
    uint64_t heard_ns[RO_THROTTLE_MAX_MACS];    /* last valid frame from mac[i]; 0: none */
};

void ro_throttle_view_init(struct ro_throttle_view *v);

/* Take throttle frames only from these n SFC MACs (at most
 * RO_THROTTLE_MAX_MACS are kept): a valid throttle frame from another MAC
 * is counted as foreign and returns EBF_R_BAD_SOURCE. */
void ro_throttle_view_trust(struct ro_throttle_view *v, const uint8_t (*macs)[6], uint16_t n);

/*
 * Offer one received frame (Ethernet onwards, len bytes) at time now_ns.
 * Returns EBF_R_OK when it was a throttle frame and was applied (or was
 * stale), another reason when it was not a valid throttle frame (a frame
 * of another ebfarm type is EBF_R_BAD_FIELD and a frame of another protocol
 * EBF_R_NOT_EBFARM; neither is counted as rejected; an sfc_id at or above
 * RO_THROTTLE_MAX_SFCS is EBF_R_BAD_SOURCE and counted; a frame from an SFC
 * MAC the view does not trust is EBF_R_BAD_SOURCE, counted as foreign).
 */
enum ebf_reason ro_throttle_view_offer(struct ro_throttle_view *v, const uint8_t *frame,
                                       size_t len, uint16_t udp_port, uint64_t now_ns);

/* When a valid throttle frame last came from trusted MAC i (the i-th
 * given to ro_throttle_view_trust): ns, 0 when none did. */
uint64_t ro_throttle_view_heard(const struct ro_throttle_view *v, uint16_t i);

/* Nonzero while some SFC holds the readout at now_ns. */
int ro_throttle_view_held(const struct ro_throttle_view *v, uint64_t now_ns);

#endif /* RO_THROTTLE_H */
