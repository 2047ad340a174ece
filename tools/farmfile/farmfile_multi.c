/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_multi.c - a farm of several readouts and SFCs: one SFC list, sources per readout, memif links per pair. */
#include "farmfile_multi.h"

#include <stdio.h>
#include <string.h>

#include "farmfile_value.h"

void ff_readout_sources(const struct farm_spec *s, unsigned i, uint16_t *first, uint16_t *count)
{
    unsigned n = s->n_readouts ? s->n_readouts : 1;

    *count = (uint16_t)(s->run.sources / n);
    *first = (uint16_t)(i * *count);
}

void ff_pair_link(const struct farm_spec *s, unsigned r, unsigned k, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%s", s->readout[r].p.name, s->sfc[k].p.name);
}

void ff_worker_link(const struct farm_spec *s, unsigned r, unsigned k, unsigned w, char *buf,
                    size_t len)
{
    if (w == 0)
        ff_pair_link(s, r, k, buf, len);
    else
        snprintf(buf, len, "%s-%s-w%u", s->readout[r].p.name, s->sfc[k].p.name, w);
}

void ff_worker_mac(const struct farm_spec *s, unsigned k, unsigned w, uint8_t mac[6])
{
    memcpy(mac, s->sfc[k].mac, 6);
    mac[3] = (uint8_t)(mac[3] + w);
}

int ff_hosts_share_clock(const struct farm_spec *s, unsigned a, unsigned b)
{
    if (a == b)
        return 1;
    if (a >= s->n_hosts || b >= s->n_hosts)
        return 0;
    const struct ff_host *x = &s->host[a], *y = &s->host[b];
    if (x->kind != FF_HOST_SSH && y->kind != FF_HOST_SSH)
        return 1;
    return x->kind == FF_HOST_SSH && y->kind == FF_HOST_SSH &&
           strcmp(x->address, y->address) == 0;
}

int ff_sfc_readouts_apart(const struct farm_spec *s, unsigned k)
{
    for (unsigned r = 0; r < s->n_readouts; r++)
        for (unsigned j = 0; j < s->readout[r].n_sfcs; j++)
            if (s->readout[r].sfc[j] == k &&
                !ff_hosts_share_clock(s, s->readout[r].p.host, s->sfc[k].p.host))
                return 1;
    return 0;
}

int ff_node_readouts_apart(const struct farm_spec *s, unsigned j)
{
    const struct ff_node *n = &s->node[j];

    for (unsigned r = 0; r < s->n_readouts; r++)
        for (unsigned k = 0; k < s->readout[r].n_sfcs; k++)
            if (s->readout[r].sfc[k] == n->sfc &&
                !ff_hosts_share_clock(s, s->readout[r].p.host, n->p.host))
                return 1;
    return 0;
}

/* "[a, b]": the names of readout r's SFCs. */
static const char *sfc_list(const struct farm_spec *s, unsigned r, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "[");

    for (unsigned k = 0; k < s->readout[r].n_sfcs && o < len; k++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ", " : "",
                              s->sfc[s->readout[r].sfc[k]].p.name);
    if (o < len)
        snprintf(buf + o, len - o, "]");
    return buf;
}

/* Every readout lists the SFCs of readouts[0], in its order. */
static int same_sfcs(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    const struct ff_readout *a = &s->readout[0];
    char la[FF_MAX_SFCS * (FF_NAME_MAX + 2) + 4], lb[sizeof(la)];

    for (unsigned r = 1; r < s->n_readouts; r++) {
        const struct ff_readout *b = &s->readout[r];
        if (b->n_sfcs == a->n_sfcs && !memcmp(b->sfc, a->sfc, a->n_sfcs * sizeof(a->sfc[0])))
            continue;
        return FAIL(c, "key 'readouts[%u].sfcs': %s is not readouts[0].sfcs %s (every readout "
                    "sends event e to the SFC sfcs[e %% count], so all list the same SFCs in "
                    "the same order)", r, sfc_list(s, r, lb, sizeof(lb)),
                    sfc_list(s, 0, la, sizeof(la)));
    }
    return 0;
}

static int sources_split(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;

    if (s->run.sources % s->n_readouts == 0)
        return 0;
    return FAIL(c, "key 'run.sources': %u sources do not split evenly over the %u readouts "
                "(each sends run.sources / readouts of every event: give a multiple of %u)",
                s->run.sources, s->n_readouts, s->n_readouts);
}

/* Bare memif on a readout: each of its SFCs has it too, on the same host. */
static int readout_pairs(struct ff_chk *c, unsigned r)
{
    const struct farm_spec *s = c->s;
    const struct ff_readout *ro = &s->readout[r];
    char link[2 * FF_NAME_MAX + 2], buf[FF_STR_MAX + 8];

    for (unsigned i = 0; i < ro->n_sfcs; i++) {
        const struct ff_sfc *x = &s->sfc[ro->sfc[i]];
        if (!FF_MEMIF_PAIRS(&x->port))
            return FAIL(c, "key 'readouts[%u].port': memif (a link per SFC) needs port memif "
                        "on each of its SFCs too, and sfcs[%u] (%s) has \"%s\"", r, ro->sfc[i],
                        x->p.name, ff_port_str(&x->port, buf, sizeof(buf)));
        if (x->p.host != ro->p.host) {
            ff_pair_link(s, r, ro->sfc[i], link, sizeof(link));
            return FAIL(c, "key 'readouts[%u].port': memif link '%s' would join %s on host "
                        "'%s' and %s on host '%s' (a memif link joins two processes of one "
                        "host; between hosts use a NIC or a vdev such as "
                        "net_af_packet0,iface=eth0)", r, link, ro->p.name,
                        s->host[ro->p.host].name, x->p.name, s->host[x->p.host].name);
        }
    }
    return 0;
}

/* Bare memif on an SFC: each readout feeding it has it too. */
static int sfc_pairs(struct ff_chk *c, unsigned k)
{
    const struct farm_spec *s = c->s;
    char buf[FF_STR_MAX + 8];

    for (unsigned r = 0; r < s->n_readouts; r++)
        for (unsigned i = 0; i < s->readout[r].n_sfcs; i++)
            if (s->readout[r].sfc[i] == k && !FF_MEMIF_PAIRS(&s->readout[r].port))
                return FAIL(c, "key 'sfcs[%u].port': memif (a link per readout) needs port "
                            "memif on each readout that feeds it too, and readouts[%u] (%s) has "
                            "\"%s\"", k, r, s->readout[r].p.name,
                            ff_port_str(&s->readout[r].port, buf, sizeof(buf)));
    return 0;
}

static int memif_pairs(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    int rc;

    for (unsigned i = 0; i < s->n_nodes; i++)
        if (FF_MEMIF_PAIRS(&s->node[i].port) || FF_MEMIF_PAIRS(&s->node[i].sfc_port))
            return FAIL(c, "key 'nodes[%u].%s': memif without a link is for readouts and SFCs "
                        "(a link per pair); a node names its own: memif:LINK", i,
                        FF_MEMIF_PAIRS(&s->node[i].port) ? "port" : "sfc_port");
    for (unsigned r = 0; r < s->n_readouts; r++)
        if (FF_MEMIF_PAIRS(&s->readout[r].port) && (rc = readout_pairs(c, r)))
            return rc;
    for (unsigned k = 0; k < s->n_sfcs; k++)
        if (FF_MEMIF_PAIRS(&s->sfc[k].port) && (rc = sfc_pairs(c, k)))
            return rc;
    return 0;
}

/* The readouts' places: at most FF_READOUT_PLACES_MAX SFC workers. */
#define FF_READOUT_PLACES_MAX 64

/* The distinct ports SFC k opens toward its nodes: a memif link each, the
 * other kinds once per device (nodes behind one switch port). */
static unsigned node_ports(const struct farm_spec *s, unsigned k)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->n_nodes; i++) {
        const struct ff_port *pt = &s->node[i].sfc_port;
        int seen = 0;
        if (s->node[i].sfc != k)
            continue;
        for (unsigned j = 0; j < i && pt->kind != FF_PORT_MEMIF && !seen; j++)
            seen = s->node[j].sfc == k && s->node[j].sfc_port.kind == pt->kind &&
                   strcmp(s->node[j].sfc_port.dev, pt->dev) == 0;
        n += !seen;
    }
    return n;
}

/* SFC k with workers: no failover (release frames come from worker 0
 * only); a node per worker, on a node port each or all on one port the
 * workers share; the same workers as every SFC the readouts list beside it. Its readout side is bare memif (a link per readout and
 * worker) or one port the workers share (sfc_dist.h). */
static int sfc_workers(struct ff_chk *c, unsigned k)
{
    const struct farm_spec *s = c->s;
    const struct ff_sfc *x = &s->sfc[k];
    unsigned w = ff_sfc_workers(x), nodes = 0, np = node_ports(s, k);

    if (w == 1)
        return 0;
    if (s->run.replay_mb)
        return FAIL(c, "key 'sfcs[%u].workers': %u workers with failover on (run.replay_mb "
                    "%u): only an SFC's worker 0 sends release frames, so the readouts would "
                    "never free the other workers' events; remove sfcs[%u].workers (one "
                    "worker) or run.replay_mb (no failover)", k, w, s->run.replay_mb, k);
    for (unsigned i = 0; i < s->n_nodes; i++)
        nodes += s->node[i].sfc == k;
    if (nodes < w)
        return FAIL(c, "key 'sfcs[%u].workers': %u workers and %u node%s: each worker serves "
                    "nodes of its own (the SFC's node i goes to worker i %% %u); give the SFC "
                    "%u nodes at least", k, w, nodes, nodes == 1 ? "" : "s", w, w);
    if (np > 1 && np < w)
        return FAIL(c, "key 'sfcs[%u].workers': %u workers and %u distinct node ports: each "
                    "worker serves the nodes of its own node ports (port q to worker q %% %u); "
                    "give every worker one (a memif link per node), or put every node on one "
                    "sfc_port the workers share", k, w, np, w);
    for (unsigned r = 0; r < s->n_readouts; r++) {
        const struct ff_readout *ro = &s->readout[r];
        for (unsigned i = 0; i < ro->n_sfcs; i++)
            if (ff_sfc_workers(&s->sfc[ro->sfc[i]]) != w)
                return FAIL(c, "key 'sfcs[%u].workers': %u, but %s has %u and readouts[%u] "
                            "(%s) lists both: a readout spreads events over SFCs, then over "
                            "their workers, and needs the same workers on each", k, w,
                            s->sfc[ro->sfc[i]].p.name, ff_sfc_workers(&s->sfc[ro->sfc[i]]),
                            r, ro->p.name);
        if (ro->n_sfcs * w > FF_READOUT_PLACES_MAX)
            return FAIL(c, "key 'sfcs[%u].workers': readouts[%u] (%s) would send to %u SFCs "
                        "of %u workers, %u places, more than the %u a readout takes", k, r,
                        ro->p.name, ro->n_sfcs, w, ro->n_sfcs * w, FF_READOUT_PLACES_MAX);
    }
    return 0;
}

int ff_check_multi(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};
    int rc;

    for (unsigned k = 0; k < s->n_sfcs; k++)
        if ((rc = sfc_workers(&c, k)))
            return rc;
    if ((rc = same_sfcs(&c)) || (rc = sources_split(&c)) || (rc = memif_pairs(&c)))
        return rc;
    return 0;
}
