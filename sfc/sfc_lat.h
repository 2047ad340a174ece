/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_lat.h - build time on the readout's clock: each event's earliest transmit timestamp, kept beside the event table by slot. */
#ifndef SFC_LAT_H
#define SFC_LAT_H

#include <stdint.h>

/*
 * Build time is the time from the readout's transmit of an event's earliest
 * piece (the tx_ns of its fragment headers, the readout's CLOCK_REALTIME) to
 * the receive burst in which the SFC completed the event, or timed it out
 * (CLOCK_REALTIME read once per burst and once per timeout pass). It holds
 * on one host, or where the hosts' clocks are synchronised (PTP). The event
 * table stays as it is: this array, one entry per slot, remembers the
 * event id it describes, so that a slot reused by another event starts
 * afresh. DPDK-free; the SFC's lcore only.
 */
struct sfc_lat_slot {
    uint64_t id;                 /* the event the entry describes */
    uint64_t first_tx_ns;        /* earliest tx_ns of its pieces; 0: none yet */
};

/* A piece of event id, transmitted at tx_ns, was stored in this slot. */
static inline void sfc_lat_note(struct sfc_lat_slot *s, uint64_t id, uint64_t tx_ns)
{
    if (s->id != id || s->first_tx_ns == 0) {
        s->id = id;
        s->first_tx_ns = tx_ns;
    } else if (tx_ns < s->first_tx_ns) {
        s->first_tx_ns = tx_ns;
    }
}

/* The build time of event id at now_ns: now_ns less its earliest transmit,
 * 0 when the entry does not describe id or the clocks disagree (a transmit
 * after now: another host's clock ahead of ours). */
static inline uint64_t sfc_lat_age(const struct sfc_lat_slot *s, uint64_t id, uint64_t now_ns)
{
    if (s->id != id || s->first_tx_ns == 0 || now_ns < s->first_tx_ns)
        return 0;
    return now_ns - s->first_tx_ns;
}

#endif /* SFC_LAT_H */
