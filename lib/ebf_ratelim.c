/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ratelim.c - a fixed-window log rate limit with a count of suppressed lines. */
#include "ebf_ratelim.h"

#include <string.h>

void ebf_ratelim_init(struct ebf_ratelim *r, unsigned burst, double window_s)
{
    memset(r, 0, sizeof(*r));
    r->burst = burst ? burst : 1;
    r->window_s = window_s > 0 ? window_s : 1;
}

int ebf_ratelim_take(struct ebf_ratelim *r, double now)
{
    if (!r->open || now >= r->start + r->window_s) {
        r->due += r->suppressed;     /* its window has ended: reported at the next report */
        r->suppressed = 0;
        r->open = 1;
        r->start = now;
        r->used = 0;
    }
    if (r->used < r->burst) {
        r->used++;
        return 1;
    }
    r->suppressed++;
    return 0;
}

uint64_t ebf_ratelim_report(struct ebf_ratelim *r, double now, int force)
{
    uint64_t n = r->due;

    if (force || now >= r->start + r->window_s) {
        n += r->suppressed;
        r->suppressed = 0;
    }
    r->due = 0;
    return n;
}
