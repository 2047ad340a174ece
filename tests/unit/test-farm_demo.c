/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_demo.c - the demo's settings shaping farms/demo.yaml: run parameters, nodes, the MTU and its memory. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "farm_demo.h"
#include "farm_demo_netns.h"
#include "farm_place.h"

static struct farm_spec spec;
static char err[512];

static void shape(const struct farm_conf *c)
{
    err[0] = '\0';
    ck_assert_msg(farm_demo_spec(c, EBF_SOURCE_ROOT "/farms/demo.yaml", &spec, err,
                                 sizeof(err)) == 0, "%s", err);
}

/* The defaults leave the file's MTU and memory as written. */
START_TEST(test_defaults)
{
    struct farm_conf c, back;

    farm_conf_default(&c);
    ck_assert_uint_eq(c.mtu, 1500);
    shape(&c);
    ck_assert_uint_eq(spec.run.mtu, 1500);
    ck_assert_uint_eq(spec.n_nodes, 2);
    ck_assert_uint_eq(spec.sfc[0].p.memory_mb, 256);
    ck_assert_uint_eq(spec.readout[0].p.memory_mb, 128);
    ck_assert_uint_eq(spec.node[1].p.memory_mb, 128);
    farm_conf_of(&spec, &back);
    ck_assert_uint_eq(back.mtu, 1500);
}
END_TEST

/* The netns demo's rate: 40,000 frames/s of 8 sources of 1024 B (a frame
 * each) is 5,000 events/s; with failover on, (N - 1) / N of it, what the
 * survivors of one SFC's death carry: 2,500 with 2 SFCs, 3,750 with 4. */
START_TEST(test_netns_rate)
{
    struct farm_conf c;

    farm_conf_default(&c);
    c.sources = 8;
    c.frag_min = c.frag_max = 1024;
    c.sfcs = 2;
    ck_assert_double_eq(farm_netns_demo_rate(&c), 5000);
    c.replay_mb = 64;
    ck_assert_double_eq(farm_netns_demo_rate(&c), 2500);
    c.sfcs = 4;
    ck_assert_double_eq(farm_netns_demo_rate(&c), 3750);
    c.sfcs = 1;
    ck_assert_double_eq(farm_netns_demo_rate(&c), 5000);
}
END_TEST

/* A jumbo MTU reaches the spec (every daemon's --mtu), and the SFC's
 * memory grows with its frames: 256 MB x 9018 / 2048, rounded up; the
 * readout and the nodes keep theirs (their pools halve their counts). */
START_TEST(test_jumbo_mtu)
{
    static const struct {
        uint16_t mtu;
        uint32_t sfc_mb;
    } t[] = {
        {2030, 256},             /* a 2048-byte frame: the default room */
        {2031, 257},             /* 256 x 2049 / 2048 = 256.1 */
        {9000, 1128},            /* 256 x 9018 / 2048 = 1127.25 */
        {9600, 1203},            /* 256 x 9618 / 2048 = 1202.25 */
    };
    struct farm_conf c, back;

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        farm_conf_default(&c);
        c.mtu = t[i].mtu;
        shape(&c);
        ck_assert_uint_eq(spec.run.mtu, t[i].mtu);
        ck_assert_msg(spec.sfc[0].p.memory_mb == t[i].sfc_mb, "mtu %u: sfc %u MB, want %u",
                      t[i].mtu, spec.sfc[0].p.memory_mb, t[i].sfc_mb);
        ck_assert_uint_eq(spec.readout[0].p.memory_mb, 128);
        ck_assert_uint_eq(spec.node[0].p.memory_mb, 128);
        farm_conf_of(&spec, &back);
        ck_assert_uint_eq(back.mtu, t[i].mtu);
    }
}
END_TEST

/* An MTU the farm file refuses is refused here too, with the file's message. */
START_TEST(test_mtu_refused)
{
    struct farm_conf c;

    farm_conf_default(&c);
    c.mtu = 9601;
    ck_assert_int_eq(farm_demo_spec(&c, EBF_SOURCE_ROOT "/farms/demo.yaml", &spec, err,
                                    sizeof(err)), -1);
    ck_assert_str_eq(err, "farm 'demo': key 'run.mtu': 9601 is out of range (256 to 9600)");
}
END_TEST

/* --cpus and --idle: their form checked, with messages that name the item. */
START_TEST(test_place_check)
{
    static const struct {
        const char *spec;
        int idle;
        const char *err;         /* NULL: accepted */
    } t[] = {
        {"sfc=1,other=0", 0, NULL},
        {"sfc0=2-3,node=0,readout=1", 0, NULL},
        {"sfc=x", 0, "--cpus: 'x' is not a CPU N or a range N-M of CPUs 0 to 63"},
        {"sfc=3-1", 0, "--cpus: '3-1' is not a CPU N or a range N-M of CPUs 0 to 63"},
        {"sfc=64", 0, "--cpus: '64' is not a CPU N or a range N-M of CPUs 0 to 63"},
        {"1", 0, "--cpus: '1' is not WHO=CPUS (WHO: a process name, sfc, readout, node or "
                 "other)"},
        {"=1", 0, "--cpus: an item has no process name, kind or 'other' before '='"},
        {"spin", 1, NULL},
        {"sfc=spin,other=backoff", 1, NULL},
        {"spin,node=backoff", 1, "--idle: 'spin' is not WHO=spin|backoff (WHO: a process "
                                 "name, sfc, readout, node or other)"},
        {"sfc=fast", 1, "--idle: 'fast' is not spin or backoff"},
    };
    char why[256];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        why[0] = '\0';
        int rc = farm_place_check(t[i].spec, t[i].idle, why, sizeof(why));
        ck_assert_msg(rc == (t[i].err ? -1 : 0), "%s: rc %d (%s)", t[i].spec, rc, why);
        if (t[i].err)
            ck_assert_str_eq(why, t[i].err);
    }
}
END_TEST

/* --cpus sfc=1,other=0 on CPUs 0-1: the SFC's lcore alone on 1, started on
 * 0-1 (its control threads on 0); everything else on 0. --idle sfc=spin:
 * the SFC spins, the others keep the file's backoff. */
START_TEST(test_place_apply)
{
    struct farm_conf c;

    farm_conf_default(&c);
    snprintf(c.cpus, sizeof(c.cpus), "sfc=1,other=0");
    snprintf(c.idle, sizeof(c.idle), "sfc=spin");
    shape(&c);
    ck_assert_int_eq(farm_place_apply(&c, 0x3, &spec, err, sizeof(err)), 0);
    ck_assert_uint_eq(spec.sfc[0].p.cpus, 0x2);
    ck_assert_uint_eq(spec.sfc[0].p.start_cpus, 0x3);
    ck_assert_uint_eq(spec.readout[0].p.cpus, 0x1);
    ck_assert_uint_eq(spec.readout[0].p.start_cpus, 0x1);
    ck_assert_uint_eq(spec.node[1].p.cpus, 0x1);
    ck_assert_uint_eq(spec.node[1].p.start_cpus, 0x1);
    ck_assert_int_eq(spec.sfc[0].p.idle, FF_IDLE_SPIN);
    ck_assert_int_eq(spec.node[0].p.idle, FF_IDLE_BACKOFF);
    ck_assert_int_eq(spec.readout[0].p.idle, FF_IDLE_BACKOFF);

    /* No "other": the rest get the online CPUs no item names; a name
     * before its kind. */
    snprintf(c.cpus, sizeof(c.cpus), "node=2,node1=3,sfc=1");
    snprintf(c.idle, sizeof(c.idle), "spin");
    ck_assert_int_eq(farm_place_apply(&c, 0x3f, &spec, err, sizeof(err)), 0);
    ck_assert_uint_eq(spec.node[0].p.cpus, 0x4);
    ck_assert_uint_eq(spec.node[1].p.cpus, 0x8);
    ck_assert_uint_eq(spec.node[1].p.start_cpus, 0x39);
    ck_assert_uint_eq(spec.readout[0].p.cpus, 0x31);
    ck_assert_int_eq(spec.node[0].p.idle, FF_IDLE_SPIN);
    ck_assert_int_eq(spec.readout[0].p.idle, FF_IDLE_SPIN);
}
END_TEST

/* Names the farm does not have and CPUs this machine does not give. */
START_TEST(test_place_refused)
{
    struct farm_conf c;

    farm_conf_default(&c);
    shape(&c);
    snprintf(c.cpus, sizeof(c.cpus), "sfc3=1");
    ck_assert_int_eq(farm_place_apply(&c, 0x3, &spec, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--cpus: 'sfc3' is no process of the farm, nor sfc, readout, node or "
                          "other");
    snprintf(c.cpus, sizeof(c.cpus), "sfc=5");
    ck_assert_int_eq(farm_place_apply(&c, 0x3, &spec, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--cpus: sfc names a CPU this machine does not give us (online: "
                          "0-1)");
    c.cpus[0] = '\0';
    snprintf(c.idle, sizeof(c.idle), "node7=spin");
    ck_assert_int_eq(farm_place_apply(&c, 0x3, &spec, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "--idle: 'node7' is no process of the farm, nor sfc, readout, node or "
                          "other");
    farm_place_list(0x2d, err, sizeof(err));
    ck_assert_str_eq(err, "0,2-3,5");
}
END_TEST

Suite *farm_demo_suite(void);

Suite *farm_demo_suite(void)
{
    Suite *s = suite_create("farm_demo");
    TCase *tc = tcase_create("farm_demo");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_netns_rate);
    tcase_add_test(tc, test_jumbo_mtu);
    tcase_add_test(tc, test_mtu_refused);
    tcase_add_test(tc, test_place_check);
    tcase_add_test(tc, test_place_apply);
    tcase_add_test(tc, test_place_refused);
    suite_add_tcase(s, tc);
    return s;
}
