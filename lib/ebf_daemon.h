/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_daemon.h - the daemon skeleton: command line, EAL, logs, signals, ports, the run, stats. */
#ifndef EBF_DAEMON_H
#define EBF_DAEMON_H

#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mempool.h>

#include "ebf_args.h"
#include "ebf_ctl.h"
#include "ebf_mtu.h"
#include "ebf_plug.h"

/*
 * What every daemon's main() does, in order:
 *
 *   ebf_daemon_init(&d, "sfc");          defaults of the shared options
 *   d.cl.own = ...; (its own option table, synopsis, --port help)
 *   ebf_daemon_start(&d, argc, argv);    --help/--version, options, logs, EAL, capture,
 *                                        signals
 *   port = ebf_daemon_port(&d, d.cl.common.port);
 *   pool = ebf_daemon_pool(&d, name, n, ebf_daemon_room(&d, port));
 *   ebf_daemon_port_start(&d, port, pool, name);
 *   ebf_daemon_link_wait(&d, port, name);
 *   ebf_plug_init(&runner.plug, ...);    the daemon's run-control plug
 *   ebf_daemon_serve(&d, &ops, &runner.plug);
 *   return ebf_daemon_exit(&d, EXIT_SUCCESS);
 *
 * These are main()'s steps: each one that fails prints why and exits (2 for
 * bad options, 1 otherwise), removing the DPDK runtime directory. Options
 * are parsed before EAL starts, so --help, --version and bad options
 * create nothing under /var/run/dpdk. From the start on, every log line
 * (EAL, drivers, the control thread) carries a UTC timestamp and the
 * instance name (ebf_log.h), on stderr.
 */

struct ebf_daemon {
    struct ebf_cmdline cl;       /* the daemon's part of the command line */
    const char *ready_file;      /* created once control is bound; NULL: none */
    int exit_when_finished;      /* standalone: stop and exit once the run is finished */
    const char *instance;        /* --name, else the component (set by start) */
    uint8_t started[RTE_MAX_ETHPORTS];  /* ports to close at exit */
};

/* d with the shared options' defaults (ebf_common_defaults). */
void ebf_daemon_init(struct ebf_daemon *d, const char *component);

/*
 * argv: "[EAL options] -- [options]". --help or --version anywhere: print
 * to stdout and exit 0. Else parse the options after "--" (exit 2 with the
 * refusal on stderr), open the timestamped log, start EAL on the options
 * before "--", initialise DPDK's packet capture framework (rte_pdump, which
 * dpdk-dumpcap attaches to; a warning when it cannot) and catch
 * SIGINT/SIGTERM (ebf_ctl_on_signal: a staged stop). ebf_daemon_exit
 * uninitialises it.
 */
void ebf_daemon_start(struct ebf_daemon *d, int argc, char **argv);

/* Log "why" as an error, clean EAL up and exit 1. */
__attribute__((noreturn, format(printf, 2, 3)))
void ebf_daemon_fail(struct ebf_daemon *d, const char *fmt, ...);

/* The port called name (a vdev or PCI name); fails when there is none, or
 * when it cannot carry --mtu (before any pool is made for it). */
uint16_t ebf_daemon_port(struct ebf_daemon *d, const char *name);

/* Our MAC on port: --mac if given, else the port's. */
void ebf_daemon_mac(const struct ebf_daemon *d, uint16_t port, uint8_t mac[6]);

/* A packet pool on this lcore's socket (ebf_pool_create); fails if none. */
struct rte_mempool *ebf_daemon_pool(struct ebf_daemon *d, const char *name, unsigned n,
                                    uint16_t data_room);

/* The same on port's NUMA socket (the device's DMA and its queues' memory
 * there); this lcore's socket when the port has none (a virtual device). */
struct rte_mempool *ebf_daemon_pool_at(struct ebf_daemon *d, const char *name, unsigned n,
                                       uint16_t data_room, uint16_t port);

/* The data room of a pool receiving from port at --mtu: every frame in one
 * mbuf (ebf_port_rx_room; UINT16_MAX: a pool for no port in particular). */
uint16_t ebf_daemon_room(const struct ebf_daemon *d, uint16_t port);

/* Start port (once, however often asked: ports may be shared) at --mtu,
 * receiving into pool; it is closed by ebf_daemon_exit. An MTU that the
 * port or the pool cannot carry fails with both named:
 *   --mtu 9000: port 'net_memif0' carries at most 2030 (memif bsize 2048; ...)
 * (ebf_port_mtu_check). */
void ebf_daemon_port_start(struct ebf_daemon *d, uint16_t port, struct rte_mempool *pool,
                           const char *name);
/* The same with n_rxq RX and n_txq TX queues (ebf_port_start_queues). */
void ebf_daemon_port_start_queues(struct ebf_daemon *d, uint16_t port, struct rte_mempool *pool,
                                  const char *name, uint16_t n_rxq, uint16_t n_txq);

/* Wait at most --link-timeout for the link of port; 0: do not wait. */
void ebf_daemon_link_wait(struct ebf_daemon *d, uint16_t port, const char *name);

/*
 * Run control over plug until shutdown: bind --control and --metrics (run 1
 * configured and started at once without --control), create the ready
 * file, serve on this lcore (idling as --idle says, its busy and idle
 * cycles counted in plug->cycles), then write --stats.
 */
void ebf_daemon_serve(struct ebf_daemon *d, const struct ebf_ctl_ops *ops, struct ebf_plug *plug);

/* Close the started ports and clean EAL up; returns code. */
int ebf_daemon_exit(struct ebf_daemon *d, int code);

#endif /* EBF_DAEMON_H */
