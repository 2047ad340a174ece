/* SPDX-License-Identifier: BSD-3-Clause */
/* test-summary.c - the run summary: processes by name, a killed node, exact text and JSON. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "farm_collect.h"
#include "farm_demo.h"
#include "summary.h"

static void put(struct ebf_kv *kv, const char *key, uint64_t v)
{
    kv->pair = realloc(kv->pair, (kv->n + 1) * sizeof(kv->pair[0]));
    ck_assert_ptr_nonnull(kv->pair);
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
}

static void node(struct farm_result *r, const char *name, int gone)
{
    struct farm_node_result *n = &r->node[r->n_nodes++];

    snprintf(n->name, sizeof(n->name), "%s", name);
    n->gone = gone;
    r->nodes_silent += gone != 0;
}

/*
 * Three nodes ran; node0 was killed (no final counters), node1 and node2
 * report under their own names. The readout had no fault stage.
 */
static void farm_of(struct farm_result *r)
{
    memset(r, 0, sizeof(*r));
    put(&r->readout, "events", 1000);
    put(&r->readout, "frames", 8000);
    put(&r->readout, "bytes", 8400000);
    put(&r->readout, "tx_refused", 12);
    put(&r->readout, "first_event", 0);
    put(&r->readout, "throttle.holds", 2);
    put(&r->sfc, "rx.frames", 8000);
    put(&r->sfc, "rx.reject.truncated", 0);
    put(&r->sfc, "rx.reject.bad_checksum", 3);
    put(&r->sfc, "rx.drop.duplicate", 5);
    put(&r->sfc, "events.complete", 1000);
    put(&r->sfc, "ack.events", 1000);
    put(&r->sfc, "ack.accept", 100);
    put(&r->sfc, "ack.reject", 900);
    put(&r->sfc, "missing.source.3", 4);
    put(&r->sfc, "node.declared_dead", 1);
    node(r, "node0", 1);
    node(r, "node1", 0);
    put(&r->node[1].kv, "rx.reject.truncated", 0);
    put(&r->node[1].kv, "rx.reject.bad_checksum", 2);
    put(&r->node[1].kv, "events", 600);
    put(&r->node[1].kv, "accepted", 60);
    put(&r->node[1].kv, "rejected", 540);
    put(&r->node[1].kv, "verify.bad_crc", 1);
    put(&r->node[1].kv, "events_bad", 1);
    node(r, "node2", 0);
    put(&r->node[2].kv, "events", 400);
    put(&r->node[2].kv, "accepted", 40);
    put(&r->node[2].kv, "rejected", 360);
}

static char *text_of(const struct farm_conf *c, const struct farm_result *r, int json)
{
    struct ledger l;
    char *buf = NULL;
    size_t len = 0;

    ledger_close(r, &l);
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    if (json)
        summary_json(f, c, r, &l);
    else
        summary_text(f, c, r, &l);
    fclose(f);
    return buf;
}

/* Every process's lines, from the tables: the nodes by name, the killed one
 * said to be gone; no fault lines without faults. */
START_TEST(test_text_names_nodes)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    c.nodes = 3;
    farm_of(&r);
    char *t = text_of(&c, &r, 0);
    static const char want[] =
        "  readout  events 1000; frames 8000; bytes 8400000; tx_refused 12; tx_abandoned 0;\n"
        "           events_abandoned 0; rx.other 0; throttle.frames 0; throttle.stale 0; "
        "throttle.rejected 0;\n"
        "           throttle.holds 2; throttle.held_ns 0\n"
        "  sfc      rx.frames 8000; rx.reject: bad_checksum 3; rx.drop: duplicate 5; "
        "events.complete 1000;\n"
        "           events.incomplete 0; events.sent 0; tx.frames 0; ack.events 1000; "
        "missing.source: 3 4;\n"
        "           seq.gap: none; seq.reorder: none; seq.dup: none; late.source: none; "
        "throttle.on 0;\n"
        "           throttle.off 0; throttle.frames 0; throttle.tx_fail 0\n"
        "  node0    gone: no final counters (killed or crashed)\n"
        "  node1    rx.reject: bad_checksum 2; events 600; accepted 60; rejected 540; incomplete 0;\n"
        "           verify: bad_crc 1; events_bad 1\n"
        "  node2    rx.reject: none; events 400; accepted 40; rejected 360; incomplete 0; "
        "verify: none;\n"
        "           events_bad 0\n"
        "  ledger   generated 1000 = accepted 100 + rejected 900 + lost 0; incomplete 0\n";
    ck_assert_msg(strstr(t, want) != NULL, "%s", t);
    ck_assert_ptr_null(strstr(t, "faults"));
    ck_assert_ptr_null(strstr(t, "fault."));
    ck_assert_ptr_nonnull(strstr(t, "\n           incomplete by missing source: 3 4\n"));
    ck_assert_ptr_nonnull(strstr(t, "1 node(s) gave no counters, 0 restarted"));
    /* the processes' lines fit in 100 columns */
    for (const char *line = strstr(t, "  readout"); strncmp(line, "  ledger", 8) != 0;
         line = strchr(line, '\n') + 1)
        ck_assert_msg(strchr(line, '\n') - line <= 100, "too long: %.120s", line);
    free(t);
    farm_result_free(&r);
}
END_TEST

/* With faults the readout lists its fault stage's counters too. */
START_TEST(test_text_faults)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    snprintf(c.faults, sizeof(c.faults), "drop=0.01");
    farm_of(&r);
    put(&r.readout, "fault.frames_in", 8000);
    put(&r.readout, "fault.dropped", 80);
    put(&r.readout, "fault.dropped.source.0", 30);
    put(&r.readout, "fault.dropped.source.1", 50);
    char *t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "  faults   frame faults drop=0.01; silence none; no bursts; seed 1\n"
                            "  readout  events 1000;") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "throttle.held_ns 0; fault.frames_in 8000; fault.dropped 80;") != NULL,
                  "%s", t);
    ck_assert_msg(strstr(t, "fault.withheld_events 0;\n           fault.dropped.source: 0 30, 1 50\n"
                            "  sfc ") != NULL, "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

/* JSON: nodes[] by name, the gone one without counters; every object's keys
 * are the metric names with '_' for '.'. */
START_TEST(test_json_names_nodes)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    char *t = text_of(&c, &r, 1);
    static const char nodes[] =
        " \"nodes\": [{\"name\": \"node0\", \"gone\": true}, "
        "{\"name\": \"node1\", \"gone\": false, \"rx_reject\": {\"truncated\": 0, \"bad_checksum\": 2}, "
        "\"events\": 600, \"accepted\": 60, \"rejected\": 540, \"incomplete\": 0, "
        "\"verify\": {\"bad_crc\": 1}, \"events_bad\": 1}, "
        "{\"name\": \"node2\", \"gone\": false, \"rx_reject\": {}, \"events\": 400, \"accepted\": 40, "
        "\"rejected\": 360, \"incomplete\": 0, \"verify\": {}, \"events_bad\": 0}],\n";
    ck_assert_msg(strstr(t, nodes) != NULL, "%s", t);
    ck_assert_msg(strstr(t, " \"sfc\": {\"rx_frames\": 8000, \"rx_reject\": {\"truncated\": 0, "
                            "\"bad_checksum\": 3}, \"rx_drop\": {\"duplicate\": 5}, "
                            "\"events_complete\": 1000, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"ack_events\": 1000, \"missing_source\": {\"3\": 4}, \"seq_gap\": {}")
                  != NULL, "%s", t);
    ck_assert_msg(strstr(t, " \"readout\": {\"events\": 1000, \"frames\": 8000, \"bytes\": 8400000, "
                            "\"tx_refused\": 12, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"fault_frames_in\": 0, \"fault_dropped\": 0, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"fault_dropped_source\": {}},\n \"sfc\"") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"nodes_silent\": 1, \"nodes_agree\": null, \"closed\": ") != NULL,
                  "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

Suite *summary_suite(void);

Suite *summary_suite(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("summary");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_text_names_nodes);
    tcase_add_test(tc, test_text_faults);
    tcase_add_test(tc, test_json_names_nodes);
    suite_add_tcase(s, tc);
    return s;
}
