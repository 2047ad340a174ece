/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c - ebfarm-loopback: options, EAL and ports, then the RX role or the TX side's modes and outputs. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "ebf_port.h"
#include "lb_eal.h"
#include "lb_modes.h"
#include "lb_opts.h"
#include "lb_run.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* The pools and the ports the role uses. */
struct lb_ports {
    struct rte_mempool *txp, *rxp;
    uint16_t tx, rx;
    unsigned tx_max, rx_max;     /* largest frame each takes: MTU + 18 */
};

/* Pools sized for the largest frame asked for, then the RX and TX ports the
 * role uses, each with its link up. Ends the process when one fails. */
static void open_ports(const struct lb_opts *o, struct lb_ports *p)
{
    unsigned largest = 0;
    for (unsigned i = 0; i < o->n_sizes; i++)
        largest = o->sizes[i] > largest ? o->sizes[i] : largest;
    uint16_t room = o->n_sizes == 0 || largest > 2000 ? 9216 : 2048;
    memset(p, 0, sizeof(*p));
    unsigned n = 4096 * (o->queues > 1 ? o->queues : 1) - 1;    /* 1024 RX descriptors a queue */
    p->txp = ebf_pool_create("lb_tx", n, room, (int)rte_socket_id());
    p->rxp = ebf_pool_create("lb_rx", n, room, (int)rte_socket_id());
    if (!p->txp || !p->rxp)
        ebf_eal_exit(EXIT_FAILURE, "loopback: mempools: %s (try --mem)\n", rte_strerror(rte_errno));
    for (int tx = 0; tx < 2; tx++) {
        if (o->role == (tx ? LB_ROLE_RX : LB_ROLE_TX))
            continue;
        const char *spec = tx ? o->tx : o->rx;
        int rc = lb_port_open(o, spec, tx ? o->tx_netns : o->rx_netns, p->rxp, &stop_requested,
                              tx ? &p->tx : &p->rx, tx ? &p->tx_max : &p->rx_max);
        if (rc == -EINTR)
            ebf_eal_exit(EXIT_FAILURE, "loopback: stopped while waiting for the link of %s port "
                                       "'%s'\n", tx ? "TX" : "RX", spec);
        if (rc)
            ebf_eal_exit(EXIT_FAILURE, "loopback: cannot start %s port '%s' (link up within %u "
                                       "ms)\n", tx ? "TX" : "RX", spec, o->link_timeout_ms);
    }
}

/* A receiver for port, not yet launched; NULL without memory. */
static struct lb_rx *rx_new(const struct lb_opts *o, uint16_t port)
{
    struct lb_rx *rx = rte_zmalloc("lb_rx", sizeof(*rx), RTE_CACHE_LINE_SIZE);

    if (!rx)
        return NULL;
    lb_rx_init(rx);
    rx->port = port;
    rx->streams = (uint16_t)o->streams;
    rx->check_crc = o->check_crc;
    rx->idle = o->idle;
    return rx;
}

/* --- The RX role ------------------------------------------------------------- */

/* Receive on a worker lcore and serve one TX process over the control
 * endpoint until it says quit. */
static int rx_role(const struct lb_opts *o, uint16_t rx_port)
{
    struct lb_rx *rx = rx_new(o, rx_port);
    unsigned lcore = rte_get_next_lcore(-1, 1, 0);
    char driver[32];

    if (!rx || lcore >= RTE_MAX_LCORE)
        ebf_eal_exit(EXIT_FAILURE, "loopback: no memory or no worker lcore for the receiver\n");
    lb_port_driver(rx_port, driver, sizeof(driver));
    rte_eal_remote_launch(lb_rx_loop, rx, lcore);
    fprintf(stderr, "loopback: receiver on %s waiting for the sender on %s\n", o->rx, o->control);
    int fd = lb_ctl_accept(o->control, 600000);
    int rc = fd < 0 ? fd : lb_run_serve(rx, fd, driver);     /* stops the lcore */
    if (fd < 0)
        lb_rx_command(rx, LB_RX_QUIT, 0, NULL);
    rte_eal_wait_lcore(lcore);
    rte_free(rx);
    if (rc)
        fprintf(stderr, "loopback: control connection on %s: %s\n", o->control, strerror(-rc));
    return rc;
}

/* --- The TX side -------------------------------------------------------------- */

static void fill_meta(const struct lb_opts *o, struct lb_meta *m, uint16_t tx_port,
                      const char *rx_driver)
{
    struct rte_eth_link link;
    memset(m, 0, sizeof(*m));
    lb_meta_host(m);
    snprintf(m->dpdk_version, sizeof(m->dpdk_version), "%s", rte_version());
    m->tsc_hz = (double)rte_get_tsc_hz();
    lb_port_driver(tx_port, m->tx_driver, sizeof(m->tx_driver));
    snprintf(m->rx_driver, sizeof(m->rx_driver), "%s", rx_driver);
    if (rte_eth_link_get_nowait(tx_port, &link) == 0 && link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
        m->link_mbps = link.link_speed;
    m->trial_s = o->trial_s;
    m->tolerance = o->tolerance;
    m->probe_margin = o->probe_margin;
    m->loss_ratio = o->loss_ratio;
    m->resolution_pct = o->resolution_pct;
    m->pacing = o->poisson ? "poisson" : "constant";
    m->idle = o->idle == EBF_IDLE_SPIN ? "spin" : "backoff";
    m->tx_port = o->tx;
    m->rx_port = o->rx ? o->rx : o->control;
    m->mode = o->mode;
    m->tsc_read_ns = (double)lb_tsc_read_cycles() * 1e9 / m->tsc_hz;
    m->compare_kernel = o->compare_kernel;
    m->search = o->mlr ? "mlr" : "binary";
    m->repeat = o->repeat;
    m->burst = o->burst;
    m->tx_hold_us = o->hold_us;
    m->n_goals = o->mlr ? o->n_goals : 0;
    memcpy(m->goal, o->goal, sizeof(m->goal));
}

static int write_outputs(const struct lb_opts *o, const struct lb_report *r)
{
    char hint[256];

    lb_print_trials(o->json ? stderr : stdout, r);
    lb_print_table(o->json ? stderr : stdout, r);
    for (unsigned i = 0; i < r->n_sizes; i++)
        for (unsigned k = 0; k < 2; k++)
            if (lb_rate_hint(r, r->size[i].frame_size, k ? "kernel" : "dpdk", hint, sizeof(hint)))
                fputs(hint, stderr);
    if (o->json)
        lb_write_json(stdout, r);
    const char *paths[2] = {o->csv, o->plot};
    for (int i = 0; i < 2; i++) {
        if (!paths[i])
            continue;
        FILE *f = fopen(paths[i], "w");
        if (!f) {
            fprintf(stderr, "loopback: cannot write '%s': %s\n", paths[i], strerror(errno));
            return -errno;
        }
        if (i == 0)
            lb_write_csv(f, r);
        else
            lb_write_svg(f, r);
        if (fclose(f) != 0)
            return -errno;
    }
    return 0;
}

/* Connect to the RX process; returns the stream, with its driver and MAC. */
static FILE *connect_rx(const struct lb_opts *o, char *driver, size_t len, uint8_t mac[6])
{
    int fd = lb_ctl_connect(o->control, o->link_timeout_ms);
    if (fd < 0) {
        fprintf(stderr, "loopback: cannot reach the receiver at %s: %s (start it first with "
                        "--role rx)\n", o->control, strerror(-fd));
        return NULL;
    }
    FILE *f = fdopen(fd, "r+");
    char line[256], drv[64] = "unknown", m[32] = "ff:ff:ff:ff:ff:ff";
    unsigned long long hz;
    fprintf(f, "hello\n");
    fflush(f);
    if (!fgets(line, sizeof(line), f) || sscanf(line, "hello %63s %llu %31s", drv, &hz, m) < 2) {
        fprintf(stderr, "loopback: the receiver at %s does not answer\n", o->control);
        fclose(f);
        return NULL;
    }
    snprintf(driver, len, "%s", drv);
    struct rte_ether_addr ea;
    if (rte_ether_unformat_addr(m, &ea) == 0)
        memcpy(mac, ea.addr_bytes, 6);
    return f;
}

/* The sender's runner over the TX port, trials recorded in r. */
static void runner_init(const struct lb_opts *o, const struct lb_ports *p, struct lb_report *r,
                        struct lb_runner *run)
{
    struct rte_ether_addr ea;

    *run = (struct lb_runner){
        .tx_port = p->tx, .rx_port = p->rx, .tx_pool = p->txp,
        .burst = (uint16_t)o->burst, .hold_us = o->hold_us, .streams = (uint16_t)o->streams,
        .trial_s = o->trial_s, .retries = o->retries,
        .tolerance = o->tolerance, .drain_s = o->drain_ms / 1e3, .poisson = o->poisson,
        .seed = o->seed, .idle = o->idle, .live = o->quiet ? NULL : stderr,
        .stop = &stop_requested, .mode = o->mode, .report = r, .next_trial_id = 1,
        .queues = o->queues,
    };
    rte_eth_macaddr_get(p->tx, &ea);
    memcpy(run->src_mac, ea.addr_bytes, 6);
    unsigned l = rte_get_next_lcore(-1, 1, 0);
    for (unsigned q = 0; q < LB_MAX_QUEUES; q++) {
        run->tx_lcore[q] = l;
        if (q + 1 < n_queues(o))
            l = l < RTE_MAX_LCORE ? rte_get_next_lcore(l, 1, 0) : l;
    }
}

/* Both roles in this process: a receiver per RX queue q on rx_lcore[q],
 * whose port's MAC is the destination and whose MTU may lower *max_frame. */
static void local_rx_start(const struct lb_opts *o, const struct lb_ports *p,
                           const unsigned *rx_lcore, struct lb_runner *run, char *rx_driver,
                           size_t len, unsigned *max_frame)
{
    struct rte_ether_addr ea;

    for (unsigned q = 0; q < n_queues(o); q++) {
        if (rx_lcore[q] >= RTE_MAX_LCORE)
            ebf_eal_exit(EXIT_FAILURE, "loopback: need %u lcores (main, %u TX, %u RX)\n",
                         1 + 2 * n_queues(o), n_queues(o), n_queues(o));
        run->rxq[q] = rx_new(o, p->rx);
        if (!run->rxq[q])
            ebf_eal_exit(EXIT_FAILURE, "loopback: no memory for the receiver\n");
        run->rxq[q]->queue = (uint16_t)q;
    }
    run->rx = run->rxq[0];
    rte_eth_macaddr_get(p->rx, &ea);
    memcpy(run->dst_mac, ea.addr_bytes, 6);
    lb_port_driver(p->rx, rx_driver, len);
    *max_frame = p->rx_max < *max_frame ? p->rx_max : *max_frame;
    run->latency_valid = 1;
    for (unsigned q = 0; q < n_queues(o); q++)
        rte_eal_remote_launch(lb_rx_loop, run->rxq[q], rx_lcore[q]);
}

/* The receiver (local or remote) ready and the report's metadata filled;
 * returns the largest frame both ports take. Ends the process on failure,
 * or when percentages of a link speed the port does not report are asked. */
static unsigned tx_setup(const struct lb_opts *o, const struct lb_ports *p,
                         const unsigned *rx_lcore, struct lb_runner *run, struct lb_report *r)
{
    char rx_driver[32];
    unsigned max_frame = p->tx_max;

    if (o->role == LB_ROLE_BOTH) {
        local_rx_start(o, p, rx_lcore, run, rx_driver, sizeof(rx_driver), &max_frame);
    } else {
        run->ctl = connect_rx(o, rx_driver, sizeof(rx_driver), run->dst_mac);
        if (!run->ctl)
            ebf_eal_exit(EXIT_FAILURE, "loopback: no receiver\n");
        run->latency_valid = lb_ctl_is_local(o->control);
    }
    int self = lb_netns_enter(o->tx_netns);
    fill_meta(o, &r->meta, p->tx, rx_driver);
    r->meta.link_mtu = p->tx_max - 18;
    lb_netns_leave(self);
    if (r->meta.link_mbps == 0 && (!o->have_rate || o->rate.unit == LB_UNIT_PCT))
        ebf_eal_exit(2, "loopback: port '%s' reports no link speed: give --rate in fps or "
                        "mbps\n", o->tx);
    return max_frame;
}

/* Stop the receiver (local: its lcore and port; remote: say quit) and close
 * the TX port. */
static void tx_teardown(const struct lb_opts *o, const struct lb_ports *p,
                        const unsigned *rx_lcore, struct lb_runner *run)
{
    if (run->rx) {
        for (unsigned q = 0; q < n_queues(o); q++) {
            lb_rx_command(run->rxq[q], LB_RX_QUIT, 0, NULL);
            rte_eal_wait_lcore(rx_lcore[q]);
        }
        lb_port_close(p->rx, o->rx_netns);
    }
    if (run->ctl) {
        /* Wait (at most 5 s) for "bye": the receiver has stopped polling
         * before this side's port goes away. */
        struct timeval tv = {.tv_sec = 5};
        char line[64];
        setsockopt(fileno(run->ctl), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        fprintf(run->ctl, "quit\n");
        fflush(run->ctl);
        if (!fgets(line, sizeof(line), run->ctl) || strcmp(line, "bye\n"))
            fprintf(stderr, "loopback: the receiver did not say bye to quit; closing anyway\n");
        fclose(run->ctl);
    }
    lb_port_close(p->tx, o->tx_netns);
}

/* The TX side: every size through the mode on DPDK, then the kernel
 * reference, then the outputs. 0 or a negative errno. */
static int tx_role(const struct lb_opts *o, const struct lb_ports *p)
{
    struct lb_report *r = calloc(1, sizeof(*r));
    struct lb_runner run;

    runner_init(o, p, r, &run);
    unsigned rx_lcore[LB_MAX_QUEUES], l = run.tx_lcore[n_queues(o) - 1];
    for (unsigned q = 0; q < n_queues(o); q++) {
        l = l < RTE_MAX_LCORE ? rte_get_next_lcore(l, 1, 0) : l;
        rx_lcore[q] = l;
    }
    if (!r || run.tx_lcore[n_queues(o) - 1] >= RTE_MAX_LCORE)
        ebf_eal_exit(EXIT_FAILURE, "loopback: no memory or no worker lcore for the sender\n");
    unsigned max_frame = tx_setup(o, p, rx_lcore, &run, r);
    int rc = o->trials_stdin ? lb_modes_serve(o, &run, r) : lb_modes_dpdk(o, &run, r, max_frame);
    tx_teardown(o, p, rx_lcore, &run);     /* the kernel reference needs the cable to itself */
    if (rc == 0 && o->compare_kernel && !stop_requested)
        rc = lb_modes_kernel(o, r, &stop_requested);
    r->meta.interrupted = stop_requested != 0;
    if (r->meta.interrupted)
        rc = -EINTR;
    else if (rc)
        fprintf(stderr, "loopback: run failed: %s\n", strerror(-rc));
    if (write_outputs(o, r))
        rc = rc ? rc : -EIO;
    lb_report_free(r);
    free(r);
    for (unsigned q = 0; q < n_queues(o); q++)
        rte_free(run.rxq[q]);
    return rc;
}

int main(int argc, char **argv)
{
    struct lb_opts o;
    struct lb_ports p;
    char *eal[LB_EAL_ARGS], store[4096];

    lb_opts_default(&o);
    int rc = lb_opts_parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    int n = lb_eal_argv(&o, argv[0], eal, store, sizeof(store));
    if (rte_eal_init(n, eal) < 0)
        rte_exit(EXIT_FAILURE, "loopback: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    /* A peer that closes the control connection first (a sender that dies,
     * or gives up waiting for "bye") is an EPIPE from write, not a signal
     * that kills the process before EAL cleans up. */
    signal(SIGPIPE, SIG_IGN);
    open_ports(&o, &p);
    if (o.role == LB_ROLE_RX) {
        rc = rx_role(&o, p.rx);
        lb_port_close(p.rx, o.rx_netns);
    } else {
        rc = tx_role(&o, &p);
    }
    ebf_eal_cleanup();
    if (rc == -EINTR && stop_requested) {
        fprintf(stderr, "loopback: interrupted: the report covers the trials run before the "
                        "signal\n");
        return 130;             /* 128 + SIGINT, as the ebfarm commands exit */
    }
    return rc ? EXIT_FAILURE : EXIT_SUCCESS;
}
