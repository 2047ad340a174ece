/* SPDX-License-Identifier: BSD-3-Clause */
/* node_stats.c - the trigger node's counter table and its metric list. */
#include "node_stats.h"

static const char *const verify_names[] = {
#define NODE_VERIFY_NAME(n, s, b) s,
    NODE_FOREACH_VERIFY(NODE_VERIFY_NAME)
#undef NODE_VERIFY_NAME
};

const char *node_verify_name(unsigned v)
{
    return v < NODE_V_MAX ? verify_names[v] : "unknown";
}

static const char *const trigger_fail_names[] = {
#define NODE_TF_NAME(n, s) s,
    NODE_FOREACH_TRIGGER_FAIL(NODE_TF_NAME)
#undef NODE_TF_NAME
};

static const char *const store_lost_names[] = {
#define NODE_SL_NAME(n, s) s,
    NODE_FOREACH_STORE_LOST(NODE_SL_NAME)
#undef NODE_SL_NAME
};

const char *node_store_lost_name(unsigned r)
{
    return r < NODE_SL_MAX ? store_lost_names[r] : "unknown";
}

const char *node_trigger_fail_name(unsigned r)
{
    return r < NODE_TF_MAX ? trigger_fail_names[r] : "unknown";
}

static const char *node_trigger_fail_label(unsigned i)
{
    return node_trigger_fail_name(i);
}

static const char *node_store_lost_label(unsigned i)
{
    return node_store_lost_name(i);
}

static const char *node_reason_label(unsigned i)
{
    return ebf_reason_name((enum ebf_reason)i);
}

static const char *node_verify_label(unsigned i)
{
    return node_verify_name(i);
}

#define NODE_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct node_snap, NODE_M_##id, shape, name, field, args, flags, help)

static const struct ebf_counter node_counters[] = {
    NODE_FOREACH_COUNTER(NODE_DESC)
};

const struct ebf_counter_table node_counter_table = EBF_COUNTER_TABLE("node", node_counters);

const struct ebf_counter_table *const node_counter_tables[] = {
    &node_counter_table,
    &ebf_port_counter_table,
    &ebf_lcore_counter_table,
    NULL,
};

void node_metrics(const void *snap, struct ebf_metrics *ms)
{
    const struct node_snap *s = snap;

    ebf_counters_metrics(&node_counter_table, s, ms);
    ebf_port_metrics(&s->port, "sfc", ms);
    ebf_lcore_metrics(&s->lcore, ms);
}
