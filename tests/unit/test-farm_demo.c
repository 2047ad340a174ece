/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_demo.c - the demo's settings shaping farms/demo.yaml: run parameters, nodes, the MTU and its memory. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "farm_demo.h"

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

Suite *farm_demo_suite(void);

Suite *farm_demo_suite(void)
{
    Suite *s = suite_create("farm_demo");
    TCase *tc = tcase_create("farm_demo");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_jumbo_mtu);
    tcase_add_test(tc, test_mtu_refused);
    suite_add_tcase(s, tc);
    return s;
}
