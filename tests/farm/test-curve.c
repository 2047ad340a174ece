/* SPDX-License-Identifier: BSD-3-Clause */
/* test-curve.c - a farm on tcp:// endpoints: only clients with the farm's keys reach its daemons. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "test-cli-rig.h"
#include "ebfarm.pb-c.h"
#include "node_decide.h"

#define EVENTS 20000

/* ro0 and sfc0 on tcp:// (127.0.0.1 only), node0 on the default ipc://. */
static const char farm_fmt[] =
    "farm: curvetest\n"
    "%s"
    "defaults:\n"
    "  idle: backoff\n"
    "  memory_mb: 128\n"
    "  metrics_period_ms: 200\n"
    "run:\n"
    "  sources: 4\n"
    "  events: 20000\n"
    "  frag_size: 512\n"
    "  accept: 0.25\n"
    "  timeout_ms: 2000\n"
    "readouts:\n"
    "  - name: ro0\n"
    "    port: memif:ro0-sfc0\n"
    "    mac: 02:eb:00:00:00:10\n"
    "    sfcs: [sfc0]\n"
    "    control: tcp://127.0.0.1:%d\n"
    "    metrics: tcp://127.0.0.1:%d\n"
    "sfcs:\n"
    "  - name: sfc0\n"
    "    id: 0\n"
    "    port: memif:ro0-sfc0\n"
    "    mac: 02:eb:00:00:00:01\n"
    "    memory_mb: 256\n"
    "    control: tcp://127.0.0.1:%d\n"
    "    metrics: tcp://127.0.0.1:%d\n"
    "nodes:\n"
    "  - name: node0\n"
    "    sfc: sfc0\n"
    "    port: memif:sfc0-node0\n"
    "    mac: 02:eb:00:00:02:00\n";

static struct cli_rig rig;
static char *const base = rig.base;
static char out[65536];
static int port0;

/* Run "ebfarm ARGS" with the test's run directory; its output in out. */
static int ebf(const char *args)
{
    return cli_run(&rig, args, out, sizeof(out));
}

/* The farm file with head (keys or insecure) into base/curvetest.yaml. */
static void write_farm(const char *head)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/curvetest.yaml", base);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, farm_fmt, head, port0, port0 + 1, port0 + 2, port0 + 3);
    fclose(f);
}

/* A Z85 key from base/keys/name. */
static void key(const char *name, char k[41])
{
    char path[160];

    snprintf(path, sizeof(path), "%s/keys/%s", base, name);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    ck_assert_uint_eq(fread(k, 1, 40, f), 40);
    k[40] = '\0';
    fclose(f);
}

/*
 * One request cmd from a bare ZeroMQ REQ socket to tcp port: plain when
 * server_pub is NULL, else CURVE with that server key and the client
 * keypair pub/sec. The reply (caller frees) or NULL when none came within
 * 1.5 s.
 */
static Ebfarm__Reply *bare_request(int port, Ebfarm__Command cmd, const char *server_pub,
                                   const char *pub, const char *sec)
{
    void *z = zmq_ctx_new(), *s = zmq_socket(z, ZMQ_REQ);
    int ms = 1500, zero = 0;
    char ep[64];
    uint8_t buf[64], rep[65536];
    Ebfarm__Request rq = EBFARM__REQUEST__INIT;

    ck_assert_ptr_nonnull(s);
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &ms, sizeof(ms));
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    if (server_pub) {
        ck_assert_int_eq(zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_pub, 40), 0);
        ck_assert_int_eq(zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 40), 0);
        ck_assert_int_eq(zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 40), 0);
    }
    snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", port);
    ck_assert_int_eq(zmq_connect(s, ep), 0);
    rq.command = cmd;
    size_t n = ebfarm__request__pack(&rq, buf);
    ck_assert_int_eq(zmq_send(s, buf, n, 0), (int)n);
    int got = zmq_recv(s, rep, sizeof(rep), 0);
    zmq_close(s);
    zmq_ctx_term(z);
    return got < 0 ? NULL : ebfarm__reply__unpack(NULL, (size_t)got, rep);
}

/* Whether a SUB socket to tcp port gets a snapshot within 1.5 s (the
 * period is 200 ms), plain or with the keys as bare_request. */
static int bare_snapshot(int port, const char *server_pub, const char *pub, const char *sec)
{
    void *z = zmq_ctx_new(), *s = zmq_socket(z, ZMQ_SUB);
    int ms = 1500, zero = 0;
    char ep[64], buf[16];

    zmq_setsockopt(s, ZMQ_RCVTIMEO, &ms, sizeof(ms));
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(s, ZMQ_SUBSCRIBE, "", 0);
    if (server_pub) {
        zmq_setsockopt(s, ZMQ_CURVE_SERVERKEY, server_pub, 40);
        zmq_setsockopt(s, ZMQ_CURVE_PUBLICKEY, pub, 40);
        zmq_setsockopt(s, ZMQ_CURVE_SECRETKEY, sec, 40);
    }
    snprintf(ep, sizeof(ep), "tcp://127.0.0.1:%d", port);
    ck_assert_int_eq(zmq_connect(s, ep), 0);
    int got = zmq_recv(s, buf, sizeof(buf), 0);
    zmq_close(s);
    zmq_ctx_term(z);
    return got >= 0;
}

/* The readout finished its events (status, every 100 ms, at most 60 s). */
static void wait_finished(void)
{
    for (int i = 0; i < 600 && !strstr(out, "\"finished\":true"); i++) {
        usleep(100000);
        ck_assert_int_eq(ebf("status --json"), 0);
    }
    ck_assert_msg(strstr(out, "\"finished\":true") != NULL, "readout did not finish: %s", out);
}

/* The ledger of the run: every event decided, none lost, closed. */
static void assert_ledger(void)
{
    uint64_t accepts = 0;

    for (uint64_t e = 0; e < EVENTS; e++)
        accepts += (uint64_t)node_decide(e, 0, 0.25);
    ck_assert_uint_eq(json_u64(out, "generated"), EVENTS);
    ck_assert_uint_eq(json_u64(out, "accepted"), accepts);
    ck_assert_uint_eq(json_u64(out, "lost_total"), 0);
    ck_assert_msg(strstr(out, "\"closed\": true") != NULL, "%s", out);
}

/* Parent side, around the forked test: a fresh run directory and four
 * ports; whatever a failed test left up taken down. */
static void setup(void)
{
    cli_rig_init(&rig, "curve");
    port0 = cli_free_ports(4);
}

static void teardown(void)
{
    cli_rig_fini(&rig, "curvetest");
}

/* keygen's files; up, status, top and stop with the keys; a client without
 * them, with keys the farm does not know, or expecting another server
 * gets no answer and changes nothing: every process stays RUNNING and the
 * run's ledger closes. */
START_TEST(test_only_keys_get_through)
{
    char cmd[256], path[160], want[256], spub[41], cpub[41], csec[41], opub[41], osec[41];
    struct stat sb;

    snprintf(cmd, sizeof(cmd), "keygen %s/keys", base);
    ck_assert_msg(ebf(cmd) == 0, "%s", out);
    snprintf(want, sizeof(want), "keys in %s/keys: server.key server.pub client.key client.pub "
             "clients/client.pub\n", base);
    ck_assert_str_eq(out, want);
    static const char *const files[] = {"server.key", "server.pub", "client.key", "client.pub",
                                        "clients/client.pub"};
    for (unsigned i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/keys/%s", base, files[i]);
        ck_assert_int_eq(stat(path, &sb), 0);
        ck_assert_uint_eq(sb.st_mode & 0777, 0600);
        ck_assert_int_eq(sb.st_size, 41);
    }
    ck_assert_int_eq(ebf(cmd), 1);
    snprintf(want, sizeof(want), "ebfarm keygen: cannot create '%s/keys/server.key': File "
             "exists\n", base);
    ck_assert_str_eq(out, want);

    write_farm("keys: keys\n");
    snprintf(cmd, sizeof(cmd), "up %s/curvetest.yaml", base);
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    snprintf(path, sizeof(path), "%s/curvetest", base);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0700);
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, "\"state\":\"RUNNING\"") == 3, "%s", out);
    ck_assert_msg(!strstr(out, "insecure"), "%s", out);
    /* top subscribes with the keys: every process's two snapshots come. */
    ck_assert_msg(ebf("top --once") == 0, "ebfarm top: %s", out);

    key("server.pub", spub);
    key("client.pub", cpub);
    key("client.key", csec);
    ck_assert_int_eq(zmq_curve_keypair(opub, osec), 0);
    /* The bare client can talk: with the farm's keys it gets a status. */
    Ebfarm__Reply *r = bare_request(port0 + 2, EBFARM__COMMAND__STATUS, spub, cpub, csec);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->ok, 1);
    ck_assert_int_eq(r->status->state, EBFARM__STATE__RUNNING);
    ebfarm__reply__free_unpacked(r, NULL);
    ck_assert(bare_snapshot(port0 + 3, spub, cpub, csec));
    /* STOP without keys, with an unknown client key, expecting another server. */
    for (int p = port0; p <= port0 + 2; p += 2) {
        ck_assert_ptr_null(bare_request(p, EBFARM__COMMAND__STOP, NULL, NULL, NULL));
        ck_assert_ptr_null(bare_request(p, EBFARM__COMMAND__STOP, spub, opub, osec));
        ck_assert_ptr_null(bare_request(p, EBFARM__COMMAND__STOP, opub, cpub, csec));
        ck_assert(!bare_snapshot(p + 1, NULL, NULL, NULL));
        ck_assert(!bare_snapshot(p + 1, spub, opub, osec));
    }
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, "\"state\":\"RUNNING\"") == 3, "%s", out);

    wait_finished();
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    assert_ledger();
    ck_assert_msg(!strstr(out, "insecure"), "%s", out);
    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);
}
END_TEST

/* insecure: true: plain tcp://, said by status (text and JSON) and the
 * summary; a file with tcp:// and neither keys nor insecure is refused. */
START_TEST(test_insecure_is_shown)
{
    char cmd[256], want[512];

    write_farm("");
    snprintf(cmd, sizeof(cmd), "up %s/curvetest.yaml", base);
    ck_assert_int_eq(ebf(cmd), 1);
    snprintf(want, sizeof(want), "ebfarm up: farm file '%s/curvetest.yaml': key "
             "'readouts[0].control': \"tcp://127.0.0.1:%d\" is a tcp:// endpoint and the farm "
             "has no keys: give 'keys: DIR' (made by 'ebfarm keygen DIR') or 'insecure: true'\n",
             base, port0);
    ck_assert_str_eq(out, want);

    write_farm("insecure: true\n");
    ck_assert_msg(ebf(cmd) == 0, "ebfarm up: %s", out);
    ck_assert_int_eq(ebf("status"), 0);
    ck_assert_msg(strstr(out, ")\nINSECURE: tcp:// control and metrics without keys (insecure: "
                              "true in the farm file)\nNAME ") != NULL, "%s", out);
    ck_assert_int_eq(ebf("status --json"), 0);
    ck_assert_msg(count_of(out, ",\"insecure\":true,") == 1, "%s", out);
    Ebfarm__Reply *r = bare_request(port0 + 2, EBFARM__COMMAND__STATUS, NULL, NULL, NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->status->state, EBFARM__STATE__RUNNING);
    ebfarm__reply__free_unpacked(r, NULL);
    wait_finished();
    ck_assert_msg(ebf("stop --json") == 0, "ebfarm stop: %s", out);
    assert_ledger();
    ck_assert_msg(count_of(out, ", \"insecure\": true}") == 1, "%s", out);
    ck_assert_msg(ebf("down") == 0, "ebfarm down: %s", out);
}
END_TEST

/* keys: naming a directory that does not exist (or lacks a key) is refused
 * before anything starts, naming the farm file's key and `ebfarm keygen`. */
START_TEST(test_missing_keys_named)
{
    char cmd[256], want[1024];

    write_farm("keys: nokeys\n");
    snprintf(cmd, sizeof(cmd), "up %s/curvetest.yaml", base);
    ck_assert_int_eq(ebf(cmd), 1);
    snprintf(want, sizeof(want), "ebfarm up: %s/curvetest.yaml: key 'keys': cannot read the key "
             "'%s/nokeys/server.pub': No such file or directory: make the keys with 'ebfarm "
             "keygen %s/nokeys', or point 'keys:' at the directory that holds them (a relative "
             "path is taken from the farm file's directory)\n", base, base, base);
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(ebf("status"), 1);      /* nothing was started */
}
END_TEST

/* A test case of one test: its unchecked fixture gives it a run directory
 * and ports of its own. */
static void add_case(Suite *s, const char *name, const TTest *test)
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, 180);
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test);
    suite_add_tcase(s, tc);
}

Suite *curve_suite(void);

Suite *curve_suite(void)
{
    Suite *s = suite_create("curve");

    add_case(s, "keys", test_only_keys_get_through);
    add_case(s, "missing_keys", test_missing_keys_named);
    add_case(s, "insecure", test_insecure_is_shown);
    return s;
}
