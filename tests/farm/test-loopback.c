/* SPDX-License-Identifier: BSD-3-Clause */
/* test-loopback.c - ebfarm-loopback over a veth cable between two network namespaces: a short throughput search, its JSON checked. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

Suite *loopback_suite(void);

Suite *loopback_suite(void)
{
    Suite *s = suite_create("lb_farm");
    TCase *tc = tcase_create("veth");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, cable_up, cable_down);
    tcase_add_test(tc, test_af_packet_throughput);
    suite_add_tcase(s, tc);
    return s;
}
