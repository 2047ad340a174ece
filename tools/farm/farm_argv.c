/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_argv.c - a daemon's command line from a farm spec: EAL arguments, its ports, its own options. */
#include "farm_argv.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_param.h"
#include "farmfile_multi.h"

/* Append one argument, formatted; dropped when c is full. */
/* With failover on (run.replay_mb), each SFC's release frames come this
 * often (docs/protocol.md 13.2: EBF_RELEASE_PERIOD_NS). */
#define FARM_RELEASE_MS 10

static void arg(struct farm_argv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void arg(struct farm_argv *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (c->argc < FARM_ARGV_MAX - 1)
        c->argv[c->argc++] = strdup(buf);
    c->argv[c->argc] = NULL;
}

void farm_argv_free(struct farm_argv *c)
{
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
    c->argc = 0;
    c->argv[0] = NULL;
}

static void mac_str(const uint8_t m[6], char *buf)
{
    sprintf(buf, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* --lcores for "auto": n lcores, each on every CPU of placed (a mask of
 * CPUs 0..63, the demo's --cpus), or when it is 0 on every CPU this process
 * may run on. Their ids are the n highest DPDK has (FARM_MAX_LCORE - n up,
 * the lowest the main lcore), not 0 to n - 1: dpdk-dumpcap attaches as a
 * secondary process whose main lcore id is the lowest CPU it may run on,
 * and it frees its capture mbufs into that lcore's cache of its pool while
 * the daemon's pdump callbacks take them from the cache of the daemon's
 * lcore id. Two processes on one cache corrupt it: a captured frame is
 * overwritten by a later one (docs/capture.md, "lcore ids"). */
static void auto_lcores(struct farm_argv *c, unsigned n, uint64_t placed)
{
    cpu_set_t set;
    char cpus[256];
    size_t o = 0;

    cpus[0] = '\0';
    if (placed)
        for (int cpu = 0; cpu < 64; cpu++)
            if (placed >> cpu & 1)
                o += (size_t)snprintf(cpus + o, sizeof(cpus) - o, "%s%d", o ? "," : "", cpu);
    if (!placed && sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int cpu = 0; cpu < CPU_SETSIZE && o < sizeof(cpus) - 8; cpu++)
            if (CPU_ISSET(cpu, &set))
                o += (size_t)snprintf(cpus + o, sizeof(cpus) - o, "%s%d", o ? "," : "", cpu);
    char list[1024];
    size_t l = 0;
    for (unsigned i = 0; i < n && l < sizeof(list) - sizeof(cpus) - 16; i++)
        l += (size_t)snprintf(list + l, sizeof(list) - l, "%s%u@(%s)", i ? "," : "",
                              FARM_MAX_LCORE - n + i, o ? cpus : "0");
    arg(c, "--lcores=%s", list);
}

/* EAL arguments of a process, up to the ports. */
static void eal_args(struct farm_argv *c, const char *build, const char *bin,
                     const struct ff_proc *p, const char *prefix, int has_pci, unsigned n_lcores)
{
    arg(c, "%s/%s", build, bin);
    if (p->no_huge)
        arg(c, "--no-huge");
    arg(c, "-m");
    arg(c, "%u", p->memory_mb);
    if (!has_pci)
        arg(c, "--no-pci");
    if (!p->telemetry)           /* the farm file's telemetry: false; EAL's default is on */
        arg(c, "--no-telemetry");
    if (strcmp(p->lcores, "auto") == 0)
        auto_lcores(c, n_lcores, p->cpus);
    else
        arg(c, "--lcores=%s", p->lcores);
    arg(c, "--file-prefix=%s", prefix);
    arg(c, "--log-level=lib.eal:warning");
    for (unsigned i = 0; i < p->n_eal_args; i++)
        arg(c, "%s", p->eal_args[i]);
}

/* What every port of a process shares: where memif sockets go, how many
 * memif ports it has so far, the farm's MTU. */
struct port_ctx {
    const char *run_dir;
    unsigned n_memif;
    uint16_t mtu;
};

/* memif's buffer size (its bsize devarg) is 2048 unless the frames of the
 * MTU (mtu + 18 bytes) need more: the daemons refuse a memif port whose
 * buffer cannot take a frame whole (lib/ebf_mtu.c). Rounded up to 64. */
static void memif_bsize(uint16_t mtu, char *buf, size_t len)
{
    unsigned frame = (unsigned)mtu + 18;

    buf[0] = '\0';
    if (frame > 2048)
        snprintf(buf, len, ",bsize=%u", (frame + 63) / 64 * 64);
}

/*
 * EAL arguments for one port of a process; name receives the device name
 * the daemon's options use. memif links: the SFC side is the server.
 */
static void memif_arg(struct farm_argv *c, const char *link, int server, const char *mac,
                      struct port_ctx *pc, char *name, size_t len)
{
    char bsize[24];

    snprintf(name, len, "net_memif%u", pc->n_memif++);
    memif_bsize(pc->mtu, bsize, sizeof(bsize));
    arg(c, "--vdev=%s,role=%s,id=0,socket=%s/%s.sock,socket-abstract=no,mac=%s,rsize=11%s",
        name, server ? "server" : "client", pc->run_dir, link, mac, bsize);
}

static void port_args(struct farm_argv *c, const struct ff_port *pt, int server,
                      const uint8_t mac[6], struct port_ctx *pc, char *name, size_t len)
{
    char m[24];

    mac_str(mac, m);
    switch (pt->kind) {
    case FF_PORT_MEMIF:
        memif_arg(c, pt->dev, server, m, pc, name, len);
        break;
    case FF_PORT_PCI:
        snprintf(name, len, "%s", pt->dev);
        arg(c, "-a");
        arg(c, "%s", pt->dev);
        break;
    case FF_PORT_VDEV: {
        const char *comma = strchr(pt->dev, ',');
        size_t n = comma ? (size_t)(comma - pt->dev) : strlen(pt->dev);
        snprintf(name, len, "%.*s", (int)n, pt->dev);
        arg(c, "--vdev=%s", pt->dev);
        break;
    }
    }
}

/* The options every daemon takes: idle policy, endpoints, their keys (or
 * none: insecure; on a remote host the copy in its run directory,
 * farm_launch.h), instance name. */
static void ctl_args(struct farm_argv *c, const struct farm_spec *s, const struct farm_proc *fp,
                     const struct ff_proc *p, const char *run_dir)
{
    arg(c, "--idle=%s", p->idle == FF_IDLE_BACKOFF ? "backoff" : "spin");
    arg(c, "--control=%s", fp->control);
    arg(c, "--metrics=%s", fp->metrics);
    if (s->keys[0] && fp->remote)
        arg(c, "--curve-keys=%s/keys", run_dir);
    else if (s->keys[0])
        arg(c, "--curve-keys=%s", s->keys);
    if (s->insecure)
        arg(c, "--insecure");
    arg(c, "--metrics-period-ms=%g", s->run.metrics_period_ms);
    arg(c, "--name=%s", p->name);
}

#define FF_READOUT_PLACES 64      /* SFC workers a readout sends to (RO_MAX_SFCS) */

/* The SFC's port toward node nd: its own sfc_port when the file names one. */
static const struct ff_port *sfc_side(const struct ff_node *nd)
{
    return nd->sfc_port.dev[0] ? &nd->sfc_port : &nd->port;
}

/*
 * The SFC's ports toward its nn nodes s->node[idx[j]]: names[j] receives
 * each one's device name. Several nodes behind one switch port (not memif)
 * share the device, so it is opened once.
 */
static void sfc_node_ports(struct farm_argv *c, const struct farm_spec *s, const unsigned *idx,
                           unsigned nn, struct port_ctx *pc, char names[][FF_STR_MAX])
{
    for (unsigned j = 0; j < nn; j++) {
        const struct ff_node *nd = &s->node[idx[j]];
        const struct ff_port *pt = sfc_side(nd);
        int shared = 0;
        for (unsigned q = 0; q < j && pt->kind != FF_PORT_MEMIF && !shared; q++) {
            if (strcmp(sfc_side(&s->node[idx[q]])->dev, pt->dev) == 0) {
                snprintf(names[j], FF_STR_MAX, "%s", names[q]);
                shared = 1;
            }
        }
        if (!shared)
            port_args(c, pt, 1, nd->sfc_mac, pc, names[j], FF_STR_MAX);
    }
}

/* --readout-mac: the MACs of every readout that sends to SFC k, the only
 * ones it takes fragments from and throttles. */
static void readout_macs(struct farm_argv *c, const struct farm_spec *s, unsigned k)
{
    char list[FF_MAX_READOUTS * 18 + 1], m[24];
    size_t o = 0;

    for (unsigned r = 0; r < s->n_readouts; r++)
        for (unsigned i = 0; i < s->readout[r].n_sfcs; i++)
            if (s->readout[r].sfc[i] == k) {
                mac_str(s->readout[r].mac, m);
                o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", o ? "," : "", m);
                break;
            }
    if (o)
        arg(c, "--readout-mac=%s", list);
}

/* An SFC on memif links per pair: a server port per readout that feeds
 * it, the first into first, the others listed in more ("a,b"); with
 * workers, a run of such ports per worker, each with the worker's MAC
 * (sfc_workers.h: worker w takes run w). */
static void sfc_pair_ports(struct farm_argv *c, const struct farm_spec *s, unsigned k,
                           struct port_ctx *pc, char *first, char *more, size_t len)
{
    char m[24], link[2 * FF_NAME_MAX + 8], name[32];
    uint8_t mac[6];
    size_t o = 0;
    int n = 0;

    for (unsigned w = 0; w < ff_sfc_workers(&s->sfc[k]); w++) {
        ff_worker_mac(s, k, w, mac);
        mac_str(mac, m);
        for (unsigned r = 0; r < s->n_readouts; r++)
            for (unsigned i = 0; i < s->readout[r].n_sfcs; i++) {
                if (s->readout[r].sfc[i] != k)
                    continue;
                ff_worker_link(s, r, k, w, link, sizeof(link));
                memif_arg(c, link, 1, m, pc, name, sizeof(name));
                if (n++ == 0)
                    snprintf(first, FF_STR_MAX, "%s", name);
                else
                    o += (size_t)snprintf(more + o, len - o, "%s%s", o ? "," : "", name);
            }
    }
}

static void sfc_cmd(const struct farm_spec *s, unsigned k, const char *build,
                    const struct farm_proc *fp, const char *run_dir, struct farm_argv *c)
{
    const struct ff_sfc *x = &s->sfc[k];
    char names[FF_MAX_NODES + 1][FF_STR_MAX], m[24];
    unsigned nn = 0, idx[FF_MAX_NODES];
    struct port_ctx pc = {.run_dir = run_dir, .mtu = s->run.mtu};
    int pci = x->port.kind == FF_PORT_PCI;

    for (unsigned i = 0; i < s->n_nodes; i++)
        if (s->node[i].sfc == k) {
            idx[nn++] = i;
            pci |= s->node[i].sfc_port.kind == FF_PORT_PCI;
        }
    eal_args(c, build, "sfc/ebfarm-sfc", &x->p, fp->prefix, pci, ff_sfc_workers(x));
    char more[FF_MAX_READOUTS * 16 * 24 + 1] = "";
    if (FF_MEMIF_PAIRS(&x->port))
        sfc_pair_ports(c, s, k, &pc, names[0], more, sizeof(more));
    else
        port_args(c, &x->port, 1, x->mac, &pc, names[0], sizeof(names[0]));
    sfc_node_ports(c, s, idx, nn, &pc, names + 1);
    arg(c, "--");
    arg(c, "--port=%s", names[0]);
    if (more[0])
        arg(c, "--readout-port=%s", more);
    for (unsigned j = 0; j < nn; j++) {
        mac_str(s->node[idx[j]].mac, m);
        arg(c, "--node=%s,%s", names[j + 1], m);
    }
    if (!x->accept_any_readout)
        readout_macs(c, s, k);
    arg(c, "--sources=%u", s->run.sources);
    arg(c, "--sfc-id=%u", x->id);
    if (ff_sfc_workers(x) > 1)
        arg(c, "--workers=%u", ff_sfc_workers(x));
    arg(c, "--timeout-ms=%g", s->run.timeout_ms);
    arg(c, "--capacity=%u", x->capacity);
    arg(c, "--mbufs=%u", x->mbufs);
    arg(c, "--max-credits=%u", x->max_credits);
    arg(c, "--mtu=%u", s->run.mtu);
    arg(c, "--udp-port=%u", s->run.udp_port);
    if (s->run.max_event)
        arg(c, "--max-event=%u", s->run.max_event);
    if (s->run.replay_mb)
        arg(c, "--release-ms=%u", FARM_RELEASE_MS);
    if (s->run.replay_mb && s->run.sfc_dead_ms)
        arg(c, "--sfc-dead-ms=%u", s->run.sfc_dead_ms);
    ctl_args(c, s, fp, &x->p, run_dir);
}

/* A node's --max-event: run.max_event, or, when the node holds events
 * whole (a plug-in or storage) and none is given, the run's largest event
 * (sources fragments of frag_max, at least 1 KiB, at most 16 MiB), so that
 * its pool and storage blocks fit the events its readouts make; 0: none. */
static uint32_t node_max_event(const struct farm_spec *s)
{
    uint64_t big = (uint64_t)s->run.sources * s->run.frag_max;

    if (s->run.max_event)
        return s->run.max_event;
    if (!s->run.trigger.plugin[0] && !s->run.store.dir[0])
        return 0;
    big = big < 1024 ? 1024 : big;
    return big < EBF_EVENT_MAX_DEFAULT ? (uint32_t)big : EBF_EVENT_MAX_DEFAULT;
}

/* A node's id at its SFC: its place among that SFC's nodes. */
static unsigned node_id(const struct farm_spec *s, unsigned i)
{
    unsigned id = 0;

    for (unsigned j = 0; j < i; j++)
        id += s->node[j].sfc == s->node[i].sfc;
    return id;
}

static void node_cmd(const struct farm_spec *s, unsigned k, const char *build,
                     const struct farm_proc *fp, const char *run_dir, struct farm_argv *c)
{
    const struct ff_node *x = &s->node[k];
    char name[FF_STR_MAX], m[24];
    struct port_ctx pc = {.run_dir = run_dir, .mtu = s->run.mtu};

    eal_args(c, build, "node/ebfarm-node", &x->p, fp->prefix, x->port.kind == FF_PORT_PCI,
             x->workers + 1u);
    port_args(c, &x->port, 0, x->mac, &pc, name, sizeof(name));
    arg(c, "--");
    arg(c, "--port=%s", name);
    mac_str(x->sfc_mac, m);
    arg(c, "--sfc-mac=%s", m);
    mac_str(x->mac, m);
    arg(c, "--mac=%s", m);
    arg(c, "--node-id=%u", node_id(s, k));
    arg(c, "--credits=%u", x->credits);
    if (x->workers)
        arg(c, "--workers=%u", x->workers);
    arg(c, "--trigger-us=%g", s->run.trigger_us);
    arg(c, "--accept=%g", s->run.accept);
    arg(c, "--accept-seed=%llu", (unsigned long long)s->run.accept_seed);
    if (node_max_event(s))
        arg(c, "--max-event=%u", node_max_event(s));
    if (s->run.trigger.plugin[0]) {
        arg(c, "--trigger=%s", s->run.trigger.plugin);
        for (unsigned i = 0; i < s->run.trigger.n_params; i++)
            arg(c, "--trigger-param=%s", s->run.trigger.param[i]);
        if (s->run.trigger.timeout_ms > 0)
            arg(c, "--trigger-timeout-ms=%g", s->run.trigger.timeout_ms);
    }
    if (s->run.store.dir[0]) {
        arg(c, "--store=%s", s->run.store.dir);
        arg(c, "--sfc-id=%u", s->sfc[x->sfc].id);
        arg(c, "--store-max-file-mb=%u", s->run.store.max_file_mb);
        arg(c, "--store-max-file-s=%g", s->run.store.max_file_s);
        arg(c, "--store-fsync=%s", s->run.store.fsync);
        arg(c, "--store-buffer-mb=%u", s->run.store.buffer_mb);
        arg(c, "--store-max-mbs=%g", s->run.store.max_mbs);
    }
    arg(c, "--mtu=%u", s->run.mtu);
    ctl_args(c, s, fp, &x->p, run_dir);
}

/* The places of readout r's events: its SFCs, each as often as it has
 * workers, worker-major (place i + n * w: event e goes to SFC e % n,
 * worker (e / n) % W). */
static unsigned readout_places(const struct farm_spec *s, unsigned r)
{
    const struct ff_readout *x = &s->readout[r];

    return x->n_sfcs ? x->n_sfcs * ff_sfc_workers(&s->sfc[x->sfc[0]]) : 0;
}

/* A readout on memif links per pair: a client port per place, in the
 * order of its places; the first into first, all listed in ports ("a,b"). */
static void readout_pair_ports(struct farm_argv *c, const struct farm_spec *s, unsigned r,
                               struct port_ctx *pc, char *first, char *ports, size_t len)
{
    const struct ff_readout *x = &s->readout[r];
    char m[24], link[2 * FF_NAME_MAX + 8], name[32];
    size_t o = 0;

    mac_str(x->mac, m);
    for (unsigned p = 0; p < readout_places(s, r); p++) {
        ff_worker_link(s, r, x->sfc[p % x->n_sfcs], p / x->n_sfcs, link, sizeof(link));
        memif_arg(c, link, 0, m, pc, name, sizeof(name));
        if (p == 0)
            snprintf(first, FF_STR_MAX, "%s", name);
        o += (size_t)snprintf(ports + o, len - o, "%s%s", o ? "," : "", name);
    }
}

static void readout_cmd(const struct farm_spec *s, unsigned k, const char *build,
                        const struct farm_proc *fp, const char *run_dir, struct farm_argv *c)
{
    const struct ff_readout *x = &s->readout[k];
    char name[FF_STR_MAX], m[24], list[FF_READOUT_PLACES * 18 + 1];
    struct port_ctx pc = {.run_dir = run_dir, .mtu = s->run.mtu};
    size_t o = 0;
    uint8_t mac[6];

    char ports[FF_READOUT_PLACES * 24 + 1] = "";
    uint16_t first, count;

    eal_args(c, build, "readout/ebfarm-readout", &x->p, fp->prefix, x->port.kind == FF_PORT_PCI,
             1);
    if (FF_MEMIF_PAIRS(&x->port))
        readout_pair_ports(c, s, k, &pc, name, ports, sizeof(ports));
    else
        port_args(c, &x->port, 0, x->mac, &pc, name, sizeof(name));
    arg(c, "--");
    arg(c, "--port=%s", name);
    if (ports[0])
        arg(c, "--sfc-port=%s", ports);
    for (unsigned p = 0; p < readout_places(s, k); p++) {
        ff_worker_mac(s, x->sfc[p % x->n_sfcs], p / x->n_sfcs, mac);
        mac_str(mac, m);
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", p ? "," : "", m);
    }
    arg(c, "--sfc-mac=%s", list);
    mac_str(x->mac, m);
    arg(c, "--mac=%s", m);
    ff_readout_sources(s, k, &first, &count);
    arg(c, "--sources=%u", count);
    if (first)
        arg(c, "--source-base=%u", first);
    arg(c, "--encap=%s", s->run.encap == FF_ENCAP_UDP ? "udp" : "eth");
    arg(c, "--udp-port=%u", s->run.udp_port);
    arg(c, "--mtu=%u", s->run.mtu);
    if (s->run.replay_mb)
        arg(c, "--replay-mb=%u", s->run.replay_mb);
    if (s->run.replay_mb && s->run.sfc_dead_ms)
        arg(c, "--sfc-dead-ms=%u", s->run.sfc_dead_ms);
    ctl_args(c, s, fp, &x->p, run_dir);
}

void farm_argv_build(const struct farm_spec *s, enum farm_role role, unsigned k, const char *build,
                     const struct farm_proc *fp, const char *run_dir, struct farm_argv *c)
{
    switch (role) {
    case FARM_SFC: sfc_cmd(s, k, build, fp, run_dir, c); break;
    case FARM_NODE: node_cmd(s, k, build, fp, run_dir, c); break;
    case FARM_READOUT: readout_cmd(s, k, build, fp, run_dir, c); break;
    }
}
