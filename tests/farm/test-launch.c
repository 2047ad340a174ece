/* SPDX-License-Identifier: BSD-3-Clause */
/* test-launch.c - a farm of 4 readouts, 2 SFCs and 4 nodes on network-namespace hosts launched over ssh: an exact ledger, status, logs, stop, down, Ctrl-C, and nothing left behind. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "farm_host.h"
#include "test-cli-rig.h"

#define EVENTS 100000
#define SOURCES 4                /* one per readout */
#define READOUTS 4
#define SFCS 2
#define NODES 4
#define PROCS (READOUTS + SFCS + NODES)

static struct cli_rig rig;
static char out[1 << 17], tag[32], path[128];

/* The farm: 4 readouts (a source each) sending every event to sfc0 or
 * sfc1 by its id, 2 nodes per SFC, a host per process, af_packet over the
 * data switch, tcp control and metrics on each host's address with the
 * farm's CURVE keys. */
static void write_farm(const char *name)
{
    static const char af[] = "blocksz=4096,framesz=2048,framecnt=16384,qdisc_bypass=0";
    static const char ep[] = "    control: tcp://{host}:5550\n    metrics: tcp://{host}:5551\n";

    snprintf(path, sizeof(path), "%s/%s.yaml", rig.base, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "farm: %s\nkeys: keys\ndefaults:\n  idle: backoff\n  memory_mb: 128\n"
            "  metrics_period_ms: 200\nrun:\n  sources: %d\n  events: %d\n  rate: 10000\n"
            "  frag_size: 512\n  accept: 0.25\n  timeout_ms: 2000\nhosts:\n", name, SOURCES,
            EVENTS);
    for (unsigned i = 0; i < READOUTS; i++)
        fprintf(f, "  - {name: h-ro%u, netns: %s-ro%u}\n", i, tag, i);
    for (unsigned i = 0; i < SFCS; i++)
        fprintf(f, "  - {name: h-sfc%u, netns: %s-sfc%u}\n", i, tag, i);
    for (unsigned i = 0; i < NODES; i++)
        fprintf(f, "  - {name: h-node%u, netns: %s-node%u}\n", i, tag, i);
    fprintf(f, "readouts:\n");
    for (unsigned i = 0; i < READOUTS; i++)
        fprintf(f, "  - name: ro%u\n    host: h-ro%u\n    port: net_af_packet0,iface=d0,%s\n"
                "    mac: 02:eb:00:00:00:1%u\n    sfcs: [sfc0, sfc1]\n%s", i, i, af, i, ep);
    fprintf(f, "sfcs:\n");
    for (unsigned i = 0; i < SFCS; i++)
        fprintf(f, "  - name: sfc%u\n    host: h-sfc%u\n    id: %u\n"
                "    port: net_af_packet0,iface=rx,%s\n    mac: 02:eb:00:00:00:0%u\n"
                "    memory_mb: 256\n%s", i, i, i, af, i + 1, ep);
    fprintf(f, "nodes:\n");
    for (unsigned i = 0; i < NODES; i++)
        fprintf(f, "  - name: node%u\n    host: h-node%u\n    sfc: sfc%u\n"
                "    port: net_af_packet0,iface=d0,%s\n    mac: 02:eb:00:00:02:0%u\n"
                "    sfc_port: net_af_packet1,iface=nd,%s\n    sfc_mac: 02:eb:00:00:01:0%u\n%s",
                i, i, i % SFCS, af, i, af, i % SFCS, ep);
    fclose(f);
}

static void setup(void)
{
    cli_rig_init(&rig, "launch");
    snprintf(tag, sizeof(tag), "ebl%d", (int)getpid());
    char args[128];

    snprintf(args, sizeof(args), "keygen %s/keys", rig.base);
    if (cli_run(&rig, args, out, sizeof(out)) != 0)
        abort();
}

static void teardown(void)
{
    cli_rig_fini(&rig, "lt");
}

static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

/* Output of a shell command. */
static const char *sh(const char *cmd)
{
    static char buf[4096];
    FILE *p = popen(cmd, "r");

    ck_assert_ptr_nonnull(p);
    size_t n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = '\0';
    pclose(p);
    return buf;
}

/* Nothing of farm name is left: namespaces, switches, sshds, ssh
 * directories, daemons, DPDK runtime directories. Only the farm's own: the
 * ssh directory is the one of its run directory (farm_host_ssh_dir), so a
 * farm of another run on the machine does not count. */
static void ssh_dir_of(const char *name, char *ssh_dir, size_t len)
{
    char run_dir[128];

    snprintf(run_dir, sizeof(run_dir), "%s/%s", rig.base, name);
    farm_host_ssh_dir(run_dir, ssh_dir, len);
}

static void nothing_left(const char *name)
{
    char cmd[1536], ssh_dir[96];

    ssh_dir_of(name, ssh_dir, sizeof(ssh_dir));
    snprintf(cmd, sizeof(cmd),
             "ip netns list | grep -c '^%s-'; "
             "test -e %s && echo 1 || echo 0; "
             "pgrep -f -- '[-]-file-prefix=ebf[0-9]*-%s-' | wc -l; "
             "pgrep -f '[s]shd -f %s/' | wc -l; "
             "ls /var/run/dpdk 2>/dev/null | grep -c -- '-%s-'", tag, ssh_dir, name, ssh_dir,
             name);
    ck_assert_str_eq(sh(cmd), "0\n0\n0\n0\n0\n");
}

/* Wait until the readout has generated every event. */
static void wait_finished(void)
{
    for (int i = 0; i < 600; i++) {
        ck_assert_int_le(ebf("status"), 1);
        if (strstr(out, "finished generating"))
            return;
        usleep(100000);
    }
    ck_abort_msg("the readout did not finish: %s", out);
}

START_TEST(netns_farm_over_ssh)
{
    char cmd[512];
    struct stat sb;

    write_farm("lt");
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_msg(ebf(cmd) == 0, "up: %s", out);
    /* Every host is a namespace reached over ssh, its processes plain. */
    snprintf(cmd, sizeof(cmd), "grep -c '^host h-.* netns plain root 10\\.' %s/lt/farm.state",
             rig.base);
    ck_assert_str_eq(sh(cmd), "10\n");
    /* Its ssh directory is the one nothing_left looks for. */
    char ssh_dir[96];
    ssh_dir_of("lt", ssh_dir, sizeof(ssh_dir));
    ck_assert_int_eq(stat(ssh_dir, &sb), 0);
    /* The farm's keys reached the hosts' run directory, the client key did not. */
    snprintf(cmd, sizeof(cmd), "%s/lt/keys/server.key", rig.base);
    ck_assert_int_eq(stat(cmd, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0600);
    snprintf(cmd, sizeof(cmd), "%s/lt/keys/client.key", rig.base);
    ck_assert_int_eq(stat(cmd, &sb), -1);
    ck_assert_msg(ebf("status") == 0, "status: %s", out);
    ck_assert_uint_eq(count_of(out, " RUNNING "), PROCS);
    ck_assert_msg(ebf("logs sfc0") == 0, "logs: %s", out);
    ck_assert_msg(strstr(out, " sfc0: ") != NULL, "logs: %s", out);
    wait_finished();
    ck_assert_msg(ebf("stop --json") == 0, "stop: %s", out);
    /* The exact ledger: everything generated decided, nothing lost, every
     * frame the readout sent received by the SFC, no sequence gap. */
    ck_assert_uint_eq(json_u64(out, "generated"), EVENTS);
    ck_assert_uint_eq(json_u64(out, "accepted") + json_u64(out, "rejected"), EVENTS);
    ck_assert_uint_eq(json_u64(out, "lost_total"), 0);
    ck_assert_uint_eq(json_u64(out, "frames"), (uint64_t)EVENTS * SOURCES);
    ck_assert_ptr_nonnull(strstr(out, "\"sfc_frames\": {\"0\": 200000, \"1\": 200000}"));
    ck_assert_ptr_nonnull(strstr(out, "\"seq_gap\": {}"));
    ck_assert_ptr_nonnull(strstr(out, "\"closed\": true"));
    ck_assert_ptr_nonnull(strstr(out, "\"hosts\": {\"count\": 10, \"readouts\": {\"ro0\": "
                                      "\"h-ro0\", \"ro1\": \"h-ro1\", \"ro2\": \"h-ro2\", "
                                      "\"ro3\": \"h-ro3\"}, \"sfcs\": {\"sfc0\": \"h-sfc0\", "
                                      "\"sfc1\": \"h-sfc1\"}, \"nodes\": {\"node0\": "
                                      "\"h-node0\", \"node1\": \"h-node1\", \"node2\": "
                                      "\"h-node2\", \"node3\": \"h-node3\"}}"));
    /* Each SFC built exactly the events whose id maps to it, from every
     * frame sent to it. Now and then an af_packet port in a namespace
     * sees a frame that is not the farm's (two at most were seen in a run,
     * on an SFC's readout port or its node port; docs/deployment.md,
     * section 13): it is rejected as not_ebfarm, and rx.frames (the
     * readout port's) counts it when it came there. */
    ck_assert_int_eq(ebf("status --json"), 0);
    for (unsigned k = 0; k < SFCS; k++) {
        char name[32];
        snprintf(name, sizeof(name), "{\"name\":\"sfc%u\"", k);
        const char *p = strstr(out, name);
        ck_assert_ptr_nonnull(p);
        uint64_t stray = json_u64(p, "rx.reject.not_ebfarm"), rx = json_u64(p, "rx.frames");
        ck_assert_uint_le(stray, 4);
        ck_assert_msg(rx >= 200000 && rx - 200000 <= stray, "sfc%u rx.frames %llu, not_ebfarm "
                      "%llu", k, (unsigned long long)rx, (unsigned long long)stray);
        ck_assert_uint_eq(json_u64(p, "events.complete"), EVENTS / SFCS);
    }
    /* A node killed: status, watching over ssh, says how it ended. */
    snprintf(cmd, sizeof(cmd), "kill -9 $(awk '$2 == \"node1\" {print $4}' %s/lt/farm.state)",
             rig.base);
    ck_assert_int_eq(system(cmd), 0);
    setenv("EBFARM_NETNS_WATCH", "ssh", 1);
    int rc = -1;
    for (int i = 0; i < 100 && !strstr(out, "killed by SIGKILL"); i++, usleep(50000))
        rc = ebf("status");
    unsetenv("EBFARM_NETNS_WATCH");
    ck_assert_msg(rc == 1 && strstr(out, "EXITED") && strstr(out, "killed by SIGKILL"),
                  "status: %s", out);
    ck_assert_msg(ebf("down") == 0, "down: %s", out);
    ck_assert_str_eq(out, "farm 'lt' is down: 10 processes stopped\n");
    nothing_left("lt");
}
END_TEST

/* Ctrl-C on up once the namespaces exist and the SFC starts: what started
 * is stopped, the namespaces and their sshds are gone. The processes are
 * watched and killed over ssh, as on remote hosts (EBFARM_NETNS_WATCH). */
START_TEST(netns_up_interrupted)
{
    char log[192];
    int st;

    write_farm("lt");
    snprintf(log, sizeof(log), "%s/lt/sfc0.log", rig.base);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("EBFARM_RUN_DIR", rig.base, 1);
        setenv("EBFARM_NETNS_WATCH", "ssh", 1);
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execl(rig.ebfarm, "ebfarm", "up", path, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 40000 && access(log, F_OK) != 0; i++)
        usleep(500);
    ck_assert_int_eq(access(log, F_OK), 0);
    kill(pid, SIGINT);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);      /* 128 + SIGINT */
    ck_assert_int_eq(access(log, F_OK), -1);     /* interrupted: the run directory too */
    nothing_left("lt");
}
END_TEST

Suite *launch_suite(void);

Suite *launch_suite(void)
{
    Suite *s = suite_create("launch");
    TCase *tc = tcase_create("over_ssh");

    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, netns_farm_over_ssh);
    suite_add_tcase(s, tc);
    tc = tcase_create("interrupted");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, netns_up_interrupted);
    suite_add_tcase(s, tc);
    return s;
}
