/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_lcore_stats.h - the poll loops' busy and idle cycles every daemon publishes, one name each; no DPDK. */
#ifndef EBF_LCORE_STATS_H
#define EBF_LCORE_STATS_H

#include <stdint.h>

#include "ebf_counters.h"

/*
 * What a daemon's poll loops measured during the run (lib/ebf_cycles.h):
 * per loop, the TSC cycles of the passes that did work (busy) and of those
 * that did none (idle, back-off sleeps included), and how many passes of
 * each. Loop 0 is the data-plane lcore that also answers run control; a
 * daemon with worker lcores lists them after it. The label "lcore" is the
 * loop's index in the process, not the EAL lcore id. tsc_hz turns the
 * cycles into seconds: busy seconds = sum of busy_cycles / tsc_hz.
 *   X(ID, SHAPE, name, field, args, flags, help): lib/ebf_counters.h
 */
#define EBF_LCORE_STATS_MAX 16

#define EBF_FOREACH_LCORE_COUNTER(X)                                                               \
    X(BUSY_CYCLES, CN, "lcore.busy_cycles", busy_cycles, ("lcore", NULL, n), 0,                    \
      "TSC cycles of the poll passes that did work, per lcore.")                                   \
    X(IDLE_CYCLES, CN, "lcore.idle_cycles", idle_cycles, ("lcore", NULL, n), 0,                    \
      "TSC cycles of the poll passes that did no work, back-off sleeps included, per lcore.")      \
    X(BUSY_PASSES, CN, "lcore.busy_passes", busy_passes, ("lcore", NULL, n), 0,                    \
      "Poll passes that did work, per lcore.")                                                     \
    X(IDLE_PASSES, CN, "lcore.idle_passes", idle_passes, ("lcore", NULL, n), 0,                    \
      "Poll passes that did no work, per lcore.")                                                  \
    X(TSC_HZ, G, "tsc_hz", tsc_hz, (), 0,                                                          \
      "TSC cycles per second of the host (rte_get_tsc_hz): lcore cycles over it are seconds.")

struct ebf_lcore_stats {
    uint64_t tsc_hz;
    uint16_t n;                  /* loops listed */
    uint64_t busy_cycles[EBF_LCORE_STATS_MAX];
    uint64_t idle_cycles[EBF_LCORE_STATS_MAX];
    uint64_t busy_passes[EBF_LCORE_STATS_MAX];
    uint64_t idle_passes[EBF_LCORE_STATS_MAX];
};

enum ebf_lcore_counter_id {
#define EBF_LCORE_ID(id, ...) EBF_LCORE_M_##id,
    EBF_FOREACH_LCORE_COUNTER(EBF_LCORE_ID)
#undef EBF_LCORE_ID
    EBF_LCORE_M_MAX
};

extern const struct ebf_counter_table ebf_lcore_counter_table;

/* The metric name of an entry: EBF_LCORE_NAME(BUSY_CYCLES) is "lcore.busy_cycles". */
#define EBF_LCORE_NAME(id) (ebf_lcore_counter_table.c[EBF_LCORE_M_##id].name)

/* Append ls's counters and tsc_hz to ms. */
void ebf_lcore_metrics(const struct ebf_lcore_stats *ls, struct ebf_metrics *ms);

#endif /* EBF_LCORE_STATS_H */
