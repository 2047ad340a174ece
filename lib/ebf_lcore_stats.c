/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_lcore_stats.c - the lcore cycle counter table and its listing. */
#include "ebf_lcore_stats.h"

#define EBF_LCORE_DESC(id, shape, name, field, args, flags, help)                                  \
    EBF_COUNTER_ENTRY(struct ebf_lcore_stats, EBF_LCORE_M_##id, shape, name, field, args, flags,   \
                      help)

static const struct ebf_counter lcore_counters[] = {
    EBF_FOREACH_LCORE_COUNTER(EBF_LCORE_DESC)
};

const struct ebf_counter_table ebf_lcore_counter_table =
    EBF_COUNTER_TABLE("lcore", lcore_counters);

void ebf_lcore_metrics(const struct ebf_lcore_stats *ls, struct ebf_metrics *ms)
{
    ebf_counters_metrics(&ebf_lcore_counter_table, ls, ms);
}
