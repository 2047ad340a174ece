/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sim-rig.c - the simulator unit tests' rig: shared farms, keys and faults set, runs, the closed ledger asserted. */
#include <check.h>

#include "test-sim-rig.h"

void sim_rig_set(struct sim_conf *c, const char *key, const char *value)
{
    char err[256] = "";

    ck_assert_msg(sim_conf_set(c, key, value, err, sizeof(err)) == 0, "%s", err);
}

void sim_rig_fault(struct sim_conf *c, const char *text)
{
    char err[256] = "";

    ck_assert_msg(sim_conf_fault(c, text, err, sizeof(err)) == 0, "%s", err);
}

void sim_rig_base(struct sim_conf *c, int failover)
{
    sim_conf_defaults(c);
    sim_rig_set(c, "sfcs", "2");
    sim_rig_set(c, "trigger", "fixed");
    sim_rig_set(c, "trigger_us", "100");
    sim_rig_set(c, "accept", "0.5");
    sim_rig_set(c, "failover", failover ? "1" : "0");
}

void sim_rig_fast(struct sim_conf *c)
{
    sim_rig_base(c, 1);
    sim_rig_set(c, "rate_hz", "100000");
    sim_rig_set(c, "sources", "2");
    sim_rig_set(c, "trigger_us", "10");
    sim_rig_set(c, "capacity", "4096");
}

void sim_rig_run(const struct sim_conf *c, struct sim_result *r)
{
    char err[256] = "";

    ck_assert_msg(sim_conf_check(c, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(sim_run(c, r, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
}

void sim_rig_closed(const struct sim_result *r)
{
    ck_assert_int_eq(r->l.unaccounted, 0);
    ck_assert_int_eq(r->l.digest_match, 1);
    ck_assert_int_eq(r->l.ids_match, 1);
    ck_assert_int_eq(r->l.nodes_agree, 1);
    ck_assert_int_eq(r->l.closed, 1);
}

void sim_rig_run_closed(const struct sim_conf *c, struct sim_result *r)
{
    sim_rig_run(c, r);
    sim_rig_closed(r);
}
