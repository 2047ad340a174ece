/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_demo.c - ebfarm demo: its options, one run of the demo farm, the summary and its ledger. */
#include "cmd_demo.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_opt.h"
#include "ebf_release.h"
#include "farm.h"
#include "farm_demo_netns.h"
#include "farm_place.h"
#include "farm_proc.h"
#include "farm_signal.h"
#include "ledger.h"
#include "ro_fault.h"
#include "summary.h"

static void demo_usage(FILE *out)
{
    fprintf(out,
            "usage: ebfarm demo [options]\n"
            "  --events N        events to generate (200000)\n"
            "  --sources N       readout sources per event (8)\n"
            "  --nodes N         trigger nodes, 1..%d (2)\n"
            "  --readouts N      readouts, 1..16 (1): each sends sources / N of every event\n"
            "                    (with several, --timeout-ms is 2000 unless given)\n"
            "  --sfcs N          SFCs, 1..16 (1): event e goes to SFC e %% N, node i serves\n"
            "                    SFC i %% N; memif links per readout-SFC pair\n"
            "  --frag-size B     fixed fragment size in bytes (1024)\n"
            "  --frag-min B --frag-max B  uniform fragment sizes\n"
            "  --frag-dist fixed|uniform|lognormal  fragment-size distribution (fixed\n"
            "                    with --frag-size, uniform with --frag-min/--frag-max)\n"
            "  --frag-mean B --frag-sigma S  log-normal mean and standard deviation in\n"
            "                    bytes; sizes clamped to [--frag-min, --frag-max]\n"
            "                    (default: 1 to what an event can carry)\n"
            "  --seed N          seed of the run: fragment sizes and fault decisions (1)\n"
            "  --faults SPEC     readout frame faults, e.g. drop=0.001,dup=0.001,\n"
            "                    reorder=0.01,corrupt=0.0005 (keys: drop, dup, reorder,\n"
            "                    delay, corrupt, corrupt_header, window, delay_us,\n"
            "                    delay_frames, dup_frames; see docs/daemons.md)\n"
            "  --silence S@E     source S sends nothing from event E on\n"
            "  --burst-events N  send N events back to back, then pause (not with --rate)\n"
            "  --burst-gap-us T  the pause between bursts (0)\n"
            "  --rate EV/S       event rate, 0 for as fast as the farm takes them (0)\n"
            "  --udp             UDP/IPv4 fragments instead of raw Ethernet\n"
            "  --mtu N           MTU of every link, 256..9600 (1500): 9000 for jumbo frames\n"
            "  --trigger-us T    node busy time per event (1)\n"
            "  --accept F        fraction of events the nodes accept (0.1)\n"
            "  --trigger PATH    the nodes' trigger plug-in (.so, docs/trigger.md)\n"
            "                    instead of the emulation (--trigger-us, --accept)\n"
            "  --trigger-param KEY=VALUE  a parameter of the plug-in; once per key\n"
            "  --trigger-timeout-ms T  a longer decide counts as trigger.slow\n"
            "  --store DIR       the nodes write accepted events to files in DIR\n"
            "                    (docs/storage.md; read them with ebfarm events)\n"
            "  --store-max-file-mb N  a storage file is closed before N MiB (256)\n"
            "  --store-buffer-mb N  each node's memory for events not yet written (32)\n"
            "  --store-max-mbs R  the nodes write at most R MB/s (a slower disk); 0: no limit\n"
            "  --timeout-ms T    SFC event-building timeout (100)\n"
            "  --max-event B     every SFC's and node's largest event, bytes (16M, or\n"
            "                    what the SFC's mbufs hold; sizes storage blocks)\n"
            "  --credits N       event slots each node grants (32)\n"
            "  --workers N       trigger workers of each node, an lcore each (0)\n"
            "  --sfc-workers N   data planes of each SFC, an lcore each; every worker\n"
            "                    has its own memif links and at least one node (1)\n"
            "  --sfc-shared      with --sfc-workers: the workers share the one readout\n"
            "                    link (worker 0 hands each frame to its worker; one\n"
            "                    readout and one SFC)\n"
            "  --max-seconds S   stop generating after S seconds (300)\n"
            "  --kill-node-after N  SIGKILL node 0 once N events were generated: its\n"
            "                    events go to the other nodes, the ledger must still close\n"
            "  --kill-sfc-after N  kill the last SFC once N events were generated (SIGSTOP,\n"
            "                    SIGKILL once every readout declared it dead): failover is\n"
            "                    on (--replay-mb 64 unless given), its events go to the\n"
            "                    other SFCs and its unreleased ones are replayed\n"
            "  --freeze-sfc-after N  SIGSTOP the last SFC once N events were generated,\n"
            "  --freeze-ms T     SIGCONT it T ms later (3000): it fences itself and rejoins\n"
            "                    (failover on as for --kill-sfc-after)\n"
            "  --replay-mb N     failover: each readout keeps what it sent in N MiB until\n"
            "                    the SFCs' release frames free it, and routes around a dead\n"
            "                    SFC, replaying its share (0: off; the default unless an\n"
            "                    SFC is killed or frozen)\n"
            "  --sfc-dead-ms T   failover: an SFC silent for T ms is dead (100; 30 to 200)\n"
            "  --stall-nodes-after N  SIGSTOP every node once N events were generated; once\n"
            "                    the SFC has throttled the readout, SIGCONT them after\n"
            "  --stall-ms T      this long (1000); nothing may be lost\n"
            "  --netns           every process on a network namespace of its own (a host),\n"
            "                    launched over ssh, af_packet over a bridge, tcp control\n"
            "                    with CURVE keys (root; without --rate: the rate of\n"
            "                    %d frames/s, or 80 MB/s of payload if less); 4 readouts,\n"
            "                    2 SFCs and 4 nodes unless --readouts, --sfcs, --nodes\n"
            "  --cpus SPEC       CPU placement, WHO=N or WHO=N-M items, comma-separated;\n"
            "                    WHO a process (sfc0, ro0, node1), a kind (sfc, readout,\n"
            "                    node) or other (the rest; default: the CPUs no item names).\n"
            "                    A process's lcores float over its CPUs; its DPDK control\n"
            "                    and ZeroMQ threads run on other's. e.g. sfc=1,other=0\n"
            "  --idle SPEC       spin or backoff for every process (the farm file's:\n"
            "                    backoff), or WHO=spin|backoff items as --cpus has them\n"
            "  --keep            keep the run directory (logs and counters)\n"
            "  --json            print the summary as one JSON object\n"
            "Exits 0 when the ledger closes, 1 when it does not or a process failed.\n",
            FARM_MAX_NODES, FARM_NETNS_DEMO_FPS);
}

/* Which of the size and fault options were given, for the checks across them. */
struct demo_seen {
    int size, range, dist, mean, sigma, gap, timeout;
};

#define DEMO "ebfarm demo"

enum {
    OPT_FRAG_DIST = 256, OPT_FRAG_MEAN, OPT_FRAG_SIGMA, OPT_SEED, OPT_FAULTS, OPT_SILENCE,
    OPT_BURST_EVENTS, OPT_BURST_GAP, OPT_TRIGGER, OPT_TRIGGER_PARAM, OPT_TRIGGER_TIMEOUT,
    OPT_READOUTS, OPT_SFCS, OPT_KILL_SFC, OPT_WORKERS, OPT_SFC_WORKERS, OPT_SFC_SHARED,
    OPT_STORE, OPT_STORE_MB, OPT_STORE_BUFFER, OPT_STORE_MBS, OPT_CPUS, OPT_IDLE, OPT_MAX_EVENT,
    OPT_REPLAY_MB, OPT_FREEZE_SFC, OPT_FREEZE_MS, OPT_SFC_DEAD,
};

/* replay_mb until --replay-mb is given: chosen once every option is in. */
#define DEMO_REPLAY_UNSET UINT32_MAX
#define DEMO_REPLAY_MB 64u          /* failover's buffer when an SFC is killed or frozen */

/* 0 when dir holds no event files (*.ebfev): every demo is run 1, and its
 * files would clash with those of an earlier one. */
static int store_dir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = 0;

    if (!d) {
        fprintf(stderr, DEMO ": --store %s: %s (a directory the nodes may write in)\n", dir,
                strerror(errno));
        return -EINVAL;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 6 && strcmp(e->d_name + n - 6, ".ebfev") == 0) {
            fprintf(stderr, DEMO ": --store %s: holds event files already (%s); every demo is "
                    "run 1: give an empty directory\n", dir, e->d_name);
            rc = -EEXIST;
        }
    }
    closedir(d);
    return rc;
}

/* --trigger (made absolute: the nodes run elsewhere), --trigger-param,
 * --trigger-timeout-ms, --store (absolute too). 1 when ch is none of them. */
static int trigger_opt(int ch, const char *val, struct farm_conf *c)
{
    struct ff_trigger *t = &c->trigger;
    char path[PATH_MAX];

    switch (ch) {
    case OPT_TRIGGER:
        errno = 0;
        if (!realpath(val, path) || strlen(path) >= sizeof(t->plugin)) {
            fprintf(stderr, DEMO ": --trigger %s: %s\n", val,
                    errno ? strerror(errno) : "path too long");
            return -EINVAL;
        }
        snprintf(t->plugin, sizeof(t->plugin), "%s", path);
        return 0;
    case OPT_TRIGGER_PARAM:
        if (t->n_params >= FF_TRIGGER_PARAMS_MAX || strlen(val) >= sizeof(t->param[0])) {
            fprintf(stderr, DEMO ": --trigger-param %s: at most %d parameters of at most %zu "
                    "characters\n", val, FF_TRIGGER_PARAMS_MAX, sizeof(t->param[0]) - 1);
            return -EINVAL;
        }
        snprintf(t->param[t->n_params++], sizeof(t->param[0]), "%s", val);
        return 0;
    case OPT_TRIGGER_TIMEOUT:
        return ebf_opt_double(DEMO, "--trigger-timeout-ms", val, 0, 3.6e6, &t->timeout_ms);
    case OPT_STORE:
        errno = 0;
        if (!realpath(val, path) || strlen(path) >= sizeof(c->store.dir)) {
            fprintf(stderr, DEMO ": --store %s: %s (a directory the nodes may write in)\n",
                    val, errno ? strerror(errno) : "path too long");
            return -EINVAL;
        }
        snprintf(c->store.dir, sizeof(c->store.dir), "%s", path);
        return store_dir_empty(path);
    case OPT_STORE_MB:
        return ebf_opt_param(DEMO, EBF_PARAM(STORE_MAX_FILE_MB), val, &c->store.max_file_mb);
    case OPT_STORE_BUFFER:
        return ebf_opt_param(DEMO, EBF_PARAM(STORE_BUFFER_MB), val, &c->store.buffer_mb);
    case OPT_STORE_MBS:
        return ebf_opt_param(DEMO, EBF_PARAM(STORE_MAX_MBS), val, &c->store.max_mbs);
    case OPT_MAX_EVENT:
        return ebf_opt_param(DEMO, EBF_PARAM(MAX_EVENT), val, &c->max_event);
    }
    return 1;
}

/* --faults and --silence, with the readout's parsers; "none" is allowed. */
static int fault_opt(int ch, const char *val, struct farm_conf *c)
{
    const char *opt = ch == OPT_FAULTS ? "--faults" : "--silence";
    struct ro_fault_conf fc;
    char why[512];
    int rc;

    ro_fault_conf_init(&fc);
    if (strcmp(val, "none") == 0) {
        if (ch == OPT_FAULTS)
            c->faults[0] = '\0';
        else
            c->silence_source = FF_NO_SILENCE;
        return 0;
    }
    if (ch == OPT_FAULTS && strlen(val) >= sizeof(c->faults)) {
        fprintf(stderr, DEMO ": option '--faults': the spec is longer than %zu characters\n",
                sizeof(c->faults) - 1);
        return -EINVAL;
    }
    rc = ch == OPT_FAULTS ? ro_fault_parse(val, &fc, why, sizeof(why))
                          : ro_fault_parse_silence(val, &fc, why, sizeof(why));
    if (rc) {
        fprintf(stderr, DEMO ": option '%s': %s\n", opt, why);
        return rc;
    }
    if (ch == OPT_FAULTS) {
        snprintf(c->faults, sizeof(c->faults), "%s", val);
    } else {
        c->silence_source = fc.silence_source;
        c->silence_event = fc.silence_event;
    }
    return 0;
}

/* The options of fragment-size distributions and faults; 1 when ch is none of them. */
static int size_fault_opt(int ch, const char *val, struct farm_conf *c, struct demo_seen *seen)
{
    static const char *const dists[] = {
        [FF_DIST_FIXED] = "fixed", [FF_DIST_UNIFORM] = "uniform",
        [FF_DIST_LOGNORMAL] = "lognormal",
    };

    switch (ch) {
    case OPT_FRAG_DIST:
        for (unsigned i = 0; i < 3; i++)
            if (strcmp(val, dists[i]) == 0) {
                c->frag_dist = (enum ff_frag_dist)i;
                seen->dist = 1;
                return 0;
            }
        fprintf(stderr, DEMO ": option '--frag-dist': \"%s\" is not fixed, uniform or "
                "lognormal\n", val);
        return -EINVAL;
    case OPT_FRAG_MEAN:
        seen->mean = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(FRAG_MEAN), val, &c->frag_mean);
    case OPT_FRAG_SIGMA:
        seen->sigma = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(FRAG_SIGMA), val, &c->frag_sigma);
    case OPT_WORKERS:
        return ebf_opt_param(DEMO, EBF_PARAM(WORKERS), val, &c->workers);
    case OPT_SFC_WORKERS: {  /* the SFCs' --workers, under the demo's own name */
        uint64_t w;
        int rc = ebf_opt_u64(DEMO, "--sfc-workers", val, EBF_PARAM(WORKERS)->min,
                             EBF_PARAM(WORKERS)->max, &w);
        c->sfc_workers = (uint16_t)w;
        return rc;
    }
    case OPT_SEED:
        return ebf_opt_param(DEMO, EBF_PARAM(SEED), val, &c->seed);
    case OPT_FAULTS:
    case OPT_SILENCE:
        return fault_opt(ch, val, c);
    case OPT_BURST_EVENTS:
        return ebf_opt_param(DEMO, EBF_PARAM(BURST_EVENTS), val, &c->burst_events);
    case OPT_BURST_GAP:
        seen->gap = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(BURST_GAP_US), val, &c->burst_gap_us);
    }
    return 1;
}

static int demo_error(const char *msg)
{
    fprintf(stderr, DEMO ": %s\n", msg);
    return -EINVAL;
}

/* The checks across the size and fault options, once all are in; as the
 * readout's own options have them. */
static int size_fault_check(struct farm_conf *c, const struct demo_seen *seen)
{
    static const struct ebf_param_names opts = {.opt = 1};
    int lognormal = c->frag_dist == FF_DIST_LOGNORMAL;
    char why[160];

    if ((seen->mean || seen->sigma) && !lognormal)
        return demo_error("--frag-mean and --frag-sigma need --frag-dist lognormal");
    if (lognormal && !(seen->mean && seen->sigma))
        return demo_error("--frag-dist lognormal needs --frag-mean and --frag-sigma");
    if (lognormal && seen->size)
        return demo_error("--frag-dist lognormal takes --frag-min/--frag-max, not --frag-size");
    if (c->frag_dist == FF_DIST_FIXED && seen->dist && c->frag_min != c->frag_max)
        return demo_error("--frag-dist fixed takes --frag-size, not --frag-min/--frag-max");
    if (lognormal && !seen->range) {     /* what an event of --sources fragments carries */
        c->frag_min = (uint32_t)EBF_PARAM(FRAG_MIN)->min;
        c->frag_max = ebf_frag_fit(c->sources, c->udp ? EBF_ENCAP_UDP : EBF_ENCAP_ETH, c->mtu);
    }
    if (lognormal && (c->frag_mean < c->frag_min || c->frag_mean > c->frag_max)) {
        fprintf(stderr, DEMO ": --frag-mean %g is outside [--frag-min, --frag-max] (%u to %u)\n",
                c->frag_mean, c->frag_min, c->frag_max);
        return -EINVAL;
    }
    if (c->silence_source != FF_NO_SILENCE && c->silence_source >= c->sources) {
        fprintf(stderr, DEMO ": option '--silence': source %u is not below --sources %u\n",
                c->silence_source, c->sources);
        return -EINVAL;
    }
    if (c->burst_events && c->rate > 0)
        return demo_error("--burst-events replaces --rate: give one of them");
    if (ebf_param_check_burst_gap(&opts, seen->gap, c->burst_events, why, sizeof(why)))
        return demo_error(why);
    return 0;
}

/* An integer option in min..max into a narrower field. */
static int opt_u32(const char *opt, const char *val, uint64_t min, uint64_t max, uint32_t *out)
{
    uint64_t v;
    int rc = ebf_opt_u64(DEMO, opt, val, min, max, &v);

    if (rc == 0)
        *out = (uint32_t)v;
    return rc;
}

static int opt_u16(const char *opt, const char *val, uint64_t min, uint64_t max, uint16_t *out)
{
    uint32_t v;
    int rc = opt_u32(opt, val, min, max, &v);

    if (rc == 0)
        *out = (uint16_t)v;
    return rc;
}

/* The options of the run's shape: events, sources, nodes, sizes, rate,
 * encapsulation, the nodes' work. 1 when ch is none of them. */
static int shape_opt(int ch, const char *val, struct farm_conf *c, struct demo_seen *seen)
{
    int rc;

    switch (ch) {
    /* At least one event: a demo runs until its events are done. */
    case 'e': return ebf_opt_u64(DEMO, "--events", val, 1, EBF_PARAM(EVENTS)->max, &c->events);
    case 's': return ebf_opt_param(DEMO, EBF_PARAM(SOURCES), val, &c->sources);
    case 'n': return opt_u16("--nodes", val, 1, FARM_MAX_NODES, &c->nodes);
    case OPT_READOUTS: return opt_u16("--readouts", val, 1, FF_MAX_READOUTS, &c->readouts);
    case OPT_SFCS: return opt_u16("--sfcs", val, 1, FF_MAX_SFCS, &c->sfcs);
    case 'f':
        seen->size = 1;
        rc = ebf_opt_param(DEMO, EBF_PARAM(FRAG_SIZE), val, &c->frag_min);
        c->frag_max = c->frag_min;
        return rc;
    case 'a':
        seen->range = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(FRAG_MIN), val, &c->frag_min);
    case 'b':
        seen->range = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(FRAG_MAX), val, &c->frag_max);
    case 'r': return ebf_opt_param(DEMO, EBF_PARAM(RATE), val, &c->rate);
    case 'u': c->udp = 1; return 0;
    case 'm': return ebf_opt_param(DEMO, EBF_PARAM(MTU), val, &c->mtu);
    case 't': return ebf_opt_param(DEMO, EBF_PARAM(TRIGGER_US), val, &c->trigger_us);
    case 'A': return ebf_opt_param(DEMO, EBF_PARAM(ACCEPT), val, &c->accept);
    case 'T':
        seen->timeout = 1;
        return ebf_opt_param(DEMO, EBF_PARAM(TIMEOUT_MS), val, &c->timeout_ms);
    case 'c': return ebf_opt_param(DEMO, EBF_PARAM(CREDITS), val, &c->credits);
    }
    return 1;
}

/* --cpus and --idle, checked here for their form; their names against the
 * farm when it is shaped. */
static int place_opt(int ch, const char *val, struct farm_conf *c)
{
    char why[256];
    char *dst = ch == OPT_CPUS ? c->cpus : c->idle;

    if (farm_place_check(val, ch == OPT_IDLE, why, sizeof(why)) != 0) {
        fprintf(stderr, DEMO ": option %s\n", why);
        return -EINVAL;
    }
    snprintf(dst, FF_STR_MAX, "%s", val);
    return 0;
}

/* The options of how the demo runs: its limit, the node faults, what it
 * keeps and prints. 1 when ch is none of them. */
static int run_opt(int ch, const char *val, struct farm_conf *c, int *json)
{
    switch (ch) {
    case 'M': return ebf_opt_double(DEMO, "--max-seconds", val, 1, 86400, &c->max_seconds);
    case 'K':
        return ebf_opt_u64(DEMO, "--kill-node-after", val, 1, UINT64_MAX / 2,
                           &c->kill_node_after);
    case 'S':
        return ebf_opt_u64(DEMO, "--stall-nodes-after", val, 1, UINT64_MAX / 2,
                           &c->stall_nodes_after);
    case 'W': return ebf_opt_double(DEMO, "--stall-ms", val, 0, 600000, &c->stall_ms);
    case OPT_KILL_SFC:
        return ebf_opt_u64(DEMO, "--kill-sfc-after", val, 1, UINT64_MAX / 2, &c->kill_sfc_after);
    case OPT_FREEZE_SFC:
        return ebf_opt_u64(DEMO, "--freeze-sfc-after", val, 1, UINT64_MAX / 2,
                           &c->freeze_sfc_after);
    case OPT_FREEZE_MS: return ebf_opt_double(DEMO, "--freeze-ms", val, 0, 600000, &c->freeze_ms);
    case OPT_REPLAY_MB:
    case OPT_SFC_DEAD: {
        int dead = ch == OPT_SFC_DEAD;
        uint64_t v;
        int rc = ebf_opt_u64(DEMO, dead ? "--sfc-dead-ms" : "--replay-mb", val,
                             dead ? EBF_RELEASE_DEAD_MIN_MS : 0,
                             dead ? EBF_RELEASE_DEAD_MAX_MS : 65536, &v);
        *(dead ? &c->sfc_dead_ms : &c->replay_mb) = (uint32_t)v;
        return rc;
    }
    case OPT_CPUS:
    case OPT_IDLE:
        return place_opt(ch, val, c);
    case 'k': c->keep = 1; return 0;
    case 'N': c->netns = 1; return 0;
    case OPT_SFC_SHARED: c->sfc_shared = 1; return 0;
    case 'j': *json = 1; return 0;
    case 'h': demo_usage(stdout); exit(0);
    }
    return 1;
}

/* The checks once every option is in: none left over, then across options. */
static int demo_check(int argc, char **argv, struct farm_conf *c, const struct demo_seen *seen)
{
    static const struct ebf_param_names opts = {.opt = 1};
    char why[160];

    if (optind < argc) {
        fprintf(stderr, DEMO ": unexpected argument '%s'\n", argv[optind]);
        return -EINVAL;
    }
    if (c->kill_node_after && c->nodes < 2)
        return demo_error("--kill-node-after needs --nodes 2 or more");
    /* Unpaced readouts sharing cores drift apart by more than 100 ms: an
     * event waits for its slowest readout. */
    if (c->readouts > 1 && !seen->timeout)
        c->timeout_ms = 2000;
    if (c->netns && c->cpus[0])
        return demo_error("--cpus places processes on this machine; with --netns each "
                          "runs on a host of its own");
    if (c->sfc_shared && (c->sfc_workers < 2 || c->readouts > 1 || c->sfcs > 1))
        return demo_error("--sfc-shared needs --sfc-workers 2 or more, one readout and one SFC "
                          "(the workers share the readout's one memif link)");
    if (c->kill_sfc_after && c->sfcs < 2)
        return demo_error("--kill-sfc-after needs --sfcs 2 or more");
    if (c->freeze_sfc_after && c->sfcs < 2)
        return demo_error("--freeze-sfc-after needs --sfcs 2 or more");
    /* An SFC killed or frozen: failover on, so that its share is replayed
     * to the others and nothing is lost (without workers: release frames
     * come from worker 0 only). */
    if (c->replay_mb == DEMO_REPLAY_UNSET)
        c->replay_mb = (c->kill_sfc_after || c->freeze_sfc_after) && c->sfc_workers <= 1
                           ? DEMO_REPLAY_MB : 0;
    /* release frames come from an SFC's worker 0 only: the other workers'
     * places would never free the readouts' buffers */
    if (c->replay_mb && c->sfc_workers > 1)
        return demo_error("--replay-mb does not work with --sfc-workers yet");
    if (c->nodes < c->sfcs) {
        fprintf(stderr, DEMO ": --sfcs %u needs --nodes %u or more (a node serves one SFC)\n",
                c->sfcs, c->sfcs);
        return -EINVAL;
    }
    if (c->sources % c->readouts) {
        fprintf(stderr, DEMO ": --sources %u do not split evenly over --readouts %u (give a "
                "multiple of %u)\n", c->sources, c->readouts, c->readouts);
        return -EINVAL;
    }
    if (ebf_param_check_frag_range(&opts, c->frag_min, c->frag_max, why, sizeof(why)))
        return demo_error(why);
    return size_fault_check(c, seen);
}

/* c and *json from the demo's options; 0, or -EINVAL after a message. */
static int demo_args(int argc, char **argv, struct farm_conf *c, int *json)
{
    static const struct option lo[] = {
        {"events", 1, 0, 'e'}, {"sources", 1, 0, 's'}, {"nodes", 1, 0, 'n'},
        {"frag-size", 1, 0, 'f'}, {"frag-min", 1, 0, 'a'}, {"frag-max", 1, 0, 'b'},
        {"rate", 1, 0, 'r'}, {"udp", 0, 0, 'u'}, {"mtu", 1, 0, 'm'},
        {"trigger-us", 1, 0, 't'}, {"accept", 1, 0, 'A'}, {"timeout-ms", 1, 0, 'T'},
        {"credits", 1, 0, 'c'}, {"workers", 1, 0, OPT_WORKERS},
        {"sfc-workers", 1, 0, OPT_SFC_WORKERS}, {"sfc-shared", 0, 0, OPT_SFC_SHARED},
        {"max-seconds", 1, 0, 'M'}, {"keep", 0, 0, 'k'}, {"json", 0, 0, 'j'},
        {"netns", 0, 0, 'N'},
        {"kill-node-after", 1, 0, 'K'}, {"help", 0, 0, 'h'},
        {"stall-nodes-after", 1, 0, 'S'}, {"stall-ms", 1, 0, 'W'},
        {"frag-dist", 1, 0, OPT_FRAG_DIST}, {"frag-mean", 1, 0, OPT_FRAG_MEAN},
        {"frag-sigma", 1, 0, OPT_FRAG_SIGMA}, {"seed", 1, 0, OPT_SEED},
        {"faults", 1, 0, OPT_FAULTS}, {"silence", 1, 0, OPT_SILENCE},
        {"burst-events", 1, 0, OPT_BURST_EVENTS}, {"burst-gap-us", 1, 0, OPT_BURST_GAP},
        {"trigger", 1, 0, OPT_TRIGGER}, {"trigger-param", 1, 0, OPT_TRIGGER_PARAM},
        {"trigger-timeout-ms", 1, 0, OPT_TRIGGER_TIMEOUT},
        {"readouts", 1, 0, OPT_READOUTS}, {"sfcs", 1, 0, OPT_SFCS},
        {"kill-sfc-after", 1, 0, OPT_KILL_SFC}, {"replay-mb", 1, 0, OPT_REPLAY_MB},
        {"sfc-dead-ms", 1, 0, OPT_SFC_DEAD},
        {"freeze-sfc-after", 1, 0, OPT_FREEZE_SFC}, {"freeze-ms", 1, 0, OPT_FREEZE_MS},
        {"trigger-timeout-ms", 1, 0, OPT_TRIGGER_TIMEOUT}, {"store", 1, 0, OPT_STORE},
        {"store-max-file-mb", 1, 0, OPT_STORE_MB}, {"store-buffer-mb", 1, 0, OPT_STORE_BUFFER},
        {"store-max-mbs", 1, 0, OPT_STORE_MBS}, {"cpus", 1, 0, OPT_CPUS},
        {"idle", 1, 0, OPT_IDLE}, {"max-event", 1, 0, OPT_MAX_EVENT},
        {0, 0, 0, 0},
    };
    struct demo_seen seen = {0};
    int ch, rc;

    /* --netns: the shape of a farm across hosts unless the options say
     * otherwise (they come after and override it). */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--netns") == 0) {
            c->readouts = FARM_NETNS_DEMO_READOUTS;
            c->sfcs = FARM_NETNS_DEMO_SFCS;
            c->nodes = FARM_NETNS_DEMO_NODES;
        }
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if ((rc = size_fault_opt(ch, optarg, c, &seen)) == 1 &&
            (rc = shape_opt(ch, optarg, c, &seen)) == 1 &&
            (rc = run_opt(ch, optarg, c, json)) == 1 &&
            (rc = trigger_opt(ch, optarg, c)) == 1) {
            demo_usage(stderr);
            return -EINVAL;
        }
        if (rc)
            return rc;
    }
    return demo_check(argc, argv, c, &seen);
}

int cmd_demo(int argc, char **argv)
{
    struct farm_conf c;
    struct farm_result r;
    struct ledger l;
    char build[PATH_MAX];
    int json = 0;

    farm_conf_default(&c);
    c.replay_mb = DEMO_REPLAY_UNSET;
    if (demo_args(argc, argv, &c, &json))
        return 2;
    if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm demo: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        return 1;
    }
    c.build_dir = build;
    if (c.netns && c.rate == 0 && !c.burst_events)
        c.rate = farm_netns_demo_rate(&c);   /* af_packet drops what it cannot take */
    if (!json)
        fprintf(stderr, "ebfarm demo: starting %u SFC(s), %u nodes and %u readout(s) (%llu "
                "events)...\n", c.sfcs, c.nodes, c.readouts, (unsigned long long)c.events);
    farm_signal_catch();
    if (farm_run(&c, &r) != 0) {
        fprintf(stderr, "ebfarm demo: run failed: %s\n", r.error);
        farm_result_free(&r);
        return farm_signal_count() ? 128 + farm_signal_last() : 1;
    }
    ledger_close(&r, &l);
    if (json)
        summary_json_or_say(&c, &r, &l, "ebfarm demo");
    else
        summary_text(stdout, &c, &r, &l);
    if (c.keep)
        fprintf(stderr, "ebfarm demo: logs and counters kept in %s\n", r.run_dir);
    farm_result_free(&r);
    if (!l.closed) {
        fprintf(stderr, "ebfarm demo: the ledger does not close\n");
        return 1;
    }
    if (farm_signal_count()) {
        /* Stopped early by the operator: the summary above is the run's. */
        fprintf(stderr, "ebfarm demo: interrupted after %llu of %llu events; the run was "
                "stopped in stages and its ledger closes\n", (unsigned long long)l.generated,
                (unsigned long long)c.events);
        return 128 + farm_signal_last();
    }
    return 0;
}
