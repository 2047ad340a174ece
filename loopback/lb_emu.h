/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_emu.h - an emulated device under test with a known loss curve, as a trial callback, for tests and cross-checks. */
#ifndef LB_EMU_H
#define LB_EMU_H

#include <stdint.h>

#include "lb_search.h"

/*
 * Deterministic: a trial of fps for d seconds sends n = round(fps * d)
 * frames (req->count when set, d = count / fps) of which the device
 * forwards at most round(capacity_fps * d) + buffer: loss ratio max(0, 1 -
 * capacity / fps) for long trials, up to rounding; a burst of at most
 * buffer / (1 - capacity / fps) frames passes whole (back-to-back). A
 * sender limit sender_fps > 0 makes trials above it invalid (tx_slow),
 * achieving sender_fps. Any thread; one struct per caller.
 */
struct lb_emu {
    double capacity_fps;         /* the zero-loss throughput: the known answer */
    double sender_fps;           /* the sender's limit; 0: none */
    uint64_t buffer;             /* frames the device holds beyond its capacity */
    double default_s;            /* trial length when req->duration_s is 0 */
    unsigned trials;             /* trials run */
    double seconds;              /* sum of their durations */
};

/* lb_trial_fn over a struct lb_emu. Returns 0; -EINVAL for fps <= 0. */
int lb_emu_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out);

#endif /* LB_EMU_H */
