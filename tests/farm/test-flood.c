/* SPDX-License-Identifier: BSD-3-Clause */
/* test-flood.c - connections without keys cost the daemons bounded descriptors: a run with storage under a flood of bare TCP connections loses nothing and stops. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "test-cli-rig.h"
#include "node_decide.h"

#define EVENTS 40000
#define FLOOD_NODE 2000          /* bare connections to node0's control port */
#define FLOOD_SFC 1100           /* and to sfc0's */

/* node0 and sfc0 controlled over tcp:// with keys, node0 storing what it
 * accepts; the readout paced so that the run lasts about 4 s. */
static const char farm_fmt[] =
    "farm: floodtest\n"
    "keys: keys\n"
    "defaults:\n"
    "  idle: backoff\n"
    "  memory_mb: 128\n"
    "  metrics_period_ms: 200\n"
    "run:\n"
    "  sources: 4\n"
    "  events: %d\n"
    "  rate: 10000\n"
    "  frag_size: 512\n"
    "  accept: 0.25\n"
    "  timeout_ms: 2000\n"
    "  store:\n"
    "    dir: %s/store\n"
    "    max_file_mb: 1\n"
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
    "    control: tcp://127.0.0.1:%d\n"
    "    metrics: tcp://127.0.0.1:%d\n"
    "nodes:\n"
    "  - name: node0\n"
    "    sfc: sfc0\n"
    "    port: memif:sfc0-node0\n"
    "    mac: 02:eb:00:00:02:00\n"
    "    control: tcp://127.0.0.1:%d\n"
    "    metrics: tcp://127.0.0.1:%d\n";

static struct cli_rig rig;
static char *const base = rig.base;
static char out[65536];
static int port0;
static int flood[FLOOD_NODE + FLOOD_SFC];
static unsigned n_flood;

static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

static void setup(void)
{
    cli_rig_init(&rig, "flood");
    port0 = cli_free_ports(4);
}

static void teardown(void)
{
    while (n_flood)
        close(flood[--n_flood]);
    cli_rig_fini(&rig, "floodtest");
}

/* n bare TCP connections to 127.0.0.1:port, connecting in the background
 * (they send nothing: no ZeroMQ greeting, no keys). */
static void open_flood(int port, unsigned n)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (unsigned i = 0; i < n; i++) {
        int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(s, 0);
        int rc = connect(s, (struct sockaddr *)&a, sizeof(a));
        ck_assert_msg(rc == 0 || errno == EINPROGRESS, "connect: %s", strerror(errno));
        flood[n_flood++] = s;
    }
}

/* The daemons started with a soft limit of 1,024 open files (systemd's
 * default); 2,000 bare connections to node0's control port and 1,100 to
 * sfc0's during a run with storage: status answers, the run finishes,
 * the ledger closes with every accepted event stored (store_failed 0),
 * stop succeeds, and node0 says it raised its limit. */
START_TEST(test_flood_during_run)
{
    char cmd[256], path[160];
    struct rlimit rl0, rl;
    uint64_t accepts = 0;

    snprintf(cmd, sizeof(cmd), "keygen %s/keys", base);
    ck_assert_msg(ebf(cmd) == 0, "%s", out);
    snprintf(path, sizeof(path), "%s/floodtest.yaml", base);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, farm_fmt, EVENTS, base, port0, port0 + 1, port0 + 2, port0 + 3);
    fclose(f);
    snprintf(path, sizeof(path), "%s/store", base);
    ck_assert_int_eq(mkdir(path, 0700), 0);

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl0), 0);
    ck_assert_msg(rl0.rlim_max >= 8192, "hard limit of open files %llu: the test needs 8192",
                  (unsigned long long)rl0.rlim_max);
    rl = rl0;
    rl.rlim_cur = 1024;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    snprintf(cmd, sizeof(cmd), "up %s/floodtest.yaml", base);
    int rc = ebf(cmd);
    rl.rlim_cur = rl0.rlim_max;              /* the test's own connections */
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert_msg(rc == 0, "ebfarm up: %s", out);     /* and its first run started */

    open_flood(port0 + 2, FLOOD_NODE);
    open_flood(port0, FLOOD_SFC);
    sleep(1);
    ck_assert_msg(ebf("status --json") == 0, "ebfarm status: %s", out);
    ck_assert_msg(count_of(out, "\"state\":\"RUNNING\"") == 3, "%s", out);
    for (int i = 0; i < 600 && !strstr(out, "\"finished\":true"); i++) {
        usleep(100000);
        ck_assert_msg(ebf("status --json") == 0, "ebfarm status: %s", out);
    }
    ck_assert_msg(strstr(out, "\"finished\":true") != NULL, "readout did not finish: %s", out);
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    for (uint64_t e = 0; e < EVENTS; e++)
        accepts += (uint64_t)node_decide(e, 0, 0.25);
    ck_assert_uint_eq(json_u64(out, "generated"), EVENTS);
    ck_assert_uint_eq(json_u64(out, "accepted"), accepts);
    ck_assert_uint_eq(json_u64(out, "stored"), accepts);
    ck_assert_uint_eq(json_u64(out, "lost_total"), 0);
    ck_assert_msg(!strstr(out, "store_failed"), "%s", out);
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);
    while (n_flood)
        close(flood[--n_flood]);
    ck_assert_msg(ebf("down --keep") == 0, "ebfarm down: %s", out);
    snprintf(path, sizeof(path), "%s/floodtest/node0.log", base);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    snprintf(cmd, sizeof(cmd), "open files: at most %llu (soft limit raised from ",
             (unsigned long long)rl0.rlim_max);
    ck_assert_msg(strstr(out, cmd) != NULL, "node0.log says no '%s': %s", cmd, out);
}
END_TEST

Suite *flood_suite(void);

Suite *flood_suite(void)
{
    Suite *s = suite_create("flood");
    TCase *tc = tcase_create("flood");

    tcase_set_timeout(tc, 240);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_flood_during_run);
    suite_add_tcase(s, tc);
    return s;
}
