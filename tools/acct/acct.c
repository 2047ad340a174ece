/* SPDX-License-Identifier: BSD-3-Clause */
/* acct.c - the farm's totals, one code path for live snapshots and final counters. */
#include "acct.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_pb.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

int acct_role_of(const char *component)
{
    if (strcmp(component, "readout") == 0)
        return ACCT_READOUT;
    if (strcmp(component, "sfc") == 0)
        return ACCT_SFC;
    if (strcmp(component, "node") == 0)
        return ACCT_NODE;
    return -1;
}

void acct_part_init(struct acct_part *p, enum acct_role role, const char *name, int place)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
    p->role = role;
    p->place = place;
}

int acct_part_lost(struct acct_part *p, const char *reason, uint64_t v)
{
    for (unsigned i = 0; i < p->n_lost; i++)
        if (strcmp(p->lost_name[i], reason) == 0) {
            p->lost[i] += v;
            return 0;
        }
    if (p->n_lost == ACCT_MAX_REASONS)
        return -1;
    snprintf(p->lost_name[p->n_lost], sizeof(p->lost_name[0]), "%s", reason);
    p->lost[p->n_lost++] = v;
    return 0;
}

/* A counter of p's role looked up by name in either source: a stats
 * file's key/values (kv) or a snapshot (pb, unlabelled). */
struct src {
    const struct ebf_kv *kv;
    const Ebfarm__Snapshot *pb;
};

static uint64_t get(const struct src *s, const char *name, uint64_t def)
{
    return s->kv ? ebf_kv_u64(s->kv, name, def) : ebf_pb_counter(s->pb, name, NULL, def);
}

/* The counts of p's role from s; lost by reason is the caller's. */
static void part_counts(struct acct_part *p, const struct src *s)
{
    switch (p->role) {
    case ACCT_READOUT:
        p->generated = get(s, RO_NAME(EVENTS), 0) + get(s, RO_NAME(EVENTS_ABANDONED), 0);
        p->frames = get(s, RO_NAME(FRAMES), 0);
        p->withheld = get(s, RO_FAULT_NAME(WITHHELD_EVENTS), UINT64_MAX);
        p->has_withheld = p->withheld != UINT64_MAX;
        if (!p->has_withheld)
            p->withheld = 0;
        break;
    case ACCT_SFC:
        p->accepted = get(s, SFC_NAME(ACK_ACCEPT), 0);
        p->rejected = get(s, SFC_NAME(ACK_REJECT), 0);
        p->incomplete = get(s, SFC_NAME(ACK_INCOMPLETE), 0);
        break;
    case ACCT_NODE:
        p->accepted = get(s, NODE_NAME(ACCEPTED), 0);
        p->rejected = get(s, NODE_NAME(REJECTED), 0);
        break;
    }
    p->answered = 1;
}

void acct_part_kv(struct acct_part *p, const struct ebf_kv *kv)
{
    const struct src s = {kv, NULL};
    size_t len = strlen(SFC_NAME(LOST));

    part_counts(p, &s);
    if (p->role != ACCT_SFC)
        return;
    for (unsigned i = 0; i < kv->n && p->n_lost < ACCT_MAX_REASONS; i++) {
        const struct ebf_kv_pair *q = &kv->pair[i];
        if (strncmp(q->key, SFC_NAME(LOST), len) != 0 || q->key[len] != '.')
            continue;
        acct_part_lost(p, q->key + len + 1, strtoull(q->val, NULL, 0));
    }
}

void acct_part_pb(struct acct_part *p, const Ebfarm__Snapshot *s)
{
    const struct src src = {NULL, s};

    if (!s)
        return;
    part_counts(p, &src);
    if (p->role != ACCT_SFC)
        return;
    for (size_t i = 0; i < s->n_counters; i++) {
        const Ebfarm__Counter *c = s->counters[i];
        if (strcmp(c->name, SFC_NAME(LOST)) == 0 && c->n_labels)
            acct_part_lost(p, c->labels[0]->value, c->value);
    }
}

/* name appended to t's missing list. */
static void missing(struct acct_totals *t, const char *name)
{
    size_t o = strlen(t->missing);

    snprintf(t->missing + o, sizeof(t->missing) - o, "%s%s", o ? ", " : "", name);
    t->n_missing++;
}

/* 1 when node part q stands in for an SFC of p that gave no counters. */
static int stands_in(const struct acct_part *p, unsigned n, const struct acct_part *q)
{
    if (q->role != ACCT_NODE || !q->answered || q->place < 0)
        return 0;
    for (unsigned k = 0; k < n; k++)
        if (p[k].role == ACCT_SFC && !p[k].answered && p[k].place == q->place)
            return 1;
    return 0;
}

/* An SFC's acks and lost by reason into t. */
static void add_sfc(struct acct_totals *t, const struct acct_part *s)
{
    t->accepted += s->accepted;
    t->rejected += s->rejected;
    t->incomplete += s->incomplete;
    t->decided_known = t->lost_known = 1;
    for (unsigned r = 0; r < s->n_lost; r++) {
        unsigned i = 0;
        while (i < t->n_lost && strcmp(t->lost_name[i], s->lost_name[r]) != 0)
            i++;
        t->lost += s->lost[r];  /* in the total also beyond ACCT_MAX_REASONS names */
        if (i == ACCT_MAX_REASONS)
            continue;
        if (i == t->n_lost) {
            memcpy(t->lost_name[i], s->lost_name[r], sizeof(t->lost_name[i]));
            t->lost_by[t->n_lost++] = 0;
        }
        t->lost_by[i] += s->lost[r];
    }
}

/* A readout's generated (the furthest one's), frames and withheld into t. */
static void add_readout(struct acct_totals *t, const struct acct_part *r, int i)
{
    if (t->best_readout < 0 || r->generated > t->generated) {
        t->generated = r->generated;
        t->best_readout = i;
    }
    t->frames += r->frames;
    if (!t->generated_known && r->has_withheld) {
        t->withheld = r->withheld;
        t->has_withheld = 1;
    }
    t->generated_known = 1;
}

void acct_combine(const struct acct_part *p, unsigned n, struct acct_totals *t)
{
    memset(t, 0, sizeof(*t));
    t->best_readout = -1;
    for (unsigned i = 0; i < n; i++) {
        if (!p[i].answered) {
            missing(t, p[i].name);
            continue;
        }
        if (p[i].role == ACCT_READOUT)
            add_readout(t, &p[i], (int)i);
        else if (p[i].role == ACCT_SFC)
            add_sfc(t, &p[i]);
        else if (stands_in(p, n, &p[i])) {
            t->accepted += p[i].accepted;
            t->rejected += p[i].rejected;
            t->gone_decided += p[i].accepted + p[i].rejected;
            t->decided_known = 1;
        }
    }
    t->lost += t->withheld;
}

static const char *const item_names[ACCT_ITEMS] = {
    [ACCT_GENERATED] = "generated", [ACCT_ACCEPTED] = "accepted", [ACCT_REJECTED] = "rejected",
    [ACCT_LOST] = "lost",           [ACCT_FRAMES] = "frames",
};

const char *acct_item_name(enum acct_item i)
{
    return (unsigned)i < ACCT_ITEMS ? item_names[i] : "?";
}

uint64_t acct_item_value(const struct acct_totals *t, enum acct_item i, int *known)
{
    switch (i) {
    case ACCT_GENERATED: *known = t->generated_known; return t->generated;
    case ACCT_ACCEPTED: *known = t->decided_known; return t->accepted;
    case ACCT_REJECTED: *known = t->decided_known; return t->rejected;
    case ACCT_LOST: *known = t->lost_known; return t->lost;
    case ACCT_FRAMES: *known = t->generated_known; return t->frames;
    default: *known = 0; return 0;
    }
}

const char *acct_item_text(const struct acct_totals *t, enum acct_item i, char *buf, size_t len)
{
    int known;
    uint64_t v = acct_item_value(t, i, &known);

    if (known)
        snprintf(buf, len, "%s %llu", acct_item_name(i), (unsigned long long)v);
    else
        snprintf(buf, len, "%s ?", acct_item_name(i));
    return buf;
}

const char *acct_missing_text(const struct acct_totals *t, char *buf, size_t len)
{
    if (t->n_missing)
        snprintf(buf, len, "(no counters from %s)", t->missing);
    else if (len)
        buf[0] = '\0';
    return buf;
}
