/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_lat.h - build time on the readout's clock: from an event's earliest transmit timestamp (the event table's) to its completion. */
#ifndef SFC_LAT_H
#define SFC_LAT_H

#include <stdint.h>

/*
 * Build time is the time from the readout's transmit of an event's earliest
 * piece (the tx_ns of its fragment headers, the readout's CLOCK_REALTIME) to
 * the receive burst in which the SFC completed the event, or timed it out
 * (CLOCK_REALTIME read once per burst and once per timeout pass). It holds
 * on one host, or where the hosts' clocks are synchronised (PTP). The
 * earliest transmit is the event table's own (struct sfc_event_cold,
 * first_tx_ns: the least tx_ns of the pieces it stored, UINT64_MAX before
 * the first), kept once per piece there and not again beside it.
 * DPDK-free; any thread.
 */

/* The build time at now_ns of an event whose earliest transmit is
 * first_tx_ns: 0 when it has none (no piece, or a zero timestamp) or the
 * clocks disagree (a transmit after now: another host's clock ahead of
 * ours). */
static inline uint64_t sfc_lat_age(uint64_t first_tx_ns, uint64_t now_ns)
{
    if (first_tx_ns == 0 || first_tx_ns == UINT64_MAX || now_ns < first_tx_ns)
        return 0;
    return now_ns - first_tx_ns;
}

#endif /* SFC_LAT_H */
