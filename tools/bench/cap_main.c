/* SPDX-License-Identifier: BSD-3-Clause */
/* cap_main.c - ebfarm-sfc-capacity: the SFC's frames per busy second in-process, or the ring ports' io-forward floor. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "cap_rig.h"
#include "ebf_port.h"

static const char usage[] =
    "usage: ebfarm-sfc-capacity [EAL options] -- [--io | --ref io|header|crc]\n"
    "                           [--frag-size N] [--sources N]\n"
    "                           [--ms N] [--mtu N] [--verify full|sampled|none]\n"
    "                           [--verify-every N] [--workers W] [--shared] [--frames N]\n"
    "Feeds pre-built fragment frames to the SFC's data plane over net_ring ports\n"
    "on one lcore and prints its frames per busy second (cycles inside its poll\n"
    "loop only); --io forwards the same frames port to port instead (pointers);\n"
    "--ref header parses each one's headers before (the floor of --verify sampled\n"
    "and none), --ref crc checks its CRC32C too (the floor of --verify full).\n"
    "--workers W: an SFC of W workers, each with a lane of its own (ring ports,\n"
    "frames, nodes) on an lcore of its own (EAL gives W); the figures are summed,\n"
    "and frames_per_wall_s is what all lanes moved per second of wall time.\n"
    "--shared: the W workers share one readout port and one node port (worker 0\n"
    "receives both and hands each frame to its owner over a ring).\n"
    "--mtu up to 9000: the pools' data rooms are sized to it (jumbo frames).\n"
    "--frames N: frames per round (4096: in a large L3); 65536 of 1 KiB make the\n"
    "frame set larger than the last-level cache, so payload comes from DRAM\n"
    "(give EAL memory for it: -m 1024 with --no-huge).\n";

static int parse_u(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!s[0] || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "sfc-capacity: option '%s': '%s' is not an integer in %u..%u\n", opt,
                s, lo, hi);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_opts(int argc, char **argv, struct cap_opts *o)
{
    static const struct option lo[] = {
        {"io", no_argument, NULL, 'i'},        {"frag-size", required_argument, NULL, 'f'},
        {"sources", required_argument, NULL, 's'}, {"ms", required_argument, NULL, 't'},
        {"mtu", required_argument, NULL, 'm'}, {"verify", required_argument, NULL, 'v'},
        {"verify-every", required_argument, NULL, 'e'}, {"workers", required_argument, NULL, 'w'},
        {"shared", no_argument, NULL, 'S'}, {"frames", required_argument, NULL, 'F'},
        {"ref", required_argument, NULL, 'r'},
        {NULL, 0, NULL, 0},
    };
    static const char *const verify[] = {"full", "sampled", "none"};
    static const char *const ref[] = {"io", "header", "crc"};
    unsigned mtu = 1500, ms = 1000, every = 64;
    int c;
    *o = (struct cap_opts){.frag_size = 1024, .sources = 8, .seconds = 1.0, .workers = 1,
                           .batch_frames = CAP_BATCH_FRAMES};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        int rc = 0;
        if (c == 'i')
            o->io = CAP_REF_IO;
        else if (c == 'r') {
            for (int k = 0; k < 3; k++)
                if (strcmp(optarg, ref[k]) == 0)
                    o->io = CAP_REF_IO + k;
            if (!o->io) {
                fprintf(stderr, "sfc-capacity: option '--ref': '%s' is not io, header or crc\n",
                        optarg);
                rc = -1;
            }
        }
        else if (c == 'S')
            o->shared = 1;
        else if (c == 'f')
            rc = parse_u("--frag-size", optarg, 64, CAP_FRAG_MAX, &o->frag_size);
        else if (c == 's')
            rc = parse_u("--sources", optarg, 1, CAP_SOURCES_MAX, &o->sources);
        else if (c == 't')
            rc = parse_u("--ms", optarg, 10, 60000, &ms);
        else if (c == 'm')
            rc = parse_u("--mtu", optarg, 256, 9000, &mtu);
        else if (c == 'e')
            rc = parse_u("--verify-every", optarg, 1, 1u << 20, &every);
        else if (c == 'F')
            rc = parse_u("--frames", optarg, 64, CAP_FRAMES_MAX, &o->batch_frames);
        else if (c == 'w')
            rc = parse_u("--workers", optarg, 1, CAP_LANES_MAX, &o->workers);
        else if (c == 'v') {
            o->verify = 3;
            for (uint8_t v = 0; v < 3; v++)
                if (strcmp(optarg, verify[v]) == 0)
                    o->verify = v;
            if (o->verify == 3) {
                fprintf(stderr, "sfc-capacity: option '--verify': '%s' is not full, sampled "
                                "or none\n", optarg);
                rc = -1;
            }
        }
        else
            rc = -1;
        if (rc)
            return -1;
    }
    o->seconds = ms / 1000.0;
    o->mtu = (uint16_t)mtu;
    o->verify_every = every;
    return 0;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Cycles of the subject's passes that did work, over rounds until the
 * measuring time is up: *busy as the TSC counts them, *on_cpu the same
 * times the share of each round's wall time that this thread was on a CPU
 * (its CPU time over the round's TSC time), so that the time another
 * thread held the core is left out. Returns 0, or -1 when a round stalled. */
static int measure(struct cap_rig *g, uint64_t start, uint64_t *busy, double *on_cpu,
                   uint64_t *frames)
{
    uint64_t hz = rte_get_tsc_hz(), end = start + (uint64_t)(g->o.seconds * (double)hz);
    struct rte_mbuf *m[32];
    *busy = *frames = 0;
    *on_cpu = 0;
    while (rte_get_tsc_cycles() < end) {
        uint64_t r0 = rte_get_tsc_cycles(), b0 = *busy;
        double c0 = thread_cpu_s();
        cap_rig_feed(g);
        uint64_t stall = rte_get_tsc_cycles() + 5 * hz;
        while (!cap_rig_round_done(g)) {
            uint64_t t0 = rte_get_tsc_cycles(), work;
            if (g->o.io) {
                uint16_t n = rte_eth_rx_burst(g->sfc_rx, 0, m, 32);
                cap_ref_pass(g, m, n);
                work = n ? rte_eth_tx_burst(g->sfc_node, 0, m, n) : 0;
                if (work < n)
                    rte_pktmbuf_free_bulk(m + work, n - (uint16_t)work);
            } else {
                work = sfc_dp_poll(g->dp, 1);
            }
            uint64_t t1 = rte_get_tsc_cycles();
            if (work)
                *busy += t1 - t0;
            cap_rig_nodes(g);
            if (t1 > stall) {
                fprintf(stderr, "sfc-capacity: a round of %u frames did not come back in 5 s\n",
                        g->n_frames);
                return -1;
            }
        }
        *frames += g->n_frames;
        double wall = (double)(rte_get_tsc_cycles() - r0) / (double)hz;
        double share = wall > 0 ? (thread_cpu_s() - c0) / wall : 1;
        *on_cpu += (double)(*busy - b0) * (share < 1 ? share : 1);
    }
    return 0;
}

/* The SFC must have built and sent every frame fed, dropping none. */
static int check_counts(const struct cap_rig *g, uint64_t frames)
{
    if (g->o.io)
        return g->node_frames == frames ? 0 : -1;
    const struct sfc_stats *st = sfc_dp_stats(g->dp);
    uint64_t events = frames / g->per_event;
    if (st->rx_frames == frames && st->events_complete == events && g->acked == events)
        return 0;
    fprintf(stderr,
            "sfc-capacity: fed %" PRIu64 " frames (%" PRIu64 " events), the SFC took %" PRIu64
            " and completed %" PRIu64 " events, %" PRIu64 " acked\n",
            frames, events, st->rx_frames, st->events_complete, g->acked);
    return -1;
}

/* One lane on its lcore: from the common start, rounds until the time is
 * up; its figures and the TSC when its last round was through. */
struct lane_run {
    struct cap_rig g;
    volatile uint64_t *start;    /* 0 until every lane is launched */
    uint64_t busy, frames, end_tsc;
    double on_cpu;
    int rc;
    volatile int done;           /* its rounds are over */
    struct lane_run *all;        /* every lane, n of them (lane 0 waits for the others) */
    unsigned n;
} __rte_cache_aligned;

/* Shared ports: lane 0's worker receives them for every lane, so it goes
 * on polling (not counted) until the other lanes' rounds are through. */
static void serve_others(struct lane_run *l)
{
    for (unsigned w = 1; w < l->n; w++)
        while (!l->all[w].done) {
            sfc_dp_poll(l->g.dp, 1);
            cap_rig_nodes(&l->g);
        }
}

static int lane_main(void *arg)
{
    struct lane_run *l = arg;
    uint64_t start;

    while ((start = *l->start) == 0)
        rte_pause();
    l->rc = measure(&l->g, start, &l->busy, &l->on_cpu, &l->frames);
    l->end_tsc = rte_get_tsc_cycles();
    l->done = 1;
    if (l->g.lane == 0 && l->g.o.shared && l->g.dp)
        serve_others(l);
    if (!l->rc)
        l->rc = check_counts(&l->g, l->frames);
    return 0;
}

/* Every lane on its lcore (lane 0 on this one), all from one start.
 * Returns 0 when every lane came through. */
static int run_lanes(struct lane_run *lanes, unsigned n)
{
    static volatile uint64_t start;
    unsigned lcore = (unsigned)-1;
    int rc = 0;

    start = 0;
    for (unsigned w = 0; w < n; w++) {
        lanes[w].start = &start;
        lanes[w].all = lanes;
        lanes[w].n = n;
    }
    for (unsigned w = 1; w < n; w++) {
        lcore = rte_get_next_lcore(lcore, 1, 0);
        if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(lane_main, &lanes[w], lcore) != 0) {
            fprintf(stderr, "sfc-capacity: --workers %u needs %u lcores (EAL -l)\n", n, n);
            start = 1;          /* let the launched ones go, then fail */
            rc = -1;
            n = w;
            break;
        }
    }
    lanes[0].n = n;             /* the lanes launched */
    if (!rc)
        start = rte_get_tsc_cycles();
    lane_main(&lanes[0]);
    rte_eal_mp_wait_lcore();
    for (unsigned w = 0; w < n && !rc; w++)
        rc = lanes[w].rc;
    return rc;
}

static void print_sums(const struct lane_run *lanes, unsigned n, uint64_t start)
{
    double hz = (double)rte_get_tsc_hz(), on_cpu = 0;
    uint64_t busy = 0, frames = 0, events = 0, end = start;
    const struct cap_opts *o = &lanes[0].g.o;

    for (unsigned w = 0; w < n; w++) {
        busy += lanes[w].busy;
        on_cpu += lanes[w].on_cpu;
        frames += lanes[w].frames;
        events += lanes[w].frames / lanes[w].g.per_event;
        end = lanes[w].end_tsc > end ? lanes[w].end_tsc : end;
    }
    double s = on_cpu / hz, raw = (double)busy / hz, wall = (double)(end - start) / hz;
    double bits = (double)events * o->sources * o->frag_size * 8.0;
    printf("frames=%" PRIu64 " events=%" PRIu64 " busy_cycles=%" PRIu64 " tsc_hz=%.0f"
           " on_cpu_cycles=%.0f cycles_per_frame=%.1f frames_per_busy_s=%.0f"
           " payload_gbit_per_busy_s=%.3f frames_per_busy_s_tsc=%.0f workers=%u wall_s=%.4f"
           " frames_per_wall_s=%.0f shared=%d\n",
           frames, events, busy, hz, on_cpu, frames ? on_cpu / (double)frames : 0.0,
           s > 0 ? (double)frames / s : 0.0, s > 0 ? bits / s * 1e-9 : 0.0,
           raw > 0 ? (double)frames / raw : 0.0, n, wall, wall > 0 ? (double)frames / wall : 0.0,
           o->shared && n > 1);
    /* Each lane's own cycles per frame it fed (lane 0's lcore also
     * receives the shared ports for every lane). */
    printf("per_lane_cycles=");
    for (unsigned w = 0; w < n; w++)
        printf("%s%.1f", w ? "," : "", lanes[w].frames ? lanes[w].on_cpu / (double)lanes[w].frames
                                                       : 0.0);
    printf("\n");
}

int main(int argc, char **argv)
{
    static struct lane_run lanes[CAP_LANES_MAX];
    int n = rte_eal_init(argc, argv);
    if (n < 0) {
        fprintf(stderr, "sfc-capacity: EAL initialisation failed\n%s", usage);
        return 2;
    }
    argv[n] = argv[0];
    struct cap_opts o;
    if (parse_opts(argc - n, argv + n, &o) != 0)
        ebf_eal_exit(2, "%s", usage);
    if (o.workers > rte_lcore_count())
        ebf_eal_exit(2, "sfc-capacity: --workers %u needs %u lcores, EAL gave %u (-l)\n",
                     o.workers, o.workers, rte_lcore_count());
    struct cap_pools pools;
    struct cap_rig *rig[CAP_LANES_MAX];
    struct sfc_workers *sw = NULL;
    unsigned up = 0;
    int rc = cap_pools_up(&pools, &o);
    for (; !rc && up < o.workers; up++) {
        rig[up] = &lanes[up].g;
        rc = cap_rig_up(rig[up], &o, up, &pools);
    }
    if (!rc && !o.io && !(sw = cap_sfc_up(rig, o.workers, &pools)))
        rc = -1;
    if (!rc)
        rc = run_lanes(lanes, o.workers);
    if (!rc)
        print_sums(lanes, o.workers, *lanes[0].start);
    sfc_workers_destroy(sw);
    for (unsigned w = 0; w < up; w++)
        cap_rig_down(&lanes[w].g);
    ebf_eal_cleanup();
    return rc ? 1 : 0;
}
