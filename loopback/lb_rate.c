/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_rate.c - rate parsing and conversion, send schedule, achieved-rate check. */
#include "lb_rate.h"
#include "lb_reason.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int lb_rate_parse(const char *s, struct lb_rate *r)
{
    char *end;
    double v = strtod(s, &end);

    if (end == s || !isfinite(v) || v < 0)
        return -EINVAL;
    if (*end == 'k' || *end == 'K')
        v *= 1e3, end++;
    else if (*end == 'M')
        v *= 1e6, end++;
    else if (*end == 'G')
        v *= 1e9, end++;
    if (*end == '\0' || !strcasecmp(end, "fps") || !strcasecmp(end, "pps"))
        r->unit = LB_UNIT_FPS;
    else if (!strcasecmp(end, "mbps") || !strcasecmp(end, "mbit"))
        r->unit = LB_UNIT_L2_MBPS;
    else if (!strcasecmp(end, "mbps-l1") || !strcasecmp(end, "mbit-l1"))
        r->unit = LB_UNIT_L1_MBPS;
    else if (!strcmp(end, "%"))
        r->unit = LB_UNIT_PCT;
    else
        return -EINVAL;
    r->value = v;
    return 0;
}

double lb_line_fps(double link_mbps, unsigned frame_size)
{
    return link_mbps * 1e6 / (8.0 * (frame_size + LB_L1_OVERHEAD));
}

double lb_l2_bps(double fps, unsigned frame_size)
{
    return fps * 8.0 * frame_size;
}

double lb_l1_bps(double fps, unsigned frame_size)
{
    return fps * 8.0 * (frame_size + LB_L1_OVERHEAD);
}

double lb_rate_fps(const struct lb_rate *r, unsigned frame_size, double link_mbps)
{
    switch (r->unit) {
    case LB_UNIT_FPS: return r->value;
    case LB_UNIT_L2_MBPS: return r->value * 1e6 / (8.0 * frame_size);
    case LB_UNIT_L1_MBPS: return r->value * 1e6 / (8.0 * (frame_size + LB_L1_OVERHEAD));
    case LB_UNIT_PCT: return lb_line_fps(link_mbps, frame_size) * r->value / 100.0;
    }
    return 0;
}

/* Uniform in (0, 1] from a splitmix64 step. */
static double uniform(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 1.0) / 9007199254740992.0;
}

void lb_sched_init(struct lb_sched *s, uint64_t t0, uint64_t hz, double fps, int poisson,
                   uint64_t seed)
{
    memset(s, 0, sizeof(*s));
    s->t0 = t0;
    s->tsc_per_frame = fps > 0 ? (double)hz / fps : 0;
    s->poisson = poisson;
    s->rng = seed;
    s->acc = 0;                  /* frame 0 goes at t0 */
}

void lb_sched_next(struct lb_sched *s)
{
    s->i++;
    if (s->poisson)
        s->acc += -log(uniform(&s->rng)) * s->tsc_per_frame;
}

uint64_t lb_sched_fill_due(const struct lb_sched *s, unsigned k, uint64_t left, uint64_t hold_end)
{
    struct lb_sched x = *s;
    for (unsigned j = 1; j < k && j < left && lb_sched_due(&x) < hold_end; j++)
        lb_sched_next(&x);
    uint64_t due = lb_sched_due(&x);
    return due < hold_end ? due : hold_end;
}

int lb_rate_valid(double requested_fps, double achieved_fps, double tolerance)
{
    if (requested_fps <= 0)
        return 0;
    return fabs(achieved_fps - requested_fps) <= tolerance * requested_fps;
}

double lb_achieved_fps(uint64_t n, uint64_t t0, uint64_t last_tsc, double tsc_per_frame,
                       uint64_t hz)
{
    if (n == 0)
        return 0;
    double span = (last_tsc > t0 ? (double)(last_tsc - t0) : 0) + tsc_per_frame;
    if (span <= 0)
        return 0;
    return (double)n * (double)hz / span;
}

int lb_invalid_reason(const struct lb_tx_facts *f)
{
    double tol = f->tolerance, sched = (double)f->scheduled;

    if (f->stopped)
        return LB_INVALID_STOPPED;
    if (lb_rate_valid(f->requested_fps, f->achieved_fps, tol))
        return LB_INVALID_NONE;
    if (f->achieved_fps > f->requested_fps)
        return LB_INVALID_TX_AHEAD;
    if ((double)f->refused > tol * sched)
        return LB_INVALID_TX_REFUSED;
    if ((double)f->nombuf > tol * sched)
        return LB_INVALID_TX_NOMBUF;
    if (f->stall_s > tol * f->duration_s)
        return LB_INVALID_TX_PREEMPTED;
    return LB_INVALID_TX_SLOW;
}

uint64_t lb_run_delay_ns(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "re");
    unsigned long long ran = 0, waited = 0;

    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &ran, &waited) != 2)
        waited = 0;
    fclose(f);
    return waited;
}
