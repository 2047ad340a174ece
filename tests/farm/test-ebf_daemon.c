/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_daemon.c - the three daemons as processes: --help, --version, refusals, log lines. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define RUNTIME "/var/run/dpdk"
#define OUT_MAX 65536

static const struct {
    const char *exe, *component, *synopsis, *required;
} daemons[] = {
    {"readout/ebfarm-readout", "readout", "--port NAME --sfc-mac MAC[,MAC...]",
     "--sfc-mac=02:eb:00:00:00:01"},
    {"sfc/ebfarm-sfc", "sfc", "--port NAME --node PORT,MAC [--node ...]",
     "--node=net_ring1,02:eb:00:00:02:00"},
    {"node/ebfarm-node", "node", "--port NAME --sfc-mac MAC", "--sfc-mac=02:eb:00:00:00:01"},
};

static char out[OUT_MAX], err[OUT_MAX];

static void slurp(const char *path, char *buf)
{
    FILE *f = fopen(path, "r");

    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, OUT_MAX - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run daemon k with the NULL-terminated args; its stdout and stderr in
 * out and err; returns the exit status (-1: killed). */
static int run(int k, const char *const *args)
{
    char exe[512], o[64], e[64];
    const char *argv[32];
    int n = 0;

    snprintf(exe, sizeof(exe), "%s/%s", getenv("EBFARM_BUILD_DIR"), daemons[k].exe);
    argv[n++] = exe;
    for (; *args && n < 31; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    snprintf(o, sizeof(o), "/tmp/ebftest-daemon-%d.out", (int)getpid());
    snprintf(e, sizeof(e), "/tmp/ebftest-daemon-%d.err", (int)getpid());
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(127);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    slurp(o, out);
    slurp(e, err);
    unlink(o);
    unlink(e);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0;
}

/* The project's version, from the top meson.build. */
static void project_version(char *buf, size_t len)
{
    static char text[OUT_MAX];

    slurp(EBF_SOURCE_ROOT "/meson.build", text);
    const char *p = strstr(text, "version: '");
    ck_assert_ptr_nonnull(p);
    p += strlen("version: '");
    size_t n = strcspn(p, "'");
    ck_assert_uint_lt(n, len);
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* --help with no EAL option at all: usage on stdout, exit 0, and EAL never
 * made its default runtime directory. */
START_TEST(test_help)
{
    const char *args[] = {"--help", NULL};
    char head[256];
    int rte_before = exists(RUNTIME "/rte");

    ck_assert_int_eq(run(_i, args), 0);
    snprintf(head, sizeof(head), "usage: ebfarm-%s [EAL options] -- %s [options]\n",
             daemons[_i].component, daemons[_i].synopsis);
    ck_assert_msg(strncmp(out, head, strlen(head)) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "\n  --port NAME           "));
    ck_assert_ptr_nonnull(strstr(out, "\n  --mac MAC             our MAC on --port "
                                      "(default: the port's)\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n  --link-timeout MS     wait for link up at most MS; "
                                      "0: do not wait ("));
    ck_assert_ptr_nonnull(strstr(out, "\n  --version             the version, then exit\n"));
    ck_assert_str_eq(err, "");
    /* Each option of the synopsis is listed with the same value name
     * (ebfarm-sfc said --node PORT,MAC in one and NAME,MAC in the other). */
    char syn[256], line[128];
    snprintf(syn, sizeof(syn), "%s", daemons[_i].synopsis);
    for (char *save, *opt = strtok_r(syn, " ", &save), *meta; opt; opt = meta) {
        meta = strtok_r(NULL, " ", &save);
        if (strncmp(opt, "--", 2) != 0 || !meta || !strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", *meta))
            continue;
        snprintf(line, sizeof(line), "\n  %s %s", opt, meta);
        const char *at = strstr(out, line);
        ck_assert_msg(at && (at[strlen(line)] == ' ' || at[strlen(line)] == '\n'),
                      "no '%s %s' in the option list", opt, meta);
    }
    if (!rte_before)
        ck_assert_msg(!exists(RUNTIME "/rte"), "--help made " RUNTIME "/rte");
}
END_TEST

/* --help and --version among EAL options, or after "--" among bad ones:
 * answered before EAL starts, nothing under /var/run/dpdk. */
START_TEST(test_help_before_eal)
{
    char prefix[64], dir[128], version[32], want[64];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-help%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-help%d", (int)getpid());
    const char *help_eal[] = {"--no-huge", "-m", "64", prefix, "--help", "--", "--port", "x",
                              NULL};
    const char *help_own[] = {"--no-huge", prefix, "--", "--sources", "0", "--help", NULL};
    const char *version_own[] = {"--no-huge", prefix, "--", "--port", "x", "--version", NULL};

    ck_assert_int_eq(run(_i, help_eal), 0);
    ck_assert_int_eq(strncmp(out, "usage: ebfarm-", 14), 0);
    ck_assert_int_eq(run(_i, help_own), 0);
    ck_assert_int_eq(strncmp(out, "usage: ebfarm-", 14), 0);
    ck_assert_int_eq(run(_i, version_own), 0);
    project_version(version, sizeof(version));
    snprintf(want, sizeof(want), "ebfarm-%s %s\n", daemons[_i].component, version);
    ck_assert_str_eq(out, want);
    ck_assert_str_eq(err, "");
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

START_TEST(test_version)
{
    const char *args[] = {"--version", NULL};
    char version[32], want[64];

    project_version(version, sizeof(version));
    ck_assert_int_eq(run(_i, args), 0);
    snprintf(want, sizeof(want), "ebfarm-%s %s\n", daemons[_i].component, version);
    ck_assert_str_eq(out, want);
    ck_assert_str_eq(err, "");
}
END_TEST

/* Bad options: refused before EAL, exit 2, one line naming the option. */
START_TEST(test_refused)
{
    char prefix[64], dir[128], want[256];
    const char *c = daemons[_i].component;

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-bad%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-bad%d", (int)getpid());
    const char *unknown[] = {"--no-huge", prefix, "--", "--port=x", daemons[_i].required,
                             "--rx-port=x", NULL};
    const char *bad_idle[] = {"--no-huge", prefix, "--", "--port=x", daemons[_i].required,
                              "--idle=sleepy", NULL};
    const char *bad_timeout[] = {"--no-huge", prefix, "--", "--port=x", daemons[_i].required,
                                 "--link-timeout=-5", NULL};
    const char *no_port[] = {"--no-huge", prefix, "--", daemons[_i].required, NULL};

    ck_assert_int_eq(run(_i, unknown), 2);
    snprintf(want, sizeof(want), "%s: unknown option '--rx-port' (see --help)\n", c);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(run(_i, bad_idle), 2);
    snprintf(want, sizeof(want), "%s: option '--idle': \"sleepy\" is not spin or backoff\n", c);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(run(_i, bad_timeout), 2);
    snprintf(want, sizeof(want),
             "%s: option '--link-timeout': \"-5\" is not an integer in 0..3600000\n", c);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(run(_i, no_port), 2);
    snprintf(want, sizeof(want), "%s: option '--port' is required\n", c);
    ck_assert_str_eq(err, want);
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* After EAL started every log line carries the time and the instance name,
 * EAL's own included; a failure still removes the runtime directory. */
START_TEST(test_log_lines)
{
    char prefix[64], dir[128], name[32], tag[40], want[128];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-log%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-log%d", (int)getpid());
    snprintf(name, sizeof(name), "--name=%s7", daemons[_i].component);
    snprintf(tag, sizeof(tag), " %s7: ", daemons[_i].component);
    const char *args[] = {"--no-huge", "-m", "64", "--no-pci", prefix, "--vdev=net_null0",
                          "--", "--port=nope", daemons[_i].required, name, NULL};

    ck_assert_int_eq(run(_i, args), 1);
    ck_assert_str_eq(out, "");
    snprintf(want, sizeof(want), "%serror: no port 'nope'\n", tag);
    ck_assert_msg(strstr(err, want) != NULL, "no \"%s\" in the log: %s", want, err);
    unsigned lines = 0, eal = 0;
    for (char *l = err, *nl; *l; l = nl + 1) {
        nl = strchr(l, '\n');
        ck_assert_msg(nl != NULL, "unfinished line: %s", l);
        *nl = '\0';
        int y, mo, d, h, mi, s, ms;
        char z;
        ck_assert_msg(sscanf(l, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &s, &ms,
                             &z) == 8 && z == 'Z' && l[23] == 'Z', "no timestamp: %s", l);
        ck_assert_msg(strncmp(l + 24, tag, strlen(tag)) == 0, "no instance name: %s", l);
        eal += strncmp(l + 24 + strlen(tag), "EAL: ", 5) == 0;
        lines++;
    }
    ck_assert_uint_ge(eal, 1);
    ck_assert_uint_ge(lines, 2);
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* An EAL that refuses to start: its own error line is the first one that
 * says "error: " (the farm tool quotes it), before the 100-line usage. */
START_TEST(test_error_line)
{
    char prefix[64], dir[128], want[128];
    const char *c = daemons[_i].component;

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-err%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-err%d", (int)getpid());
    const char *args[] = {"--no-huge", "-m", "64", "--no-pci", prefix, "-l", "99", "--",
                          "--port=x", daemons[_i].required, NULL};

    ck_assert_int_eq(run(_i, args), 1);
    const char *first = strstr(err, " error: ");
    ck_assert_msg(first != NULL, "no error line: %s", err);
    snprintf(want, sizeof(want), " %s: error: EAL: lcore 99 unavailable\n", c);
    ck_assert_msg(strncmp(first - strlen(c) - 2, want, strlen(want)) == 0, "first error: %.120s",
                  first - strlen(c) - 2);
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* An MTU the port cannot carry: refused at start with the MTU and the
 * port's limit named, exit 1, no runtime directory and no memif socket
 * left; one beyond every daemon's range: refused before EAL, exit 2. */
START_TEST(test_mtu_refused)
{
    char prefix[64], dir[128], sock[64], vdev[160], name[32], want[256];
    const char *c = daemons[_i].component;

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-mtu%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-mtu%d", (int)getpid());
    snprintf(sock, sizeof(sock), "/tmp/ebftest-mtu%d.sock", (int)getpid());
    snprintf(vdev, sizeof(vdev), "--vdev=net_memif0,role=%s,socket=%s,socket-abstract=no",
             _i == 1 ? "server" : "client", sock);
    snprintf(name, sizeof(name), "--name=%s7", c);
    const char *args[] = {"--no-huge", "-m", "64", "--no-pci", prefix, vdev, "--vdev=net_ring1",
                          "--", "--port=net_memif0", daemons[_i].required, name, "--mtu=9000",
                          NULL};
    const char *range[] = {"--no-huge", prefix, "--", "--port=net_memif0",
                           daemons[_i].required, "--mtu=9601", NULL};

    ck_assert_int_eq(run(_i, args), 1);
    ck_assert_str_eq(out, "");
    snprintf(want, sizeof(want), " %s7: error: --mtu 9000: port 'net_memif0' carries at most 2030 "
             "(memif bsize 2048; give bsize=9018 or more)\n", c);
    ck_assert_msg(strstr(err, want) != NULL, "no \"%s\" in the log: %s", want, err);
    ck_assert_msg(!exists(dir), "%s is there", dir);
    ck_assert_msg(!exists(sock), "%s is there", sock);
    ck_assert_int_eq(run(_i, range), 2);
    snprintf(want, sizeof(want), "%s: option '--mtu': \"9601\" is out of range: an integer in "
             "256..9600\n", c);
    ck_assert_str_eq(err, want);
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* The node: a credit frame of --ack-batch acks must fit --mtu; refused
 * before EAL, exit 2. */
START_TEST(test_node_ack_batch_mtu)
{
    char prefix[64], dir[128];

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-acks%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-acks%d", (int)getpid());
    const char *args[] = {"--no-huge", prefix, "--", "--port=x", daemons[2].required,
                          "--mtu=256", "--ack-batch=21", NULL};
    const char *fits[] = {"--no-huge", "-m", "64", "--no-pci", prefix, "--", "--port=x",
                          daemons[2].required, "--mtu=256", "--ack-batch=20", NULL};

    ck_assert_int_eq(run(2, args), 2);
    ck_assert_str_eq(err, "node: --ack-batch 21: a credit frame of 21 acks (268 B) passes "
                          "--mtu 256 (at most 20 acks)\n");
    /* 20 acks fit: the options pass, and the node goes on to look for its port */
    ck_assert_int_eq(run(2, fits), 1);
    ck_assert_ptr_nonnull(strstr(err, " node: error: no port 'x'\n"));
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* The readout at MTU 9000 with 4000-byte fragments on net_null (it used to
 * crash: a pool of 2048-byte rooms and an unchecked append): each fragment
 * in one frame, its final counters exact, nothing left behind. */
START_TEST(test_readout_jumbo)
{
    char prefix[64], dir[128], stats[64], line[128];
    unsigned long long v;

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-jumbo%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-jumbo%d", (int)getpid());
    snprintf(stats, sizeof(stats), "--stats=/tmp/ebftest-jumbo%d.stats", (int)getpid());
    const char *args[] = {"--no-huge", "--no-pci", prefix, "--vdev=net_null0", "--",
                          "--port", "net_null0", "--sfc-mac", "02:eb:00:00:00:01", "--events",
                          "1000", "--mtu", "9000", "--frag-size", "4000", stats, NULL};
    static const struct {
        const char *key;
        unsigned long long want;
    } want[] = {
        {"events", 1000}, {"frames", 8000}, {"bytes", 8000ull * (14 + 40 + 4000)},
        {"payload_bytes", 8000ull * 4000}, {"tx_no_room", 0}, {"events_abandoned", 0},
    };
    unsigned found = 0;

    ck_assert_int_eq(run(0, args), 0);
    FILE *f = fopen(stats + 8, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof(line), f))
        for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
            char key[64];
            if (sscanf(line, "%63s %llu", key, &v) == 2 && strcmp(key, want[i].key) == 0) {
                ck_assert_msg(v == want[i].want, "%s %llu, want %llu", key, v, want[i].want);
                found++;
            }
        }
    fclose(f);
    unlink(stats + 8);
    ck_assert_uint_eq(found, sizeof(want) / sizeof(want[0]));
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

/* Endpoints a daemon must not bind: an ipc:// path where a regular file
 * is (the file stays as it was), a tcp:// one without keys or --insecure,
 * and keys that cannot be read. Each exits 1, naming the endpoint or the
 * key, and leaves no runtime directory. */
START_TEST(test_bind_refused)
{
    char prefix[64], dir[128], name[32], file[64], ctl[96], tcp[64], keys[64], want[512];
    const char *c = daemons[_i].component;
    int port = 20000 + (int)(getpid() % 20000);

    snprintf(prefix, sizeof(prefix), "--file-prefix=ebftest-bind%d", (int)getpid());
    snprintf(dir, sizeof(dir), RUNTIME "/ebftest-bind%d", (int)getpid());
    snprintf(name, sizeof(name), "--name=%s7", c);
    snprintf(file, sizeof(file), "/tmp/ebftest-bind%d.txt", (int)getpid());
    snprintf(ctl, sizeof(ctl), "--control=ipc://%s", file);
    snprintf(tcp, sizeof(tcp), "--metrics=tcp://127.0.0.1:%d", port);
    snprintf(keys, sizeof(keys), "--curve-keys=/tmp/ebftest-nokeys%d", (int)getpid());
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fputs("precious\n", f);
    fclose(f);
#define BIND_ARGS(extra, more)                                                          \
    {"--no-huge", "-m", "256", "--no-pci", prefix, "--vdev=net_null0", "--vdev=net_ring1", \
     "--", "--port=net_null0", daemons[_i].required, name, "--link-timeout=0", extra, more, \
     NULL}
    const char *on_file[] = BIND_ARGS(ctl, NULL);
    const char *plain[] = BIND_ARGS(tcp, NULL);
    const char *bad_keys[] = BIND_ARGS(tcp, keys);
#undef BIND_ARGS

    ck_assert_int_eq(run(_i, on_file), 1);
    snprintf(want, sizeof(want), "%s: refusing to bind 'ipc://%s': '%s' exists and is not a "
             "socket (an existing file is never replaced)\n", c, file, file);
    ck_assert_msg(strstr(err, want) != NULL, "no \"%s\" in: %s", want, err);
    slurp(file, out);
    ck_assert_str_eq(out, "precious\n");
    unlink(file);
    ck_assert_msg(!exists(dir), "%s is there", dir);

    ck_assert_int_eq(run(_i, plain), 1);
    snprintf(want, sizeof(want), "%s: refusing to bind 'tcp://127.0.0.1:%d' without keys: give "
             "--curve-keys DIR (made by 'ebfarm keygen DIR') or --insecure\n", c, port);
    ck_assert_msg(strstr(err, want) != NULL, "no \"%s\" in: %s", want, err);
    ck_assert_msg(!exists(dir), "%s is there", dir);

    ck_assert_int_eq(run(_i, bad_keys), 1);
    snprintf(want, sizeof(want), "%s: option '--curve-keys': cannot read the key "
             "'/tmp/ebftest-nokeys%d/server.key': No such file or directory\n", c, (int)getpid());
    ck_assert_msg(strstr(err, want) != NULL, "no \"%s\" in: %s", want, err);
    ck_assert_msg(!exists(dir), "%s is there", dir);
}
END_TEST

Suite *ebf_daemon_suite(void);

Suite *ebf_daemon_suite(void)
{
    Suite *s = suite_create("ebf_daemon");
    TCase *tc = tcase_create("daemon");
    int n = (int)(sizeof(daemons) / sizeof(daemons[0]));

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_help, 0, n);
    tcase_add_loop_test(tc, test_help_before_eal, 0, n);
    tcase_add_loop_test(tc, test_version, 0, n);
    tcase_add_loop_test(tc, test_refused, 0, n);
    tcase_add_loop_test(tc, test_log_lines, 0, n);
    tcase_add_loop_test(tc, test_error_line, 0, n);
    tcase_add_loop_test(tc, test_mtu_refused, 0, n);
    tcase_add_loop_test(tc, test_bind_refused, 0, n);
    tcase_add_test(tc, test_readout_jumbo);
    tcase_add_test(tc, test_node_ack_batch_mtu);
    suite_add_tcase(s, tc);
    return s;
}
