/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_queues.c - split a trial over TX queues and gather it from RX queues. */
#include "lb_queues.h"

#include <string.h>

#include <rte_cycles.h>

void lb_queues_tx_conf(const struct lb_tx_conf *all, unsigned n, unsigned q,
                       struct lb_tx_conf *c)
{
    *c = *all;
    c->count = all->count / n + (q < all->count % n);
    c->fps = all->fps * (double)c->count / (double)all->count;
    c->stream0 = (uint16_t)q;
    c->streams = 1;
    c->queue = (uint16_t)q;
    c->udp = all->frame_size >= LB_MIN_FRAME_UDP;
    c->vlan = !c->udp;
    c->seed = all->seed + q;
}

void lb_queues_tx_sum(const struct lb_tx_stats *const *st, unsigned n, struct lb_tx_stats *sum)
{
    double rate = 0;                     /* frames per cycle, summed */

    *sum = *st[0];
    for (unsigned q = 0; q < n; q++) {
        const struct lb_tx_stats *x = st[q];
        rate += x->tsc_per_frame > 0 ? 1.0 / x->tsc_per_frame : 0;
        if (q == 0)
            continue;
        sum->scheduled += x->scheduled;
        sum->accepted += x->accepted;
        sum->count += x->count;
        for (unsigned r = 0; r < LB_TX_DROP_MAX; r++)
            sum->drop[r] += x->drop[r];
        for (unsigned s = 0; s < LB_MAX_STREAMS; s++)
            sum->per_stream[s] += x->per_stream[s];
        sum->t0 = x->t0 < sum->t0 ? x->t0 : sum->t0;
        sum->last_tsc = x->last_tsc > sum->last_tsc ? x->last_tsc : sum->last_tsc;
        sum->stall_cycles = x->stall_cycles > sum->stall_cycles ? x->stall_cycles
                                                                : sum->stall_cycles;
        if (x->max_pass_cycles > sum->max_pass_cycles)
            sum->max_pass_cycles = x->max_pass_cycles;
        ebf_hist_merge(&sum->lag, &x->lag);
        ebf_hist_merge(&sum->hold, &x->hold);
    }
    sum->tsc_per_frame = rate > 0 ? 1.0 / rate : 0;
}

/* The queue that received most of stream s (the lowest on a tie). */
static unsigned owner(const struct lb_rx *const *rx, unsigned n, unsigned s)
{
    unsigned best = 0;
    for (unsigned q = 1; q < n; q++)
        if (rx[q]->r.seq[s].rx > rx[best]->r.seq[s].rx)
            best = q;
    return best;
}

void lb_queues_rx_sum(const struct lb_rx *const *rx, unsigned n,
                      const struct rte_eth_stats *before, const struct rte_eth_stats *after,
                      struct lb_rx_sum *s, uint64_t *rx_q, uint64_t *split)
{
    uint64_t loop_p99 = 0;

    memset(s, 0, sizeof(*s));
    ebf_hist_init(&s->lat);
    *split = 0;
    for (unsigned q = 0; q < n; q++)
        rx_q[q] = 0;
    for (unsigned k = 0; k < rx[0]->streams; k++) {
        unsigned o = owner(rx, n, k);
        lb_rx_sum_streams(s, &rx[o]->r.seq[k], 1);
        for (unsigned q = 0; q < n; q++) {
            rx_q[q] += rx[q]->r.seq[k].rx;
            *split += q != o ? rx[q]->r.seq[k].rx : 0;
        }
    }
    for (unsigned q = 0; q < n; q++) {
        const struct lb_rx_result *r = &rx[q]->r;
        for (unsigned d = 0; d < LB_RX_DROP_MAX; d++)
            s->drop[d] += r->drop[d];
        s->lat_invalid += r->lat_invalid;
        ebf_hist_merge(&s->lat, &r->lat);
        if (r->first_tsc && (!s->first_tsc || r->first_tsc < s->first_tsc))
            s->first_tsc = r->first_tsc;
        uint64_t p = ebf_hist_quantile(&r->loop, 0.99);
        loop_p99 = p > loop_p99 ? p : loop_p99;
    }
    s->loop_p99 = loop_p99;
    s->imissed = after->imissed - before->imissed;
    s->rx_nombuf = after->rx_nombuf - before->rx_nombuf;
    s->ierrors = after->ierrors - before->ierrors;
}
