/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_queues.h - --queues N: one trial split over N TX lcores and gathered from N RX lcores. */
#ifndef LB_QUEUES_H
#define LB_QUEUES_H

#include <stdint.h>

#include <rte_ethdev.h>

#include "lb_ctl.h"
#include "lb_dp.h"

/*
 * Control thread only. With N queues each TX lcore sends one stream (stream
 * q on TX queue q, IPv4/UDP frames whose addresses differ by stream, or
 * under LB_MIN_FRAME_UDP Ethernet frames whose VLAN ID does) at 1/N
 * of the rate; each RX lcore polls its own RX queue and accounts whatever
 * streams reach it.
 */

/* Queue q's share of the trial all (n > 1): a count and rate of about 1/n
 * (the first count % n queues one frame more), stream q, TX queue q, UDP
 * (a VLAN tag for frames under LB_MIN_FRAME_UDP). */
void lb_queues_tx_conf(const struct lb_tx_conf *all, unsigned n, unsigned q,
                       struct lb_tx_conf *c);

/* The n TX lcores' statistics as one sender's: counts and histograms
 * summed, the earliest start and the latest send, the longest stall, the
 * schedule's gap of the summed rate. */
void lb_queues_tx_sum(const struct lb_tx_stats *const *st, unsigned n, struct lb_tx_stats *sum);

/*
 * The n receivers of one port's queues as one (after LB_RX_STOP): each
 * stream's accounting from the queue that received most of it (a hash puts
 * a stream on one queue); drops, latency and bytes summed; the port's
 * counter deltas. rx_q[q] gets the frames queue q received, *split the
 * frames of a stream that arrived on another queue than its own (0 when the
 * spreading is per stream, as it should be).
 */
void lb_queues_rx_sum(const struct lb_rx *const *rx, unsigned n,
                      const struct rte_eth_stats *before, const struct rte_eth_stats *after,
                      struct lb_rx_sum *s, uint64_t *rx_q, uint64_t *split);

#endif /* LB_QUEUES_H */
