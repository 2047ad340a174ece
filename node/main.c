/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-node: options, EAL and port set-up around the node data plane. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "ebf_ctl.h"
#include "ebf_kv.h"
#include "ebf_opt.h"
#include "ebf_port.h"
#include "node_ctl.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: ebfarm-node [EAL options] -- --port NAME --sfc-mac MAC [options]\n"
            "  --port NAME           DPDK device linked to the SFC\n"
            "  --sfc-mac MAC         the SFC's MAC on that link\n"
            "  --node-id N           this node's id at its SFC (0)\n"
            "  --mac MAC             this node's MAC (default: the port's)\n"
            "  --credits N           event slots granted to the SFC (32)\n"
            "  --trigger-us T        busy time per event, microseconds (0)\n"
            "  --accept F            fraction of events accepted, 0..1 (0.1)\n"
            "  --accept-seed N       seed of the accept decision (0)\n"
            "  --ack-batch N         acks per credit frame, 1..64 (16)\n"
            "  --heartbeat-ms T      empty credit frame after T ms of silence (100)\n"
            "  --burst N             rx burst (32)\n"
            "  --idle spin|backoff   idle policy (spin)\n"
            "  --drain-quiet-ms T    at stop, input quiet this long ends the run (200)\n"
            "  --stats FILE          write final counters to FILE at exit\n"
            "  --link-timeout MS     wait for link up at most MS (10000)\n"
            "  --control EP          run control: ZeroMQ REP endpoint (tcp:// or ipc://);\n"
            "                        the node then waits for configure and start. Without\n"
            "                        it, run 1 starts at once and SIGINT stops it\n"
            "  --metrics EP          publish metrics snapshots on this ZeroMQ PUB endpoint\n"
            "  --metrics-period-ms T snapshot period (1000)\n"
            "  --name NAME           instance name in status and metrics (node)\n");
}

struct opts {
    const char *port_name;
    const char *stats;
    int have_mac, have_sfc;
    uint64_t link_timeout_ms;
    struct ebf_ctl_conf ctl;
};

static int parse_args(int argc, char **argv, struct node_conf *c, struct opts *o)
{
    static const struct option lo[] = {
        {"port", 1, 0, 'p'}, {"sfc-mac", 1, 0, 'S'}, {"node-id", 1, 0, 'n'},
        {"mac", 1, 0, 'm'}, {"credits", 1, 0, 'c'}, {"trigger-us", 1, 0, 't'},
        {"accept", 1, 0, 'a'}, {"accept-seed", 1, 0, 'x'}, {"ack-batch", 1, 0, 'b'},
        {"heartbeat-ms", 1, 0, 'H'}, {"burst", 1, 0, 'B'}, {"idle", 1, 0, 'l'},
        {"drain-quiet-ms", 1, 0, 'q'}, {"stats", 1, 0, 'o'},
        {"link-timeout", 1, 0, 'L'}, {"help", 0, 0, 'h'},
        {"control", 1, 0, 'C'}, {"metrics", 1, 0, 'P'}, {"metrics-period-ms", 1, 0, 'T'},
        {"name", 1, 0, 'N'}, {0, 0, 0, 0},
    };
    uint64_t v;
    int ch, rc = 0;

    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->port_name = optarg; break;
        case 'S': rc = ebf_opt_mac("node", "--sfc-mac", optarg, c->sfc_mac); o->have_sfc = 1; break;
        case 'n':
            rc = ebf_opt_u64("node", "--node-id", optarg, 0, 1023, &v);
            c->node_id = (uint16_t)v;
            break;
        case 'm': rc = ebf_opt_mac("node", "--mac", optarg, c->mac); o->have_mac = 1; break;
        case 'c':
            rc = ebf_opt_u64("node", "--credits", optarg, 1, 4096, &v);
            c->credits = (uint16_t)v;
            break;
        case 't': rc = ebf_opt_double("node", "--trigger-us", optarg, 0, 1e6, &c->trigger_us); break;
        case 'a': rc = ebf_opt_double("node", "--accept", optarg, 0, 1, &c->accept); break;
        case 'x': rc = ebf_opt_u64("node", "--accept-seed", optarg, 0, UINT64_MAX, &c->accept_seed); break;
        case 'b':
            rc = ebf_opt_u64("node", "--ack-batch", optarg, 1, EBF_MAX_ACKS, &v);
            c->ack_batch = (uint16_t)v;
            break;
        case 'H': rc = ebf_opt_double("node", "--heartbeat-ms", optarg, 0, 3.6e6, &c->heartbeat_ms); break;
        case 'B':
            rc = ebf_opt_u64("node", "--burst", optarg, 1, 64, &v);
            c->burst = (uint16_t)v;
            break;
        case 'l': rc = ebf_opt_idle("node", "--idle", optarg, &c->idle.mode); break;
        case 'q': rc = ebf_opt_double("node", "--drain-quiet-ms", optarg, 1, 3.6e6, &c->drain_quiet_ms); break;
        case 'o': o->stats = optarg; break;
        case 'L': rc = ebf_opt_u64("node", "--link-timeout", optarg, 1, 3600000, &o->link_timeout_ms); break;
        case 'C': o->ctl.control = optarg; break;
        case 'P': o->ctl.metrics = optarg; break;
        case 'T': rc = ebf_opt_double("node", "--metrics-period-ms", optarg, 10, 60000, &o->ctl.period_ms); break;
        case 'N': o->ctl.instance = optarg; break;
        case 'h': usage(); exit(0);
        default: usage(); return -EINVAL;
        }
    }
    if (rc)
        return rc;
    if (optind < argc) {
        fprintf(stderr, "node: unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if (!o->port_name || !o->have_sfc) {
        fprintf(stderr, "node: --port and --sfc-mac are required\n");
        return -EINVAL;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct node_conf c = {
        .credits = 32, .accept = 0.1, .ack_batch = 16, .heartbeat_ms = 100, .burst = 32,
        .drain_quiet_ms = 200,
    };
    struct opts o = {.link_timeout_ms = 10000};
    struct timespec ts;

    int n = rte_eal_init(argc, argv);
    if (n < 0)
        rte_exit(EXIT_FAILURE, "node: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    argc -= n;
    argv += n;
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    if (parse_args(argc, argv, &c, &o))
        ebf_eal_exit(2, "node: bad options (see --help)\n");
    if (ebf_port_find(o.port_name, &c.port))
        ebf_eal_exit(EXIT_FAILURE, "node: no port '%s'\n", o.port_name);
    if (!o.have_mac) {
        struct rte_ether_addr ea;
        rte_eth_macaddr_get(c.port, &ea);
        memcpy(c.mac, ea.addr_bytes, 6);
    }
    /* A new epoch for every process: the wall clock in milliseconds, so a
     * node restarted within the same second still rejoins as a new
     * incarnation (the SFC compares epochs as wrapping 32-bit numbers). */
    clock_gettime(CLOCK_REALTIME, &ts);
    c.epoch = (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
    c.pool = ebf_pool_create("node_pool", 8191, 2048, (int)rte_socket_id());
    if (!c.pool)
        ebf_eal_exit(EXIT_FAILURE, "node: mempool: %s\n", rte_strerror(rte_errno));
    if (ebf_port_start(c.port, c.pool, 1024, 1024))
        ebf_eal_exit(EXIT_FAILURE, "node: cannot start port '%s'\n", o.port_name);
    signal(SIGINT, ebf_ctl_on_signal);
    signal(SIGTERM, ebf_ctl_on_signal);
    static volatile sig_atomic_t never;
    if (ebf_port_wait_up(c.port, &never, (unsigned)o.link_timeout_ms) == -ETIMEDOUT)
        ebf_eal_exit(EXIT_FAILURE, "node: link of '%s' not up after %lu ms\n", o.port_name,
                     (unsigned long)o.link_timeout_ms);
    static struct node_runner runner;
    if (node_runner_init(&runner, &c))
        ebf_eal_exit(EXIT_FAILURE, "node: cannot create the data plane: %s\n", strerror(errno));
    o.ctl.conf = &runner.conf;
    o.ctl.autostart = o.ctl.control == NULL;
    struct ebf_ctl *ctl = ebf_ctl_create(&o.ctl, &node_ctl_ops);
    if (!ctl)
        ebf_eal_exit(EXIT_FAILURE, "node: cannot start run control: %s\n", strerror(errno));
    ebf_ctl_serve(ctl, &runner, &c.idle);
    ebf_ctl_destroy(ctl);
    if (o.stats && ebf_ctl_write_stats(&node_ctl_ops, &runner, o.stats) != 0)
        ebf_eal_exit(EXIT_FAILURE, "node: cannot write '%s': %s\n", o.stats, strerror(errno));
    node_runner_fini(&runner);
    ebf_port_close(c.port);
    ebf_eal_cleanup();
    return EXIT_SUCCESS;
}
