/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-sfc: its own options, pools and ports around the daemon skeleton. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_log.h>

#include "ebf_daemon.h"
#include "ebf_release.h"
#include "ebf_util.h"
#include "sfc_ctl.h"
#include "sfc_dist.h"
#include "sfc_workers.h"

extern int sfc_logtype;          /* sfc_dp.c's */

/* The shared parameters' defaults come from the table (ebf_param.h). */
static struct sfc_conf conf = {.burst = 32, .verify = SFC_VERIFY_FULL, .verify_every = 64};
static char node_name[SFC_MAX_NODES][128];
static const char *const verify_name[] = {"full", "sampled", "none"};
static char more_rx_name[SFC_MAX_READOUTS][128];     /* --readout-port */
static uint32_t mbufs;          /* --mbufs */
static struct ebf_daemon sfc_daemon;

/* --node PORT,MAC: the next node's port (by name) and MAC. */
static int parse_node(void *arg, const char *val, char *err, size_t len)
{
    struct sfc_conf *c = arg;
    const char *comma = strrchr(val, ',');

    if (c->n_nodes == SFC_MAX_NODES) {
        snprintf(err, len, "more than %d nodes", SFC_MAX_NODES);
        return -EINVAL;
    }
    if (!comma || comma == val || (size_t)(comma - val) >= sizeof(node_name[0])) {
        snprintf(err, len, "\"%s\" is not PORT,MAC", val);
        return -EINVAL;
    }
    if (ebf_parse_mac(comma + 1, c->node[c->n_nodes].mac)) {
        snprintf(err, len, "\"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)", comma + 1);
        return -EINVAL;
    }
    snprintf(node_name[c->n_nodes], sizeof(node_name[0]), "%.*s", (int)(comma - val), val);
    c->n_nodes++;
    return 0;
}

/* --readout-mac MAC[,MAC...]: the readouts fragments may come from (the
 * option may be repeated; the lists add up). */
static int parse_readout_macs(void *arg, const char *val, char *err, size_t len)
{
    struct sfc_conf *c = arg;
    char buf[1024], *save = NULL;
    uint16_t n = c->n_readouts;

    if (strlen(val) >= sizeof(buf))
        return snprintf(err, len, "list too long"), -EINVAL;
    strcpy(buf, val);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == SFC_MAX_READOUTS)
            return snprintf(err, len, "more than %d MAC addresses", SFC_MAX_READOUTS), -EINVAL;
        if (ebf_parse_mac(t, c->readout_mac[n]))
            return snprintf(err, len, "\"%s\" is not a MAC address (aa:bb:cc:dd:ee:ff)", t),
                   -EINVAL;
        if (c->readout_mac[n][0] & 1)
            return snprintf(err, len, "\"%s\" is a multicast MAC address (a readout's is "
                            "unicast)", t), -EINVAL;
        n++;
    }
    if (n == c->n_readouts)
        return snprintf(err, len, "\"%s\" holds no MAC address", val), -EINVAL;
    c->n_readouts = n;
    return 0;
}

/* --verify full|sampled|none: the payload-CRC policy. */
static int parse_verify(void *arg, const char *val, char *err, size_t len)
{
    struct sfc_conf *c = arg;

    for (uint8_t v = 0; v < sizeof(verify_name) / sizeof(verify_name[0]); v++)
        if (strcmp(val, verify_name[v]) == 0) {
            c->verify = v;
            return 0;
        }
    snprintf(err, len, "\"%s\" is not a verify policy (full, sampled, none)", val);
    return -EINVAL;
}

/* --readout-port NAME[,NAME...]: further ports readout frames arrive on
 * (the option may be repeated; the lists add up). */
static int parse_more_rx(void *arg, const char *val, char *err, size_t len)
{
    struct sfc_conf *c = arg;
    char buf[1024], *save = NULL;
    uint16_t n = c->n_more_rx;

    if (strlen(val) >= sizeof(buf))
        return snprintf(err, len, "list too long"), -EINVAL;
    strcpy(buf, val);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == SFC_MAX_READOUTS - 1)
            return snprintf(err, len, "more than %d ports beside --port", SFC_MAX_READOUTS - 1),
                   -EINVAL;
        if (strlen(t) >= sizeof(more_rx_name[0]))
            return snprintf(err, len, "\"%s\" is too long for a port name", t), -EINVAL;
        snprintf(more_rx_name[n++], sizeof(more_rx_name[0]), "%s", t);
    }
    if (n == c->n_more_rx)
        return snprintf(err, len, "\"%s\" holds no port name", val), -EINVAL;
    c->n_more_rx = n;
    return 0;
}

static const struct ebf_arg own[] = {
    {.name = "node", .kind = EBF_ARG_FN, .fn = parse_node, .dst = &conf, .required = 1,
     .meta = "PORT,MAC",
     .help = "a trigger node: the port it is on (a --port NAME) and its MAC; node ids in order"},
    {.name = "readout-mac", .kind = EBF_ARG_FN, .fn = parse_readout_macs, .dst = &conf,
     .meta = "MAC[,MAC...]", .help = "take fragments only from these readouts and send\n"
     "throttle frames only to them (up to 16; default: any)"},
    {.name = "readout-port", .kind = EBF_ARG_FN, .fn = parse_more_rx, .dst = &conf,
     .meta = "NAME[,NAME...]", .help = "further ports readout frames arrive on, beside\n"
     "--port (a memif link per readout; up to 15)"},
    EBF_ARG_PARAM(SOURCES, &conf.n_sources, "N", "sources every event has"),
    EBF_ARG_PARAM(SFC_ID, &conf.sfc_id, "N", "this SFC's id in event frames"),
    EBF_ARG_PARAM(TIMEOUT_MS, &conf.timeout_ms, "T",
                  "an event still building after T ms goes incomplete"),
    EBF_ARG_PARAM(CAPACITY, &conf.capacity, "N",
                  "events held at once: building, ready, unacked"),
    EBF_ARG_PARAM(MBUFS, &mbufs, "N", "receive mbufs"),
    EBF_ARG_PARAM(MAX_EVENT, &conf.max_event, "BYTES",
                  "an event's fragment bytes at most; a larger one\n"
                  "is refused (rx.drop.event_too_big). Checked against\n"
                  "--mbufs at --mtu (unset: 16M, or what they hold)"),
    EBF_ARG_PARAM(MAX_CREDITS, &conf.max_credits, "N", "credits + unacked events per node"),
    EBF_ARG_INT(EBF_ARG_U16, "burst", &conf.burst, 1, 64, "N", "rx burst (32)"),
    EBF_ARG_PARAM(UDP_PORT, &conf.udp_port, "P", "UDP port of fragments"),
    EBF_ARG_PARAM(DRAIN_QUIET_MS, &conf.drain_quiet_ms, "T",
                  "at stop, input quiet this long ends intake"),
    EBF_ARG_PARAM(DRAIN_TIMEOUT_MS, &conf.drain_timeout_ms, "T",
                  "at stop, wait for acks at most T"),
    EBF_ARG_PARAM(NODE_TIMEOUT_MS, &conf.node_timeout_ms, "T",
                  "a node silent for T ms is dead: its events go to\n"
                  "other nodes; 0 never declares one dead"),
    EBF_ARG_CALL("verify", parse_verify, &conf, "MODE",
                 "payload CRCs the SFC checks: full (every frame),\n"
                 "sampled (every Nth frame of each source, --verify-every)\n"
                 "or none; the nodes check every piece either way (full)"),
    EBF_ARG_INT(EBF_ARG_U32, "release-ms", &conf.release_ms, 0, 1000, "T",
                "failover: a release frame (heartbeat and release watermark)\n"
                "to each readout every T ms; 0 (default): none"),
    EBF_ARG_INT(EBF_ARG_U32, "sfc-dead-ms", &conf.sfc_dead_ms, EBF_RELEASE_DEAD_MIN_MS,
                EBF_RELEASE_DEAD_MAX_MS, "T",
                "failover: the readouts' --sfc-dead-ms (100; 30 to 200):\n"
                "a poll loop stopped for T ms less two release periods\n"
                "fences the SFC"),
    EBF_ARG_INT(EBF_ARG_U64, "join-at", &conf.join_at, 0, UINT64_MAX / 2, "J",
                "failover: a restarted SFC takes its share back from event\n"
                "id J (above every readout's next event); 0 (default): none"),
    EBF_ARG_INT(EBF_ARG_U32, "verify-every", &conf.verify_every, 1, 1u << 20, "N",
                "with --verify sampled: check every Nth frame of a source (64)"),
    EBF_ARG_PARAM(WORKERS, &conf.workers, "N",
                  "data planes, an lcore each (EAL must give N): the\n"
                  "readout ports cut into N equal runs, one per worker,\n"
                  "or one shared; node port q served by worker q % N,\n"
                  "or one shared, node i by worker i % N; 0 or 1: one"),
    EBF_ARG_VAL(EBF_ARG_STR, "ready-file", &sfc_daemon.ready_file, "FILE",
                "create FILE once every port is started and control is bound"),
};

/* --workers against the ports by name (before EAL): the readout ports cut
 * into equal runs or one shared, a node port per worker at least or one
 * shared by a node per worker at least (sfc_workers.h). */
static int check_workers(char *err, size_t len)
{
    struct sfc_conf c = conf;

    for (uint16_t i = 0; i < c.n_nodes; i++) {
        uint16_t j = 0;
        while (j < i && strcmp(node_name[j], node_name[i]) != 0)
            j++;
        c.node[i].port = j;      /* the first node on the same port */
    }
    return sfc_workers_check(&c, err, len) ? -EINVAL : 0;
}

/* The ports the SFC would open: --port and each distinct --node port. One
 * process opens at most EBF_PORTS_MAX (DPDK's RTE_MAX_ETHPORTS): more is
 * refused here, before EAL, rather than failing in a driver. */
static int check_opts(char *err, size_t len)
{
    const struct ebf_param_def *d = EBF_PARAM(PORTS);
    const char *rx = sfc_daemon.cl.common.port;
    unsigned ports = 1u + conf.n_more_rx;

    for (uint16_t i = 0; i < conf.n_nodes; i++) {
        uint16_t j = 0;
        while (j < i && strcmp(node_name[j], node_name[i]) != 0)
            j++;
        ports += j == i && strcmp(node_name[i], rx) != 0;
    }
    if (ports <= d->max)
        return check_workers(err, len);
    if (conf.n_more_rx)
        snprintf(err, len, "option '--node': %u ports (--port, %u --readout-port and %u node "
                 "ports), more than the %" PRIu64 " one process can open (RTE_MAX_ETHPORTS)",
                 ports, conf.n_more_rx, ports - 1 - conf.n_more_rx, d->max);
    else
        snprintf(err, len, "option '--node': %u ports (--port and %u node ports), more than "
                 "the %" PRIu64 " one process can open (RTE_MAX_ETHPORTS)", ports, ports - 1,
                 d->max);
    return -EINVAL;
}

/* The readout port and the nodes' ports, by name. */
static void find_ports(struct ebf_daemon *d, struct sfc_conf *c)
{
    c->rx_port = ebf_daemon_port(d, d->cl.common.port);
    for (uint16_t i = 0; i < c->n_more_rx; i++)
        c->more_rx[i] = ebf_daemon_port(d, more_rx_name[i]);
    if (d->cl.common.have_mac)
        memcpy(c->mac, d->cl.common.mac, 6);
    for (uint16_t i = 0; i < c->n_nodes; i++) {
        c->node[i].port = ebf_daemon_port(d, node_name[i]);
        if (c->node[i].port == c->rx_port)
            ebf_daemon_fail(d, "node %u shares the readout port '%s'", i, d->cl.common.port);
    }
}

/* The data room of the pool the node ports receive into: the largest any
 * of them needs at --mtu. */
static uint16_t node_room(const struct ebf_daemon *d, const struct sfc_conf *c)
{
    uint16_t room = ebf_daemon_room(d, UINT16_MAX);

    for (uint16_t i = 0; i < c->n_nodes; i++) {
        uint16_t r = ebf_daemon_room(d, c->node[i].port);
        room = r > room ? r : room;
    }
    return room;
}

/* Start the readout port, then the nodes' (several nodes may share one). */
static void start_ports(struct ebf_daemon *d, struct sfc_conf *c, struct rte_mempool *rx_pool,
                        struct rte_mempool *ack_pool)
{
    const char *rx_name = d->cl.common.port;

    uint16_t txqs = sfc_workers_node_txqs(c);
    char err[320];

    /* Workers on one node port: a tx queue each, refused before the start
     * when the device has too few (sfc_dist.h). */
    if (txqs > 1 && sfc_dist_check_txq(c->node[0].port, txqs, err, sizeof(err)))
        ebf_daemon_fail(d, "%s", err);
    ebf_daemon_port_start(d, c->rx_port, rx_pool, rx_name);
    for (uint16_t i = 0; i < c->n_more_rx; i++)
        ebf_daemon_port_start(d, c->more_rx[i], rx_pool, more_rx_name[i]);
    for (uint16_t i = 0; i < c->n_nodes; i++)
        ebf_daemon_port_start_queues(d, c->node[i].port, ack_pool, node_name[i],
                                     txqs > 1 ? sfc_dist_rxqs(c->node[i].port, txqs) : 1, txqs);
    ebf_daemon_link_wait(d, c->rx_port, rx_name);
    for (uint16_t i = 0; i < c->n_more_rx; i++)
        ebf_daemon_link_wait(d, c->more_rx[i], more_rx_name[i]);
    for (uint16_t i = 0; i < c->n_nodes; i++)
        ebf_daemon_link_wait(d, c->node[i].port, node_name[i]);
}

/* --max-event against what --mbufs hold at --mtu (ebf_event_max_fit):
 * refused when set beyond it; unset, 16 MiB or what they hold (said). */
static void set_max_event(struct ebf_daemon *d, struct sfc_conf *c)
{
    uint32_t fit = ebf_event_max_fit(c->mtu, mbufs);

    if (c->max_event > fit)
        ebf_daemon_fail(d, "--max-event %u: events that large take more frames at MTU %u than "
                        "--mbufs %u leave (at most %u bytes fit)", c->max_event, c->mtu, mbufs,
                        fit);
    if (c->max_event == 0) {
        c->max_event = fit < EBF_EVENT_MAX_DEFAULT ? fit : EBF_EVENT_MAX_DEFAULT;
        if (c->max_event < EBF_EVENT_MAX_DEFAULT)
            rte_log(RTE_LOG_NOTICE, sfc_logtype, "sfc: events of at most %u bytes: what "
                    "--mbufs %u hold at MTU %u\n", c->max_event, mbufs, c->mtu);
    }
}

int main(int argc, char **argv)
{
    static struct sfc_runner runner;
    struct ebf_daemon *d = &sfc_daemon;
    struct sfc_conf *c = &conf;

    ebf_daemon_init(d, "sfc");
    d->cl.synopsis = "--port NAME --node PORT,MAC [--node ...]";
    d->cl.port_help = "DPDK device the readout frames arrive on";
    d->cl.own = own;
    d->cl.n_own = sizeof(own) / sizeof(own[0]);
    d->cl.check = check_opts;
    d->cl.common.link_timeout_ms = 0;       /* the memif server: peers connect to it */
    ebf_daemon_start(d, argc, argv);
    ebf_idle_init(&c->idle, d->cl.common.idle);
    if (c->workers > rte_lcore_count())
        ebf_daemon_fail(d, "--workers %u needs %u lcores, EAL gave %u (-l or --lcores)",
                        c->workers, c->workers, rte_lcore_count());
    find_ports(d, c);
    c->mtu = d->cl.common.mtu;
    set_max_event(d, c);
    /* On the sockets of the ports that use them: received frames and their
     * clones at the readout port's, event headers and credit frames at the
     * (first) node port's. */
    struct rte_mempool *rx_pool = ebf_daemon_pool_at(d, "sfc_rx", mbufs,
                                                     ebf_daemon_room(d, c->rx_port), c->rx_port);
    struct rte_mempool *ack_pool = ebf_daemon_pool_at(d, "sfc_ack", 4095, node_room(d, c),
                                                      c->node[0].port);
    c->hdr_pool = ebf_daemon_pool_at(d, "sfc_hdr", 8191, 128, c->node[0].port);
    c->clone_pool = ebf_daemon_pool_at(d, "sfc_clone", mbufs, 0, c->rx_port);
    c->max_frames = mbufs;
    start_ports(d, c, rx_pool, ack_pool);
    char err[320];
    if (sfc_dp_check_node_ports(c, err, sizeof(err)) != 0)
        ebf_daemon_fail(d, "%s", err);
    int rc = sfc_runner_init(&runner, c, rx_pool);
    if (rc)
        ebf_daemon_fail(d, "cannot create the data plane: %s", strerror(-rc));
    ebf_daemon_serve(d, &sfc_ctl_ops, &runner.plug);
    sfc_runner_fini(&runner);
    return ebf_daemon_exit(d, EXIT_SUCCESS);
}
