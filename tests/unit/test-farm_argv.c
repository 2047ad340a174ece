/* SPDX-License-Identifier: BSD-3-Clause */
/* test-farm_argv.c - the daemons' command lines built from a farm spec, argument by argument. */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "farm_argv.h"
#include "farmfile.h"

static struct farm_spec spec;

static void setup(void)
{
    char err[512] = "";

    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/demo.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    /* Fixed lcores: "auto" depends on this machine (test_auto_lcores). */
    snprintf(spec.sfc[0].p.lcores, sizeof(spec.sfc[0].p.lcores), "1-3");
    for (unsigned i = 0; i < spec.n_nodes; i++)
        snprintf(spec.node[i].p.lcores, sizeof(spec.node[i].p.lcores), "2");
    snprintf(spec.readout[0].p.lcores, sizeof(spec.readout[0].p.lcores), "0@(0,1)");
}

/* The process as the runner would list it, with endpoints under /r. */
static struct farm_proc proc_of(const char *name, enum farm_role role)
{
    struct farm_proc p = {.role = role};

    snprintf(p.name, sizeof(p.name), "%s", name);
    snprintf(p.prefix, sizeof(p.prefix), "pfx-%s", name);
    snprintf(p.control, sizeof(p.control), "ipc:///r/%s.ctl", name);
    snprintf(p.metrics, sizeof(p.metrics), "ipc:///r/%s.pub", name);
    return p;
}

/* c starts with want (NULL-terminated); with exact, it holds just that. */
static void check_argv(const struct farm_argv *c, const char *const *want, int exact)
{
    int n = 0;

    for (; want[n]; n++) {
        ck_assert_msg(n < c->argc, "argv has %d arguments, want more: '%s' next", c->argc, want[n]);
        ck_assert_msg(strcmp(c->argv[n], want[n]) == 0, "argv[%d] is '%s', want '%s'", n,
                      c->argv[n], want[n]);
    }
    if (exact)
        ck_assert_int_eq(c->argc, n);
    ck_assert_ptr_null(c->argv[c->argc]);
}

static void build(enum farm_role role, unsigned k, const char *name, struct farm_argv *c)
{
    struct farm_proc p = proc_of(name, role);

    memset(c, 0, sizeof(*c));
    farm_argv_build(&spec, role, k, "/b", &p, "/r", c);
}

START_TEST(test_sfc)
{
    static const char *const want[] = {
        "/b/sfc/ebfarm-sfc", "--no-huge", "-m", "256", "--no-pci",
        "--lcores=1-3", "--file-prefix=pfx-sfc0", "--log-level=lib.eal:warning",
        "--vdev=net_memif0,role=server,id=0,socket=/r/ro0-sfc0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:00:01,rsize=11",
        "--vdev=net_memif1,role=server,id=0,socket=/r/sfc0-node0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:01:00,rsize=11",
        "--vdev=net_memif2,role=server,id=0,socket=/r/sfc0-node1.sock,socket-abstract=no,"
        "mac=02:eb:00:00:01:01,rsize=11",
        "--", "--port=net_memif0", "--node=net_memif1,02:eb:00:00:02:00",
        "--node=net_memif2,02:eb:00:00:02:01", "--readout-mac=02:eb:00:00:00:10", "--sources=8",
        "--sfc-id=0", "--timeout-ms=100",
        "--capacity=4096", "--mbufs=32767", "--max-credits=256", "--mtu=1500",
        "--udp-port=50505", "--idle=backoff", "--control=ipc:///r/sfc0.ctl",
        "--metrics=ipc:///r/sfc0.pub", "--metrics-period-ms=1000", "--name=sfc0", NULL,
    };
    struct farm_argv c;

    build(FARM_SFC, 0, "sfc0", &c);
    check_argv(&c, want, 1);
    farm_argv_free(&c);
    ck_assert_int_eq(c.argc, 0);
}
END_TEST

START_TEST(test_node)
{
    static const char *const want[] = {
        "/b/node/ebfarm-node", "--no-huge", "-m", "128", "--no-pci",
        "--lcores=2", "--file-prefix=pfx-node1", "--log-level=lib.eal:warning",
        "--vdev=net_memif0,role=client,id=0,socket=/r/sfc0-node1.sock,socket-abstract=no,"
        "mac=02:eb:00:00:02:01,rsize=11",
        "--", "--port=net_memif0", "--sfc-mac=02:eb:00:00:01:01", "--mac=02:eb:00:00:02:01",
        "--node-id=1", "--credits=32", "--trigger-us=1", "--accept=0.1", "--accept-seed=0",
        "--mtu=1500", "--idle=backoff", "--control=ipc:///r/node1.ctl", "--metrics=ipc:///r/node1.pub",
        "--metrics-period-ms=1000", "--name=node1", NULL,
    };
    struct farm_argv c;

    build(FARM_NODE, 1, "node1", &c);
    check_argv(&c, want, 1);
    farm_argv_free(&c);
}
END_TEST

/* run.trigger reaches every node: the plug-in, each parameter, the timeout. */
START_TEST(test_node_trigger)
{
    static const char *const want[] = {
        "/b/node/ebfarm-node", "--no-huge", "-m", "128", "--no-pci",
        "--lcores=2", "--file-prefix=pfx-node0", "--log-level=lib.eal:warning",
        "--vdev=net_memif0,role=client,id=0,socket=/r/sfc0-node0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:02:00,rsize=11",
        "--", "--port=net_memif0", "--sfc-mac=02:eb:00:00:01:00", "--mac=02:eb:00:00:02:00",
        "--node-id=0", "--credits=32", "--trigger-us=1", "--accept=0.1", "--accept-seed=0",
        "--max-event=8192", "--trigger=/p/t.so", "--trigger-param=sources=0,3", "--trigger-param=threshold=9",
        "--trigger-timeout-ms=2.5",
        "--mtu=1500", "--idle=backoff", "--control=ipc:///r/node0.ctl", "--metrics=ipc:///r/node0.pub",
        "--metrics-period-ms=1000", "--name=node0", NULL,
    };
    struct farm_argv c;

    snprintf(spec.run.trigger.plugin, sizeof(spec.run.trigger.plugin), "/p/t.so");
    snprintf(spec.run.trigger.param[0], sizeof(spec.run.trigger.param[0]), "sources=0,3");
    snprintf(spec.run.trigger.param[1], sizeof(spec.run.trigger.param[1]), "threshold=9");
    spec.run.trigger.n_params = 2;
    spec.run.trigger.timeout_ms = 2.5;
    build(FARM_NODE, 0, "node0", &c);
    check_argv(&c, want, 1);
    farm_argv_free(&c);
}
END_TEST

/* run.store reaches every node: its directory, its SFC's id (for the file
 * names) and every limit. */
START_TEST(test_node_store)
{
    static const char *const want[] = {
        "--accept-seed=0", "--max-event=8192", "--store=/data/ev", "--sfc-id=3",
        "--store-max-file-mb=64",
        "--store-max-file-s=30", "--store-fsync=interval", "--store-buffer-mb=8",
        "--store-max-mbs=2.5", "--mtu=1500", NULL,
    };
    struct farm_argv c;

    spec.run.store = (struct ff_store){.dir = "/data/ev", .max_file_mb = 64, .max_file_s = 30,
                                       .fsync = "interval", .buffer_mb = 8, .max_mbs = 2.5};
    spec.sfc[spec.node[0].sfc].id = 3;
    build(FARM_NODE, 0, "node0", &c);
    int at = -1;
    for (int i = 0; i < c.argc && at < 0; i++)
        if (strcmp(c.argv[i], want[0]) == 0)
            at = i;
    ck_assert_int_ge(at, 0);
    for (int k = 0; want[k]; k++) {
        ck_assert_int_lt(at + k, c.argc);
        ck_assert_str_eq(c.argv[at + k], want[k]);
    }
    farm_argv_free(&c);
}
END_TEST

/* The argument after the one equal to a in c, or NULL. */
static const char *after(const struct farm_argv *c, const char *a)
{
    for (int i = 0; i + 1 < c->argc; i++)
        if (strcmp(c->argv[i], a) == 0)
            return c->argv[i + 1];
    return NULL;
}

/* run.max_event reaches every SFC and node as --max-event (after the UDP
 * port, after the accept seed); unset, neither gets it (a node with
 * storage or a plug-in gets the run's largest event: test_node_store). */
START_TEST(test_max_event)
{
    struct farm_argv c;

    build(FARM_SFC, 0, "sfc0", &c);
    ck_assert_str_eq(after(&c, "--udp-port=50505"), "--idle=backoff");
    farm_argv_free(&c);
    spec.run.max_event = 10000000;
    build(FARM_SFC, 0, "sfc0", &c);
    ck_assert_str_eq(after(&c, "--udp-port=50505"), "--max-event=10000000");
    farm_argv_free(&c);
    build(FARM_NODE, 0, "node0", &c);
    ck_assert_str_eq(after(&c, "--accept-seed=0"), "--max-event=10000000");
    farm_argv_free(&c);
}
END_TEST

/* The farm's keys reach every daemon as --curve-keys, insecure as
 * --insecure, after the endpoints. */
START_TEST(test_keys_and_insecure)
{
    static const char *const keyed[] = {"--control=ipc:///r/node1.ctl",
                                        "--metrics=ipc:///r/node1.pub", "--curve-keys=/k",
                                        "--metrics-period-ms=1000", "--name=node1", NULL};
    static const char *const plain[] = {"--control=ipc:///r/node1.ctl",
                                        "--metrics=ipc:///r/node1.pub", "--insecure",
                                        "--metrics-period-ms=1000", "--name=node1", NULL};
    struct farm_argv c;

    snprintf(spec.keys, sizeof(spec.keys), "/k");
    build(FARM_NODE, 1, "node1", &c);
    ck_assert_int_ge(c.argc, 5);
    check_argv(&(struct farm_argv){.argc = 5, .argv = {c.argv[c.argc - 5], c.argv[c.argc - 4],
                                                       c.argv[c.argc - 3], c.argv[c.argc - 2],
                                                       c.argv[c.argc - 1]}},
               keyed, 1);
    farm_argv_free(&c);
    spec.keys[0] = '\0';
    spec.insecure = 1;
    build(FARM_NODE, 1, "node1", &c);
    check_argv(&(struct farm_argv){.argc = 5, .argv = {c.argv[c.argc - 5], c.argv[c.argc - 4],
                                                       c.argv[c.argc - 3], c.argv[c.argc - 2],
                                                       c.argv[c.argc - 1]}},
               plain, 1);
    farm_argv_free(&c);
    spec.insecure = 0;
}
END_TEST

START_TEST(test_readout)
{
    static const char *const want[] = {
        "/b/readout/ebfarm-readout", "--no-huge", "-m", "128", "--no-pci",
        "--lcores=0@(0,1)", "--file-prefix=pfx-ro0", "--log-level=lib.eal:warning",
        "--vdev=net_memif0,role=client,id=0,socket=/r/ro0-sfc0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:00:10,rsize=11",
        "--", "--port=net_memif0", "--sfc-mac=02:eb:00:00:00:01", "--mac=02:eb:00:00:00:10",
        "--sources=8", "--encap=eth", "--udp-port=50505", "--mtu=1500", "--idle=backoff",
        "--control=ipc:///r/ro0.ctl", "--metrics=ipc:///r/ro0.pub", "--metrics-period-ms=1000",
        "--name=ro0", NULL,
    };
    struct farm_argv c;

    build(FARM_READOUT, 0, "ro0", &c);
    check_argv(&c, want, 1);
    farm_argv_free(&c);
}
END_TEST

/* Failover (run.replay_mb) with run.sfc_dead_ms: the readout gets its
 * buffer and the bound, the SFC its release period and the same bound;
 * without replay_mb the bound is given to neither. */
START_TEST(test_sfc_dead_ms)
{
    static const char *const ro[] = {"--mtu=1500", "--replay-mb=32", "--sfc-dead-ms=150",
                                     "--idle=backoff", NULL};
    static const char *const sfc[] = {"--udp-port=50505", "--release-ms=10",
                                      "--sfc-dead-ms=150", "--idle=backoff", NULL};
    struct farm_argv c;
    int n;

    spec.run.replay_mb = 32;
    spec.run.sfc_dead_ms = 150;
    build(FARM_READOUT, 0, "ro0", &c);
    for (n = 0; n < c.argc && strcmp(c.argv[n], "--mtu=1500") != 0; n++)
        ;
    ck_assert_int_lt(n, c.argc);
    for (int i = 0; ro[i]; i++)
        ck_assert_str_eq(c.argv[n + i], ro[i]);
    farm_argv_free(&c);
    build(FARM_SFC, 0, "sfc0", &c);
    for (n = 0; n < c.argc && strcmp(c.argv[n], "--udp-port=50505") != 0; n++)
        ;
    ck_assert_int_lt(n, c.argc);
    for (int i = 0; sfc[i]; i++)
        ck_assert_str_eq(c.argv[n + i], sfc[i]);
    farm_argv_free(&c);
    spec.run.replay_mb = 0;
    build(FARM_SFC, 0, "sfc0", &c);
    for (n = 0; n < c.argc; n++)
        ck_assert_msg(strncmp(c.argv[n], "--sfc-dead-ms", 13) != 0, "%s", c.argv[n]);
    farm_argv_free(&c);
}
END_TEST

/* The farm's MTU reaches every daemon; above 2030 every memif link gets a
 * buffer (bsize) that takes a whole frame: MTU + 18, rounded up to 64. */
START_TEST(test_jumbo_mtu)
{
    static const char *const vdev[] = {
        "--vdev=net_memif0,role=server,id=0,socket=/r/ro0-sfc0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:00:01,rsize=11,bsize=9024",
        "--vdev=net_memif1,role=server,id=0,socket=/r/sfc0-node0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:01:00,rsize=11,bsize=9024",
        "--vdev=net_memif2,role=server,id=0,socket=/r/sfc0-node1.sock,socket-abstract=no,"
        "mac=02:eb:00:00:01:01,rsize=11,bsize=9024",
        "--vdev=net_memif0,role=client,id=0,socket=/r/sfc0-node1.sock,socket-abstract=no,"
        "mac=02:eb:00:00:02:01,rsize=11,bsize=9024",
        "--vdev=net_memif0,role=client,id=0,socket=/r/ro0-sfc0.sock,socket-abstract=no,"
        "mac=02:eb:00:00:00:10,rsize=11,bsize=2112",
    };
    struct farm_argv c;

    spec.run.mtu = 9000;
    build(FARM_SFC, 0, "sfc0", &c);
    for (int i = 0; i < 3; i++)
        ck_assert_str_eq(c.argv[8 + i], vdev[i]);
    ck_assert_str_eq(c.argv[22], "--mtu=9000");
    farm_argv_free(&c);
    build(FARM_NODE, 1, "node1", &c);
    ck_assert_str_eq(c.argv[8], vdev[3]);
    ck_assert_str_eq(c.argv[18], "--mtu=9000");
    farm_argv_free(&c);
    spec.run.mtu = 2031;         /* a frame of 2049 B: the first MTU past 2048 */
    build(FARM_READOUT, 0, "ro0", &c);
    ck_assert_str_eq(c.argv[8], vdev[4]);
    ck_assert_str_eq(c.argv[16], "--mtu=2031");
    farm_argv_free(&c);
    spec.run.mtu = 2030;         /* 2048 B: memif's default buffer takes it */
    build(FARM_READOUT, 0, "ro0", &c);
    ck_assert_str_eq(c.argv[8], "--vdev=net_memif0,role=client,id=0,socket=/r/ro0-sfc0.sock,"
                                "socket-abstract=no,mac=02:eb:00:00:00:10,rsize=11");
    farm_argv_free(&c);
}
END_TEST

/* Nodes behind one switch port share the SFC's device, opened once; a PCI
 * port is allowed by address, without --no-pci; extra EAL arguments last. */
START_TEST(test_shared_port_pci_and_eal_args)
{
    static const char *const want[] = {
        "/b/sfc/ebfarm-sfc", "-m", "256", "--no-telemetry", "--lcores=1-3",
        "--file-prefix=pfx-sfc0", "--log-level=lib.eal:warning", "--log-level=8",
        "-a", "0000:3b:00.0",
        "--vdev=net_af_packet0,iface=sw0",
        "--", "--port=0000:3b:00.0", "--node=net_af_packet0,02:eb:00:00:02:00",
        "--node=net_af_packet0,02:eb:00:00:02:01", NULL,
    };
    struct farm_argv c;

    spec.sfc[0].p.no_huge = 0;
    spec.sfc[0].p.telemetry = 0;
    spec.sfc[0].p.n_eal_args = 1;
    snprintf(spec.sfc[0].p.eal_args[0], sizeof(spec.sfc[0].p.eal_args[0]), "--log-level=8");
    spec.sfc[0].port = (struct ff_port){.kind = FF_PORT_PCI, .dev = "0000:3b:00.0"};
    for (unsigned i = 0; i < 2; i++)
        spec.node[i].sfc_port = (struct ff_port){.kind = FF_PORT_VDEV,
                                                 .dev = "net_af_packet0,iface=sw0"};
    build(FARM_SFC, 0, "sfc0", &c);
    check_argv(&c, want, 0);         /* the SFC's own options after these: test_sfc */
    farm_argv_free(&c);
}
END_TEST

START_TEST(test_auto_lcores)
{
    cpu_set_t set;
    char cpus[256] = "";
    size_t o = 0;
    struct farm_argv c;
    char want[600];

    /* The highest lcore ids DPDK has, never 0: dpdk-dumpcap's main lcore is
     * the lowest CPU it runs on, and it must not share the daemon's. */
    ck_assert_int_ge(FARM_MAX_LCORE, 64);
    snprintf(spec.node[0].p.lcores, sizeof(spec.node[0].p.lcores), "auto");
    ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            o += (size_t)snprintf(cpus + o, sizeof(cpus) - o, "%s%d", o ? "," : "", cpu);
    snprintf(want, sizeof(want), "--lcores=%d@(%s)", FARM_MAX_LCORE - 1, cpus);
    build(FARM_NODE, 0, "node0", &c);
    ck_assert_str_eq(c.argv[5], want);
    farm_argv_free(&c);

    /* An SFC of 3 workers: 3 lcores, the main lcore the lowest id. */
    snprintf(spec.sfc[0].p.lcores, sizeof(spec.sfc[0].p.lcores), "auto");
    spec.sfc[0].workers = 3;
    snprintf(want, sizeof(want), "--lcores=%d@(%s),%d@(%s),%d@(%s)", FARM_MAX_LCORE - 3, cpus,
             FARM_MAX_LCORE - 2, cpus, FARM_MAX_LCORE - 1, cpus);
    build(FARM_SFC, 0, "sfc0", &c);
    int found = 0;
    for (int i = 0; i < c.argc; i++)
        found += strcmp(c.argv[i], want) == 0;
    ck_assert_int_eq(found, 1);
    farm_argv_free(&c);
    spec.sfc[0].workers = 0;
    snprintf(spec.sfc[0].p.lcores, sizeof(spec.sfc[0].p.lcores), "1-3");
}
END_TEST

/* A command line longer than FARM_ARGV_MAX - 1 arguments is cut there,
 * still NULL-terminated: 9 EAL arguments, 16 extra ones, 65 ports, "--",
 * --port and the first three --node of 64. */
START_TEST(test_full_argv_is_cut)
{
    struct farm_argv c;

    spec.node[0].p.telemetry = 0;
    spec.node[0].p.n_eal_args = FF_MAX_EAL_ARGS;
    for (unsigned i = 0; i < FF_MAX_EAL_ARGS; i++)
        snprintf(spec.node[0].p.eal_args[i], sizeof(spec.node[0].p.eal_args[i]), "-x%u", i);
    spec.sfc[0].p = spec.node[0].p;
    for (unsigned i = 2; i < FF_MAX_NODES; i++) {
        spec.node[i] = spec.node[1];
        snprintf(spec.node[i].port.dev, sizeof(spec.node[i].port.dev), "l%u", i);
        spec.node[i].sfc_port = spec.node[i].port;
    }
    spec.n_nodes = FF_MAX_NODES;
    build(FARM_SFC, 0, "sfc0", &c);
    ck_assert_int_eq(c.argc, FARM_ARGV_MAX - 1);
    ck_assert_ptr_null(c.argv[FARM_ARGV_MAX - 1]);
    ck_assert_str_eq(c.argv[89], "--vdev=net_memif64,role=server,id=0,socket=/r/l63.sock,"
                                 "socket-abstract=no,mac=02:eb:00:00:01:01,rsize=11");
    ck_assert_str_eq(c.argv[90], "--");
    ck_assert_str_eq(c.argv[94], "--node=net_memif3,02:eb:00:00:02:01");
    farm_argv_free(&c);
}
END_TEST

/* The index of the argument that starts with prefix, or -1. */
static int find_arg(const struct farm_argv *c, const char *prefix)
{
    for (int i = 0; i < c->argc; i++)
        if (strncmp(c->argv[i], prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

/* --readout-mac lists every readout that sends to the SFC (and no other),
 * in the file's order; accept_any_readout leaves it out. */
START_TEST(test_readout_macs)
{
    struct farm_argv c;

    spec.n_sfcs = 2;
    spec.sfc[1] = spec.sfc[0];
    spec.n_readouts = 3;
    spec.readout[1] = spec.readout[0];
    spec.readout[1].mac[5] = 0x11;
    spec.readout[1].sfc[0] = 1;                 /* to sfc1 only */
    spec.readout[2] = spec.readout[0];
    spec.readout[2].mac[5] = 0x12;
    spec.readout[2].n_sfcs = 2;
    spec.readout[2].sfc[0] = 1;
    spec.readout[2].sfc[1] = 0;                 /* to sfc1 and sfc0 */
    build(FARM_SFC, 0, "sfc0", &c);
    int i = find_arg(&c, "--readout-mac=");
    ck_assert_int_ge(i, 0);
    ck_assert_str_eq(c.argv[i], "--readout-mac=02:eb:00:00:00:10,02:eb:00:00:00:12");
    ck_assert_str_eq(c.argv[i + 1], "--sources=8");
    farm_argv_free(&c);
    build(FARM_SFC, 1, "sfc1", &c);
    ck_assert_str_eq(c.argv[find_arg(&c, "--readout-mac=")],
                     "--readout-mac=02:eb:00:00:00:11,02:eb:00:00:00:12");
    farm_argv_free(&c);
    spec.sfc[0].accept_any_readout = 1;
    build(FARM_SFC, 0, "sfc0", &c);
    ck_assert_int_eq(find_arg(&c, "--readout-mac"), -1);
    ck_assert_int_ge(find_arg(&c, "--sources=8"), 0);
    farm_argv_free(&c);
}
END_TEST

/* farms/multi.yaml: port memif on 4 readouts and 2 SFCs is a link per
 * pair; each readout has a client port per SFC (--sfc-port, in its sfcs'
 * order) and its quarter of the sources; each SFC a server port per
 * readout (--port, then --readout-port). */
START_TEST(test_memif_pairs)
{
    char err[512] = "";
    struct farm_argv c;

    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/multi.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    build(FARM_READOUT, 2, "ro2", &c);
    ck_assert_str_eq(c.argv[find_arg(&c, "--vdev=net_memif0")],
                     "--vdev=net_memif0,role=client,id=0,socket=/r/ro2-sfc0.sock,"
                     "socket-abstract=no,mac=02:eb:00:00:00:12,rsize=11");
    ck_assert_str_eq(c.argv[find_arg(&c, "--vdev=net_memif1")],
                     "--vdev=net_memif1,role=client,id=0,socket=/r/ro2-sfc1.sock,"
                     "socket-abstract=no,mac=02:eb:00:00:00:12,rsize=11");
    ck_assert_int_eq(find_arg(&c, "--vdev=net_memif2"), -1);
    int i = find_arg(&c, "--port=");
    ck_assert_str_eq(c.argv[i], "--port=net_memif0");
    ck_assert_str_eq(c.argv[i + 1], "--sfc-port=net_memif0,net_memif1");
    ck_assert_str_eq(c.argv[i + 2], "--sfc-mac=02:eb:00:00:00:01,02:eb:00:00:00:31");
    ck_assert_str_eq(c.argv[find_arg(&c, "--sources=")], "--sources=2");
    ck_assert_str_eq(c.argv[find_arg(&c, "--source-base=")], "--source-base=4");
    farm_argv_free(&c);
    build(FARM_READOUT, 0, "ro0", &c);
    ck_assert_int_eq(find_arg(&c, "--source-base="), -1);     /* 0: the default */
    farm_argv_free(&c);
    build(FARM_SFC, 1, "sfc1", &c);
    for (unsigned r = 0; r < 4; r++) {
        char want[160], pre[32];
        snprintf(pre, sizeof(pre), "--vdev=net_memif%u,", r);
        snprintf(want, sizeof(want), "--vdev=net_memif%u,role=server,id=0,socket=/r/ro%u-sfc1.sock,"
                 "socket-abstract=no,mac=02:eb:00:00:00:31,rsize=11", r, r);
        ck_assert_str_eq(c.argv[find_arg(&c, pre)], want);
    }
    i = find_arg(&c, "--port=");
    ck_assert_str_eq(c.argv[i], "--port=net_memif0");
    ck_assert_str_eq(c.argv[i + 1], "--readout-port=net_memif1,net_memif2,net_memif3");
    ck_assert_str_eq(c.argv[find_arg(&c, "--node=")], "--node=net_memif4,02:eb:00:00:02:01");
    ck_assert_str_eq(c.argv[find_arg(&c, "--sources=")], "--sources=8");
    ck_assert_str_eq(c.argv[find_arg(&c, "--sfc-id=")], "--sfc-id=1");
    farm_argv_free(&c);
}
END_TEST

/* Two SFCs of 2 workers (multi.yaml): each readout has a link and MAC per
 * SFC and worker, worker-major; each SFC serves a run of links per
 * worker, takes --workers 2 and one lcore more. */
START_TEST(test_sfc_workers)
{
    char err[512] = "";
    struct farm_argv c;

    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/multi.yaml", &spec, err, sizeof(err)) == 0,
                  "%s", err);
    spec.sfc[0].workers = spec.sfc[1].workers = 2;
    ck_assert_msg(farm_spec_check(&spec, err, sizeof(err)) == 0, "%s", err);
    build(FARM_READOUT, 2, "ro2", &c);
    static const char *const links[] = {"ro2-sfc0", "ro2-sfc1", "ro2-sfc0-w1", "ro2-sfc1-w1"};
    for (unsigned p = 0; p < 4; p++) {
        char want[160], pre[32];
        snprintf(pre, sizeof(pre), "--vdev=net_memif%u,", p);
        snprintf(want, sizeof(want), "--vdev=net_memif%u,role=client,id=0,socket=/r/%s.sock,"
                 "socket-abstract=no,mac=02:eb:00:00:00:12,rsize=11", p, links[p]);
        ck_assert_str_eq(c.argv[find_arg(&c, pre)], want);
    }
    int i = find_arg(&c, "--port=");
    ck_assert_str_eq(c.argv[i + 1], "--sfc-port=net_memif0,net_memif1,net_memif2,net_memif3");
    ck_assert_str_eq(c.argv[i + 2], "--sfc-mac=02:eb:00:00:00:01,02:eb:00:00:00:31,"
                                    "02:eb:00:01:00:01,02:eb:00:01:00:31");
    farm_argv_free(&c);
    build(FARM_SFC, 1, "sfc1", &c);
    for (unsigned p = 0; p < 8; p++) {
        char want[160], pre[32];
        snprintf(pre, sizeof(pre), "--vdev=net_memif%u,", p);
        snprintf(want, sizeof(want), "--vdev=net_memif%u,role=server,id=0,socket=/r/ro%u-sfc1%s"
                 ".sock,socket-abstract=no,mac=02:eb:00:%02x:00:31,rsize=11", p, p % 4,
                 p < 4 ? "" : "-w1", p / 4);
        ck_assert_str_eq(c.argv[find_arg(&c, pre)], want);
    }
    i = find_arg(&c, "--port=");
    ck_assert_str_eq(c.argv[i], "--port=net_memif0");
    ck_assert_str_eq(c.argv[i + 1], "--readout-port=net_memif1,net_memif2,net_memif3,net_memif4,"
                                    "net_memif5,net_memif6,net_memif7");
    ck_assert_str_eq(c.argv[find_arg(&c, "--node=")], "--node=net_memif8,02:eb:00:00:02:01");
    ck_assert_str_eq(c.argv[find_arg(&c, "--workers=")], "--workers=2");
    farm_argv_free(&c);
    spec.sfc[1].workers = 1;     /* one: no --workers */
    build(FARM_SFC, 1, "sfc1", &c);
    ck_assert_int_eq(find_arg(&c, "--workers="), -1);
    farm_argv_free(&c);
}
END_TEST

/* SFCs of 2 workers on one NIC port each (hosts-example.yaml): the readout
 * addresses both workers' MACs over its one port; the SFC keeps its one
 * --port (the workers share it) and its nodes' one port, with --workers 2. */
START_TEST(test_sfc_workers_shared)
{
    char err[512] = "";
    struct farm_argv c;

    ck_assert_msg(farm_spec_load(EBF_SOURCE_ROOT "/farms/hosts-example.yaml", &spec, err,
                                 sizeof(err)) == 0, "%s", err);
    spec.sfc[0].workers = spec.sfc[1].workers = 2;
    snprintf(spec.sfc[0].p.lcores, sizeof(spec.sfc[0].p.lcores), "auto");
    snprintf(spec.sfc[1].p.lcores, sizeof(spec.sfc[1].p.lcores), "auto");
    ck_assert_msg(farm_spec_check(&spec, err, sizeof(err)) == 0, "%s", err);
    build(FARM_READOUT, 0, "ro0", &c);
    ck_assert_int_eq(find_arg(&c, "--sfc-port="), -1);
    ck_assert_str_eq(c.argv[find_arg(&c, "--port=")], "--port=0000:3b:00.0");
    ck_assert_str_eq(c.argv[find_arg(&c, "--sfc-mac=")],
                     "--sfc-mac=02:eb:00:00:00:01,02:eb:00:00:00:02,02:eb:00:01:00:01,"
                     "02:eb:00:01:00:02");
    farm_argv_free(&c);
    build(FARM_SFC, 0, "sfc0", &c);
    ck_assert_str_eq(c.argv[find_arg(&c, "--port=")], "--port=0000:5e:00.0");
    ck_assert_int_eq(find_arg(&c, "--readout-port="), -1);
    ck_assert_str_eq(c.argv[find_arg(&c, "--workers=")], "--workers=2");
    farm_argv_free(&c);
}
END_TEST

Suite *farm_argv_suite(void);

Suite *farm_argv_suite(void)
{
    Suite *s = suite_create("farm_argv");
    TCase *tc = tcase_create("farm_argv");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_sfc);
    tcase_add_test(tc, test_sfc_dead_ms);
    tcase_add_test(tc, test_node);
    tcase_add_test(tc, test_memif_pairs);
    tcase_add_test(tc, test_sfc_workers);
    tcase_add_test(tc, test_sfc_workers_shared);
    tcase_add_test(tc, test_node_trigger);
    tcase_add_test(tc, test_node_store);
    tcase_add_test(tc, test_max_event);
    tcase_add_test(tc, test_readout);
    tcase_add_test(tc, test_keys_and_insecure);
    tcase_add_test(tc, test_jumbo_mtu);
    tcase_add_test(tc, test_shared_port_pci_and_eal_args);
    tcase_add_test(tc, test_auto_lcores);
    tcase_add_test(tc, test_full_argv_is_cut);
    tcase_add_test(tc, test_readout_macs);
    suite_add_tcase(s, tc);
    return s;
}
