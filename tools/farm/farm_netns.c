/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_netns.c - network namespaces as a farm's hosts: the plan of switches, veths and sshds, made and removed by tools/scripts/ebfarm-netns. */
#include "farm_netns.h"
#include "farm_rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "farm_host.h"
#include "farmfile_multi.h"

#define PORTS_PER_HOST 15

/* One data port of the plan: a kernel interface in a namespace, its MAC. */
struct plan_port {
    unsigned host;
    char iface[16];
    uint8_t mac[6];
    unsigned n_workers;          /* an SFC's port of W workers: mac + w (w < W) behind it too */
};

struct plan {
    const struct farm_spec *s;
    unsigned n;
    struct plan_port port[FARM_MAX_PROCS * 2];
    char err[256];
};

const char *farm_netns_script(void)
{
    const char *e = getenv("EBFARM_NETNS_SCRIPT");

    return e && *e ? e : EBF_SOURCE_DIR "/tools/scripts/ebfarm-netns";
}

/* The value of "iface=" in a vdev string ("net_af_packet0,iface=d0,..."),
 * into buf; 0 when it has none. */
static int vdev_iface(const char *dev, char *buf, size_t len)
{
    const char *p = strstr(dev, ",iface=");

    if (!p)
        return 0;
    p += 7;
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= len)
        return 0;
    snprintf(buf, len, "%.*s", (int)n, p);
    return 1;
}

/* Port pt with mac on host (a netns host): into the plan, once; the
 * added port, or NULL. */
static struct plan_port *add_port(struct plan *pl, unsigned host, const struct ff_port *pt,
                                  const uint8_t mac[6])
{
    char ifc[16];

    if (pl->s->host[host].kind != FF_HOST_NETNS || pt->kind != FF_PORT_VDEV ||
        !vdev_iface(pt->dev, ifc, sizeof(ifc)))
        return NULL;
    for (unsigned i = 0; i < pl->n; i++)
        if (pl->port[i].host == host && !strcmp(pl->port[i].iface, ifc))
            return NULL;
    if (pl->n == sizeof(pl->port) / sizeof(pl->port[0]))
        return NULL;
    struct plan_port *p = &pl->port[pl->n++];
    p->host = host;
    snprintf(p->iface, sizeof(p->iface), "%s", ifc);
    memcpy(p->mac, mac, 6);
    return p;
}

/* Every port of s on a netns host: readouts', SFCs', nodes' and the SFCs'
 * ports toward their nodes (on the SFC's host). */
static void collect_ports(struct plan *pl)
{
    const struct farm_spec *s = pl->s;

    for (unsigned i = 0; i < s->n_readouts; i++)
        add_port(pl, s->readout[i].p.host, &s->readout[i].port, s->readout[i].mac);
    for (unsigned i = 0; i < s->n_sfcs; i++) {
        struct plan_port *p = add_port(pl, s->sfc[i].p.host, &s->sfc[i].port, s->sfc[i].mac);
        if (p)                  /* the readouts address worker w at mac + w (sfc_dist.h) */
            p->n_workers = ff_sfc_workers(&s->sfc[i]);
    }
    for (unsigned i = 0; i < s->n_nodes; i++) {
        const struct ff_node *nd = &s->node[i];
        add_port(pl, nd->p.host, &nd->port, nd->mac);
        if (nd->sfc_port.dev[0] && nd->sfc < s->n_sfcs)
            add_port(pl, s->sfc[nd->sfc].p.host, &nd->sfc_port, nd->sfc_mac);
    }
}

/* Whether some interface of this machine has an address in 10.a.b.0/24,
 * or a route lies inside it. */
static int subnet_used(unsigned a, unsigned b)
{
    char cmd[160], out[256];

    snprintf(cmd, sizeof(cmd), "ip -4 -o addr show to 10.%u.%u.0/24; "
             "ip -4 route show root 10.%u.%u.0/24", a, b, a, b);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    int rc = farm_run_argv(argv, out, sizeof(out));
    return rc != 0 || out[strspn(out, " \n")] != '\0';
}

/* A free 10.A.B.0/24 for the management switch, tried from the tag's hash. */
static int pick_subnet(uint32_t h, unsigned *a, unsigned *b)
{
    for (unsigned i = 0; i < 64; i++) {
        *a = 64 + (h + i * 37) % 128;          /* 10.64.0.0 .. 10.191.255.0 */
        *b = ((h >> 8) + i * 11) & 255;
        if (!subnet_used(*a, *b))
            return 0;
    }
    return -1;
}

/* The plan file's lines for pl, the addresses into st. */
static int write_plan(const struct plan *pl, struct farm_state *st, const char *tag, unsigned a,
                      unsigned b, char *err, size_t len)
{
    char path[192];
    unsigned k = 0, per[FF_MAX_HOSTS] = {0};

    snprintf(path, sizeof(path), "%s/plan", st->ssh_dir);
    FILE *f = farm_rundir_fopen(path, "w");
    if (!f) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "mgmt eb%sm 10.%u.%u.254/24\ndata eb%sd %u\n", tag, a, b, tag,
            (unsigned)pl->s->run.mtu);
    for (unsigned i = 0; i < st->n_hosts; i++) {
        struct farm_host *h = &st->host[i];
        if (h->kind != FF_HOST_NETNS)
            continue;
        snprintf(h->address, sizeof(h->address), "10.%u.%u.%u", a, b, ++k);
        fprintf(f, "host %s e%s%02xm %s/24\n", h->netns, tag, i, h->address);
    }
    for (unsigned i = 0; i < pl->n; i++) {
        const struct plan_port *p = &pl->port[i];
        const uint8_t *m = p->mac;
        fprintf(f, "port %s e%s%02x%x %s %02x:%02x:%02x:%02x:%02x:%02x\n",
                st->host[p->host].netns, tag, p->host, per[p->host], p->iface, m[0], m[1], m[2],
                m[3], m[4], m[5]);
        for (unsigned w = 1; w < p->n_workers; w++)
            fprintf(f, "fdb e%s%02x%x %02x:%02x:%02x:%02x:%02x:%02x\n", tag, p->host,
                    per[p->host], m[0], m[1], m[2], (uint8_t)(m[3] + w), m[4], m[5]);
        per[p->host]++;
    }
    if (fclose(f) != 0) {
        snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int farm_netns_plan(const struct farm_spec *s, struct farm_state *st, char *err, size_t len)
{
    struct plan *pl;
    unsigned n_ns = 0, a, b, count[FF_MAX_HOSTS] = {0};
    const char *tag;
    int rc = -1;

    for (unsigned i = 0; i < s->n_hosts; i++)
        n_ns += s->host[i].kind == FF_HOST_NETNS;
    if (n_ns == 0)
        return 0;
    if (n_ns > 250) {
        snprintf(err, len, "%u network-namespace hosts, more than the 250 of one /24", n_ns);
        return -1;
    }
    tag = strrchr(st->ssh_dir, '/') + 1 + 2;   /* 6 of the hash's 8 digits */
    if (!(pl = calloc(1, sizeof(*pl)))) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    pl->s = s;
    collect_ports(pl);
    for (unsigned i = 0; i < pl->n; i++)
        if (++count[pl->port[i].host] > PORTS_PER_HOST) {
            snprintf(err, len, "host '%s' has more than %d kernel interfaces (iface=) for "
                     "its processes; a network-namespace host takes at most %d",
                     s->host[pl->port[i].host].name, PORTS_PER_HOST, PORTS_PER_HOST);
            goto out;
        }
    if (pick_subnet((uint32_t)strtoul(tag, NULL, 16), &a, &b) != 0) {
        snprintf(err, len, "no free 10.x.y.0/24 for the management switch of the namespaces "
                 "(64 tried)");
        goto out;
    }
    if (mkdir(FARM_SSH_BASE, 0755) != 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create %s: %s", FARM_SSH_BASE, strerror(errno));
        goto out;
    }
    if (mkdir(st->ssh_dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create %s: %s", st->ssh_dir, strerror(errno));
        goto out;
    }
    if ((rc = write_plan(pl, st, tag, a, b, err, len)) == 0)
        st->netns = 1;
out:
    free(pl);
    return rc;
}

int farm_netns_up(const struct farm_state *st, char *err, size_t len)
{
    const char *argv[] = {farm_netns_script(), "up", st->ssh_dir, NULL};
    char out[1024];

    if (!st->netns)
        return 0;
    if (farm_run_argv(argv, out, sizeof(out)) == 0)
        return 0;
    out[strcspn(out, "\r\n")] = '\0';
    snprintf(err, len, "cannot make the network namespaces: %s",
             out[0] ? out : "ebfarm-netns up failed");
    return -1;
}

int farm_netns_down(const struct farm_state *st)
{
    const char *argv[] = {farm_netns_script(), "down", st->ssh_dir, NULL};
    char out[1024];

    if (!st->netns || !st->ssh_dir[0])
        return 0;
    if (farm_run_argv(argv, out, sizeof(out)) == 0)
        return 0;
    fprintf(stderr, "ebfarm: removing the network namespaces failed: %s", out);
    return -1;
}
