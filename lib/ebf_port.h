/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_port.h - DPDK port and mempool set-up shared by the daemons. */
#ifndef EBF_PORT_H
#define EBF_PORT_H

#include <signal.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "ebf_port_stats.h"

/*
 * Called from main() before the data plane starts, never on the fast path.
 * Errors are -errno with a message already logged that names the port.
 */

/* Port id of the device called name (a vdev name such as "net_memif0", or a
 * PCI address such as "0000:3b:00.0"). Returns 0 or -ENODEV. */
int ebf_port_find(const char *name, uint16_t *port);

/* Configure one RX and one TX queue at mtu (0: the driver's default; memif
 * and af_packet ports keep theirs, see ebf_mtu.h), enable
 * multi-segment TX when the driver can, and start the port. A memif client
 * that cannot reach its server yet is left for ebf_port_wait_up() to start. */
int ebf_port_start(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu, uint16_t nb_rxd,
                   uint16_t nb_txd);

/* The same with n_rxq RX and n_txq TX queues (lcores that transmit on one
 * port, a queue each; a device that spreads its input over its queues,
 * such as net_af_packet with qpairs, read on each). */
int ebf_port_start_queues(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu,
                          uint16_t nb_rxd, uint16_t nb_txd, uint16_t n_rxq, uint16_t n_txq);

/* The same with n_q RX and TX queues and, when n_q > 1 and the device
 * hashes, RSS over IP addresses and UDP ports spreading the input over the
 * RX queues (ebfarm-loopback --queues). */
int ebf_port_start_rss(uint16_t port, struct rte_mempool *rx_pool, uint16_t mtu, uint16_t nb_rxd,
                       uint16_t nb_txd, uint16_t n_q);

/* A memif client port whose link is down (its server died, and may have
 * started again) restarted once, to connect anew: 1 when it was, 0 when
 * the link is up or the port is not memif. A control-path call (a socket
 * connect): on the port's own lcore, at most about once a second, between
 * its bursts. */
int ebf_port_relink(uint16_t port);

/* Wait until the link is up or *stop is set or timeout_ms passes. Returns 0
 * when up, -EINTR when stopped, -ETIMEDOUT. A memif client connects once,
 * when its port starts, and a server that is not started yet turns it away;
 * so a memif port still down is restarted every second to try again. */
int ebf_port_wait_up(uint16_t port, const volatile sig_atomic_t *stop,
                     unsigned timeout_ms);

/* Stop and close a port; harmless on a port that never started. */
void ebf_port_close(uint16_t port);

/* Packet mempool of n mbufs with data_room bytes each (0 for indirect
 * clones), on socket. NULL with rte_errno set. */
struct rte_mempool *ebf_pool_create(const char *name, unsigned n, uint16_t data_room,
                                    int socket);

/* The port's rte_eth_stats totals into ps (lib/ebf_port_stats.h); 0, or
 * the driver's -errno with ps zeroed. Any lcore; not on the fast path. */
int ebf_port_stats_read(uint16_t port, struct ebf_port_stats *ps);

/* Unlink this process's hugepage files (EAL 22.11 keeps them after exit;
 * none with --no-huge), rte_eal_cleanup(), then remove its DPDK runtime
 * directory (/var/run/dpdk/<file-prefix>) so that nothing is left behind. */
void ebf_eal_cleanup(void);

/* For main() after rte_eal_init(): print the message to stderr, clean up as
 * ebf_eal_cleanup() does, and exit with code. */
__attribute__((noreturn, format(printf, 2, 3)))
void ebf_eal_exit(int code, const char *fmt, ...);

#endif /* EBF_PORT_H */
