/* SPDX-License-Identifier: BSD-3-Clause */
/* test-netns.c - network namespaces as hosts: switches, veths with the farm's MACs, an sshd per host reached with the run's keys, all removed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "farm_host.h"
#include "farm_netns.h"
#include "farmfile.h"

/* Two hosts: a readout and an SFC with its two ports; the node on a third. */
static const char yaml_fmt[] =
    "farm: nstest\n"
    "hosts:\n"
    "  - {name: a, netns: %s-a}\n"
    "  - {name: b, netns: %s-b}\n"
    "  - {name: c, netns: %s-c}\n"
    "readouts:\n"
    "  - {name: ro0, host: a, port: 'net_af_packet0,iface=d0', mac: '02:eb:00:00:00:10', "
    "sfcs: [sfc0]}\n"
    "sfcs:\n"
    "  - {name: sfc0, host: b, port: 'net_af_packet0,iface=rx', mac: '02:eb:00:00:00:01'}\n"
    "nodes:\n"
    "  - {name: node0, host: c, sfc: sfc0, port: 'net_af_packet0,iface=d0', "
    "mac: '02:eb:00:00:02:00', sfc_port: 'net_af_packet1,iface=nd', sfc_mac: '02:eb:00:00:01:00'}\n";

static struct farm_spec spec;
static struct farm_state st;
static char tag[32], run_dir[64];

static void setup(void)
{
    char yaml[2048], err[1024];

    snprintf(tag, sizeof(tag), "ebt%d", (int)getpid());
    snprintf(yaml, sizeof(yaml), yaml_fmt, tag, tag, tag);
    ck_assert_msg(farm_spec_parse(yaml, strlen(yaml), "nstest", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    memset(&st, 0, sizeof(st));
    snprintf(run_dir, sizeof(run_dir), "/tmp/ebfarm-nstest-%d", (int)getpid());
    snprintf(st.run_dir, sizeof(st.run_dir), "%s", run_dir);
    snprintf(st.name, sizeof(st.name), "nstest");
    farm_host_table(&st, &spec);
    farm_host_ssh_dir(run_dir, st.ssh_dir, sizeof(st.ssh_dir));
}

/* Whatever a failed test left. */
static void teardown(void)
{
    farm_netns_down(&st);
}

/* Run a shell command here; its output into out, its exit status back. */
static int sh(const char *cmd, char *out, size_t len)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    return farm_run_argv(argv, out, len);
}

/* Whether anything of the plan is left (ebfarm-netns check). */
static int left(char *out, size_t len)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "ip netns list | grep -c '^%s-'; ip -o link | grep -c ' eb%s[md]:'",
             tag, strrchr(st.ssh_dir, '/') + 3);
    sh(cmd, out, len);
    return strcmp(out, "0\n0\n") != 0 || access(st.ssh_dir, F_OK) == 0;
}

START_TEST(test_up_ssh_down)
{
    char err[1024], out[4096], cmd[512];

    ck_assert_msg(farm_netns_plan(&spec, &st, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(st.netns, 1);
    ck_assert_msg(farm_netns_up(&st, err, sizeof(err)) == 0, "%s", err);
    /* Each host answers over ssh with the run's key, in its own namespace,
     * with the farm's MACs on its data interfaces. */
    const char *want[3] = {"d0 02:eb:00:00:00:10\n", "nd 02:eb:00:00:01:00\nrx 02:eb:00:00:00:01\n",
                           "d0 02:eb:00:00:02:00\n"};
    for (unsigned i = 0; i < 3; i++) {
        int rc = farm_host_sh(&st, &st.host[i],
                              "ip -br link | awk '{split($1, n, \"@\")} n[1] != \"lo\" && "
                              "n[1] != \"mgmt\" {print n[1], $3}' | sort", out, sizeof(out));
        ck_assert_msg(rc == 0, "ssh to %s: %d %s", st.host[i].name, rc, out);
        ck_assert_str_eq(out, want[i]);
        snprintf(cmd, sizeof(cmd), "ip -4 -o addr show dev mgmt | awk '{print $4}'");
        ck_assert_int_eq(farm_host_sh(&st, &st.host[i], cmd, out, sizeof(out)), 0);
        snprintf(cmd, sizeof(cmd), "%s/24\n", st.host[i].address);
        ck_assert_str_eq(out, cmd);
    }
    /* The data switch knows exactly the four MACs, statically. */
    snprintf(cmd, sizeof(cmd), "bridge fdb show br eb%sd | grep -c ' static'",
             strrchr(st.ssh_dir, '/') + 3);
    sh(cmd, out, sizeof(out));
    ck_assert_str_eq(out, "4\n");
    /* A second farm with the same namespaces is refused, naming one. */
    struct farm_state again = st;
    snprintf(again.ssh_dir, sizeof(again.ssh_dir), "%s/x%d", FARM_SSH_BASE, (int)getpid());
    ck_assert_int_eq(farm_netns_plan(&spec, &again, err, sizeof(err)), 0);
    ck_assert_int_eq(farm_netns_up(&again, err, sizeof(err)), -1);
    snprintf(cmd, sizeof(cmd), "cannot make the network namespaces: ebfarm-netns: namespace "
             "%s-a exists already (another farm, or a run left it: ip netns del %s-a)", tag, tag);
    ck_assert_str_eq(err, cmd);
    ck_assert_int_eq(access(again.ssh_dir, F_OK), -1);
    /* Down removes it all, also a process still in a namespace. */
    ck_assert_int_eq(farm_host_sh(&st, &st.host[0], "setsid -f sleep 60 </dev/null >/dev/null "
                                  "2>&1", out, sizeof(out)), 0);
    farm_host_close(&st, &st.host[0]);
    ck_assert_int_eq(farm_netns_down(&st), 0);
    ck_assert_msg(!left(out, sizeof(out)), "left: %s", out);
    snprintf(cmd, sizeof(cmd), "pgrep -f '[%c]%s' | wc -l", st.ssh_dir[0], st.ssh_dir + 1);
    sh(cmd, out, sizeof(out));
    ck_assert_str_eq(out, "0\n");
}
END_TEST

/* A failure half-way (an interface name taken) leaves nothing either. */
START_TEST(test_failure_leaves_nothing)
{
    char err[1024], out[256], cmd[256], ifc[32];

    ck_assert_msg(farm_netns_plan(&spec, &st, err, sizeof(err)) == 0, "%s", err);
    snprintf(ifc, sizeof(ifc), "e%s01%x", strrchr(st.ssh_dir, '/') + 3, 0);
    snprintf(cmd, sizeof(cmd), "ip link add %s type veth peer name %sq", ifc, ifc);
    ck_assert_int_eq(sh(cmd, out, sizeof(out)), 0);
    ck_assert_int_eq(farm_netns_up(&st, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "cannot make the network namespaces") == err, "%s", err);
    snprintf(cmd, sizeof(cmd), "ip link del %s", ifc);
    sh(cmd, out, sizeof(out));
    ck_assert_int_eq(farm_netns_down(&st), 0);
    ck_assert_msg(!left(out, sizeof(out)), "left: %s", out);
}
END_TEST

Suite *netns_suite(void);

Suite *netns_suite(void)
{
    Suite *s = suite_create("netns");
    TCase *tc = tcase_create("netns");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_up_ssh_down);
    tcase_add_test(tc, test_failure_leaves_nothing);
    suite_add_tcase(s, tc);
    return s;
}
