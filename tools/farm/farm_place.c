/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_place.c - the demo's CPU placement and idle policy per process (--cpus, --idle), checked and applied to a spec. */
#include "farm_place.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS_MAX 32

/* One WHO=VALUE item of a spec; who "" for a bare value (--idle spin). */
struct item {
    char who[FF_NAME_MAX];
    uint64_t cpus;               /* --cpus */
    enum ff_idle idle;           /* --idle */
};

static const char *const kinds[] = {[FARM_SFC] = "sfc", [FARM_NODE] = "node",
                                     [FARM_READOUT] = "readout"};

/* "N" or "N-M" into a mask; 0 when it is neither or past FARM_PLACE_CPUS. */
static uint64_t cpu_range(const char *s)
{
    char *end;
    unsigned long lo, hi;

    if (!isdigit((unsigned char)s[0]))
        return 0;
    lo = hi = strtoul(s, &end, 10);
    if (*end == '-' && isdigit((unsigned char)end[1]))
        hi = strtoul(end + 1, &end, 10);
    if (*end || lo > hi || hi >= FARM_PLACE_CPUS)
        return 0;
    uint64_t m = 0;
    for (unsigned long c = lo; c <= hi; c++)
        m |= 1ull << c;
    return m;
}

static int parse_value(struct item *it, const char *v, int idle, const char *opt, char *err,
                       size_t len)
{
    if (idle) {
        if (strcmp(v, "spin") == 0 || strcmp(v, "backoff") == 0) {
            it->idle = v[0] == 's' ? FF_IDLE_SPIN : FF_IDLE_BACKOFF;
            return 0;
        }
        snprintf(err, len, "%s: '%s' is not spin or backoff", opt, v);
        return -1;
    }
    if ((it->cpus = cpu_range(v)) != 0)
        return 0;
    snprintf(err, len, "%s: '%s' is not a CPU N or a range N-M of CPUs 0 to %d", opt, v,
             FARM_PLACE_CPUS - 1);
    return -1;
}

/* spec into it[0..*n): 0, or -1 with err. */
static int parse(const char *spec, int idle, struct item *it, unsigned *n, char *err, size_t len)
{
    const char *opt = idle ? "--idle" : "--cpus";
    char buf[FF_STR_MAX], *save = NULL;

    *n = 0;
    if (strlen(spec) >= sizeof(buf) || !spec[0]) {
        snprintf(err, len, "%s: give WHO=%s items (at most %zu characters)", opt,
                 idle ? "spin|backoff" : "CPUS", sizeof(buf) - 1);
        return -1;
    }
    snprintf(buf, sizeof(buf), "%s", spec);
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        struct item *x = &it[*n];
        if (*n == ITEMS_MAX || (!eq && !(idle && !strchr(spec, ',')))) {
            snprintf(err, len, "%s: '%s' is not WHO=%s (WHO: a process name, sfc, readout, "
                     "node or other)", opt, tok, idle ? "spin|backoff" : "CPUS");
            return -1;
        }
        memset(x, 0, sizeof(*x));
        if (eq) {
            *eq = '\0';
            if (!tok[0] || strlen(tok) >= sizeof(x->who)) {
                snprintf(err, len, "%s: an item has no process name, kind or 'other' before "
                         "'='", opt);
                return -1;
            }
            snprintf(x->who, sizeof(x->who), "%s", tok);
        }
        if (parse_value(x, eq ? eq + 1 : tok, idle, opt, err, len) != 0)
            return -1;
        (*n)++;
    }
    return 0;
}

int farm_place_check(const char *spec, int idle, char *err, size_t len)
{
    struct item it[ITEMS_MAX];
    unsigned n;

    return parse(spec, idle, it, &n, err, len);
}

/* The process of s at index i over readouts, SFCs, nodes; NULL past them. */
static struct ff_proc *proc_at(struct farm_spec *s, unsigned i, enum farm_role *role)
{
    if (i < s->n_readouts) {
        *role = FARM_READOUT;
        return &s->readout[i].p;
    }
    i -= s->n_readouts;
    if (i < s->n_sfcs) {
        *role = FARM_SFC;
        return &s->sfc[i].p;
    }
    i -= s->n_sfcs;
    *role = FARM_NODE;
    return i < s->n_nodes ? &s->node[i].p : NULL;
}

/* Which item applies to p: its name, else its kind, else "other" (or a
 * bare value); NULL for none. */
static const struct item *item_for(const struct item *it, unsigned n, const struct ff_proc *p,
                                   enum farm_role role)
{
    const char *order[] = {p->name, kinds[role], "other", ""};

    for (unsigned o = 0; o < 4; o++)
        for (unsigned i = 0; i < n; i++)
            if (strcmp(it[i].who, order[o]) == 0)
                return &it[i];
    return NULL;
}

/* Every item's WHO names a process or kind of s, or is "other" or "". */
static int check_names(struct farm_spec *s, const struct item *it, unsigned n, const char *opt,
                       char *err, size_t len)
{
    for (unsigned i = 0; i < n; i++) {
        int found = !it[i].who[0] || !strcmp(it[i].who, "other");
        enum farm_role role;
        for (unsigned k = 0; k < 3; k++)
            found |= strcmp(it[i].who, kinds[k]) == 0;
        for (unsigned k = 0; !found && proc_at(s, k, &role); k++)
            found = strcmp(proc_at(s, k, &role)->name, it[i].who) == 0;
        if (!found) {
            snprintf(err, len, "%s: '%s' is no process of the farm, nor sfc, readout, node or "
                     "other", opt, it[i].who);
            return -1;
        }
    }
    return 0;
}

/* The CPUs of "other": its item's, else the online ones no item names
 * (every online one when the items name them all). */
static uint64_t other_cpus(const struct item *it, unsigned n, uint64_t online)
{
    uint64_t named = 0;

    for (unsigned i = 0; i < n; i++) {
        if (strcmp(it[i].who, "other") == 0)
            return it[i].cpus;
        named |= it[i].cpus;
    }
    return (online & ~named) ? online & ~named : online;
}

static int apply_cpus(const char *spec, uint64_t online, struct farm_spec *s, char *err,
                      size_t len)
{
    struct item it[ITEMS_MAX];
    unsigned n;
    enum farm_role role;

    if (parse(spec, 0, it, &n, err, len) || check_names(s, it, n, "--cpus", err, len))
        return -1;
    for (unsigned i = 0; i < n; i++)
        if (it[i].cpus & ~online) {
            char have[256];
            farm_place_list(online, have, sizeof(have));
            snprintf(err, len, "--cpus: %s names a CPU this machine does not give us (online: "
                     "%s)", it[i].who, have);
            return -1;
        }
    uint64_t other = other_cpus(it, n, online);
    struct ff_proc *p;
    for (unsigned k = 0; (p = proc_at(s, k, &role)) != NULL; k++) {
        const struct item *x = item_for(it, n, p, role);
        p->cpus = x ? x->cpus : other;
        p->start_cpus = p->cpus | other;
    }
    return 0;
}

static int apply_idle(const char *spec, struct farm_spec *s, char *err, size_t len)
{
    struct item it[ITEMS_MAX];
    unsigned n;
    enum farm_role role;
    struct ff_proc *p;

    if (parse(spec, 1, it, &n, err, len) || check_names(s, it, n, "--idle", err, len))
        return -1;
    for (unsigned k = 0; (p = proc_at(s, k, &role)) != NULL; k++) {
        const struct item *x = item_for(it, n, p, role);
        if (x)
            p->idle = x->idle;
    }
    return 0;
}

int farm_place_apply(const struct farm_conf *c, uint64_t online, struct farm_spec *s, char *err,
                     size_t len)
{
    if (c->cpus[0] && apply_cpus(c->cpus, online, s, err, len))
        return -1;
    return c->idle[0] ? apply_idle(c->idle, s, err, len) : 0;
}

uint64_t farm_place_online(void)
{
    cpu_set_t set;
    uint64_t m = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    for (int c = 0; c < FARM_PLACE_CPUS; c++)
        if (CPU_ISSET(c, &set))
            m |= 1ull << c;
    return m;
}

void farm_place_list(uint64_t mask, char *buf, size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int c = 0; c < FARM_PLACE_CPUS && o < len; c++) {
        if (!(mask >> c & 1) || (c > 0 && mask >> (c - 1) & 1))
            continue;
        int e = c;
        while (e + 1 < FARM_PLACE_CPUS && mask >> (e + 1) & 1)
            e++;
        o += (size_t)snprintf(buf + o, len - o, e > c ? "%s%d-%d" : "%s%d", o ? "," : "", c, e);
    }
}
