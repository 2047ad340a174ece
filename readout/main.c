/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-readout: its own options and its port around the daemon skeleton. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "ebf_daemon.h"
#include "ebf_release.h"
#include "ebf_util.h"
#include "ro_ctl.h"
#include "ro_fault.h"
#include "ro_size.h"

#define DIST_FIXED 2             /* beside enum ro_size_dist: --frag-dist fixed */

/* The shared parameters' defaults come from the table (ebf_param.h). */
static struct ro_conf conf = {
    .encap = EBF_ENCAP_ETH, .burst = 32,
    .src_ip = 0x0a000001, .sfc_timeout_ms = 2000, .payload = RO_PAYLOAD_PREBUILT,
};

static struct ebf_daemon ro_daemon;
static char sfc_port_name[RO_MAX_SFCS][64];   /* --sfc-port, by SFC */

/* What only the checks across options need. */
static struct {
    int have_size, have_range, have_gap;
    int dist;                    /* -1: not given, else enum ro_size_dist or DIST_FIXED */
    double mean, sigma;          /* -1: not given */
    int linger;
    struct ro_fault_conf fault;
} opt = {.dist = -1, .mean = -1, .sigma = -1};

static int parse_sfc_macs(void *arg, const char *val, char *err, size_t len)
{
    struct ro_conf *c = arg;
    char buf[1024], *save = NULL;
    int n = 0;

    if (strlen(val) >= sizeof(buf))
        return snprintf(err, len, "list too long"), -EINVAL;
    strcpy(buf, val);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == RO_MAX_SFCS)
            return snprintf(err, len, "more than %d MAC addresses", RO_MAX_SFCS), -EINVAL;
        if (ebf_parse_mac(t, c->sfc_mac[n++]))
            return snprintf(err, len, "\"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)", t),
                   -EINVAL;
    }
    if (n == 0)
        return snprintf(err, len, "\"%s\" holds no MAC address", val), -EINVAL;
    c->n_sfcs = (uint16_t)n;
    return 0;
}

static int parse_sfc_ips(void *arg, const char *val, char *err, size_t len)
{
    struct ro_conf *c = arg;
    char buf[1024], *save = NULL;
    int n = 0;

    snprintf(buf, sizeof(buf), "%s", val);
    for (char *t = strtok_r(buf, ",", &save); t && n < RO_MAX_SFCS;
         t = strtok_r(NULL, ",", &save))
        if (ebf_parse_ipv4(t, &c->sfc_ip[n++]))
            return snprintf(err, len, "\"%s\" is not an IPv4 address", t), -EINVAL;
    return 0;
}

/* --sfc-port NAME[,NAME...]: the port toward each SFC of --sfc-mac. */
static int parse_sfc_ports(void *arg, const char *val, char *err, size_t len)
{
    struct ro_conf *c = arg;
    char buf[1024], *save = NULL;
    uint16_t n = 0;

    if (strlen(val) >= sizeof(buf))
        return snprintf(err, len, "list too long"), -EINVAL;
    strcpy(buf, val);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == RO_MAX_SFCS)
            return snprintf(err, len, "more than %d ports", RO_MAX_SFCS), -EINVAL;
        if (strlen(t) >= sizeof(sfc_port_name[0]))
            return snprintf(err, len, "\"%s\" is too long for a port name", t), -EINVAL;
        snprintf(sfc_port_name[n++], sizeof(sfc_port_name[0]), "%s", t);
    }
    if (n == 0)
        return snprintf(err, len, "\"%s\" holds no port name", val), -EINVAL;
    c->n_sfc_ports = n;
    return 0;
}

/* --frag-size: one size for all, in place of --frag-min/--frag-max. */
static int parse_frag_size(void *arg, const char *val, char *err, size_t len)
{
    const struct ebf_param_def *d = EBF_PARAM(FRAG_SIZE);
    struct ro_conf *c = arg;
    uint32_t v;
    char range[64];

    if (ebf_param_parse(d, val, strlen(val), &v))
        return snprintf(err, len, "\"%s\" %s in %s", val, ebf_parse_why(val, 0),
                        ebf_param_range(d, range, sizeof(range))), -EINVAL;
    c->size_min = c->size_max = v;
    opt.have_size = 1;
    return 0;
}

static int parse_encap(void *arg, const char *val, char *err, size_t len)
{
    enum ebf_encap *e = arg;

    if (strcmp(val, "eth") == 0 || strcmp(val, "udp") == 0)
        return *e = val[0] == 'e' ? EBF_ENCAP_ETH : EBF_ENCAP_UDP, 0;
    return snprintf(err, len, "\"%s\" is not eth or udp", val), -EINVAL;
}

static int parse_dist(void *arg, const char *val, char *err, size_t len)
{
    static const char *const dists[] = {"uniform", "lognormal", "fixed"};
    int *dist = arg;

    for (int i = 0; i < 3; i++)
        if (strcmp(val, dists[i]) == 0)
            return *dist = i, 0;
    return snprintf(err, len, "\"%s\" is not fixed, uniform or lognormal", val), -EINVAL;
}

static int parse_payload(void *arg, const char *val, char *err, size_t len)
{
    if (ro_payload_parse(val, arg) == 0)
        return 0;
    return snprintf(err, len, "\"%s\" is not prebuilt or per-event", val), -EINVAL;
}

static int parse_faults(void *arg, const char *val, char *err, size_t len)
{
    return ro_fault_parse(val, arg, err, len);
}

static int parse_silence(void *arg, const char *val, char *err, size_t len)
{
    return ro_fault_parse_silence(val, arg, err, len);
}

static const struct ebf_arg own[] = {
    {.name = "sfc-mac", .kind = EBF_ARG_FN, .fn = parse_sfc_macs, .dst = &conf, .required = 1,
     .meta = "MAC[,MAC...]", .help = "SFC MACs; event e goes to SFC e % count"},
    {.name = "sfc-port", .kind = EBF_ARG_FN, .fn = parse_sfc_ports, .dst = &conf,
     .meta = "NAME[,NAME...]", .help = "the port toward each SFC of --sfc-mac, in order\n"
     "(one memif link per SFC; default: --port for all)"},
    EBF_ARG_PARAM(SOURCES, &conf.n_sources, "N", "readout boards emulated on this port"),
    EBF_ARG_INT(EBF_ARG_U16, "source-base", &conf.source_base, 0, EBF_MAX_SOURCES - 1, "N",
                "the first source id (0): sources N up, one per\n"
                "source; unique across the readouts of a farm"),
    EBF_ARG_INT(EBF_ARG_U32, "replay-mb", &conf.replay_mb, 0, 65536, "N",
                "failover: keep each event sent in a replay buffer of N MiB\n"
                "until its SFC's release frames free it; the trigger is\n"
                "held while it is full (0, the default: off)"),
    EBF_ARG_INT(EBF_ARG_U32, "sfc-dead-ms", &conf.sfc_dead_ms, EBF_RELEASE_DEAD_MIN_MS,
                EBF_RELEASE_DEAD_MAX_MS, "T",
                "failover: an SFC whose release frames stop for T ms\n"
                "is dead (100; 30 to 200; give its SFCs the same)"),
    EBF_ARG_NUM("sfc-timeout-ms", &conf.sfc_timeout_ms, 0, 3600000, "T",
                "give an SFC up when its link is down, or its port refused\n"
                "every frame for T ms while it sent no throttle frame;\n"
                "the other SFCs are served on (2000; 0: never)"),
    EBF_ARG_PARAM(EVENTS, &conf.n_events, "N",
                  "events to send (0: until --duration or SIGINT)"),
    EBF_ARG_PARAM(DURATION, &conf.duration_s, "S", "stop after S seconds; 0: no limit"),
    EBF_ARG_PARAM(RATE, &conf.rate, "EV/S", "event rate (0: as fast as the port takes frames)"),
    {.kind = EBF_ARG_FN, .name = "frag-size", .fn = parse_frag_size, .dst = &conf, .meta = "N",
     .help = "fixed fragment size in bytes (1024)"},
    {.kind = EBF_ARG_PARAM, .param = EBF_PARAM(FRAG_MIN), .dst = &conf.size_min,
     .seen = &opt.have_range, .meta = "N", .help = "smallest fragment, uniform sizes"},
    {.kind = EBF_ARG_PARAM, .param = EBF_PARAM(FRAG_MAX), .dst = &conf.size_max,
     .seen = &opt.have_range, .meta = "N", .help = "largest fragment, uniform sizes"},
    EBF_ARG_CALL("frag-dist", parse_dist, &opt.dist, "fixed|uniform|lognormal",
                 "fragment-size distribution (fixed with --frag-size,\n"
                 "uniform with --frag-min/--frag-max)"),
    EBF_ARG_PARAM(FRAG_MEAN, &opt.mean, "B", "log-normal mean in bytes"),
    EBF_ARG_PARAM(FRAG_SIGMA, &opt.sigma, "S",
                  "log-normal standard deviation in bytes; sizes clamped\n"
                  "to [--frag-min, --frag-max] (default: 1 to what an\n"
                  "event of --sources fragments carries at --mtu)"),
    EBF_ARG_CALL("encap", parse_encap, &conf.encap, "eth|udp",
                 "raw Ethernet (EtherType 0x88b5) or UDP/IPv4 (eth)"),
    EBF_ARG_PARAM(UDP_PORT, &conf.udp_port, "P", "UDP port"),
    EBF_ARG_VAL(EBF_ARG_IPV4, "src-ip", &conf.src_ip, "A", "IPv4 source for --encap udp"),
    EBF_ARG_CALL("sfc-ip", parse_sfc_ips, &conf, "A[,A...]", "the SFCs' IPv4 for --encap udp"),
    EBF_ARG_INT(EBF_ARG_U16, "burst", &conf.burst, 1, 256, "N", "frames per tx burst (32)"),
    EBF_ARG_PARAM(SEED, &conf.seed, "N", "seed of the fragment sizes"),
    EBF_ARG_CALL("payload", parse_payload, &conf.payload, "prebuilt|per-event",
                 "fragment bytes of (source, offset), built once and the\n"
                 "same in every event (header flag prebuilt), or the\n"
                 "pattern of each event, made per frame (prebuilt)"),
    EBF_ARG_CALL("faults", parse_faults, &opt.fault, "SPEC",
                 "frame faults, e.g. drop=0.001,dup=0.001,reorder=0.01,\n"
                 "corrupt=0.0005,delay=0.001 (keys: drop, dup, reorder,\n"
                 "delay, corrupt, corrupt_payload, corrupt_header: per-frame\n"
                 "probabilities; window=N, delay_us=T, delay_frames=N)"),
    EBF_ARG_PARAM(FAULT_SEED, &opt.fault.seed, "N", "seed of the fault decisions"),
    EBF_ARG_CALL("silence", parse_silence, &opt.fault, "S@E",
                 "source S sends nothing from event E on"),
    EBF_ARG_PARAM(BURST_EVENTS, &opt.fault.burst_events, "N",
                  "send N events back to back, then pause; not with --rate"),
    {.kind = EBF_ARG_PARAM, .param = EBF_PARAM(BURST_GAP_US), .dst = &opt.fault.burst_gap_us,
     .seen = &opt.have_gap, .meta = "T", .help = "the pause between bursts"},
    EBF_ARG_VAL(EBF_ARG_FLAG, "linger", &opt.linger, NULL,
                "without --control: when done, keep the link up until\n"
                "SIGINT: shared-memory links such as memif drop what\n"
                "the peer has not read when a side closes"),
};

static int refuse(char *err, size_t len, const char *msg)
{
    snprintf(err, len, "%s", msg);
    return -EINVAL;
}

/* The checks across options: fragment sizes, their distribution, faults. */
static int check_opts(char *err, size_t len)
{
    static const struct ebf_param_names opts = {.opt = 1};
    struct ro_conf *c = &conf;
    char why[320];
    int lognormal = opt.dist == RO_SIZE_LOGNORMAL;

    if (ebf_param_check_frag_range(&opts, c->size_min, c->size_max, err, len))
        return -EINVAL;
    if ((opt.mean >= 0 || opt.sigma >= 0) && !lognormal)
        return refuse(err, len, "--frag-mean and --frag-sigma need --frag-dist lognormal");
    if (lognormal && (opt.mean < 0 || opt.sigma < 0))
        return refuse(err, len, "--frag-dist lognormal needs --frag-mean and --frag-sigma");
    if (lognormal && opt.have_size)
        return refuse(err, len, "--frag-dist lognormal takes --frag-min/--frag-max, not --frag-size");
    if (opt.dist == DIST_FIXED && opt.have_range)
        return refuse(err, len, "--frag-dist fixed takes --frag-size, not --frag-min/--frag-max");
    if ((unsigned)c->source_base + c->n_sources > EBF_MAX_SOURCES) {
        snprintf(err, len, "option '--source-base': sources %u..%u go beyond the %d an event "
                 "has at most", c->source_base, c->source_base + c->n_sources - 1,
                 EBF_MAX_SOURCES);
        return -EINVAL;
    }
    if (c->n_sfc_ports && c->n_sfc_ports != c->n_sfcs) {
        snprintf(err, len, "option '--sfc-port': %u ports for the %u SFCs of --sfc-mac (one "
                 "each, in order)", c->n_sfc_ports, c->n_sfcs);
        return -EINVAL;
    }
    if (opt.fault.silence_source != RO_FAULT_NO_SILENCE &&
        opt.fault.silence_source >= (unsigned)c->source_base + c->n_sources) {
        snprintf(err, len, "option '--silence': source %u is not below --source-base + "
                 "--sources %u", opt.fault.silence_source, c->source_base + c->n_sources);
        return -EINVAL;
    }
    if (opt.fault.burst_events && c->rate > 0)
        return refuse(err, len, "--burst-events replaces --rate: give one of them");
    if (ebf_param_check_burst_gap(&opts, opt.have_gap, opt.fault.burst_events, err, len))
        return -EINVAL;
    /* Log-normal sizes without --frag-min/--frag-max: clamped to what an
     * event of --sources fragments can carry at --mtu. */
    enum ebf_encap encap = c->encap;
    uint16_t mtu = ro_daemon.cl.common.mtu;
    if (lognormal && !opt.have_range)
        c->size_min = 1, c->size_max = ebf_frag_fit(c->n_sources, encap, mtu);
    if (ebf_event_frames_check(c->n_sources, c->size_max, encap, mtu, 0, why, sizeof(why))) {
        snprintf(err, len, "%s: %s", opt.have_size ? "--frag-size" : "--frag-max", why);
        return -EINVAL;
    }
    if (lognormal) {
        c->size_dist = RO_SIZE_LOGNORMAL;
        c->size_mean = opt.mean;
        c->size_sd = opt.sigma;
        ro_size_lognormal_params(opt.mean, opt.sigma, &c->size_mu, &c->size_sigma);
    }
    c->faults = opt.fault;       /* each run makes its fault stage from it */
    return 0;
}

static void tag_clear(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
    (void)mp;
    (void)arg;
    (void)idx;
    ro_tag_clear(obj);
}

/* The readout's pool (ebf_daemon_pool_at's, on the port's socket), with
 * a private area per mbuf for the tag of the prebuilt bytes it holds
 * (RO_TAG_PRIV_SIZE), every tag cleared. */
static struct rte_mempool *tx_pool(struct ebf_daemon *d, unsigned n, uint16_t room,
                                   uint16_t port)
{
    int socket = rte_eth_dev_socket_id(port);
    struct rte_mempool *mp = rte_pktmbuf_pool_create(
        "ro_pool", n, n >= 1024 ? 256 : 0, RO_TAG_PRIV_SIZE,
        (uint16_t)(room + RTE_PKTMBUF_HEADROOM), socket >= 0 ? socket : (int)rte_socket_id());

    if (!mp)
        ebf_daemon_fail(d, "mempool 'ro_pool' of %u mbufs of %u B: %s (raise EAL -m, in a "
                        "farm file memory_mb)", n, room, rte_strerror(rte_errno));
    rte_mempool_obj_iter(mp, tag_clear, NULL);
    return mp;
}

/* Start --port and every other --sfc-port, then wait for their links. */
static void start_ports(struct ebf_daemon *d, struct ro_conf *c)
{
    ebf_daemon_port_start(d, c->port, c->pool, d->cl.common.port);
    for (uint16_t k = 0; k < c->n_sfc_ports; k++)
        if (c->sfc_port[k] != c->port)
            ebf_daemon_port_start(d, c->sfc_port[k], c->pool, sfc_port_name[k]);
    ebf_daemon_link_wait(d, c->port, d->cl.common.port);
    for (uint16_t k = 0; k < c->n_sfc_ports; k++)
        if (c->sfc_port[k] != c->port)
            ebf_daemon_link_wait(d, c->sfc_port[k], sfc_port_name[k]);
}

int main(int argc, char **argv)
{
    static struct ro_runner runner;
    struct ebf_daemon *d = &ro_daemon;
    struct ro_conf *c = &conf;

    for (int i = 0; i < RO_MAX_SFCS; i++)
        c->sfc_ip[i] = 0x0a000101 + (uint32_t)i;
    ro_fault_conf_init(&opt.fault);
    ebf_daemon_init(d, "readout");
    d->cl.synopsis = "--port NAME --sfc-mac MAC[,MAC...]";
    d->cl.port_help = "DPDK device to send on (vdev name or PCI address)";
    d->cl.own = own;
    d->cl.n_own = sizeof(own) / sizeof(own[0]);
    d->cl.check = check_opts;
    ebf_daemon_start(d, argc, argv);
    ebf_idle_init(&c->idle, d->cl.common.idle);
    c->port = ebf_daemon_port(d, d->cl.common.port);
    ebf_daemon_mac(d, c->port, c->src_mac);
    c->mtu = d->cl.common.mtu;
    uint16_t room = ebf_daemon_room(d, c->port);
    for (uint16_t k = 0; k < c->n_sfc_ports; k++) {
        c->sfc_port[k] = ebf_daemon_port(d, sfc_port_name[k]);
        uint16_t r = ebf_daemon_room(d, c->sfc_port[k]);
        room = r > room ? r : room;
    }
    /* Above the default room, 4095 mbufs: at --mtu 9000 they fit --no-huge's
     * default 64 MB and still cover both rings (1024 each), a burst and
     * the fault stage's 1024 held frames. */
    c->pool = tx_pool(d, room > EBF_ROOM_DEFAULT ? 4095 : 8191, room, c->port);
    start_ports(d, c);
    int rc = ro_runner_init(&runner, c);
    if (rc)
        ebf_daemon_fail(d, "cannot create the data plane: %s", strerror(-rc));
    d->exit_when_finished = d->cl.common.control == NULL && !opt.linger;
    ebf_daemon_serve(d, &ro_ctl_ops, &runner.plug);
    rc = ro_runner_failed(&runner) ? EXIT_FAILURE : EXIT_SUCCESS;
    ro_runner_fini(&runner);
    return ebf_daemon_exit(d, rc);
}
