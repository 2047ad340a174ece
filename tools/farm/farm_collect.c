/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_collect.c - every process's final counters, after the staged stop, into a farm_result. */
#include "farm_collect.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_lcore_stats.h"
#include "ebf_pb.h"
#include "farm_ask.h"
#include "farm_launch.h"
#include "farm_proc.h"
#include "farmfile.h"
#include "farmfile_multi.h"

/* v and u of key k combined: the earliest, the latest, the least or the sum. */
static uint64_t merge_value(const char *k, uint64_t u, uint64_t v)
{
    if (strcmp(k, "start_ns") == 0 || strcmp(k, "first_event") == 0)
        return v < u ? v : u;
    if (strcmp(k, "end_ns") == 0 || strcmp(k, "last_event") == 0 || strstr(k, ".max") ||
        strcmp(k, EBF_LCORE_NAME(TSC_HZ)) == 0)
        return v > u ? v : u;
    if (strstr(k, ".min"))
        return v < u ? v : u;
    return u + v;
}

/* Add every value of from into into (merge_value), so several readouts or
 * SFCs read as one. A key new to into is appended; out of memory, the
 * rest of from is left out. */
static void kv_merge(struct ebf_kv *into, const struct ebf_kv *from)
{
    for (unsigned i = 0; i < from->n; i++) {
        const char *k = from->pair[i].key;
        unsigned j;
        for (j = 0; j < into->n && strcmp(into->pair[j].key, k) != 0; j++)
            ;
        if (j == into->n) {
            struct ebf_kv_pair *p = realloc(into->pair, (into->n + 1) * sizeof(*p));
            if (!p)
                return;
            into->pair = p;
            into->pair[into->n++] = from->pair[i];
            continue;
        }
        uint64_t u = merge_value(k, strtoull(into->pair[j].val, NULL, 10),
                                 strtoull(from->pair[i].val, NULL, 10));
        snprintf(into->pair[j].val, sizeof(into->pair[j].val), "%llu", (unsigned long long)u);
    }
}

/* Append "key v" to kv: 0, or -ENOMEM. */
static int kv_append(struct ebf_kv *kv, const char *key, uint64_t v)
{
    struct ebf_kv_pair *p = realloc(kv->pair, (kv->n + 1) * sizeof(*p));

    if (!p)
        return -ENOMEM;
    kv->pair = p;
    snprintf(p[kv->n].key, sizeof(p[kv->n].key), "%s", key);
    snprintf(p[kv->n].val, sizeof(p[kv->n].val), "%llu", (unsigned long long)v);
    kv->n++;
    return 0;
}

/* p's counters from its status into kv, and its TSC rate (the gauge
 * tsc_hz, which turns its lcore cycles into seconds): 0, or -1 with err. */
static int final_counters(const struct farm_proc *p, struct ebf_kv *kv, char *err, size_t len)
{
    Ebfarm__Reply *rep = farm_ask(p, EBF_C_STATUS, 0, NULL, 0, FARM_REPLY_MS, err, len);
    int rc;

    if (!rep)
        return -1;
    rc = rep->status && rep->status->metrics ? ebf_pb_snapshot_kv(rep->status->metrics, kv)
                                             : -EPROTO;
    if (rc == 0) {
        double hz = ebf_pb_gauge(rep->status->metrics, EBF_LCORE_NAME(TSC_HZ), NULL, 0);
        if (hz >= 1 && (rc = kv_append(kv, EBF_LCORE_NAME(TSC_HZ), (uint64_t)hz)) != 0)
            ebf_kv_free(kv);
    }
    ebfarm__reply__free_unpacked(rep, NULL);
    if (rc) {
        snprintf(err, len, "%s sent no counters", p->name);
        return -1;
    }
    return 0;
}

/* The next node entry of r, named after p; NULL when r is full. */
static struct farm_node_result *node_result(struct farm_result *r, const struct farm_proc *p)
{
    if (r->n_nodes == FARM_MAX_NODES)
        return NULL;
    struct farm_node_result *n = &r->node[r->n_nodes++];
    snprintf(n->name, sizeof(n->name), "%s", p->name);
    return n;
}

/* The next readout or SFC entry of r, named after p; NULL when full. */
static struct farm_part_result *part_result(struct farm_result *r, const struct farm_proc *p)
{
    struct farm_part_result *x;

    if (p->role == FARM_READOUT) {
        if (r->n_ro == FF_MAX_READOUTS)
            return NULL;
        x = &r->ro[r->n_ro++];
    } else {
        if (r->n_sfcs == FF_MAX_SFCS)
            return NULL;
        x = &r->sfcs[r->n_sfcs++];
    }
    snprintf(x->name, sizeof(x->name), "%s", p->name);
    x->place = -1;
    return x;
}

/* A process that is gone: a dead node's decisions are in its SFC's acks
 * (or, its SFC gone too, nowhere); a dead readout's events are in what the
 * SFCs saw (the ledger then closes over that); a dead SFC's events are in
 * the readouts' generated ids and its nodes' own records of what they
 * decided (the ledger counts the rest as sfc_lost). */
static void gone(struct farm_result *r, const struct farm_proc *p)
{
    struct farm_node_result *n;
    struct farm_part_result *x;

    if (p->role == FARM_NODE) {
        r->nodes_silent++;
        if ((n = node_result(r, p)))
            n->gone = 1;
        return;
    }
    if ((x = part_result(r, p)))
        x->gone = 1;
    if (p->role == FARM_SFC) {
        r->sfcs_gone++;
        return;
    }
    if (!r->readouts_gone++)
        snprintf(r->readout_gone, sizeof(r->readout_gone), "%s", p->name);
}

int farm_collect(const struct farm_state *st, struct farm_result *r, char *err, size_t len)
{
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        struct farm_node_result *n = NULL;
        struct farm_part_result *x;
        struct ebf_kv kv;
        if (!farm_launch_answers(st, p)) {
            gone(r, p);
            continue;
        }
        if (final_counters(p, &kv, err, len))
            return -1;
        if (p->role == FARM_NODE) {
            if ((n = node_result(r, p)))
                n->kv = kv;
            else
                ebf_kv_free(&kv);
            continue;
        }
        kv_merge(p->role == FARM_SFC ? &r->sfc : &r->readout, &kv);
        if ((x = part_result(r, p)))
            x->kv = kv;
        else
            ebf_kv_free(&kv);
    }
    uint64_t t0 = ebf_kv_u64(&r->readout, "start_ns", 0), t1 = ebf_kv_u64(&r->readout, "end_ns", 0);
    r->wall_s = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0;
    return 0;
}

/* The place of SFC k in the readouts' sfcs; -1 when none lists it. */
static int place_of(const struct farm_spec *s, unsigned k)
{
    if (!s->n_readouts)
        return -1;
    for (unsigned i = 0; i < s->readout[0].n_sfcs; i++)
        if (s->readout[0].sfc[i] == k)
            return (int)i;
    return -1;
}

int farm_spec_place(const struct farm_spec *s, const char *name)
{
    for (unsigned k = 0; s && k < s->n_sfcs; k++)
        if (strcmp(s->sfc[k].p.name, name) == 0)
            return place_of(s, k);
    for (unsigned j = 0; s && j < s->n_nodes; j++)
        if (strcmp(s->node[j].p.name, name) == 0)
            return place_of(s, s->node[j].sfc);
    return -1;
}

void farm_state_places(const struct farm_state *st, int *place)
{
    struct farm_spec *spec = malloc(sizeof(*spec));
    char err[1024];

    if (spec && farm_spec_load(st->farm_file, spec, err, sizeof(err)) != 0) {
        free(spec);
        spec = NULL;
    }
    for (unsigned i = 0; i < st->n; i++)
        place[i] = farm_spec_place(spec, st->proc[i].name);
    free(spec);
}

void farm_result_shape(const struct farm_spec *s, struct farm_result *r)
{
    r->n_places = s->n_readouts ? (uint16_t)s->readout[0].n_sfcs : 0;
    for (unsigned i = 0; i < r->n_ro; i++)
        for (unsigned k = 0; k < s->n_readouts; k++)
            if (strcmp(s->readout[k].p.name, r->ro[i].name) == 0)
                ff_readout_sources(s, k, &r->ro[i].first_source, &r->ro[i].n_sources);
    for (unsigned i = 0; i < r->n_sfcs; i++)
        for (unsigned k = 0; k < s->n_sfcs; k++)
            if (strcmp(s->sfc[k].p.name, r->sfcs[i].name) == 0) {
                r->sfcs[i].place = place_of(s, k);
                r->sfcs[i].apart = ff_sfc_readouts_apart(s, k);
            }
    for (unsigned i = 0; i < r->n_nodes; i++) {
        r->node_place[i] = -1;
        for (unsigned j = 0; j < s->n_nodes; j++)
            if (strcmp(s->node[j].p.name, r->node[i].name) == 0)
                r->node_place[i] = place_of(s, s->node[j].sfc);
    }
}

/* Process p of role onto r's list of where processes ran. */
static void place(const struct farm_spec *s, const struct ff_proc *p, enum farm_role role,
                  struct farm_result *r)
{
    struct farm_placed *w = &r->placed[r->n_placed++];

    snprintf(w->proc, sizeof(w->proc), "%s", p->name);
    snprintf(w->host, sizeof(w->host), "%s", p->host < s->n_hosts ? s->host[p->host].name : "");
    w->role = role;
}

void farm_result_hosts(const struct farm_spec *s, struct farm_result *r)
{
    r->n_placed = 0;
    for (unsigned i = 0; i < s->n_readouts; i++)
        place(s, &s->readout[i].p, FARM_READOUT, r);
    for (unsigned i = 0; i < s->n_sfcs; i++)
        place(s, &s->sfc[i].p, FARM_SFC, r);
    for (unsigned i = 0; i < s->n_nodes; i++)
        place(s, &s->node[i].p, FARM_NODE, r);
    for (unsigned i = 0; i < r->n_nodes; i++)
        for (unsigned j = 0; j < s->n_nodes; j++)
            if (strcmp(s->node[j].p.name, r->node[i].name) == 0)
                r->node[i].apart = ff_node_readouts_apart(s, j);
    farm_result_shape(s, r);
}

void farm_result_free(struct farm_result *r)
{
    ebf_kv_free(&r->readout);
    ebf_kv_free(&r->sfc);
    for (unsigned i = 0; i < FF_MAX_READOUTS; i++)
        ebf_kv_free(&r->ro[i].kv);
    for (unsigned i = 0; i < FF_MAX_SFCS; i++)
        ebf_kv_free(&r->sfcs[i].kv);
    for (unsigned i = 0; i < FARM_MAX_NODES; i++)
        ebf_kv_free(&r->node[i].kv);
}
