/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_stats.c - the SFC's counter table and its metric list. */
#include "sfc_stats.h"

#include <stddef.h>
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

/* The runs of plain uint64_t counters in struct sfc_stats: from its start
 * to the id records, and from node_sent to the histograms. */
#define RUN1_END offsetof(struct sfc_stats, ledger_acked)
#define RUN2_BEGIN offsetof(struct sfc_stats, node_sent)
#define RUN2_END offsetof(struct sfc_stats, build_ns)
_Static_assert(RUN1_END % sizeof(uint64_t) == 0 && RUN2_BEGIN % sizeof(uint64_t) == 0 &&
               RUN2_END % sizeof(uint64_t) == 0, "struct sfc_stats: counter runs of uint64_t");
_Static_assert(RUN2_BEGIN ==
                   offsetof(struct sfc_stats, ledger_fence_acked) + sizeof(struct ebf_idset),
               "struct sfc_stats: node_sent follows the id records");

static void add_u64(void *into, const void *from, size_t begin, size_t end)
{
    uint64_t *a = (uint64_t *)((char *)into + begin);
    const uint64_t *b = (const uint64_t *)((const char *)from + begin);

    for (size_t i = 0; i < (end - begin) / sizeof(uint64_t); i++)
        a[i] += b[i];
}

void sfc_stats_add(struct sfc_stats *into, const struct sfc_stats *from)
{
    uint64_t next[EBF_MAX_SOURCES];

    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++)
        next[s] = into->next_by_source[s] > from->next_by_source[s] ? into->next_by_source[s]
                                                                     : from->next_by_source[s];
    add_u64(into, from, 0, RUN1_END);
    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++)
        into->next_by_source[s] = next[s];
    ebf_idset_merge(&into->ledger_acked, &from->ledger_acked, 1);
    ebf_idset_merge(&into->ledger_lost, &from->ledger_lost, 1);
    ebf_idset_merge(&into->ledger_late, &from->ledger_late, 1);
    ebf_idset_merge(&into->ledger_replay_acked, &from->ledger_replay_acked, 1);
    ebf_idset_merge(&into->ledger_fence_acked, &from->ledger_fence_acked, 1);
    add_u64(into, from, RUN2_BEGIN, RUN2_END);
    ebf_hist_merge(&into->build_ns, &from->build_ns);
    ebf_hist_merge(&into->build_timeout_ns, &from->build_timeout_ns);
    ebf_hist_merge(&into->dispatch_ns, &from->dispatch_ns);
    ebf_hist_merge(&into->ack_ns, &from->ack_ns);
}

void sfc_gauges_add(struct sfc_gauges *into, const struct sfc_gauges *from)
{
    into->building += from->building;
    into->ready += from->ready;
    into->unacked += from->unacked;
    into->free_slots += from->free_slots;
    into->free_records += from->free_records;
    for (uint16_t n = 0; n < from->n_nodes && n < SFC_MAX_NODES; n++) {
        into->credits[n] += from->credits[n];
        into->inflight[n] += from->inflight[n];
        into->alive[n] |= from->alive[n];
        into->epoch[n] = into->epoch[n] > from->epoch[n] ? into->epoch[n] : from->epoch[n];
    }
    into->n_nodes = into->n_nodes > from->n_nodes ? into->n_nodes : from->n_nodes;
    into->throttled |= from->throttled;
    into->draining |= from->draining;
    into->leave_at = into->leave_at > from->leave_at ? into->leave_at : from->leave_at;
    into->join_at = into->join_at > from->join_at ? into->join_at : from->join_at;
}

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
