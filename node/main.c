/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-node: its own options and its port around the daemon skeleton. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebf_daemon.h"
#include "node_ctl.h"

static struct node_conf conf = {
    .credits = 32, .accept = 0.1, .ack_batch = 16, .heartbeat_ms = 100, .burst = 32,
    .drain_quiet_ms = 200,
};

static const struct ebf_arg own[] = {
    {.name = "sfc-mac", .kind = EBF_ARG_MAC, .dst = conf.sfc_mac, .required = 1, .meta = "MAC",
     .help = "the SFC's MAC on that link"},
    EBF_ARG_INT(EBF_ARG_U16, "node-id", &conf.node_id, 0, 1023, "N",
                "this node's id at its SFC (0)"),
    EBF_ARG_PARAM(CREDITS, &conf.credits, "N", "event slots granted to the SFC (32)"),
    EBF_ARG_PARAM(TRIGGER_US, &conf.trigger_us, "T", "busy time per event, microseconds (0)"),
    EBF_ARG_PARAM(ACCEPT, &conf.accept, "F", "fraction of events accepted, 0..1 (0.1)"),
    EBF_ARG_PARAM(ACCEPT_SEED, &conf.accept_seed, "N", "seed of the accept decision (0)"),
    EBF_ARG_INT(EBF_ARG_U16, "ack-batch", &conf.ack_batch, 1, EBF_MAX_ACKS, "N",
                "acks per credit frame, 1..64 (16)"),
    EBF_ARG_NUM("heartbeat-ms", &conf.heartbeat_ms, 0, 3.6e6, "T",
                "empty credit frame after T ms of silence (100)"),
    EBF_ARG_INT(EBF_ARG_U16, "burst", &conf.burst, 1, 64, "N", "rx burst (32)"),
    EBF_ARG_PARAM(DRAIN_QUIET_MS, &conf.drain_quiet_ms, "T",
                  "at stop, input quiet this long ends the run (200)"),
};

static struct ebf_daemon node_daemon;

/* The checks across options: the acks of a credit frame within the MTU. */
static int check_opts(char *err, size_t len)
{
    uint16_t mtu = node_daemon.cl.common.mtu, fit = node_max_acks(mtu);

    if (conf.ack_batch <= fit)
        return 0;
    snprintf(err, len, "--ack-batch %u: a credit frame of %u acks (%zu B) passes --mtu %u "
             "(at most %u acks)", conf.ack_batch, conf.ack_batch,
             ebf_credit_len(conf.ack_batch), mtu, fit);
    return -EINVAL;
}

/* A new epoch for every process: the wall clock in milliseconds, so a node
 * restarted within the same second still rejoins as a new incarnation (the
 * SFC compares epochs as wrapping 32-bit numbers). */
static uint32_t process_epoch(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

int main(int argc, char **argv)
{
    static struct node_runner runner;
    struct ebf_daemon *d = &node_daemon;
    struct node_conf *c = &conf;

    ebf_daemon_init(d, "node");
    d->cl.synopsis = "--port NAME --sfc-mac MAC";
    d->cl.port_help = "DPDK device linked to the SFC";
    d->cl.own = own;
    d->cl.n_own = sizeof(own) / sizeof(own[0]);
    d->cl.check = check_opts;
    ebf_daemon_start(d, argc, argv);
    ebf_idle_init(&c->idle, d->cl.common.idle);
    c->port = ebf_daemon_port(d, d->cl.common.port);
    ebf_daemon_mac(d, c->port, c->mac);
    c->epoch = process_epoch();
    c->mtu = d->cl.common.mtu;
    /* Above the default room, 4095 mbufs: at --mtu 9000 they fit --no-huge's
     * default 64 MB and still cover both rings (1024 each). */
    uint16_t room = ebf_daemon_room(d, c->port);
    c->pool = ebf_daemon_pool(d, "node_pool", room > EBF_ROOM_DEFAULT ? 4095 : 8191, room);
    ebf_daemon_port_start(d, c->port, c->pool, d->cl.common.port);
    ebf_daemon_link_wait(d, c->port, d->cl.common.port);
    int rc = node_runner_init(&runner, c);
    if (rc)
        ebf_daemon_fail(d, "cannot create the data plane: %s", strerror(-rc));
    ebf_daemon_serve(d, &node_ctl_ops, &runner.plug);
    node_runner_fini(&runner);
    return ebf_daemon_exit(d, EXIT_SUCCESS);
}
