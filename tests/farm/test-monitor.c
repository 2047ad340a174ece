/* SPDX-License-Identifier: BSD-3-Clause */
/* test-monitor.c - ebfarm top --once and the Prometheus exporter on a live farm, checked by promtool. */
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * One farm for the test case (an unchecked fixture, in the parent): the
 * demo farm file running until stopped at 5000 events/s, in a run
 * directory of its own, with the exporter serving on a port the kernel
 * picked. Teardown stops the exporter and takes the farm down.
 */
#define FARM "monitor"
#define RATE 5000

static char run_dir[128], ebfarm[512], setup_error[512];
static pid_t exporter = -1;
static unsigned port;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The demo farm with no event limit, a modest rate and its own name. */
static int write_farm_file(const char *path)
{
    const char *src = getenv("EBFARM_SOURCE_DIR");
    if (!src)
        return -1;
    return sh("sed -e 's/^farm: demo/farm: " FARM "/' -e 's/^  events: .*/  events: 0/' "
              "-e 's/^  rate: .*/  rate: %d/' %s/farms/demo.yaml > %s",
              RATE, src, path);
}

/* Start the exporter; its first line names the port. */
static int start_exporter(void)
{
    int fd[2];
    char line[256] = "";

    if (pipe(fd) != 0)
        return -1;
    exporter = fork();
    if (exporter == 0) {
        dup2(fd[1], STDOUT_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl(ebfarm, "ebfarm", "metrics", "--prometheus", "--farm", FARM, "--listen",
              "127.0.0.1:0", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    struct pollfd p = {.fd = fd[0], .events = POLLIN};
    size_t n = 0;
    while (n < sizeof(line) - 1 && !strchr(line, '\n') && poll(&p, 1, 5000) > 0) {
        ssize_t k = read(fd[0], line + n, sizeof(line) - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
        line[n] = '\0';
    }
    close(fd[0]);
    const char *at = strstr(line, "http://127.0.0.1:");
    if (exporter < 0 || !at || sscanf(at, "http://127.0.0.1:%u/metrics", &port) != 1) {
        snprintf(setup_error, sizeof(setup_error), "the exporter did not say its port: '%s'",
                 line);
        return -1;
    }
    return 0;
}

static void setup(void)
{
    char file[256];

    snprintf(run_dir, sizeof(run_dir), "/tmp/ebf-monitor-XXXXXX");
    snprintf(ebfarm, sizeof(ebfarm), "%s/tools/ebfarm", getenv("EBFARM_BUILD_DIR"));
    if (!mkdtemp(run_dir)) {
        snprintf(setup_error, sizeof(setup_error), "mkdtemp: %s", strerror(errno));
        return;
    }
    setenv("EBFARM_RUN_DIR", run_dir, 1);
    snprintf(file, sizeof(file), "%s/farm.yaml", run_dir);
    if (write_farm_file(file) != 0) {
        snprintf(setup_error, sizeof(setup_error), "cannot write %s from farms/demo.yaml", file);
        return;
    }
    if (sh("%s up %s > %s/up.log 2>&1", ebfarm, file, run_dir) != 0) {
        snprintf(setup_error, sizeof(setup_error), "ebfarm up failed; see %s/up.log", run_dir);
        sh("cat %s/up.log >&2", run_dir);
        return;
    }
    start_exporter();
}

static void teardown(void)
{
    if (exporter > 0) {
        kill(exporter, SIGTERM);
        waitpid(exporter, NULL, 0);
        exporter = -1;
    }
    if (run_dir[0]) {
        sh("%s down --farm " FARM " > /dev/null 2>&1", ebfarm);
        sh("rm -rf %s", run_dir);
    }
}

/* --- ebfarm top --once ---------------------------------------------------- */

START_TEST(test_top_once)
{
    char cmd[700], buf[8192], name[32], role[16], state[16], fr[16], ev[16], gb[16];
    unsigned run;
    size_t n = 0;

    ck_assert_msg(!setup_error[0], "%s", setup_error);
    snprintf(cmd, sizeof(cmd), "%s top --once --farm " FARM " 2>&1", ebfarm);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (n < sizeof(buf) - 1 && fgets(buf + n, (int)(sizeof(buf) - n), p))
        n += strlen(buf + n);
    ck_assert_int_eq(pclose(p), 0);
    static const char head[] =
        "farm " FARM ": 4 processes\n"
        "NAME         ROLE     STATE        RUN   FRAMES/S   EVENTS/S   GBIT/S\n";
    ck_assert_msg(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
    /* One line per process in farm order, each RUNNING run 1 with rates. */
    static const char *const procs[][2] = {
        {"sfc0", "sfc"}, {"node0", "node"}, {"node1", "node"}, {"ro0", "readout"},
    };
    const char *line = buf;
    for (unsigned i = 0; i < 4; i++) {
        char want[32];
        snprintf(want, sizeof(want), "\n%-12s ", procs[i][0]);
        line = strstr(line, want);
        ck_assert_msg(line != NULL, "no line for %s in:\n%s", procs[i][0], buf);
        line++;
        ck_assert_int_eq(sscanf(line, "%31s %15s %15s %u %15s %15s %15s", name, role, state, &run,
                                fr, ev, gb), 7);
        ck_assert_str_eq(role, procs[i][1]);
        ck_assert_str_eq(state, "RUNNING");
        ck_assert_uint_eq(run, 1);
        ck_assert_msg(strcmp(ev, "-") != 0 && strcmp(gb, "-") != 0, "%s", line);
    }
    /* The readout paces at RATE events/s: between half and 1.5 times that. */
    double rate = atof(ev) * (strchr(ev, 'k') ? 1e3 : 1);
    ck_assert_msg(rate >= RATE / 2 && rate <= RATE * 1.5, "readout events/s %s", ev);
    ck_assert_ptr_nonnull(strstr(buf, "    latency e2e last "));
    /* The SFC's per-node credits under the nodes' names, not their index. */
    ck_assert_msg(strstr(buf, "  credits node0:") && strstr(buf, " node1:"), "%s", buf);
    ck_assert_ptr_nonnull(strstr(buf, "\ntotals: generated "));
}
END_TEST

/* top --once at 40x10: the narrow header, every line within 40 columns,
 * the totals (wrapped when long), the dropped columns and detail lines
 * named, at most 10 lines. */
START_TEST(test_top_small)
{
    char cmd[700], buf[4096];
    size_t n = 0;
    unsigned lines = 0;

    ck_assert_msg(!setup_error[0], "%s", setup_error);
    snprintf(cmd, sizeof(cmd), "%s top --once --width 40 --height 10 --farm " FARM " 2>&1",
             ebfarm);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (n < sizeof(buf) - 1 && fgets(buf + n, (int)(sizeof(buf) - n), p)) {
        ck_assert_msg(strlen(buf + n) <= 41, "line over 40 columns: %s", buf + n);
        n += strlen(buf + n);
        lines++;
    }
    ck_assert_int_eq(pclose(p), 0);
    static const char head[] =
        "farm " FARM ": 4 processes\n"
        "NAME  STATE      FRAMES/S EVENTS/S\n"
        "sfc0  RUNNING  ";
    ck_assert_msg(strncmp(buf, head, strlen(head)) == 0, "%s", buf);
    static const char tail[] =
        "\ndropped columns: GBIT/S RUN ROLE\n"
        "dropped detail lines: queues, latency\n";
    ck_assert_msg(n > strlen(tail) && strcmp(buf + n - strlen(tail), tail) == 0, "%s", buf);
    ck_assert_msg(strstr(buf, "\ntotals: generated ") && strstr(buf, " lost "), "%s", buf);
    ck_assert_msg(lines == 9 || lines == 10, "%u lines:\n%s", lines, buf);
}
END_TEST

/* --- The exporter --------------------------------------------------------- */

/* GET path over HTTP/1.0; the whole response in a malloc'd string. */
/* Send the request line (and a Host header); the whole response. */
static char *http_request(const char *line)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    char req[256], *out = NULL;
    size_t len = 0, cap = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    int n = snprintf(req, sizeof(req), "%s\r\nHost: 127.0.0.1\r\n\r\n", line);
    ck_assert_int_eq(send(fd, req, (size_t)n, 0), n);
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        ssize_t k = recv(fd, out + len, cap - len - 1, 0);
        ck_assert_int_ge(k, 0);
        if (k == 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    out[len] = '\0';
    return out;
}

static char *http_get(const char *path)
{
    char line[128];

    snprintf(line, sizeof(line), "GET %s HTTP/1.0", path);
    return http_request(line);
}

/* The value of the sample line that starts with prefix (labels included). */
static double sample(const char *body, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *l = body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, prefix, n) == 0 && l[n] == ' ')
            return atof(l + n + 1);
    ck_abort_msg("no sample '%s'", prefix);
    return -1;
}

static unsigned count_lines(const char *body, const char *prefix)
{
    unsigned c = 0;
    size_t n = strlen(prefix);
    for (const char *l = body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        c += strncmp(l, prefix, n) == 0;
    return c;
}

/* Every # TYPE once, right after the # HELP of the same name. */
static void check_families(const char *body)
{
    for (const char *l = strstr(body, "# TYPE "); l; l = strstr(l + 1, "\n# TYPE ")) {
        if (*l == '\n')
            l++;
        char name[160], help[200], type[200];
        ck_assert_int_eq(sscanf(l, "# TYPE %159s", name), 1);
        snprintf(type, sizeof(type), "# TYPE %s ", name);
        snprintf(help, sizeof(help), "# HELP %s ", name);
        ck_assert_msg(count_lines(body, type) == 1, "%s more than once", type);
        ck_assert_msg(count_lines(body, help) == 1, "%s not exactly once", help);
    }
}

static char *wait_all_up(void)
{
    static const char *const up[] = {
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"} 1\n",
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"node0\"} 1\n",
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"node1\"} 1\n",
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"readout\",process=\"ro0\"} 1\n",
    };
    for (int tries = 0;; tries++) {
        char *r = http_get("/metrics");
        unsigned ok = 0;
        for (unsigned i = 0; i < 4; i++)
            ok += strstr(r, up[i]) != NULL;
        if (ok == 4 || tries == 40)
            return r;
        free(r);
        usleep(200000);
    }
}

static void check_histogram(const char *body, const char *inst)
{
    char le[160], p[200];
    double last = 0;
    unsigned n = 0;

    snprintf(le, sizeof(le), "ebfarm_e2e_seconds_bucket{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"%s\",le=",
             inst);
    for (const char *l = strstr(body, le); l; l = strstr(l + 1, le)) {
        double v = atof(strchr(l, ' ') + 1);
        ck_assert_msg(v >= last, "buckets not cumulative at %.80s", l);
        last = v;
        n++;
    }
    ck_assert_uint_ge(n, 2);
    ck_assert_uint_le(n, 33);
    snprintf(p, sizeof(p), "%s\"+Inf\"}", le);
    double inf = sample(body, p);
    snprintf(p, sizeof(p), "ebfarm_e2e_seconds_count{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"%s\"}", inst);
    ck_assert_double_eq(inf, sample(body, p));
    ck_assert_double_eq(inf, last);
    ck_assert_double_gt(inf, 0);
}

static void promtool(const char *body)
{
    char path[256], out[256];

    if (sh("command -v promtool > /dev/null") != 0) {
        fprintf(stderr, "test-monitor_farm: promtool not found (Debian package prometheus): "
                        "the exposition is not linted\n");
        return;
    }
    snprintf(path, sizeof(path), "%s/metrics.txt", run_dir);
    snprintf(out, sizeof(out), "%s/promtool.out", run_dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(body, f);
    fclose(f);
    ck_assert_int_eq(sh("promtool check metrics < %s > %s 2>&1", path, out), 0);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    char first[512] = "";
    ck_assert_msg(!fgets(first, sizeof(first), f), "promtool: %s", first);
    fclose(f);
}

START_TEST(test_prometheus)
{
    ck_assert_msg(!setup_error[0], "%s", setup_error);
    char *r = wait_all_up();
    ck_assert_msg(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0, "%.200s", r);
    ck_assert_ptr_nonnull(strstr(r, "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
    char *body = strstr(r, "\r\n\r\n") + 4;
    ck_assert_int_eq(atoi(strstr(r, "Content-Length: ") + 16), (int)strlen(body));
    check_families(body);
    static const char *const lines[] = {
        "# TYPE ebfarm_up gauge\n",
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"} 1\n",
        "ebfarm_up{farm=\"" FARM "\",run=\"1\",component=\"readout\",process=\"ro0\"} 1\n",
        "ebfarm_state{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",state=\"RUNNING\"} 1\n",
        "ebfarm_state{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"node1\",state=\"RUNNING\"} 1\n",
        "ebfarm_run_number{farm=\"" FARM "\",run=\"1\",component=\"readout\",process=\"ro0\"} 1\n",
        "# TYPE ebfarm_rx_frames_total counter\n",
        "# TYPE ebfarm_rx_reject_total counter\n",
        "ebfarm_rx_reject_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",reason=\"bad_checksum\"} 0\n",
        "ebfarm_rx_reject_total{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"node0\",reason=\"bad_checksum\"} 0\n",
        "# TYPE ebfarm_lost_total counter\n",
        "# TYPE ebfarm_node_credits gauge\n",
        "# TYPE ebfarm_mempool_in_use gauge\n",
        "# TYPE ebfarm_e2e_seconds histogram\n",
        "# TYPE ebfarm_build_seconds histogram\n",
        "# TYPE ebfarm_payload_bytes_total counter\n",
    };
    for (unsigned i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        ck_assert_msg(strstr(body, lines[i]) != NULL, "missing: %s", lines[i]);
    sample(body, "ebfarm_lost_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",reason=\"no_node\"}");
    sample(body, "ebfarm_node_credits{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",node=\"1\"}");
    sample(body, "ebfarm_mempool_in_use{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",pool=\"rx\"}");
    ck_assert_ptr_null(strstr(body, "digest"));
    ck_assert_ptr_null(strstr(body, "start_ns"));
    ck_assert_ptr_null(strstr(body, "first_event"));
    ck_assert_ptr_null(strstr(body, "ebfarm_ledger_"));
    /* One family per port counter, on every component, ports by role. */
    static const char *const port_fams[] = {"ipackets", "opackets", "ibytes", "obytes",
                                            "imissed", "ierrors", "oerrors", "rx_nombuf"};
    static const char *const ports[][3] = {
        {"readout", "ro0", "sfc"},   {"sfc", "sfc0", "readout"}, {"sfc", "sfc0", "node0"},
        {"sfc", "sfc0", "node1"},    {"node", "node0", "sfc"},   {"node", "node1", "sfc"},
    };
    for (unsigned f = 0; f < 8; f++) {
        char fam[64], s[192];
        snprintf(fam, sizeof(fam), "ebfarm_port_%s_total", port_fams[f]);
        snprintf(s, sizeof(s), "# TYPE %s counter\n", fam);
        ck_assert_msg(strstr(body, s) != NULL, "missing: %s", s);
        ck_assert_uint_eq(count_lines(body, fam), 6);       /* 6 ports, one sample each */
        for (unsigned k = 0; k < 6; k++) {
            snprintf(s, sizeof(s), "%s{farm=\"" FARM "\",run=\"1\",component=\"%s\",process=\"%s\",port=\"%s\"}", fam,
                     ports[k][0], ports[k][1], ports[k][2]);
            sample(body, s);
        }
    }
    ck_assert_ptr_null(strstr(body, "ebfarm_port_rx_rx_"));     /* no SFC-only spelling */
    ck_assert_ptr_null(strstr(body, "ebfarm_port_rx_ipackets"));
    /* What left one end of a link came in at the other, so far. */
    ck_assert_double_gt(sample(body, "ebfarm_port_opackets_total{farm=\"" FARM "\",run=\"1\",component=\"readout\","
                                     "process=\"ro0\",port=\"sfc\"}"), 0);
    ck_assert_double_gt(sample(body, "ebfarm_port_ipackets_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\","
                                     "process=\"sfc0\",port=\"readout\"}"), 0);
    ck_assert_double_gt(sample(body, "ebfarm_port_ipackets_total{farm=\"" FARM "\",run=\"1\",component=\"node\","
                                     "process=\"node1\",port=\"sfc\"}"), 0);
    /* Within one snapshot: decisions add up, acks add up, sends per node add up. */
    static const char *const nodes[] = {"node0", "node1"};
    double sent = 0;
    for (unsigned i = 0; i < 2; i++) {
        char e[128], a[128], j[128], s[128];
        snprintf(e, sizeof(e), "ebfarm_events_total{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"%s\"}", nodes[i]);
        snprintf(a, sizeof(a), "ebfarm_accepted_total{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"%s\"}", nodes[i]);
        snprintf(j, sizeof(j), "ebfarm_rejected_total{farm=\"" FARM "\",run=\"1\",component=\"node\",process=\"%s\"}", nodes[i]);
        snprintf(s, sizeof(s), "ebfarm_node_sent_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\",node=\"%u\"}", i);
        ck_assert_double_eq(sample(body, e), sample(body, a) + sample(body, j));
        ck_assert_double_gt(sample(body, e), 0);
        sent += sample(body, s);
        check_histogram(body, nodes[i]);
    }
    ck_assert_double_eq(sent, sample(body, "ebfarm_events_sent_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}"));
    ck_assert_double_eq(sample(body, "ebfarm_ack_events_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}"),
                        sample(body, "ebfarm_ack_accept_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}") +
                        sample(body, "ebfarm_ack_reject_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}"));
    promtool(body);
    /* A period later the counters have moved on. */
    double frames = sample(body, "ebfarm_rx_frames_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}");
    double events = sample(body, "ebfarm_events_total{farm=\"" FARM "\",run=\"1\",component=\"readout\",process=\"ro0\"}");
    usleep(1300000);
    char *r2 = http_get("/metrics");
    ck_assert_double_gt(sample(r2, "ebfarm_rx_frames_total{farm=\"" FARM "\",run=\"1\",component=\"sfc\",process=\"sfc0\"}"), frames);
    ck_assert_double_gt(sample(r2, "ebfarm_events_total{farm=\"" FARM "\",run=\"1\",component=\"readout\",process=\"ro0\"}"), events);
    free(r2);
    free(r);
}
END_TEST

START_TEST(test_http_paths)
{
    ck_assert_msg(!setup_error[0], "%s", setup_error);
    char *r = http_get("/");
    ck_assert_msg(strncmp(r, "HTTP/1.0 200 OK\r\n", 17) == 0, "%.100s", r);
    ck_assert_ptr_nonnull(strstr(r, "<a href=\"/metrics\">"));
    free(r);
    r = http_get("/nothing?x=1");
    ck_assert_str_eq(r, "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
                        "Content-Length: 14\r\nConnection: close\r\n\r\n404 Not Found\n");
    free(r);
    r = http_request("POST /metrics HTTP/1.1");
    ck_assert_str_eq(r, "HTTP/1.1 405 Method Not Allowed\r\n"
                        "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 23\r\n"
                        "Allow: GET, HEAD\r\nConnection: close\r\n\r\n405 Method Not Allowed\n");
    free(r);
    /* HEAD: the headers of a GET, no body. */
    r = http_request("HEAD /metrics HTTP/1.1");
    static const char head[] = "HTTP/1.1 200 OK\r\n"
                               "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                               "Content-Length: ";
    ck_assert_msg(strncmp(r, head, strlen(head)) == 0, "%.200s", r);
    char *end = strstr(r, "\r\nConnection: close\r\n\r\n");
    ck_assert_ptr_nonnull(end);
    ck_assert_str_eq(end + 23, "");
    ck_assert_uint_gt(strtoull(r + strlen(head), NULL, 10), 1000);
    free(r);
}
END_TEST

Suite *monitor_suite(void);

Suite *monitor_suite(void)
{
    Suite *s = suite_create("monitor_farm");
    TCase *tc = tcase_create("monitor_farm");

    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_top_once);
    tcase_add_test(tc, test_top_small);
    tcase_add_test(tc, test_prometheus);
    tcase_add_test(tc, test_http_paths);
    suite_add_tcase(s, tc);
    return s;
}
