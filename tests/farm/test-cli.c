/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cli.c - a run driven only through ebfarm up, status, stop and down. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "node_decide.h"

#define EVENTS 20000

static const char farm_yaml[] =
    "farm: clitest\n"
    "defaults:\n"
    "  idle: backoff\n"
    "  memory_mb: 128\n"
    "  metrics_period_ms: 200\n"
    "run:\n"
    "  sources: 4\n"
    "  events: 20000\n"
    "  frag_size: 512\n"
    "  accept: 0.25\n"
    "  timeout_ms: 2000\n"
    "readouts:\n"
    "  - name: ro0\n"
    "    port: memif:ro0-sfc0\n"
    "    mac: 02:eb:00:00:00:10\n"
    "    sfcs: [sfc0]\n"
    "sfcs:\n"
    "  - name: sfc0\n"
    "    id: 0\n"
    "    port: memif:ro0-sfc0\n"
    "    mac: 02:eb:00:00:00:01\n"
    "    memory_mb: 256\n"
    "nodes:\n"
    "  - name: node0\n"
    "    sfc: sfc0\n"
    "    port: memif:sfc0-node0\n"
    "    mac: 02:eb:00:00:02:00\n"
    "  - name: node1\n"
    "    sfc: sfc0\n"
    "    port: memif:sfc0-node1\n"
    "    mac: 02:eb:00:00:02:01\n";

static char base[64], ebfarm[512], out[65536];

/* Run "ebfarm ARGS" with the test's run directory; its output in out. */
static int ebf(const char *args)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "EBFARM_RUN_DIR=%s %s %s 2>&1", base, ebfarm, args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static unsigned count(const char *hay, const char *needle)
{
    unsigned n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static uint64_t json_u64(const char *json, const char *key)
{
    char k[64];

    snprintf(k, sizeof(k), "\"%s\":", key);
    const char *p = strstr(json, k);
    ck_assert_msg(p != NULL, "no %s in %s", key, json);
    return strtoull(p + strlen(k), NULL, 10);
}

struct proc_rec {
    int pid;
    char prefix[96];
};

static unsigned read_state(struct proc_rec *pr, unsigned max)
{
    char path[128], line[1024], name[64], role[16], ctl[256], met[256];
    unsigned n = 0;

    snprintf(path, sizeof(path), "%s/clitest/farm.state", base);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    while (fgets(line, sizeof(line), f) && n < max)
        if (sscanf(line, "proc %63s %15s %d %95s %255s %255s", name, role, &pr[n].pid,
                   pr[n].prefix, ctl, met) == 6)
            n++;
    fclose(f);
    return n;
}

static int gone(int pid)
{
    char path[64], buf[256];

    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[2] == 'Z';     /* exited, not yet reaped by init */
}

/* Parent side, around the forked test: a fresh run directory, and whatever
 * a failed test left up taken down. */
static void setup(void)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");

    snprintf(ebfarm, sizeof(ebfarm), "%s/tools/ebfarm", dir ? dir : ".");
    snprintf(base, sizeof(base), "/tmp/ebf-cli-XXXXXX");
    if (!mkdtemp(base))
        abort();
}

static void teardown(void)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "test ! -e %s/clitest/farm.state || EBFARM_RUN_DIR=%s %s down; "
             "rm -rf '%s'", base, base, ebfarm, base);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: %s failed\n", cmd);
}

START_TEST(up_status_stop_down)
{
    char path[128], cmd[256];
    struct proc_rec pr[8];
    struct stat sb;

    ck_assert_ptr_nonnull(getenv("EBFARM_BUILD_DIR"));
    snprintf(path, sizeof(path), "%s/clitest.yaml", base);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(farm_yaml, f);
    fclose(f);

    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    ck_assert_msg(strstr(out, "farm 'clitest' is up: 4 processes") != NULL, "%s", out);
    ck_assert_uint_eq(read_state(pr, 8), 4);

    /* Every process RUNNING run 1; an illegal command is refused by name. */
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count(out, "\"state\":\"RUNNING\"") == 4, "%s", out);
    ck_assert_uint_eq(count(out, "\"run_number\":1"), 5);
    ck_assert_int_eq(ebf("start"), 1);
    ck_assert_msg(strstr(out, "command 'start' is not allowed in state RUNNING") != NULL, "%s", out);

    /* Wait for the readout to finish its events. */
    for (int i = 0; i < 600 && !strstr(out, "\"finished\":true"); i++) {
        usleep(100000);
        ck_assert_int_eq(ebf("status --json"), 0);
    }
    ck_assert_msg(strstr(out, "\"finished\":true") != NULL, "readout did not finish: %s", out);

    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    uint64_t accepts = 0;
    for (uint64_t e = 0; e < EVENTS; e++)
        accepts += (uint64_t)node_decide(e, 0, 0.25);
    ck_assert_uint_eq(json_u64(out, "generated"), EVENTS);
    ck_assert_uint_eq(json_u64(out, "accepted"), accepts);
    ck_assert_uint_eq(json_u64(out, "rejected"), EVENTS - accepts);
    ck_assert_uint_eq(json_u64(out, "lost_total"), 0);
    ck_assert_msg(strstr(out, "\"lost\": {}") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);

    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count(out, "\"state\":\"CONFIGURED\"") == 4, "%s", out);

    /* While another command holds the farm's lock, up, start, stop and down
     * are refused with the holder named; status is not. */
    char lock[128], want[512];
    snprintf(lock, sizeof(lock), "%s/.clitest.lock", base);
    int fd = open(lock, O_RDWR);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    ck_assert_int_eq(ftruncate(fd, 0), 0);
    ck_assert_int_eq(pwrite(fd, "'ebfarm stop' (pid 4242)\n", 25, 0), 25);
    static const char *const refused[] = {"start", "stop", "down"};
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_int_eq(ebf(refused[i]), 1);
        snprintf(want, sizeof(want), "ebfarm %s: farm 'clitest' is busy: 'ebfarm stop' (pid "
                 "4242) holds its lock (%s); try again when it is done\n", refused[i], lock);
        ck_assert_str_eq(out, want);
    }
    snprintf(cmd, sizeof(cmd), "up %s/clitest.yaml", base);
    ck_assert_int_eq(ebf(cmd), 1);
    ck_assert_msg(strstr(out, "ebfarm up: farm 'clitest' is busy: 'ebfarm stop' (pid 4242)")
                  == out, "%s", out);
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_uint_eq(count(out, "\"state\":\"CONFIGURED\""), 4);
    close(fd);

    /* A stopped node does not answer; a killed readout has EXITED and says
     * how; no total mixes in a process that gave no counters. */
    ck_assert_int_eq(kill(pr[2].pid, SIGSTOP), 0);
    ck_assert_int_eq(kill(pr[3].pid, SIGKILL), 0);
    for (int i = 0; i < 250 && kill(pr[3].pid, 0) == 0; i++)   /* reaped by its keeper */
        usleep(20000);
    ck_assert_int_ne(kill(pr[3].pid, 0), 0);
    ck_assert_int_eq(ebf("status --json"), 1);
    snprintf(want, sizeof(want), "{\"name\":\"node1\",\"component\":\"node\",\"pid\":%d,"
             "\"state\":\"NO_ANSWER\",\"run_number\":0,\"finished\":false,\"error\":\"runs, "
             "but no answer on ipc://%s/clitest/node1.ctl within 3000 ms\"", pr[2].pid, base);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    snprintf(want, sizeof(want), "{\"name\":\"ro0\",\"component\":\"readout\",\"pid\":%d,"
             "\"state\":\"EXITED\",\"run_number\":0,\"finished\":false,\"error\":\"killed by "
             "SIGKILL (log: %s/clitest/ro0.log)\"", pr[3].pid, base);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"totals\":{\"generated\":null,\"accepted\":null,"
                              "\"rejected\":null,\"lost\":0,\"frames\":null,"
                              "\"without\":\"node1, ro0\"}}") != NULL, "%s", out);
    ck_assert_int_eq(kill(pr[2].pid, SIGCONT), 0);
    ck_assert_int_eq(ebf("status"), 1);
    snprintf(want, sizeof(want), "totals: generated ?, accepted %llu, rejected %llu, lost 0, "
             "frames ? (? : no counters from ro0)\n", (unsigned long long)accepts,
             (unsigned long long)(EVENTS - accepts));
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);

    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);
    for (unsigned i = 0; i < 4; i++) {
        ck_assert_msg(gone(pr[i].pid), "process %d is still there", pr[i].pid);
        snprintf(path, sizeof(path), "/var/run/dpdk/%s", pr[i].prefix);
        ck_assert_msg(stat(path, &sb) != 0, "%s left behind", path);
    }
    snprintf(path, sizeof(path), "%s/clitest", base);
    ck_assert_msg(stat(path, &sb) != 0, "%s left behind", path);
    ck_assert_int_eq(ebf("status"), 1);
    ck_assert_msg(strstr(out, "no farm is up") != NULL, "%s", out);
}
END_TEST

Suite *cli_suite(void);

Suite *cli_suite(void)
{
    Suite *s = suite_create("farmcli");
    TCase *tc = tcase_create("cli");

    tcase_set_timeout(tc, 180);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, up_status_stop_down);
    suite_add_tcase(s, tc);
    return s;
}
