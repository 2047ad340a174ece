/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farmfile.c - farm file tests: the example farms' values, bad files' exact messages. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebf_util.h"
#include "farmfile.h"
#include "farmfile_multi.h"

#ifndef EBF_SOURCE_ROOT
#error "EBF_SOURCE_ROOT: the source directory, for farms/*.yaml"
#endif

static struct farm_spec spec;   /* about 100 kB: not on the stack */
static char err[1024];

/* Load farms/<name> from the source tree; fails the test when it does not load. */
static void load_example(const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/farms/%s", EBF_SOURCE_ROOT, name);
    err[0] = '\0';
    ck_assert_msg(farm_spec_load(path, &spec, err, sizeof(err)) == 0, "%s", err);
}

static void assert_mac(const uint8_t mac[6], const char *want)
{
    char buf[18];

    ck_assert_str_eq(ebf_format_mac(mac, buf), want);
}

static void assert_port(const struct ff_port *p, enum ff_port_kind kind, const char *dev)
{
    ck_assert_int_eq(p->kind, kind);
    ck_assert_str_eq(p->dev, dev);
}

START_TEST(test_demo)
{
    load_example("demo.yaml");
    ck_assert_str_eq(spec.name, "demo");
    const struct ff_run *r = &spec.run;
    ck_assert_uint_eq(r->sources, 8);
    ck_assert_uint_eq(r->events, 200000);
    ck_assert(r->rate == 0 && r->duration_s == 300);
    ck_assert_uint_eq(r->frag_min, 1024);
    ck_assert_uint_eq(r->frag_max, 1024);
    ck_assert_int_eq(r->encap, FF_ENCAP_ETH);
    ck_assert_uint_eq(r->udp_port, 50505);
    ck_assert_uint_eq(r->mtu, 1500);
    ck_assert_uint_eq(r->seed, 1);
    ck_assert(r->trigger_us == 1 && r->accept == 0.1 && r->timeout_ms == 100);
    ck_assert_uint_eq(r->accept_seed, 0);
    ck_assert(r->metrics_period_ms == 1000);

    ck_assert_uint_eq(spec.n_readouts, 1);
    ck_assert_uint_eq(spec.n_sfcs, 1);
    ck_assert_uint_eq(spec.n_nodes, 2);
    const struct ff_readout *ro = &spec.readout[0];
    ck_assert_str_eq(ro->p.name, "ro0");
    assert_port(&ro->port, FF_PORT_MEMIF, "ro0-sfc0");
    assert_mac(ro->mac, "02:eb:00:00:00:10");
    ck_assert_uint_eq(ro->n_sfcs, 1);
    ck_assert_uint_eq(ro->sfc[0], 0);
    ck_assert_str_eq(ro->p.control, "ipc://{run}/ro0.ctl");
    ck_assert_str_eq(ro->p.metrics, "ipc://{run}/ro0.pub");
    ck_assert_str_eq(ro->p.lcores, "auto");
    ck_assert_uint_eq(ro->p.memory_mb, 128);
    ck_assert_int_eq(ro->p.no_huge, 1);
    ck_assert_int_eq(ro->p.idle, FF_IDLE_BACKOFF);
    ck_assert_uint_eq(ro->p.n_eal_args, 0);

    const struct ff_sfc *sfc = &spec.sfc[0];
    ck_assert_str_eq(sfc->p.name, "sfc0");
    ck_assert_uint_eq(sfc->id, 0);
    assert_port(&sfc->port, FF_PORT_MEMIF, "ro0-sfc0");
    assert_mac(sfc->mac, "02:eb:00:00:00:01");
    ck_assert_uint_eq(sfc->capacity, 4096);
    ck_assert_uint_eq(sfc->mbufs, 32767);
    ck_assert_uint_eq(sfc->max_credits, 256);
    ck_assert_int_eq(sfc->accept_any_readout, 0);
    ck_assert_uint_eq(sfc->p.memory_mb, 256);
    ck_assert_int_eq(sfc->p.idle, FF_IDLE_BACKOFF);
    ck_assert_str_eq(sfc->p.control, "ipc://{run}/sfc0.ctl");

    for (unsigned i = 0; i < 2; i++) {
        const struct ff_node *n = &spec.node[i];
        char name[8], link[16], mac[18], sfc_mac[18];
        snprintf(name, sizeof(name), "node%u", i);
        snprintf(link, sizeof(link), "sfc0-node%u", i);
        snprintf(mac, sizeof(mac), "02:eb:00:00:02:%02x", i);
        snprintf(sfc_mac, sizeof(sfc_mac), "02:eb:00:00:01:%02x", i);
        ck_assert_str_eq(n->p.name, name);
        ck_assert_uint_eq(n->sfc, 0);
        assert_port(&n->port, FF_PORT_MEMIF, link);
        assert_port(&n->sfc_port, FF_PORT_MEMIF, link);
        assert_mac(n->mac, mac);
        assert_mac(n->sfc_mac, sfc_mac);
        ck_assert_uint_eq(n->credits, 32);
        ck_assert_uint_eq(n->p.memory_mb, 128);
        ck_assert_str_eq(n->p.metrics, i ? "ipc://{run}/node1.pub" : "ipc://{run}/node0.pub");
    }
}
END_TEST

START_TEST(test_demo_udp)
{
    load_example("demo-udp.yaml");
    ck_assert_str_eq(spec.name, "demo-udp");
    ck_assert_int_eq(spec.run.encap, FF_ENCAP_UDP);
    ck_assert_uint_eq(spec.run.udp_port, 50505);
    ck_assert_uint_eq(spec.run.frag_min, 256);
    ck_assert_uint_eq(spec.run.frag_max, 4096);
    ck_assert_uint_eq(spec.run.events, 100000);
    ck_assert_uint_eq(spec.run.seed, 7);
    ck_assert_uint_eq(spec.run.accept_seed, 0);
    ck_assert(spec.run.metrics_period_ms == 1000);
    ck_assert_uint_eq(spec.n_readouts, 1);
    ck_assert_uint_eq(spec.n_sfcs, 1);
    ck_assert_uint_eq(spec.n_nodes, 4);
    ck_assert_uint_eq(spec.sfc[0].id, 0);
    ck_assert_int_eq(spec.readout[0].p.idle, FF_IDLE_BACKOFF);
    for (unsigned i = 0; i < 4; i++) {
        char link[16], mac[18];
        snprintf(link, sizeof(link), "sfc0-node%u", i);
        assert_port(&spec.node[i].port, FF_PORT_MEMIF, link);
        assert_port(&spec.node[i].sfc_port, FF_PORT_MEMIF, link);
        snprintf(mac, sizeof(mac), "02:eb:00:00:02:%02x", i);
        assert_mac(spec.node[i].mac, mac);
        snprintf(mac, sizeof(mac), "02:eb:00:00:01:%02x", i);
        assert_mac(spec.node[i].sfc_mac, mac);
        ck_assert_uint_eq(spec.node[i].credits, 32);
    }
}
END_TEST

START_TEST(test_real_nics)
{
    load_example("real-nics.yaml");
    ck_assert_str_eq(spec.name, "real-nics");
    ck_assert_uint_eq(spec.run.sources, 32);
    ck_assert_uint_eq(spec.run.events, 0);
    ck_assert(spec.run.rate == 100000 && spec.run.timeout_ms == 50);
    ck_assert_uint_eq(spec.run.frag_min, 4000);
    ck_assert_uint_eq(spec.run.frag_max, 4000);
    ck_assert_uint_eq(spec.run.mtu, 9000);
    ck_assert(spec.run.metrics_period_ms == 500);
    ck_assert_uint_eq(spec.n_readouts, 1);
    ck_assert_uint_eq(spec.n_sfcs, 2);
    ck_assert_uint_eq(spec.n_nodes, 4);

    const struct ff_readout *ro = &spec.readout[0];
    assert_port(&ro->port, FF_PORT_PCI, "0000:3b:00.0");
    ck_assert_uint_eq(ro->n_sfcs, 2);
    ck_assert_uint_eq(ro->sfc[0], 0);
    ck_assert_uint_eq(ro->sfc[1], 1);
    ck_assert_str_eq(ro->p.lcores, "0@(2)");
    ck_assert_str_eq(ro->p.control, "tcp://10.1.0.1:5550");
    ck_assert_str_eq(ro->p.metrics, "tcp://10.1.0.1:5551");
    const char *k = strstr(spec.keys, "/farms/keys");
    ck_assert_msg(k && !strcmp(k, "/farms/keys"), "keys: %s", spec.keys);
    ck_assert_int_eq(spec.insecure, 0);
    ck_assert_int_eq(ro->p.no_huge, 0);
    ck_assert_int_eq(ro->p.idle, FF_IDLE_SPIN);
    ck_assert_uint_eq(ro->p.memory_mb, 2048);
    ck_assert_uint_eq(ro->p.n_eal_args, 1);
    ck_assert_str_eq(ro->p.eal_args[0], "--huge-dir=/dev/hugepages");

    ck_assert_uint_eq(spec.sfc[1].id, 1);
    assert_port(&spec.sfc[1].port, FF_PORT_PCI, "0000:d8:00.0");
    assert_mac(spec.sfc[1].mac, "02:eb:00:00:00:02");
    ck_assert_uint_eq(spec.sfc[1].capacity, 16384);
    ck_assert_uint_eq(spec.sfc[1].mbufs, 262143);
    ck_assert_uint_eq(spec.sfc[1].p.memory_mb, 4096);
    ck_assert_str_eq(spec.sfc[1].p.lcores, "0@(6)");

    const struct ff_node *n = &spec.node[3];
    ck_assert_str_eq(n->p.name, "node3");
    ck_assert_uint_eq(n->sfc, 1);
    assert_port(&n->port, FF_PORT_PCI, "0000:af:00.1");
    assert_port(&n->sfc_port, FF_PORT_PCI, "0000:d8:00.1");
    assert_mac(n->sfc_mac, "02:eb:00:00:00:02");   /* the SFC's mac, by default */
    ck_assert_uint_eq(n->credits, 64);
    ck_assert_str_eq(n->p.lcores, "0@(14)");
    ck_assert_str_eq(n->p.control, "ipc://{run}/node3.ctl");
}
END_TEST

START_TEST(test_faults_example)
{
    load_example("faults.yaml");
    const struct ff_run *r = &spec.run;
    ck_assert_str_eq(spec.name, "faults");
    ck_assert_uint_eq(r->events, 100000);
    ck_assert_int_eq(r->frag_dist, FF_DIST_LOGNORMAL);
    ck_assert(r->frag_mean == 1024 && r->frag_sigma == 512);
    ck_assert_uint_eq(r->frag_min, 64);
    ck_assert_uint_eq(r->frag_max, 8192);
    ck_assert_uint_eq(r->seed, 7);
    ck_assert_str_eq(r->faults, "drop=0.001,dup=0.001,reorder=0.01,corrupt=0.0005");
    ck_assert_uint_eq(r->fault_seed, 7);
    ck_assert_uint_eq(r->silence_source, 7);
    ck_assert_uint_eq(r->silence_event, 80000);
    ck_assert_uint_eq(r->burst_events, 0);
    ck_assert_uint_eq(r->burst_gap_us, 0);
    ck_assert_uint_eq(r->sfc_dead_ms, 0);       /* not given: the daemons' 100 ms */
    ck_assert_uint_eq(spec.n_nodes, 2);
}
END_TEST

/* Every .yaml file in farms/ loads, also one added without a test of its own. */
START_TEST(test_every_example)
{
    char dir[512];
    unsigned n = 0;
    struct dirent *de;

    snprintf(dir, sizeof(dir), "%s/farms", EBF_SOURCE_ROOT);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len > 5 && strcmp(de->d_name + len - 5, ".yaml") == 0) {
            load_example(de->d_name);
            n++;
        }
    }
    closedir(d);
    ck_assert_uint_ge(n, 5);    /* demo, demo-udp, real-nics, faults, hosts-example */
}
END_TEST

/* --- Small files ----------------------------------------------------------- */

#define HEAD "farm: t\n"
#define RO0                                                                       \
    "readouts:\n"                                                                 \
    "  - name: ro0\n"                                                             \
    "    port: memif:a\n"                                                         \
    "    mac: 02:00:00:00:00:01\n"                                                \
    "    sfcs: [sfc0]\n"
#define SFC0                                                                      \
    "sfcs:\n"                                                                     \
    "  - name: sfc0\n"                                                            \
    "    port: memif:a\n"                                                         \
    "    mac: 02:00:00:00:00:02\n"
#define NODE0                                                                     \
    "nodes:\n"                                                                    \
    "  - name: n0\n"                                                              \
    "    sfc: sfc0\n"                                                             \
    "    port: memif:b\n"                                                         \
    "    mac: 02:00:00:00:00:03\n"
#define N1                                                                        \
    "  - name: n1\n"                                                              \
    "    sfc: sfc0\n"                                                             \
    "    port: memif:c\n"                                                         \
    "    mac: 02:00:00:00:00:04\n"
/* An SFC for workers: bare memif on it and its readout, two nodes. */
#define WRO0 "readouts:\n  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
#define WSFC0                                                                     \
    "sfcs:\n"                                                                     \
    "  - name: sfc0\n"                                                            \
    "    port: memif\n"                                                           \
    "    mac: 02:00:00:00:00:02\n"
#define WNODES                                                                    \
    "nodes:\n"                                                                    \
    "  - {name: n0, sfc: sfc0, port: memif:b, mac: 02:00:00:00:00:03}\n"           \
    "  - {name: n1, sfc: sfc0, port: memif:c, mac: 02:00:00:00:00:04}\n"
/* The smallest valid farm; lines appended to it land in nodes[0]. */
#define BASE HEAD RO0 SFC0 NODE0
#define RX "  - {name: r, port: memif:a, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
#define RX4 RX RX RX RX
#define RX17 RX4 RX4 RX4 RX4 RX

/* The end of the message for a refused EAL argument. */
#define EAL_HINT                                                                              \
    "allowed: --log-level, --syslog, -l, -c, --main-lcore, -n, -r, --socket-mem, "             \
    "--socket-limit, --huge-dir, --huge-unlink, --single-file-segments, --legacy-mem, "        \
    "--match-allocations, --iova-mode, --in-memory, --no-shconf, -a, --allow, -b, --block, "   \
    "--force-max-simd-bitwidth; "                                                               \
    "each option alone, as --opt=VALUE, or followed by its value; the runner sets "            \
    "--file-prefix, -m, --no-huge, --lcores and the ports itself"

static int parse(const char *yaml)
{
    err[0] = '\0';
    return farm_spec_parse(yaml, strlen(yaml), "bad.yaml", &spec, err, sizeof(err));
}

/* Defaults of every key a minimal file leaves out. */
START_TEST(test_minimal_defaults)
{
    ck_assert_msg(parse(BASE) == 0, "%s", err);
    ck_assert_uint_eq(spec.run.sources, 8);
    ck_assert_uint_eq(spec.run.events, 200000);
    ck_assert_uint_eq(spec.run.frag_min, 1024);
    ck_assert_uint_eq(spec.run.frag_max, 1024);
    ck_assert_int_eq(spec.run.encap, FF_ENCAP_ETH);
    ck_assert_uint_eq(spec.run.mtu, 1500);
    ck_assert(spec.run.duration_s == 0 && spec.run.rate == 0);
    ck_assert_int_eq(spec.run.frag_dist, FF_DIST_FIXED);
    ck_assert_int_eq(spec.run.payload, FF_PAYLOAD_AUTO);
    ck_assert(spec.run.frag_mean == 0 && spec.run.frag_sigma == 0);
    ck_assert_str_eq(spec.run.faults, "");
    ck_assert_uint_eq(spec.run.fault_seed, 1);
    ck_assert_uint_eq(spec.run.silence_source, FF_NO_SILENCE);
    ck_assert_uint_eq(spec.run.burst_events, 0);
    ck_assert_uint_eq(spec.run.burst_gap_us, 0);
    ck_assert_uint_eq(spec.readout[0].p.memory_mb, 256);
    ck_assert_int_eq(spec.readout[0].p.no_huge, 1);
    ck_assert_int_eq(spec.readout[0].p.telemetry, 1);
    ck_assert_int_eq(spec.readout[0].p.idle, FF_IDLE_SPIN);
    ck_assert_str_eq(spec.readout[0].p.lcores, "auto");
    ck_assert_uint_eq(spec.sfc[0].id, 0);
    ck_assert_uint_eq(spec.node[0].credits, 32);
    assert_port(&spec.node[0].sfc_port, FF_PORT_MEMIF, "b");
    assert_mac(spec.node[0].sfc_mac, "02:00:00:00:00:02");
}
END_TEST

/* Ports of each kind, overrides of defaults, and a file that is valid
 * although it uses every optional key. Every process is on the implicit
 * local host, so each has CPUs of its own. */
START_TEST(test_ports_and_overrides)
{
    static const char yaml[] = HEAD
        "insecure: true\n"
        "defaults: {idle: backoff, memory_mb: 512, eal_args: [--log-level=7], lcores: 1-3,\n"
        "           telemetry: false}\n"
        "run: {frag_min: 64, frag_max: 8192, encap: udp, udp_port: 4000, rate: 1e6}\n"
        "readouts:\n"
        "  - {name: ro0, port: 3b:00.0, mac: 02:00:00:00:00:01, sfcs: [s1, s0]}\n"
        "sfcs:\n"
        "  - {name: s0, id: 9, port: 'net_af_packet0,iface=veth0', mac: 02:00:00:00:00:02,\n"
        "     lcores: '5'}\n"
        "  - {name: s1, port: 0000:3B:00.1, mac: 02:00:00:00:00:05, idle: spin,\n"
        "     eal_args: [], lcores: '0@(0,4)', max_credits: 8, telemetry: true,\n"
        "     accept_any_readout: true}\n"
        "nodes:\n"
        "  - {name: n0, sfc: s0, port: net_null0, sfc_port: 'net_af_packet1,iface=veth1',\n"
        "     mac: 02:00:00:00:00:03, memory_mb: 64, control: 'tcp://10.0.0.2:5555',\n"
        "     eal_args: [--iova-mode=va], lcores: 6-7}\n"
        "  - {name: n1, sfc: s1, port: memif:n1, sfc_port: memif:n1, credits: 8,\n"
        "     mac: 02:00:00:00:00:04, sfc_mac: 02:00:00:00:01:04, lcores: '0@(8)'}\n";

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.run.frag_min, 64);
    ck_assert_uint_eq(spec.run.frag_max, 8192);
    ck_assert_int_eq(spec.run.frag_dist, FF_DIST_UNIFORM);     /* the default for a range */
    ck_assert_int_eq(spec.run.encap, FF_ENCAP_UDP);
    ck_assert_uint_eq(spec.run.udp_port, 4000);
    ck_assert(spec.run.rate == 1e6);
    assert_port(&spec.readout[0].port, FF_PORT_PCI, "0000:3b:00.0");
    ck_assert_uint_eq(spec.readout[0].sfc[0], 1);
    ck_assert_uint_eq(spec.readout[0].sfc[1], 0);
    ck_assert_str_eq(spec.readout[0].p.lcores, "1-3");
    ck_assert_uint_eq(spec.readout[0].p.n_eal_args, 1);
    ck_assert_str_eq(spec.readout[0].p.eal_args[0], "--log-level=7");
    ck_assert_uint_eq(spec.sfc[0].id, 9);
    ck_assert_uint_eq(spec.sfc[1].id, 1);
    assert_port(&spec.sfc[0].port, FF_PORT_VDEV, "net_af_packet0,iface=veth0");
    assert_port(&spec.sfc[1].port, FF_PORT_PCI, "0000:3b:00.1");
    ck_assert_int_eq(spec.sfc[0].p.idle, FF_IDLE_BACKOFF);
    ck_assert_int_eq(spec.sfc[1].p.idle, FF_IDLE_SPIN);
    ck_assert_uint_eq(spec.sfc[1].p.n_eal_args, 1);     /* [] adds nothing to defaults' */
    ck_assert_int_eq(spec.sfc[0].p.telemetry, 0);       /* the defaults' false */
    ck_assert_int_eq(spec.sfc[1].p.telemetry, 1);       /* its own true over it */
    ck_assert_str_eq(spec.sfc[1].p.lcores, "0@(0,4)");
    ck_assert_int_eq(spec.sfc[0].accept_any_readout, 0);    /* the default */
    ck_assert_int_eq(spec.sfc[1].accept_any_readout, 1);
    ck_assert_uint_eq(spec.sfc[1].p.memory_mb, 512);
    assert_port(&spec.node[0].port, FF_PORT_VDEV, "net_null0");
    ck_assert_uint_eq(spec.node[0].p.memory_mb, 64);
    ck_assert_str_eq(spec.node[0].p.control, "tcp://10.0.0.2:5555");
    ck_assert_int_eq(spec.insecure, 1);
    ck_assert_str_eq(spec.keys, "");
    ck_assert_str_eq(spec.node[0].p.metrics, "ipc://{run}/n0.pub");
    ck_assert_uint_eq(spec.node[0].p.n_eal_args, 2);
    ck_assert_str_eq(spec.node[0].p.eal_args[0], "--log-level=7");
    ck_assert_str_eq(spec.node[0].p.eal_args[1], "--iova-mode=va");
    assert_mac(spec.node[1].sfc_mac, "02:00:00:00:01:04");
    ck_assert_uint_eq(spec.node[1].credits, 8);
}
END_TEST

/* run.store: every key given, then the defaults without it. */
START_TEST(test_store)
{
    static const char yaml[] = BASE
        "run:\n"
        "  store: {dir: /data/ev, max_file_mb: 64, max_file_s: 30, fsync: interval,\n"
        "          buffer_mb: 8, max_mbs: 2.5}\n";

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_str_eq(spec.run.store.dir, "/data/ev");
    ck_assert_uint_eq(spec.run.store.max_file_mb, 64);
    ck_assert(spec.run.store.max_file_s == 30);
    ck_assert_str_eq(spec.run.store.fsync, "interval");
    ck_assert_uint_eq(spec.run.store.buffer_mb, 8);
    ck_assert(spec.run.store.max_mbs == 2.5);
    ck_assert_msg(parse(BASE) == 0, "%s", err);
    ck_assert_str_eq(spec.run.store.dir, "");
    ck_assert_uint_eq(spec.run.store.max_file_mb, 256);
    ck_assert(spec.run.store.max_file_s == 300);
    ck_assert_str_eq(spec.run.store.fsync, "close");
    ck_assert_uint_eq(spec.run.store.buffer_mb, 32);
}
END_TEST

/* The fault and size keys: every one given, then "none" and the clamp's default. */
START_TEST(test_trigger)
{
    static const char yaml[] = BASE
        "run:\n"
        "  trigger:\n"
        "    plugin: /opt/ebfarm/ebf-trigger-threshold.so\n"
        "    params: [\"sources=0,3\", \"threshold=1099511627776\"]\n"
        "    timeout_ms: 5\n";

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_str_eq(spec.run.trigger.plugin, "/opt/ebfarm/ebf-trigger-threshold.so");
    ck_assert_uint_eq(spec.run.trigger.n_params, 2);
    ck_assert_str_eq(spec.run.trigger.param[0], "sources=0,3");
    ck_assert_str_eq(spec.run.trigger.param[1], "threshold=1099511627776");
    ck_assert(spec.run.trigger.timeout_ms == 5);
    ck_assert_msg(parse(BASE) == 0, "%s", err);
    ck_assert_str_eq(spec.run.trigger.plugin, "");
    ck_assert_uint_eq(spec.run.trigger.n_params, 0);
}
END_TEST

START_TEST(test_faults_and_sizes)
{
    static const char every[] = BASE
        "run:\n"
        "  sources: 16\n"
        "  frag_dist: lognormal\n"
        "  frag_mean: 2000.5\n"
        "  frag_sigma: 0\n"
        "  payload: per-event\n"
        "  faults: drop=0.001,dup=0.001,reorder=0.01,corrupt=0.0005,window=16\n"
        "  fault_seed: 18446744073709551615\n"
        "  silence: 15@4294967296\n"
        "  burst_events: 1000\n"
        "  burst_gap_us: 2000\n"
        "  sfc_dead_ms: 150\n";
    static const char nothing[] = BASE
        "run:\n"
        "  frag_dist: uniform\n"
        "  payload: prebuilt\n"
        "  faults: none\n"
        "  silence: none\n"
        "  burst_events: 0\n";
    static const char clamp[] = BASE
        "run:\n"
        "  frag_dist: lognormal\n"
        "  frag_min: 64\n"
        "  frag_max: 64\n"
        "  frag_mean: 64\n"
        "  frag_sigma: 1e3\n"
        "  faults: ''\n";

    ck_assert_msg(parse(every) == 0, "%s", err);
    ck_assert_int_eq(spec.run.frag_dist, FF_DIST_LOGNORMAL);
    ck_assert_int_eq(spec.run.payload, FF_PAYLOAD_PER_EVENT);
    ck_assert(spec.run.frag_mean == 2000.5 && spec.run.frag_sigma == 0);
    /* Log-normal, no clamp given: from 1 to what an event of 16 fragments
     * carries at MTU 1500, 1023 / 16 = 63 frames of 1408 B each. */
    ck_assert_uint_eq(spec.run.frag_min, 1);
    ck_assert_uint_eq(spec.run.frag_max, 63 * 1408);
    ck_assert_str_eq(spec.run.faults, "drop=0.001,dup=0.001,reorder=0.01,corrupt=0.0005,window=16");
    ck_assert_uint_eq(spec.run.fault_seed, UINT64_MAX);
    ck_assert_uint_eq(spec.run.silence_source, 15);
    ck_assert_uint_eq(spec.run.silence_event, 4294967296ull);
    ck_assert_uint_eq(spec.run.burst_events, 1000);
    ck_assert_uint_eq(spec.run.burst_gap_us, 2000);
    ck_assert_uint_eq(spec.run.sfc_dead_ms, 150);

    ck_assert_msg(parse(nothing) == 0, "%s", err);
    ck_assert_int_eq(spec.run.frag_dist, FF_DIST_UNIFORM);   /* uniform over 1024..1024 */
    ck_assert_int_eq(spec.run.payload, FF_PAYLOAD_PREBUILT);
    ck_assert_uint_eq(spec.run.frag_min, 1024);
    ck_assert_uint_eq(spec.run.frag_max, 1024);
    ck_assert_str_eq(spec.run.faults, "");
    ck_assert_uint_eq(spec.run.silence_source, FF_NO_SILENCE);
    ck_assert_uint_eq(spec.run.burst_events, 0);

    ck_assert_msg(parse(clamp) == 0, "%s", err);
    ck_assert_uint_eq(spec.run.frag_min, 64);
    ck_assert_uint_eq(spec.run.frag_max, 64);
    ck_assert(spec.run.frag_mean == 64 && spec.run.frag_sigma == 1000);
    ck_assert_str_eq(spec.run.faults, "");
}
END_TEST

/* Bad files and the exact message each gets, after "farm file 'bad.yaml': ". */
static const struct bad {
    const char *what, *yaml, *msg;
} bad[] = {
    {"syntax",
     "farm: [t\n",
     "YAML syntax error at line 2, column 1: did not find expected ',' or ']' (while parsing "
     "a flow sequence)"},
    {"syntax, tab",
     BASE
     "run:\n"
     "\tsources: 3\n",
     "YAML syntax error at line 17, column 1: found character that cannot start any token "
     "(while scanning for the next token)"},
    {"empty",
     "",
     "the file is empty (a farm file needs the keys farm, readouts, sfcs and nodes)"},
    {"comment only",
     "# nothing\n",
     "the file is empty (a farm file needs the keys farm, readouts, sfcs and nodes)"},
    {"two documents",
     BASE
     "---\n"
     "farm: u\n",
     "a second YAML document starts at line 16 (a farm file is one document)"},
    {"top is a list",
     "- farm: t\n",
     "the file must be a mapping of keys (allowed: farm, keys, insecure, defaults, run, hosts, "
     "readouts, sfcs, nodes, sim)"},
    {"unknown top key",
     BASE
     "bogus: 1\n",
     "key 'bogus' is not allowed (allowed: farm, keys, insecure, defaults, run, hosts, "
     "readouts, sfcs, nodes, sim)"},
    {"unknown sim key",
     BASE
     "sim:\n  link_gpbs: 10\n",
     "key 'sim.link_gpbs' is not allowed (allowed: sources, sfcs, nodes_per_sfc, rate_hz, "
     "arrivals, frag_bytes, mtu, link_gbps, link_latency_us, switch_buffer_kb, ro_spread_us, "
     "ro_frame_ns, "
     "sfc_frame_ns, sfc_event_ns, trigger, trigger_us, trigger_sigma, accept, credits, "
     "capacity, timeout_ms, node_timeout_ms, sfc_timeout_ms, throttle_on, throttle_off, seed, "
     "duration_s, drain_s, failover, release_ms, sfc_dead_ms, replay_mb, replay_gap_us, "
     "replay_interleave, ack_port, rx_ring, idle_sleep_us, idle_extra_us, idle_spin_us, "
     "readouts, ro_skew_us, ro_release_lag_ms, release_loss, replay_lost_piece, faults)"},
    {"sim faults not a list",
     BASE
     "sim:\n  faults: node_death 1 0.5\n",
     "key 'sim.faults' must be a list (0 to 16 entries)"},
    {"unknown defaults key",
     BASE
     "defaults:\n"
     "  idel: spin\n",
     "key 'defaults.idel' is not allowed (allowed: idle, no_huge, memory_mb, lcores, "
     "telemetry, eal_args, metrics_period_ms)"},
    {"unknown run key",
     BASE
     "run:\n"
     "  sorces: 3\n",
     "key 'run.sorces' is not allowed (allowed: sources, events, rate, duration_s, "
     "frag_size, frag_min, frag_max, frag_dist, frag_mean, frag_sigma, payload, encap, udp_port, mtu, "
     "seed, trigger_us, accept, accept_seed, timeout_ms, max_event, faults, fault_seed, silence, "
     "burst_events, burst_gap_us, replay_mb, sfc_dead_ms, trigger, store)"},
    {"unknown readout key",
     HEAD RO0
     "    sfc: sfc0\n"
     SFC0 NODE0,
     "key 'readouts[0].sfc' is not allowed (allowed: name, port, mac, sfcs, host, control, "
     "metrics, lcores, memory_mb, telemetry, idle, eal_args)"},
    {"unknown sfc key",
     HEAD RO0 SFC0
     "    capcity: 5\n"
     NODE0,
     "key 'sfcs[0].capcity' is not allowed (allowed: name, id, port, mac, capacity, mbufs, "
     "max_credits, accept_any_readout, workers, host, control, metrics, lcores, memory_mb, telemetry, idle, eal_args)"},
    {"unknown node key",
     BASE N1
     "    credit: 4\n",
     "key 'nodes[1].credit' is not allowed (allowed: name, sfc, port, mac, sfc_port, "
     "sfc_mac, credits, workers, host, control, metrics, lcores, memory_mb, telemetry, idle, eal_args)"},
    {"missing farm",
     RO0 SFC0 NODE0,
     "key 'farm' is required"},
    {"missing nodes",
     HEAD RO0 SFC0,
     "key 'nodes' is required"},
    {"missing mac",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    sfcs: [sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].mac' is required"},
    {"key twice",
     BASE
     "farm: u\n",
     "key 'farm' is given twice"},
    {"run not a mapping",
     BASE
     "run: 5\n",
     "key 'run' must be a mapping of keys (allowed: sources, events, rate, duration_s, "
     "frag_size, frag_min, frag_max, frag_dist, frag_mean, frag_sigma, payload, encap, udp_port, mtu, "
     "seed, trigger_us, accept, accept_seed, timeout_ms, max_event, faults, fault_seed, silence, "
     "burst_events, burst_gap_us, replay_mb, sfc_dead_ms, trigger, store)"},
    {"readouts not a list",
     HEAD
     "readouts: {name: ro0}\n"
     SFC0 NODE0,
     "key 'readouts' must be a list (1 to 16 entries)"},
    {"farm a list",
     "farm: [t]\n"
     RO0 SFC0 NODE0,
     "key 'farm' must be a single value, not a list"},
    {"empty list",
     HEAD
     "readouts: []\n"
     SFC0 NODE0,
     "key 'readouts': 0 entries (allowed: 1 to 16)"},
    {"empty sfcs list",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: []\n"
     SFC0 NODE0,
     "key 'readouts[0].sfcs': 0 entries (allowed: 1 to 16)"},
    {"17 eal_args",
     BASE
     "defaults:\n"
     "  eal_args: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q]\n",
     "key 'defaults.eal_args': more than 16 entries (allowed: 0 to 16)"},
    {"eal_args entry a list",
     BASE
     "    eal_args: [--a, [--b]]\n",
     "key 'nodes[0].eal_args[1]' must be a single value, not a list"},
    {"bad MAC",
     HEAD RO0 SFC0
     "nodes:\n"
     "  - name: n0\n"
     "    sfc: sfc0\n"
     "    port: memif:b\n"
     "    mac: zz:00\n",
     "key 'nodes[0].mac': \"zz:00\" is not a MAC address (six hex bytes such as "
     "02:eb:00:00:02:00)"},
    {"multicast MAC",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    mac: 03:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].mac': \"03:00:00:00:00:01\" is a multicast MAC address (a port's MAC "
     "is unicast: its first byte even)"},
    {"bad accept_any_readout",
     HEAD RO0 SFC0
     "    accept_any_readout: yes\n"
     NODE0,
     "key 'sfcs[0].accept_any_readout': \"yes\" is not true or false"},
    {"bad sfc_mac",
     BASE
     "    sfc_mac: 02:00:00:00:00\n",
     "key 'nodes[0].sfc_mac': \"02:00:00:00:00\" is not a MAC address (six hex bytes such as "
     "02:eb:00:00:02:00)"},
    {"accept out of range",
     BASE
     "run:\n"
     "  accept: 1.5\n",
     "key 'run.accept': 1.5 is out of range (0 to 1)"},
    {"store dir relative",
     BASE
     "run:\n"
     "  store: {dir: events}\n",
     "key 'run.store.dir': \"events\" is not an absolute path (the nodes run in their own "
     "directories)"},
    {"store fsync unknown",
     BASE
     "run:\n"
     "  store: {dir: /data, fsync: always}\n",
     "key 'run.store.fsync': \"always\" is not a policy (allowed: none, close, interval)"},
    {"store file size 0",
     BASE
     "run:\n"
     "  store: {dir: /data, max_file_mb: 0}\n",
     "key 'run.store.max_file_mb': 0 is out of range (1 to 1048576)"},
    {"store without dir",
     BASE
     "run:\n"
     "  store: {fsync: none}\n",
     "key 'run.store.dir' is required"},
    {"trigger param not KEY=VALUE",
     BASE
     "run:\n"
     "  trigger:\n"
     "    plugin: /opt/t.so\n"
     "    params: [\"a=1\", \"b\"]\n",
     "key 'run.trigger.params[1]': \"b\" is not KEY=VALUE"},
    {"trigger param twice",
     BASE
     "run:\n"
     "  trigger:\n"
     "    plugin: /opt/t.so\n"
     "    params: [\"ab=1\", \"a=2\", \"ab=3\"]\n",
     "key 'run.trigger.params[2]': \"ab=3\" gives key 'ab' again (params[0])"},
    {"trigger timeout negative",
     BASE
     "run:\n"
     "  trigger:\n"
     "    plugin: /opt/t.so\n"
     "    timeout_ms: -1\n",
     "key 'run.trigger.timeout_ms': -1 is out of range (0 to 3600000)"},
    {"sources 0",
     BASE
     "run:\n"
     "  sources: 0\n",
     "key 'run.sources': 0 is out of range (1 to 128)"},
    {"sources 1.5",
     BASE
     "run:\n"
     "  sources: 1.5\n",
     "key 'run.sources': \"1.5\" is not an integer (1 to 128)"},
    {"events negative",
     BASE
     "run:\n"
     "  events: -1\n",
     "key 'run.events': \"-1\" is not an integer (0 to 9223372036854775807)"},
    {"seed too big",
     BASE
     "run:\n"
     "  seed: 18446744073709551616\n",
     "key 'run.seed': 18446744073709551616 is out of range (0 to 18446744073709551615)"},
    {"rate text",
     BASE
     "run:\n"
     "  rate: fast\n",
     "key 'run.rate': \"fast\" is not a number (0 to 1000000000)"},
    {"rate nan",
     BASE
     "run:\n"
     "  rate: nan\n",
     "key 'run.rate': \"nan\" is not a number (0 to 1000000000)"},
    {"timeout 0",
     BASE
     "run:\n"
     "  timeout_ms: 0\n",
     "key 'run.timeout_ms': 0 is out of range (0.01 to 3600000)"},
    {"metrics period",
     BASE
     "defaults:\n"
     "  metrics_period_ms: 5\n",
     "key 'defaults.metrics_period_ms': 5 is out of range (10 to 60000)"},
    {"memory override",
     BASE
     "    memory_mb: 32\n",
     "key 'nodes[0].memory_mb': 32 is out of range (64 to 65536)"},
    {"capacity",
     HEAD RO0 SFC0
     "    capacity: 8\n"
     NODE0,
     "key 'sfcs[0].capacity': 8 is out of range (16 to 1048576)"},
    {"credits 0",
     BASE
     "    credits: 0\n",
     "key 'nodes[0].credits': 0 is out of range (1 to 4096)"},
    {"bad idle",
     BASE
     "defaults:\n"
     "  idle: fast\n",
     "key 'defaults.idle': \"fast\" is not allowed (allowed: spin, backoff)"},
    {"bad node idle",
     BASE
     "    idle: 1\n",
     "key 'nodes[0].idle': \"1\" is not allowed (allowed: spin, backoff)"},
    {"bad encap",
     BASE
     "run:\n"
     "  encap: tcp\n",
     "key 'run.encap': \"tcp\" is not allowed (allowed: eth, udp)"},
    {"bad bool",
     BASE
     "defaults:\n"
     "  no_huge: maybe\n",
     "key 'defaults.no_huge': \"maybe\" is not true or false"},
    {"bad telemetry",
     BASE
     "    telemetry: yes\n",
     "key 'nodes[0].telemetry': \"yes\" is not true or false"},
    {"telemetry in eal_args",
     BASE
     "    eal_args: [--log-level=7, --no-telemetry]\n",
     "key 'nodes[0].eal_args[1]': \"--no-telemetry\" is set by the key 'telemetry' (true, the "
     "default, or false), not in eal_args"},
    {"telemetry on in defaults' eal_args",
     BASE
     "defaults:\n"
     "  eal_args: [--telemetry]\n",
     "key 'defaults.eal_args[0]': \"--telemetry\" is set by the key 'telemetry' (true, the "
     "default, or false), not in eal_args"},
    {"mtu small",
     BASE
     "run:\n"
     "  mtu: 100\n",
     "key 'run.mtu': 100 is out of range (256 to 9600)"},
    {"mtu large",
     BASE
     "run:\n"
     "  mtu: 9601\n",
     "key 'run.mtu': 9601 is out of range (256 to 9600)"},
    {"frag_size + frag_min",
     BASE
     "run:\n"
     "  frag_size: 100\n"
     "  frag_min: 10\n",
     "key 'run.frag_size' cannot be given together with 'run.frag_min' (give frag_size "
     "alone, or frag_min and frag_max)"},
    {"frag_max alone",
     BASE
     "run:\n"
     "  frag_max: 10\n",
     "key 'run.frag_min' is required with 'run.frag_max' (give frag_size alone, or frag_min "
     "and frag_max)"},
    {"frag_min > frag_max",
     BASE
     "run:\n"
     "  frag_min: 2048\n"
     "  frag_max: 1024\n",
     "run.frag_min 2048 is above run.frag_max 1024"},
    {"bad port",
     BASE
     "    sfc_port: eth0\n",
     "key 'nodes[0].sfc_port': \"eth0\" is not a port (memif:LINK with LINK of a-z, 0-9, _ and "
     "-; memif (readouts and SFCs: a link per readout-SFC pair); a PCI address such as 0000:3b:00.0 or 3b:00.0; or a DPDK vdev such as "
     "net_af_packet0,iface=eth0)"},
    {"bad pci",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: 0000:3b:00.9\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].port': \"0000:3b:00.9\" is not a port (memif:LINK with LINK of a-z, "
     "0-9, _ and -; memif (readouts and SFCs: a link per readout-SFC pair); a PCI address such as 0000:3b:00.0 or 3b:00.0; or a DPDK vdev such as "
     "net_af_packet0,iface=eth0)"},
    {"sfc_port required",
     HEAD RO0 SFC0
     "nodes:\n"
     "  - name: n0\n"
     "    sfc: sfc0\n"
     "    port: 3b:00.0\n"
     "    mac: 02:00:00:00:00:03\n",
     "key 'nodes[0].sfc_port' is required when port is not a memif link (the SFC's port "
     "toward this node: memif:LINK with LINK of a-z, 0-9, _ and -; memif (readouts and SFCs: a link per readout-SFC pair); a PCI address such as "
     "0000:3b:00.0 or 3b:00.0; or a DPDK vdev such as net_af_packet0,iface=eth0)"},
    {"bad name",
     HEAD
     "readouts:\n"
     "  - name: Ro0\n"
     "    port: memif:a\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].name': \"Ro0\" is not a name (1 to 32 characters of a-z, 0-9, _ and -)"},
    {"long name",
     "farm: abcdefghijabcdefghijabcdefghijabc\n"
     RO0 SFC0 NODE0,
     "key 'farm': \"abcdefghijabcdefghijabcdefghijabc\" is too long (33 characters, at most "
     "32)"},
    {"duplicate name",
     BASE
     "  - name: ro0\n"
     "    sfc: sfc0\n"
     "    port: memif:c\n"
     "    mac: 02:00:00:00:00:04\n",
     "key 'nodes[1].name': \"ro0\" is already the name of readouts[0]"},
    {"duplicate MAC",
     BASE
     "  - name: n1\n"
     "    sfc: sfc0\n"
     "    port: memif:c\n"
     "    mac: 02:00:00:00:00:02\n",
     "key 'nodes[1].mac': 02:00:00:00:00:02 is already the MAC of sfcs[0].mac"},
    {"duplicate sfc_mac",
     BASE
     "    sfc_mac: 02:00:00:00:00:10\n"
     N1
     "    sfc_mac: 02:00:00:00:00:10\n",
     "key 'nodes[1].sfc_mac': 02:00:00:00:00:10 is already the MAC of nodes[0].sfc_mac"},
    {"readout names unknown sfc",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0, sfc9]\n"
     SFC0 NODE0,
     "key 'readouts[0].sfcs[1]': \"sfc9\" is not an SFC (SFCs: sfc0)"},
    {"node names unknown sfc",
     HEAD RO0 SFC0
     "nodes:\n"
     "  - name: n0\n"
     "    sfc: sfc1\n"
     "    port: memif:b\n"
     "    mac: 02:00:00:00:00:03\n",
     "key 'nodes[0].sfc': \"sfc1\" is not an SFC (SFCs: sfc0)"},
    {"sfc listed twice",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0, sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].sfcs[1]': \"sfc0\" is already listed as readouts[0].sfcs[0]"},
    {"one-ended readout link",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:ro0-sfc1\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     SFC0 NODE0,
     "key 'readouts[0].port': memif link 'ro0-sfc1' has only one end (add it to an SFC port)"},
    {"one-ended node link",
     BASE
     "    sfc_port: memif:c\n",
     "key 'nodes[0].port': memif link 'b' has only one end (give the node's sfc_port the "
     "same link)"},
    {"link with three ends",
     BASE N1
     "    sfc_port: memif:b\n",
     "key 'nodes[1].sfc_port': memif link 'b' already joins nodes[0].port and "
     "nodes[0].sfc_port (a link has exactly two ends)"},
    {"link readout to node",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:b\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     "sfcs:\n"
     "  - name: sfc0\n"
     "    port: net_null0\n"
     "    mac: 02:00:00:00:00:02\n"
     "nodes:\n"
     "  - name: n0\n"
     "    sfc: sfc0\n"
     "    port: net_null1\n"
     "    mac: 02:00:00:00:00:03\n"
     "    sfc_port: memif:b\n",
     "key 'nodes[0].sfc_port': memif link 'b' would join readouts[0].port and "
     "nodes[0].sfc_port (a link joins a readout to an SFC, or a node to its SFC)"},
    {"memif readout to 2 sfcs",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: memif:a\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0, sfc1]\n"
     SFC0
     "  - name: sfc1\n"
     "    port: net_null0\n"
     "    mac: 02:00:00:00:00:05\n"
     NODE0
     "  - name: n1\n"
     "    sfc: sfc1\n"
     "    port: memif:c\n"
     "    mac: 02:00:00:00:00:04\n",
     "key 'readouts[0].sfcs[1]': \"sfc1\" is not at the other end of memif link 'a' (sfc0 is; "
     "a memif link joins one readout to one SFC: give the readout and its SFCs port: memif, a "
     "link per pair)"},
    {"readouts list other sfcs",
     HEAD
     "readouts:\n"
     "  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0, sfc1]}\n"
     "  - {name: ro1, port: memif, mac: 02:00:00:00:00:11, sfcs: [sfc1, sfc0]}\n"
     "sfcs:\n"
     "  - {name: sfc0, id: 0, port: memif, mac: 02:00:00:00:00:02}\n"
     "  - {name: sfc1, id: 1, port: memif, mac: 02:00:00:00:00:05}\n"
     NODE0
     "  - {name: n1, sfc: sfc1, port: 'memif:c', mac: 02:00:00:00:00:04}\n",
     "key 'readouts[1].sfcs': [sfc1, sfc0] is not readouts[0].sfcs [sfc0, sfc1] (every readout "
     "sends event e to the SFC sfcs[e % count], so all list the same SFCs in the same order)"},
    {"sources over readouts",
     "farm: t\nrun: {sources: 9}\n"
     "readouts:\n"
     "  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
     "  - {name: ro1, port: memif, mac: 02:00:00:00:00:11, sfcs: [sfc0]}\n"
     "sfcs:\n"
     "  - {name: sfc0, port: memif, mac: 02:00:00:00:00:02}\n"
     NODE0,
     "key 'run.sources': 9 sources do not split evenly over the 2 readouts (each sends "
     "run.sources / readouts of every event: give a multiple of 2)"},
    {"memif pairs, sfc on a link",
     HEAD
     "readouts:\n"
     "  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
     "sfcs:\n"
     "  - {name: sfc0, port: net_null0, mac: 02:00:00:00:00:02}\n"
     NODE0,
     "key 'readouts[0].port': memif (a link per SFC) needs port memif on each of its SFCs too, "
     "and sfcs[0] (sfc0) has \"net_null0\""},
    {"memif pairs, readout on a link",
     HEAD
     "readouts:\n"
     "  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
     "  - {name: ro1, port: 'memif:x', mac: 02:00:00:00:00:11, sfcs: [sfc0]}\n"
     "sfcs:\n"
     "  - {name: sfc0, port: memif, mac: 02:00:00:00:00:02}\n"
     NODE0,
     "key 'sfcs[0].port': memif (a link per readout) needs port memif on each readout that "
     "feeds it too, and readouts[1] (ro1) has \"memif:x\""},
    {"memif pairs on a node",
     HEAD RO0 SFC0
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: memif, mac: 02:00:00:00:00:03}\n",
     "key 'nodes[0].port': memif without a link is for readouts and SFCs (a link per pair); a "
     "node names its own: memif:LINK"},
    {"bad control scheme",
     BASE
     "    control: http://host:80\n",
     "key 'nodes[0].control': \"http://host:80\" is not a ZeroMQ endpoint (tcp://HOST:PORT or "
     "ipc://PATH, where {run} stands for the run directory)"},
    {"tcp without port",
     BASE
     "    metrics: tcp://host\n",
     "key 'nodes[0].metrics': \"tcp://host\" is not a ZeroMQ endpoint (tcp://HOST:PORT or "
     "ipc://PATH, where {run} stands for the run directory)"},
    {"tcp without keys",
     BASE
     "    control: tcp://127.0.0.1:5555\n",
     "key 'nodes[0].control': \"tcp://127.0.0.1:5555\" is a tcp:// endpoint and the farm has no "
     "keys: give 'keys: DIR' (made by 'ebfarm keygen DIR') or 'insecure: true'"},
    {"tcp wildcard *",
     BASE
     "    metrics: tcp://*:5555\n",
     "key 'nodes[0].metrics': \"tcp://*:5555\" binds every interface: give the host's address "
     "(tcp://ADDR:PORT)"},
    {"tcp wildcard 0.0.0.0, with keys",
     "keys: /k\n" BASE
     "    control: tcp://0.0.0.0:5555\n",
     "key 'nodes[0].control': \"tcp://0.0.0.0:5555\" binds every interface: give the host's "
     "address (tcp://ADDR:PORT)"},
    {"tcp wildcard [::], insecure",
     "insecure: true\n" BASE
     "    control: 'tcp://[::]:5555'\n",
     "key 'nodes[0].control': \"tcp://[::]:5555\" binds every interface: give the host's "
     "address (tcp://ADDR:PORT)"},
    {"ipc outside the run directory",
     BASE
     "    metrics: ipc:///etc/passwd\n",
     "key 'nodes[0].metrics': \"ipc:///etc/passwd\" is outside the farm's run directory: give "
     "ipc://{run}/NAME"},
    {"ipc climbing out of the run directory",
     BASE
     "    control: ipc://{run}/../x\n",
     "key 'nodes[0].control': \"ipc://{run}/../x\" is outside the farm's run directory: give "
     "ipc://{run}/NAME"},
    {"keys and insecure together",
     "keys: /k\ninsecure: true\n" BASE,
     "keys 'keys' and 'insecure': \"/k\" and true together: give one (keys for CURVE, "
     "insecure: true for plain tcp://)"},
    {"insecure not a boolean",
     "insecure: maybe\n" BASE,
     "key 'insecure': \"maybe\" is not true or false"},
    {"a NUL in a quoted name",
     "farm: \"t\\x001\"\n" RO0 SFC0 NODE0,
     "the value at line 1, column 7 holds a NUL character (\\0 or \\x00 in quotes): a name, "
     "path or endpoint cannot; remove it"},
    {"duplicate endpoint",
     BASE
     "    control: ipc://{run}/ro0.ctl\n",
     "key 'nodes[0].control': \"ipc://{run}/ro0.ctl\" is already used by readouts[0].control "
     "(\"ipc://{run}/ro0.ctl\")"},
    {"endpoint on a memif socket of the run directory",
     BASE
     "    control: ipc://{run}/ro0-sfc0.sock\n",
     "key 'nodes[0].control': \"ipc://{run}/ro0-sfc0.sock\" is a file the runner makes in the "
     "run directory (farm.state, *.log, the memif sockets *.sock, exit.*, keys, dot files): "
     "give a name of its own, e.g. ipc://{run}/NAME.ctl"},
    {"endpoint on the farm's state file",
     BASE
     "    metrics: ipc://{run}/farm.state\n",
     "key 'nodes[0].metrics': \"ipc://{run}/farm.state\" is a file the runner makes in the run "
     "directory (farm.state, *.log, the memif sockets *.sock, exit.*, keys, dot files): give a "
     "name of its own, e.g. ipc://{run}/NAME.ctl"},
    {"tcp endpoint by localhost and by 127.0.0.1",
     "insecure: true\n" HEAD
     RO0
     "    control: tcp://127.0.0.1:5555\n"
     SFC0 NODE0
     "    metrics: tcp://localhost:5555\n",
     "key 'nodes[0].metrics': \"tcp://localhost:5555\" is already used by readouts[0].control "
     "(\"tcp://127.0.0.1:5555\")"},
    {"duplicate sfc id",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: net_null0\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0, sfc1]\n"
     "sfcs:\n"
     "  - name: sfc0\n"
     "    id: 7\n"
     "    port: net_null1\n"
     "    mac: 02:00:00:00:00:02\n"
     "  - name: sfc1\n"
     "    id: 7\n"
     "    port: net_null2\n"
     "    mac: 02:00:00:00:00:05\n"
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: net_null3, sfc_port: net_null1, mac: 02:00:00:00:00:03}\n"
     "  - {name: n1, sfc: sfc1, port: net_null4, sfc_port: net_null2, mac: 02:00:00:00:00:04}\n",
     "key 'sfcs[1].id': 7 is already the id of sfcs[0]"},
    {"sfc without node",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: net_null0\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0, sfc1]\n"
     "sfcs:\n"
     "  - name: sfc0\n"
     "    port: net_null1\n"
     "    mac: 02:00:00:00:00:02\n"
     "  - name: sfc1\n"
     "    port: net_null2\n"
     "    mac: 02:00:00:00:00:05\n"
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: net_null3, sfc_port: net_null5, mac: 02:00:00:00:00:03}\n",
     "key 'sfcs[1]': SFC 'sfc1' has no node (add a node with sfc: sfc1)"},
    {"sfc not fed",
     HEAD
     "readouts:\n"
     "  - name: ro0\n"
     "    port: net_null0\n"
     "    mac: 02:00:00:00:00:01\n"
     "    sfcs: [sfc0]\n"
     "sfcs:\n"
     "  - name: sfc0\n"
     "    port: net_null1\n"
     "    mac: 02:00:00:00:00:02\n"
     "  - name: sfc1\n"
     "    port: net_null2\n"
     "    mac: 02:00:00:00:00:05\n"
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: net_null3, sfc_port: net_null5, mac: 02:00:00:00:00:03}\n"
     "  - {name: n1, sfc: sfc1, port: net_null4, sfc_port: net_null6, mac: 02:00:00:00:00:04}\n",
     "key 'sfcs[1]': SFC 'sfc1' is fed by no readout (name it in a readout's sfcs)"},
    {"node on the SFC's readout port",
     HEAD
     "readouts:\n"
     "  - {name: ro0, port: net_null0, mac: 02:00:00:00:00:01, sfcs: [sfc0]}\n"
     "sfcs:\n"
     "  - {name: sfc0, port: '0000:5e:00.0', mac: 02:00:00:00:00:02}\n"
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: net_null3, sfc_port: '0000:5e:00.1', "
     "mac: 02:00:00:00:00:03}\n"
     "  - {name: n1, sfc: sfc0, port: net_null4, sfc_port: '0000:5e:00.0', "
     "mac: 02:00:00:00:00:04}\n",
     "key 'nodes[1].sfc_port': \"0000:5e:00.0\" is the readout port of SFC 'sfc0' "
     "(sfcs[0].port); an SFC takes fragments on its readout port and credits on its node "
     "ports: give the nodes another port of the SFC's host"},
    {"credits above max_credits",
     HEAD RO0 SFC0
     "    max_credits: 16\n"
     NODE0
     "    credits: 17\n",
     "key 'nodes[0].credits': 17 is more than sfcs[0].max_credits (16) of its SFC"},
    {"workers above credits",
     HEAD RO0 SFC0 NODE0
     "    credits: 2\n"
     "    workers: 3\n",
     "nodes[0].workers 3 is more than nodes[0].credits 2 (each trigger worker holds at least "
     "one event slot)"},
    {"workers above 15",
     HEAD RO0 SFC0 NODE0
     "    workers: 16\n",
     "key 'nodes[0].workers': 16 is out of range (0 to 15)"},
    {"bad lcores",
     BASE
     "defaults:\n"
     "  lcores: all\n",
     "key 'defaults.lcores': \"all\" is not \"auto\" or an EAL --lcores value such as 0@(0,1) or "
     "1-3"},
    {"eal_args over 16 with those of defaults",
     BASE
     "    eal_args: [--legacy-mem, -n, '4', -r, '2', --legacy-mem, --huge-unlink, --syslog,\n"
     "               --legacy-mem]\n"
     "defaults:\n"
     "  eal_args: [--log-level=8, --log-level, '8', -l, '0', -a, 0000:3b:00.0, --syslog]\n",
     "key 'nodes[0].eal_args[8]': more than 16 EAL arguments with those of defaults"},
    {"eal arg empty",
     BASE
     "    eal_args: ['']\n",
     "key 'nodes[0].eal_args[0]' is empty (an EAL argument such as --log-level=8)"},
    {"bad lcores override",
     BASE
     "    lcores: 0@(1\n",
     "key 'nodes[0].lcores': \"0@(1\" is not \"auto\" or an EAL --lcores value such as 0@(0,1) "
     "or 1-3"},
    {"unknown key in flow entry",
     HEAD RO0 SFC0
     "nodes:\n"
     "  - {name: n0, sfc: sfc0, port: memif:b, mac: 02:00:00:00:00:03, ip: 10.0.0.1}\n",
     "key 'nodes[0].ip' is not allowed (allowed: name, sfc, port, mac, sfc_port, sfc_mac, "
     "credits, workers, host, control, metrics, lcores, memory_mb, telemetry, idle, eal_args)"},
    {"faults unknown key",
     BASE
     "run:\n"
     "  faults: drip=0.1\n",
     "key 'run.faults': \"drip=0.1\" is not a fault spec: unknown key 'drip' (allowed: drop, "
     "dup, reorder, delay, corrupt_payload, corrupt_header, corrupt, window, delay_us, "
     "delay_frames, dup_frames)"},
    {"faults probability above 1",
     BASE
     "run:\n"
     "  faults: dup=0.001,drop=2\n",
     "key 'run.faults': \"dup=0.001,drop=2\" is not a fault spec: 'drop': \"2\" is not a "
     "probability in 0..1"},
    {"faults adding up above 1",
     BASE
     "run:\n"
     "  faults: drop=0.6,reorder=0.6\n",
     "key 'run.faults': \"drop=0.6,reorder=0.6\" is not a fault spec: probabilities add up to "
     "1.2, above 1 (a frame gets one fault at most)"},
    {"faults key without value",
     BASE
     "run:\n"
     "  faults: drop\n",
     "key 'run.faults': \"drop\" is not a fault spec: 'drop' has no value (want drop=VALUE)"},
    {"faults window 0",
     BASE
     "run:\n"
     "  faults: reorder=0.1,window=0\n",
     "key 'run.faults': \"reorder=0.1,window=0\" is not a fault spec: 'window': \"0\" is not an "
     "integer in 1..1024"},
    {"fault_seed negative",
     BASE
     "run:\n"
     "  fault_seed: -1\n",
     "key 'run.fault_seed': \"-1\" is not an integer (0 to 18446744073709551615)"},
    {"silence without @",
     BASE
     "run:\n"
     "  silence: 3\n",
     "key 'run.silence': \"3\" is not SOURCE@EVENT (for example 3@1000)"},
    {"silence bad source",
     BASE
     "run:\n"
     "  silence: x@5\n",
     "key 'run.silence': \"x@5\": source \"x\" is not an integer in 0..127"},
    {"silence bad event",
     BASE
     "run:\n"
     "  silence: 2@-5\n",
     "key 'run.silence': \"2@-5\": event \"-5\" is not an unsigned integer"},
    {"silence source not below sources",
     BASE
     "run:\n"
     "  sources: 4\n"
     "  silence: 4@100\n",
     "key 'run.silence': source 4 is not below run.sources (4)"},
    {"burst_events with rate",
     BASE
     "run:\n"
     "  rate: 1000\n"
     "  burst_events: 100\n",
     "key 'run.burst_events': 100 cannot be used with run.rate 1000 (bursts replace the rate: "
     "give one of them)"},
    {"burst_events text",
     BASE
     "run:\n"
     "  burst_events: many\n",
     "key 'run.burst_events': \"many\" is not an integer (0 to 4294967295)"},
    {"burst_gap_us alone",
     BASE
     "run:\n"
     "  burst_gap_us: 500\n",
     "run.burst_gap_us needs run.burst_events above 0 (the pause between bursts of that many "
     "events)"},
    {"burst_gap_us with burst_events 0",
     BASE
     "run:\n"
     "  burst_events: 0\n"
     "  burst_gap_us: 0\n",
     "run.burst_gap_us needs run.burst_events above 0 (the pause between bursts of that many "
     "events)"},
    {"sfc_dead_ms below two release periods and one",
     BASE
     "run:\n"
     "  sfc_dead_ms: 29\n",
     "key 'run.sfc_dead_ms': 29 is out of range (30 to 200)"},
    {"sfc_dead_ms above 200",
     BASE
     "run:\n"
     "  sfc_dead_ms: 201\n",
     "key 'run.sfc_dead_ms': 201 is out of range (30 to 200)"},
    {"burst_gap_us too long",
     BASE
     "run:\n"
     "  burst_events: 10\n"
     "  burst_gap_us: 60000001\n",
     "key 'run.burst_gap_us': 60000001 is out of range (0 to 60000000)"},
    {"bad payload",
     BASE
     "run:\n"
     "  payload: per_event\n",
     "key 'run.payload': \"per_event\" is not allowed (allowed: auto, prebuilt, per-event)"},
    {"bad frag_dist",
     BASE
     "run:\n"
     "  frag_dist: normal\n",
     "key 'run.frag_dist': \"normal\" is not allowed (allowed: fixed, uniform, lognormal)"},
    {"fixed with a range",
     BASE
     "run:\n"
     "  frag_dist: fixed\n"
     "  frag_min: 64\n"
     "  frag_max: 128\n",
     "key 'run.frag_dist': fixed takes one size, but run.frag_min (64) and run.frag_max (128) "
     "differ (give frag_size, or frag_dist uniform)"},
    {"lognormal without frag_sigma",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_mean: 1000\n",
     "key 'run.frag_sigma' is required with 'run.frag_dist' lognormal (give frag_mean and "
     "frag_sigma, in bytes)"},
    {"lognormal without frag_mean",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_sigma: 100\n",
     "key 'run.frag_mean' is required with 'run.frag_dist' lognormal (give frag_mean and "
     "frag_sigma, in bytes)"},
    {"lognormal with frag_size",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_size: 1000\n"
     "  frag_mean: 1000\n"
     "  frag_sigma: 100\n",
     "key 'run.frag_size' cannot be given with 'run.frag_dist' lognormal (its sizes are clamped "
     "to [frag_min, frag_max], by default from 1 to what an event of run.sources fragments can "
     "carry)"},
    {"events past the default max_event",
     BASE
     "run:\n"
     "  frag_size: 16777216\n",
     "key 'run.frag_max': events of 8 fragments of up to 16777216 B are up to 134217728 B, more "
     "than max_event 16777216 B (fragments of at most 2097152 B fit)"},
    {"events past run.max_event, udp at 9000",
     BASE
     "run:\n"
     "  sources: 128\n"
     "  encap: udp\n"
     "  mtu: 9000\n"
     "  max_event: 16000000\n"
     "  frag_min: 1\n"
     "  frag_max: 200000\n",
     "key 'run.frag_max': events of 128 fragments of up to 200000 B are up to 25600000 B, more "
     "than max_event 16000000 B (fragments of at most 125000 B fit)"},
    {"max_event below its range",
     BASE
     "run:\n"
     "  max_event: 1023\n",
     "key 'run.max_event': 1023 is out of range (1024 to 536870912)"},
    {"max_event past what an SFC's mbufs hold",
     HEAD RO0 SFC0 "    mbufs: 4095\n" NODE0
     "run:\n"
     "  max_event: 16777216\n",
     "key 'run.max_event': 16777216 B take more frames at MTU 1500 than sfcs[0].mbufs 4095 leave "
     "(at most 4336252 B fit: raise the mbufs)"},
    {"events past what an SFC's mbufs hold",
     HEAD RO0 SFC0 "    mbufs: 2047\n" NODE0
     "run:\n"
     "  sources: 2\n"
     "  frag_size: 1000000\n",
     "key 'sfcs[0].mbufs': 2047 hold events of at most 1444476 B at MTU 1500, and events of 2 "
     "fragments of up to 1000000 B are up to 2000000 B (raise the mbufs)"},
    {"frag_mean without lognormal",
     BASE
     "run:\n"
     "  frag_mean: 1000\n",
     "key 'run.frag_mean' is only allowed with 'run.frag_dist' lognormal"},
    {"frag_sigma with uniform",
     BASE
     "run:\n"
     "  frag_dist: uniform\n"
     "  frag_min: 64\n"
     "  frag_max: 128\n"
     "  frag_sigma: 10\n",
     "key 'run.frag_sigma' is only allowed with 'run.frag_dist' lognormal"},
    {"frag_mean 0",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_mean: 0\n"
     "  frag_sigma: 100\n",
     "key 'run.frag_mean': 0 is out of range (1 to 16777216)"},
    {"frag_sigma text",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_mean: 1000\n"
     "  frag_sigma: wide\n",
     "key 'run.frag_sigma': \"wide\" is not a number (0 to 16777216)"},
    {"frag_mean outside the clamp",
     BASE
     "run:\n"
     "  frag_dist: lognormal\n"
     "  frag_min: 100\n"
     "  frag_max: 2000\n"
     "  frag_mean: 5000\n"
     "  frag_sigma: 10\n",
     "key 'run.frag_mean': 5000 is outside [run.frag_min, run.frag_max] (100 to 2000), where "
     "the sizes are clamped"},
    {"eal_args -d",
     BASE
     "    eal_args: [-d, /tmp/x.so]\n",
     "key 'nodes[0].eal_args[0]': \"-d\" is not allowed (" EAL_HINT ")"},
    {"eal_args -d attached",
     BASE
     "    eal_args: [-d/tmp/x.so]\n",
     "key 'nodes[0].eal_args[0]': \"-d/tmp/x.so\" is not allowed (" EAL_HINT ")"},
    {"eal_args --file-prefix",
     BASE
     "    eal_args: [--file-prefix=other]\n",
     "key 'nodes[0].eal_args[0]': \"--file-prefix=other\" is not allowed (" EAL_HINT ")"},
    {"eal_args --file-prefix abbreviated",
     BASE
     "    eal_args: [--file-pre=other]\n",
     "key 'nodes[0].eal_args[0]': \"--file-pre=other\" is not allowed (" EAL_HINT ")"},
    {"eal_args --file-prefix as the value of -l",
     BASE
     "    eal_args: [-l, --file-prefix=x]\n",
     "key 'nodes[0].eal_args[1]': \"--file-prefix=x\" is not allowed (" EAL_HINT ")"},
    {"eal_args a value after a whole option",
     BASE
     "    eal_args: [--log-level=8, /tmp/x.so]\n",
     "key 'nodes[0].eal_args[1]': \"/tmp/x.so\" is not allowed (" EAL_HINT ")"},
    {"eal_args the end of EAL options",
     BASE
     "    eal_args: ['--', --port=x]\n",
     "key 'nodes[0].eal_args[0]': \"--\" is not allowed (" EAL_HINT ")"},
    {"eal_args --vdev in defaults",
     BASE
     "defaults:\n"
     "  eal_args: ['--vdev=net_pcap0,tx_pcap=/etc/passwd']\n",
     "key 'defaults.eal_args[0]': \"--vdev=net_pcap0,tx_pcap=/etc/passwd\" is not allowed ("
     EAL_HINT ")"},
    {"eal_args a value after the defaults' option",
     BASE
     "    eal_args: ['/tmp/x.so']\n"
     "defaults:\n"
     "  eal_args: [--log-level=8]\n",
     "key 'nodes[0].eal_args[0]': \"/tmp/x.so\" is not allowed (" EAL_HINT ")"},
    {"frag_size above 16 MiB",
     BASE
     "run:\n"
     "  frag_size: 16777217\n",
     "key 'run.frag_size': 16777217 is out of range (1 to 16777216)"},
    {"sfc workers out of range",
     HEAD WRO0 WSFC0 "    workers: 16\n" WNODES,
     "key 'sfcs[0].workers': 16 is out of range (0 to 15)"},
    {"sfc workers on 2 node ports but 3 workers",
     HEAD RO0 SFC0 "    workers: 3\n" NODE0
     "  - {name: n2, sfc: sfc0, port: net_null0, sfc_port: '0000:5e:00.0', "
     "mac: 02:00:00:00:00:05}\n"
     "  - {name: n3, sfc: sfc0, port: net_null0, sfc_port: '0000:5e:00.0', "
     "mac: 02:00:00:00:00:06}\n"
     "  - {name: n4, sfc: sfc0, port: net_null0, sfc_port: '0000:5e:00.0', "
     "mac: 02:00:00:00:00:07}\n",
     "key 'sfcs[0].workers': 3 workers and 2 distinct node ports: each worker serves the nodes "
     "of its own node ports (port q to worker q % 3); give every worker one (a memif link per "
     "node), or put every node on one sfc_port the workers share"},
    {"sfc workers without a node each",
     HEAD WRO0 WSFC0 "    workers: 3\n" WNODES,
     "key 'sfcs[0].workers': 3 workers and 2 nodes: each worker serves nodes of its own (the "
     "SFC's node i goes to worker i % 3); give the SFC 3 nodes at least"},
    {"sfc workers with failover on",
     HEAD WRO0 WSFC0 "    workers: 2\n" WNODES
     "run:\n"
     "  replay_mb: 64\n",
     "key 'sfcs[0].workers': 2 workers with failover on (run.replay_mb 64): only an SFC's "
     "worker 0 sends release frames, so the readouts would never free the other workers' "
     "events; remove sfcs[0].workers (one worker) or run.replay_mb (no failover)"},
    {"sfc workers differ between listed SFCs",
     HEAD
     "readouts:\n"
     "  - {name: ro0, port: memif, mac: 02:00:00:00:00:01, sfcs: [sfc0, sfc1]}\n"
     WSFC0 "    workers: 2\n"
     "  - {name: sfc1, port: memif, mac: 02:00:00:00:00:12}\n"
     WNODES
     "  - {name: n2, sfc: sfc1, port: memif:d, mac: 02:00:00:00:00:05}\n",
     "key 'sfcs[0].workers': 2, but sfc1 has 1 and readouts[0] (ro0) lists both: a readout "
     "spreads events over SFCs, then over their workers, and needs the same workers on each"},
    {"sfc worker MAC taken",
     HEAD WRO0 WSFC0 "    workers: 2\n" WNODES
     "  - {name: n2, sfc: sfc0, port: memif:d, mac: 02:00:00:01:00:02}\n",
     "key 'nodes[2].mac': 02:00:00:01:00:02 is already the MAC of sfcs[0].workers"},
    {"too many readouts",
     HEAD "readouts:\n" RX17 SFC0 NODE0,
     "key 'readouts': more than 16 entries (allowed: 1 to 16)"},
};

/* sfcs[].workers: absent is 0 (one data plane); 2 with bare memif and a
 * node per worker loads; worker 1's MAC is the SFC's + 1 in byte 3, its
 * link "<readout>-<sfc>-w1". */
START_TEST(test_sfc_workers)
{
    uint8_t mac[6];
    char link[80];

    ck_assert_msg(parse(HEAD WRO0 WSFC0 WNODES) == 0, "%s", err);
    ck_assert_uint_eq(spec.sfc[0].workers, 0);
    ck_assert_uint_eq(ff_sfc_workers(&spec.sfc[0]), 1);
    ck_assert_msg(parse(HEAD WRO0 WSFC0 "    workers: 2\n" WNODES) == 0, "%s", err);
    ck_assert_uint_eq(spec.sfc[0].workers, 2);
    ck_assert_uint_eq(ff_sfc_workers(&spec.sfc[0]), 2);
    ff_worker_mac(&spec, 0, 1, mac);
    static const uint8_t want[6] = {2, 0, 0, 1, 0, 2};
    ck_assert_mem_eq(mac, want, 6);
    ff_worker_mac(&spec, 0, 0, mac);
    ck_assert_mem_eq(mac, spec.sfc[0].mac, 6);
    ff_worker_link(&spec, 0, 0, 0, link, sizeof(link));
    ck_assert_str_eq(link, "ro0-sfc0");
    ff_worker_link(&spec, 0, 0, 1, link, sizeof(link));
    ck_assert_str_eq(link, "ro0-sfc0-w1");
    /* One readout port the workers share (a named memif link, a NIC): the
     * readouts address worker w's MAC over it. */
    ck_assert_msg(parse(HEAD RO0 SFC0 "    workers: 2\n" NODE0 N1) == 0, "%s", err);
    ck_assert_uint_eq(ff_sfc_workers(&spec.sfc[0]), 2);
    /* And one node port for every node (behind a switch). */
    ck_assert_msg(parse(HEAD RO0 SFC0 "    workers: 2\n"
                        "nodes:\n"
                        "  - {name: n0, sfc: sfc0, port: net_null0, sfc_port: '0000:5e:00.0', "
                        "mac: 02:00:00:00:00:03}\n"
                        "  - {name: n1, sfc: sfc0, port: net_null0, sfc_port: '0000:5e:00.0', "
                        "mac: 02:00:00:00:00:04}\n") == 0, "%s", err);
    /* 1 is one data plane too: no memif or node condition. */
    ck_assert_msg(parse(HEAD RO0 SFC0 "    workers: 1\n" NODE0) == 0, "%s", err);
    ck_assert_uint_eq(ff_sfc_workers(&spec.sfc[0]), 1);
}
END_TEST

/* The sim: section is kept as written for ebfarm sim; a file without
 * one has none. */
START_TEST(test_sim_section)
{
    ck_assert_msg(parse(BASE) == 0, "%s", err);
    ck_assert_int_eq(spec.sim.present, 0);
    ck_assert_msg(parse(BASE "sim:\n  sfcs: 175\n  link_gbps: 1.5\n  trigger: lognormal\n"
                        "  faults: [\"node_death 3 1.5\", \"link_loss 0 2 0.1\"]\n") == 0,
                  "%s", err);
    ck_assert_int_eq(spec.sim.present, 1);
    ck_assert_str_eq(spec.sim.sfcs, "175");
    ck_assert_str_eq(spec.sim.link_gbps, "1.5");
    ck_assert_str_eq(spec.sim.trigger, "lognormal");
    ck_assert_str_eq(spec.sim.rate_hz, "");
    ck_assert_uint_eq(spec.sim.n_faults, 2);
    ck_assert_str_eq(spec.sim.fault[1], "link_loss 0 2 0.1");
}
END_TEST

START_TEST(test_bad)
{
    const struct bad *b = &bad[_i];
    char want[1024];

    snprintf(want, sizeof(want), "farm file 'bad.yaml': %s", b->msg);
    ck_assert_msg(parse(b->yaml) == -EINVAL, "%s: loaded", b->what);
    ck_assert_msg(strcmp(err, want) == 0, "%s:\n got: %s\nwant: %s", b->what, err, want);
}
END_TEST

START_TEST(test_file_errors)
{
    char path[] = "/tmp/ebf-test-farm-XXXXXX";
    int fd;

    ck_assert_int_eq(farm_spec_load("/nonexistent/x.yaml", &spec, err, sizeof(err)), -ENOENT);
    ck_assert_str_eq(err, "farm file '/nonexistent/x.yaml': cannot open it: No such file or "
                          "directory");
    /* A file on disk gets the same checks as one in memory. */
    fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, BASE "    credits: 5000\n", strlen(BASE) + 18),
                     (ssize_t)(strlen(BASE) + 18));
    close(fd);
    ck_assert_int_eq(farm_spec_load(path, &spec, err, sizeof(err)), -EINVAL);
    char want[256];
    snprintf(want, sizeof(want), "farm file '%s': key 'nodes[0].credits': 5000 is out of range "
             "(1 to 4096)", path);
    ck_assert_str_eq(err, want);
    unlink(path);
    /* A short buffer gets a truncated, terminated message. */
    char small[16];
    ck_assert_int_eq(farm_spec_parse("farm: [", 7, "x", &spec, small, sizeof(small)), -EINVAL);
    ck_assert_str_eq(small, "farm file 'x': ");
}
END_TEST

/* farm_spec_check on specs changed in code. */
START_TEST(test_check_in_code)
{
    load_example("demo.yaml");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);

    spec.run.mtu = 120;
    spec.run.encap = FF_ENCAP_UDP;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.mtu': 120 leaves no room for a fragment piece "
                          "(udp needs 138: 42 of headers, 40 fragment header, 48 event header, "
                          "8 bytes of piece)");
    spec.run.mtu = 200;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.mtu': 200 is out of range (256 to 9600)");
    spec.run.mtu = 1500;

    spec.node[1].sfc = 3;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'nodes[1].sfc': 3 is not an SFC index (0 to 0)");
    spec.node[1].sfc = 0;

    spec.n_nodes = 0;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'nodes': 0 entries (allowed: 1 to 64)");
    spec.n_nodes = 2;

    snprintf(spec.node[0].port.dev, sizeof(spec.node[0].port.dev), "Bad Link");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'nodes[0].port': \"memif:Bad Link\" is not a port "
                          "(memif:LINK with LINK of a-z, 0-9, _ and -; memif (readouts and SFCs: a link per readout-SFC pair); a PCI address such as "
                          "0000:3b:00.0 or 3b:00.0; or a DPDK vdev such as "
                          "net_af_packet0,iface=eth0)");
    snprintf(spec.node[0].port.dev, sizeof(spec.node[0].port.dev), "sfc0-node0");

    spec.run.accept = 2;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.accept': 2 is out of range (0 to 1)");
    spec.run.accept = 0.1;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);

    /* The fault keys, as the demo's options set them. */
    snprintf(spec.run.faults, sizeof(spec.run.faults), "drop=0.1,bogus=1");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.faults': \"drop=0.1,bogus=1\" is not a fault "
                          "spec: unknown key 'bogus' (allowed: drop, dup, reorder, delay, "
                          "corrupt_payload, corrupt_header, corrupt, window, delay_us, "
                          "delay_frames, dup_frames)");
    snprintf(spec.run.faults, sizeof(spec.run.faults), "none");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);
    spec.run.silence_source = 8;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.silence': source 8 is not below run.sources (8)");
    spec.run.silence_source = 7;
    spec.run.burst_gap_us = 10;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': run.burst_gap_us needs run.burst_events above 0 (the "
                          "pause between bursts of that many events)");
    spec.run.burst_events = 100;
    spec.run.rate = 5e4;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.burst_events': 100 cannot be used with run.rate "
                          "50000 (bursts replace the rate: give one of them)");
    spec.run.rate = 0;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);
    spec.run.frag_max = 2048;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.frag_dist': fixed takes one size, but "
                          "run.frag_min (1024) and run.frag_max (2048) differ (give frag_size, "
                          "or frag_dist uniform)");
    spec.run.frag_dist = FF_DIST_LOGNORMAL;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 'demo': key 'run.frag_mean': 0 is out of range (1 to 16777216)");
    spec.run.frag_mean = 1500;
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), 0);
}
END_TEST

/* --- Hostile files ---------------------------------------------------------- */

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* 1 MiB of nested flow lists kept libyaml's scanner busy for minutes (its
 * cost per token grows with the depth): refused at depth 9, at once. */
START_TEST(test_nested)
{
    static const struct {
        const char *open, *close, *msg;
    } kinds[] = {
        {"[", "]", "lists and mappings nested deeper than 8 levels at line 1, column 9 (a farm "
                   "file needs 4)"},
        {"{a: ", "}", "lists and mappings nested deeper than 8 levels at line 1, column 33 (a "
                      "farm file needs 4)"},
        {"- ", "", "lists and mappings nested deeper than 8 levels at line 1, column 17 (a farm "
                   "file needs 4)"},
    };
    const size_t size = 1u << 20;
    char *yaml = malloc(size + 1), want[256];

    ck_assert_ptr_nonnull(yaml);
    for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t o = 0, no = strlen(kinds[k].open), nc = strlen(kinds[k].close);
        unsigned depth = 0;
        while (o + no + (depth + 1) * nc + 1 <= size) {
            memcpy(yaml + o, kinds[k].open, no);
            o += no;
            depth++;
        }
        if (nc == 0)
            yaml[o++] = 'x';
        for (unsigned i = 0; i < depth && nc; i++, o += nc)
            memcpy(yaml + o, kinds[k].close, nc);
        double t0 = mono_now();
        err[0] = '\0';
        ck_assert_int_eq(farm_spec_parse(yaml, o, "nested.yaml", &spec, err, sizeof(err)),
                         -EINVAL);
        double took = mono_now() - t0;
        snprintf(want, sizeof(want), "farm file 'nested.yaml': %s", kinds[k].msg);
        ck_assert_str_eq(err, want);
        ck_assert_msg(took < 2, "%s: %.3f s for %zu bytes nested %u deep", kinds[k].open, took,
                      o, depth);
    }
    free(yaml);
    /* 8 levels pass the pre-scan: the schema refuses the shape. */
    ck_assert_int_eq(parse(BASE "    eal_args: [[[[[x]]]]]\n"), -EINVAL);
    ck_assert_str_eq(err, "farm file 'bad.yaml': key 'nodes[0].eal_args[0]' must be a single "
                          "value, not a list");
    ck_assert_int_eq(parse(BASE "    eal_args: [[[[[[x]]]]]]\n"), -EINVAL);
    ck_assert_str_eq(err, "farm file 'bad.yaml': lists and mappings nested deeper than 8 levels "
                          "at line 16, column 20 (a farm file needs 4)");
}
END_TEST

/* More than 1 MiB is refused before any parser reads it, from memory and
 * from disk; exactly 1 MiB is read. */
START_TEST(test_too_big)
{
    const size_t max = 1u << 20;
    char *yaml = malloc(max + 2), path[] = "/tmp/ebf-test-big-XXXXXX", want[256];

    ck_assert_ptr_nonnull(yaml);
    memset(yaml, '#', max + 1);
    memcpy(yaml, BASE, strlen(BASE));
    yaml[max - 1] = '\n';
    ck_assert_msg(farm_spec_parse(yaml, max, "big.yaml", &spec, err, sizeof(err)) == 0, "%s",
                  err);
    ck_assert_int_eq(farm_spec_parse(yaml, max + 1, "big.yaml", &spec, err, sizeof(err)),
                     -EFBIG);
    ck_assert_str_eq(err, "farm file 'big.yaml': 1048577 bytes is too big (at most 1048576)");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, yaml, max + 1), (ssize_t)(max + 1));
    close(fd);
    ck_assert_int_eq(farm_spec_load(path, &spec, err, sizeof(err)), -EFBIG);
    snprintf(want, sizeof(want), "farm file '%s': 1048577 bytes is too big (at most 1048576)",
             path);
    ck_assert_str_eq(err, want);
    unlink(path);
    free(yaml);
}
END_TEST

/* A farm of n nodes on sfc0; memif: each its own link, else all behind one
 * switch port of the SFC. */
static char *many_nodes(unsigned n, int memif)
{
    size_t len = 4096 + n * 160, o;
    char *yaml = malloc(len);

    ck_assert_ptr_nonnull(yaml);
    o = (size_t)snprintf(yaml, len, "%s%snodes:\n", HEAD RO0, SFC0);
    for (unsigned i = 0; i < n; i++) {
        if (memif)
            o += (size_t)snprintf(yaml + o, len - o,
                                  "  - {name: n%u, sfc: sfc0, port: memif:n%u, "
                                  "mac: '02:00:00:00:01:%02x'}\n", i, i, i);
        else
            o += (size_t)snprintf(yaml + o, len - o,
                                  "  - {name: n%u, sfc: sfc0, port: 'net_af_packet%u,iface=n%u', "
                                  "sfc_port: 'net_af_packet9,iface=sw', "
                                  "mac: '02:00:00:00:01:%02x'}\n", i, i, i, i);
    }
    return yaml;
}

/* One SFC opens at most 32 ports (RTE_MAX_ETHPORTS): its own and 31 node
 * links pass; one more is refused when the file is checked, not after a
 * start-up timeout. Nodes behind one switch port share it. */
START_TEST(test_ports_per_sfc)
{
    static const char msg[] =
        "farm file 'bad.yaml': key 'nodes[31]': SFC 'sfc0' would open 33 ports (its own and 32 "
        "toward its first 32 nodes), more than the 32 one process can open (RTE_MAX_ETHPORTS); "
        "spread the nodes over more SFCs, or give them one sfc_port behind a switch";
    char *yaml = many_nodes(31, 1);

    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_nodes, 31);
    free(yaml);
    yaml = many_nodes(32, 1);
    ck_assert_int_eq(parse(yaml), -EINVAL);
    ck_assert_str_eq(err, msg);
    free(yaml);
    yaml = many_nodes(40, 1);
    ck_assert_int_eq(parse(yaml), -EINVAL);
    ck_assert_str_eq(err, msg);
    free(yaml);
    yaml = many_nodes(64, 0);
    ck_assert_msg(parse(yaml) == 0, "%s", err);
    ck_assert_uint_eq(spec.n_nodes, 64);
    free(yaml);
    /* farm_spec_check counts the same for a spec built in code. */
    yaml = many_nodes(31, 1);
    ck_assert_int_eq(parse(yaml), 0);
    free(yaml);
    spec.node[31] = spec.node[30];
    spec.n_nodes = 32;
    for (unsigned i = 30; i < 32; i++) {
        struct ff_node *d = &spec.node[i];
        snprintf(d->p.name, sizeof(d->p.name), "n%u", i);
        snprintf(d->p.control, sizeof(d->p.control), "ipc://{run}/n%u.ctl", i);
        snprintf(d->p.metrics, sizeof(d->p.metrics), "ipc://{run}/n%u.pub", i);
        d->port = (struct ff_port){.kind = FF_PORT_VDEV};
        snprintf(d->port.dev, sizeof(d->port.dev), "net_null%u", i);
        d->sfc_port = (struct ff_port){.kind = FF_PORT_VDEV, .dev = "net_null99"};
        d->mac[5] = (uint8_t)i;
    }
    ck_assert_msg(farm_spec_check(&spec, err, sizeof(err)) == 0, "%s", err);
    snprintf(spec.node[31].sfc_port.dev, sizeof(spec.node[31].sfc_port.dev), "net_null98");
    ck_assert_int_eq(farm_spec_check(&spec, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "farm 't': key 'nodes[31]': SFC 'sfc0' would open 33 ports (its own "
                          "and 32 toward its first 32 nodes), more than the 32 one process can "
                          "open (RTE_MAX_ETHPORTS); spread the nodes over more SFCs, or give "
                          "them one sfc_port behind a switch");
}
END_TEST

Suite *farmfile_suite(void);

Suite *farmfile_suite(void)
{
    Suite *s = suite_create("farmfile");
    TCase *tc = tcase_create("farmfile");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_demo);
    tcase_add_test(tc, test_demo_udp);
    tcase_add_test(tc, test_real_nics);
    tcase_add_test(tc, test_faults_example);
    tcase_add_test(tc, test_every_example);
    tcase_add_test(tc, test_minimal_defaults);
    tcase_add_test(tc, test_sim_section);
    tcase_add_test(tc, test_ports_and_overrides);
    tcase_add_test(tc, test_faults_and_sizes);
    tcase_add_test(tc, test_trigger);
    tcase_add_test(tc, test_store);
    tcase_add_test(tc, test_sfc_workers);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, test_file_errors);
    tcase_add_test(tc, test_check_in_code);
    suite_add_tcase(s, tc);

    tc = tcase_create("hostile");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_nested);
    tcase_add_test(tc, test_too_big);
    tcase_add_test(tc, test_ports_per_sfc);
    suite_add_tcase(s, tc);
    return s;
}
