/* SPDX-License-Identifier: BSD-3-Clause */
/* ebfarm.c - the ebfarm command line: subcommands that run and measure farms. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_farm.h"
#include "ebf_opt.h"
#include "farm.h"
#include "summary.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ebfarm COMMAND [options]\n"
            "commands:\n"
            "  demo     run readout, one SFC and trigger nodes on this host over memif\n"
            "           and print the run summary with its ledger\n"
            "  up FARM.yaml   start a farm's processes, configure them, start run 1\n"
            "  start    start the next run of a farm that is up\n"
            "  stop     staged stop of the run; prints the run summary and ledger\n"
            "  down     shut every process of the farm down and clean up\n"
            "  status   state of every process and the farm's totals (--json)\n"
            "  top      live view of the farm, refreshed every second\n"
            "  metrics  --prometheus [--listen ADDR]: serve the farm's metrics over HTTP\n"
            "  loopback frame-drop benchmark (RFC 2544) of a TX port cabled to an RX port:\n"
            "           ebfarm loopback --tx PORT --rx PORT [options]; --help lists them\n"
            "           (docs/loopback.md)\n"
            "  help     this text\n"
            "(from the repository root, ./ebfarm test builds and runs the test suite)\n");
}

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: ebfarm demo [options]\n"
            "  --events N        events to generate (200000)\n"
            "  --sources N       readout sources per event (8)\n"
            "  --nodes N         trigger nodes, 1..%d (2)\n"
            "  --frag-size B     fixed fragment size in bytes (1024)\n"
            "  --frag-min B --frag-max B  uniform fragment sizes\n"
            "  --rate EV/S       event rate, 0 for as fast as the farm takes them (0)\n"
            "  --udp             UDP/IPv4 fragments instead of raw Ethernet\n"
            "  --trigger-us T    node busy time per event (1)\n"
            "  --accept F        fraction of events the nodes accept (0.1)\n"
            "  --timeout-ms T    SFC event-building timeout (100)\n"
            "  --credits N       event slots each node grants (32)\n"
            "  --max-seconds S   stop generating after S seconds (300)\n"
            "  --kill-node-after N  SIGKILL node 0 once N events were generated: its\n"
            "                    events go to the other nodes, the ledger must still close\n"
            "  --keep            keep the run directory (logs and counters)\n"
            "  --json            print the summary as one JSON object\n"
            "Exits 0 when the ledger closes, 1 when it does not or a process failed.\n",
            FARM_MAX_NODES);
}

static int demo_args(int argc, char **argv, struct farm_conf *c, int *json)
{
    static const struct option lo[] = {
        {"events", 1, 0, 'e'}, {"sources", 1, 0, 's'}, {"nodes", 1, 0, 'n'},
        {"frag-size", 1, 0, 'f'}, {"frag-min", 1, 0, 'a'}, {"frag-max", 1, 0, 'b'},
        {"rate", 1, 0, 'r'}, {"udp", 0, 0, 'u'}, {"trigger-us", 1, 0, 't'},
        {"accept", 1, 0, 'A'}, {"timeout-ms", 1, 0, 'T'}, {"credits", 1, 0, 'c'},
        {"max-seconds", 1, 0, 'M'}, {"keep", 0, 0, 'k'}, {"json", 0, 0, 'j'},
        {"kill-node-after", 1, 0, 'K'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    uint64_t v;
    int ch, rc = 0;

    optind = 1;
    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'e': rc = ebf_opt_u64("ebfarm demo", "--events", optarg, 1, UINT64_MAX / 2, &c->events); break;
        case 's':
            rc = ebf_opt_u64("ebfarm demo", "--sources", optarg, 1, 128, &v);
            c->sources = (uint16_t)v;
            break;
        case 'n':
            rc = ebf_opt_u64("ebfarm demo", "--nodes", optarg, 1, FARM_MAX_NODES, &v);
            c->nodes = (uint16_t)v;
            break;
        case 'f':
            rc = ebf_opt_u64("ebfarm demo", "--frag-size", optarg, 1, 1u << 20, &v);
            c->frag_min = c->frag_max = (uint32_t)v;
            break;
        case 'a':
            rc = ebf_opt_u64("ebfarm demo", "--frag-min", optarg, 1, 1u << 20, &v);
            c->frag_min = (uint32_t)v;
            break;
        case 'b':
            rc = ebf_opt_u64("ebfarm demo", "--frag-max", optarg, 1, 1u << 20, &v);
            c->frag_max = (uint32_t)v;
            break;
        case 'r': rc = ebf_opt_double("ebfarm demo", "--rate", optarg, 0, 1e9, &c->rate); break;
        case 'u': c->udp = 1; break;
        case 't': rc = ebf_opt_double("ebfarm demo", "--trigger-us", optarg, 0, 1e6, &c->trigger_us); break;
        case 'A': rc = ebf_opt_double("ebfarm demo", "--accept", optarg, 0, 1, &c->accept); break;
        case 'T': rc = ebf_opt_double("ebfarm demo", "--timeout-ms", optarg, 0.01, 3.6e6, &c->timeout_ms); break;
        case 'c':
            rc = ebf_opt_u64("ebfarm demo", "--credits", optarg, 1, 4096, &v);
            c->credits = (uint16_t)v;
            break;
        case 'M': rc = ebf_opt_double("ebfarm demo", "--max-seconds", optarg, 1, 86400, &c->max_seconds); break;
        case 'k': c->keep = 1; break;
        case 'K':
            rc = ebf_opt_u64("ebfarm demo", "--kill-node-after", optarg, 1, UINT64_MAX / 2,
                             &c->kill_node_after);
            break;
        case 'j': *json = 1; break;
        case 'h': demo_usage(stdout); exit(0);
        default: demo_usage(stderr); return -EINVAL;
        }
    }
    if (rc == 0 && optind < argc) {
        fprintf(stderr, "ebfarm demo: unexpected argument '%s'\n", argv[optind]);
        rc = -EINVAL;
    }
    if (rc == 0 && c->kill_node_after && c->nodes < 2) {
        fprintf(stderr, "ebfarm demo: --kill-node-after needs --nodes 2 or more\n");
        rc = -EINVAL;
    }
    if (rc == 0 && c->frag_min > c->frag_max) {
        fprintf(stderr, "ebfarm demo: --frag-min %u is above --frag-max %u\n", c->frag_min,
                c->frag_max);
        rc = -EINVAL;
    }
    return rc;
}

static int cmd_demo(int argc, char **argv)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    char build[PATH_MAX];
    int json = 0;

    farm_conf_default(&c);
    if (demo_args(argc, argv, &c, &json))
        return 2;
    const char *env = getenv("EBFARM_BUILD_DIR");
    if (env)
        snprintf(build, sizeof(build), "%s", env);
    else if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm demo: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        return 1;
    }
    c.build_dir = build;
    if (!json)
        fprintf(stderr, "ebfarm demo: starting sfc, %u nodes and readout (%llu events)...\n",
                c.nodes, (unsigned long long)c.events);
    if (farm_run(&c, &r) != 0) {
        fprintf(stderr, "ebfarm demo: run failed: %s\n", r.error);
        farm_result_free(&r);
        return 1;
    }
    summary_ledger(&r, &l);
    if (json)
        summary_json(stdout, &c, &r, &l);
    else
        summary_text(stdout, &c, &r, &l);
    if (c.keep)
        fprintf(stderr, "ebfarm demo: logs and counters kept in %s\n", r.run_dir);
    farm_result_free(&r);
    if (!l.closed) {
        fprintf(stderr, "ebfarm demo: the ledger does not close\n");
        return 1;
    }
    return 0;
}

/* Run <build>/loopback/ebfarm-loopback with the rest of the arguments. */
static int cmd_loopback(int argc, char **argv)
{
    char build[PATH_MAX], exe[PATH_MAX + 32];
    const char *env = getenv("EBFARM_BUILD_DIR");

    if (env)
        snprintf(build, sizeof(build), "%s", env);
    else if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm loopback: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        return 1;
    }
    snprintf(exe, sizeof(exe), "%s/loopback/ebfarm-loopback", build);
    argv[0] = exe;
    execv(exe, argv);
    fprintf(stderr, "ebfarm loopback: cannot run %s: %s\n", exe, strerror(errno));
    (void)argc;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "demo") == 0)
        return cmd_demo(argc - 1, argv + 1);
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"up", cmd_up}, {"start", cmd_start}, {"stop", cmd_stop}, {"down", cmd_down},
        {"status", cmd_status}, {"top", cmd_top}, {"metrics", cmd_metrics},
    };
    for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    if (strcmp(argv[1], "loopback") == 0)
        return cmd_loopback(argc - 1, argv + 1);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "test") == 0) {
        fprintf(stderr, "ebfarm: 'test' is run from the repository root: ./ebfarm test\n");
        return 2;
    }
    fprintf(stderr, "ebfarm: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
