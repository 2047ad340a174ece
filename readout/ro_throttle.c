/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_throttle.c - the readout's throttle view: apply throttle frames of trusted SFCs per SFC, expire unrefreshed holds. */
#include "ro_throttle.h"

#include <string.h>

void ro_throttle_view_init(struct ro_throttle_view *v)
{
    memset(v, 0, sizeof(*v));
}

void ro_throttle_view_trust(struct ro_throttle_view *v, const uint8_t (*macs)[6], uint16_t n)
{
    v->n_macs = n < RO_THROTTLE_MAX_MACS ? n : RO_THROTTLE_MAX_MACS;
    memcpy(v->mac, macs, (size_t)v->n_macs * 6);
}

/* 1 when mac may throttle us, noting when it was heard. */
static int trusted(struct ro_throttle_view *v, const uint8_t *mac, uint64_t now_ns)
{
    if (!v->n_macs)
        return 1;
    for (uint16_t i = 0; i < v->n_macs; i++)
        if (memcmp(v->mac[i], mac, 6) == 0) {
            v->heard_ns[i] = now_ns;
            return 1;
        }
    return 0;
}

uint64_t ro_throttle_view_heard(const struct ro_throttle_view *v, uint16_t i)
{
    return i < v->n_macs ? v->heard_ns[i] : 0;
}

enum ebf_reason ro_throttle_view_offer(struct ro_throttle_view *v, const uint8_t *frame,
                                       size_t len, uint16_t udp_port, uint64_t now_ns)
{
    struct ebf_l2l3 l;
    struct ebf_throttle_hdr h;
    enum ebf_reason r = ebf_parse_l2l3(frame, len, udp_port, &l);

    if (r == EBF_R_NOT_EBFARM)
        return r;                       /* another protocol: not ours to count */
    if (r == EBF_R_OK && l.type != EBF_T_THROTTLE)
        return EBF_R_BAD_FIELD;         /* another frame type: not ours to count */
    if (r == EBF_R_OK)
        r = ebf_throttle_parse(frame + l.hlen, l.len, &h);
    if (r == EBF_R_OK && h.sfc_id >= RO_THROTTLE_MAX_SFCS)
        r = EBF_R_BAD_SOURCE;
    if (r != EBF_R_OK) {
        v->rejected++;
        return r;
    }
    if (!trusted(v, l.src_mac, now_ns)) {
        v->foreign++;                   /* not one of our SFCs: no hold */
        return EBF_R_BAD_SOURCE;
    }
    v->frames++;
    /* Sequence numbers wrap: a frame more than 2^31 behind is stale. */
    if (v->heard[h.sfc_id] && (int32_t)(h.seq - v->last_seq[h.sfc_id]) <= 0) {
        v->stale++;
        return EBF_R_OK;
    }
    v->heard[h.sfc_id] = 1;
    v->last_seq[h.sfc_id] = h.seq;
    if (h.on) {
        v->on_frames++;
        v->on_until_ns[h.sfc_id] = now_ns + EBF_THROTTLE_HOLD_NS;
    } else {
        v->off_frames++;
        v->on_until_ns[h.sfc_id] = 0;
    }
    v->held_until_ns = 0;       /* per frame, not per event: ro_throttle_view_held */
    for (unsigned i = 0; i < RO_THROTTLE_MAX_SFCS; i++)
        if (v->on_until_ns[i] > v->held_until_ns)
            v->held_until_ns = v->on_until_ns[i];
    return EBF_R_OK;
}

int ro_throttle_view_held(const struct ro_throttle_view *v, uint64_t now_ns)
{
    return v->held_until_ns > now_ns;
}
