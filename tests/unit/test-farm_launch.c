/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_launch.c - the scripts that start a process on a remote host (keeper, systemd-run) and the ssh command line, exactly. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "farm_host.h"
#include "farm_launch.h"
#include "farm_launch_private.h"

static struct farm_state st;
static struct farm_proc *p;

static void setup(void)
{
    memset(&st, 0, sizeof(st));
    snprintf(st.name, sizeof(st.name), "f1");
    snprintf(st.run_dir, sizeof(st.run_dir), "/run/ebfarm/f1");
    snprintf(st.ssh_dir, sizeof(st.ssh_dir), "/run/ebfarm-ssh/0000abcd");
    st.n_hosts = 1;
    st.host[0] = (struct farm_host){.name = "h1", .kind = FF_HOST_NETNS, .user = "root",
                                    .address = "10.64.0.1", .netns = "ns1"};
    st.n = 1;
    p = &st.proc[0];
    snprintf(p->name, sizeof(p->name), "sfc0");
    snprintf(p->host, sizeof(p->host), "h1");
    p->remote = 1;
}

static char *const argv[] = {"/b/sfc/ebfarm-sfc", "--vdev=net_af_packet0,iface=rx", "--",
                             "--name=it's", NULL};

START_TEST(unit_script)
{
    char buf[4096];

    st.host[0].launch = FARM_LAUNCH_UNIT;
    ck_assert_int_eq(farm_launch_script(&st, p, &st.host[0], argv, buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf,
        "umask 077; mkdir -p '/run/ebfarm/f1' && cd '/run/ebfarm/f1' && "
        "{ systemctl reset-failed ebfarm-f1-sfc0.service 2>/dev/null; true; } && systemd-run "
        "--quiet --service-type=exec --unit=ebfarm-f1-sfc0.service -p Restart=no "
        "-p KillSignal=SIGTERM -p TimeoutStopSec=60 -p LimitMEMLOCK=infinity "
        "-p LimitNOFILE=65536:524288 -p 'WorkingDirectory=/run/ebfarm/f1' "
        "-p 'ExecStopPost=/bin/sh -c \"echo $$EXIT_CODE $$EXIT_STATUS "
        ">/run/ebfarm/f1/exit.unit.sfc0\"' -p 'NetworkNamespacePath=/run/netns/ns1' -- "
        "'/b/sfc/ebfarm-sfc' '--vdev=net_af_packet0,iface=rx' '--' '--name=it'\\''s' "
        "&& systemctl show -p ExecMainPID --value ebfarm-f1-sfc0.service");
    /* An ssh host's unit runs in the host's own network namespace. */
    st.host[0].kind = FF_HOST_SSH;
    ck_assert_int_eq(farm_launch_script(&st, p, &st.host[0], argv, buf, sizeof(buf)), 0);
    ck_assert_ptr_null(strstr(buf, "NetworkNamespacePath"));
    /* Too long for the buffer: refused, not cut. */
    ck_assert_int_eq(farm_launch_script(&st, p, &st.host[0], argv, buf, 100), -E2BIG);
}
END_TEST

START_TEST(plain_script)
{
    char buf[4096];

    st.host[0].launch = FARM_LAUNCH_PLAIN;
    ck_assert_int_eq(farm_launch_script(&st, p, &st.host[0], argv, buf, sizeof(buf)), 0);
    const char *head = "umask 077; mkdir -p '/run/ebfarm/f1' && cd '/run/ebfarm/f1' && exec "
                       "setsid -f /bin/sh -c 'log=$1; shift\n";
    ck_assert_msg(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
    const char *tail = "' ebfarm-keeper sfc0.log '/b/sfc/ebfarm-sfc' "
                       "'--vdev=net_af_packet0,iface=rx' '--' '--name=it'\\''s'";
    ck_assert_str_eq(buf + strlen(buf) - strlen(tail), tail);
    ck_assert_ptr_nonnull(strstr(buf, "trap '\\'''\\'' INT TERM HUP\n"));
    ck_assert_ptr_nonnull(strstr(buf, ">\"exit.$p.tmp\" && mv \"exit.$p.tmp\" \"exit.$p\""));
}
END_TEST

START_TEST(ssh_argv)
{
    const char *a[48];
    char line[2048] = "";

    unsigned n = farm_host_ssh_argv(&st, &st.host[0], NULL, "true", a, 48);
    ck_assert_uint_eq(n, 28);
    for (unsigned i = 0; i < n; i++)
        snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "", a[i]);
    ck_assert_str_eq(line,
        "ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5 -o LogLevel=ERROR "
        "-o ControlMaster=no -o ControlPath=/run/ebfarm-ssh/0000abcd/cm-%C "
        "-i /run/ebfarm-ssh/0000abcd/id_ed25519 -o IdentitiesOnly=yes "
        "-o UserKnownHostsFile=/run/ebfarm-ssh/0000abcd/known_hosts "
        "-o GlobalKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -l root 10.64.0.1 -- true");
    ck_assert_ptr_null(a[n]);
    /* An ssh host: the operator's keys and known hosts; no user: ssh's. */
    st.host[0].kind = FF_HOST_SSH;
    st.host[0].user[0] = '\0';
    ck_assert_uint_eq(farm_host_ssh_argv(&st, &st.host[0], NULL, "true", a, 48), 16);
    ck_assert_uint_eq(farm_host_ssh_argv(&st, &st.host[0], NULL, "true", a, 16), 0);
    ck_assert_str_eq(a[13], "10.64.0.1");
    /* $EBFARM_SSH_CONFIG: -F FILE first, for ssh hosts only. */
    setenv("EBFARM_SSH_CONFIG", "/etc/ebfarm/ssh_config", 1);
    ck_assert_uint_eq(farm_host_ssh_argv(&st, &st.host[0], NULL, "true", a, 48), 18);
    ck_assert_str_eq(a[1], "-F");
    ck_assert_str_eq(a[2], "/etc/ebfarm/ssh_config");
    ck_assert_str_eq(a[15], "10.64.0.1");
    st.host[0].kind = FF_HOST_NETNS;
    ck_assert_uint_eq(farm_host_ssh_argv(&st, &st.host[0], NULL, "true", a, 48), 26);
    ck_assert_str_eq(a[1], "-o");
    unsetenv("EBFARM_SSH_CONFIG");
}
END_TEST

START_TEST(ssh_dir_and_quote)
{
    char d[64], q[32];
    size_t o = 0;

    farm_host_ssh_dir("/run/ebfarm/demo", d, sizeof(d));
    ck_assert_uint_eq(strlen(d), strlen(FARM_SSH_BASE) + 9);
    ck_assert_int_eq(strncmp(d, FARM_SSH_BASE "/", strlen(FARM_SSH_BASE) + 1), 0);
    farm_host_ssh_dir("/run/ebfarm/demo2", q, sizeof(q));
    ck_assert_str_ne(d, q);
    farm_sh_quote(q, sizeof(q), &o, "a'b");
    ck_assert_str_eq(q, "'a'\\''b'");
    ck_assert_uint_eq(o, 8);
    o = 0;
    farm_sh_quote(q, 8, &o, "abcdefgh");     /* does not fit: *o at the end */
    ck_assert_uint_eq(o, 7);
}
END_TEST

/* The transient units' properties are the templates' in systemd/, each
 * line KEY=VALUE in every template (a change to one is a change to both). */
START_TEST(unit_props_are_the_templates)
{
    static const char *const names[] = {"readout", "sfc", "node"};
    char path[512], text[8192];

    for (unsigned t = 0; t < 3; t++) {
        snprintf(path, sizeof(path), "%s/systemd/ebfarm-%s@.service.in", EBF_SOURCE_ROOT,
                 names[t]);
        FILE *f = fopen(path, "r");
        ck_assert_msg(f != NULL, "%s", path);
        size_t n = fread(text + 1, 1, sizeof(text) - 2, f);
        fclose(f);
        text[0] = '\n';
        text[n + 1] = '\0';
        unsigned found = 0;
        for (const char *const *u = farm_launch_unit_props; *u; u++, found++) {
            char line[128];
            snprintf(line, sizeof(line), "\n%s\n", *u);
            ck_assert_msg(strstr(text, line) != NULL, "%s has no line %s", path, *u);
        }
        ck_assert_uint_eq(found, 5);
    }
}
END_TEST

Suite *farm_launch_suite(void);

Suite *farm_launch_suite(void)
{
    Suite *s = suite_create("farm_launch");
    TCase *tc = tcase_create("farm_launch");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, unit_script);
    tcase_add_test(tc, plain_script);
    tcase_add_test(tc, ssh_argv);
    tcase_add_test(tc, ssh_dir_and_quote);
    tcase_add_test(tc, unit_props_are_the_templates);
    suite_add_tcase(s, tc);
    return s;
}
