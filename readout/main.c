/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-readout: options, EAL and port set-up around ro_run(). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "ebf_ctl.h"
#include "ebf_kv.h"
#include "ebf_opt.h"
#include "ebf_port.h"
#include "ro_ctl.h"
#include "ro_fault.h"
#include "ro_fault_tx.h"
#include "ro_size.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: ebfarm-readout [EAL options] -- --port NAME --sfc-mac MAC[,MAC...] [options]\n"
            "  --port NAME          DPDK device to send on (vdev name or PCI address)\n"
            "  --sfc-mac LIST       SFC MACs; event e goes to SFC e %% count\n"
            "  --mac MAC            source MAC (default: the port's)\n"
            "  --sources N          readout boards emulated on this port (8)\n"
            "  --events N           events to send (0: until --duration or SIGINT) (0)\n"
            "  --duration S         stop after S seconds (0: no limit)\n"
            "  --rate EV/S          event rate (0: as fast as the port takes frames) (0)\n"
            "  --frag-size N        fixed fragment size in bytes (1024)\n"
            "  --frag-min N --frag-max N  uniform fragment sizes\n"
            "  --frag-dist fixed|uniform|lognormal  fragment-size distribution (fixed\n"
            "                       with --frag-size, uniform with --frag-min/--frag-max)\n"
            "  --frag-mean B --frag-sigma S  log-normal mean and standard deviation in\n"
            "                       bytes; sizes clamped to [--frag-min, --frag-max]\n"
            "                       (default [1, 1048576])\n"
            "  --encap eth|udp      raw Ethernet (EtherType 0x88b5) or UDP/IPv4 (eth)\n"
            "  --udp-port P         UDP port (50505)\n"
            "  --src-ip A --sfc-ip A[,A...]  IPv4 addresses for --encap udp\n"
            "  --mtu N              link MTU (1500)\n"
            "  --burst N            frames per tx burst (32)\n"
            "  --seed N             seed of the fragment sizes (1)\n"
            "  --idle spin|backoff  idle policy: spin (production) or back off (spin)\n"
            "  --faults SPEC        frame faults, e.g. drop=0.001,dup=0.001,reorder=0.01,\n"
            "                       corrupt=0.0005,delay=0.001 (keys: drop, dup, reorder,\n"
            "                       delay, corrupt, corrupt_payload, corrupt_header: per-frame\n"
            "                       probabilities; window=N, delay_us=T, delay_frames=N)\n"
            "  --fault-seed N       seed of the fault decisions (1)\n"
            "  --silence S@E        source S sends nothing from event E on\n"
            "  --burst-events N     send N events back to back, then pause (not with --rate)\n"
            "  --burst-gap-us T     the pause between bursts (0)\n"
            "  --stats FILE         write final counters to FILE at exit\n"
            "  --link-timeout MS    wait for link up at most MS (10000)\n"
            "  --control EP         run control: ZeroMQ REP endpoint (tcp:// or ipc://); the\n"
            "                       readout then waits for configure and start. Without it,\n"
            "                       run 1 starts at once\n"
            "  --metrics EP         publish metrics snapshots on this ZeroMQ PUB endpoint\n"
            "  --metrics-period-ms T  snapshot period (1000)\n"
            "  --name NAME          instance name in status and metrics (readout)\n"
            "  --linger             without --control: when done, keep the link up until\n"
            "                       SIGINT: shared-memory links such as memif drop what\n"
            "                       the peer has not read when a side closes\n");
}

struct opts {
    const char *port_name;
    const char *stats;
    int have_mac;
    int linger;
    uint64_t link_timeout_ms;
    struct ebf_ctl_conf ctl;
    int have_size, have_range, have_gap;
    int dist;                    /* -1: not given, else enum ro_size_dist (fixed: 2) */
    double mean, sigma;          /* -1: not given */
    struct ro_fault_conf fault;
};

#define DIST_FIXED 2

enum {
    OPT_FAULTS = 256, OPT_FAULT_SEED, OPT_FRAG_DIST, OPT_FRAG_MEAN, OPT_FRAG_SIGMA,
    OPT_SILENCE, OPT_BURST_EVENTS, OPT_BURST_GAP,
};

static int parse_ips(const char *val, struct ro_conf *c)
{
    char buf[1024], *save = NULL;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", val);
    for (char *t = strtok_r(buf, ",", &save); t && n < RO_MAX_SFCS;
         t = strtok_r(NULL, ",", &save))
        if (ebf_opt_ipv4("readout", "--sfc-ip", t, &c->sfc_ip[n++]))
            return -EINVAL;
    return 0;
}

/* --faults, --frag-dist and --silence: values with their own syntax. */
static int parse_fault_opt(int ch, const char *val, struct opts *o)
{
    static const char *const dists[] = {"uniform", "lognormal", "fixed"};
    char err[512];

    if (ch == OPT_FRAG_DIST) {
        for (int i = 0; i < 3; i++)
            if (strcmp(val, dists[i]) == 0)
                return o->dist = i, 0;
        fprintf(stderr, "readout: option '--frag-dist': \"%s\" is not fixed, uniform or "
                "lognormal\n", val);
        return -EINVAL;
    }
    int rc = ch == OPT_FAULTS ? ro_fault_parse(val, &o->fault, err, sizeof(err))
                              : ro_fault_parse_silence(val, &o->fault, err, sizeof(err));
    if (rc)
        fprintf(stderr, "readout: option '%s': %s\n", ch == OPT_FAULTS ? "--faults" : "--silence",
                err);
    return rc;
}

static int opt_error(const char *msg)
{
    fprintf(stderr, "readout: %s\n", msg);
    return -EINVAL;
}

/* The fragment-size distribution and the fault options, once all are in. */
static int check_fault_opts(struct ro_conf *c, struct opts *o)
{
    int lognormal = o->dist == RO_SIZE_LOGNORMAL;

    if ((o->mean >= 0 || o->sigma >= 0) && !lognormal)
        return opt_error("--frag-mean and --frag-sigma need --frag-dist lognormal");
    if (lognormal && (o->mean < 0 || o->sigma < 0))
        return opt_error("--frag-dist lognormal needs --frag-mean and --frag-sigma");
    if (lognormal && o->have_size)
        return opt_error("--frag-dist lognormal takes --frag-min/--frag-max, not --frag-size");
    if (o->dist == DIST_FIXED && o->have_range)
        return opt_error("--frag-dist fixed takes --frag-size, not --frag-min/--frag-max");
    if (lognormal) {
        c->size_dist = RO_SIZE_LOGNORMAL;
        if (!o->have_range)
            c->size_min = 1, c->size_max = 1u << 20;
        c->size_mean = o->mean;
        c->size_sd = o->sigma;
        ro_size_lognormal_params(o->mean, o->sigma, &c->size_mu, &c->size_sigma);
    }
    if (o->fault.silence_source != RO_FAULT_NO_SILENCE && o->fault.silence_source >= c->n_sources) {
        fprintf(stderr, "readout: option '--silence': source %u is not below --sources %u\n",
                o->fault.silence_source, c->n_sources);
        return -EINVAL;
    }
    if (o->fault.burst_events && c->rate > 0)
        return opt_error("--burst-events replaces --rate: give one of them");
    if (o->have_gap && !o->fault.burst_events)
        return opt_error("--burst-gap-us needs --burst-events");
    return 0;
}

static int parse_args(int argc, char **argv, struct ro_conf *c, struct opts *o)
{
    static const struct option lo[] = {
        {"port", 1, 0, 'p'}, {"sfc-mac", 1, 0, 'S'}, {"mac", 1, 0, 'm'},
        {"sources", 1, 0, 's'}, {"events", 1, 0, 'e'}, {"duration", 1, 0, 'd'},
        {"rate", 1, 0, 'r'}, {"frag-size", 1, 0, 'f'}, {"frag-min", 1, 0, 'a'},
        {"frag-max", 1, 0, 'b'}, {"encap", 1, 0, 'E'}, {"udp-port", 1, 0, 'u'},
        {"src-ip", 1, 0, 'i'}, {"sfc-ip", 1, 0, 'I'}, {"mtu", 1, 0, 'M'},
        {"burst", 1, 0, 'B'}, {"seed", 1, 0, 'x'}, {"idle", 1, 0, 'l'},
        {"stats", 1, 0, 'o'}, {"link-timeout", 1, 0, 't'}, {"linger", 0, 0, 'g'}, {"help", 0, 0, 'h'},
        {"control", 1, 0, 'C'}, {"metrics", 1, 0, 'P'}, {"metrics-period-ms", 1, 0, 'T'},
        {"name", 1, 0, 'N'},
        {"faults", 1, 0, OPT_FAULTS}, {"fault-seed", 1, 0, OPT_FAULT_SEED},
        {"frag-dist", 1, 0, OPT_FRAG_DIST}, {"frag-mean", 1, 0, OPT_FRAG_MEAN},
        {"frag-sigma", 1, 0, OPT_FRAG_SIGMA}, {"silence", 1, 0, OPT_SILENCE},
        {"burst-events", 1, 0, OPT_BURST_EVENTS}, {"burst-gap-us", 1, 0, OPT_BURST_GAP},
        {0, 0, 0, 0},
    };
    uint64_t v;
    int ch, rc = 0;

    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'p': o->port_name = optarg; break;
        case 'S':
            rc = ebf_opt_mac_list("readout", "--sfc-mac", optarg, c->sfc_mac, RO_MAX_SFCS);
            if (rc > 0)
                c->n_sfcs = (uint16_t)rc, rc = 0;
            break;
        case 'm': rc = ebf_opt_mac("readout", "--mac", optarg, c->src_mac); o->have_mac = 1; break;
        case 's':
            rc = ebf_opt_u64("readout", "--sources", optarg, 1, EBF_MAX_SOURCES, &v);
            c->n_sources = (uint16_t)v;
            break;
        case 'e': rc = ebf_opt_u64("readout", "--events", optarg, 0, UINT64_MAX / 2, &c->n_events); break;
        case 'd': rc = ebf_opt_double("readout", "--duration", optarg, 0, 1e9, &c->duration_s); break;
        case 'r': rc = ebf_opt_double("readout", "--rate", optarg, 0, 1e9, &c->rate); break;
        case 'f':
            rc = ebf_opt_u64("readout", "--frag-size", optarg, 1, 1u << 24, &v);
            c->size_min = c->size_max = (uint32_t)v;
            o->have_size = 1;
            break;
        case 'a':
            rc = ebf_opt_u64("readout", "--frag-min", optarg, 1, 1u << 24, &v);
            c->size_min = (uint32_t)v;
            o->have_range = 1;
            break;
        case 'b':
            rc = ebf_opt_u64("readout", "--frag-max", optarg, 1, 1u << 24, &v);
            c->size_max = (uint32_t)v;
            o->have_range = 1;
            break;
        case 'E':
            if (strcmp(optarg, "eth") == 0)
                c->encap = EBF_ENCAP_ETH;
            else if (strcmp(optarg, "udp") == 0)
                c->encap = EBF_ENCAP_UDP;
            else {
                fprintf(stderr, "readout: option '--encap': \"%s\" is not eth or udp\n", optarg);
                rc = -EINVAL;
            }
            break;
        case 'u':
            rc = ebf_opt_u64("readout", "--udp-port", optarg, 1, 65535, &v);
            c->udp_port = (uint16_t)v;
            break;
        case 'i': rc = ebf_opt_ipv4("readout", "--src-ip", optarg, &c->src_ip); break;
        case 'I': rc = parse_ips(optarg, c); break;
        case 'M':
            rc = ebf_opt_u64("readout", "--mtu", optarg, 256, 9600, &v);
            c->mtu = (uint16_t)v;
            break;
        case 'B':
            rc = ebf_opt_u64("readout", "--burst", optarg, 1, 256, &v);
            c->burst = (uint16_t)v;
            break;
        case 'x': rc = ebf_opt_u64("readout", "--seed", optarg, 0, UINT64_MAX, &c->seed); break;
        case 'l': rc = ebf_opt_idle("readout", "--idle", optarg, &c->idle.mode); break;
        case 'o': o->stats = optarg; break;
        case 't': rc = ebf_opt_u64("readout", "--link-timeout", optarg, 1, 3600000, &o->link_timeout_ms); break;
        case 'g': o->linger = 1; break;
        case 'C': o->ctl.control = optarg; break;
        case 'P': o->ctl.metrics = optarg; break;
        case 'T': rc = ebf_opt_double("readout", "--metrics-period-ms", optarg, 10, 60000, &o->ctl.period_ms); break;
        case 'N': o->ctl.instance = optarg; break;
        case 'h': usage(); exit(0);
        case OPT_FAULTS:
        case OPT_FRAG_DIST:
        case OPT_SILENCE:
            rc = parse_fault_opt(ch, optarg, o);
            break;
        case OPT_FAULT_SEED:
            rc = ebf_opt_u64("readout", "--fault-seed", optarg, 0, UINT64_MAX, &o->fault.seed);
            break;
        case OPT_FRAG_MEAN: rc = ebf_opt_double("readout", "--frag-mean", optarg, 1, 1u << 24, &o->mean); break;
        case OPT_FRAG_SIGMA: rc = ebf_opt_double("readout", "--frag-sigma", optarg, 0, 1u << 24, &o->sigma); break;
        case OPT_BURST_EVENTS:
            rc = ebf_opt_u64("readout", "--burst-events", optarg, 1, UINT32_MAX, &v);
            o->fault.burst_events = (uint32_t)v;
            break;
        case OPT_BURST_GAP:
            rc = ebf_opt_u64("readout", "--burst-gap-us", optarg, 0, 60000000, &v);
            o->fault.burst_gap_us = (uint32_t)v;
            o->have_gap = 1;
            break;
        default: usage(); return -EINVAL;
        }
    }
    if (rc)
        return rc;
    if (optind < argc) {
        fprintf(stderr, "readout: unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if (!o->port_name || c->n_sfcs == 0) {
        fprintf(stderr, "readout: --port and --sfc-mac are required\n");
        return -EINVAL;
    }
    if (c->size_min > c->size_max) {
        fprintf(stderr, "readout: --frag-min %u is above --frag-max %u\n", c->size_min, c->size_max);
        return -EINVAL;
    }
    return check_fault_opts(c, o);
}

int main(int argc, char **argv)
{
    struct ro_conf c = {
        .n_sources = 8, .size_min = 1024, .size_max = 1024, .seed = 1,
        .encap = EBF_ENCAP_ETH, .udp_port = EBF_UDP_PORT_DEFAULT, .mtu = 1500, .burst = 32,
        .src_ip = 0x0a000001,
    };
    struct opts o = {.link_timeout_ms = 10000, .dist = -1, .mean = -1, .sigma = -1};

    int n = rte_eal_init(argc, argv);
    if (n < 0)
        rte_exit(EXIT_FAILURE, "readout: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    argc -= n;
    argv += n;
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    ro_fault_conf_init(&o.fault);
    for (int i = 0; i < RO_MAX_SFCS; i++)
        c.sfc_ip[i] = 0x0a000101 + (uint32_t)i;
    if (parse_args(argc, argv, &c, &o))
        ebf_eal_exit(2, "readout: bad options (see --help)\n");
    if (ebf_port_find(o.port_name, &c.port))
        ebf_eal_exit(EXIT_FAILURE, "readout: no port '%s'\n", o.port_name);
    if (!o.have_mac) {
        struct rte_ether_addr ea;
        rte_eth_macaddr_get(c.port, &ea);
        memcpy(c.src_mac, ea.addr_bytes, 6);
    }
    c.pool = ebf_pool_create("ro_pool", 8191, 2048, (int)rte_socket_id());
    if (!c.pool)
        ebf_eal_exit(EXIT_FAILURE, "readout: mempool: %s\n", rte_strerror(rte_errno));
    c.faults = o.fault;         /* each run makes its fault stage from it */
    if (ebf_port_start(c.port, c.pool, 1024, 1024))
        ebf_eal_exit(EXIT_FAILURE, "readout: cannot start port '%s'\n", o.port_name);
    signal(SIGINT, ebf_ctl_on_signal);
    signal(SIGTERM, ebf_ctl_on_signal);
    static volatile sig_atomic_t never;
    int rc = ebf_port_wait_up(c.port, &never, (unsigned)o.link_timeout_ms);
    if (rc == -ETIMEDOUT)
        ebf_eal_exit(EXIT_FAILURE, "readout: link of '%s' not up after %lu ms\n", o.port_name,
                     (unsigned long)o.link_timeout_ms);

    static struct ro_runner runner;
    ro_runner_init(&runner, &c);
    o.ctl.conf = &runner.conf;
    o.ctl.autostart = o.ctl.control == NULL;
    o.ctl.exit_when_finished = o.ctl.control == NULL && !o.linger;
    runner.ctl = ebf_ctl_create(&o.ctl, &ro_ctl_ops);
    if (!runner.ctl)
        ebf_eal_exit(EXIT_FAILURE, "readout: cannot start run control: %s\n", strerror(errno));
    ebf_ctl_serve(runner.ctl, &runner, &c.idle);
    ebf_ctl_destroy(runner.ctl);
    if (o.stats && ebf_ctl_write_stats(&ro_ctl_ops, &runner, o.stats) != 0)
        ebf_eal_exit(EXIT_FAILURE, "readout: cannot write '%s': %s\n", o.stats, strerror(errno));
    ro_runner_fini(&runner);
    ebf_port_close(c.port);
    ebf_eal_cleanup();
    return runner.g.rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
