/* SPDX-License-Identifier: BSD-3-Clause */
/* test-loopback.c - ebfarm-loopback over a veth cable (a short search, its JSON checked), and its RX and TX processes over memif (nothing left behind, a sender interrupted reports so). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The cable (tools/scripts/ebfarm-cable) is made in an unchecked fixture, in the
 * parent process, so that it is removed even when the forked test fails or
 * times out. Its name is unique to this process.
 */
static char cable[16];
static char args[1024];

static const char *srcdir(void)
{
    const char *s = getenv("EBFARM_SOURCE_DIR");
    return s ? s : ".";
}

static void cable_up(void)
{
    char cmd[512];
    snprintf(cable, sizeof(cable), "lbt%d", (int)(getpid() % 1000000));
    snprintf(cmd, sizeof(cmd), "%s/tools/scripts/ebfarm-cable up %s 2>/dev/null", srcdir(), cable);
    FILE *p = popen(cmd, "r");
    args[0] = '\0';
    if (p) {
        if (!fgets(args, sizeof(args), p))
            args[0] = '\0';
        pclose(p);
    }
    args[strcspn(args, "\n")] = '\0';
}

static void cable_down(void)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "%s/tools/scripts/ebfarm-cable down %s 2>/dev/null", srcdir(), cable);
    if (system(cmd) != 0)
        fprintf(stderr, "test-lb-farm: could not remove cable %s\n", cable);
}

/* The JSON schema and validity, checked by python3 (a listed dependency):
 * every size found a zero-loss rate, its trial at that rate is valid and
 * lost nothing, every trial carries the fields docs/loopback.md lists. */
static const char *check_py =
    "import json,sys\n"
    "d=json.load(open(sys.argv[1]))\n"
    "assert d['schema']=='ebfarm-loopback/1'\n"
    "m=d['meta']\n"
    "for k in ('date','dpdk_version','cpu_model','cpu_mhz','tsc_hz','tx_driver','rx_driver',"
    "'link_mbps','trial_s','mode','tolerance'): assert k in m, k\n"
    "assert m['tx_driver']=='net_af_packet' and m['rx_driver']=='net_af_packet'\n"
    "assert [r['frame_size'] for r in d['results']]==[64,1518]\n"
    "for r in d['results']:\n"
    "  x=r['dpdk']; assert x['found'] and x['fps']>0, r\n"
    "  t=[t for t in d['trials'] if t['frame_size']==r['frame_size'] and t['requested_fps']==x['fps']][-1]\n"
    "  assert t['valid'] and t['lost']==0 and t['unique']==t['sent'], t\n"
    "  assert x['latency_ns'] and x['latency_ns']['p50']<=x['latency_ns']['p99_99']\n"
    "for t in d['trials']:\n"
    "  for k in ('requested_fps','achieved_fps','valid','sent','rx','lost','dup','reordered',"
    "'loss_ratio','loss_attribution','latency_ns','overhead_ns','loss_bursts'): assert k in t, k\n"
    "  assert t['lost']==t['sent']-t['unique'], t\n";

START_TEST(test_af_packet_throughput)
{
    if (getuid() != 0 || !args[0]) {
        fprintf(stderr, "test-lb-farm: needs root and ip netns; not run\n");
        ck_assert_msg(getuid() != 0, "cable set-up failed as root");
        return;
    }
    const char *build = getenv("EBFARM_BUILD_DIR");
    ck_assert_ptr_nonnull(build);
    char out[128], py[128], cmd[2048];
    snprintf(out, sizeof(out), "/tmp/%s.json", cable);
    snprintf(py, sizeof(py), "/tmp/%s.py", cable);
    snprintf(cmd, sizeof(cmd),
             "%s/loopback/ebfarm-loopback %s --mode throughput --json --quiet --sizes 64,1518 "
             "--rate 20kfps --trial 0.2 --resolution 10 --tolerance 0.2 --idle backoff "
             "--max-trials 8 > %s", build, args, out);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(py, "w");
    ck_assert_ptr_nonnull(f);
    fputs(check_py, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "python3 %s %s", py, out);
    int rc = system(cmd);
    unlink(py);
    if (rc == 0)
        unlink(out);
    ck_assert_msg(rc == 0, "JSON check failed; output kept in %s", out);
}
END_TEST

/* --- Two processes over memif: what the receiver leaves behind ------------- */

/* EAL's runtime directory of the loopback process pid (--file-prefix=ebflbPID). */
static void runtime_dir(pid_t pid, char *b, size_t n)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");

    if (getuid() == 0)
        snprintf(b, n, "/var/run/dpdk/ebflb%d", (int)pid);
    else
        snprintf(b, n, "%s/dpdk/ebflb%d", xdg ? xdg : "/tmp", (int)pid);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The receiver (--role rx, a memif server) in the background; its pid. */
static pid_t start_rx(const char *dir)
{
    const char *build = getenv("EBFARM_BUILD_DIR");
    char prog[512], rx[512], ctl[512], log[512];

    ck_assert_ptr_nonnull(build);
    snprintf(prog, sizeof(prog), "%s/loopback/ebfarm-loopback", build);
    snprintf(rx, sizeof(rx), "net_memif0,role=server,socket=%s/m.sock,socket-abstract=no", dir);
    snprintf(ctl, sizeof(ctl), "%s/ctl.sock", dir);
    snprintf(log, sizeof(log), "%s/rx.log", dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(log, "w", stderr))
            _exit(127);
        execl(prog, prog, "--role", "rx", "--rx", rx, "--control", ctl, "--quiet", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Wait up to 5 s for pid; its wait status, -1 when it did not end. */
static int wait_for(pid_t pid)
{
    int st;
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
        usleep(50000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

/* A whole search over memif between an RX and a TX process: both exit 0,
 * and the receiver's memif socket, its control socket and both EAL
 * runtime directories are gone. */
START_TEST(test_memif_rx_leaves_nothing)
{
    char dir[] = "/tmp/ebflb-test-XXXXXX", path[600], cmd[2048];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pid_t rx = start_rx(dir);
    snprintf(path, sizeof(path), "%s/m.sock", dir);
    for (int i = 0; i < 100 && !exists(path); i++)
        usleep(50000);
    ck_assert_msg(exists(path), "the receiver made no memif socket %s", path);
    snprintf(cmd, sizeof(cmd),
             "%s/loopback/ebfarm-loopback --role tx --tx net_memif1,role=client,socket=%s,"
             "socket-abstract=no --control %s/ctl.sock --rate 50kfps --sizes 64 --trial 0.1 "
             "--max-trials 2 --quiet > /dev/null 2> %s/tx.log", getenv("EBFARM_BUILD_DIR"), path,
             dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    int st = wait_for(rx);
    ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver status %d", st);
    ck_assert_msg(!exists(path), "%s left behind", path);
    snprintf(path, sizeof(path), "%s/ctl.sock", dir);
    ck_assert_msg(!exists(path), "%s left behind", path);
    runtime_dir(rx, path, sizeof(path));
    ck_assert_msg(!exists(path), "%s left behind", path);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Ctrl-C on a receiver still waiting for its memif peer: it stops at once
 * (not after the link timeout), says why, and leaves nothing behind. */
START_TEST(test_memif_rx_interrupted)
{
    char dir[] = "/tmp/ebflb-test-XXXXXX", path[600], cmd[600];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pid_t rx = start_rx(dir);
    snprintf(path, sizeof(path), "%s/m.sock", dir);
    for (int i = 0; i < 100 && !exists(path); i++)
        usleep(50000);
    ck_assert_msg(exists(path), "the receiver made no memif socket %s", path);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    kill(rx, SIGINT);
    int st = wait_for(rx);
    clock_gettime(CLOCK_MONOTONIC, &b);
    ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "receiver status %d", st);
    ck_assert_int_lt(b.tv_sec - a.tv_sec, 4);           /* the link timeout is 10 s */
    ck_assert_msg(!exists(path), "%s left behind", path);
    runtime_dir(rx, path, sizeof(path));
    ck_assert_msg(!exists(path), "%s left behind", path);
    snprintf(cmd, sizeof(cmd), "grep -q \"loopback: stopped while waiting for the link of RX "
                               "port 'net_memif0,\" %s/rx.log", dir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The interrupted sender's JSON: marked interrupted, only 64-byte trials,
 * the last one invalid (stopped), and the 512-byte size with no trial and
 * no latency (not trial 0's copied in). */
static const char *interrupted_py =
    "import json,sys\n"
    "d=json.load(open(sys.argv[1]))\n"
    "assert d['meta']['interrupted'] is True\n"
    "t=d['trials']; assert t and all(x['frame_size']==64 for x in t), t\n"
    "assert t[-1]['valid'] is False and t[-1]['invalid_reason']=='stopped', t[-1]\n"
    "r=d['results'][1]; assert r['frame_size']==512, r\n"
    "assert r['dpdk']['trials']==0 and r['dpdk']['found'] is False, r\n"
    "assert r['dpdk']['latency_ns'] is None, r\n";

/* Whether file holds text. */
static int file_has(const char *file, const char *text)
{
    char b[16384];
    FILE *f = fopen(file, "r");
    size_t n = f ? fread(b, 1, sizeof(b) - 1, f) : 0;

    if (f)
        fclose(f);
    b[n] = '\0';
    return strstr(b, text) != NULL;
}

/* Ctrl-C on the sender during its first size's search (64 and 512 bytes
 * asked): it exits 130 saying it was interrupted, its table marks 512
 * bytes "not run" (not "none 0/0" as if searched), it gives no advice to
 * retry at another rate, every trial's live line shows the rate asked and
 * whether it was valid, and the JSON says interrupted (interrupted_py);
 * the receiver exits 0. */
START_TEST(test_memif_tx_interrupted)
{
    char dir[] = "/tmp/ebflb-test-XXXXXX", path[600], prog[600], tx[700], ctl[600];
    char out[600], log[600], cmd[1400];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    pid_t rx = start_rx(dir);
    snprintf(path, sizeof(path), "%s/m.sock", dir);
    for (int i = 0; i < 100 && !exists(path); i++)
        usleep(50000);
    ck_assert_msg(exists(path), "the receiver made no memif socket %s", path);
    snprintf(prog, sizeof(prog), "%s/loopback/ebfarm-loopback", getenv("EBFARM_BUILD_DIR"));
    snprintf(tx, sizeof(tx), "net_memif1,role=client,socket=%s,socket-abstract=no", path);
    snprintf(ctl, sizeof(ctl), "%s/ctl.sock", dir);
    snprintf(out, sizeof(out), "%s/tx.json", dir);
    snprintf(log, sizeof(log), "%s/tx.log", dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen(log, "w", stderr))
            _exit(127);
        execl(prog, prog, "--role", "tx", "--tx", tx, "--control", ctl, "--rate", "20Mfps",
              "--sizes", "64,512", "--trial", "1", "--max-trials", "20", "--json", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 600 && !file_has(log, "  trial 0: dpdk 64B asked "); i++)
        usleep(50000);
    ck_assert_msg(file_has(log, "  trial 0: dpdk 64B asked "), "no end line of trial 0");
    kill(pid, SIGINT);
    int st = wait_for(pid);
    ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 130, "sender status %d", st);
    st = wait_for(rx);
    ck_assert_msg(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "receiver status %d", st);
    ck_assert_msg(file_has(log, ": valid\n") || file_has(log, ": INVALID "), "validity");
    ck_assert_msg(file_has(log, "INVALID stopped\n"), "the cut trial not shown stopped");
    ck_assert_msg(file_has(log, "   512  dpdk    not run "), "512 B not marked not run");
    ck_assert_msg(file_has(log, "\nINTERRUPTED: a signal stopped the run after "), "table");
    ck_assert_msg(file_has(log, "loopback: interrupted: the report covers the trials run "
                                "before the signal\n"), "no word of the interrupt");
    ck_assert_msg(!file_has(log, "try --rate"), "advice to retry at another rate");
    snprintf(path, sizeof(path), "%s/check.py", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(interrupted_py, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "python3 %s %s", path, out);
    ck_assert_msg(system(cmd) == 0, "JSON check failed; kept in %s", dir);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *loopback_suite(void);

Suite *loopback_suite(void)
{
    Suite *s = suite_create("lb_farm");
    TCase *tc = tcase_create("veth");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, cable_up, cable_down);
    tcase_add_test(tc, test_af_packet_throughput);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("memif");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, test_memif_rx_leaves_nothing);
    tcase_add_test(tm, test_memif_rx_interrupted);
    tcase_add_test(tm, test_memif_tx_interrupted);
    suite_add_tcase(s, tm);
    return s;
}
