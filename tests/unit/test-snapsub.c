/* SPDX-License-Identifier: BSD-3-Clause */
/* test-snapsub.c - the snapshot subscription against publishers the test binds. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zmq.h>

#include "snapsub.h"

/*
 * Each test binds one ZMQ_XPUB socket per process on an ipc:// path in a
 * fresh directory and opens the subscription on a farm_state that points
 * at them. An XPUB socket sends as a PUB socket does, and also receives
 * each subscription: waiting for it before publishing means no snapshot is
 * lost to a subscriber that has not joined yet, so the counts are exact.
 */

#define N_PROCS 2
#define WAIT_MS 5000

static char dir[] = "/tmp/ebf-snapsub-XXXXXX";
static void *zctx, *pub[N_PROCS];
static struct farm_state st;
static struct snapsub ss;

/* A farm file like farms/demo.yaml with a metrics period of 250 ms. */
static void write_farm_file(const char *path)
{
    FILE *in = fopen(EBF_SOURCE_ROOT "/farms/demo.yaml", "r"), *out = fopen(path, "w");
    char line[512];

    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    while (fgets(line, sizeof(line), in))
        fputs(strstr(line, "metrics_period_ms:") ? "  metrics_period_ms: 250\n" : line, out);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
}

static void add_proc(const char *name, enum farm_role role, const char *metrics)
{
    struct farm_proc *p = &st.proc[st.n++];

    snprintf(p->name, sizeof(p->name), "%s", name);
    p->role = role;
    snprintf(p->metrics, sizeof(p->metrics), "%s", metrics);
}

static void setup(void)
{
    int zero = 0, timeout = WAIT_MS;
    char ep[sizeof(dir) + 16];

    /* Again each time: with CK_FORK=no every test runs in this process. */
    snprintf(dir, sizeof(dir), "/tmp/ebf-snapsub-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    memset(&st, 0, sizeof(st));
    snprintf(st.name, sizeof(st.name), "demo");
    snprintf(st.farm_file, sizeof(st.farm_file), "%s/farm.yaml", dir);
    write_farm_file(st.farm_file);
    zctx = zmq_ctx_new();
    ck_assert_ptr_nonnull(zctx);
    for (unsigned i = 0; i < N_PROCS; i++) {
        snprintf(ep, sizeof(ep), "ipc://%s/p%u.pub", dir, i);
        pub[i] = zmq_socket(zctx, ZMQ_XPUB);
        ck_assert_ptr_nonnull(pub[i]);
        ck_assert_int_eq(zmq_setsockopt(pub[i], ZMQ_LINGER, &zero, sizeof(zero)), 0);
        ck_assert_int_eq(zmq_setsockopt(pub[i], ZMQ_RCVTIMEO, &timeout, sizeof(timeout)), 0);
        ck_assert_int_eq(zmq_bind(pub[i], ep), 0);
        add_proc(i == 0 ? "sfc0" : "node0", i == 0 ? FARM_SFC : FARM_NODE, ep);
    }
}

static void teardown(void)
{
    char cmd[64];

    snapsub_close(&ss);
    for (unsigned i = 0; i < N_PROCS; i++)
        zmq_close(pub[i]);
    zmq_ctx_term(zctx);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Open the subscription and wait until both publishers have it: each gets
 * one subscription message, 0x01 and an empty topic (every message). */
static void open_and_join(void)
{
    char err[512] = "";
    unsigned char msg[8];

    ck_assert_msg(snapsub_open(&ss, &st, err, sizeof(err)) == 0, "%s", err);
    for (unsigned i = 0; i < N_PROCS; i++) {
        ck_assert_int_eq(zmq_recv(pub[i], msg, sizeof(msg), 0), 1);
        ck_assert_int_eq(msg[0], 1);
    }
}

/* Publish a snapshot from proc i, seq and run number as given. */
static void publish(unsigned i, uint64_t seq, uint32_t run)
{
    Ebfarm__Snapshot s = EBFARM__SNAPSHOT__INIT;
    uint8_t buf[256];

    s.component = (char *)(i == 0 ? "sfc" : "node");
    s.instance = st.proc[i].name;
    s.seq = seq;
    s.run_number = run;
    s.state = EBFARM__STATE__RUNNING;
    size_t n = ebfarm__snapshot__get_packed_size(&s);
    ck_assert_uint_le(n, sizeof(buf));
    ebfarm__snapshot__pack(&s, buf);
    ck_assert_int_eq(zmq_send(pub[i], buf, n, 0), (int)n);
}

/* Poll and take messages until proc i has taken `want` snapshots and
 * `bad` bad messages in all; returns the sum of what snapsub_recv said. */
static unsigned take_until(unsigned i, uint64_t want, uint64_t bad)
{
    zmq_pollitem_t items[N_PROCS];
    double end = snapsub_now() + WAIT_MS / 1000.0;
    unsigned got = 0;

    while ((ss.p[i].received < want || ss.p[i].bad < bad) && snapsub_now() < end) {
        snapsub_pollitems(&ss, items);
        ck_assert_int_ge(zmq_poll(items, N_PROCS, 50), 0);
        for (unsigned k = 0; k < N_PROCS; k++)
            if (items[k].revents & ZMQ_POLLIN)
                got += snapsub_recv(&ss, k);
    }
    ck_assert_uint_eq(ss.p[i].received, want);
    ck_assert_uint_eq(ss.p[i].bad, bad);
    return got;
}

START_TEST(test_open_names_endpoints_and_period)
{
    zmq_pollitem_t items[N_PROCS];

    open_and_join();
    ck_assert_uint_eq(ss.n, 2);
    ck_assert_str_eq(ss.p[0].name, "sfc0");
    ck_assert_str_eq(ss.p[0].component, "sfc");
    ck_assert_str_eq(ss.p[1].name, "node0");
    ck_assert_str_eq(ss.p[1].component, "node");
    ck_assert_double_eq_tol(ss.period_s, 0.25, 1e-12);
    snapsub_pollitems(&ss, items);
    for (unsigned i = 0; i < N_PROCS; i++) {
        ck_assert_ptr_eq(items[i].socket, ss.p[i].sub);
        ck_assert_int_eq(items[i].events, ZMQ_POLLIN);
        ck_assert_ptr_null(ss.p[i].cur);
        ck_assert_ptr_null(ss.p[i].prev);
        ck_assert_uint_eq(ss.p[i].received, 0);
        /* Nothing waiting: it returns at once with nothing. */
        ck_assert_uint_eq(snapsub_recv(&ss, i), 0);
        ck_assert_int_eq(snapsub_fresh(&ss, i, snapsub_now()), 0);
    }
}
END_TEST

START_TEST(test_recv_keeps_the_newest_two)
{
    open_and_join();
    publish(0, 1, 7);
    publish(0, 2, 7);
    publish(0, 3, 8);
    ck_assert_uint_eq(take_until(0, 3, 0), 3);
    ck_assert_ptr_nonnull(ss.p[0].cur);
    ck_assert_ptr_nonnull(ss.p[0].prev);
    ck_assert_uint_eq(ss.p[0].cur->seq, 3);
    ck_assert_uint_eq(ss.p[0].cur->run_number, 8);
    ck_assert_str_eq(ss.p[0].cur->instance, "sfc0");
    ck_assert_uint_eq(ss.p[0].prev->seq, 2);
    ck_assert_uint_eq(ss.p[0].prev->run_number, 7);
    /* The other process sent nothing and has nothing. */
    ck_assert_uint_eq(ss.p[1].received, 0);
    ck_assert_ptr_null(ss.p[1].cur);
    ck_assert_uint_eq(snapsub_recv(&ss, 1), 0);
    /* Each process's snapshots stay its own. */
    publish(1, 41, 8);
    ck_assert_uint_eq(take_until(1, 1, 0), 1);
    ck_assert_uint_eq(ss.p[1].cur->seq, 41);
    ck_assert_str_eq(ss.p[1].cur->component, "node");
    ck_assert_ptr_null(ss.p[1].prev);
    ck_assert_uint_eq(ss.p[0].received, 3);
    ck_assert_uint_eq(ss.p[0].cur->seq, 3);
}
END_TEST

START_TEST(test_bad_message_is_counted_and_skipped)
{
    /* Field 31 with wire type 7, which protobuf does not have. */
    static const uint8_t bad[] = {0xff, 0x01};

    ck_assert_ptr_null(ebfarm__snapshot__unpack(NULL, sizeof(bad), bad));
    open_and_join();
    publish(0, 5, 1);
    ck_assert_uint_eq(take_until(0, 1, 0), 1);
    ck_assert_int_eq(zmq_send(pub[0], bad, sizeof(bad), 0), (int)sizeof(bad));
    publish(0, 6, 1);
    ck_assert_uint_eq(take_until(0, 2, 1), 1);
    ck_assert_ptr_nonnull(ss.p[0].prev);
    ck_assert_uint_eq(ss.p[0].cur->seq, 6);
    ck_assert_uint_eq(ss.p[0].prev->seq, 5);
}
END_TEST

START_TEST(test_fresh_within_three_periods)
{
    open_and_join();
    publish(0, 1, 1);
    take_until(0, 1, 0);
    double at = ss.p[0].cur_at;
    ck_assert(at > 0 && at <= snapsub_now());
    ck_assert_int_eq(snapsub_fresh(&ss, 0, at), 1);
    /* 3 periods of 250 ms; the margin is for the sum's rounding. */
    ck_assert_int_eq(snapsub_fresh(&ss, 0, at + 0.75 - 1e-6), 1);
    ck_assert_int_eq(snapsub_fresh(&ss, 0, at + 0.75 + 1e-6), 0);
    ck_assert_int_eq(snapsub_fresh(&ss, 1, at), 0);
}
END_TEST

START_TEST(test_period_is_one_second_without_the_farm_file)
{
    snprintf(st.farm_file, sizeof(st.farm_file), "%s/gone.yaml", dir);
    open_and_join();
    ck_assert(ss.period_s == 1.0);
}
END_TEST

START_TEST(test_open_fails_on_a_bad_endpoint)
{
    char err[512] = "";

    snprintf(st.proc[1].metrics, sizeof(st.proc[1].metrics), "bogus://x");
    ck_assert_int_eq(snapsub_open(&ss, &st, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "node0: cannot subscribe to its metrics endpoint 'bogus://x': "
                          "Protocol not supported");
    /* Nothing is left open. */
    ck_assert_uint_eq(ss.n, 0);
    ck_assert_ptr_null(ss.zctx);
    ck_assert_ptr_null(ss.p[0].sub);
}
END_TEST

Suite *snapsub_suite(void);

Suite *snapsub_suite(void)
{
    Suite *s = suite_create("snapsub");
    TCase *tc = tcase_create("snapsub");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_open_names_endpoints_and_period);
    tcase_add_test(tc, test_recv_keeps_the_newest_two);
    tcase_add_test(tc, test_bad_message_is_counted_and_skipped);
    tcase_add_test(tc, test_fresh_within_three_periods);
    tcase_add_test(tc, test_period_is_one_second_without_the_farm_file);
    tcase_add_test(tc, test_open_fails_on_a_bad_endpoint);
    suite_add_tcase(s, tc);
    return s;
}
