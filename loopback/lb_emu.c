/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_emu.c - the emulated device: a capacity that forwards, the rest lost. */
#include "lb_emu.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "lb_reason.h"

int lb_emu_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct lb_emu *e = ctx;
    double d = req->duration_s > 0 ? req->duration_s : e->default_s;

    if (!(req->fps > 0))
        return -EINVAL;
    if (req->count)
        d = (double)req->count / req->fps;
    memset(out, 0, sizeof(*out));
    out->sent = req->count ? req->count : (uint64_t)llround(req->fps * d);
    uint64_t cap = (uint64_t)llround(e->capacity_fps * d) + e->buffer;
    out->lost = out->sent > cap ? out->sent - cap : 0;
    out->valid = !(e->sender_fps > 0 && req->fps > e->sender_fps);
    out->reason = out->valid ? LB_INVALID_NONE : LB_INVALID_TX_SLOW;
    out->p99_ns = -1;                   /* no latency measured */
    out->achieved_fps = out->valid ? req->fps : e->sender_fps;
    e->trials++;
    e->seconds += d;
    return 0;
}
