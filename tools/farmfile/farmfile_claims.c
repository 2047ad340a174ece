/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_claims.c - what the processes of one host may not share: CPUs, ports, memif links. */
#include "farmfile_claims.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "farmfile_cross.h"
#include "farmfile_hosts.h"
#include "farmfile_value.h"

#define N_PROCS (FF_MAX_READOUTS + FF_MAX_SFCS + FF_MAX_NODES)

/* --- CPUs of an lcores value ----------------------------------------------- */

struct cpuset {
    uint64_t w[FF_CPUS_MAX / 64];
};

/* A CPU number at *p: 0, -EINVAL (none there) or -ERANGE (*v too large). */
static int cpu_num(const char **p, unsigned *v)
{
    unsigned long n = 0;

    if (!isdigit((unsigned char)**p))
        return -EINVAL;
    for (; isdigit((unsigned char)**p); (*p)++)
        if ((n = n * 10 + (unsigned long)(**p - '0')) > 999999)
            n = 999999;
    *v = (unsigned)n;
    return n < FF_CPUS_MAX ? 0 : -ERANGE;
}

/* "A" or "A-B" at *p into set; *bad receives a number out of range. */
static int cpu_range(const char **p, struct cpuset *set, unsigned *bad)
{
    unsigned a, b;
    int rc;

    *bad = 0;
    if ((rc = cpu_num(p, &a))) {
        *bad = a;
        return rc;
    }
    b = a;
    if (**p == '-') {
        (*p)++;
        if ((rc = cpu_num(p, &b))) {
            *bad = b;
            return rc;
        }
        if (b < a)
            return -EINVAL;
    }
    for (unsigned x = a; x <= b; x++)
        set->w[x / 64] |= 1ull << (x % 64);
    return 0;
}

/* A range, or ranges in parentheses separated by commas. */
static int cpu_group(const char **p, struct cpuset *set, unsigned *bad)
{
    int rc;

    if (**p != '(')
        return cpu_range(p, set, bad);
    for ((*p)++;; (*p)++) {
        if ((rc = cpu_range(p, set, bad)))
            return rc;
        if (**p == ')') {
            (*p)++;
            return 0;
        }
        if (**p != ',')
            return -EINVAL;
    }
}

/* The CPUs an EAL --lcores value runs on: each element LCORES@CPUS runs on
 * CPUS, an element without '@' on the CPUs numbered LCORES; "auto" claims
 * none. 0, -EINVAL (not such a value) or -ERANGE (*bad too large). */
static int lcores_cpus(const char *s, struct cpuset *cpus, unsigned *bad)
{
    const char *p = s;
    int rc;

    memset(cpus, 0, sizeof(*cpus));
    if (!strcmp(s, "auto"))
        return 0;
    for (;; p++) {
        struct cpuset lc = {{0}}, at = {{0}};
        int pinned;
        if ((rc = cpu_group(&p, &lc, bad)))
            return rc;
        if ((pinned = *p == '@') && (p++, rc = cpu_group(&p, &at, bad)))
            return rc;
        for (unsigned k = 0; k < FF_CPUS_MAX / 64; k++)
            cpus->w[k] |= pinned ? at.w[k] : lc.w[k];
        if (*p != ',')
            return *p == '\0' ? 0 : -EINVAL;
    }
}

/* The lowest CPU in both a and b, or -1. */
static int first_common(const struct cpuset *a, const struct cpuset *b)
{
    for (unsigned k = 0; k < FF_CPUS_MAX / 64; k++)
        if (a->w[k] & b->w[k])
            return (int)(k * 64 + (unsigned)__builtin_ctzll(a->w[k] & b->w[k]));
    return -1;
}

/* No CPU claimed by two processes of one host. */
static int check_cpus(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    struct cpuset set[N_PROCS];
    char kg[FF_KEY_MAX], kh[FF_KEY_MAX];
    unsigned bad;
    int rc, cpu;

    for (unsigned g = 0; g < ff_n_procs(s); g++) {
        const struct ff_proc *p = ff_proc_at(s, g, kg);
        if ((rc = lcores_cpus(p->lcores, &set[g], &bad)) == -ERANGE)
            return FAIL(c, "key '%s.lcores': \"%s\" names CPU %u (CPUs are 0 to %d)", kg,
                        p->lcores, bad, FF_CPUS_MAX - 1);
        if (rc)
            return FAIL(c, "key '%s.lcores': \"%s\" is not %s", kg, p->lcores, FF_HINT_LCORES);
        for (unsigned h = 0; h < g; h++) {
            const struct ff_proc *q = ff_proc_at(s, h, kh);
            if (q->host != p->host || (cpu = first_common(&set[g], &set[h])) < 0)
                continue;
            return FAIL(c, "key '%s.lcores': \"%s\" puts %s on CPU %d of host '%s', which %s "
                        "has too (%s.lcores \"%s\"; give each process of a host CPUs of its "
                        "own)", kg, p->lcores, p->name, cpu, s->host[p->host].name, q->name, kh,
                        q->lcores);
        }
    }
    return 0;
}

/* --- Ports ----------------------------------------------------------------- */

/* A port of a process: its owner (a node's sfc_port is its SFC's). */
struct use {
    const struct ff_port *port;
    unsigned owner;
    char key[FF_KEY_MAX + 16];
};

static unsigned collect_uses(const struct farm_spec *s, struct use *u)
{
    unsigned n = 0, nr = s->n_readouts, ns = s->n_sfcs;

    for (unsigned i = 0; i < nr; i++, n++) {
        u[n] = (struct use){.port = &s->readout[i].port, .owner = i};
        snprintf(u[n].key, sizeof(u[n].key), "readouts[%u].port", i);
    }
    for (unsigned i = 0; i < ns; i++, n++) {
        u[n] = (struct use){.port = &s->sfc[i].port, .owner = nr + i};
        snprintf(u[n].key, sizeof(u[n].key), "sfcs[%u].port", i);
    }
    for (unsigned i = 0; i < s->n_nodes; i++) {
        u[n] = (struct use){.port = &s->node[i].port, .owner = nr + ns + i};
        snprintf(u[n++].key, sizeof(u[0].key), "nodes[%u].port", i);
        u[n] = (struct use){.port = &s->node[i].sfc_port, .owner = nr + s->node[i].sfc};
        snprintf(u[n++].key, sizeof(u[0].key), "nodes[%u].sfc_port", i);
    }
    return n;
}

/* The next kernel interface a vdev's arguments name (a key ending in
 * "iface") after *at, into name; 0 when there is none. */
static int next_iface(const char **at, char *name, size_t len)
{
    const char *p = *at;

    while ((p = strchr(p, ','))) {
        const char *eq = strchr(++p, '='), *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end || eq - p < 5 || strncmp(eq - 5, "iface", 5) != 0)
            continue;
        snprintf(name, len, "%.*s", (int)(end - eq - 1), eq + 1);
        *at = end;
        return 1;
    }
    return 0;
}

/* What ports a and b both take, into what ("PCI device ...", "interface
 * 'x'"); 0 when they share nothing. memif links are joined, not claimed. */
static int same_claim(const struct ff_port *a, const struct ff_port *b, char *what, size_t len)
{
    char ia[FF_STR_MAX], ib[FF_STR_MAX];

    if (a->kind != b->kind || a->kind == FF_PORT_MEMIF)
        return 0;
    if (a->kind == FF_PORT_PCI) {
        snprintf(what, len, "PCI device %s", a->dev);
        return !strcmp(a->dev, b->dev);
    }
    for (const char *pa = a->dev; next_iface(&pa, ia, sizeof(ia));)
        for (const char *pb = b->dev; next_iface(&pb, ib, sizeof(ib));)
            if (!strcmp(ia, ib)) {
                snprintf(what, len, "interface '%s'", ia);
                return 1;
            }
    return 0;
}

/* The host of process g. */
static unsigned host_of(const struct farm_spec *s, unsigned g)
{
    char key[FF_KEY_MAX];

    return ff_proc_at(s, g, key)->host;
}

static const char *name_of(const struct farm_spec *s, unsigned g)
{
    char key[FF_KEY_MAX];

    return ff_proc_at(s, g, key)->name;
}

/* No port taken by two processes of one host; memif links on one host. */
static int check_ports(struct ff_chk *c)
{
    const struct farm_spec *s = c->s;
    struct use u[FF_MAX_READOUTS + FF_MAX_SFCS + 2 * FF_MAX_NODES];
    unsigned n = collect_uses(s, u);
    char what[FF_STR_MAX + 32];

    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < i; j++) {
            unsigned hi = host_of(s, u[i].owner), hj = host_of(s, u[j].owner);
            const struct ff_port *a = u[i].port, *b = u[j].port;
            if (a->kind == FF_PORT_MEMIF && b->kind == FF_PORT_MEMIF && hi != hj &&
                a->dev[0] && !strcmp(a->dev, b->dev))
                return FAIL(c, "key '%s': memif link '%s' joins %s on host '%s' and %s on host "
                            "'%s' (a memif link joins two processes of one host; between hosts "
                            "use a NIC or a vdev such as net_af_packet0,iface=eth0)", u[i].key,
                            a->dev, name_of(s, u[i].owner), s->host[hi].name,
                            name_of(s, u[j].owner), s->host[hj].name);
            if (hi != hj || u[i].owner == u[j].owner || !same_claim(a, b, what, sizeof(what)))
                continue;
            return FAIL(c, "key '%s': %s and %s (%s) both take %s on host '%s' (a port belongs "
                        "to one process of its host)", u[i].key, name_of(s, u[i].owner),
                        name_of(s, u[j].owner), u[j].key, what, s->host[hi].name);
        }
    return 0;
}

int ff_check_claims(const struct farm_spec *s, const char *where, char *err, size_t errlen)
{
    struct ff_chk c = {.s = s, .where = where, .err = err, .errlen = errlen};
    int rc;

    if ((rc = check_cpus(&c)) || (rc = check_ports(&c)))
        return rc;
    return 0;
}
