/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_param.c - unit tests of the shared parameter table, its strict parser and the configure helpers. */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ebf_opt.h"
#include "ebf_param.h"

/* Every entry is whole: unique keys and options, a range, a meaning; a
 * farm section exactly when the farm file takes it. */
START_TEST(test_table)
{
    for (unsigned i = 0; i < EBF_P_COUNT; i++) {
        const struct ebf_param_def *d = &ebf_params[i];
        ck_assert_msg(d->key && d->opt && d->unit && d->help && d->help[0], "entry %u", i);
        ck_assert_msg(d->use != 0, "%s is used nowhere", d->key);
        ck_assert_msg(!(d->use & EBF_PU_FARM) == !d->farm, "%s: farm section", d->key);
        if (d->type == EBF_PT_DOUBLE)
            ck_assert_msg(d->dmin <= d->dmax, "%s", d->key);
        else
            ck_assert_msg(d->min <= d->max, "%s", d->key);
        for (unsigned j = 0; j < i; j++) {
            ck_assert_msg(strcmp(ebf_params[j].key, d->key) != 0, "key %s twice", d->key);
            ck_assert_msg(strcmp(ebf_params[j].opt, d->opt) != 0, "option %s twice", d->opt);
        }
        ck_assert_ptr_eq(ebf_param_find(d->key, strlen(d->key)), d);
    }
    ck_assert_ptr_null(ebf_param_find("frag", 4));
    ck_assert_ptr_eq(ebf_param_find("frag_size_x", 9), EBF_PARAM(FRAG_SIZE));
    ck_assert_uint_eq(EBF_PARAM(FRAG_SIZE)->max, EBF_FRAG_MAX);
    ck_assert_uint_eq(EBF_PARAM(PORTS)->max, EBF_PORTS_MAX);
}
END_TEST

/* Values are taken with their length: what follows a NUL is not dropped. */
START_TEST(test_parse)
{
    uint16_t u16 = 7;
    uint32_t u32 = 7;
    uint64_t u64 = 7;
    double d = 7;

    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(RATE), "10\0garbage", 10, &d), -EINVAL);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(RATE), "10\0", 3, &d), -EINVAL);
    ck_assert(d == 7);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(RATE), "10garbage", 2, &d), 0);
    ck_assert(d == 10);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(RATE), "1e9", 3, &d), 0);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(RATE), "1.0000001e9", 11, &d), -EINVAL);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SOURCES), "128", 3, &u16), 0);
    ck_assert_uint_eq(u16, 128);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SOURCES), "129", 3, &u16), -EINVAL);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SOURCES), "0", 1, &u16), -EINVAL);
    ck_assert_uint_eq(u16, 128);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(FRAG_SIZE), "16777216", 8, &u32), 0);
    ck_assert_uint_eq(u32, 16777216);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(FRAG_SIZE), "16777217", 8, &u32), -EINVAL);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SEED), "18446744073709551615", 20, &u64), 0);
    ck_assert(u64 == UINT64_MAX);
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SEED), " -1", 3, &u64), -EINVAL);
    /* Longer than any number: refused without reading it all. */
    char big[100];
    memset(big, '1', sizeof(big));
    ck_assert_int_eq(ebf_param_parse(EBF_PARAM(SEED), big, sizeof(big), &u64), -EINVAL);
    ck_assert(u64 == UINT64_MAX);
}
END_TEST

START_TEST(test_range)
{
    char buf[64];

    ck_assert_str_eq(ebf_param_range(EBF_PARAM(SOURCES), buf, sizeof(buf)), "1..128");
    ck_assert_str_eq(ebf_param_range(EBF_PARAM(RATE), buf, sizeof(buf)), "0..1e+09");
    ck_assert_str_eq(ebf_param_range(EBF_PARAM(TIMEOUT_MS), buf, sizeof(buf)), "0.01..3.6e+06");
    ck_assert_str_eq(ebf_param_range(EBF_PARAM(EVENTS), buf, sizeof(buf)),
                     "0..9223372036854775807");
}
END_TEST

/* A configure key table over a struct: values into the members, messages
 * with the shared range, unknown keys left to the caller. */
struct conf {
    uint16_t sources;
    double rate;
    uint64_t wrong;              /* a member of the wrong size for FRAG_SIZE */
};

static const struct ebf_conf_key keys[] = {
    EBF_CONF_KEY(SOURCES, struct conf, sources),
    EBF_CONF_KEY(RATE, struct conf, rate),
    EBF_CONF_KEY(FRAG_SIZE, struct conf, wrong),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

START_TEST(test_conf_set)
{
    struct conf c = {.sources = 8, .rate = 1, .wrong = 5};
    char err[256], list[128];

    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "sources", "12", err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "rate", "2.5e3", err, sizeof(err)), 0);
    ck_assert_uint_eq(c.sources, 12);
    ck_assert(c.rate == 2500);
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "sources", "129", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'sources': \"129\" is out of range: an integer in 1..128");
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "rate", "10 ", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'rate': \"10 \" is not a number in 0..1e+09");
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "rate", "1\n", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'rate': \"1\\x0a\" is not a number in 0..1e+09");
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "frag_size", "9", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "parameter 'frag_size': 8-byte member for a 4-byte value");
    ck_assert_uint_eq(c.sources, 12);
    ck_assert(c.rate == 2500);
    ck_assert_uint_eq(c.wrong, 5);
    ck_assert_int_eq(ebf_conf_set(keys, NKEYS, &c, "speed", "1", err, sizeof(err)), 1);
    ck_assert_str_eq(ebf_conf_keys(keys, NKEYS, list, sizeof(list)), "sources, rate, frag_size");
}
END_TEST

/* A default as the table writes it, in the parameter's type; none for
 * the keys that must be given. */
START_TEST(test_default)
{
    uint16_t credits = 0, udp = 0;
    double accept = 0, mean = -1;

    ck_assert_int_eq(ebf_param_default(EBF_PARAM(CREDITS), &credits), 0);
    ck_assert_uint_eq(credits, 32);
    ck_assert_str_eq(EBF_PARAM(CREDITS)->def, "32");
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(ACCEPT), &accept), 0);
    ck_assert(accept == 0.1);
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(UDP_PORT), &udp), 0);
    ck_assert_str_eq(EBF_PARAM(UDP_PORT)->def, "50505");
    ck_assert_uint_eq(udp, 50505);
    ck_assert_int_eq(ebf_param_default(EBF_PARAM(FRAG_MEAN), &mean), -ENOENT);
    ck_assert(mean == -1);
}
END_TEST

/* The checks across parameters: exact words, options or keys as named. */
START_TEST(test_cross)
{
    const struct ebf_param_names opts = {.opt = 1}, keys = {.pre = ""}, run = {.pre = "run."},
                                 node = {.pre = "nodes[1]."};
    char why[256] = "untouched";

    ck_assert_int_eq(ebf_param_check_workers(&opts, 2, 2, why, sizeof(why)), 0);
    ck_assert_int_eq(ebf_param_check_workers(&opts, 0, 1, why, sizeof(why)), 0);
    ck_assert_str_eq(why, "untouched");
    ck_assert_int_eq(ebf_param_check_workers(&opts, 3, 2, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "--workers 3 is more than --credits 2 (each trigger worker holds at "
                          "least one event slot)");
    ck_assert_int_eq(ebf_param_check_workers(&node, 15, 4, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "nodes[1].workers 15 is more than nodes[1].credits 4 (each trigger "
                          "worker holds at least one event slot)");

    ck_assert_int_eq(ebf_param_check_frag_range(&keys, 1024, 1024, why, sizeof(why)), 0);
    ck_assert_int_eq(ebf_param_check_frag_range(&keys, 2000, 1024, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "frag_min 2000 is above frag_max 1024");
    ck_assert_int_eq(ebf_param_check_frag_range(&opts, 101, 100, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "--frag-min 101 is above --frag-max 100");
    ck_assert_int_eq(ebf_param_check_frag_range(&run, 2, 1, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "run.frag_min 2 is above run.frag_max 1");

    ck_assert_int_eq(ebf_param_check_burst_gap(&opts, 0, 0, why, sizeof(why)), 0);
    ck_assert_int_eq(ebf_param_check_burst_gap(&opts, 1, 10, why, sizeof(why)), 0);
    ck_assert_int_eq(ebf_param_check_burst_gap(&opts, 1, 0, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "--burst-gap-us needs --burst-events above 0 (the pause between "
                          "bursts of that many events)");
    ck_assert_int_eq(ebf_param_check_burst_gap(&keys, 1, 0, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "burst_gap_us needs burst_events above 0 (the pause between bursts "
                          "of that many events)");
    /* A short buffer: cut, still a C string. */
    ck_assert_int_eq(ebf_param_check_frag_range(&run, 2, 1, why, 8), -EINVAL);
    ck_assert_str_eq(why, "run.fra");
}
END_TEST

Suite *ebf_param_suite(void);

Suite *ebf_param_suite(void)
{
    Suite *s = suite_create("ebf_param");
    TCase *tc = tcase_create("param");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_conf_set);
    tcase_add_test(tc, test_default);
    tcase_add_test(tc, test_cross);
    suite_add_tcase(s, tc);
    return s;
}
