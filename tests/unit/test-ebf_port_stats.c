/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_port_stats.c - one port table, the same names on every component; sound daemon tables. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "ebf_port_stats.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

static const char *const port_names[EBF_PORT_M_MAX] = {
    "port.ipackets", "port.opackets", "port.ibytes", "port.obytes",
    "port.imissed",  "port.ierrors",  "port.oerrors", "port.rx_nombuf",
};

/* Distinct values: base + the entry's index in the port table. */
static void port_fill(struct ebf_port_stats *ps, uint64_t base)
{
    for (unsigned i = 0; i < EBF_PORT_M_MAX; i++) {
        uint64_t v = base + i;
        memcpy((char *)ps + ebf_port_counter_table.c[i].off, &v, sizeof(v));
    }
}

/* The port metrics of ms, in order, are exactly the eight names per role
 * given, labelled port=<role>, with the values port_fill(base) gave. */
static void check_ports(const struct ebf_metrics *ms, const char *const *roles,
                        const uint64_t *base, unsigned n_roles)
{
    unsigned k = 0;

    for (unsigned i = 0; i < ms->n; i++) {
        const struct ebf_metric *m = &ms->m[i];
        if (strncmp(m->name, "port.", 5) != 0)
            continue;
        unsigned role = k / EBF_PORT_M_MAX, f = k % EBF_PORT_M_MAX;
        ck_assert_uint_lt(role, n_roles);
        ck_assert_int_eq(m->kind, EBF_M_COUNTER);
        ck_assert_str_eq(m->name, port_names[f]);
        ck_assert_str_eq(m->label, "port");
        ck_assert_str_eq(m->label_value, roles[role]);
        ck_assert_uint_eq(m->count, base[role] + f);
        k++;
    }
    ck_assert_uint_eq(k, n_roles * EBF_PORT_M_MAX);
}

static struct ro_snap ro;
static struct sfc_snap sfc;
static struct node_snap node;

/* Readout, SFC and node list the one table: port.rx_nombuf is port.rx_nombuf
 * everywhere, told apart by component and the port label. */
START_TEST(test_same_names_everywhere)
{
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 4096), 0);
    memset(&ro, 0, sizeof(ro));
    port_fill(&ro.port, 100);
    ro.faults = 1;               /* the fault counters do not hide a port */
    ro_metrics(&ro, &ms);
    check_ports(&ms, (const char *const[]){"sfc"}, (const uint64_t[]){100}, 1);

    ebf_metrics_clear(&ms);
    memset(&sfc, 0, sizeof(sfc));
    port_fill(&sfc.port, 200);
    sfc.g.n_nodes = 4;           /* nodes 0 and 2 share a port, 1 and 3 have their own */
    port_fill(&sfc.node_port[0], 300);
    port_fill(&sfc.node_port[1], 400);
    port_fill(&sfc.node_port[3], 500);
    sfc.node_port_own[0] = sfc.node_port_own[1] = sfc.node_port_own[3] = 1;
    sfc_metrics(&sfc, &ms);
    check_ports(&ms, (const char *const[]){"readout", "node0", "node1", "node3"},
                (const uint64_t[]){200, 300, 400, 500}, 4);

    ebf_metrics_clear(&ms);
    memset(&node, 0, sizeof(node));
    port_fill(&node.port, 600);
    node_metrics(&node, &ms);
    check_ports(&ms, (const char *const[]){"sfc"}, (const uint64_t[]){600}, 1);
    ebf_metrics_free(&ms);
}
END_TEST

/* Every entry of every daemon table has a name of [a-z0-9_.] and a help
 * sentence; within a component no two entries make the same metric. */
START_TEST(test_tables_sound)
{
    static const struct {
        const char *component;
        const struct ebf_counter_table *const *tables;
    } comp[] = {
        {"readout", ro_counter_tables},
        {"sfc", sfc_counter_tables},
        {"node", node_counter_tables},
    };

    for (unsigned k = 0; k < 3; k++) {
        unsigned seen = 0;
        const struct ebf_counter *all[256];
        for (const struct ebf_counter_table *const *t = comp[k].tables; *t; t++)
            for (unsigned i = 0; i < (*t)->n; i++) {
                const struct ebf_counter *c = &(*t)->c[i];
                ck_assert_msg(c->name && strspn(c->name, "abcdefghijklmnopqrstuvwxyz0123456789_.") ==
                                             strlen(c->name), "%s: bad name", comp[k].component);
                ck_assert_msg(c->help && strlen(c->help) > 4 && c->help[strlen(c->help) - 1] == '.',
                              "%s %s: help", comp[k].component, c->name);
                for (unsigned j = 0; j < seen; j++)
                    ck_assert_msg(strcmp(all[j]->name, c->name) != 0 ||
                                      (c->label_value && all[j]->label_value &&
                                       strcmp(all[j]->label_value, c->label_value) != 0),
                                  "%s: %s twice", comp[k].component, c->name);
                ck_assert_uint_lt(seen, 256);
                all[seen++] = c;
            }
        ck_assert_uint_gt(seen, 30);
    }
    /* the names code uses come from the tables */
    ck_assert_str_eq(SFC_NAME(ACK_ACCEPT), "ack.accept");
    ck_assert_str_eq(NODE_NAME(LEDGER_ACKS), "ledger.acks");
    ck_assert_str_eq(RO_NAME(EVENTS_ABANDONED), "events_abandoned");
    ck_assert_str_eq(RO_FAULT_NAME(DROP), "fault.dropped");
    ck_assert_str_eq(RO_FAULT_NAME(CORRUPT_HEADER), "fault.corrupted_header");
}
END_TEST

Suite *ebf_port_stats_suite(void);

Suite *ebf_port_stats_suite(void)
{
    Suite *s = suite_create("ebf_port_stats");
    TCase *tc = tcase_create("names");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_same_names_everywhere);
    tcase_add_test(tc, test_tables_sound);
    suite_add_tcase(s, tc);
    return s;
}
