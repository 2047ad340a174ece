/* SPDX-License-Identifier: BSD-3-Clause */
/* capacity.c - busy seconds, frames and events per busy second, cycles per frame and event, as text and JSON. */
#include "capacity.h"

#include <inttypes.h>
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

/* A figure as JSON: the number with prec decimals, or null when unknown. */
static void num_json(FILE *out, const char *key, double v, int prec)
{
    if (v < 0)
        fprintf(out, ", \"%s\": null", key);
    else
        fprintf(out, ", \"%s\": %.*f", key, prec, v);
}

static void members_json(FILE *out, const struct cap *c)
{
    fprintf(out, "\"busy_cycles\": %" PRIu64 ", \"idle_cycles\": %" PRIu64
            ", \"busy_passes\": %" PRIu64 ", \"idle_passes\": %" PRIu64,
            c->busy_cycles, c->idle_cycles, c->busy_passes, c->idle_passes);
    if (c->tsc_hz)
        fprintf(out, ", \"tsc_hz\": %" PRIu64, c->tsc_hz);
    else
        fprintf(out, ", \"tsc_hz\": null");
    fprintf(out, ", \"frames\": %" PRIu64 ", \"events\": %" PRIu64, c->frames, c->events);
    num_json(out, "busy_s", cap_busy_s(c), 6);
    num_json(out, "frames_per_busy_s", cap_per_busy_s(c, c->frames), 0);
    num_json(out, "events_per_busy_s", cap_per_busy_s(c, c->events), 0);
    num_json(out, "cycles_per_frame", cap_cycles_per(c, c->frames), 1);
    num_json(out, "cycles_per_event", cap_cycles_per(c, c->events), 1);
}

void capacity_json(FILE *out, const struct farm_result *r)
{
    struct cap c;

    fprintf(out, " \"capacity\": {\"readout\": {");
    cap_of(&r->readout, CAP_READOUT, &c);
    members_json(out, &c);
    fprintf(out, "}, \"sfc\": {");
    cap_of(&r->sfc, CAP_SFC, &c);
    members_json(out, &c);
    fprintf(out, "}, \"nodes\": [");
    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct farm_node_result *n = &r->node[i];
        fprintf(out, "%s{\"name\": \"%s\", \"gone\": %s", i ? ", " : "", n->name,
                n->gone ? "true" : "false");
        if (!n->gone) {
            cap_of(&n->kv, CAP_NODE, &c);
            fputs(", ", out);
            members_json(out, &c);
        }
        fputc('}', out);
    }
    fprintf(out, "]},\n");
}
