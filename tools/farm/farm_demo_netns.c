/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_demo_netns.c - the demo's farm moved onto network namespaces: a host per process, af_packet over the switch, tcp with CURVE keys. */
#include "farm_demo_netns.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ebf_curve.h"
#include "farmfile_multi.h"

/* An af_packet port on kernel interface iface, its ring frames sized for
 * the MTU (a frame of mtu + 18 bytes and the ring's header, a power of 2),
 * each ring 32 MiB: 16384 frames at MTU 1500, 400 ms at the demo's rate
 * (a receiver descheduled that long loses nothing). */
static void af_port(struct ff_port *pt, unsigned n, const char *iface, uint16_t mtu)
{
    unsigned fs = 2048;

    while (fs < (unsigned)mtu + 18 + 64)
        fs *= 2;
    pt->kind = FF_PORT_VDEV;
    snprintf(pt->dev, sizeof(pt->dev), "net_af_packet%u,iface=%s,blocksz=%u,framesz=%u,"
             "framecnt=%u,qdisc_bypass=0", n, iface, fs > 4096 ? fs : 4096, fs,
             (32u << 20) / fs);
}

/* The SFC's side of its nodes' switch port with W workers: a queue pair
 * per worker (each transmits on its own; worker 0 reads every rx queue,
 * sfc_dist.h). */
static void af_qpairs(struct ff_port *pt, unsigned workers)
{
    size_t o = strlen(pt->dev);

    if (workers > 1)
        snprintf(pt->dev + o, sizeof(pt->dev) - o, ",qpairs=%u", workers);
}

double farm_netns_demo_rate(const struct farm_conf *c)
{
    /* Payload per frame: the MTU less IPv4/UDP (udp), the frame and
     * fragment headers, rounded down to 8 (docs/operations.md). */
    unsigned room = ((unsigned)c->mtu - (c->udp ? 28 : 0) - 40 - 48) / 8 * 8;
    unsigned frag = (c->frag_min + c->frag_max) / 2;
    unsigned per_event = c->sources * ((frag + room - 1) / room);

    double by_frames = per_event ? (double)FARM_NETNS_DEMO_FPS / per_event : FARM_NETNS_DEMO_FPS;
    double by_bytes = (double)FARM_NETNS_DEMO_BYTES_S / ((double)c->sources * (frag ? frag : 1));
    double rate = by_bytes < by_frames ? by_bytes : by_frames;

    /* With failover, the survivors of a dead SFC take its share on top of
     * theirs: at the full rate the one survivor of 2 SFCs overflowed its
     * af_packet ring (sequence gaps, incomplete events, the replay buffers
     * full, an open ledger), at this share of it the ledger closes. */
    if (c->replay_mb && c->sfcs > 1)
        rate = rate * (c->sfcs - 1) / c->sfcs;
    return rate;
}

/* Process p onto a host of its own, named after it; endpoints on it. */
static void own_host(struct farm_spec *s, struct ff_proc *p, const char *tag)
{
    struct ff_host *h = &s->host[s->n_hosts];

    memset(h, 0, sizeof(*h));
    snprintf(h->name, sizeof(h->name), "%s", p->name);
    h->kind = FF_HOST_NETNS;
    snprintf(h->netns, sizeof(h->netns), "%.10s-%.20s", tag, p->name);
    p->host = s->n_hosts++;
    snprintf(p->control, sizeof(p->control), "tcp://{host}:5550");
    snprintf(p->metrics, sizeof(p->metrics), "tcp://{host}:5551");
}

int farm_demo_netns(struct farm_spec *s, const char *run_dir, char *err, size_t len)
{
    char tag[16];
    uint16_t mtu = s->run.mtu;

    snprintf(tag, sizeof(tag), "ebd%d", (int)getpid());
    s->n_hosts = 0;
    for (unsigned i = 0; i < s->n_readouts; i++) {
        own_host(s, &s->readout[i].p, tag);
        af_port(&s->readout[i].port, 0, "d0", mtu);
    }
    for (unsigned i = 0; i < s->n_sfcs; i++) {
        own_host(s, &s->sfc[i].p, tag);
        af_port(&s->sfc[i].port, 0, "rx", mtu);
    }
    for (unsigned i = 0; i < s->n_nodes; i++) {
        struct ff_node *n = &s->node[i];
        own_host(s, &n->p, tag);
        af_port(&n->port, 0, "d0", mtu);
        af_port(&n->sfc_port, 1, "nd", mtu);
        af_qpairs(&n->sfc_port, ff_sfc_workers(&s->sfc[n->sfc]));
        const uint8_t mac[6] = {0x02, 0xeb, 0x00, 0x00, 0x01, (uint8_t)n->sfc};
        memcpy(n->sfc_mac, mac, 6);
    }
    snprintf(s->keys, sizeof(s->keys), "%s/keys", run_dir);
    s->insecure = 0;
    return ebf_curve_keygen(s->keys, err, len) == 0 ? 0 : -1;
}
