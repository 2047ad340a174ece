/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_stats.c - the readout's counter tables and its metric list. */
#include "ro_stats.h"

#define RO_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct ro_snap, RO_M_##id, shape, name, field, args, flags, help)
#define RO_FAULT_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct ro_snap, RO_FM_##id, shape, name, field, args, flags, help)

static const struct ebf_counter ro_counters[] = {
    RO_FOREACH_COUNTER(RO_DESC)
};

static const struct ebf_counter ro_fault_counters[] = {
    RO_FOREACH_FAULT_COUNTER(RO_FAULT_DESC)
};

const struct ebf_counter_table ro_counter_table = EBF_COUNTER_TABLE("readout", ro_counters);
const struct ebf_counter_table ro_fault_counter_table =
    EBF_COUNTER_TABLE("readout faults", ro_fault_counters);

const struct ebf_counter_table *const ro_counter_tables[] = {
    &ro_counter_table,
    &ro_fault_counter_table,
    &ebf_port_counter_table,
    &ebf_lcore_counter_table,
    NULL,
};

void ro_fault_metrics(const struct ro_snap *s, struct ebf_metrics *ms)
{
    ebf_counters_metrics(&ro_fault_counter_table, s, ms);
}

void ro_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct ro_snap *s = snap;

    ebf_counters_metrics(&ro_counter_table, s, ms);
    ebf_port_metrics(&s->port, "sfc", ms);
    ebf_lcore_metrics(&s->lcore, ms);
    if (s->faults)
        ro_fault_metrics(s, ms);
}
