/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cmd_demo.c - ebfarm demo's options: each refused with its exact message, and a run shaped by many. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static char out[65536];

/* Run "ebfarm demo ARGS" with stdout to /dev/null (to_stdout 0) or
 * stderr to /dev/null (1); what remains in out, the exit status returned. */
static int demo(const char *args, int to_stdout)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm demo %s %s", getenv("EBFARM_BUILD_DIR"), args,
             to_stdout ? "2>/dev/null" : "2>&1 >/dev/null");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const struct {
    const char *args, *message;
} refused[] = {
    {"--nodes 0", "option '--nodes': \"0\" is not an integer in 1..64"},
    {"--sources 129", "option '--sources': \"129\" is not an integer in 1..128"},
    {"--events 1.5", "option '--events': \"1.5\" is not an integer in 1..9223372036854775807"},
    {"--frag-size 0", "option '--frag-size': \"0\" is not an integer in 1..1048576"},
    {"--frag-min 0", "option '--frag-min': \"0\" is not an integer in 1..1048576"},
    {"--frag-max 2000000", "option '--frag-max': \"2000000\" is not an integer in 1..1048576"},
    {"--rate x", "option '--rate': \"x\" is not a number in 0..1e+09"},
    {"--trigger-us -1", "option '--trigger-us': \"-1\" is not a number in 0..1e+06"},
    {"--accept 2", "option '--accept': \"2\" is not a number in 0..1"},
    {"--timeout-ms 0", "option '--timeout-ms': \"0\" is not a number in 0.01..3.6e+06"},
    {"--credits 4097", "option '--credits': \"4097\" is not an integer in 1..4096"},
    {"--mtu 255", "option '--mtu': \"255\" is not an integer in 256..9600"},
    {"--mtu 9601", "option '--mtu': \"9601\" is not an integer in 256..9600"},
    {"--max-seconds 0", "option '--max-seconds': \"0\" is not a number in 1..86400"},
    {"--kill-node-after 0",
     "option '--kill-node-after': \"0\" is not an integer in 1..9223372036854775807"},
    {"--stall-nodes-after 0",
     "option '--stall-nodes-after': \"0\" is not an integer in 1..9223372036854775807"},
    {"--stall-ms 1e9", "option '--stall-ms': \"1e9\" is not a number in 0..600000"},
    {"--seed -1", "option '--seed': \"-1\" is not an integer in 0..18446744073709551615"},
    {"--frag-dist normal",
     "option '--frag-dist': \"normal\" is not fixed, uniform or lognormal"},
    {"--frag-mean 0", "option '--frag-mean': \"0\" is not a number in 1..1.04858e+06"},
    {"--frag-sigma 1e10", "option '--frag-sigma': \"1e10\" is not a number in 0..1.67772e+07"},
    {"--burst-events 0", "option '--burst-events': \"0\" is not an integer in 1..4294967295"},
    {"--burst-gap-us 60000001",
     "option '--burst-gap-us': \"60000001\" is not an integer in 0..60000000"},
    {"--faults none --silence x",
     "option '--silence': \"x\" is not SOURCE@EVENT (for example 3@1000)"},
    {"--silence 9@1", "option '--silence': source 9 is not below --sources 8"},
    {"--frag-mean 100", "--frag-mean and --frag-sigma need --frag-dist lognormal"},
    {"--frag-dist lognormal", "--frag-dist lognormal needs --frag-mean and --frag-sigma"},
    {"--frag-dist lognormal --frag-mean 10 --frag-sigma 1 --frag-size 100",
     "--frag-dist lognormal takes --frag-min/--frag-max, not --frag-size"},
    {"--frag-dist fixed --frag-min 10 --frag-max 20",
     "--frag-dist fixed takes --frag-size, not --frag-min/--frag-max"},
    {"--frag-dist lognormal --frag-mean 5000 --frag-sigma 1 --frag-max 4096",
     "--frag-mean 5000 is outside [--frag-min, --frag-max] (1024 to 4096)"},
    {"--burst-events 10 --rate 5", "--burst-events replaces --rate: give one of them"},
    {"--burst-gap-us 5", "--burst-gap-us needs --burst-events"},
    {"--kill-node-after 5 --nodes 1", "--kill-node-after needs --nodes 2 or more"},
    {"--frag-min 100 --frag-max 10", "--frag-min 100 is above --frag-max 10"},
    {"--nodes 2 extra", "unexpected argument 'extra'"},
};

/* Refused before anything starts: exit 2 and one line naming the option. */
START_TEST(test_refused)
{
    char want[512];

    snprintf(want, sizeof(want), "ebfarm demo: %s\n", refused[_i].message);
    ck_assert_int_eq(demo(refused[_i].args, 0), 2);
    ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_unknown_option_and_help)
{
    ck_assert_int_eq(demo("--bogus", 0), 2);
    ck_assert_ptr_nonnull(
        strstr(out, "unrecognized option '--bogus'\nusage: ebfarm demo [options]\n"));
    ck_assert_int_eq(demo("--help", 1), 0);
    ck_assert_ptr_eq(strstr(out, "usage: ebfarm demo [options]\n"), out);
    ck_assert_ptr_nonnull(strstr(out, "  --nodes N         trigger nodes, 1..64 (2)\n"));
}
END_TEST

/* out without blanks and newlines (the JSON summary's layout aside). */
static void squeeze(void)
{
    size_t o = 0;

    for (size_t i = 0; out[i]; i++)
        if (out[i] != ' ' && out[i] != '\n')
            out[o++] = out[i];
    out[o] = '\0';
}

/* A small run with many options: the summary's config says what was asked. */
START_TEST(test_run_shaped_by_options)
{
    ck_assert_int_eq(demo("--events 3000 --sources 4 --nodes 3 --frag-dist lognormal "
                          "--frag-mean 300 --frag-sigma 50 --frag-min 64 --frag-max 2048 "
                          "--seed 7 --udp --mtu 3000 --credits 16 --accept 0.5 --json", 1), 0);
    squeeze();
    ck_assert_ptr_nonnull(strstr(out, "\"config\":{\"events\":3000,\"sources\":4,\"nodes\":3,"
                                      "\"frag_min\":64,\"frag_max\":2048,\"frag_dist\":"
                                      "\"lognormal\",\"frag_mean\":300,\"frag_sigma\":50,"
                                      "\"rate\":0,\"encap\":\"udp\",\"mtu\":3000,\"seed\":7,"
                                      "\"faults\":\"none\",\"silence\":\"none\","
                                      "\"burst_events\":0,\"burst_gap_us\":0}"));
    ck_assert_ptr_nonnull(strstr(out, "\"closed\":true"));
}
END_TEST

Suite *cmd_demo_suite(void);

Suite *cmd_demo_suite(void)
{
    Suite *s = suite_create("cmd_demo");
    TCase *tc = tcase_create("cmd_demo");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_refused, 0, (int)(sizeof(refused) / sizeof(refused[0])));
    tcase_add_test(tc, test_unknown_option_and_help);
    tcase_add_test(tc, test_run_shaped_by_options);
    suite_add_tcase(s, tc);
    return s;
}
