/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_stats.c - the SFC's counter table and its metric list. */
#include "sfc_stats.h"

#include <stdio.h>

static const char *const drop_names[] = {
#define SFC_DROP_NAME(n, s) s,
    SFC_FOREACH_DROP(SFC_DROP_NAME)
#undef SFC_DROP_NAME
};

static const char *const lost_names[] = {
#define SFC_LOST_NAME(n, s) s,
    SFC_FOREACH_LOST(SFC_LOST_NAME)
#undef SFC_LOST_NAME
};

const char *sfc_drop_name(enum sfc_drop d)
{
    return (unsigned)d < SFC_DROP_MAX ? drop_names[d] : "unknown";
}

const char *sfc_lost_name(enum sfc_lost l)
{
    return (unsigned)l < SFC_LOST_MAX ? lost_names[l] : "unknown";
}

static const char *sfc_reason_label(unsigned i)
{
    return ebf_reason_name((enum ebf_reason)i);
}

static const char *sfc_drop_label(unsigned i)
{
    return sfc_drop_name((enum sfc_drop)i);
}

static const char *sfc_lost_label(unsigned i)
{
    return sfc_lost_name((enum sfc_lost)i);
}

#define SFC_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct sfc_snap, SFC_M_##id, shape, name, field, args, flags, help)

static const struct ebf_counter sfc_counters[] = {
    SFC_FOREACH_COUNTER(SFC_DESC)
};

const struct ebf_counter_table sfc_counter_table = EBF_COUNTER_TABLE("sfc", sfc_counters);

const struct ebf_counter_table *const sfc_counter_tables[] = {
    &sfc_counter_table,
    &ebf_port_counter_table,
    &ebf_lcore_counter_table,
    NULL,
};

void sfc_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct sfc_snap *s = snap;
    char role[16];

    ebf_counters_metrics(&sfc_counter_table, s, ms);
    ebf_port_metrics(&s->port, "readout", ms);
    for (uint16_t i = 0; i < s->g.n_nodes && i < SFC_MAX_NODES; i++) {
        if (!s->node_port_own[i])
            continue;
        snprintf(role, sizeof(role), "node%u", i);
        ebf_port_metrics(&s->node_port[i], role, ms);
    }
    ebf_lcore_metrics(&s->lcore, ms);
}
