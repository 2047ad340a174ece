/* SPDX-License-Identifier: BSD-3-Clause */
/* capacity.h - per-core capacity in the run summary: busy seconds, frames and events per busy second, cycles per frame and per event. */
#ifndef CAPACITY_H
#define CAPACITY_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_kv.h"
#include "farm_types.h"
#include "jsonout.h"

/*
 * From a process's final counters (several readouts or SFCs summed, as
 * farm_collect does): its lcores' busy and idle cycles and passes (the
 * lcore table, lib/ebf_lcore_stats.h, summed over lcores), its TSC rate,
 * and the frames and events it handled: readout frames and events sent
 * (generated), SFC rx.frames and events.sent, node rx.frames and events
 * (decided). Then
 *   busy seconds        = busy cycles / tsc_hz
 *   frames per busy s   = frames / busy seconds     (events the same)
 *   cycles per frame    = busy cycles / frames      (events the same)
 * Busy cycles are those of the poll passes that did work, so these are what
 * one core of the process does per second of its own work, whatever else
 * held the run back.
 */

enum cap_role { CAP_READOUT, CAP_SFC, CAP_NODE };

struct cap {
    int have;                    /* the counters carry lcore cycles */
    uint64_t busy_cycles, idle_cycles, busy_passes, idle_passes;
    uint64_t tsc_hz;             /* 0: unknown */
    uint64_t frames, events;
    int have_link;               /* an SFC's counters with its link cycles */
    uint64_t link_rx_cycles, link_tx_cycles;    /* busy cycles in its bursts that moved frames */
};

/* The figures' inputs of a process of role r from its final counters kv. */
void cap_of(const struct ebf_kv *kv, enum cap_role r, struct cap *c);

/* Figures; a negative value when unknown (no cycles, no TSC rate, nothing handled). */
double cap_busy_s(const struct cap *c);
double cap_per_busy_s(const struct cap *c, uint64_t n);
double cap_cycles_per(const struct cap *c, uint64_t n);

/* The "  busy" table of the text summary: one line per process (readout,
 * sfc, the nodes by name; a gone node says so), values as
 *   busy s %.3f   frames and events per busy s %.0f   cycles per %.1f
 * and "-" for an unknown value. */
void capacity_text(FILE *out, const struct farm_result *r);

/* The value of the summary's JSON member "capacity": {"readout": {...},
 * "sfc": {...}, "nodes": [{"name": ..., ...}]}, each with its counters and
 * the figures (null when unknown), rounded as in the text; "sfc" also
 * with "link_rx_cycles" and "link_tx_cycles" when its counters have them
 * (its busy cycles in the receive and transmit bursts that moved frames);
 * NULL when out of memory. */
json_t *capacity_json(const struct farm_result *r);

#endif /* CAPACITY_H */
