/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_eal.h - ebfarm-loopback's EAL arguments and ports: attach, start and close them inside their network namespaces. */
#ifndef LB_EAL_H
#define LB_EAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

#include "lb_opts.h"

/* Called from the main thread only (the namespace switches are per thread). */

#define LB_EAL_ARGS 64

/*
 * EAL's argv for options o into av (LB_EAL_ARGS entries; the strings are
 * kept in store, len bytes): no hugepages (unless --huge), no PCI unless a
 * port is one, floating lcores on every CPU we may use (main, TX and RX)
 * unless the --eal string names lcores, then the --eal string split at
 * spaces. Arguments that do not fit are left out. Returns argc.
 */
int lb_eal_argv(const struct lb_opts *o, char *prog, char **av, char *store, size_t len);

/*
 * Enter network namespace ns (by name, /run/netns/ns) and return a file
 * descriptor of the one we were in, or -1 when ns is NULL or empty (nothing
 * done). lb_netns_leave(fd) returns to it. Either one ends the process
 * through EAL with a message when the switch fails.
 */
int lb_netns_enter(const char *ns);
void lb_netns_leave(int self);

/*
 * Attach the device of spec (a PCI address already probed by EAL, or a vdev
 * string created inside namespace ns), start it with pool for its receive
 * queue and wait up to o->link_timeout_ms for its link, or until *stop is
 * set (a signal). *port is its port id, *max_frame its MTU + 18 (the
 * largest frame it takes, FCS included). 0, or a negative errno (-EINTR:
 * stopped) with the port closed again, so that a memif server's socket
 * file is gone.
 */
int lb_port_open(const struct lb_opts *o, const char *spec, const char *ns,
                 struct rte_mempool *pool, const volatile sig_atomic_t *stop, uint16_t *port,
                 unsigned *max_frame);

/* Stop and close port inside namespace ns. */
void lb_port_close(uint16_t port, const char *ns);

/* The name of port's driver into buf ("unknown" when it cannot be had). */
void lb_port_driver(uint16_t port, char *buf, size_t len);

#endif /* LB_EAL_H */
