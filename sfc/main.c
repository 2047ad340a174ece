/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-sfc: options, EAL, pools and ports around the SFC data plane. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "ebf_ctl.h"
#include "ebf_kv.h"
#include "ebf_opt.h"
#include "ebf_port.h"
#include "sfc_ctl.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: ebfarm-sfc [EAL options] -- --rx-port NAME --node PORT,MAC [--node ...] [options]\n"
            "  --rx-port NAME        DPDK device the readout frames arrive on\n"
            "  --node NAME,MAC       a trigger node: its port and MAC; node ids in order\n"
            "  --sources N           sources every event has (8)\n"
            "  --sfc-id N            this SFC's id in event frames (0)\n"
            "  --timeout-ms T        an event still building after T ms goes incomplete (100)\n"
            "  --capacity N          events held at once: building, ready, unacked (4096)\n"
            "  --mbufs N             receive mbufs (32767)\n"
            "  --max-credits N       credits + unacked events per node (256)\n"
            "  --mtu N               link MTU (1500)\n"
            "  --burst N             rx burst (32)\n"
            "  --udp-port P          UDP port of fragments (50505)\n"
            "  --idle spin|backoff   idle policy (spin)\n"
            "  --drain-quiet-ms T    at stop, input quiet this long ends intake (200)\n"
            "  --drain-timeout-ms T  at stop, wait for acks at most T (5000)\n"
            "  --node-timeout-ms T   a node silent for T ms is dead: its events go to\n"
            "                        other nodes; 0 never declares one dead (1000)\n"
            "  --stats FILE          write final counters to FILE at exit\n"
            "  --ready-file FILE     create FILE once every port is started\n"
            "  --control EP          run control: ZeroMQ REP endpoint (tcp:// or ipc://);\n"
            "                        the SFC then waits for configure and start. Without\n"
            "                        it, run 1 starts at once and SIGINT stops it\n"
            "  --metrics EP          publish metrics snapshots on this ZeroMQ PUB endpoint\n"
            "  --metrics-period-ms T snapshot period (1000)\n"
            "  --name NAME           instance name in status and metrics (sfc)\n");
}

struct opts {
    const char *rx_name;
    const char *node_name[SFC_MAX_NODES];
    const char *stats;
    const char *ready_file;
    uint64_t mbufs;
    struct ebf_ctl_conf ctl;
};

static int parse_node(const char *val, struct sfc_conf *c, struct opts *o)
{
    static char names[SFC_MAX_NODES][128];
    const char *comma = strrchr(val, ',');

    if (c->n_nodes == SFC_MAX_NODES) {
        fprintf(stderr, "sfc: option '--node': more than %d nodes\n", SFC_MAX_NODES);
        return -EINVAL;
    }
    if (!comma || comma == val || (size_t)(comma - val) >= sizeof(names[0])) {
        fprintf(stderr, "sfc: option '--node': \"%s\" is not PORT,MAC\n", val);
        return -EINVAL;
    }
    memcpy(names[c->n_nodes], val, (size_t)(comma - val));
    names[c->n_nodes][comma - val] = '\0';
    if (ebf_opt_mac("sfc", "--node", comma + 1, c->node[c->n_nodes].mac))
        return -EINVAL;
    o->node_name[c->n_nodes] = names[c->n_nodes];
    c->n_nodes++;
    return 0;
}

static int parse_args(int argc, char **argv, struct sfc_conf *c, struct opts *o)
{
    static const struct option lo[] = {
        {"rx-port", 1, 0, 'r'}, {"node", 1, 0, 'n'}, {"sources", 1, 0, 's'},
        {"sfc-id", 1, 0, 'i'}, {"timeout-ms", 1, 0, 't'}, {"capacity", 1, 0, 'c'},
        {"mbufs", 1, 0, 'm'}, {"max-credits", 1, 0, 'k'}, {"mtu", 1, 0, 'M'},
        {"burst", 1, 0, 'B'}, {"udp-port", 1, 0, 'u'}, {"idle", 1, 0, 'l'},
        {"drain-quiet-ms", 1, 0, 'q'}, {"drain-timeout-ms", 1, 0, 'd'},
        {"stats", 1, 0, 'o'}, {"ready-file", 1, 0, 'R'}, {"help", 0, 0, 'h'},
        {"control", 1, 0, 'C'}, {"metrics", 1, 0, 'P'}, {"metrics-period-ms", 1, 0, 'T'},
        {"name", 1, 0, 'N'}, {"node-timeout-ms", 1, 0, 'D'},
        {0, 0, 0, 0},
    };
    uint64_t v;
    int ch, rc = 0;

    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'r': o->rx_name = optarg; break;
        case 'n': rc = parse_node(optarg, c, o); break;
        case 's':
            rc = ebf_opt_u64("sfc", "--sources", optarg, 1, EBF_MAX_SOURCES, &v);
            c->n_sources = (uint16_t)v;
            break;
        case 'i':
            rc = ebf_opt_u64("sfc", "--sfc-id", optarg, 0, 65535, &v);
            c->sfc_id = (uint16_t)v;
            break;
        case 't': rc = ebf_opt_double("sfc", "--timeout-ms", optarg, 0.001, 3.6e6, &c->timeout_ms); break;
        case 'c':
            rc = ebf_opt_u64("sfc", "--capacity", optarg, 16, 1u << 20, &v);
            c->capacity = (uint32_t)v;
            break;
        case 'm': rc = ebf_opt_u64("sfc", "--mbufs", optarg, 1023, 1u << 22, &o->mbufs); break;
        case 'k':
            rc = ebf_opt_u64("sfc", "--max-credits", optarg, 1, 65535, &v);
            c->max_credits = (uint32_t)v;
            break;
        case 'M':
            rc = ebf_opt_u64("sfc", "--mtu", optarg, 256, 9600, &v);
            c->mtu = (uint16_t)v;
            break;
        case 'B':
            rc = ebf_opt_u64("sfc", "--burst", optarg, 1, 64, &v);
            c->burst = (uint16_t)v;
            break;
        case 'u':
            rc = ebf_opt_u64("sfc", "--udp-port", optarg, 1, 65535, &v);
            c->udp_port = (uint16_t)v;
            break;
        case 'l': rc = ebf_opt_idle("sfc", "--idle", optarg, &c->idle.mode); break;
        case 'q': rc = ebf_opt_double("sfc", "--drain-quiet-ms", optarg, 1, 3.6e6, &c->drain_quiet_ms); break;
        case 'd': rc = ebf_opt_double("sfc", "--drain-timeout-ms", optarg, 1, 3.6e6, &c->drain_timeout_ms); break;
        case 'D': rc = ebf_opt_double("sfc", "--node-timeout-ms", optarg, 0, 3.6e6, &c->node_timeout_ms); break;
        case 'o': o->stats = optarg; break;
        case 'R': o->ready_file = optarg; break;
        case 'C': o->ctl.control = optarg; break;
        case 'P': o->ctl.metrics = optarg; break;
        case 'T': rc = ebf_opt_double("sfc", "--metrics-period-ms", optarg, 10, 60000, &o->ctl.period_ms); break;
        case 'N': o->ctl.instance = optarg; break;
        case 'h': usage(); exit(0);
        default: usage(); return -EINVAL;
        }
    }
    if (rc)
        return rc;
    if (optind < argc) {
        fprintf(stderr, "sfc: unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if (!o->rx_name || c->n_nodes == 0) {
        fprintf(stderr, "sfc: --rx-port and at least one --node are required\n");
        return -EINVAL;
    }
    return 0;
}

/* Start a port once even when several nodes share it. */
static void start_port(uint16_t port, struct rte_mempool *pool, const char *name)
{
    static uint8_t started[RTE_MAX_ETHPORTS];

    if (started[port])
        return;
    if (ebf_port_start(port, pool, 1024, 1024))
        rte_exit(EXIT_FAILURE, "sfc: cannot start port '%s'\n", name);
    started[port] = 1;
}

int main(int argc, char **argv)
{
    struct sfc_conf c = {
        .n_sources = 8, .udp_port = EBF_UDP_PORT_DEFAULT, .capacity = 4096,
        .max_credits = 256, .timeout_ms = 100, .mtu = 1500, .burst = 32,
        .drain_quiet_ms = 200, .drain_timeout_ms = 5000, .node_timeout_ms = 1000,
    };
    struct opts o = {.mbufs = 32767};

    int n = rte_eal_init(argc, argv);
    if (n < 0)
        rte_exit(EXIT_FAILURE, "sfc: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    argc -= n;
    argv += n;
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    if (parse_args(argc, argv, &c, &o))
        ebf_eal_exit(2, "sfc: bad options (see --help)\n");
    if (ebf_port_find(o.rx_name, &c.rx_port))
        ebf_eal_exit(EXIT_FAILURE, "sfc: no port '%s'\n", o.rx_name);
    for (uint16_t i = 0; i < c.n_nodes; i++)
        if (ebf_port_find(o.node_name[i], &c.node[i].port))
            ebf_eal_exit(EXIT_FAILURE, "sfc: no port '%s' for node %u\n", o.node_name[i], i);
    int socket = (int)rte_socket_id();
    struct rte_mempool *rx_pool = ebf_pool_create("sfc_rx", (unsigned)o.mbufs, 2048, socket);
    struct rte_mempool *ack_pool = ebf_pool_create("sfc_ack", 4095, 2048, socket);
    c.hdr_pool = ebf_pool_create("sfc_hdr", 8191, 128, socket);
    c.clone_pool = ebf_pool_create("sfc_clone", (unsigned)o.mbufs, 0, socket);
    if (!rx_pool || !ack_pool || !c.hdr_pool || !c.clone_pool)
        ebf_eal_exit(EXIT_FAILURE, "sfc: mempools: %s (raise EAL -m)\n", rte_strerror(rte_errno));
    c.max_frames = (uint32_t)o.mbufs;
    start_port(c.rx_port, rx_pool, o.rx_name);
    for (uint16_t i = 0; i < c.n_nodes; i++) {
        if (c.node[i].port == c.rx_port)
            ebf_eal_exit(EXIT_FAILURE, "sfc: node %u shares the readout port '%s'\n", i, o.rx_name);
        start_port(c.node[i].port, ack_pool, o.node_name[i]);
    }
    static struct sfc_runner runner;
    if (sfc_runner_init(&runner, &c, rx_pool))
        ebf_eal_exit(EXIT_FAILURE, "sfc: cannot create the data plane: %s\n", strerror(errno));
    signal(SIGINT, ebf_ctl_on_signal);
    signal(SIGTERM, ebf_ctl_on_signal);
    o.ctl.conf = &runner.conf;
    o.ctl.autostart = o.ctl.control == NULL;
    struct ebf_ctl *ctl = ebf_ctl_create(&o.ctl, &sfc_ctl_ops);
    if (!ctl)
        ebf_eal_exit(EXIT_FAILURE, "sfc: cannot start run control: %s\n", strerror(errno));
    if (o.ready_file) {
        FILE *f = fopen(o.ready_file, "w");
        if (!f || fclose(f) != 0)
            ebf_eal_exit(EXIT_FAILURE, "sfc: cannot create '%s': %s\n", o.ready_file,
                         strerror(errno));
    }
    ebf_ctl_serve(ctl, &runner, &c.idle);
    ebf_ctl_destroy(ctl);
    if (o.stats && ebf_ctl_write_stats(&sfc_ctl_ops, &runner, o.stats) != 0)
        ebf_eal_exit(EXIT_FAILURE, "sfc: cannot write '%s': %s\n", o.stats, strerror(errno));
    sfc_runner_fini(&runner);
    ebf_port_close(c.rx_port);
    for (uint16_t i = 0; i < c.n_nodes; i++)
        if (rte_eth_dev_is_valid_port(c.node[i].port))
            ebf_port_close(c.node[i].port);
    ebf_eal_cleanup();
    return EXIT_SUCCESS;
}
