/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_daemon.c - the steps of every daemon's main(): options, logs, EAL, ports, control, stats. */
#include "ebf_daemon.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "ebf_log.h"
#include "ebf_mtu.h"
#include "ebf_param.h"
#include "ebf_port.h"
#include "ebf_unmap.h"
#include "ebf_util.h"

RTE_LOG_REGISTER_DEFAULT(ebf_daemon_logtype, INFO);
#define DAEMON_LOG(level, ...) rte_log(RTE_LOG_##level, ebf_daemon_logtype, __VA_ARGS__)

#ifndef EBF_VERSION
#define EBF_VERSION "unknown"
#endif

void ebf_daemon_init(struct ebf_daemon *d, const char *component)
{
    memset(d, 0, sizeof(*d));
    d->cl.component = component;
    d->instance = component;
    ebf_common_defaults(&d->cl.common);
}

/* One process opens at most EBF_PORTS_MAX ports, the limit the farm file
 * and the SFC's options check: DPDK must allow as many. */
_Static_assert(EBF_PORTS_MAX <= RTE_MAX_ETHPORTS, "EBF_PORTS_MAX above RTE_MAX_ETHPORTS");

/* The log lines of messages at ERR or worse (EAL's too) say "error: ", so
 * a start-up failure's cause can be found in the log (the farm tool quotes
 * the first such line). rte_vlog sets the level before it writes. */
static const char *level_tag(void)
{
    int level = rte_log_cur_msg_loglevel();

    return level >= (int)RTE_LOG_EMERG && level <= (int)RTE_LOG_ERR ? "error: " : NULL;
}

/* --help or --version: print to stdout, exit 0. */
static void answer_early(const struct ebf_daemon *d, int what)
{
    if (what == EBF_ARGS_HELP)
        ebf_args_usage(&d->cl, stdout);
    else
        ebf_args_version(&d->cl, stdout);
    exit(fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
}

/* Parse the options after "--" (argv[dd]); exits on --help, --version and
 * refusals. */
static void parse_own(struct ebf_daemon *d, int argc, char **argv, int dd)
{
    int n = dd < argc ? argc - dd - 1 : 0;
    char **own = calloc((size_t)n + 2, sizeof(*own));
    char err[512];

    if (!own) {
        fprintf(stderr, "%s: out of memory\n", d->cl.component);
        exit(EXIT_FAILURE);
    }
    own[0] = argv[0];
    for (int i = 0; i < n; i++)
        own[i + 1] = argv[dd + 1 + i];
    int rc = ebf_args_parse(&d->cl, n + 1, own, err, sizeof(err));
    free(own);                   /* the values point into argv, not own */
    if (rc > 0)
        answer_early(d, rc);
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", d->cl.component, err);
        exit(2);
    }
}

void ebf_daemon_start(struct ebf_daemon *d, int argc, char **argv)
{
    int dd = 1, early = ebf_args_early(argc, argv);

    if (early)
        answer_early(d, early);
    while (dd < argc && strcmp(argv[dd], "--") != 0)
        dd++;
    parse_own(d, argc, argv, dd);
    if (d->cl.common.name)
        d->instance = d->cl.common.name;
    FILE *log = ebf_log_open_tagged(d->instance, STDERR_FILENO, level_tag);
    if (log)
        rte_openlog_stream(log);
    uint64_t nofile0 = 0, nofile = 0;
    if (ebf_nofile_raise(&nofile0, &nofile) != 0)
        DAEMON_LOG(WARNING, "cannot raise the open-files limit (%" PRIu64 "): %s\n", nofile0,
                   strerror(errno));
    else
        DAEMON_LOG(INFO, "open files: at most %" PRIu64 " (soft limit raised from %" PRIu64
                   ")\n", nofile, nofile0);
    int n = rte_eal_init(dd, argv);
    if (n < 0)
        rte_exit(EXIT_FAILURE, "%s: EAL initialisation failed: %s\n", d->cl.component,
                 rte_strerror(rte_errno));
    if (n + 1 < dd)
        ebf_daemon_fail(d, "unexpected argument '%s' among the EAL options (options of "
                        "ebfarm-%s go after \"--\")", argv[n + 1], d->cl.component);
    /* dpdk-dumpcap attaches through this (docs/capture.md); without it the
     * daemon still runs, uncapturable. */
    if (rte_pdump_init() != 0)
        DAEMON_LOG(WARNING, "packet capture unavailable: rte_pdump_init: %s\n",
                   rte_strerror(rte_errno));
    /* A dead memif peer's rings are unmapped after the poll loops' grace
     * period: this daemon's munmap is lib/ebf_unmap.c's. */
    if (!ebf_unmap_guarded())
        DAEMON_LOG(WARNING, "a dead memif peer may crash this process\n");
    signal(SIGINT, ebf_ctl_on_signal);
    signal(SIGTERM, ebf_ctl_on_signal);
    DAEMON_LOG(INFO, "ebfarm-%s %s started, pid %d\n", d->cl.component, EBF_VERSION,
               (int)getpid());
}

void ebf_daemon_fail(struct ebf_daemon *d, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    DAEMON_LOG(ERR, "%s\n", msg);
    ebf_daemon_exit(d, EXIT_FAILURE);
    exit(EXIT_FAILURE);
}

uint16_t ebf_daemon_port(struct ebf_daemon *d, const char *name)
{
    uint16_t port, mtu = d->cl.common.mtu;
    char err[256];

    if (ebf_port_find(name, &port))
        ebf_daemon_fail(d, "no port '%s'", name);
    if (ebf_port_mtu_check(port, name, mtu, NULL, err, sizeof(err)))
        ebf_daemon_fail(d, "--mtu %u: %s", mtu, err);
    return port;
}

void ebf_daemon_mac(const struct ebf_daemon *d, uint16_t port, uint8_t mac[6])
{
    struct rte_ether_addr ea;

    if (d->cl.common.have_mac) {
        memcpy(mac, d->cl.common.mac, 6);
        return;
    }
    rte_eth_macaddr_get(port, &ea);
    memcpy(mac, ea.addr_bytes, 6);
}

static struct rte_mempool *pool_on(struct ebf_daemon *d, const char *name, unsigned n,
                                   uint16_t data_room, int socket)
{
    struct rte_mempool *mp = ebf_pool_create(name, n, data_room, socket);

    if (!mp)
        ebf_daemon_fail(d, "mempool '%s' of %u mbufs of %u B: %s (raise EAL -m, in a farm "
                        "file memory_mb)", name, n, data_room, rte_strerror(rte_errno));
    return mp;
}

struct rte_mempool *ebf_daemon_pool(struct ebf_daemon *d, const char *name, unsigned n,
                                    uint16_t data_room)
{
    return pool_on(d, name, n, data_room, (int)rte_socket_id());
}

struct rte_mempool *ebf_daemon_pool_at(struct ebf_daemon *d, const char *name, unsigned n,
                                       uint16_t data_room, uint16_t port)
{
    int socket = rte_eth_dev_socket_id(port);

    return pool_on(d, name, n, data_room, socket >= 0 ? socket : (int)rte_socket_id());
}

uint16_t ebf_daemon_room(const struct ebf_daemon *d, uint16_t port)
{
    return ebf_port_rx_room(port, d->cl.common.mtu);
}

void ebf_daemon_port_start(struct ebf_daemon *d, uint16_t port, struct rte_mempool *pool,
                           const char *name)
{
    ebf_daemon_port_start_queues(d, port, pool, name, 1, 1);
}

void ebf_daemon_port_start_queues(struct ebf_daemon *d, uint16_t port, struct rte_mempool *pool,
                                  const char *name, uint16_t n_rxq, uint16_t n_txq)
{
    uint16_t mtu = d->cl.common.mtu;
    char err[256];

    if (d->started[port])
        return;
    if (ebf_port_mtu_check(port, name, mtu, pool, err, sizeof(err)))
        ebf_daemon_fail(d, "--mtu %u: %s", mtu, err);
    d->started[port] = 1;        /* closed at exit even when the start failed */
    if (ebf_port_start_queues(port, pool, mtu, 1024, 1024, n_rxq, n_txq))
        ebf_daemon_fail(d, "cannot start port '%s'", name);
}

void ebf_daemon_link_wait(struct ebf_daemon *d, uint16_t port, const char *name)
{
    static volatile sig_atomic_t never;
    uint64_t ms = d->cl.common.link_timeout_ms;

    if (ms && ebf_port_wait_up(port, &never, (unsigned)ms) == -ETIMEDOUT)
        ebf_daemon_fail(d, "link of '%s' not up after %lu ms (--link-timeout)", name,
                        (unsigned long)ms);
}

static void ready(struct ebf_daemon *d)
{
    FILE *f = fopen(d->ready_file, "w");

    if (!f || fclose(f) != 0)
        ebf_daemon_fail(d, "cannot create '%s': %s", d->ready_file, strerror(errno));
}

void ebf_daemon_serve(struct ebf_daemon *d, const struct ebf_ctl_ops *ops, struct ebf_plug *plug)
{
    const struct ebf_common_opts *co = &d->cl.common;
    struct ebf_ctl_conf cc = {
        .instance = d->instance,
        .control = co->control,
        .metrics = co->metrics,
        .curve_keys = co->curve_keys,
        .insecure = co->insecure,
        .period_ms = co->period_ms,
        .conf = plug->conf,
        .autostart = co->control == NULL,
        .exit_when_finished = d->exit_when_finished,
    };
    struct ebf_idle idle;

    ebf_idle_init(&idle, co->idle);
    plug->ctl = ebf_ctl_create(&cc, ops);
    if (!plug->ctl)
        ebf_daemon_fail(d, "cannot start run control: %s", strerror(errno));
    if (d->ready_file)
        ready(d);
    ebf_ctl_serve(plug->ctl, plug, &idle, &plug->cycles);
    ebf_ctl_destroy(plug->ctl);
    plug->ctl = NULL;
    if (co->stats && ebf_ctl_write_stats(ops, plug, plug->conf, co->stats) != 0)
        ebf_daemon_fail(d, "cannot write '%s': %s", co->stats, strerror(errno));
}

int ebf_daemon_exit(struct ebf_daemon *d, int code)
{
    for (uint16_t p = 0; p < RTE_MAX_ETHPORTS; p++)
        if (d->started[p] && rte_eth_dev_is_valid_port(p))
            ebf_port_close(p);
    memset(d->started, 0, sizeof(d->started));
    rte_pdump_uninit();
    ebf_eal_cleanup();
    return code;
}
