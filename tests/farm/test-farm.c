/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm.c - whole-farm runs: readout, SFC and nodes as processes over memif, exact ledger. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "farm.h"
#include "node_decide.h"
#include "summary.h"

static void run(struct farm_conf *c, struct farm_result *r, struct ledger *l)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");
    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    c->build_dir = dir;
    /* Generous: a shared 2-core CI machine may deschedule the readout in the
     * middle of an event; the test asserts that no event goes incomplete. */
    c->timeout_ms = 2000;
    int rc = farm_run(c, r);
    ck_assert_msg(rc == 0, "farm run failed: %s", r->error);
    ledger_close(r, l);
}

static uint64_t sum_nodes(const struct farm_result *r, const char *key)
{
    uint64_t s = 0;
    for (unsigned i = 0; i < r->n_nodes; i++)
        s += ebf_kv_u64(&r->node[i].kv, key, UINT64_MAX / 64);
    return s;
}

static uint64_t expected_accepts(uint64_t events, double accept)
{
    uint64_t n = 0;
    for (uint64_t e = 0; e < events; e++)
        n += (uint64_t)node_decide(e, 0, accept);
    return n;
}

/* Every SFC reject and drop counter, and every node error counter, is 0. */
static void assert_no_errors(const struct farm_result *r)
{
    for (unsigned i = 0; i < r->sfc.n; i++) {
        const struct ebf_kv_pair *p = &r->sfc.pair[i];
        if (!strncmp(p->key, "rx.reject.", 10) || !strncmp(p->key, "rx.drop.", 8) ||
            !strncmp(p->key, "lost.", 5))
            ck_assert_msg(strcmp(p->val, "0") == 0, "sfc %s = %s", p->key, p->val);
    }
    for (unsigned n = 0; n < r->n_nodes; n++)
        for (unsigned i = 0; i < r->node[n].kv.n; i++) {
            const struct ebf_kv_pair *p = &r->node[n].kv.pair[i];
            if (!strncmp(p->key, "rx.reject.", 10) || !strncmp(p->key, "piece.reject.", 13) ||
                !strncmp(p->key, "rx.drop.", 8) || !strncmp(p->key, "verify.", 7) ||
                !strcmp(p->key, "events_bad") || !strcmp(p->key, "stopped_partial"))
                ck_assert_msg(strcmp(p->val, "0") == 0, "node%u %s = %s", n, p->key, p->val);
        }
}

/* The sum of the values of the labelled name in kv ("<name>.<lcore>"). */
static uint64_t sum_labelled(const struct ebf_kv *kv, const char *name)
{
    size_t n = strlen(name);
    uint64_t s = 0;

    for (unsigned i = 0; i < kv->n; i++)
        if (!strncmp(kv->pair[i].key, name, n) && kv->pair[i].key[n] == '.')
            s += strtoull(kv->pair[i].val, NULL, 10);
    return s;
}

/* Column col (0: the name) of the summary's busy-table line for who. */
static void busy_column(const char *text, const char *who, unsigned col, char *out, size_t len)
{
    char head[32];

    snprintf(head, sizeof(head), "\n           %-10s", who);
    const char *p = strstr(text, head);
    ck_assert_msg(p != NULL, "no busy line for %s in\n%s", who, text);
    p += 1;
    for (unsigned k = 0; k <= col; k++) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " \n");
        if (k == col)
            snprintf(out, len, "%.*s", (int)w, p);
        p += w;
    }
}

/*
 * A process's lcore cycles after the run: passes that did work; busy + idle
 * cycles at most the test's TSC span around the run, and at least the
 * readout's generation (start_ns to end_ns, inside every process's run;
 * converted at the process's tsc_hz, with 1% for the rate's estimate); and
 * the summary's cycles per frame and per event are busy cycles over frames
 * and events, as printed.
 */
static void check_cycles(const char *text, const char *who, const struct ebf_kv *kv,
                         const struct ebf_kv *ro, const char *frames_key,
                         const char *events_key, uint64_t span)
{
    uint64_t busy = sum_labelled(kv, "lcore.busy_cycles");
    uint64_t idle = sum_labelled(kv, "lcore.idle_cycles");
    uint64_t hz = ebf_kv_u64(kv, "tsc_hz", 0);
    uint64_t gen_ns = ebf_kv_u64(ro, "end_ns", 0) - ebf_kv_u64(ro, "start_ns", 0);
    double gen = (double)gen_ns * 1e-9 * (double)hz * 0.99;
    char want[32], got[32];

    ck_assert_uint_gt(sum_labelled(kv, "lcore.busy_passes"), 0);
    ck_assert_uint_gt(sum_labelled(kv, "lcore.idle_passes"), 0);
    ck_assert_uint_gt(hz, 0);
    ck_assert_msg(busy + idle <= span && (double)(busy + idle) >= gen,
                  "%s: busy %lu + idle %lu cycles outside [%.0f, %lu]", who,
                  (unsigned long)busy, (unsigned long)idle, gen, (unsigned long)span);
    snprintf(want, sizeof(want), "%.1f",
             (double)busy / (double)ebf_kv_u64(kv, frames_key, 0));
    busy_column(text, who, 4, got, sizeof(got));
    ck_assert_str_eq(got, want);
    snprintf(want, sizeof(want), "%.1f",
             (double)busy / (double)ebf_kv_u64(kv, events_key, 0));
    busy_column(text, who, 5, got, sizeof(got));
    ck_assert_str_eq(got, want);
}

static char *summary_of(const struct farm_conf *c, const struct farm_result *r,
                        const struct ledger *l)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    summary_text(f, c, r, l);
    fclose(f);
    return buf;
}

/* The acceptance run: 100000 events of 8 sources over 2 nodes. */
START_TEST(test_farm_100k_eth)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.events = 100000;
    uint64_t t0 = rte_rdtsc();
    run(&c, &r, &l);
    uint64_t span = rte_rdtsc() - t0;
    uint64_t frames = ebf_kv_u64(&r.readout, "frames", 0);
    ck_assert_uint_eq(l.generated, 100000);
    ck_assert_uint_eq(frames, 800000);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), frames);
    ck_assert_uint_eq(l.accepted + l.rejected, 100000);
    ck_assert_uint_eq(l.accepted, expected_accepts(100000, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert(l.digest_match);
    ck_assert(l.closed);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), 100000);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "ack.events", 0), 100000);
    ck_assert_uint_eq(sum_nodes(&r, "events"), 100000);
    ck_assert_uint_eq(sum_nodes(&r, "payload_bytes"), 100000ull * 8 * 1024);
    /* Both nodes took part: the credit queue balances the load. */
    ck_assert_uint_gt(ebf_kv_u64(&r.node[0].kv, "events", 0), 10000);
    ck_assert_uint_gt(ebf_kv_u64(&r.node[1].kv, "events", 0), 10000);
    assert_no_errors(&r);
    /* Busy cycles of every process, and the summary's figures from them. */
    char *text = summary_of(&c, &r, &l);
    check_cycles(text, "readout", &r.readout, &r.readout, "frames", "events", span);
    check_cycles(text, "sfc", &r.sfc, &r.readout, "rx.frames", "events.sent", span);
    for (unsigned i = 0; i < r.n_nodes; i++)
        check_cycles(text, r.node[i].name, &r.node[i].kv, &r.readout, "rx.frames", "events",
                     span);
    free(text);
    farm_result_free(&r);
}
END_TEST

/* UDP/IPv4, fragment sizes from 1 to 6000 bytes (multi-frame fragments),
 * three nodes. */
START_TEST(test_farm_udp_multiframe)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.events = 20000;
    c.sources = 5;
    c.nodes = 3;
    c.frag_min = 1;
    c.frag_max = 6000;
    c.udp = 1;
    c.accept = 0.25;
    run(&c, &r, &l);
    uint64_t frames = ebf_kv_u64(&r.readout, "frames", 0);
    ck_assert_uint_gt(frames, 20000ull * 5);        /* some fragments span frames */
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), frames);
    ck_assert_uint_eq(l.generated, 20000);
    ck_assert_uint_eq(l.accepted, expected_accepts(20000, c.accept));
    ck_assert_uint_eq(l.accepted + l.rejected, 20000);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert(l.closed);
    ck_assert_uint_eq(sum_nodes(&r, "payload_bytes"),
                      ebf_kv_u64(&r.readout, "payload_bytes", 1));
    assert_no_errors(&r);
    farm_result_free(&r);
}
END_TEST

/* Jumbo frames end to end: at MTU 9000 (memif links with 9024-byte
 * buffers, pools whose mbufs take a whole buffer) each 8000-byte fragment
 * travels in one frame, and each of its pieces in one event frame to the
 * nodes. */
START_TEST(test_farm_jumbo)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    const uint64_t events = 20000, frames = events * 8;

    farm_conf_default(&c);
    c.events = events;
    c.mtu = 9000;
    c.frag_min = c.frag_max = 8000;
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, events);
    ck_assert_uint_eq(l.accepted + l.rejected, events);
    ck_assert_uint_eq(l.accepted, expected_accepts(events, c.accept));
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.incomplete, 0);
    ck_assert(l.digest_match);
    ck_assert(l.closed);
    /* one frame per fragment: 14 + 40 + 8000 bytes each */
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "frames", 0), frames);
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "bytes", 0), frames * (14 + 40 + 8000));
    ck_assert_uint_eq(ebf_kv_u64(&r.readout, "tx_no_room", 1), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.frames", 0), frames);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.bytes", 0), frames * (14 + 40 + 8000));
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "rx.drop.multiseg", 1), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), events);
    /* 48 + 2 x (40 + 8000) bytes pass 9000: one piece per event frame */
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "tx.frames", 0), frames);
    ck_assert_uint_eq(sum_nodes(&r, "rx.frames"), frames);
    ck_assert_uint_eq(sum_nodes(&r, "events"), events);
    ck_assert_uint_eq(sum_nodes(&r, "payload_bytes"), frames * 8000);
    assert_no_errors(&r);
    farm_result_free(&r);
}
END_TEST

/* Node 0 is SIGKILLed mid-run: the SFC declares it dead after its node
 * timeout, its unacked events go to node 1; no event is lost, none is
 * decided twice in the ledger, the id records close. */
START_TEST(test_farm_node_killed)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.events = 40000;
    c.kill_node_after = 10000;
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, 40000);
    ck_assert_uint_eq(r.n_nodes, 2);            /* both ran, by name; node0 is gone */
    ck_assert_str_eq(r.node[0].name, "node0");
    ck_assert_int_eq(r.node[0].gone, 1);
    ck_assert_uint_eq(r.node[0].kv.n, 0);
    ck_assert_str_eq(r.node[1].name, "node1");
    ck_assert_int_eq(r.node[1].gone, 0);
    ck_assert_uint_eq(l.nodes_silent, 1);
    ck_assert_uint_eq(l.nodes_dead, 1);
    ck_assert_uint_ge(l.redispatched, 1);
    ck_assert_uint_le(l.redispatched, c.credits);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, 40000);
    ck_assert_uint_eq(l.accepted, expected_accepts(40000, c.accept));
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "ack.events", 0), 40000);
    ck_assert_uint_eq(ebf_kv_u64(&r.sfc, "events.complete", 0), 40000);
    ck_assert(l.digest_match);
    ck_assert(l.ids_match);
    ck_assert_uint_eq(l.n_missing + l.n_extra, 0);
    ck_assert(l.closed);
    /* the survivor decided what node 0 had not acked, each once */
    ck_assert_uint_eq(ebf_kv_u64(&r.node[1].kv, "dup_events", 1), 0);
    ck_assert_uint_eq(ebf_kv_u64(&r.node[1].kv, "events", 0),
                      40000 - ebf_kv_u64(&r.sfc, "node.acked.0", 0));
    farm_result_free(&r);
}
END_TEST

/* Node 0 is killed, declared dead, then started again: it rejoins with a
 * new epoch and takes events again; nothing is lost, the ledger closes. */
START_TEST(test_farm_node_restarts)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;

    farm_conf_default(&c);
    c.events = 60000;
    c.rate = 20000;                 /* 3 s: room for the timeout and the restart */
    c.kill_node_after = 8000;
    c.restart_after_ms = 300;       /* the kill waits for the node timeout */
    run(&c, &r, &l);
    ck_assert_uint_eq(l.generated, 60000);
    ck_assert_uint_eq(r.n_nodes, 2);
    ck_assert_str_eq(r.node[0].name, "node0");
    ck_assert_int_eq(r.node[0].gone, 0);         /* the restarted incarnation reported */
    ck_assert_uint_eq(l.nodes_dead, 1);
    ck_assert_uint_eq(l.rejoins, 1);
    ck_assert_uint_eq(l.lost_total, 0);
    ck_assert_uint_eq(l.accepted + l.rejected, 60000);
    ck_assert_uint_eq(l.accepted, expected_accepts(60000, c.accept));
    ck_assert(l.ids_match);
    ck_assert(l.closed);
    /* the new node 0 took part after its rejoin */
    ck_assert_uint_gt(ebf_kv_u64(&r.node[0].kv, "events", 0), 1000);
    farm_result_free(&r);
}
END_TEST

Suite *farm_suite(void);

Suite *farm_suite(void)
{
    Suite *s = suite_create("farm");
    TCase *tc = tcase_create("farm");

    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_farm_100k_eth);
    tcase_add_test(tc, test_farm_udp_multiframe);
    tcase_add_test(tc, test_farm_jumbo);
    tcase_add_test(tc, test_farm_node_killed);
    tcase_add_test(tc, test_farm_node_restarts);
    suite_add_tcase(s, tc);
    return s;
}
