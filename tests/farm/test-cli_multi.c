/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cli_multi.c - a farm of 4 readouts, 2 SFCs, 4 nodes through ebfarm up/status/stop/down: dead readouts and a dead SFC. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test-cli-rig.h"

/* farms/multi.yaml's shape, unpaced events replaced by a long paced run. */
static const char farm_fmt[] =
    "farm: %s\n"
    "defaults: {idle: backoff, no_huge: true, memory_mb: 128, metrics_period_ms: 200}\n"
    "run: {sources: 8, events: 1000000, rate: 20000, frag_size: 512, accept: 0.25,"
    " timeout_ms: 200}\n"
    "readouts:\n"
    "  - {name: ro0, port: memif, mac: 02:eb:00:00:00:10, sfcs: [sfc0, sfc1]}\n"
    "  - {name: ro1, port: memif, mac: 02:eb:00:00:00:11, sfcs: [sfc0, sfc1]}\n"
    "  - {name: ro2, port: memif, mac: 02:eb:00:00:00:12, sfcs: [sfc0, sfc1]}\n"
    "  - {name: ro3, port: memif, mac: 02:eb:00:00:00:13, sfcs: [sfc0, sfc1]}\n"
    "sfcs:\n"
    "  - {name: sfc0, id: 0, port: memif, mac: 02:eb:00:00:00:01, memory_mb: 256}\n"
    "  - {name: sfc1, id: 1, port: memif, mac: 02:eb:00:00:00:31, memory_mb: 256}\n"
    "nodes:\n"
    "  - {name: node0, sfc: sfc0, port: 'memif:sfc0-node0', mac: 02:eb:00:00:02:00}\n"
    "  - {name: node1, sfc: sfc1, port: 'memif:sfc1-node1', mac: 02:eb:00:00:02:01}\n"
    "  - {name: node2, sfc: sfc0, port: 'memif:sfc0-node2', mac: 02:eb:00:00:02:02}\n"
    "  - {name: node3, sfc: sfc1, port: 'memif:sfc1-node3', mac: 02:eb:00:00:02:03}\n";

static struct cli_rig rig;
static char out[262144];

static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

/* The pid of process name of farm f, from its state file. */
static int pid_of(const char *f, const char *name)
{
    char path[160], line[1024], n[64], role[16];
    int pid = -1, p;

    snprintf(path, sizeof(path), "%s/%s/farm.state", rig.base, f);
    FILE *fp = fopen(path, "r");
    ck_assert_msg(fp != NULL, "no %s", path);
    while (fgets(line, sizeof(line), fp))
        if (sscanf(line, "proc %63s %15s %d", n, role, &p) == 3 && strcmp(n, name) == 0)
            pid = p;
    fclose(fp);
    ck_assert_msg(pid > 0, "no process %s in %s", name, path);
    return pid;
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
    return paren && paren[2] == 'Z';
}

static void kill_and_wait(int pid)
{
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    for (int i = 0; i < 250 && !gone(pid); i++)
        usleep(20000);
    ck_assert(gone(pid));
}

/* A readout frozen first, and killed once its SFCs no longer poll its
 * silent memif link in every pass (1 s): the memif race, docs/status.md. */
static void stop_then_kill(int pid)
{
    ck_assert_int_eq(kill(pid, SIGSTOP), 0);
    usleep(1500000);
    kill_and_wait(pid);
}

/* Bring farm f up and let it decide at least 5000 events. */
static void up_and_going(const char *f)
{
    char path[160], cmd[256];

    snprintf(path, sizeof(path), "%s/%s.yaml", rig.base, f);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fprintf(fp, farm_fmt, f);
    fclose(fp);
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    ck_assert_msg(strstr(out, "is up: 10 processes") != NULL, "%s", out);
    snprintf(cmd, sizeof(cmd), "status --json --farm %s", f);
    ck_assert_int_eq(ebf(cmd), 0);
    for (int i = 0; i < 300 && json_u64(out, "ack.events") < 5000; i++) {
        usleep(50000);
        ck_assert_int_eq(ebf(cmd), 0);
    }
    ck_assert_uint_ge(json_u64(out, "ack.events"), 5000);
}

/* The number after `"name": "<name>", "from_event": ` in out. */
static uint64_t from_event_of(const char *name)
{
    char key[96];

    snprintf(key, sizeof(key), "{\"name\": \"%s\", \"from_event\": ", name);
    const char *p = strstr(out, key);
    ck_assert_msg(p != NULL, "no %s in %s", key, out);
    return strtoull(p + strlen(key), NULL, 10);
}

/* Parent side, around each forked test: a fresh run directory, and its
 * farm taken down if a failed test left it up. */
static void setup(void)
{
    cli_rig_init(&rig, "cmulti");
}

static void teardown_mro(void)
{
    cli_rig_fini(&rig, "mro");
}

static void teardown_mall(void)
{
    cli_rig_fini(&rig, "mall");
}

static void teardown_msfc(void)
{
    cli_rig_fini(&rig, "msfc");
}

/*
 * ro1 and then ro2 killed mid-run (SIGSTOP, SIGKILL 1.5 s later), one after
 * the other: status shows both
 * EXITED; stop gives, within 30 s, a ledger closed over what the survivors
 * saw that names each dead readout and the event it was lost from (ro2
 * later than ro1, both within what the SFCs saw); then down leaves nothing.
 */
START_TEST(readouts_killed)
{
    up_and_going("mro");
    int ro1 = pid_of("mro", "ro1"), ro2 = pid_of("mro", "ro2");
    stop_then_kill(ro1);
    stop_then_kill(ro2);
    ck_assert_int_eq(ebf("status --farm mro"), 1);     /* not every process answers */
    ck_assert_msg(count_of(out, " EXITED ") == 2, "%s", out);

    time_t t0 = time(NULL);
    ck_assert_msg(ebf("stop --json --farm mro") == 0, "ebfarm stop: %s", out);
    ck_assert_int_le(time(NULL) - t0, 30);
    ck_assert_msg(strstr(out, "\"readouts\": 2}, \"readouts_lost\": [{\"name\": \"ro1\"") != NULL,
                  "%s", out);
    uint64_t seen = json_u64(out, "seen"), f1 = from_event_of("ro1"), f2 = from_event_of("ro2");
    ck_assert_uint_gt(f1, 5000);
    ck_assert_uint_gt(f2, f1 + 10000);      /* 1.5 s at 20,000 events/s later */
    ck_assert_uint_le(f2, seen);
    ck_assert_msg(strstr(out, "\"generated\": null") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);
    ck_assert_int_eq(ebf("down --farm mro"), 0);
}
END_TEST

/*
 * sfc1 frozen (SIGSTOP): within --sfc-timeout-ms (2 s) every readout gives
 * it up and status says so on each readout's line; then SIGKILLed, and
 * stop gives, within 30 s, a closed ledger with sfc1's undecided events
 * under sfc_lost, its decided ones taken from its nodes' records.
 */
START_TEST(sfc_killed)
{
    up_and_going("msfc");
    int sfc1 = pid_of("msfc", "sfc1");
    ck_assert_int_eq(kill(sfc1, SIGSTOP), 0);
    unsigned n = 0;
    for (int i = 0; i < 200 && n < 4; i++) {
        usleep(50000);
        ck_assert_int_eq(ebf("status --farm msfc"), 1);    /* sfc1 does not answer */
        n = count_of(out, "gave up SFC 1 (its place in sfcs) from event ");
    }
    ck_assert_msg(n == 4, "%s", out);
    kill_and_wait(sfc1);

    time_t t0 = time(NULL);
    ck_assert_msg(ebf("stop --json --farm msfc") == 0, "ebfarm stop: %s", out);
    ck_assert_int_le(time(NULL) - t0, 30);
    ck_assert_msg(strstr(out, "\"sfc_gone\": {\"name\": \"sfc1\", \"sfcs\": 1, ") != NULL, "%s",
                  out);
    uint64_t gen = json_u64(out, "generated"), acc = json_u64(out, "accepted");
    uint64_t rej = json_u64(out, "rejected"), lost = json_u64(out, "lost_total");
    uint64_t decided = json_u64(out, "decided_by_its_nodes"), sl = json_u64(out, "sfc_lost");
    ck_assert_uint_eq(acc + rej + lost, gen);
    ck_assert_uint_ge(lost, sl);
    ck_assert_uint_eq(decided + sl, gen / 2);        /* sfc1's ids: the odd ones */
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);
    ck_assert_int_eq(ebf("down --farm msfc"), 0);
}
END_TEST

/*
 * Every SFC gone: sfc0 and sfc1 frozen until every readout gave both up,
 * then SIGKILLed; stop still gives a closed ledger: each SFC's events
 * decided where its nodes' own records say, the rest under sfc_lost.
 */
START_TEST(every_sfc_killed)
{
    up_and_going("mall");
    int sfc[2] = {pid_of("mall", "sfc0"), pid_of("mall", "sfc1")};
    ck_assert_int_eq(kill(sfc[0], SIGSTOP), 0);
    ck_assert_int_eq(kill(sfc[1], SIGSTOP), 0);
    unsigned n = 0;
    for (int i = 0; i < 200 && n < 8; i++) {
        usleep(50000);
        ck_assert_int_eq(ebf("status --farm mall"), 1);
        n = count_of(out, "gave up SFC 0 (its place in sfcs) from event ") +
            count_of(out, "gave up SFC 1 (its place in sfcs) from event ");
    }
    ck_assert_msg(n == 8, "%s", out);
    kill_and_wait(sfc[0]);
    kill_and_wait(sfc[1]);

    ck_assert_msg(ebf("stop --json --farm mall") == 0, "ebfarm stop: %s", out);
    ck_assert_msg(strstr(out, "\"sfcs\": 2, ") != NULL, "%s", out);
    uint64_t gen = json_u64(out, "generated"), acc = json_u64(out, "accepted");
    uint64_t rej = json_u64(out, "rejected"), lost = json_u64(out, "lost_total");
    uint64_t decided = json_u64(out, "decided_by_its_nodes"), sl = json_u64(out, "sfc_lost");
    ck_assert_uint_gt(sl, 0);
    ck_assert_uint_eq(lost, sl);
    ck_assert_uint_eq(acc + rej + lost, gen);
    ck_assert_uint_eq(decided + sl, gen);
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);
    ck_assert_int_eq(ebf("down --farm mall"), 0);
}
END_TEST

Suite *cli_multi_suite(void);

Suite *cli_multi_suite(void)
{
    Suite *s = suite_create("cli_multi");
    TCase *tc = tcase_create("readouts_killed");

    tcase_add_unchecked_fixture(tc, setup, teardown_mro);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, readouts_killed);
    suite_add_tcase(s, tc);
    tc = tcase_create("sfc_killed");
    tcase_add_unchecked_fixture(tc, setup, teardown_msfc);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sfc_killed);
    suite_add_tcase(s, tc);
    tc = tcase_create("every_sfc_killed");
    tcase_add_unchecked_fixture(tc, setup, teardown_mall);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_sfc_killed);
    suite_add_tcase(s, tc);
    return s;
}
