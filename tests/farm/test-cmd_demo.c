/* SPDX-License-Identifier: BSD-3-Clause */
/* test-cmd_demo.c - ebfarm demo's options: each refused with its exact message, and a run shaped by many. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char out[65536];

/* Run "ebfarm demo ARGS" with stdout to /dev/null (to_stdout 0) or
 * stderr to /dev/null (1); what remains in out, the exit status returned. */
static int demo(const char *args, int to_stdout)
{
    char cmd[1024];

    snprintf(cmd, sizeof(cmd), "%s/tools/ebfarm demo %s %s", getenv("EBFARM_BUILD_DIR"), args,
             to_stdout ? "2>/dev/null" : "2>&1 >/dev/null");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const struct {
    const char *args, *message;
} refused[] = {
    {"--nodes 0", "option '--nodes': \"0\" is out of range: an integer in 1..64"},
    {"--sources 129", "option '--sources': \"129\" is out of range: an integer in 1..128"},
    {"--events 1.5", "option '--events': \"1.5\" is not an integer in 1..9223372036854775807"},
    {"--frag-size 0", "option '--frag-size': \"0\" is out of range: an integer in 1..16777216"},
    {"--frag-min 0", "option '--frag-min': \"0\" is out of range: an integer in 1..16777216"},
    {"--frag-max 20000000", "option '--frag-max': \"20000000\" is out of range: an integer in "
     "1..16777216"},
    {"--max-event 1000", "option '--max-event': \"1000\" is out of range: an integer in 1024..536870912"},
    {"--rate x", "option '--rate': \"x\" is not a number in 0..1e+09"},
    {"--trigger-us -1", "option '--trigger-us': \"-1\" is out of range: a number in 0..1e+06"},
    {"--accept 2", "option '--accept': \"2\" is out of range: a number in 0..1"},
    {"--timeout-ms 0", "option '--timeout-ms': \"0\" is out of range: a number in 0.01..3.6e+06"},
    {"--credits 100000", "option '--credits': \"100000\" is out of range: an integer in 1..4096"},
    {"--credits 4097", "option '--credits': \"4097\" is out of range: an integer in 1..4096"},
    {"--sfc-workers 16", "option '--sfc-workers': \"16\" is out of range: an integer in 0..15"},
    {"--mtu 255", "option '--mtu': \"255\" is out of range: an integer in 256..9600"},
    {"--mtu 9601", "option '--mtu': \"9601\" is out of range: an integer in 256..9600"},
    {"--max-seconds 0", "option '--max-seconds': \"0\" is out of range: a number in 1..86400"},
    {"--kill-node-after 0",
     "option '--kill-node-after': \"0\" is out of range: an integer in 1..9223372036854775807"},
    {"--stall-nodes-after 0",
     "option '--stall-nodes-after': \"0\" is out of range: an integer in 1..9223372036854775807"},
    {"--stall-ms 1e9", "option '--stall-ms': \"1e9\" is out of range: a number in 0..600000"},
    {"--seed -1", "option '--seed': \"-1\" is not an integer in 0..18446744073709551615"},
    {"--frag-dist normal",
     "option '--frag-dist': \"normal\" is not fixed, uniform or lognormal"},
    {"--frag-mean 0", "option '--frag-mean': \"0\" is out of range: a number in 1..1.67772e+07"},
    {"--frag-sigma 1e10", "option '--frag-sigma': \"1e10\" is out of range: a number in 0..1.67772e+07"},
    {"--burst-events 4294967296",
     "option '--burst-events': \"4294967296\" is out of range: an integer in 0..4294967295"},
    {"--burst-gap-us 60000001",
     "option '--burst-gap-us': \"60000001\" is out of range: an integer in 0..60000000"},
    {"--faults none --silence x",
     "option '--silence': \"x\" is not SOURCE@EVENT (for example 3@1000)"},
    {"--silence 9@1", "option '--silence': source 9 is not below --sources 8"},
    {"--frag-mean 100", "--frag-mean and --frag-sigma need --frag-dist lognormal"},
    {"--frag-dist lognormal", "--frag-dist lognormal needs --frag-mean and --frag-sigma"},
    {"--frag-dist lognormal --frag-mean 10 --frag-sigma 1 --frag-size 100",
     "--frag-dist lognormal takes --frag-min/--frag-max, not --frag-size"},
    {"--frag-dist fixed --frag-min 10 --frag-max 20",
     "--frag-dist fixed takes --frag-size, not --frag-min/--frag-max"},
    {"--frag-dist lognormal --frag-mean 5000 --frag-sigma 1 --frag-max 4096",
     "--frag-mean 5000 is outside [--frag-min, --frag-max] (1024 to 4096)"},
    {"--burst-events 10 --rate 5", "--burst-events replaces --rate: give one of them"},
    {"--burst-gap-us 5", "--burst-gap-us needs --burst-events above 0 (the pause "
                         "between bursts of that many events)"},
    {"--kill-node-after 5 --nodes 1", "--kill-node-after needs --nodes 2 or more"},
    {"--sfc-shared", "--sfc-shared needs --sfc-workers 2 or more, one readout and one SFC (the "
                     "workers share the readout's one memif link)"},
    {"--sfc-workers 2 --sfc-shared --readouts 2", "--sfc-shared needs --sfc-workers 2 or more, "
     "one readout and one SFC (the workers share the readout's one memif link)"},
    {"--frag-min 100 --frag-max 10", "--frag-min 100 is above --frag-max 10"},
    {"--nodes 2 extra", "unexpected argument 'extra'"},
};

/* Refused before anything starts: exit 2 and one line naming the option. */
START_TEST(test_refused)
{
    char want[512];

    snprintf(want, sizeof(want), "ebfarm demo: %s\n", refused[_i].message);
    ck_assert_int_eq(demo(refused[_i].args, 0), 2);
    ck_assert_str_eq(out, want);
}
END_TEST

START_TEST(test_unknown_option_and_help)
{
    ck_assert_int_eq(demo("--bogus", 0), 2);
    ck_assert_ptr_nonnull(
        strstr(out, "unrecognized option '--bogus'\nusage: ebfarm demo [options]\n"));
    ck_assert_int_eq(demo("--help", 1), 0);
    ck_assert_ptr_eq(strstr(out, "usage: ebfarm demo [options]\n"), out);
    ck_assert_ptr_nonnull(strstr(out, "  --nodes N         trigger nodes, 1..64 (2)\n"));
}
END_TEST

/* out without blanks and newlines (the JSON summary's layout aside). */
static void squeeze(void)
{
    size_t o = 0;

    for (size_t i = 0; out[i]; i++)
        if (out[i] != ' ' && out[i] != '\n')
            out[o++] = out[i];
    out[o] = '\0';
}

/* An SFC of 2 workers, on links of their own and sharing one: the runs
 * close their ledgers; 3 workers with the demo's 2 nodes are refused by
 * the farm file's check, naming the need. */
START_TEST(test_sfc_workers)
{
    ck_assert_int_eq(demo("--events 4000 --sfc-workers 2 --json", 1), 0);
    squeeze();
    ck_assert_ptr_nonnull(strstr(out, "\"closed\":true"));
    ck_assert_int_eq(demo("--events 4000 --sfc-workers 2 --sfc-shared --json", 1), 0);
    squeeze();
    ck_assert_ptr_nonnull(strstr(out, "\"closed\":true"));
    ck_assert_ptr_nonnull(strstr(out, "\"dist_ring_full\":0"));
    ck_assert_ptr_nonnull(strstr(out, "\"dist_left\":0"));
    ck_assert_int_eq(demo("--events 100 --sfc-workers 3", 0), 1);
    ck_assert_ptr_nonnull(strstr(out, "ebfarm demo: run failed: farm 'demo': key "
                                      "'sfcs[0].workers': 3 workers and 2 nodes: each worker "
                                      "serves nodes of its own (the SFC's node i goes to worker "
                                      "i % 3); give the SFC 3 nodes at least\n"));
}
END_TEST

/* A small run with many options: the summary's config says what was asked
 * (the reals as reals: 300.0). */
START_TEST(test_run_shaped_by_options)
{
    ck_assert_int_eq(demo("--events 3000 --sources 4 --nodes 3 --frag-dist lognormal "
                          "--frag-mean 300 --frag-sigma 50 --frag-min 64 --frag-max 2048 "
                          "--seed 7 --udp --mtu 3000 --credits 16 --accept 0.5 --json", 1), 0);
    squeeze();
    ck_assert_ptr_nonnull(strstr(out, "\"config\":{\"events\":3000,\"sources\":4,\"nodes\":3,"
                                      "\"readouts\":1,\"sfcs\":1,\"frag_min\":64,\"frag_max\":2048,\"frag_dist\":"
                                      "\"lognormal\",\"frag_mean\":300.0,\"frag_sigma\":50.0,"
                                      "\"rate\":0.0,\"encap\":\"udp\",\"mtu\":3000,\"seed\":7,"
                                      "\"faults\":\"none\",\"silence\":\"none\","
                                      "\"burst_events\":0,\"burst_gap_us\":0,\"hosts\":"
                                      "{\"count\":1,\"readouts\":{\"ro0\":\"localhost\"},"
                                      "\"sfcs\":{\"sfc0\":\"localhost\"},\"nodes\":"
                                      "{\"node0\":\"localhost\",\"node1\":\"localhost\","
                                      "\"node2\":\"localhost\"}}}"));
    ck_assert_ptr_nonnull(strstr(out, "\"closed\":true"));
}
END_TEST


/* --- Signals on the demo ------------------------------------------------- */

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

    nanosleep(&ts, NULL);
}

static char out_path[64], err_path[64];

/* Output files of this test process: no clash with another run of the suite. */
static void name_outputs(void)
{
    snprintf(out_path, sizeof(out_path), "/tmp/ebftest-sig-%d.out", (int)getpid());
    snprintf(err_path, sizeof(err_path), "/tmp/ebftest-sig-%d.err", (int)getpid());
}

/* Start "ebfarm demo ARGS" with stdout and stderr to files; its pid. */
static pid_t demo_start(const char *args, const char *to_out, const char *to_err)
{
    char cmd[1024];
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int o = open(to_out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(to_err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(o, 1);
        dup2(e, 2);
        snprintf(cmd, sizeof(cmd), "exec %s/tools/ebfarm demo %s", getenv("EBFARM_BUILD_DIR"),
                 args);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;

    ck_assert_ptr_nonnull(f);
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Entries of dir whose name starts with prefix: how many. */
static unsigned count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    unsigned n = 0;

    while (d && (de = readdir(d)))
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* The command line of process name (a /proc entry) with its NULs as
 * blanks, in line; 0, or -1 when it is not a process or is gone. */
static int read_cmdline(const char *name, char *line, size_t len)
{
    char path[300];

    if (name[0] < '0' || name[0] > '9')
        return -1;
    snprintf(path, sizeof(path), "/proc/%s/cmdline", name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t k = fread(line, 1, len - 1, f);
    fclose(f);
    for (size_t i = 0; i < k; i++)
        if (line[i] == '\0')
            line[i] = ' ';
    line[k] = '\0';
    return 0;
}

/* Processes whose command line holds s: how many. */
static unsigned count_procs(const char *s)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    char line[4096];
    unsigned n = 0;

    while (d && (de = readdir(d)))
        n += read_cmdline(de->d_name, line, sizeof(line)) == 0 && strstr(line, s) != NULL;
    if (d)
        closedir(d);
    return n;
}

/* The demo of pid left nothing: no daemon with its --file-prefix, no
 * DPDK runtime directory of its, and its run directory is gone. */
static void nothing_left(pid_t pid, const char *run_dir)
{
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebf%d-", (int)pid);
    ck_assert_uint_eq(count_procs(prefix), 0);
    snprintf(prefix, sizeof(prefix), "ebf%d-", (int)pid);
    ck_assert_uint_eq(count_entries("/var/run/dpdk", prefix), 0);
    if (run_dir[0])
        ck_assert_int_ne(access(run_dir, F_OK), 0);
}

/* The run directory the demo of pid made, found in its daemons' command
 * lines (memif sockets live in it), "" when none runs yet. */
static void run_dir_of(pid_t pid, char *dir, size_t len)
{
    char want[64], line[4096];
    DIR *d = opendir("/proc");
    struct dirent *de;

    dir[0] = '\0';
    snprintf(want, sizeof(want), "--file-prefix=ebf%d-", (int)pid);
    while (d && (de = readdir(d)) && !dir[0]) {
        char *r;
        if (read_cmdline(de->d_name, line, sizeof(line)) == 0 && strstr(line, want) &&
            (r = strstr(line, "/tmp/ebfarm-run-")))
            snprintf(dir, len, "%.22s", r);      /* "/tmp/ebfarm-run-XXXXXX" */
    }
    if (d)
        closedir(d);
}

/* Wait until the demo of pid has a readout generating events (its run
 * directory known), at most 60 s. */
static void wait_running(pid_t pid, char *run_dir, size_t len)
{
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebf%d-demo-ro0", (int)pid);
    for (int i = 0; i < 600 && count_procs(prefix) == 0; i++)
        sleep_ms(100);
    ck_assert_uint_eq(count_procs(prefix), 1);
    run_dir_of(pid, run_dir, len);
    ck_assert_str_ne(run_dir, "");
    sleep_ms(1500);                 /* the run has started and events flow */
}

/* One Ctrl-C: the run is stopped in stages, the summary printed with a
 * closed ledger of the events generated so far, exit 130, nothing left. */
START_TEST(test_sigint_stops_in_stages)
{
    char run_dir[64];
    unsigned long long gen, acc, rej, lost;
    int st;
    name_outputs();
    pid_t pid = demo_start("--events 50000000 --rate 20000", out_path, err_path);

    wait_running(pid, run_dir, sizeof(run_dir));
    kill(pid, SIGINT);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);
    slurp(out_path);
    char *l = strstr(out, "  ledger   generated ");
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(sscanf(l, "  ledger   generated %llu = accepted %llu + rejected %llu + "
                               "lost %llu", &gen, &acc, &rej, &lost), 4);
    ck_assert_uint_gt(gen, 0);
    ck_assert_uint_lt(gen, 50000000);
    ck_assert_uint_eq(gen, acc + rej);
    ck_assert_uint_eq(lost, 0);
    ck_assert_ptr_nonnull(strstr(l, "CLOSED"));
    slurp(err_path);
    ck_assert_ptr_nonnull(strstr(out, "ebfarm: SIGINT: stopping the run in stages (once more "
                                      "to kill)\n"));
    char want[160];
    snprintf(want, sizeof(want), "ebfarm demo: interrupted after %llu of 50000000 events; the "
             "run was stopped in stages and its ledger closes\n", gen);
    ck_assert_ptr_nonnull(strstr(out, want));
    nothing_left(pid, run_dir);
    unlink(out_path);
    unlink(err_path);
}
END_TEST

/* Two Ctrl-Cs: the staged stop is cut short, every process killed, exit
 * 130, nothing left. */
START_TEST(test_second_sigint_kills)
{
    char run_dir[64];
    int st;
    name_outputs();
    pid_t pid = demo_start("--events 50000000 --rate 20000", out_path, err_path);

    wait_running(pid, run_dir, sizeof(run_dir));
    kill(pid, SIGINT);
    sleep_ms(20);
    kill(pid, SIGINT);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 130);
    slurp(err_path);
    ck_assert_ptr_nonnull(strstr(out, "ebfarm demo: run failed: interrupted by SIGINT\n"));
    nothing_left(pid, run_dir);
    unlink(out_path);
    unlink(err_path);
}
END_TEST

/* SIGTERM while the farm is still starting: exit 143, nothing left. */
START_TEST(test_sigterm_while_starting)
{
    int st;
    name_outputs();
    pid_t pid = demo_start("--events 50000000 --rate 20000", out_path, err_path);
    char prefix[64];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebf%d-demo-sfc0", (int)pid);
    for (int i = 0; i < 600 && count_procs(prefix) == 0; i++)
        sleep_ms(10);
    ck_assert_uint_eq(count_procs(prefix), 1);
    char run_dir[64];
    run_dir_of(pid, run_dir, sizeof(run_dir));
    ck_assert_str_ne(run_dir, "");
    kill(pid, SIGTERM);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 143);
    slurp(err_path);
    ck_assert_ptr_nonnull(strstr(out, "interrupted by SIGTERM"));
    nothing_left(pid, run_dir);
    unlink(out_path);
    unlink(err_path);
}
END_TEST

Suite *cmd_demo_suite(void);

Suite *cmd_demo_suite(void)
{
    Suite *s = suite_create("cmd_demo");
    TCase *tc = tcase_create("cmd_demo");

    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_refused, 0, (int)(sizeof(refused) / sizeof(refused[0])));
    tcase_add_test(tc, test_unknown_option_and_help);
    tcase_add_test(tc, test_run_shaped_by_options);
    tcase_add_test(tc, test_sfc_workers);
    suite_add_tcase(s, tc);
    tc = tcase_create("signals");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_sigint_stops_in_stages);
    tcase_add_test(tc, test_second_sigint_kills);
    tcase_add_test(tc, test_sigterm_while_starting);
    suite_add_tcase(s, tc);
    return s;
}
