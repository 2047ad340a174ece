/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_opts.c - option parsing for ebfarm-loopback, with errors that name option and value. */
#include "lb_opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_opt.h"

#define P "loopback"

void lb_opts_default(struct lb_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->mode = "throughput";
    o->trial_s = 1.0;
    o->resolution_pct = 1.0;
    o->tolerance = 0.01;
    o->probe_margin = 0.05;
    o->drain_ms = 50;
    o->max_trials = 20;
    o->seed = 1;
    o->burst = 32;
    o->hold_us = 50;
    o->retries = 2;
    o->queues = 1;
    o->streams = 1;
    o->idle = EBF_IDLE_SPIN;
    o->idle_auto = 1;
    o->check_crc = 1;
    o->kernel_port = 50506;
    o->mem_mb = 512;
    o->link_timeout_ms = 10000;
    o->repeat = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: ebfarm loopback --tx PORT --rx PORT [options]\n"
        "  PORT is a PCI address (0000:3b:00.0) or a DPDK virtual device string\n"
        "  (net_af_packet0,iface=ebfc0 or net_memif0,role=server,socket=/tmp/m.sock).\n"
        "ports and processes:\n"
        "  --tx-netns NS, --rx-netns NS   attach that virtual device inside network namespace NS\n"
        "  --role both|tx|rx  one process with both ports (both), or the TX or RX half of two\n"
        "                     processes joined by --control ADDR (a UNIX socket path, or\n"
        "                     tcp:HOST:PORT across hosts; the RX side listens)\n"
        "trials:\n"
        "  --mode M           throughput | latency | loss | back-to-back (throughput)\n"
        "  --sizes LIST       frame sizes with FCS (64,128,256,512,1024,1280,1518 and 9000\n"
        "                     when both MTUs allow)\n"
        "  --rate R           highest rate: 1.2Mfps, 800mbps (L2), 800mbps-l1, 50%% (of the\n"
        "                     link at L1) (100%%)\n"
        "  --trial S          trial length in seconds (1)\n"
        "  --resolution PCT   stop the search when the bracket is PCT%% of --rate (1)\n"
        "  --loss-ratio R     loss allowed in a passing trial, 0 = RFC 2544 zero loss (0)\n"
        "  --tolerance R      a trial whose sent rate misses the requested one by more than\n"
        "                     R (relative) is invalid (0.01)\n"
        "  --max-trials N     per search (20; 100 with --search mlr)\n"
        "  --drain-ms MS      wait after sending before counting (50)\n"
        "  --pacing constant|poisson  gaps between frames (constant)\n"
        "  --seed N           Poisson generator seed (1)\n"
        "  --burst N          frames per tx burst, 1..64 (32)\n"
        "  --retries N        run a trial again, up to N times, when the sender lost its\n"
        "                     CPU (tx_preempted); every attempt is reported (2)\n"
        "  --tx-hold US       a due frame waits up to US for its burst to fill; 0 sends\n"
        "                     each frame when due (50)\n"
        "  --streams N        sequence-numbered streams (fragment sources), 1..8 (1)\n"
        "  --queues N         N TX and N RX queues, an lcore each, 1..4: stream q on\n"
        "                     queue q, in IPv4/UDP frames whose addresses and ports\n"
        "                     differ by stream for RSS (under 86 bytes: a VLAN ID) (1)\n"
        "  --loss-all         loss mode: all ten loads, not only until two clean ones\n"
        "  --b2b-max N        back-to-back: longest burst tried (rate x trial)\n"
        "  --search binary|mlr  RFC 2544 binary search, or MLRsearch (draft-ietf-bmwg-\n"
        "                     mlrsearch): the conditional throughput of each goal (binary)\n"
        "  --goal-loss LIST   mlr: goal loss ratios, one goal each (0)\n"
        "  --goal-exceed LIST mlr: share of the duration sum allowed to exceed it (0)\n"
        "  --goal-duration LIST  mlr: final trial duration, s (--trial)\n"
        "  --goal-duration-sum LIST  mlr: trial seconds at a load before it is a bound\n"
        "                     (the goal duration)\n"
        "  --goal-width LIST  mlr: relative width of the final bracket (--resolution)\n"
        "                     (a list of one value applies to every goal)\n"
        "  --probe-margin R   mlr: when the sender probe finds the sender short of --rate,\n"
        "                     the max load is its reach less max(R, --tolerance), so that\n"
        "                     its trial-to-trial variation leaves trials valid (0.05)\n"
        "  --repeat N         RFC 2544 repetitions: N searches (throughput, back-to-back),\n"
        "                     N latency trials at the rate found (latency); 1..1000 (1)\n"
        "  --idle spin|backoff|auto  poll loops spin (dedicated cores) or back off and\n"
        "                     sleep when idle (shared cores); auto: spin when --eal names\n"
        "                     the lcores, else backoff (auto)\n"
        "  --no-crc-check     do not verify each frame's CRC32C at the receiver\n"
        "output:\n"
        "  --json             print the results as one JSON object on stdout\n"
        "  --csv FILE         one row per trial\n"
        "  --plot FILE.svg    loss against offered load and latency histograms\n"
        "  --quiet            no live line per second\n"
        "  --trials-stdin     run the trials another program's search asks for: lines\n"
        "                     LOAD_FPS DURATION_S in, SENT LOST ACHIEVED_FPS VALID out\n"
        "kernel reference (veth cable in two network namespaces):\n"
        "  --compare-kernel   rerun every search with UDP through kernel sockets\n"
        "  --kernel-dst IP    the RX namespace's address on the cable\n"
        "  --kernel-port P    UDP port (50506)\n"
        "EAL:\n"
        "  --mem MB           memory without hugepages (512); --huge uses hugepages instead\n"
        "  --eal 'ARGS'       more EAL arguments (for example '-l 2,4,6')\n"
        "  --link-timeout MS  wait for links at most MS (10000)\n");
}

static int parse_sizes(const char *v, struct lb_opts *o)
{
    char buf[256], *save = NULL;
    uint64_t x;

    snprintf(buf, sizeof(buf), "%s", v);
    o->n_sizes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->n_sizes == LB_MAX_SIZES || ebf_opt_u64(P, "--sizes", t, 64, 9018, &x))
            return -EINVAL;
        o->sizes[o->n_sizes++] = (unsigned)x;
    }
    return o->n_sizes ? 0 : -EINVAL;
}

static int parse_word(const char *opt, const char *v, const char *const *words, int *out)
{
    for (int i = 0; words[i]; i++)
        if (!strcmp(v, words[i])) {
            *out = i;
            return 0;
        }
    fprintf(stderr, P ": option '%s': \"%s\" is not one of", opt, v);
    for (int i = 0; words[i]; i++)
        fprintf(stderr, " %s", words[i]);
    fprintf(stderr, "\n");
    return -EINVAL;
}

static const char *const goal_opts[LB_GOAL_FIELDS] = {
    "--goal-loss", "--goal-exceed", "--goal-duration", "--goal-duration-sum", "--goal-width",
};

/* A --goal-* list of 1 .. LB_MLR_MAX_GOALS numbers into o->goal_v[f]. */
static int parse_goal_list(unsigned f, const char *v, struct lb_opts *o)
{
    static const double lo[LB_GOAL_FIELDS] = {0, 0, 0.001, 0.001, 1e-6};
    static const double hi[LB_GOAL_FIELDS] = {0.999999, 0.999999, 86400, 864000, 0.5};
    char buf[256], *save = NULL;

    snprintf(buf, sizeof(buf), "%s", v);
    o->goal_n[f] = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->goal_n[f] == LB_MLR_MAX_GOALS) {
            fprintf(stderr, P ": option '%s': \"%s\": at most %d goals\n", goal_opts[f], v,
                    LB_MLR_MAX_GOALS);
            return -EINVAL;
        }
        if (ebf_opt_double(P, goal_opts[f], t, lo[f], hi[f], &o->goal_v[f][o->goal_n[f]]))
            return -EINVAL;
        o->goal_n[f]++;
    }
    return o->goal_n[f] ? 0 : -EINVAL;
}

/* The goals from the lists: as many as the longest list; a list of one
 * value applies to all; defaults from --trial and --resolution. */
static int build_goals(struct lb_opts *o)
{
    unsigned n = 1;
    for (unsigned f = 0; f < LB_GOAL_FIELDS; f++)
        n = o->goal_n[f] > n ? o->goal_n[f] : n;
    for (unsigned f = 0; f < LB_GOAL_FIELDS; f++)
        if (o->goal_n[f] > 1 && o->goal_n[f] != n) {
            fprintf(stderr, P ": option '%s' has %u values for %u goals: give one value or %u\n",
                    goal_opts[f], o->goal_n[f], n, n);
            return -EINVAL;
        }
    o->n_goals = n;
    for (unsigned g = 0; g < n; g++) {
        struct lb_mlr_goal *x = &o->goal[g];
#define GV(f, dflt) (o->goal_n[f] ? o->goal_v[f][o->goal_n[f] > 1 ? g : 0] : (dflt))
        lb_mlr_goal_default(x, GV(2, o->trial_s));
        x->loss_ratio = GV(0, 0);
        x->exceed_ratio = GV(1, 0);
        x->duration_sum = GV(3, x->final_duration);
        x->width = GV(4, o->resolution_pct / 100);
#undef GV
        if (x->duration_sum < x->final_duration) {
            fprintf(stderr, P ": goal %u: --goal-duration-sum %g is shorter than its "
                            "--goal-duration %g\n", g, x->duration_sum, x->final_duration);
            return -EINVAL;
        }
    }
    return 0;
}

static const char *const searches[] = {"binary", "mlr", NULL};

static const char *const modes[] = {"throughput", "latency", "loss", "back-to-back", NULL};
static const char *const roles[] = {"both", "tx", "rx", NULL};
static const char *const pacings[] = {"constant", "poisson", NULL};

/* One option; returns 0, 1 for --help, or -EINVAL. */
static int one(int ch, const char *v, struct lb_opts *o)
{
    uint64_t x;
    int w, rc = 0;
    switch (ch) {
    case 't': o->tx = v; break;
    case 'r': o->rx = v; break;
    case 'T': o->tx_netns = v; break;
    case 'R': o->rx_netns = v; break;
    case 'o': rc = parse_word("--role", v, roles, &w); o->role = (enum lb_role)w; break;
    case 'c': o->control = v; break;
    case 'm': rc = parse_word("--mode", v, modes, &w); o->mode = modes[rc ? 0 : w]; break;
    case 's': rc = parse_sizes(v, o); break;
    case 'a':
        rc = lb_rate_parse(v, &o->rate);
        if (rc)
            fprintf(stderr, P ": option '--rate': \"%s\" is not a rate (1.2Mfps, 800mbps, "
                            "800mbps-l1, 50%%)\n", v);
        o->have_rate = 1;
        break;
    case 'L': rc = ebf_opt_double(P, "--trial", v, 0.001, 86400, &o->trial_s); break;
    case 'e': rc = ebf_opt_double(P, "--resolution", v, 0.001, 50, &o->resolution_pct); break;
    case 'l': rc = ebf_opt_double(P, "--loss-ratio", v, 0, 1, &o->loss_ratio); break;
    case 'O': rc = ebf_opt_double(P, "--tolerance", v, 0.0001, 0.2, &o->tolerance); break;
    case 0x105: rc = ebf_opt_double(P, "--probe-margin", v, 0, 0.5, &o->probe_margin); break;
    case 'D': rc = ebf_opt_double(P, "--drain-ms", v, 0, 60000, &o->drain_ms); break;
    case 'M':
        rc = ebf_opt_u64(P, "--max-trials", v, 1, 1000, &x);
        o->max_trials = (unsigned)x;
        o->max_trials_set = 1;
        break;
    case 'p': rc = parse_word("--pacing", v, pacings, &o->poisson); break;
    case 'S': rc = ebf_opt_u64(P, "--seed", v, 0, UINT64_MAX, &o->seed); break;
    case 'b': rc = ebf_opt_u64(P, "--burst", v, 1, 64, &x); o->burst = (unsigned)x; break;
    case 'n': rc = ebf_opt_u64(P, "--streams", v, 1, 8, &x); o->streams = (unsigned)x; break;
    case 'A': o->loss_all = 1; break;
    case 'B': rc = ebf_opt_u64(P, "--b2b-max", v, 1, UINT64_MAX / 2, &o->b2b_max); break;
    case 'i':
        o->idle_auto = !strcmp(v, "auto");
        rc = o->idle_auto ? 0 : ebf_opt_idle(P, "--idle", v, &o->idle);
        break;
    case 'C': o->check_crc = 0; break;
    case 'j': o->json = 1; break;
    case 'v': o->csv = v; break;
    case 'P': o->plot = v; break;
    case 'q': o->quiet = 1; break;
    case 'k': o->compare_kernel = 1; break;
    case 'K': rc = ebf_opt_ipv4(P, "--kernel-dst", v, &o->kernel_dst); break;
    case 'U': rc = ebf_opt_u64(P, "--kernel-port", v, 1, 65535, &x); o->kernel_port = (unsigned)x; break;
    case 'E': o->eal = v; break;
    case 'G': rc = ebf_opt_u64(P, "--mem", v, 64, 1 << 20, &x); o->mem_mb = (unsigned)x; break;
    case 'H': o->huge = 1; break;
    case 'W': rc = ebf_opt_u64(P, "--link-timeout", v, 1, 3600000, &x); o->link_timeout_ms = (unsigned)x; break;
    case 'I': o->trials_stdin = 1; break;
    case 'Q': rc = ebf_opt_u64(P, "--queues", v, 1, 4, &x); o->queues = (unsigned)x; break;
    case 'V': rc = ebf_opt_u64(P, "--retries", v, 0, 100, &x); o->retries = (unsigned)x; break;
    case 'Z': rc = ebf_opt_double(P, "--tx-hold", v, 0, 100000, &o->hold_us); break;
    case 'X': rc = parse_word("--search", v, searches, &o->mlr); break;
    case 'Y': rc = ebf_opt_u64(P, "--repeat", v, 1, 1000, &x); o->repeat = (unsigned)x; break;
    case 0x100: case 0x101: case 0x102: case 0x103: case 0x104:
        rc = parse_goal_list((unsigned)(ch - 0x100), v, o);
        break;
    case 'h': usage(stdout); return 1;
    default: usage(stderr); return -EINVAL;
    }
    return rc ? -EINVAL : 0;
}

/* Checks across options, each naming what is wrong and what to do. */
static int check(const struct lb_opts *o)
{
    const char *need = NULL;
    if (o->role != LB_ROLE_RX && !o->tx)
        need = "--tx PORT";
    else if (o->role != LB_ROLE_TX && !o->rx)
        need = "--rx PORT";
    else if (o->role != LB_ROLE_BOTH && !o->control)
        need = "--control ADDR (with --role tx or rx)";
    else if (o->compare_kernel && !o->kernel_dst)
        need = "--kernel-dst IP (with --compare-kernel)";
    if (need) {
        fprintf(stderr, P ": missing %s (see --help)\n", need);
        return -EINVAL;
    }
    if (o->plot) {
        size_t n = strlen(o->plot);
        if (n < 4 || strcmp(o->plot + n - 4, ".svg")) {
            fprintf(stderr, P ": option '--plot': \"%s\": only SVG is written; name the file "
                            "*.svg (convert to PNG with any SVG tool)\n", o->plot);
            return -EINVAL;
        }
    }
    if (o->trials_stdin && (o->json || o->compare_kernel)) {
        fprintf(stderr, P ": --trials-stdin answers on standard output: no --json, no "
                        "--compare-kernel (use --csv FILE for the trials)\n");
        return -EINVAL;
    }
    if (o->queues > 1 && o->role != LB_ROLE_BOTH) {
        fprintf(stderr, P ": --queues needs both ports in one process (--role both)\n");
        return -EINVAL;
    }
    if (o->compare_kernel && o->role != LB_ROLE_BOTH) {
        fprintf(stderr, P ": --compare-kernel needs both ports in one process (--role both)\n");
        return -EINVAL;
    }
    return 0;
}

int lb_opts_parse(int argc, char **argv, struct lb_opts *o)
{
    static const struct option lo[] = {
        {"tx", 1, 0, 't'}, {"rx", 1, 0, 'r'}, {"tx-netns", 1, 0, 'T'}, {"rx-netns", 1, 0, 'R'},
        {"role", 1, 0, 'o'}, {"control", 1, 0, 'c'}, {"mode", 1, 0, 'm'}, {"sizes", 1, 0, 's'},
        {"rate", 1, 0, 'a'}, {"trial", 1, 0, 'L'}, {"resolution", 1, 0, 'e'},
        {"loss-ratio", 1, 0, 'l'}, {"tolerance", 1, 0, 'O'}, {"drain-ms", 1, 0, 'D'},
        {"max-trials", 1, 0, 'M'}, {"pacing", 1, 0, 'p'}, {"seed", 1, 0, 'S'},
        {"burst", 1, 0, 'b'}, {"streams", 1, 0, 'n'}, {"loss-all", 0, 0, 'A'},
        {"b2b-max", 1, 0, 'B'}, {"idle", 1, 0, 'i'}, {"no-crc-check", 0, 0, 'C'},
        {"json", 0, 0, 'j'}, {"csv", 1, 0, 'v'}, {"plot", 1, 0, 'P'}, {"quiet", 0, 0, 'q'},
        {"compare-kernel", 0, 0, 'k'}, {"kernel-dst", 1, 0, 'K'}, {"kernel-port", 1, 0, 'U'},
        {"eal", 1, 0, 'E'}, {"mem", 1, 0, 'G'}, {"huge", 0, 0, 'H'},
        {"link-timeout", 1, 0, 'W'}, {"search", 1, 0, 'X'}, {"repeat", 1, 0, 'Y'},
        {"tx-hold", 1, 0, 'Z'}, {"retries", 1, 0, 'V'},
        {"queues", 1, 0, 'Q'}, {"trials-stdin", 0, 0, 'I'},
        {"goal-loss", 1, 0, 0x100}, {"goal-exceed", 1, 0, 0x101}, {"goal-duration", 1, 0, 0x102},
        {"goal-duration-sum", 1, 0, 0x103}, {"goal-width", 1, 0, 0x104},
        {"probe-margin", 1, 0, 0x105},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    int ch, rc = 0;

    optind = 1;
    while (rc == 0 && (ch = getopt_long(argc, argv, "", lo, NULL)) != -1)
        rc = one(ch, optarg, o);
    if (rc)
        return rc;
    if (optind < argc) {
        fprintf(stderr, P ": unexpected argument '%s' (see --help)\n", argv[optind]);
        return -EINVAL;
    }
    if (build_goals(o))
        return -EINVAL;
    if (o->queues > 1)
        o->streams = o->queues;          /* one stream per queue */
    if (o->mlr && !o->max_trials_set)
        o->max_trials = 100;
    if (o->idle_auto)
        o->idle = lb_opts_own_lcores(o) ? EBF_IDLE_SPIN : EBF_IDLE_BACKOFF;
    return check(o);
}

int lb_opts_own_lcores(const struct lb_opts *o)
{
    return o->eal && (strstr(o->eal, "-l") || strstr(o->eal, "--lcores"));
}

int lb_is_pci(const char *spec)
{
    unsigned a, b, c, d;
    char end;
    return sscanf(spec, "%x:%x:%x.%x%c", &a, &b, &c, &d, &end) == 4 ||
           sscanf(spec, "%x:%x.%x%c", &a, &b, &c, &end) == 3;
}
