/* SPDX-License-Identifier: BSD-3-Clause */
/* test-telemetry.c - DPDK telemetry on a stopped farm: /ebfarm/counters equal status --json's, /ethdev/list, telemetry: false. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "test-cli-rig.h"

/* node1 runs with telemetry: false: it has no socket. */
static const char farm_yaml[] =
    "farm: teltest\n"
    "defaults:\n"
    "  idle: backoff\n"
    "  memory_mb: 128\n"
    "  metrics_period_ms: 200\n"
    "run:\n"
    "  sources: 4\n"
    "  events: 5000\n"
    "  frag_size: 512\n"
    "  accept: 0.25\n"
    "  timeout_ms: 2000\n"
    "readouts:\n"
    "  - {name: ro0, port: 'memif:ro0-sfc0', mac: '02:eb:00:00:00:10', sfcs: [sfc0]}\n"
    "sfcs:\n"
    "  - {name: sfc0, id: 0, port: 'memif:ro0-sfc0', mac: '02:eb:00:00:00:01', memory_mb: 256}\n"
    "nodes:\n"
    "  - {name: node0, sfc: sfc0, port: 'memif:sfc0-node0', mac: '02:eb:00:00:02:00'}\n"
    "  - {name: node1, sfc: sfc0, port: 'memif:sfc0-node1', mac: '02:eb:00:00:02:01',\n"
    "     telemetry: false}\n";

#define MAX_KV 1024

struct kv {
    unsigned n;
    char key[MAX_KV][96];
    unsigned long long v[MAX_KV];
};

static struct cli_rig rig;
static char *const base = rig.base;
static char out[1 << 20];

/* Run "ebfarm ARGS" with the test's run directory; its output in out. */
static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

/*
 * The "key": number pairs of the flat JSON object that starts at obj
 * ('{'), appended to kv, '/' in keys read as '.'; keys starting with '_'
 * (telemetry's page marks) left out. Returns the end of the object.
 */
static const char *pairs(const char *obj, struct kv *kv)
{
    const char *p = obj + 1;

    ck_assert_int_eq(*obj, '{');
    while (*p && *p != '}') {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == '}')
            break;
        ck_assert_msg(*p == '"', "not a key at: %.60s", p);
        const char *k = ++p, *q = strchr(k, '"');
        ck_assert_ptr_nonnull(q);
        p = q + 1;
        while (*p == ':' || *p == ' ')
            p++;
        char *end;
        unsigned long long v = strtoull(p, &end, 10);
        ck_assert_msg(end != p, "no number for %.*s: %.40s", (int)(q - k), k, p);
        p = end;
        if (*k == '_')
            continue;
        ck_assert_uint_lt(kv->n, MAX_KV);
        snprintf(kv->key[kv->n], sizeof(kv->key[0]), "%.*s", (int)(q - k), k);
        for (char *c = kv->key[kv->n]; *c; c++)
            if (*c == '/')
                *c = '.';
        kv->v[kv->n++] = v;
    }
    return p;
}

/* The value of key in kv, or -1 (as unsigned) when absent. */
static unsigned long long lookup(const struct kv *kv, const char *key)
{
    for (unsigned i = 0; i < kv->n; i++)
        if (strcmp(kv->key[i], key) == 0)
            return kv->v[i];
    return ~0ull;
}

/* The process's counters in status --json (in out). */
static void status_counters(const char *name, struct kv *kv)
{
    char want[64];

    snprintf(want, sizeof(want), "{\"name\":\"%s\",", name);
    const char *p = strstr(out, want);
    ck_assert_msg(p != NULL, "no %s in %s", name, out);
    p = strstr(p, "\"counters\":");
    ck_assert_ptr_nonnull(p);
    kv->n = 0;
    pairs(p + strlen("\"counters\":"), kv);
}

/* The telemetry socket of the process with DPDK file prefix prefix. */
static void sock_path(const char *prefix, char *path, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;

    if (getuid() == 0)
        n = snprintf(path, len, "/var/run/dpdk/%s/dpdk_telemetry.v2", prefix);
    else
        n = snprintf(path, len, "%s/dpdk/%s/dpdk_telemetry.v2", xdg ? xdg : "/tmp", prefix);
    ck_assert_uint_lt((size_t)n, len);
}

/* A connection to the socket at path, its greeting read; -1 when none. */
static int tel_open(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char buf[4096];
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

    ck_assert_int_ge(fd, 0);
    ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
    ck_assert_int_gt(n, 0);
    buf[n] = '\0';
    ck_assert_msg(strstr(buf, "\"version\"") && strstr(buf, "\"max_output_len\":16384"),
                  "greeting: %s", buf);
    return fd;
}

/* cmd's reply on fd into reply (len bytes). */
static void tel_ask(int fd, const char *cmd, char *reply, size_t len)
{
    ck_assert_int_eq(send(fd, cmd, strlen(cmd), 0), (ssize_t)strlen(cmd));
    ssize_t n = recv(fd, reply, len - 1, 0);
    ck_assert_int_gt(n, 0);
    reply[n] = '\0';
}

/* Every page of /ebfarm/counters into kv; returns the number of pages. */
static unsigned tel_counters(int fd, struct kv *kv)
{
    static char reply[65536];
    char cmd[64];
    unsigned pages = 1;

    kv->n = 0;
    for (unsigned page = 0; page < pages; page++) {
        snprintf(cmd, sizeof(cmd), "/ebfarm/counters,,%u", page);
        tel_ask(fd, cmd, reply, sizeof(reply));
        ck_assert_msg(strncmp(reply, "{\"/ebfarm/counters\":{", 21) == 0, "%s", reply);
        pairs(reply + 20, kv);
        const char *p = strstr(reply, "\"_pages\":");
        if (p)
            pages = (unsigned)strtoul(p + 9, NULL, 10);
        ck_assert_uint_le(pages, 10);
    }
    return pages;
}

static void setup(void)
{
    cli_rig_init(&rig, "tel");
}

static void teardown(void)
{
    cli_rig_fini(&rig, "teltest");
}

/* The process names and file prefixes of farm.state. */
static unsigned read_state(char names[][64], char prefixes[][96], unsigned max)
{
    char path[128], line[1024], role[16], ctl[256], met[256];
    unsigned n = 0;
    int pid;

    snprintf(path, sizeof(path), "%s/teltest/farm.state", base);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no %s", path);
    while (fgets(line, sizeof(line), f) && n < max)
        if (sscanf(line, "proc %63s %15s %d %95s %255s %255s", names[n], role, &pid,
                   prefixes[n], ctl, met) == 6)
            n++;
    fclose(f);
    return n;
}

START_TEST(counters_as_status)
{
    static struct kv st, tel;
    static char reply[65536];
    char path[256], cmd[300], names[4][64], prefixes[4][96], want[512];
    static const char *const ethdevs[] = {"[0,1,2]", "[0]", NULL, "[0]"};
    static const char *const comps[] = {"sfc", "node", "node", "readout"};
    static const char *const procs[] = {"sfc0", "node0", "node1", "ro0"};

    ck_assert_ptr_nonnull(getenv("EBFARM_BUILD_DIR"));
    snprintf(path, sizeof(path), "%s/teltest.yaml", base);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(farm_yaml, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd), "up %s", path);
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    ck_assert_uint_eq(read_state(names, prefixes, 4), 4);

    /* Stopped once the readout finished: CONFIGURED, counters still. */
    for (int i = 0; i < 600 && !strstr(out, "\"finished\":true"); i++) {
        usleep(100000);
        ck_assert_int_eq(ebf("status --json"), 0);
    }
    ck_assert_msg(ebf("stop") == 0, "ebfarm stop: %s", out);
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(strstr(out, "\"generated\":5000,") != NULL, "%s", out);

    for (unsigned i = 0; i < 4; i++) {
        ck_assert_str_eq(names[i], procs[i]);
        sock_path(prefixes[i], path, sizeof(path));
        int fd = tel_open(path);
        if (!ethdevs[i]) {       /* node1: telemetry: false */
            ck_assert_msg(fd < 0, "%s has a telemetry socket", names[i]);
            continue;
        }
        ck_assert_msg(fd >= 0, "no telemetry socket %s", path);
        status_counters(names[i], &st);
        unsigned pages = tel_counters(fd, &tel);
        /* The SFC's ledger records take it past one reply (200 entries). */
        if (i == 0)
            ck_assert_msg(pages == 2, "%s: %u pages of %u counters", names[i], pages, tel.n);
        ck_assert_uint_gt(st.n, 20);
        ck_assert_msg(tel.n == st.n, "%s: %u counters by telemetry, %u by status", names[i],
                      tel.n, st.n);
        for (unsigned k = 0; k < st.n; k++)
            ck_assert_msg(lookup(&tel, st.key[k]) == st.v[k], "%s: %s is %llu by telemetry, "
                          "%llu by status", names[i], st.key[k], lookup(&tel, st.key[k]),
                          st.v[k]);
        if (i == 0) {            /* a prefix selects, '.' or '/' alike */
            tel_ask(fd, "/ebfarm/counters,events.complete", reply, sizeof(reply));
            ck_assert_str_eq(reply, "{\"/ebfarm/counters\":{\"events/complete\":5000}}");
            tel_ask(fd, "/ebfarm/gauges,table_free", reply, sizeof(reply));
            ck_assert_str_eq(reply, "{\"/ebfarm/gauges\":{\"table_free\":4096}}");
            tel_ask(fd, "/ebfarm/hist,build_ns", reply, sizeof(reply));
            ck_assert_msg(strncmp(reply, "{\"/ebfarm/hist\":{\"build_ns\":{\"count\":5000,\"p50\":",
                                  46) == 0, "%s", reply);
            tel_ask(fd, "/ebfarm/counters,,x", reply, sizeof(reply));
            ck_assert_str_eq(reply, "{\"/ebfarm/counters\":null}");
        }
        tel_ask(fd, "/ebfarm/info", reply, sizeof(reply));
        snprintf(want, sizeof(want), "\"component\":\"%s\",\"instance\":\"%s\",\"state\":"
                 "\"CONFIGURED\",\"run_number\":1,\"farm\":\"teltest\"", comps[i], names[i]);
        ck_assert_msg(strstr(reply, want) != NULL, "%s", reply);
        tel_ask(fd, "/ethdev/list", reply, sizeof(reply));
        snprintf(want, sizeof(want), "{\"/ethdev/list\":%s}", ethdevs[i]);
        ck_assert_str_eq(reply, want);
        close(fd);
    }
    /* The figures checked above are real: the SFC built every event. */
    status_counters("sfc0", &st);
    ck_assert_uint_eq(lookup(&st, "events.complete"), 5000);
}
END_TEST

Suite *telemetry_suite(void);

Suite *telemetry_suite(void)
{
    Suite *s = suite_create("telemetry");
    TCase *tc = tcase_create("telemetry");

    tcase_set_timeout(tc, 180);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, counters_as_status);
    suite_add_tcase(s, tc);
    return s;
}
