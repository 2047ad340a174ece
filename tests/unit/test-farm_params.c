/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_params.c - the configure parameters a farm spec gives each kind of daemon, key by key. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "farm_params.h"
#include "farmfile.h"

static struct farm_spec spec;

static void setup(void)
{
    char err[512] = "";

    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/demo.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
}

/* The parameters of role are exactly want: "key=value", NULL-terminated. */
static void check_params(enum farm_role role, const char *const *want)
{
    struct ctl_param p[FARM_PARAMS_MAX];
    unsigned n = farm_params(&spec, role, p), k = 0;
    char got[300];

    for (; want[k]; k++) {
        ck_assert_msg(k < n, "%u parameters, want more: '%s' next", n, want[k]);
        snprintf(got, sizeof(got), "%s=%s", p[k].key, p[k].value);
        ck_assert_msg(strcmp(got, want[k]) == 0, "parameter %u is '%s', want '%s'", k, got,
                      want[k]);
    }
    ck_assert_uint_eq(n, k);
}

START_TEST(test_sfc_and_node)
{
    static const char *const sfc[] = {"farm=demo", "sources=8", "timeout_ms=100", NULL};
    static const char *const node[] = {
        "farm=demo", "accept=0.10000000000000001", "accept_seed=0", "trigger_us=1", NULL,
    };

    check_params(FARM_SFC, sfc);
    check_params(FARM_NODE, node);
}
END_TEST

/* Every fault parameter each time, "none" where there is none. */
START_TEST(test_readout_without_faults)
{
    static const char *const want[] = {
        "farm=demo", "events=200000", "rate=0", "duration_s=300", "frag_max=1024", "frag_min=1024", "seed=1",
        "faults=none", "fault_seed=1", "silence=none", "burst_events=0", "burst_gap_us=0",
        "frag_dist=fixed", "payload=prebuilt", NULL,
    };

    check_params(FARM_READOUT, want);
}
END_TEST

START_TEST(test_readout_with_faults_and_lognormal_sizes)
{
    static const char *const want[] = {
        "farm=demo", "events=5", "rate=2.5", "duration_s=300", "frag_max=4096", "frag_min=64", "seed=9",
        "faults=drop=0.01,dup=0.001", "fault_seed=11", "silence=3@100", "burst_events=50",
        "burst_gap_us=20", "frag_dist=lognormal", "payload=per-event", "frag_mean=700.5",
        "frag_sigma=120", NULL,
    };
    struct ff_run *r = &spec.run;

    r->events = 5;
    r->rate = 2.5;
    r->frag_min = 64;
    r->frag_max = 4096;
    r->seed = 9;
    snprintf(r->faults, sizeof(r->faults), "drop=0.01,dup=0.001");
    r->fault_seed = 11;
    r->silence_source = 3;
    r->silence_event = 100;
    r->burst_events = 50;
    r->burst_gap_us = 20;
    r->frag_dist = FF_DIST_LOGNORMAL;
    r->frag_mean = 700.5;
    r->frag_sigma = 120;
    r->payload = FF_PAYLOAD_PER_EVENT;
    check_params(FARM_READOUT, want);
}
END_TEST

/* payload auto: prebuilt without a trigger plug-in (above), per-event with
 * one (it may read the payload); explicit values stay. */
START_TEST(test_readout_payload_auto)
{
    static const char *const want[] = {
        "farm=demo", "events=200000", "rate=0", "duration_s=300", "frag_max=1024", "frag_min=1024", "seed=1",
        "faults=none", "fault_seed=1", "silence=none", "burst_events=0", "burst_gap_us=0",
        "frag_dist=fixed", "payload=per-event", NULL,
    };
    static const char *const pre[] = {
        "farm=demo", "events=200000", "rate=0", "duration_s=300", "frag_max=1024", "frag_min=1024", "seed=1",
        "faults=none", "fault_seed=1", "silence=none", "burst_events=0", "burst_gap_us=0",
        "frag_dist=fixed", "payload=prebuilt", NULL,
    };

    snprintf(spec.run.trigger.plugin, sizeof(spec.run.trigger.plugin), "plugins/x.so");
    check_params(FARM_READOUT, want);
    spec.run.payload = FF_PAYLOAD_PREBUILT;
    check_params(FARM_READOUT, pre);
}
END_TEST

Suite *farm_params_suite(void);

Suite *farm_params_suite(void)
{
    Suite *s = suite_create("farm_params");
    TCase *tc = tcase_create("farm_params");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_sfc_and_node);
    tcase_add_test(tc, test_readout_without_faults);
    tcase_add_test(tc, test_readout_with_faults_and_lognormal_sizes);
    tcase_add_test(tc, test_readout_payload_auto);
    suite_add_tcase(s, tc);
    return s;
}
