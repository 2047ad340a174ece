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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test-cli-rig.h"
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

static struct cli_rig rig;
static char *const base = rig.base, *const ebfarm = rig.ebfarm;
static char out[65536];

/* Run "ebfarm ARGS" with the test's run directory; its output in out. */
static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

/* ebf() with the pid of the ebfarm that ran in *pid (cli_run_pid). */
static int ebf_pid(const char *args, int *pid)
{
    return cli_run_pid(&rig, args, out, sizeof(out), pid);
}

struct proc_rec {
    int pid;
    char prefix[96];
};

/* The processes of farm name from its state file, in its order. */
static unsigned read_state(const char *name_of_farm, struct proc_rec *pr, unsigned max)
{
    char path[128], line[1024], name[64], role[16], ctl[256], met[256];
    unsigned n = 0;

    snprintf(path, sizeof(path), "%s/%s/farm.state", base, name_of_farm);
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
    cli_rig_init(&rig, "cli");
}

static void teardown(void)
{
    char cmd[1024];

    /* readout_killed's farm, if a failed test left it up */
    snprintf(cmd, sizeof(cmd), "test ! -e %s/clikill/farm.state || EBFARM_RUN_DIR=%s %s down "
             "--farm clikill", base, base, ebfarm);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: %s failed\n", cmd);
    cli_rig_fini(&rig, "clitest");
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
    ck_assert_uint_eq(read_state("clitest", pr, 8), 4);

    /* Every process RUNNING run 1; an illegal command is refused by name. */
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, "\"state\":\"RUNNING\"") == 4, "%s", out);
    ck_assert_uint_eq(count_of(out, "\"run_number\":1"), 5);
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
    ck_assert_msg(count_of(out, "\"state\":\"CONFIGURED\"") == 4, "%s", out);

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
    ck_assert_uint_eq(count_of(out, "\"state\":\"CONFIGURED\""), 4);
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
    /* The decisions are the SFC's acks (acct.h): the silent node takes
     * none away; the only readout's figures are unknown. */
    snprintf(want, sizeof(want), "\"totals\":{\"generated\":null,\"accepted\":%llu,"
             "\"rejected\":%llu,\"lost\":0,\"frames\":null,\"without\":\"node1, ro0\"}}",
             (unsigned long long)accepts, (unsigned long long)(EVENTS - accepts));
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_int_eq(kill(pr[2].pid, SIGCONT), 0);
    ck_assert_int_eq(ebf("status"), 1);
    snprintf(want, sizeof(want), "totals: generated ?, accepted %llu, rejected %llu, lost 0, "
             "frames ? (no counters from ro0)\n", (unsigned long long)accepts,
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

/* Write farm_yaml (or text) to <base>/<name>; its path into path. */
static void write_farm(const char *text, const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", base, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Run a command; it exits 0 and prints exactly want. */
static void ebf_ok(const char *args, const char *want)
{
    ck_assert_msg(ebf(args) == 0, "ebfarm %s: %s", args, out);
    ck_assert_msg(strcmp(out, want) == 0, "ebfarm %s:\n got: %s\nwant: %s", args, out, want);
}

/* Run a command; it exits 1 with exactly want. */
static void ebf_refused(const char *args, const char *want)
{
    ck_assert_msg(ebf(args) == 1, "ebfarm %s: %s", args, out);
    ck_assert_msg(strcmp(out, want) == 0, "ebfarm %s:\n got: %s\nwant: %s", args, out, want);
}

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" at s, followed by a quote. */
static int iso_utc(const char *s)
{
    static const char form[] = "dddd-dd-ddTdd:dd:dd.dddZ\"";

    for (unsigned i = 0; form[i]; i++)
        if (form[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != form[i])
            return 0;
    return 1;
}

/* The summary of `stop --json` is of run `run` of farm clitest, brought up
 * from a file whose SHA-256 is sha; it started and stopped within the
 * last 10 minutes, in that order. */
static void check_run_object(uint32_t run, const char *sha)
{
    char want[256];
    const char *start, *stop;

    snprintf(want, sizeof(want), "{\"run\": {\"farm\": \"clitest\", \"run\": %u, "
             "\"start_utc\": \"", run);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
    start = out + strlen(want);
    ck_assert_msg(iso_utc(start), "%s", out);
    ck_assert_msg(strncmp(start + 25, ", \"stop_utc\": \"", 15) == 0, "%s", out);
    stop = start + 40;
    ck_assert_msg(iso_utc(stop), "%s", out);
    ck_assert_msg(strncmp(start, stop, 24) <= 0, "stopped before it started: %s", out);
    time_t now = time(NULL);
    char today[16];
    strftime(today, sizeof(today), "%Y-%m-%d", gmtime(&now));
    ck_assert_msg(strncmp(start, today, 10) == 0 || now % 86400 < 600, "%s", out);
    snprintf(want, sizeof(want), "\", \"farm_file_sha256\": \"%s\"},\n \"ledger\": {", sha);
    ck_assert_msg(strncmp(stop + 24, want, strlen(want)) == 0, "%s", out);
}

/* The SHA-256 of the file at path, by sha256sum. */
static void sha256_of(const char *path, char sha[65])
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "sha256sum '%s'", path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(fscanf(p, "%64s", sha), 1);
    pclose(p);
}

/*
 * Run numbers: 1 and 2 from the counter, kept across down and up (3),
 * --run 17 and on from there (18); a bad --run refused; every summary
 * names its run; every process's snapshots name the farm.
 */
START_TEST(run_numbers)
{
    char path[128], cmd[256], want[512], sha[65], counter[128];

    write_farm(farm_yaml, "clitest.yaml", path, sizeof(path));
    sha256_of(path, sha);
    snprintf(counter, sizeof(counter), "%s/clitest.next-run", base);

    snprintf(cmd, sizeof(cmd), "up %s --no-start --run 5", path);
    ebf_refused(cmd, "ebfarm up: --run numbers the run that up starts: not with --no-start (give "
                     "it to ebfarm start)\n");
    snprintf(cmd, sizeof(cmd), "up %s --no-start", path);
    snprintf(want, sizeof(want), "farm 'clitest' is up: 4 processes, CONFIGURED (state and logs "
             "in %s/clitest)\n", base);
    ebf_ok(cmd, want);
    ebf_refused("start --run 0", "ebfarm start: --run: \"0\" is not a run number (1 to "
                                 "4294967294)\n");
    ebf_refused("start --run 3x", "ebfarm start: --run: \"3x\" is not a run number (1 to "
                                  "4294967294)\n");
    ck_assert_int_eq(access(counter, F_OK), -1);
    ebf_ok("start", "farm 'clitest': run 1 RUNNING\n");
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, "\"run_number\":1") == 5, "%s", out);
    ck_assert_msg(count_of(out, "\"farm\":\"clitest\"") == 5, "%s", out);   /* and each snapshot */
    snprintf(want, sizeof(want), "\"farm_file_sha256\":\"%s\"", sha);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(count_of(out, "\"host\":\"localhost\"") == 4, "%s", out);
    /* A start refused by every process uses no number. */
    ck_assert_int_eq(ebf("start"), 1);
    ck_assert_msg(strstr(out, "command 'start' is not allowed in state RUNNING") != NULL, "%s", out);
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    check_run_object(1, sha);
    ebf_ok("start", "farm 'clitest': run 2 RUNNING\n");
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    check_run_object(2, sha);
    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);

    /* Down and up again: run 3. */
    snprintf(cmd, sizeof(cmd), "up %s", path);
    snprintf(want, sizeof(want), "farm 'clitest' is up: 4 processes, run 3 RUNNING (state and logs "
             "in %s/clitest)\n", base);
    ebf_ok(cmd, want);
    ck_assert_msg(ebf("stop") == 0, "ebfarm stop: %s", out);
    ck_assert_msg(strstr(out, "\n  run      farm clitest, run 3, ") != NULL, "%s", out);
    snprintf(want, sizeof(want), "Z\n           farm file sha256 %s\n", sha);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ebf_ok("start --run 17", "farm 'clitest': run 17 RUNNING\n");
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, "\"run_number\":17") == 5, "%s", out);
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    check_run_object(17, sha);
    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);
    snprintf(cmd, sizeof(cmd), "up %s --no-start", path);
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    ebf_ok("start", "farm 'clitest': run 18 RUNNING\n");
    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);
    FILE *f = fopen(counter, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%127s", want), 1);
    fclose(f);
    ck_assert_str_eq(want, "19");
}
END_TEST

/* A farm with a process on an ssh host that cannot be reached fails in up
 * before anything starts, naming the host, its address and what ssh said;
 * it leaves no run directory, no ssh directory and no run number used. */
START_TEST(up_unreachable_host)
{
    static const char yaml[] =
        "farm: clitest\n"
        "hosts:\n"
        "  - {name: here, local: true}\n"
        "  - {name: rack2, ssh: daq@127.0.0.1}\n"
        "readouts:\n"
        "  - {name: ro0, host: here, port: memif:a, mac: 02:eb:00:00:00:10, sfcs: [sfc0]}\n"
        "sfcs:\n"
        "  - {name: sfc0, host: here, port: memif:a, mac: 02:eb:00:00:00:01}\n"
        "nodes:\n"
        "  - {name: node0, host: here, sfc: sfc0, port: memif:b, mac: 02:eb:00:00:02:00}\n"
        "  - {name: node3, host: rack2, sfc: sfc0, port: 'net_af_packet0,iface=eth1',\n"
        "     sfc_port: 'net_af_packet1,iface=veth3', mac: 02:eb:00:00:02:03}\n";
    char path[128], cmd[256], dir[128];
    struct stat sb;

    write_farm(yaml, "hosts.yaml", path, sizeof(path));
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ebf_refused(cmd, "ebfarm up: cannot reach host 'rack2' over ssh (daq@127.0.0.1): ssh: "
                "connect to host 127.0.0.1 port 22: Connection refused\n");
    snprintf(dir, sizeof(dir), "%s/clitest", base);
    ck_assert_msg(stat(dir, &sb) != 0, "%s made", dir);
    snprintf(path, sizeof(path), "%s/clitest.next-run", base);
    ck_assert_msg(stat(path, &sb) != 0, "%s made", path);
}
END_TEST

/* A test case of one test: its unchecked fixture gives it a run directory
 * of its own. */
static void add_case(Suite *s, const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, 180);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

/* farm_yaml as farm name, with extra lines for sfc0 (after its memory_mb). */
static void write_farm_sfc(const char *name, const char *sfc_extra, char *path, size_t len)
{
    const char *sfc_end = strstr(farm_yaml, "    memory_mb: 256\n") + 19;

    snprintf(path, len, "%s/%s.yaml", base, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "farm: %s\n%.*s%s%s", name, (int)(sfc_end - farm_yaml - 14), farm_yaml + 14,
            sfc_extra, sfc_end);
    fclose(f);
}

/* No process of farm name brought up by the ebfarm of pid `pid` is left,
 * nor a DPDK runtime directory of one: their prefixes are ebf<pid>-<name>-,
 * so another run of farm name on this machine (a test run beside this one,
 * an earlier one's leftovers) is not taken for this one's. */
static void nothing_left(const char *name, int pid)
{
    char cmd[512];

    /* [f]: the pattern does not match the shell's own command line */
    snprintf(cmd, sizeof(cmd), "ls /var/run/dpdk 2>/dev/null | grep -q -- '^ebf%d-%s-' || "
             "pgrep -f -- '--file-prefix=eb[f]%d-%s-' >/dev/null", pid, name, pid, name);
    ck_assert_msg(system(cmd) != 0, "%s (ebfarm up pid %d) left something behind", name, pid);
}

/* A daemon that cannot start: the tool's message quotes the daemon's own
 * error line, not only where its log is (EAL's 100-line usage follows it). */
START_TEST(up_startup_failure)
{
    char path[128], cmd[256], want[512];
    int pid;

    write_farm_sfc("clifail", "    eal_args: [-l, '99']\n", path, sizeof(path));
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_int_eq(ebf_pid(cmd, &pid), 1);
    snprintf(want, sizeof(want), "ebfarm up: sfc0 exited while starting: EAL: lcore 99 "
             "unavailable (log: %s/clifail/sfc0.log)\n", base);
    ck_assert_str_eq(out, want);
    snprintf(path, sizeof(path), "%s/clifail/farm.state", base);
    ck_assert_int_eq(access(path, F_OK), -1);
    nothing_left("clifail", pid);
}
END_TEST

/* Ctrl-C on up while the SFC starts: what started is stopped, nothing runs
 * and no state stays; with --keep the run directory keeps the logs. */
START_TEST(up_interrupted_keep)
{
    char path[128], log[160], state[160];
    int st;

    write_farm(farm_yaml, "clitest.yaml", path, sizeof(path));
    snprintf(log, sizeof(log), "%s/clitest/sfc0.log", base);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("EBFARM_RUN_DIR", base, 1);
        int nul = open("/dev/null", O_WRONLY);
        dup2(nul, 1);
        dup2(nul, 2);
        execl(ebfarm, "ebfarm", "up", path, "--keep", (char *)NULL);
        _exit(127);
    }
    /* The SFC's log appears as it is started; it answers only once its
     * EAL and ports are up, and up waits for that. */
    for (int i = 0; i < 20000 && access(log, F_OK) != 0; i++)
        usleep(500);
    ck_assert_int_eq(access(log, F_OK), 0);
    kill(pid, SIGINT);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);           /* 128 + SIGINT, as demo and soak */
    ck_assert_int_eq(access(log, F_OK), 0);           /* kept */
    snprintf(state, sizeof(state), "%s/clitest/farm.state", base);
    ck_assert_int_eq(access(state, F_OK), -1);
    nothing_left("clitest", pid);
}
END_TEST

/* EAL options that load code or move the runtime directory are refused
 * before anything starts, the allowed ones named. */
START_TEST(up_eal_args_refused)
{
    static const char *const bad[] = {"-d", "--file-prefix=other"};
    char path[128], cmd[256], extra[128], want[1024];
    int pid;

    for (unsigned i = 0; i < 2; i++) {
        snprintf(extra, sizeof(extra), "    eal_args: ['%s', /tmp/x.so]\n", bad[i]);
        write_farm_sfc("clieal", extra, path, sizeof(path));
        snprintf(cmd, sizeof(cmd), "up %s", path);
        ck_assert_int_eq(ebf_pid(cmd, &pid), 1);
        snprintf(want, sizeof(want), "ebfarm up: farm file '%s': key 'sfcs[0].eal_args[0]': "
                 "\"%s\" is not allowed (allowed: --log-level, --syslog, -l, -c, --main-lcore, "
                 "-n, -r, --socket-mem, --socket-limit, --huge-dir, --huge-unlink, "
                 "--single-file-segments, --legacy-mem, --match-allocations, --iova-mode, "
                 "--in-memory, --no-shconf, -a, --allow, -b, --block, "
                 "--force-max-simd-bitwidth; each option alone, as "
                 "--opt=VALUE, or followed by its value; the runner sets --file-prefix, -m, "
                 "--no-huge, --lcores and the ports itself)\n", path, bad[i]);
        ck_assert_str_eq(out, want);
        nothing_left("clieal", pid);
    }
    snprintf(path, sizeof(path), "%s/clieal", base);
    ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* A readout SIGKILLed mid-run (the SFC, the memif server, and the nodes
 * drain): `stop` still prints the ledger, closed over the ids the SFC saw,
 * naming ro0 and the first event it never sent, with the SFC's acks as
 * the decisions; the staged stop is over in a bounded time. */
START_TEST(readout_killed)
{
    const char *ev = strstr(farm_yaml, "  events: 20000\n");
    char path[128], cmd[256], want[128];
    struct proc_rec pr[8];
    int pid;

    snprintf(path, sizeof(path), "%s/clikill.yaml", base);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "farm: clikill\n%.*s  events: 1000000\n  rate: 20000\n%s",
            (int)(ev - farm_yaml - 14), farm_yaml + 14, ev + 16);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_msg(ebf_pid(cmd, &pid) == 0, "ebfarm up: %s", out);
    ck_assert_uint_eq(read_state("clikill", pr, 8), 4);
    snprintf(want, sizeof(want), "ebf%d-clikill-", pid);     /* nothing_left's prefix */
    for (unsigned i = 0; i < 4; i++)
        ck_assert_msg(strncmp(pr[i].prefix, want, strlen(want)) == 0, "%s", pr[i].prefix);
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(strstr(out, "{\"name\":\"ro0\",\"component\":\"readout\",\"pid\":") != NULL,
                  "%s", out);
    for (int i = 0; i < 300 && json_u64(out, "ack.events") < 5000; i++) {
        usleep(50000);
        ck_assert_int_eq(ebf("status --json"), 0);
    }
    ck_assert_uint_ge(json_u64(out, "ack.events"), 5000);
    ck_assert_int_eq(kill(pr[3].pid, SIGKILL), 0);
    for (int i = 0; i < 250 && !gone(pr[3].pid); i++)
        usleep(20000);
    ck_assert(gone(pr[3].pid));

    time_t t0 = time(NULL);
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    ck_assert_int_le(time(NULL) - t0, 30);
    uint64_t seen = json_u64(out, "seen");
    snprintf(want, sizeof(want), "\"readout_lost\": {\"name\": \"ro0\", \"from_event\": %llu, "
             "\"readouts\": 1}", (unsigned long long)seen);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"generated\": null") != NULL, "%s", out);
    ck_assert_uint_gt(seen, 5000);
    ck_assert_uint_lt(seen, 1000000);
    uint64_t acc = json_u64(out, "accepted"), rej = json_u64(out, "rejected");
    ck_assert_uint_eq(acc + rej, json_u64(out, "ack_events"));
    ck_assert_msg(strstr(out, " \"readout\": {\"gone\": \"ro0\", \"readouts_gone\": 1},\n")
                  != NULL, "%s", out);
    ck_assert_uint_eq(acc + rej + json_u64(out, "lost_total"), seen);
    ck_assert_int_eq(json_u64(out, "unaccounted"), 0);
    ck_assert_msg(strstr(out, "\"ids_match\": true") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "\"nodes_agree\": true, \"closed\": true") != NULL, "%s", out);
    ck_assert_int_eq(ebf("down"), 0);
    for (unsigned i = 0; i < 4; i++)
        ck_assert_msg(gone(pr[i].pid), "process %d is still there", pr[i].pid);
    nothing_left("clikill", pid);
}
END_TEST

/* sh -c script in a mount namespace of its own, with the test's base as
 * the run directory and $E the ebfarm binary; its output in out. */
static int in_mount_ns(const char *script)
{
    char cmd[2048];

    snprintf(cmd, sizeof(cmd), "B=%s E=%s unshare -m sh -c '%s' 2>&1", base, ebfarm, script);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A full run directory, and one mounted read-only: reported with the path
 * and the reason before any daemon starts (a daemon logging into a full
 * disk wrote nothing and the tool said nothing either). The tmpfs is
 * mounted 0700: a run directory writable by others is refused first. */
START_TEST(up_run_dir_refused)
{
    char path[128], script[1024], want[512];

    write_farm_sfc("clifull", "", path, sizeof(path));
    snprintf(script, sizeof(script),
             "echo $$ >$B/" CLI_PID_FILE " && "
             "mkdir -p $B/runs && mount -t tmpfs -o size=256k,mode=0700 tmpfs $B/runs && "
             "dd if=/dev/zero of=$B/runs/filler bs=4k count=64 2>/dev/null; "
             "EBFARM_RUN_DIR=$B/runs exec $E up %s", path);
    ck_assert_int_eq(in_mount_ns(script), 1);
    snprintf(want, sizeof(want), "ebfarm up: the run directory %s/runs/clifull cannot take the "
             "logs and the state: cannot write %s/runs/clifull/.room: No space left on device\n",
             base, base);
    ck_assert_str_eq(out, want);
    nothing_left("clifull", cli_last_pid(&rig));

    write_farm_sfc("cliro", "", path, sizeof(path));
    snprintf(script, sizeof(script),
             "echo $$ >$B/" CLI_PID_FILE " && "
             "mkdir -p $B/runs && mount -t tmpfs -o size=1m,mode=0700 tmpfs $B/runs && "
             "mkdir $B/runs/cliro && mount --bind $B/runs/cliro $B/runs/cliro && "
             "mount -o remount,bind,ro $B/runs/cliro && EBFARM_RUN_DIR=$B/runs exec $E up %s", path);
    ck_assert_int_eq(in_mount_ns(script), 1);
    snprintf(want, sizeof(want), "ebfarm up: the run directory %s/runs/cliro cannot take the "
             "logs and the state: cannot write %s/runs/cliro/.room: Read-only file system\n",
             base, base);
    ck_assert_str_eq(out, want);
    nothing_left("cliro", cli_last_pid(&rig));
}
END_TEST

/* The exporter's --listen is checked before anything else (no farm needed):
 * a port out of 0..65535 is refused (not taken mod 65536), and so is a
 * wildcard address, each with exit 1 and a message naming the fix. */
START_TEST(metrics_listen_refused)
{
    static const struct {
        const char *addr, *want;
    } c[] = {
        {"0.0.0.0:99999", "ebfarm metrics: --listen '0.0.0.0:99999': the port \"99999\" is not in "
                          "0..65535 (0 picks a free one)\n"},
        {"127.0.0.1:65536", "ebfarm metrics: --listen '127.0.0.1:65536': the port \"65536\" is "
                            "not in 0..65535 (0 picks a free one)\n"},
        {"0.0.0.0:9464", "ebfarm metrics: --listen '0.0.0.0:9464': a wildcard address serves the "
                         "farm's metrics on every interface; give the one address to serve on "
                         "(e.g. 127.0.0.1:9464, or this host's address on the monitoring "
                         "network)\n"},
        {"[::]:9464", "ebfarm metrics: --listen '[::]:9464': a wildcard address serves the "
                      "farm's metrics on every interface; give the one address to serve on "
                      "(e.g. 127.0.0.1:9464, or this host's address on the monitoring "
                      "network)\n"},
    };
    char args[128];

    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        snprintf(args, sizeof(args), "metrics --prometheus --listen '%s'", c[i].addr);
        ck_assert_int_eq(ebf(args), 1);
        ck_assert_str_eq(out, c[i].want);
    }
}
END_TEST

Suite *cli_suite(void);

Suite *cli_suite(void)
{
    Suite *s = suite_create("farmcli");

    add_case(s, "cli", up_status_stop_down);
    add_case(s, "runs", run_numbers);
    add_case(s, "hosts", up_unreachable_host);
    add_case(s, "startup", up_startup_failure);
    add_case(s, "interrupted", up_interrupted_keep);
    add_case(s, "eal_args", up_eal_args_refused);
    add_case(s, "run_dir", up_run_dir_refused);
    add_case(s, "readout_killed", readout_killed);
    add_case(s, "metrics_listen", metrics_listen_refused);
    return s;
}
