/* SPDX-License-Identifier: BSD-3-Clause */
/* capacity.c - busy seconds, frames and events per busy second, cycles per frame and event, as text and JSON. */
#include "capacity.h"

#include <stdlib.h>
#include <string.h>

#include "ebf_lcore_stats.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"
#include "sumtable.h"

/* The sum of the values of the labelled name in kv (keys "<name>.<label>");
 * *any set when there was one. */
static uint64_t kv_sum(const struct ebf_kv *kv, const char *name, int *any)
{
    size_t n = strlen(name);
    uint64_t s = 0;

    for (unsigned i = 0; i < kv->n; i++) {
        const char *k = kv->pair[i].key;
        if (strncmp(k, name, n) == 0 && k[n] == '.' && !strchr(k + n + 1, '.')) {
            s += strtoull(kv->pair[i].val, NULL, 10);
            *any = 1;
        }
    }
    return s;
}

void cap_of(const struct ebf_kv *kv, enum cap_role r, struct cap *c)
{
    const char *frames = NULL, *events = NULL;

    memset(c, 0, sizeof(*c));
    c->busy_cycles = kv_sum(kv, EBF_LCORE_NAME(BUSY_CYCLES), &c->have);
    c->idle_cycles = kv_sum(kv, EBF_LCORE_NAME(IDLE_CYCLES), &c->have);
    c->busy_passes = kv_sum(kv, EBF_LCORE_NAME(BUSY_PASSES), &c->have);
    c->idle_passes = kv_sum(kv, EBF_LCORE_NAME(IDLE_PASSES), &c->have);
    c->tsc_hz = ebf_kv_u64(kv, EBF_LCORE_NAME(TSC_HZ), 0);
    switch (r) {
    case CAP_READOUT:
        frames = RO_NAME(FRAMES);
        events = RO_NAME(EVENTS);
        break;
    case CAP_SFC:
        frames = SFC_NAME(RX_FRAMES);
        events = SFC_NAME(EVENTS_SENT);
        c->have_link = ebf_kv_str(kv, SFC_NAME(LINK_RX_CYCLES)) != NULL;
        c->link_rx_cycles = ebf_kv_u64(kv, SFC_NAME(LINK_RX_CYCLES), 0);
        c->link_tx_cycles = ebf_kv_u64(kv, SFC_NAME(LINK_TX_CYCLES), 0);
        break;
    case CAP_NODE:
        frames = NODE_NAME(RX_FRAMES);
        events = NODE_NAME(EVENTS);
        break;
    }
    c->frames = ebf_kv_u64(kv, frames, 0);
    c->events = ebf_kv_u64(kv, events, 0);
}

double cap_busy_s(const struct cap *c)
{
    return c->have && c->tsc_hz ? (double)c->busy_cycles / (double)c->tsc_hz : -1;
}

double cap_per_busy_s(const struct cap *c, uint64_t n)
{
    double s = cap_busy_s(c);

    return s > 0 ? (double)n / s : -1;
}

double cap_cycles_per(const struct cap *c, uint64_t n)
{
    return c->have && n ? (double)c->busy_cycles / (double)n : -1;
}

/* v with prec decimals, or "-" when unknown (negative). */
static const char *num(char *buf, size_t len, double v, int prec)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, v);
    return buf;
}

static void line_text(FILE *out, const char *who, const struct cap *c)
{
    char b[5][32];

    fprintf(out, "%*s%-10s%8s%16s%16s%15s%15s\n", SUM_INDENT, "", who,
            num(b[0], sizeof(b[0]), cap_busy_s(c), 3),
            num(b[1], sizeof(b[1]), cap_per_busy_s(c, c->frames), 0),
            num(b[2], sizeof(b[2]), cap_per_busy_s(c, c->events), 0),
            num(b[3], sizeof(b[3]), cap_cycles_per(c, c->frames), 1),
            num(b[4], sizeof(b[4]), cap_cycles_per(c, c->events), 1));
}

void capacity_text(FILE *out, const struct farm_result *r)
{
    struct cap c;

    fprintf(out, "  busy     %-10s%8s%16s%16s%15s%15s\n", "process", "busy s", "frames/busy s",
            "events/busy s", "cycles/frame", "cycles/event");
    cap_of(&r->readout, CAP_READOUT, &c);
    line_text(out, "readout", &c);
    cap_of(&r->sfc, CAP_SFC, &c);
    line_text(out, "sfc", &c);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        if (r->node[i].gone) {
            fprintf(out, "%*s%-10sgone: no final counters\n", SUM_INDENT, "",
                    r->node[i].name);
            continue;
        }
        cap_of(&r->node[i].kv, CAP_NODE, &c);
        line_text(out, r->node[i].name, &c);
    }
}

/* A figure as JSON, null when unknown (negative): with decimals decimals,
 * or an integer when decimals is 0. */
static json_t *figure(double v, int decimals)
{
    if (v < 0)
        return json_null();
    return decimals ? jout_fixed(v, decimals) : jout_round(v);
}

static json_t *members_json(const struct cap *c)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "busy_cycles", jout_u64(c->busy_cycles), "idle_cycles",
                     jout_u64(c->idle_cycles), "busy_passes", jout_u64(c->busy_passes),
                     "idle_passes", jout_u64(c->idle_passes), "tsc_hz",
                     c->tsc_hz ? jout_u64(c->tsc_hz) : json_null(), "frames",
                     jout_u64(c->frames), "events", jout_u64(c->events), "busy_s",
                     figure(cap_busy_s(c), 6), "frames_per_busy_s",
                     figure(cap_per_busy_s(c, c->frames), 0), "events_per_busy_s",
                     figure(cap_per_busy_s(c, c->events), 0), "cycles_per_frame",
                     figure(cap_cycles_per(c, c->frames), 1), "cycles_per_event",
                     figure(cap_cycles_per(c, c->events), 1));
}

/* A node by name, gone or with its figures. */
static json_t *node_json(const struct farm_node_result *n)
{
    struct cap c;
    json_t *o = json_pack("{s:o, s:b}", "name", jout_str(n->name), "gone", n->gone);

    if (!o || n->gone)
        return o;
    cap_of(&n->kv, CAP_NODE, &c);
    if (jout_merge(o, members_json(&c)) != 0) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

json_t *capacity_json(const struct farm_result *r)
{
    struct cap ro, sfc;
    json_t *nodes = json_array();

    cap_of(&r->readout, CAP_READOUT, &ro);
    cap_of(&r->sfc, CAP_SFC, &sfc);
    for (unsigned i = 0; nodes && i < r->n_nodes; i++)
        if (jout_append(nodes, node_json(&r->node[i])) != 0) {
            json_decref(nodes);
            nodes = NULL;
        }
    json_t *s = members_json(&sfc);
    if (s && sfc.have_link &&   /* the split of ebfarm bench's sfc_cycles */
        (jout_set(s, "link_rx_cycles", jout_u64(sfc.link_rx_cycles)) != 0 ||
         jout_set(s, "link_tx_cycles", jout_u64(sfc.link_tx_cycles)) != 0)) {
        json_decref(s);
        s = NULL;
    }
    return json_pack("{s:o, s:o, s:o}", "readout", members_json(&ro), "sfc", s, "nodes", nodes);
}
