/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_soak.c - ebfarm soak: its options, then the soak. */
#include "cmd_soak.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_opt.h"
#include "soak_run.h"

static const char usage[] =
    "usage: ebfarm soak FARM.yaml --duration D [--interval T] [--json] [--out DIR]\n"
    "                  [--kill-node-every T] [--stall-nodes-every T] [--stall-ms MS]\n"
    "                  [--kill-sfc-every T] [--drain-sfc-every T]\n"
    "                  [--max-loss N|REASON=N,...] [--max-rss-growth-mb MB] [--max-p99-ms MS]\n"
    "  runs the farm for D (attaching to it when it is up and running, else bringing\n"
    "  it up with run.events 0), samples its metrics every T (10 s), stops it in\n"
    "  stages and judges the run. Durations are seconds or take a suffix s, m, h, d.\n"
    "  A line per interval on the terminal; the report in DIR (soak-FARM-runN):\n"
    "  soak.jsonl, soak.csv, soak.html. --json prints the JSON lines on stdout.\n"
    "  Faults: --kill-node-every T freezes a node, kills it once its SFC declared\n"
    "  it dead and starts it again (nodes in turn); --stall-nodes-every T stops\n"
    "  every node until the readouts are throttled, then --stall-ms (500) more.\n"
    "  With two SFCs or more (failover is turned on when run.replay_mb is 0):\n"
    "  --kill-sfc-every T freezes an SFC, kills it once every readout declared it\n"
    "  dead and restarts it (ebfarm restart); --drain-sfc-every T drains an SFC,\n"
    "  then undrains it (SFCs in turn). The verdict's loss_budget holds through\n"
    "  them (lost 0 by default).\n"
    "  The farm file's fault settings (run.faults, run.silence ...) apply throughout.\n"
    "  Verdict criteria: ledger_closed, intervals_add_up, loss_budget (--max-loss:\n"
    "  N for every lost reason and incomplete events, or REASON=N; default 0 per\n"
    "  lost reason, incomplete unlimited), memory_growth (--max-rss-growth-mb, 64),\n"
    "  interval_p99 (end-to-end, --max-p99-ms, 1000), no_restart.\n"
    "  Exit status: 0 pass, 1 fail, 2 the soak could not run, 128+signal interrupted\n"
    "  (141: stdout closed, as by `| head`: the soak stopped the farm in stages first).\n"
    "  docs/soak.md explains the report and how to choose the bounds.\n";

int soak_parse_duration(const char *opt, const char *val, double min, double max, double *out)
{
    char *end;
    double v = strtod(val, &end), unit = 1;

    if (end != val && *end && !end[1]) {
        unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 0;
        end += unit > 0;
    }
    if (end == val || *end || !isfinite(v) || v * unit < min || v * unit > max) {
        fprintf(stderr, "ebfarm soak: option '%s': \"%s\" is not a duration in %.0f..%.0f s "
                "(seconds, or a number with s, m, h or d)\n", opt, val, min, max);
        return -1;
    }
    *out = v * unit;
    return 0;
}

static int parse(int argc, char **argv, struct soak_opts *o)
{
    static const struct option lo[] = {
        {"duration", 1, 0, 'd'}, {"interval", 1, 0, 'i'}, {"json", 0, 0, 'j'},
        {"out", 1, 0, 'o'}, {"kill-node-every", 1, 0, 'k'}, {"stall-nodes-every", 1, 0, 's'},
        {"stall-ms", 1, 0, 'S'}, {"max-loss", 1, 0, 'l'}, {"max-rss-growth-mb", 1, 0, 'r'},
        {"max-p99-ms", 1, 0, 'p'}, {"kill-sfc-every", 1, 0, 'K'}, {"drain-sfc-every", 1, 0, 'D'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    char err[256];
    int ch, rc = 0;

    optind = 1;
    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'd': rc = soak_parse_duration("--duration", optarg, 1, 366 * 86400.0, &o->duration_s); break;
        case 'i': rc = soak_parse_duration("--interval", optarg, 1, 86400, &o->interval_s); break;
        case 'j': o->json = 1; break;
        case 'o': o->out_dir = optarg; break;
        case 'k': rc = soak_parse_duration("--kill-node-every", optarg, 5, 86400, &o->kill_every_s); break;
        case 's': rc = soak_parse_duration("--stall-nodes-every", optarg, 5, 86400, &o->stall_every_s); break;
        case 'K': rc = soak_parse_duration("--kill-sfc-every", optarg, 5, 86400, &o->kill_sfc_every_s); break;
        case 'D': rc = soak_parse_duration("--drain-sfc-every", optarg, 5, 86400, &o->drain_sfc_every_s); break;
        case 'S': rc = ebf_opt_double("ebfarm soak", "--stall-ms", optarg, 0, 60000, &o->stall_ms); break;
        case 'l':
            if ((rc = soak_bounds_loss(&o->bounds, optarg, err, sizeof(err))) != 0)
                fprintf(stderr, "ebfarm soak: %s\n", err);
            break;
        case 'r':
            rc = ebf_opt_double("ebfarm soak", "--max-rss-growth-mb", optarg, 0, 1e6,
                                &o->bounds.rss_growth_mb);
            break;
        case 'p': rc = ebf_opt_double("ebfarm soak", "--max-p99-ms", optarg, 0.001, 1e7, &o->bounds.p99_ms); break;
        case 'h': printf("%s", usage); exit(0);
        default: fprintf(stderr, "%s", usage); return -1;
        }
    }
    return rc ? -1 : 0;
}

int cmd_soak(int argc, char **argv)
{
    struct soak_opts o = {.interval_s = 10, .stall_ms = 500};

    soak_bounds_default(&o.bounds);
    if (parse(argc, argv, &o) != 0)
        return 2;
    if (optind != argc - 1) {
        fprintf(stderr, "ebfarm soak: give one farm file\n%s", usage);
        return 2;
    }
    if (o.duration_s <= 0) {
        fprintf(stderr, "ebfarm soak: --duration is required (for example --duration 30m)\n");
        return 2;
    }
    o.farm_file = argv[optind];
    return soak_run(&o);
}
