/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_state.c - the run directory's state file: written, read back, and the farm that is up found. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "farm_state.h"
#include "farmfile.h"

static char base[] = "/tmp/ebf-state-XXXXXX";
static struct farm_spec spec;

static void setup(void)
{
    char err[512] = "";

    snprintf(base, sizeof(base), "/tmp/ebf-state-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(base));
    ck_assert_int_eq(setenv("EBFARM_RUN_DIR", base, 1), 0);
    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/demo.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
}

static void teardown(void)
{
    char cmd[64];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    ck_assert_int_eq(system(cmd), 0);
}

/* The demo farm listed in st with its run directory <base>/<name>, made,
 * and saved with pids 100, 101, ... */
static void demo_up(struct farm_state *st, const char *name)
{
    memset(st, 0, sizeof(*st));
    snprintf(st->name, sizeof(st->name), "%s", name);
    snprintf(st->run_dir, sizeof(st->run_dir), "%s/%s", base, name);
    ck_assert_int_eq(mkdir(st->run_dir, 0755), 0);
    farm_state_add(st, &spec, &spec.sfc[0].p, FARM_SFC);
    farm_state_add(st, &spec, &spec.node[0].p, FARM_NODE);
    farm_state_add(st, &spec, &spec.readout[0].p, FARM_READOUT);
    for (unsigned i = 0; i < st->n; i++)
        st->proc[i].pid = 100 + (pid_t)i;
    st->run_number = 3;
    st->run_start_ms = 1748779200123;   /* 2025-06-01T12:00:00.123Z */
    snprintf(st->farm_file_sha256, sizeof(st->farm_file_sha256), "%s", spec.file_sha256);
    snprintf(st->farm_file, sizeof(st->farm_file), "/farms/demo.yaml");
    ck_assert_int_eq(farm_state_save(st), 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[4096];
    size_t n;

    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(test_role_names)
{
    ck_assert_str_eq(farm_role_name(FARM_SFC), "sfc");
    ck_assert_str_eq(farm_role_name(FARM_NODE), "node");
    ck_assert_str_eq(farm_role_name(FARM_READOUT), "readout");
    ck_assert_str_eq(farm_role_name((enum farm_role)7), "unknown");
}
END_TEST

START_TEST(test_base_dir)
{
    ck_assert_str_eq(farm_state_base_dir(), base);
    setenv("EBFARM_RUN_DIR", "", 1);
    ck_assert_str_eq(farm_state_base_dir(), "/run/ebfarm");
    unsetenv("EBFARM_RUN_DIR");
    ck_assert_str_eq(farm_state_base_dir(), "/run/ebfarm");
}
END_TEST

/* Endpoints with {run} substituted, a --file-prefix unique per ebfarm process. */
START_TEST(test_add)
{
    struct farm_state st = {.run_dir = "/r/demo"};
    char prefix[64];

    snprintf(spec.node[0].p.control, sizeof(spec.node[0].p.control), "ipc://{run}/x-{run}.ctl");
    snprintf(spec.node[0].p.metrics, sizeof(spec.node[0].p.metrics), "tcp://10.0.0.1:5000");
    farm_state_add(&st, &spec, &spec.node[0].p, FARM_NODE);
    ck_assert_uint_eq(st.n, 1);
    ck_assert_str_eq(st.proc[0].name, "node0");
    ck_assert_str_eq(st.proc[0].host, "localhost");
    ck_assert_int_eq(st.proc[0].role, FARM_NODE);
    ck_assert_int_eq(st.proc[0].pid, 0);
    snprintf(prefix, sizeof(prefix), "ebf%d-demo-node0", (int)getpid());
    ck_assert_str_eq(st.proc[0].prefix, prefix);
    ck_assert_str_eq(st.proc[0].control, "ipc:///r/demo/x-/r/demo.ctl");
    ck_assert_str_eq(st.proc[0].metrics, "tcp://10.0.0.1:5000");
}
END_TEST

START_TEST(test_save_and_load)
{
    struct farm_state st, back;
    char path[600], want[2048], err[512] = "";
    int pid = (int)getpid();

    demo_up(&st, "demo");
    snprintf(path, sizeof(path), "%s/farm.state", st.run_dir);
    snprintf(want, sizeof(want),
             "farm demo\nrun_number 3\nfarm_file /farms/demo.yaml\n"
             "run_start_ms 1748779200123\nfarm_file_sha256 %s\n"
             "proc sfc0 sfc 100 ebf%d-demo-sfc0 ipc://%s/demo/sfc0.ctl ipc://%s/demo/sfc0.pub "
             "localhost 0 0\n"
             "proc node0 node 101 ebf%d-demo-node0 ipc://%s/demo/node0.ctl "
             "ipc://%s/demo/node0.pub localhost 0 0\n"
             "proc ro0 readout 102 ebf%d-demo-ro0 ipc://%s/demo/ro0.ctl ipc://%s/demo/ro0.pub "
             "localhost 0 0\n",
             spec.file_sha256,
             pid, base, base, pid, base, base, pid, base, base);
    ck_assert_str_eq(slurp(path), want);
    ck_assert_int_eq(farm_state_load(st.run_dir, &back, err, sizeof(err)), 0);
    ck_assert_int_eq(memcmp(&st, &back, sizeof(st)), 0);
}
END_TEST

/* Hosts (a netns one, an ssh one with its launch), the ssh directory and
 * a remote process's keeper survive the state file. */
START_TEST(test_hosts_saved)
{
    struct farm_state st, back;
    char path[600], err[512] = "";

    demo_up(&st, "demo");
    snprintf(st.ssh_dir, sizeof(st.ssh_dir), "/run/ebfarm-ssh/0123abcd");
    st.netns = 1;
    st.n_hosts = 2;
    st.host[0] = (struct farm_host){.name = "a", .kind = FF_HOST_NETNS, .user = "root",
                                    .launch = FARM_LAUNCH_PLAIN, .address = "10.64.1.1",
                                    .netns = "ns-a"};
    st.host[1] = (struct farm_host){.name = "b", .kind = FF_HOST_SSH, .launch = FARM_LAUNCH_UNIT,
                                    .address = "fd00::2"};
    memset(st.proc[0].host, 0, sizeof(st.proc[0].host));
    st.proc[0].host[0] = 'a';
    st.proc[0].remote = 1;
    st.proc[0].kpid = 99;
    ck_assert_int_eq(farm_state_save(&st), 0);
    snprintf(path, sizeof(path), "%s/farm.state", st.run_dir);
    const char *text = slurp(path);
    ck_assert_ptr_nonnull(strstr(text, "ssh_dir /run/ebfarm-ssh/0123abcd\nnetns 1\n"
                                       "host a netns plain root 10.64.1.1 ns-a\n"
                                       "host b ssh unit - fd00::2 -\n"));
    ck_assert_int_eq(farm_state_load(st.run_dir, &back, err, sizeof(err)), 0);
    ck_assert_int_eq(memcmp(&st, &back, sizeof(st)), 0);
}
END_TEST

/* A farm's key directory (a path with a space) and insecure survive the
 * state file. */
START_TEST(test_keys_saved)
{
    struct farm_state st, back;
    char path[600], err[512] = "";

    demo_up(&st, "keyed");
    snprintf(st.keys, sizeof(st.keys), "/etc/ebfarm/my keys");
    st.insecure = 1;
    ck_assert_int_eq(farm_state_save(&st), 0);
    snprintf(path, sizeof(path), "%s/farm.state", st.run_dir);
    ck_assert_ptr_nonnull(strstr(slurp(path), "\nkeys /etc/ebfarm/my keys\ninsecure 1\nproc "));
    ck_assert_int_eq(farm_state_load(st.run_dir, &back, err, sizeof(err)), 0);
    ck_assert_str_eq(back.keys, "/etc/ebfarm/my keys");
    ck_assert_int_eq(back.insecure, 1);
    ck_assert_int_eq(memcmp(&st, &back, sizeof(st)), 0);
}
END_TEST

START_TEST(test_load_errors)
{
    struct farm_state st;
    char dir[600], path[620], want[800], err[512] = "";
    FILE *f;

    snprintf(dir, sizeof(dir), "%s/x", base);
    ck_assert_int_eq(farm_state_load(dir, &st, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot read %s/farm.state: No such file or directory", dir);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/farm.state", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("farm x\nrun_number 1\n", f);     /* no process */
    fclose(f);
    ck_assert_int_eq(farm_state_load(dir, &st, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s is not an ebfarm state file", path);
    ck_assert_str_eq(err, want);
}
END_TEST

/* A state file of before hosts and run identity: no host, no start, no hash. */
START_TEST(test_load_older)
{
    struct farm_state st;
    char dir[600], path[620], err[512] = "";
    FILE *f;

    snprintf(dir, sizeof(dir), "%s/old", base);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/farm.state", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("farm old\nrun_number 2\nfarm_file -\n"
          "proc sfc0 sfc 7 p ipc://x/sfc0.ctl ipc://x/sfc0.pub\n", f);
    fclose(f);
    ck_assert_int_eq(farm_state_load(dir, &st, err, sizeof(err)), 0);
    ck_assert_str_eq(st.name, "old");
    ck_assert_uint_eq(st.run_number, 2);
    ck_assert_int_eq(st.run_start_ms, 0);
    ck_assert_str_eq(st.farm_file_sha256, "");
    ck_assert_uint_eq(st.n, 1);
    ck_assert_str_eq(st.proc[0].metrics, "ipc://x/sfc0.pub");
    ck_assert_str_eq(st.proc[0].host, "");
}
END_TEST

START_TEST(test_find)
{
    struct farm_state st, found;
    char want[800], err[512] = "";

    ck_assert_int_eq(farm_state_find(NULL, &found, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "no farm is up (nothing in %s; start one with ebfarm up FARM.yaml)", base);
    ck_assert_str_eq(err, want);
    demo_up(&st, "alpha");
    ck_assert_int_eq(farm_state_find(NULL, &found, err, sizeof(err)), 0);
    ck_assert_str_eq(found.name, "alpha");
    ck_assert_str_eq(found.run_dir, st.run_dir);
    ck_assert_uint_eq(found.n, 3);
    demo_up(&st, "beta");
    ck_assert_int_eq(farm_state_find(NULL, &found, err, sizeof(err)), -1);
    ck_assert_msg(!strcmp(err, "several farms are up (alpha, beta): name one with --farm NAME") ||
                  !strcmp(err, "several farms are up (beta, alpha): name one with --farm NAME"),
                  "%s", err);
    ck_assert_int_eq(farm_state_find("beta", &found, err, sizeof(err)), 0);
    ck_assert_str_eq(found.name, "beta");
    ck_assert_int_eq(farm_state_find("gamma", &found, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "farm 'gamma' is not up (no %s/gamma/farm.state)", base);
    ck_assert_str_eq(err, want);
}
END_TEST

Suite *farm_state_suite(void);

Suite *farm_state_suite(void)
{
    Suite *s = suite_create("farm_state");
    TCase *tc = tcase_create("farm_state");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_role_names);
    tcase_add_test(tc, test_base_dir);
    tcase_add_test(tc, test_add);
    tcase_add_test(tc, test_save_and_load);
    tcase_add_test(tc, test_hosts_saved);
    tcase_add_test(tc, test_keys_saved);
    tcase_add_test(tc, test_load_errors);
    tcase_add_test(tc, test_load_older);
    tcase_add_test(tc, test_find);
    suite_add_tcase(s, tc);
    return s;
}
