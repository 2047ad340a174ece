/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_eal.c - ebfarm-loopback's EAL argument list, network namespace switches, and port attach/start/close. */
#include "lb_eal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_ethdev.h>

#include "ebf_port.h"

/* --- EAL arguments ------------------------------------------------------------ */

/* An argv under construction: pointers in av, strings in store. */
struct argv_buf {
    char **av;
    int n;
    char *store;
    size_t len, used;
};

/* Append one argument, formatted; left out when av or store is full. */
__attribute__((format(printf, 2, 3)))
static void add(struct argv_buf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int w = vsnprintf(b->store + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (b->n < LB_EAL_ARGS - 1 && w >= 0 && (size_t)w < b->len - b->used) {
        b->av[b->n++] = b->store + b->used;
        b->used += (size_t)w + 1;
    }
}

/* -a for each PCI port the role uses, or --no-pci when there is none. */
static void add_ports(struct argv_buf *b, const struct lb_opts *o)
{
    const char *ports[2] = {o->role != LB_ROLE_RX ? o->tx : NULL,
                            o->role != LB_ROLE_TX ? o->rx : NULL};
    int pci = 0;

    for (int i = 0; i < 2; i++)
        if (ports[i] && lb_is_pci(ports[i])) {
            add(b, "-a");
            add(b, "%s", ports[i]);
            pci = 1;
        }
    if (!pci)
        add(b, "--no-pci");
}

/* Floating lcores on every CPU we may use: main, a TX lcore per queue and,
 * with both roles, an RX lcore per queue; nothing when the user's EAL
 * arguments name lcores. */
static void add_lcores(struct argv_buf *b, const struct lb_opts *o)
{
    cpu_set_t set;
    char cpus[256] = "";
    size_t c = 0;

    if (lb_opts_own_lcores(o))
        return;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE && c < sizeof(cpus) - 8; cpu++)
            if (CPU_ISSET(cpu, &set))
                c += (size_t)snprintf(cpus + c, sizeof(cpus) - c, "%s%d", c ? "," : "", cpu);
    unsigned n = 1 + (o->role == LB_ROLE_BOTH ? 2 : 1) * n_queues(o);
    char list[1024];
    size_t k = 0;
    for (unsigned l = 0; l < n && k < sizeof(list) - 1; l++)
        k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%u@(%s)", l ? "," : "", l, cpus);
    add(b, "--lcores=%s", list);
}

/* The user's --eal string, split at spaces. */
static void add_user(struct argv_buf *b, const struct lb_opts *o)
{
    if (!o->eal)
        return;
    char *copy = b->store + b->used;
    int w = snprintf(copy, b->len - b->used, "%s", o->eal);
    if (w <= 0 || (size_t)w >= b->len - b->used)
        return;
    b->used += (size_t)w + 1;
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && b->n < LB_EAL_ARGS - 1;
         t = strtok_r(NULL, " ", &save))
        b->av[b->n++] = t;
}

int lb_eal_argv(const struct lb_opts *o, char *prog, char **av, char *store, size_t len)
{
    struct argv_buf b = {.av = av, .store = store, .len = len};

    av[b.n++] = prog;
    if (!o->huge) {
        add(&b, "--no-huge");
        add(&b, "-m");
        add(&b, "%u", o->mem_mb);
    }
    add(&b, "--no-telemetry");
    add(&b, "--file-prefix=ebflb%d", (int)getpid());
    add(&b, "--log-level=lib.eal:warning");
    add_ports(&b, o);
    add_lcores(&b, o);
    add_user(&b, o);
    av[b.n] = NULL;
    return b.n;
}

/* --- Network namespaces -------------------------------------------------------- */

/*
 * net_af_packet finds its interface by name, with ioctl()s on sockets it
 * opens when it is created, started, asked for its link or MTU, and stopped:
 * all in the calling thread's network namespace. So the main thread enters
 * the port's namespace around each such call (lb_netns_enter / leave);
 * the lcores only use the packet sockets, which keep their namespace.
 */
int lb_netns_enter(const char *ns)
{
    if (!ns || !*ns)
        return -1;
    char path[256];
    snprintf(path, sizeof(path), "/run/netns/%s", ns);
    int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(path, O_RDONLY | O_CLOEXEC);
    if (self < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0)
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot enter network namespace '%s': %s "
                                   "(create it with tools/scripts/ebfarm-cable up)\n", ns, strerror(errno));
    close(target);
    return self;
}

void lb_netns_leave(int self)
{
    if (self < 0)
        return;
    if (setns(self, CLONE_NEWNET) != 0)
        ebf_eal_exit(EXIT_FAILURE, "loopback: cannot return to our network namespace\n");
    close(self);
}

/* --- Ports ----------------------------------------------------------------------- */

static int vdev_in_netns(const char *name, const char *args, const char *ns)
{
    int self = lb_netns_enter(ns);
    int rc = rte_vdev_init(name, args);
    lb_netns_leave(self);
    return rc;
}

/* Attach the device of spec (PCI: already probed by EAL) and find its port;
 * a net_af_packet device gets qpairs=queues unless spec sets it. */
static int attach(const char *spec, const char *ns, unsigned queues, uint16_t *port)
{
    char name[512];
    if (lb_is_pci(spec))
        return ebf_port_find(spec, port);
    if (queues > 1 && !strncmp(spec, "net_af_packet", 13) && !strstr(spec, "qpairs="))
        snprintf(name, sizeof(name), "%s,qpairs=%u", spec, queues);
    else
        snprintf(name, sizeof(name), "%s", spec);
    char *comma = strchr(name, ',');
    const char *args = comma ? comma + 1 : "";
    if (comma)
        *comma = '\0';
    int rc = vdev_in_netns(name, args, ns);
    if (rc) {
        fprintf(stderr, "loopback: cannot create device '%s': %s\n", spec, strerror(-rc));
        return rc;
    }
    return ebf_port_find(name, port);
}

/* Largest frame (FCS included) both ports take: MTU + 18. */
static unsigned port_max_frame(uint16_t port)
{
    uint16_t mtu = 1500;
    rte_eth_dev_get_mtu(port, &mtu);
    return mtu + 18u;
}

int lb_port_open(const struct lb_opts *o, const char *spec, const char *ns,
                 struct rte_mempool *pool, const volatile sig_atomic_t *stop, uint16_t *port,
                 unsigned *max_frame)
{
    if (attach(spec, ns, n_queues(o), port))
        return -ENODEV;
    int self = lb_netns_enter(ns);
    uint16_t nq = (uint16_t)n_queues(o);
    int rc = ebf_port_start_rss(*port, pool, 0, 1024, 1024, nq);   /* the port's MTU */
    if (rc == 0)
        rc = ebf_port_wait_up(*port, stop, o->link_timeout_ms);
    *max_frame = port_max_frame(*port);
    if (rc)
        ebf_port_close(*port);      /* a memif server removes its socket file */
    lb_netns_leave(self);
    return rc;
}

void lb_port_close(uint16_t port, const char *ns)
{
    int self = lb_netns_enter(ns);
    ebf_port_close(port);
    lb_netns_leave(self);
}

void lb_port_driver(uint16_t port, char *buf, size_t len)
{
    struct rte_eth_dev_info info;
    snprintf(buf, len, "unknown");
    if (rte_eth_dev_info_get(port, &info) == 0 && info.driver_name)
        snprintf(buf, len, "%s", info.driver_name);
}
