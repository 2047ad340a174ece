/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_port_stats.c - the port counter table and its listing. */
#include "ebf_port_stats.h"

#define EBF_PORT_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct ebf_port_stats, EBF_PORT_M_##id, shape, name, field, args, flags, help)

static const struct ebf_counter port_counters[] = {
    EBF_FOREACH_PORT_COUNTER(EBF_PORT_DESC)
};

const struct ebf_counter_table ebf_port_counter_table = EBF_COUNTER_TABLE("port", port_counters);

void ebf_port_metrics(const struct ebf_port_stats *ps, const char *role, struct ebf_metrics *ms)
{
    ebf_counters_metrics_l(&ebf_port_counter_table, ps, EBF_PORT_LABEL, role, ms);
}
