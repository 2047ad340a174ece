/* SPDX-License-Identifier: BSD-3-Clause */
/* test-summary.c - the run summary: processes by name, a killed node, exact text and JSON. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "farm_collect.h"
#include "farm_demo.h"
#include "farmfile.h"
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

/*
 * The lcore cycles of farm_of's processes at 2 GHz: the readout's one
 * lcore, the SFC's two (summed), node1's; node2 has none (a daemon before
 * the accounting), node0 is gone.
 */
static void cycles_of(struct farm_result *r)
{
    put(&r->readout, "lcore.busy_cycles.0", 1000000000);
    put(&r->readout, "lcore.idle_cycles.0", 3000000000);
    put(&r->readout, "lcore.busy_passes.0", 40);
    put(&r->readout, "lcore.idle_passes.0", 900);
    put(&r->readout, "tsc_hz", 2000000000);
    put(&r->sfc, "lcore.busy_cycles.0", 600000000);
    put(&r->sfc, "lcore.busy_cycles.1", 200000000);
    put(&r->sfc, "lcore.idle_cycles.0", 100);
    put(&r->sfc, "lcore.idle_cycles.1", 200);
    put(&r->sfc, "lcore.busy_passes.0", 30);
    put(&r->sfc, "lcore.busy_passes.1", 10);
    put(&r->sfc, "lcore.idle_passes.0", 5);
    put(&r->sfc, "lcore.idle_passes.1", 6);
    put(&r->sfc, "tsc_hz", 2000000000);
    put(&r->node[1].kv, "rx.frames", 4800);
    put(&r->node[1].kv, "lcore.busy_cycles.0", 333333333);
    put(&r->node[1].kv, "lcore.idle_cycles.0", 7);
    put(&r->node[1].kv, "lcore.busy_passes.0", 8);
    put(&r->node[1].kv, "lcore.idle_passes.0", 9);
    put(&r->node[1].kv, "tsc_hz", 2000000000);
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
        "           throttle.holds 2; throttle.held_ns 0; sfcs_gone 0; sfc_gone_frames 0; "
        "sfc.frames: none\n"
        "  sfc      rx.frames 8000; rx.reject: bad_checksum 3; rx.drop: duplicate 5; "
        "events.complete 1000;\n"
        "           events.incomplete 0; events.sent 0; tx.frames 0; ack.events 1000; "
        "missing.source: 3 4;\n"
        "           seq.gap: none; seq.reorder: none; seq.dup: none; seq.resync: none; "
        "late.source: none;\n"
        "           throttle.on 0; throttle.off 0; throttle.frames 0; throttle.tx_fail 0\n"
        "  node0    gone: no final counters (killed or crashed)\n"
        "  node1    rx.reject: bad_checksum 2; events 600; accepted 60; rejected 540; incomplete 0;\n"
        "           trigger.fail: none; trigger.slow 0; verify: bad_crc 1; events_bad 1\n"
        "  node2    rx.reject: none; events 400; accepted 40; rejected 360; incomplete 0; "
        "trigger.fail: none;\n"
        "           trigger.slow 0; verify: none; events_bad 0\n"
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
/* A farm of two readouts and two SFCs, sfc1 killed: a row per readout
 * with its own counts (not the readouts' sum, 2000 for 1000 generated) and
 * one per SFC, sfc1 named gone (before, only the ledger's line named it and
 * the sfc line showed the survivor alone). */
START_TEST(test_text_parts)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    c.nodes = 3;
    farm_of(&r);
    r.n_ro = 2;
    r.n_sfcs = 2;
    for (unsigned i = 0; i < 2; i++) {
        snprintf(r.ro[i].name, sizeof(r.ro[i].name), "ro%u", i);
        put(&r.ro[i].kv, "events", 1000);
        put(&r.ro[i].kv, "sfcs_gone", 1);
        snprintf(r.sfcs[i].name, sizeof(r.sfcs[i].name), "sfc%u", i);
    }
    put(&r.sfcs[0].kv, "rx.frames", 4000);
    r.sfcs[1].gone = 1;
    r.sfcs_gone = 1;
    char *t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "\n  ro0      events 1000; frames 0; ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\n  ro1      events 1000; frames 0; ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "; sfcs_gone 1; ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\n  sfc0     rx.frames 4000; ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\n  sfc1     gone: no final counters (killed or crashed)\n  node0 ")
                  != NULL, "%s", t);
    ck_assert_ptr_null(strstr(t, "\n  readout  "));
    ck_assert_ptr_null(strstr(t, "\n  sfc      "));
    free(t);
    farm_result_free(&r);
}
END_TEST

/* The common end: a line when the staged stop cut the run short, every
 * readout at one id, or each by name when they differ; none when
 * run.events ended the run (stop_at at or above it). */
START_TEST(test_text_stop_at)
{
    static const uint64_t at[][2] = {{8550, 8550}, {8550, 8551}, {1000, 1000}};
    static const char *const want[] = {
        "\n  stop     every readout ended before event 8550 (the staged stop's common end)\n",
        "\n  stop     readouts ended before: ro0 8550, ro1 8551\n",
        NULL,
    };

    for (unsigned k = 0; k < 3; k++) {
        struct farm_result r;
        struct farm_conf c;

        farm_conf_default(&c);
        c.events = k == 2 ? 1000 : 0;
        farm_of(&r);
        r.n_ro = 2;
        for (unsigned i = 0; i < 2; i++) {
            snprintf(r.ro[i].name, sizeof(r.ro[i].name), "ro%u", i);
            put(&r.ro[i].kv, "stop_at", at[k][i]);
        }
        char *t = text_of(&c, &r, 0);
        if (want[k])
            ck_assert_msg(strstr(t, want[k]) != NULL, "%u: %s", k, t);
        else
            ck_assert_msg(strstr(t, "\n  stop ") == NULL, "%u: %s", k, t);
        free(t);
        farm_result_free(&r);
    }
}
END_TEST

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
    ck_assert_msg(strstr(t, "throttle.held_ns 0; sfcs_gone 0; sfc_gone_frames 0; sfc.frames: none;\n"
                            "           fault.frames_in 8000; fault.dropped 80;") != NULL,
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
        "\"trigger_fail\": {}, \"trigger_slow\": 0, \"verify\": {\"bad_crc\": 1}, \"events_bad\": 1}, "
        "{\"name\": \"node2\", \"gone\": false, \"rx_reject\": {}, \"events\": 400, \"accepted\": 40, "
        "\"rejected\": 360, \"incomplete\": 0, \"trigger_fail\": {}, \"trigger_slow\": 0, "
        "\"verify\": {}, \"events_bad\": 0}],\n";
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

/* JSON: readouts[] and sfcs[], a row each by name in farm-file order: a
 * readout's sources, its own counters and where its run ended (next_event,
 * stop_at), an SFC's place and counters, a gone one named without any. */
START_TEST(test_json_parts)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    r.n_ro = 2;
    r.n_sfcs = 2;
    for (unsigned i = 0; i < 2; i++) {
        snprintf(r.ro[i].name, sizeof(r.ro[i].name), "ro%u", i);
        r.ro[i].first_source = (uint16_t)(4 * i);
        r.ro[i].n_sources = 4;
        put(&r.ro[i].kv, "events", 1000);
        put(&r.ro[i].kv, "next_event", 1000);
        put(&r.ro[i].kv, "stop_at", 1000);
        snprintf(r.sfcs[i].name, sizeof(r.sfcs[i].name), "sfc%u", i);
        r.sfcs[i].place = (int)i;
    }
    put(&r.sfcs[0].kv, "events.complete", 500);
    r.sfcs[1].gone = 1;
    r.sfcs_gone = 1;
    char *t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\n \"readouts\": [{\"name\": \"ro0\", \"gone\": false, "
                            "\"first_source\": 0, \"n_sources\": 4, \"events\": 1000, "
                            "\"frames\": 0, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"fault_dropped_source\": {}, \"next_event\": 1000, \"stop_at\": "
                            "1000}, {\"name\": \"ro1\", \"gone\": false, \"first_source\": 4, "
                            "\"n_sources\": 4, \"events\": 1000, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\n \"sfcs\": [{\"name\": \"sfc0\", \"gone\": false, \"place\": 0, "
                            "\"rx_frames\": 0, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"events_complete\": 500, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "}, {\"name\": \"sfc1\", \"gone\": true, \"place\": 1}],\n")
                  != NULL, "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

#define SHA "45238f7a60cf40937f1c9faa57a030c837d40d9ecd572ca8eef134ce535f3709"

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void identify(struct farm_result *r)
{
    snprintf(r->id.farm, sizeof(r->id.farm), "clitest");
    r->id.run = 42;
    r->id.start_ms = 1748779200123;      /* 2025-06-01T12:00:00.123Z */
    r->id.stop_ms = 1748779263004;
    snprintf(r->id.farm_file_sha256, sizeof(r->id.farm_file_sha256), SHA);
}

/* Which run: farm, run number, start and stop in UTC, the farm file's hash. */
START_TEST(test_run_identity)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    identify(&r);
    char *t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, " 2 nodes\n"
                            "  run      farm clitest, run 42, 2025-06-01T12:00:00.123Z to "
                            "2025-06-01T12:01:03.004Z\n"
                            "           farm file sha256 " SHA "\n"
                            "  readout  events 1000;") != NULL, "%s", t);
    free(t);
    t = text_of(&c, &r, 1);
    ck_assert_msg(starts(t, "{\"run\": {\"farm\": \"clitest\", \"run\": 42, \"start_utc\": "
                            "\"2025-06-01T12:00:00.123Z\", \"stop_utc\": "
                            "\"2025-06-01T12:01:03.004Z\", \"farm_file_sha256\": \"" SHA "\"},\n"
                            " \"ledger\": {\"generated\": 1000, "), "%s", t);
    free(t);
    /* Not known: said so, null in JSON. */
    memset(&r.id, 0, sizeof(r.id));
    t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "  run      farm unknown, run unknown, unknown to unknown\n"
                            "           farm file sha256 unknown\n") != NULL, "%s", t);
    free(t);
    t = text_of(&c, &r, 1);
    ck_assert_msg(starts(t, "{\"run\": {\"farm\": null, \"run\": null, \"start_utc\": null, "
                            "\"stop_utc\": null, \"farm_file_sha256\": null},\n \"ledger\": "),
                  "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

/* A farm: ro0 and sfc0 on `here`, node0 on h0, node1 and node2 on h1,
 * h2 (every node on `here` when together). */
static void hosts_of(int together, struct farm_result *r)
{
    static struct farm_spec spec;
    char yaml[2048], err[1024];
    int o = snprintf(yaml, sizeof(yaml),
        "farm: apart\n"
        "hosts:\n  - {name: here, local: true}\n  - {name: h0, ssh: h0.example.org}\n"
        "  - {name: h1, ssh: 10.0.0.1}\n"
        "readouts:\n  - {name: ro0, host: here, port: memif:a, mac: 02:00:00:00:00:01, "
        "sfcs: [sfc0]}\n"
        "sfcs:\n  - {name: sfc0, host: here, port: memif:a, mac: 02:00:00:00:00:02}\n"
        "nodes:\n");
    for (unsigned i = 0; i < 3; i++)
        o += snprintf(yaml + o, sizeof(yaml) - (size_t)o,
                      "  - {name: node%u, host: %s, sfc: sfc0, port: 'net_af_packet%u,iface=e%u',"
                      " sfc_port: 'net_af_packet9,iface=s', mac: 02:00:00:00:01:0%u}\n", i,
                      together ? "here" : i ? "h1" : "h0", i, i, i);
    ck_assert_msg(farm_spec_parse(yaml, (size_t)o, "apart.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    farm_result_hosts(&spec, r);
}

/* The end-to-end latency only from nodes on their readouts' host, and the
 * clock of each latency said. */
START_TEST(test_latency_clocks)
{
    struct farm_result r;
    struct farm_conf c;
    char *t;

    farm_conf_default(&c);
    farm_of(&r);
    put(&r.node[1].kv, "hist.e2e_ns.count", 5);
    put(&r.node[2].kv, "hist.e2e_ns.count", 7);
    hosts_of(1, &r);
    ck_assert(!r.node[0].apart && !r.node[1].apart && !r.node[2].apart);
    t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "  latency  build p50 0.0 us p99 0.0 us (clock: realtime, "
                            "readout to SFC, "
                            "one host)\n"
                            "           end-to-end p50 0.0 us p99 0.0 us max 0.0 us (clock: "
                            "realtime, one host)\n") != NULL, "%s", t);
    free(t);
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"end_to_end\": {\"count\": 12, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"end_to_end_nodes_apart\": 0, \"build_sfcs_apart\": 0, \"clock\": {\"build\": "
                            "\"realtime, readout to SFC, one "
                            "host\", \"end_to_end\": \"realtime, one host\"}}}\n") != NULL,
                  "%s", t);
    free(t);

    /* Every node away from the readout: not computed. */
    hosts_of(0, &r);
    ck_assert(r.node[0].apart && r.node[1].apart && r.node[2].apart);
    t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "(clock: realtime, readout to SFC, one host)\n"
                            "           end-to-end not computed (clock: "
                            "none: the readouts of every node are on other hosts, whose clocks "
                            "share no base with its own)\n") != NULL, "%s", t);
    free(t);
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"end_to_end\": null, \"end_to_end_nodes_apart\": 3, \"build_sfcs_apart\": 0, \"clock\": "
                            "{\"build\": \"realtime, readout to SFC, one host\", "
                            "\"end_to_end\": \"none: the "
                            "readouts of every node are on other hosts, whose clocks share no "
                            "base with its own\"}}}\n") != NULL, "%s", t);
    free(t);

    /* node2 with its readout again: its latency alone, and said so. */
    r.node[2].apart = 0;
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"end_to_end\": {\"count\": 7, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"end_to_end_nodes_apart\": 2, \"build_sfcs_apart\": 0, \"clock\": {\"build\": "
                            "\"realtime, readout to SFC, one "
                            "host\", \"end_to_end\": \"realtime, one host; 1 of 3 nodes, the "
                            "readouts of the others are on other hosts\"}}}\n") != NULL, "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

/* Two SFCs fed by ro0 on host `ro` (net: a namespace of this machine,
 * far: an ssh host), sfc0 on `ro`'s host, sfc1 on this machine. */
static void sfcs_of(const char *ro_host, struct farm_result *r)
{
    static struct farm_spec spec;
    char yaml[2048], err[1024];
    int o = snprintf(yaml, sizeof(yaml),
        "farm: apart\n"
        "hosts:\n  - {name: here, local: true}\n  - {name: ns, netns: ebf-ns}\n"
        "  - {name: far, ssh: 10.0.0.1}\n"
        "readouts:\n  - {name: ro0, host: %s, port: 'net_af_packet0,iface=r', "
        "mac: 02:00:00:00:00:01, sfcs: [sfc0, sfc1]}\n"
        "sfcs:\n  - {name: sfc0, id: 0, host: %s, port: 'net_af_packet1,iface=s0', "
        "mac: 02:00:00:00:00:02}\n"
        "  - {name: sfc1, id: 1, host: here, port: 'net_af_packet2,iface=s1', "
        "mac: 02:00:00:00:00:03}\n"
        "nodes:\n"
        "  - {name: node0, host: %s, sfc: sfc0, port: 'net_af_packet3,iface=n0', "
        "sfc_port: 'net_af_packet4,iface=t0', mac: 02:00:00:00:01:00}\n"
        "  - {name: node1, host: here, sfc: sfc1, port: 'net_af_packet5,iface=n1', "
        "sfc_port: 'net_af_packet6,iface=t1', mac: 02:00:00:00:01:01}\n",
        ro_host, ro_host, ro_host);
    ck_assert_msg(farm_spec_parse(yaml, (size_t)o, "apart.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    ck_assert_msg(farm_spec_check(&spec, err, sizeof(err)) == 0, "%s", err);
    farm_result_hosts(&spec, r);
}

/* The build time only from SFCs whose readouts share their clock; a
 * namespace of this machine shares it, an ssh host does not. */
START_TEST(test_build_clock_per_sfc)
{
    struct farm_result r;
    struct farm_conf c;
    char *t;

    farm_conf_default(&c);
    farm_of(&r);
    r.n_sfcs = 2;
    snprintf(r.sfcs[0].name, sizeof(r.sfcs[0].name), "sfc0");
    snprintf(r.sfcs[1].name, sizeof(r.sfcs[1].name), "sfc1");
    put(&r.sfc, "hist.build_ns.count", 12);
    put(&r.sfcs[0].kv, "hist.build_ns.count", 5);
    put(&r.sfcs[1].kv, "hist.build_ns.count", 7);

    sfcs_of("ns", &r);           /* every process on this machine */
    ck_assert(!r.sfcs[0].apart && !r.sfcs[1].apart);
    ck_assert(!r.node[0].apart && !r.node[1].apart);
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"build\": {\"count\": 12, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"build_sfcs_apart\": 0, \"clock\": {\"build\": \"realtime, "
                            "readout to SFC, one host\", ") != NULL, "%s", t);
    free(t);

    sfcs_of("far", &r);          /* ro0 far away: sfc1 (here) compares two clocks */
    ck_assert(!r.sfcs[0].apart && r.sfcs[1].apart);
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"build\": {\"count\": 5, ") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\"build_sfcs_apart\": 1, \"clock\": {\"build\": \"realtime, "
                            "readout to SFC, one host; 1 of 2 SFCs, the readouts of the others "
                            "are on other hosts\", ") != NULL, "%s", t);
    free(t);

    r.sfcs[0].apart = 1;         /* none left: not computed, null */
    t = text_of(&c, &r, 0);
    ck_assert_msg(strstr(t, "  latency  build not computed (clock: none: the readouts of every "
                            "SFC are on other hosts, whose clocks share no base with its "
                            "own)\n") != NULL, "%s", t);
    free(t);
    t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"latency_ns\": {\"build\": null, ") != NULL, "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

/*
 * Per-core capacity, worked by hand: readout 1e9 busy cycles at 2 GHz are
 * 0.5 s, 8000 frames and 1000 events in them 16000 and 2000 per busy
 * second, 125000 and 1e6 cycles each; the SFC's two lcores 0.4 s over 8000
 * frames and no event sent; node1 333333333 cycles over 4800 frames and
 * 600 events; node2 without cycles and node0 gone.
 */
START_TEST(test_text_capacity)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    cycles_of(&r);
    char *t = text_of(&c, &r, 0);
    static const char want[] =
        "  busy     process     busy s   frames/busy s   "
        "events/busy s   cycles/frame   cycles/event\n"
        "           readout      0.500           16000   "
        "         2000       125000.0      1000000.0\n"
        "           sfc          0.400           20000   "
        "            0       100000.0              -\n"
        "           node0     gone: no final counters\n"
        "           node1        0.167           28800   "
        "         3600        69444.4       555555.6\n"
        "           node2            -               -   "
        "            -              -              -\n"
        "  latency  ";
    ck_assert_msg(strstr(t, want) != NULL, "%s", t);
    free(t);
    farm_result_free(&r);
}
END_TEST

START_TEST(test_json_capacity)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    cycles_of(&r);
    char *t = text_of(&c, &r, 1);
    /* reals rounded as in the text, written without trailing zeros */
    static const char want[] =
        " \"capacity\": {\"readout\": {\"busy_cycles\": 1000000000, \"idle_cycles\": 3000000000, "
        "\"busy_passes\": 40, \"idle_passes\": 900, \"tsc_hz\": 2000000000, \"frames\": 8000, "
        "\"events\": 1000, \"busy_s\": 0.5, \"frames_per_busy_s\": 16000, "
        "\"events_per_busy_s\": 2000, \"cycles_per_frame\": 125000.0, "
        "\"cycles_per_event\": 1000000.0}, "
        "\"sfc\": {\"busy_cycles\": 800000000, \"idle_cycles\": 300, \"busy_passes\": 40, "
        "\"idle_passes\": 11, \"tsc_hz\": 2000000000, \"frames\": 8000, \"events\": 0, "
        "\"busy_s\": 0.4, \"frames_per_busy_s\": 20000, \"events_per_busy_s\": 0, "
        "\"cycles_per_frame\": 100000.0, \"cycles_per_event\": null}, "
        "\"nodes\": [{\"name\": \"node0\", \"gone\": true}, "
        "{\"name\": \"node1\", \"gone\": false, \"busy_cycles\": 333333333, \"idle_cycles\": 7, "
        "\"busy_passes\": 8, \"idle_passes\": 9, \"tsc_hz\": 2000000000, \"frames\": 4800, "
        "\"events\": 600, \"busy_s\": 0.166667, \"frames_per_busy_s\": 28800, "
        "\"events_per_busy_s\": 3600, \"cycles_per_frame\": 69444.4, "
        "\"cycles_per_event\": 555555.6}, "
        "{\"name\": \"node2\", \"gone\": false, \"busy_cycles\": 0, \"idle_cycles\": 0, "
        "\"busy_passes\": 0, \"idle_passes\": 0, \"tsc_hz\": null, \"frames\": 0, "
        "\"events\": 400, \"busy_s\": null, \"frames_per_busy_s\": null, "
        "\"events_per_busy_s\": null, \"cycles_per_frame\": null, "
        "\"cycles_per_event\": null}]},\n"
        " \"latency_ns\": ";
    ck_assert_msg(strstr(t, want) != NULL, "%s", t);
    /* after the rates */
    ck_assert_ptr_nonnull(strstr(t, "\"payload_gbit_per_s\": 0.0},\n \"capacity\": "));
    free(t);
    farm_result_free(&r);
}
END_TEST

/* An SFC's link cycles (ebfarm bench's split of sfc_cycles) close its
 * capacity object when its counters have them. */
START_TEST(test_json_capacity_link)
{
    struct farm_result r;
    struct farm_conf c;

    farm_conf_default(&c);
    farm_of(&r);
    cycles_of(&r);
    put(&r.sfc, "link.rx_cycles", 300000000);
    put(&r.sfc, "link.tx_cycles", 200000001);
    char *t = text_of(&c, &r, 1);
    ck_assert_msg(strstr(t, "\"cycles_per_frame\": 100000.0, \"cycles_per_event\": null, "
                            "\"link_rx_cycles\": 300000000, \"link_tx_cycles\": 200000001}, "
                            "\"nodes\": [") != NULL, "%s", t);
    ck_assert_ptr_null(strstr(t, "link.rx_cycles"));    /* not a summary counter */
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
    tcase_add_test(tc, test_text_parts);
    tcase_add_test(tc, test_text_faults);
    tcase_add_test(tc, test_text_stop_at);
    tcase_add_test(tc, test_json_names_nodes);
    tcase_add_test(tc, test_json_parts);
    tcase_add_test(tc, test_run_identity);
    tcase_add_test(tc, test_latency_clocks);
    tcase_add_test(tc, test_build_clock_per_sfc);
    tcase_add_test(tc, test_text_capacity);
    tcase_add_test(tc, test_json_capacity);
    tcase_add_test(tc, test_json_capacity_link);
    suite_add_tcase(s, tc);
    return s;
}
