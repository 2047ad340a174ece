/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_curve.c - key directories and the ZAP handler: only listed client keys get an answer. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "ebf_curve.h"

static char dir[64], err[1024];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/ebf-curve-unit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "teardown: %s failed\n", cmd);
}

/* keygen's keys load on both sides; the server's public key is the one the
 * client expects, and the client's is the one the server lists. */
START_TEST(test_keygen_load)
{
    char keys[128];
    struct ebf_curve_server s;
    struct ebf_curve_client c;

    ck_assert_int_eq(ebf_curve_available(err, sizeof(err)), 1);
    snprintf(keys, sizeof(keys), "%s/k", dir);
    ck_assert_msg(ebf_curve_keygen(keys, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(ebf_curve_server_load(keys, &s, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(ebf_curve_client_load(keys, &c, err, sizeof(err)) == 0, "%s", err);
    ck_assert_uint_eq(s.n_clients, 1);
    ck_assert_str_eq(s.client[0], c.pub);
    ck_assert_str_eq(s.pub, c.server_pub);
    ck_assert_uint_eq(strlen(s.sec), 40);
    ck_assert_str_ne(s.sec, c.sec);
    ck_assert_int_eq(ebf_curve_applies("tcp://127.0.0.1:1"), 1);
    ck_assert_int_eq(ebf_curve_applies("ipc:///x"), 0);
}
END_TEST

/* What a key directory must hold, each refusal naming the file. */
START_TEST(test_refusals)
{
    char keys[128], path[192], want[512];
    struct ebf_curve_server s;
    struct ebf_curve_client c;

    snprintf(keys, sizeof(keys), "%s/k", dir);
    ck_assert_int_eq(ebf_curve_server_load(keys, &s, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot read the key '%s/server.key': No such file or "
             "directory", keys);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(ebf_curve_keygen(keys, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_curve_keygen(keys, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "cannot create '%s/server.key': File exists", keys);
    ck_assert_str_eq(err, want);

    snprintf(path, sizeof(path), "%s/client.key", keys);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a key\n", f);
    fclose(f);
    ck_assert_int_eq(ebf_curve_client_load(keys, &c, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "'%s' is not a CURVE key (40 Z85 characters; ebfarm keygen "
             "makes them)", path);
    ck_assert_str_eq(err, want);

    snprintf(path, sizeof(path), "%s/clients/client.pub", keys);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(ebf_curve_server_load(keys, &s, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "'%s/clients' holds no client key (NAME.pub): no tool could "
             "connect", keys);
    ck_assert_str_eq(err, want);
}
END_TEST

/* One request from a REQ client with keypair pub/sec expecting server
 * key spub: 1 when the echo came back within 1 s. */
static int ask(void *z, const char *ep, const char *spub, const char *pub, const char *sec)
{
    void *q = zmq_socket(z, ZMQ_REQ);
    int ms = 1000, zero = 0, got;
    char buf[8];

    zmq_setsockopt(q, ZMQ_RCVTIMEO, &ms, sizeof(ms));
    zmq_setsockopt(q, ZMQ_LINGER, &zero, sizeof(zero));
    if (spub) {
        zmq_setsockopt(q, ZMQ_CURVE_SERVERKEY, spub, 40);
        zmq_setsockopt(q, ZMQ_CURVE_PUBLICKEY, pub, 40);
        zmq_setsockopt(q, ZMQ_CURVE_SECRETKEY, sec, 40);
    }
    ck_assert_int_eq(zmq_connect(q, ep), 0);
    ck_assert_int_eq(zmq_send(q, "ping", 4, 0), 4);
    got = zmq_recv(q, buf, sizeof(buf), 0);
    zmq_close(q);
    return got == 4 && !memcmp(buf, "ping", 4);
}

/* Echo server thread: answer whatever comes on the REP socket. */
static void *echo(void *arg)
{
    char buf[8];
    int n;

    while ((n = zmq_recv(arg, buf, sizeof(buf), 0)) >= 0)
        zmq_send(arg, buf, (size_t)n, 0);
    zmq_close(arg);
    return NULL;
}

/* A CURVE REP server behind the ZAP handler: the listed client gets its
 * echo; no keys, an unlisted key or another server key get nothing, and
 * the handler counts the unlisted one. */
START_TEST(test_zap)
{
    char keys[128], ep[96], opub[41], osec[41];
    struct ebf_curve_server s;
    struct ebf_curve_client c;
    void *z = zmq_ctx_new(), *zs = zmq_ctx_new();
    pthread_t t;

    snprintf(keys, sizeof(keys), "%s/k", dir);
    ck_assert_int_eq(ebf_curve_keygen(keys, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_curve_server_load(keys, &s, err, sizeof(err)), 0);
    ck_assert_int_eq(ebf_curve_client_load(keys, &c, err, sizeof(err)), 0);
    ck_assert_int_eq(zmq_curve_keypair(opub, osec), 0);
    struct ebf_zap *zap = ebf_zap_start(zs, &s, err, sizeof(err));
    ck_assert_msg(zap != NULL, "%s", err);
    void *rep = zmq_socket(zs, ZMQ_REP);
    ck_assert_int_eq(ebf_curve_server_socket(rep, &s), 0);
    snprintf(ep, sizeof(ep), "ipc://%s/rep", dir);
    ck_assert_int_eq(zmq_bind(rep, ep), 0);
    ck_assert_int_eq(pthread_create(&t, NULL, echo, rep), 0);

    ck_assert_int_eq(ask(z, ep, c.server_pub, c.pub, c.sec), 1);
    ck_assert_uint_eq(ebf_zap_refused(zap), 0);
    ck_assert_int_eq(ask(z, ep, c.server_pub, opub, osec), 0);
    ck_assert_uint_ge(ebf_zap_refused(zap), 1);
    ck_assert_int_eq(ask(z, ep, NULL, NULL, NULL), 0);
    ck_assert_int_eq(ask(z, ep, opub, c.pub, c.sec), 0);
    ck_assert_int_eq(ask(z, ep, c.server_pub, c.pub, c.sec), 1);

    zmq_ctx_term(z);
    ebf_zap_stop(zap);
    zmq_ctx_shutdown(zs);           /* the echo thread's recv fails: it closes rep */
    pthread_join(t, NULL);
    zmq_ctx_term(zs);
}
END_TEST

Suite *ebf_curve_suite(void);

Suite *ebf_curve_suite(void)
{
    Suite *s = suite_create("ebf_curve");
    TCase *tc = tcase_create("curve");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_keygen_load);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_zap);
    suite_add_tcase(s, tc);
    return s;
}
