/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_sample.c - a farm's totals at one moment of a soak, summed from every process's metrics snapshot. */
#include "soak_sample.h"

#include <stdio.h>
#include <string.h>

#include "acct.h"
#include "ebf_idset.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

static const struct {
    const char *key, *component, *metric;
    int clocks;                  /* 1: readout's clock against this process's */
} hists[SOAK_H_MAX] = {
#define SOAK_H_DEF(id, key, comp, metric, clocks) {key, comp, metric, clocks},
    SOAK_FOREACH_HIST(SOAK_H_DEF)
#undef SOAK_H_DEF
};

const char *soak_hist_key(enum soak_hist_id h)
{
    return h < SOAK_H_MAX ? hists[h].key : "?";
}

int soak_counts_add(struct soak_counts *c, const char *name, uint64_t v)
{
    for (unsigned i = 0; i < c->n; i++)
        if (strcmp(c->c[i].name, name) == 0) {
            c->c[i].v += v;
            return 0;
        }
    if (c->n == SOAK_MAX_COUNTS)
        return -1;
    snprintf(c->c[c->n].name, sizeof(c->c[0].name), "%s", name);
    c->c[c->n++].v = v;
    return 0;
}

uint64_t soak_counts_get(const struct soak_counts *c, const char *name)
{
    for (unsigned i = 0; i < c->n; i++)
        if (strcmp(c->c[i].name, name) == 0)
            return c->c[i].v;
    return 0;
}

uint64_t soak_counts_sum(const struct soak_counts *c, const char *prefix)
{
    size_t len = strlen(prefix);
    uint64_t v = 0;

    for (unsigned i = 0; i < c->n; i++)
        if (strncmp(c->c[i].name, prefix, len) == 0)
            v += c->c[i].v;
    return v;
}

/* Every counter of name in s into out as "<as>.<label value>". */
static int by_label(struct soak_counts *out, const Ebfarm__Snapshot *s, const char *name,
                    const char *as)
{
    char key[SOAK_NAME_MAX];
    int rc = 0;

    for (size_t i = 0; i < s->n_counters; i++) {
        const Ebfarm__Counter *c = s->counters[i];
        if (strcmp(c->name, name) != 0 || c->n_labels == 0)
            continue;
        snprintf(key, sizeof(key), "%s.%s", as, c->labels[0]->value);
        rc |= soak_counts_add(out, key, c->value);
    }
    return rc;
}

static int one(struct soak_counts *out, const Ebfarm__Snapshot *s, const char *name,
               const char *as)
{
    return soak_counts_add(out, as, ebf_pb_counter(s, name, NULL, 0));
}

/* The ids an id record of s holds (its partition 0's cells: the counter
 * "<name>.count" by cell; docs/protocol.md 12), as "<as>". */
static int record(struct soak_counts *out, const Ebfarm__Snapshot *s, const char *name,
                  const char *as)
{
    char key[SOAK_NAME_MAX], cell[8];
    uint64_t n = 0;

    snprintf(key, sizeof(key), "%s.count", name);
    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++) {
        snprintf(cell, sizeof(cell), "%u", c);
        n += ebf_pb_counter(s, key, cell, 0);
    }
    return soak_counts_add(out, as, n);
}

/* The counts a process of this component contributes, from its snapshot:
 * the farm's totals as the accounting reads them (acct_part_pb: generated,
 * frames, lost.withheld; an SFC's acks, accepted, rejected, and
 * lost.<reason>; a node's own accepted, rejected), then the sample's own. */
static int counts_of(const char *component, const Ebfarm__Snapshot *s, struct soak_counts *out)
{
    struct acct_part a;
    char key[SOAK_NAME_MAX];
    int rc = 0, role = acct_role_of(component);

    memset(out, 0, sizeof(*out));
    acct_part_init(&a, role < 0 ? ACCT_NODE : (enum acct_role)role, "", -1);
    acct_part_pb(&a, s);
    if (role == ACCT_READOUT) {
        rc |= soak_counts_add(out, "generated", a.generated);
        rc |= soak_counts_add(out, "frames", a.frames);
        rc |= one(out, s, RO_NAME(THROTTLE_HELD_NS), "throttle_held_ns");
        rc |= soak_counts_add(out, "lost.withheld", a.withheld);
        rc |= one(out, s, RO_NAME(FO_DEATHS), SOAK_FO_DEATHS);
        rc |= one(out, s, RO_NAME(FO_RECOVERIES), SOAK_FO_RECOVERIES);
        rc |= one(out, s, RO_NAME(REPLAY_REPLAYED), SOAK_FO_REPLAYED);
    } else if (role == ACCT_SFC) {
        rc |= soak_counts_add(out, "accepted", a.accepted);
        rc |= soak_counts_add(out, "rejected", a.rejected);
        rc |= one(out, s, SFC_NAME(EVENTS_INCOMPLETE), "incomplete");
        rc |= one(out, s, SFC_NAME(RX_FRAMES), "sfc_frames");
        rc |= one(out, s, SFC_NAME(NODE_REDISPATCHED), "redispatched");
        rc |= one(out, s, SFC_NAME(NODE_DECLARED_DEAD), "nodes_dead");
        rc |= one(out, s, SFC_NAME(NODE_REJOINS), "rejoins");
        rc |= one(out, s, SFC_NAME(THROTTLE_ON), "throttle_on");
        rc |= record(out, s, SFC_NAME(LEDGER_FENCE_ACKED), SOAK_FO_REDECIDED);
        for (unsigned i = 0; i < a.n_lost; i++) {
            snprintf(key, sizeof(key), "lost.%s", a.lost_name[i]);
            rc |= soak_counts_add(out, key, a.lost[i]);
        }
        rc |= by_label(out, s, SFC_NAME(RX_REJECT), "reject");
        rc |= by_label(out, s, SFC_NAME(RX_DROP), "drop");
        rc |= by_label(out, s, SFC_NAME(MISSING_SOURCE), "missing");
    } else if (role == ACCT_NODE) {
        /* Its own decisions: they stand in for a dead SFC's acks. */
        rc |= soak_counts_add(out, "accepted", a.accepted);
        rc |= soak_counts_add(out, "rejected", a.rejected);
        rc |= one(out, s, NODE_NAME(EVENTS), "node_events");
        rc |= by_label(out, s, NODE_NAME(RX_REJECT), "node_reject");
        rc |= by_label(out, s, NODE_NAME(VERIFY), "verify");
        rc |= record(out, s, NODE_NAME(LEDGER_AFTER), SOAK_FO_REDECIDED);
    }
    return rc;
}

/* 1 for the counts the farm's accounting combines (acct.h) rather than
 * the sample summing them: generated, accepted, rejected, lost.<reason>. */
static int acct_owned(const char *name)
{
    return strcmp(name, "generated") == 0 || strcmp(name, "accepted") == 0 ||
           strcmp(name, "rejected") == 0 || strncmp(name, "lost.", 5) == 0;
}

/* Whether now went below was in any count: the process started counting again. */
static int went_down(const struct soak_counts *was, const struct soak_counts *now)
{
    for (unsigned i = 0; i < was->n; i++)
        if (soak_counts_get(now, was->c[i].name) < was->c[i].v)
            return 1;
    return 0;
}

static void hist_zero(struct ebf_hist *h)
{
    memset(h, 0, sizeof(*h));
}

/* h += from, min and max included (an empty from changes nothing). */
static void hist_add(struct ebf_hist *h, const struct ebf_hist *from)
{
    if (!from->count)
        return;
    if (!h->count || from->min < h->min)
        h->min = from->min;
    if (from->max > h->max)
        h->max = from->max;
    h->count += from->count;
    h->sum += from->sum;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
        h->bucket[b] += from->bucket[b];
}

/* Process p's newest snapshot s taken into its accumulator. */
static int acc_take(struct soak_acc_proc *p, const char *component, const Ebfarm__Snapshot *s)
{
    struct soak_counts now;
    struct ebf_hist h[SOAK_H_MAX];
    int rc = counts_of(component, s, &now);
    double epoch = ebf_pb_gauge(s, NODE_NAME(EPOCH), NULL, -1);

    for (unsigned k = 0; k < SOAK_H_MAX; k++) {
        const Ebfarm__Histogram *pb =
            strcmp(component, hists[k].component) == 0 ? ebf_pb_find_hist(s, hists[k].metric) : NULL;
        hist_zero(&h[k]);
        if (pb && ebf_pb_hist(pb, &h[k]) != 0)
            hist_zero(&h[k]);
    }
    int restarted = p->seen && (went_down(&p->last, &now) || s->run_number != p->run ||
                                (strcmp(component, "node") == 0 && epoch != p->epoch));
    if (restarted) {
        for (unsigned i = 0; i < p->last.n; i++)
            rc |= soak_counts_add(&p->base, p->last.c[i].name, p->last.c[i].v);
        for (unsigned k = 0; k < SOAK_H_MAX; k++)
            hist_add(&p->hbase[k], &p->hlast[k]);
        p->restarts++;
    }
    p->last = now;
    memcpy(p->hlast, h, sizeof(h));
    p->epoch = epoch;
    p->run = s->run_number;
    p->seen = 1;
    return rc;
}

void soak_acc_init(struct soak_acc *a, unsigned n)
{
    memset(a, 0, sizeof(*a));
    a->n = n;
}

/* Levels of process s (component) added to the sample. */
static void levels(struct soak_sample *out, const char *component, const Ebfarm__Snapshot *s,
                   struct soak_mem *m)
{
    for (size_t i = 0; i < s->n_gauges; i++) {
        const Ebfarm__Gauge *g = s->gauges[i];
        if (strcmp(g->name, "mempool_in_use") == 0)
            m->mempool += g->value;
        else if (strcmp(g->name, EBF_METRIC_RSS_BYTES) == 0 && g->value >= 0 && m->pid)
            m->rss_kb = (uint64_t)(g->value / 1024.0);     /* its own figure, any host */
        if (strcmp(component, "sfc") != 0)
            continue;
        if (strcmp(g->name, SFC_NAME(NODE_CREDITS)) == 0)
            out->credits += g->value;
        else if (strcmp(g->name, SFC_NAME(READY_QUEUE)) == 0)
            out->ready += g->value;
        else if (strcmp(g->name, SFC_NAME(EVENTS_BUILDING)) == 0)
            out->building += g->value;
        else if (strcmp(g->name, SFC_NAME(EVENTS_UNACKED)) == 0)
            out->unacked += g->value;
        else if (strcmp(g->name, SFC_NAME(NODE_ALIVE)) == 0 && g->value > 0)
            out->nodes_alive++;
    }
    out->mempool += m->mempool;
    if (strcmp(component, "readout") == 0) {
        double held = (double)ebf_pb_counter(s, RO_NAME(REPLAY_HELD_BYTES), NULL, 0);
        double rec = (double)ebf_pb_counter(s, RO_NAME(FO_RECOVER_NS), NULL, 0) / 1e9;
        out->fo_on |= ebf_pb_counter(s, RO_NAME(RELEASE_FRAMES), NULL, 0) > 0;
        out->replay_bytes = held > out->replay_bytes ? held : out->replay_bytes;
        out->recover_s = rec > out->recover_s ? rec : out->recover_s;
    }
}

/* Process p's counts so far (earlier incarnations and the newest): the
 * ones the accounting combines into its part a, the others added to c. */
static int proc_counts(const struct soak_acc_proc *p, const struct soak_proc_in *in,
                       struct soak_counts *c, struct acct_part *a)
{
    const struct soak_counts *both[2] = {&p->base, &p->last};
    int rc = 0, role = acct_role_of(in->component);

    acct_part_init(a, role < 0 ? ACCT_NODE : (enum acct_role)role, in->name,
                   in->placed ? in->place : -1);
    a->answered = p->seen && role >= 0;
    for (unsigned b = 0; b < 2; b++)
        for (unsigned k = 0; k < both[b]->n; k++) {
            const struct soak_count *x = &both[b]->c[k];
            if (!acct_owned(x->name)) {
                rc |= soak_counts_add(c, x->name, x->v);
            } else if (strcmp(x->name, "generated") == 0) {
                a->generated += x->v;
            } else if (strcmp(x->name, "accepted") == 0) {
                a->accepted += x->v;
            } else if (strcmp(x->name, "rejected") == 0) {
                a->rejected += x->v;
            } else if (strcmp(x->name, "lost.withheld") == 0 && role == ACCT_READOUT) {
                a->withheld += x->v;
                a->has_withheld = 1;
            } else {
                rc |= acct_part_lost(a, x->name + 5, x->v);
            }
        }
    return rc;
}

/* The farm's totals (acct_combine) of the processes' parts into c. */
static int acct_counts(const struct acct_part *a, unsigned n, struct soak_counts *c)
{
    struct acct_totals t;
    char key[SOAK_NAME_MAX];
    int rc = 0;

    acct_combine(a, n, &t);
    rc |= soak_counts_add(c, "generated", t.generated);
    rc |= soak_counts_add(c, "accepted", t.accepted);
    rc |= soak_counts_add(c, "rejected", t.rejected);
    for (unsigned i = 0; i < t.n_lost; i++) {
        snprintf(key, sizeof(key), "lost.%s", t.lost_name[i]);
        rc |= soak_counts_add(c, key, t.lost_by[i]);
    }
    if (t.has_withheld)
        rc |= soak_counts_add(c, "lost.withheld", t.withheld);
    return rc;
}

int soak_sample_take(struct soak_acc *a, const struct soak_proc_in *in, unsigned n, double t,
                     struct soak_sample *s)
{
    struct acct_part parts[FARM_MAX_PROCS];
    int rc = 0;

    memset(s, 0, sizeof(*s));
    s->t = t;
    for (unsigned i = 0; i < n && i < FARM_MAX_PROCS; i++) {
        struct soak_acc_proc *p = &a->p[i];
        struct soak_mem *m = &s->mem[s->n_mem++];
        snprintf(m->name, sizeof(m->name), "%s", in[i].name);
        m->pid = in[i].pid;
        m->rss_kb = in[i].rss_kb;
        m->log_bytes = in[i].log_bytes;
        if (in[i].snap) {
            rc |= acc_take(p, in[i].component, in[i].snap);
            levels(s, in[i].component, in[i].snap, m);
        }
        rc |= proc_counts(p, &in[i], &s->c, &parts[i]);
        for (unsigned k = 0; k < SOAK_H_MAX; k++) {
            if (in[i].apart && hists[k].clocks)
                continue;        /* two hosts' clocks: no figure */
            hist_add(&s->h[k], &p->hbase[k]);
            hist_add(&s->h[k], &p->hlast[k]);
        }
    }
    rc |= acct_counts(parts, n < FARM_MAX_PROCS ? n : FARM_MAX_PROCS, &s->c);
    return rc ? -1 : 0;
}
