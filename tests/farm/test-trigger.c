/* SPDX-License-Identifier: BSD-3-Clause */
/* test-trigger.c - trigger plug-ins in a demo farm: the threshold example's count recomputed from the pattern, an ABI-mismatched plug-in refused, errors, slow decides and a crash counted and reported. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ebf_pattern.h"

static char out[1 << 20];

/* Run "ebfarm demo ARGS" (stderr into out after stdout); the exit status. */
static int demo(const char *args)
{
    char cmd[2048];
    const char *b = getenv("EBFARM_BUILD_DIR");

    snprintf(cmd, sizeof(cmd), "cd %s && ./tools/ebfarm demo %s 2>&1", b, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The integer after "key": in out, from the first match of after on. */
static unsigned long long json_u64(const char *after, const char *key)
{
    const char *p = strstr(out, after);
    char pat[128];
    unsigned long long v;

    ck_assert_msg(p != NULL, "no %s in: %s", after, out);
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    p = strstr(p, pat);
    ck_assert_msg(p != NULL, "no %s after %s", key, after);
    ck_assert_int_eq(sscanf(p + strlen(pat), "%llu", &v), 1);
    return v;
}

/* Sum over the nodes of "key": N (each "nodes" entry has one). */
static unsigned long long nodes_sum(const char *key)
{
    const char *p = strstr(out, "\"nodes\"");
    char pat[128];
    unsigned long long sum = 0, v;

    ck_assert_ptr_nonnull(p);
    snprintf(pat, sizeof(pat), "\"%s\": ", key);
    while ((p = strstr(p, pat)) != NULL) {
        ck_assert_int_eq(sscanf(p + strlen(pat), "%llu", &v), 1);
        sum += v;
        p += strlen(pat);
    }
    return sum;
}

/* The threshold rule over the readout's pattern: fragments of 1024 B. */
static uint64_t word_sum(uint16_t source, uint64_t id)
{
    uint8_t b[1024];
    uint64_t s = 0;

    ebf_pattern_fill(b, sizeof(b), source, id, 0);
    for (size_t i = 0; i < sizeof(b); i += 4)
        s += (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 |
             (uint32_t)b[i + 3] << 24;
    return s;
}

START_TEST(test_threshold_demo)
{
    const uint64_t events = 20000, thr = 1ull << 40;
    uint64_t want = 0;
    char args[1024];

    for (uint64_t id = 0; id < events; id++)
        want += word_sum(0, id) + word_sum(3, id) >= thr;
    snprintf(args, sizeof(args), "--events %llu --frag-size 1024 --json "
             "--trigger plugins/threshold/ebf-trigger-threshold.so "
             "--trigger-param sources=0,3 --trigger-param threshold=%llu",
             (unsigned long long)events, (unsigned long long)thr);
    ck_assert_int_eq(demo(args), 0);
    ck_assert_uint_eq(want, 9956);   /* the rule splits the events near half */
    ck_assert_uint_eq(json_u64("\"ledger\"", "generated"), events);
    ck_assert_uint_eq(json_u64("\"ledger\"", "accepted"), want);
    ck_assert_uint_eq(json_u64("\"ledger\"", "rejected"), events - want);
    ck_assert_ptr_nonnull(strstr(out, "\"closed\": true"));
    ck_assert_uint_eq(nodes_sum("accepted"), want);
    ck_assert_uint_eq(nodes_sum("trigger_error"), 0);
    ck_assert_uint_eq(nodes_sum("view_overflow"), 0);
}
END_TEST

/* Two nodes with 2 trigger workers each, storage on: the same decisions
 * as the emulation on one lcore (accept 0.1 from the event id: 2009 of
 * 20000), the ledger closed, every accepted event stored. */
START_TEST(test_workers_demo)
{
    char dir[] = "/tmp/ebf-workers-XXXXXX", args[512];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(args, sizeof(args), "--events 20000 --workers 2 --store %s --json", dir);
    int rc = demo(args);
    char rm[128];
    snprintf(rm, sizeof(rm), "rm -rf %s", dir);
    ck_assert_int_eq(system(rm), 0);
    ck_assert_msg(rc == 0, "demo failed: %s", out);
    ck_assert_uint_eq(json_u64("\"ledger\"", "generated"), 20000);
    ck_assert_uint_eq(json_u64("\"ledger\"", "accepted"), 2009);
    ck_assert_uint_eq(json_u64("\"ledger\"", "rejected"), 17991);
    ck_assert_uint_eq(json_u64("\"ledger\"", "stored"), 2009);
    ck_assert_uint_eq(json_u64("\"ledger\"", "lost_total"), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"closed\": true"));
    ck_assert_uint_eq(nodes_sum("accepted"), 2009);
}
END_TEST

START_TEST(test_abi_refused)
{
    char want[1536], log[512];

    ck_assert_int_eq(demo("--events 100 --keep --trigger tests/unit/bad-abi-plugin.so"), 1);
    snprintf(want, sizeof(want), "node: trigger plug-in %s/tests/unit/bad-abi-plugin.so: ABI "
             "version 42, this node wants 1 (rebuild it against this ebfarm's "
             "ebfarm/trigger.h)", getenv("EBFARM_BUILD_DIR"));
    const char *p = strstr(out, "exited while starting: ");
    ck_assert_msg(p != NULL, "%s", out);
    ck_assert_msg(strncmp(p + strlen("exited while starting: "), want, strlen(want)) == 0,
                  "%s", out);
    p = strstr(p, " (log: ");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(sscanf(p, " (log: %511[^)])", log), 1);
    FILE *f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    strcat(want, "\n");
    ck_assert_str_eq(out, want);
    *strrchr(log, '/') = '\0';
    snprintf(want, sizeof(want), "rm -rf '%s'", log);
    ck_assert_int_eq(system(want), 0);
}
END_TEST

/* Errors and slow decides: counted by name, rejected or decided, the
 * ledger closed. Ids 0, 1000, ... 4000 fail; 0, 2000, 4000 sleep 60 ms
 * against a timeout of 30 ms. */
START_TEST(test_fail_and_slow)
{
    ck_assert_int_eq(demo("--events 5000 --json --trigger tests/farm/misbehave-plugin.so "
                          "--trigger-param fail_every=1000 --trigger-param slow_every=2000 "
                          "--trigger-param slow_ms=60 --trigger-timeout-ms 30"), 0);
    ck_assert_uint_eq(nodes_sum("trigger_error"), 5);
    ck_assert_uint_eq(nodes_sum("trigger_slow"), 3);
    ck_assert_uint_eq(json_u64("\"ledger\"", "accepted"), 4995);
    ck_assert_uint_eq(json_u64("\"ledger\"", "rejected"), 5);
    ck_assert_ptr_nonnull(strstr(out, "\"closed\": true"));
}
END_TEST

/* A crash in decide: the node's log names the plug-in, the signal and the
 * event, the node ends by that signal, its events are lost as no_node. */
START_TEST(test_crash)
{
    char dir[512], cmd[2048];

    int rc = demo("--events 3000 --nodes 1 --keep --max-seconds 2 "
                  "--trigger tests/farm/misbehave-plugin.so --trigger-param crash_at=1234");
    ck_assert_msg(rc == 0, "ebfarm demo exited %d:\n%s", rc, out);
    const char *p = strstr(out, "logs and counters kept in ");
    ck_assert_msg(p != NULL, "%s", out);
    ck_assert_int_eq(sscanf(p, "logs and counters kept in %511s", dir), 1);
    ck_assert_ptr_nonnull(strstr(out, "node0    gone: no final counters (killed or crashed)"));
    ck_assert_ptr_nonnull(strstr(out, "1 declared dead"));
    snprintf(cmd, sizeof(cmd), "grep -qx \"node: trigger plug-in 'misbehave' crashed (SIGSEGV) "
             "in decide on event 1234\" %s/node0.log && grep -qx 'killed by SIGSEGV' %s/exit.* "
             "&& rm -rf '%s'", dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *trigger_suite(void);     /* called by check-main.c, which has no header */

Suite *trigger_suite(void)
{
    Suite *s = suite_create("trigger");
    TCase *tc = tcase_create("demo");

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_threshold_demo);
    tcase_add_test(tc, test_workers_demo);
    tcase_add_test(tc, test_abi_refused);
    tcase_add_test(tc, test_fail_and_slow);
    tcase_add_test(tc, test_crash);
    suite_add_tcase(s, tc);
    return s;
}
