/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_cross.c - the farm spec's checks across processes: names, MACs, endpoints, links. */
#include "farmfile_cross.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ebf_util.h"
#include "farmfile_multi.h"
#include "farmfile_value.h"

#define KEY_MAX FF_KEY_MAX

unsigned ff_n_procs(const struct farm_spec *s)
{
    return s->n_readouts + s->n_sfcs + s->n_nodes;
}

const struct ff_proc *ff_proc_at(const struct farm_spec *s, unsigned g, char key[FF_KEY_MAX])
{
    if (g < s->n_readouts) {
        snprintf(key, KEY_MAX, "readouts[%u]", g);
        return &s->readout[g].p;
    }
    g -= s->n_readouts;
    if (g < s->n_sfcs) {
        snprintf(key, KEY_MAX, "sfcs[%u]", g);
        return &s->sfc[g].p;
    }
    g -= s->n_sfcs;
    snprintf(key, KEY_MAX, "nodes[%u]", g);
    return &s->node[g].p;
}

static int unique_names(struct ff_chk *c)
{
    char ki[KEY_MAX], kj[KEY_MAX];

    for (unsigned i = 0; i < ff_n_procs(c->s); i++) {
        const struct ff_proc *pi = ff_proc_at(c->s, i, ki);
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(ff_proc_at(c->s, j, kj)->name, pi->name))
                return FAIL(c, "key '%s.name': \"%s\" is already the name of %s", ki, pi->name,
                            kj);
    }
    return 0;
}

static int unique_ids(struct ff_chk *c)
{
    for (unsigned i = 0; i < c->s->n_sfcs; i++)
        for (unsigned j = 0; j < i; j++)
            if (c->s->sfc[i].id == c->s->sfc[j].id)
                return FAIL(c, "key 'sfcs[%u].id': %u is already the id of sfcs[%u]", i,
                            c->s->sfc[i].id, j);
    return 0;
}

/* One use of a MAC, an endpoint or a port: the value, its key, its owner. */
struct use {
    const void *val;
    char key[KEY_MAX + 16];
    unsigned owner;              /* process number */
    const struct ff_port *port;  /* the port it belongs to, or NULL */
};

#define WORKER_MACS_MAX 15       /* workers beyond the first of an SFC (WORKERS' range) */
#define USES_MAX (2 * (FF_MAX_READOUTS + FF_MAX_SFCS + FF_MAX_NODES) + FF_MAX_NODES + \
                  FF_MAX_SFCS * WORKER_MACS_MAX)

/* Append a use whose key is fmt with (index, field), "nodes[%u].%s". */
static void add(struct use *u, unsigned *n, const void *val, unsigned owner,
                const struct ff_port *port, const char *fmt, unsigned index, const char *field)
{
    u[*n] = (struct use){.val = val, .owner = owner, .port = port};
    snprintf(u[*n].key, sizeof(u[*n].key), fmt, index, field);
    (*n)++;
}

static int same_port(const struct ff_port *a, const struct ff_port *b)
{
    return a->kind == b->kind && !strcmp(a->dev, b->dev);
}

/* A MAC names one port of one process: the same MAC on another port or
 * process is an error. A node's sfc_mac equal to its SFC's mac is the
 * default and is not counted as a use. */
static int unique_macs(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    struct use u[USES_MAX];
    unsigned n = 0, nr = s->n_readouts, ns = s->n_sfcs;
    char buf[18];

    for (unsigned i = 0; i < nr; i++)
        add(u, &n, s->readout[i].mac, i, &s->readout[i].port, "readouts[%u].%s", i, "mac");
    static uint8_t wmac[FF_MAX_SFCS][WORKER_MACS_MAX][6];
    static const struct ff_port worker_port = {.kind = FF_PORT_MEMIF, .dev = "(workers)"};
    for (unsigned i = 0; i < ns; i++) {
        add(u, &n, s->sfc[i].mac, nr + i, &s->sfc[i].port, "sfcs[%u].%s", i, "mac");
        for (unsigned w = 1; w < ff_sfc_workers(&s->sfc[i]) && w <= WORKER_MACS_MAX; w++) {
            ff_worker_mac(s, i, w, wmac[i][w - 1]);     /* mac + w in its fourth byte */
            add(u, &n, wmac[i][w - 1], nr + i, &worker_port, "sfcs[%u].%s", i, "workers");
        }
    }
    for (unsigned i = 0; i < s->n_nodes; i++) {
        const struct ff_node *d = &s->node[i];
        add(u, &n, d->mac, nr + ns + i, &d->port, "nodes[%u].%s", i, "mac");
        if (memcmp(d->sfc_mac, s->sfc[d->sfc].mac, 6) != 0)
            add(u, &n, d->sfc_mac, nr + d->sfc, &d->sfc_port, "nodes[%u].%s", i, "sfc_mac");
    }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < i; j++)
            if (!memcmp(u[i].val, u[j].val, 6) &&
                (u[i].owner != u[j].owner || !same_port(u[i].port, u[j].port)))
                return FAIL(c, "key '%s': %s is already the MAC of %s", u[i].key,
                            ebf_format_mac(u[i].val, buf), u[j].key);
    return 0;
}

/* 1 when processes g and h are on one host. */
static int same_host(const struct farm_spec *s, unsigned g, unsigned h)
{
    char key[KEY_MAX];

    return ff_proc_at(s, g, key)->host == ff_proc_at(s, h, key)->host;
}

/* The host of tcp endpoint s (localhost as 127.0.0.1, lower case) and
 * its port; 0 when s is no tcp://HOST:PORT. */
static int tcp_parts(const char *s, char *host, size_t len, const char **port)
{
    const char *h = s + 6, *colon = strrchr(s, ':');

    if (strncmp(s, "tcp://", 6) != 0 || !colon || colon < h)
        return 0;
    size_t n = (size_t)(colon - h);
    if (n == 9 && !strncasecmp(h, "localhost", 9))
        h = "127.0.0.1", n = 9;
    snprintf(host, len, "%.*s", (int)n, h);
    for (char *p = host; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    *port = colon + 1;
    return 1;
}

/* Whether endpoints a and b bind the same thing: equal, or tcp:// with one
 * host (tcp://localhost:P is tcp://127.0.0.1:P) and port. */
static int same_endpoint(const char *a, const char *b)
{
    char ha[256], hb[256];
    const char *pa, *pb;

    if (!strcmp(a, b))
        return 1;
    return tcp_parts(a, ha, sizeof(ha), &pa) && tcp_parts(b, hb, sizeof(hb), &pb) &&
           !strcmp(ha, hb) && !strcmp(pa, pb);
}

/* An endpoint is bound on its process's host: unique on each host. */
static int unique_endpoints(struct ff_chk *c)
{
    struct use u[USES_MAX];
    unsigned n = 0;
    char pre[KEY_MAX];

    for (unsigned g = 0; g < ff_n_procs(c->s); g++) {
        const struct ff_proc *p = ff_proc_at(c->s, g, pre);
        u[n] = (struct use){.val = p->control, .owner = g};
        snprintf(u[n++].key, sizeof(u[0].key), "%s.control", pre);
        u[n] = (struct use){.val = p->metrics, .owner = g};
        snprintf(u[n++].key, sizeof(u[0].key), "%s.metrics", pre);
    }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < i; j++)
            if (same_endpoint(u[i].val, u[j].val) && same_host(c->s, u[i].owner, u[j].owner))
                return FAIL(c, "key '%s': \"%s\" is already used by %s (\"%s\")", u[i].key,
                            (const char *)u[i].val, u[j].key, (const char *)u[j].val);
    return 0;
}

/* The ends of memif links: every port of every process. kind says which
 * end it is: a readout's port, an SFC's readout-facing port, a node's own
 * port, or the SFC's port toward node `index` (a node's sfc_port). */
enum end_kind { END_READOUT, END_SFC, END_NODE, END_SFC_TO_NODE };

struct end {
    const struct ff_port *port;
    enum end_kind kind;
    unsigned index;              /* of the readout, SFC or node */
    char key[KEY_MAX];
};

static unsigned collect_ends(const struct farm_spec *s, struct end *e)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->n_readouts; i++, n++) {
        e[n] = (struct end){&s->readout[i].port, END_READOUT, i, ""};
        snprintf(e[n].key, KEY_MAX, "readouts[%u].port", i);
    }
    for (unsigned i = 0; i < s->n_sfcs; i++, n++) {
        e[n] = (struct end){&s->sfc[i].port, END_SFC, i, ""};
        snprintf(e[n].key, KEY_MAX, "sfcs[%u].port", i);
    }
    for (unsigned i = 0; i < s->n_nodes; i++) {
        e[n] = (struct end){&s->node[i].port, END_NODE, i, ""};
        snprintf(e[n++].key, KEY_MAX, "nodes[%u].port", i);
        e[n] = (struct end){&s->node[i].sfc_port, END_SFC_TO_NODE, i, ""};
        snprintf(e[n++].key, KEY_MAX, "nodes[%u].sfc_port", i);
    }
    return n;
}

static const char *const lonely_hint[] = {
    [END_READOUT] = "add it to an SFC port",
    [END_SFC] = "add it to a readout port",
    [END_NODE] = "give the node's sfc_port the same link",
    [END_SFC_TO_NODE] = "give the node's port the same link",
};

/* A valid link joins a readout to an SFC that the readout sends to (and to
 * no other SFC), or a node to its SFC. */
static int link_pair(struct ff_chk *c, const struct end *a, const struct end *b)
{
    const struct farm_spec *s = c->s;

    if (a->kind == END_READOUT && b->kind == END_SFC) {
        const struct ff_readout *r = &s->readout[a->index];
        for (unsigned k = 0; k < r->n_sfcs; k++)
            if (r->sfc[k] != b->index)
                return FAIL(c, "key 'readouts[%u].sfcs[%u]': \"%s\" is not at the other end of "
                            "memif link '%s' (%s is; a memif link joins one readout to one SFC: give "
                            "the readout and its SFCs port: memif, a link per pair)",
                            a->index, k, s->sfc[r->sfc[k]].p.name, a->port->dev,
                            s->sfc[b->index].p.name);
        return 0;
    }
    if (a->kind == END_NODE && b->kind == END_SFC_TO_NODE && a->index == b->index)
        return 0;
    return FAIL(c, "key '%s': memif link '%s' would join %s and %s (a link joins a readout to "
                "an SFC, or a node to its SFC)", b->key, b->port->dev, a->key, b->key);
}

static int memif_links(struct ff_chk *c, const struct end *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned at[3], k = 0;
        int first = 1;
        if (e[i].port->kind != FF_PORT_MEMIF || FF_MEMIF_PAIRS(e[i].port))
            continue;           /* links per pair: farmfile_multi.c */
        for (unsigned j = 0; j < n && k < 3; j++) {
            if (e[j].port->kind != FF_PORT_MEMIF || strcmp(e[j].port->dev, e[i].port->dev))
                continue;
            if (j < i)
                first = 0;
            at[k++] = j;
        }
        if (!first)
            continue;            /* checked at its first end */
        if (k == 1)
            return FAIL(c, "key '%s': memif link '%s' has only one end (%s)", e[i].key,
                        e[i].port->dev, lonely_hint[e[i].kind]);
        if (k == 3)
            return FAIL(c, "key '%s': memif link '%s' already joins %s and %s (a link has "
                        "exactly two ends)", e[at[2]].key, e[i].port->dev, e[at[0]].key,
                        e[at[1]].key);
        int rc = link_pair(c, &e[at[0]], &e[at[1]]);
        if (rc)
            return rc;
    }
    return 0;
}

/* Every SFC is fed by a readout and has a node. */
static int sfc_coverage(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;

    for (unsigned i = 0; i < s->n_sfcs; i++) {
        int fed = 0, served = 0;
        for (unsigned r = 0; r < s->n_readouts; r++)
            for (unsigned k = 0; k < s->readout[r].n_sfcs; k++)
                fed |= s->readout[r].sfc[k] == i;
        for (unsigned d = 0; d < s->n_nodes; d++)
            served |= s->node[d].sfc == i;
        if (!fed)
            return FAIL(c, "key 'sfcs[%u]': SFC '%s' is fed by no readout (name it in a "
                        "readout's sfcs)", i, s->sfc[i].p.name);
        if (!served)
            return FAIL(c, "key 'sfcs[%u]': SFC '%s' has no node (add a node with sfc: %s)", i,
                        s->sfc[i].p.name, s->sfc[i].p.name);
    }
    return 0;
}

/* The SFC's port toward node d: its sfc_port (the node's own memif link
 * when none is given), as the runner opens it. */
static const struct ff_port *sfc_side(const struct ff_node *d)
{
    return d->sfc_port.dev[0] ? &d->sfc_port : &d->port;
}

/* 1 when node i is the first of SFC k's nodes to need the port it reaches
 * the SFC on: a memif link is the node's own, a switch port may be shared. */
static int new_port(const struct farm_spec *s, unsigned k, unsigned i)
{
    const struct ff_port *pt = sfc_side(&s->node[i]);

    if (pt->kind == FF_PORT_MEMIF)
        return 1;
    for (unsigned j = 0; j < i; j++)
        if (s->node[j].sfc == k && sfc_side(&s->node[j])->kind == pt->kind &&
            strcmp(sfc_side(&s->node[j])->dev, pt->dev) == 0)
            return 0;
    return 1;
}

/* A node's port on the SFC's side is not the SFC's readout port: the SFC
 * receives fragments on that port and credits and acks on its node ports,
 * each read for its own kind of frame (ebfarm-sfc refuses the shape at
 * start: "node N shares the readout port"). */
static int sfc_ports_apart(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;

    for (unsigned i = 0; i < s->n_nodes; i++) {
        const struct ff_port *pt = sfc_side(&s->node[i]), *ro = &s->sfc[s->node[i].sfc].port;
        if (pt->kind != FF_PORT_MEMIF && pt->kind == ro->kind && strcmp(pt->dev, ro->dev) == 0)
            return FAIL(c, "key 'nodes[%u].sfc_port': \"%s\" is the readout port of SFC "
                        "'%s' (sfcs[%u].port); an SFC takes fragments on its readout port and "
                        "credits on its node ports: give the nodes another port of the SFC's "
                        "host", i, pt->dev, s->sfc[s->node[i].sfc].p.name, s->node[i].sfc);
    }
    return 0;
}

/* An SFC opens its own port and one per distinct port toward its nodes;
 * one process opens at most EBF_PORTS_MAX (DPDK's RTE_MAX_ETHPORTS), or
 * the SFC would fail at start. Refused here, naming the node that is one
 * too many. */
static int sfc_ports(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    const uint64_t max = EBF_PARAM(PORTS)->max;

    for (unsigned k = 0; k < s->n_sfcs; k++) {
        unsigned ports = 1, nodes = 0, w = ff_sfc_workers(&s->sfc[k]);
        if (w > 1 && FF_MEMIF_PAIRS(&s->sfc[k].port)) {  /* a link per readout and worker */
            ports = 0;
            for (unsigned r = 0; r < s->n_readouts; r++)
                for (unsigned i = 0; i < s->readout[r].n_sfcs; i++)
                    ports += s->readout[r].sfc[i] == k ? w : 0;
            if (ports > max)
                return FAIL(c, "key 'sfcs[%u].workers': SFC '%s' would open %u readout ports "
                            "(a link per readout and worker), more than the %u one process "
                            "can open (RTE_MAX_ETHPORTS)", k, s->sfc[k].p.name, ports,
                            (unsigned)max);
        }
        for (unsigned i = 0; i < s->n_nodes; i++) {
            if (s->node[i].sfc != k)
                continue;
            nodes++;
            ports += (unsigned)new_port(s, k, i);
            if (ports > max)
                return FAIL(c, "key 'nodes[%u]': SFC '%s' would open %u ports (its own and %u "
                            "toward its first %u nodes), more than the %u one process can open "
                            "(RTE_MAX_ETHPORTS); spread the nodes over more SFCs, or give "
                            "them one sfc_port behind a switch", i, s->sfc[k].p.name, ports,
                            ports - 1, nodes, (unsigned)max);
        }
    }
    return 0;
}

int ff_check_cross(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};
    struct end e[FF_MAX_READOUTS + FF_MAX_SFCS + 2 * FF_MAX_NODES];
    unsigned n = collect_ends(s, e);
    int rc;

    if ((rc = unique_names(&c)) || (rc = unique_ids(&c)) || (rc = unique_macs(&c)) ||
        (rc = unique_endpoints(&c)) || (rc = memif_links(&c, e, n)) ||
        (rc = sfc_ports_apart(&c)) || (rc = sfc_ports(&c)) || (rc = sfc_coverage(&c)))
        return rc;
    return 0;
}
