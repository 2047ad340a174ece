/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c - a run's summary as text or JSON: the ledger, counters, rates, capacity and latency. */
#include "summary.h"

#include <inttypes.h>
#include <string.h>

#include "capacity.h"
#include "ebf_hist.h"
#include "farm_runid.h"
#include "node_stats.h"
#include "placement.h"
#include "ro_stats.h"
#include "sfc_stats.h"
#include "sumtable.h"

/* "a, b, c" of up to n ids, "..." when the list was cut. */
static void ids_text(FILE *out, const uint64_t *ids, unsigned n, int cut)
{
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? ", " : "", ids[i]);
    if (!n)
        fprintf(out, "none");
    if (cut)
        fprintf(out, ", ...");
}

static void ids_json(FILE *out, const uint64_t *ids, unsigned n)
{
    fputc('[', out);
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? ", " : "", ids[i]);
    fputc(']', out);
}

/* Histogram name read back from its stats keys "hist.<name>.count" ... (0 if absent). */
static void hist_load(const struct ebf_kv *kv, const char *name, struct ebf_hist *h)
{
    char key[96];

    ebf_hist_init(h);
    snprintf(key, sizeof(key), "hist.%s.count", name);
    h->count = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "hist.%s.sum", name);
    h->sum = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "hist.%s.min", name);
    h->min = h->count ? ebf_kv_u64(kv, key, 0) : UINT64_MAX;
    snprintf(key, sizeof(key), "hist.%s.max", name);
    h->max = ebf_kv_u64(kv, key, 0);
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        snprintf(key, sizeof(key), "hist.%s.bucket.%u", name, b);
        h->bucket[b] = ebf_kv_u64(kv, key, 0);
    }
}

struct figures {
    double seconds;
    double events_s, frames_s, payload_gbit_s;
    struct ebf_hist build, e2e;
    unsigned e2e_nodes, e2e_apart;   /* nodes whose e2e is in, and left out */
    unsigned build_sfcs, build_apart;    /* SFCs whose build time is in, and left out */
};

/* The SFCs' build time, merged; an SFC whose readouts are on another
 * clock is left out (its figure compares two hosts' clocks). */
static void build_hist(const struct farm_result *r, struct figures *fg)
{
    unsigned apart = 0;

    for (unsigned i = 0; i < r->n_sfcs; i++)
        apart += r->sfcs[i].apart;
    if (!apart) {
        hist_load(&r->sfc, SFC_NAME(BUILD_NS), &fg->build);
        fg->build_sfcs = r->n_sfcs - r->sfcs_gone;
        return;
    }
    ebf_hist_init(&fg->build);
    for (unsigned i = 0; i < r->n_sfcs; i++) {
        struct ebf_hist h;
        if (r->sfcs[i].gone)
            continue;
        if (r->sfcs[i].apart) {
            fg->build_apart++;
            continue;
        }
        hist_load(&r->sfcs[i].kv, SFC_NAME(BUILD_NS), &h);
        ebf_hist_merge(&fg->build, &h);
        fg->build_sfcs++;
    }
}

static void figures(const struct farm_result *r, struct figures *fg)
{
    const struct ebf_kv *ro = &r->readout;
    uint64_t t0 = ebf_kv_u64(ro, RO_NAME(START_NS), 0);
    uint64_t t1 = ebf_kv_u64(ro, RO_NAME(END_NS), 0);

    unsigned live = 0;

    for (unsigned i = 0; i < r->n_ro; i++)
        live += !r->ro[i].gone;
    memset(fg, 0, sizeof(*fg));
    fg->seconds = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0;
    if (fg->seconds > 0) {
        /* Every readout sends every event: the events of one. */
        fg->events_s = (double)ebf_kv_u64(ro, RO_NAME(EVENTS), 0) / (live > 1 ? live : 1) /
                       fg->seconds;
        fg->frames_s = (double)ebf_kv_u64(ro, RO_NAME(FRAMES), 0) / fg->seconds;
        fg->payload_gbit_s = (double)ebf_kv_u64(ro, RO_NAME(PAYLOAD_BYTES), 0) * 8e-9 / fg->seconds;
    }
    build_hist(r, fg);
    ebf_hist_init(&fg->e2e);
    /* A node whose readouts are on another host measured against their
     * clock: no end-to-end latency from it. */
    for (unsigned i = 0; i < r->n_nodes; i++) {
        struct ebf_hist h;
        if (r->node[i].apart) {
            fg->e2e_apart++;
            continue;
        }
        hist_load(&r->node[i].kv, NODE_NAME(E2E_NS), &h);
        ebf_hist_merge(&fg->e2e, &h);
        fg->e2e_nodes++;
    }
}

/* The clocks of the latencies: the SFC's build time is the readout's
 * CLOCK_REALTIME at transmit against the SFC's at the receive burst that
 * completed the event (sfc/sfc_lat.h); end to end is the readout's
 * CLOCK_REALTIME at transmit against the node's at its decision; each is one
 * clock only on one host. */
#define CLOCK_BUILD "realtime, readout to SFC, one host"
#define CLOCK_E2E "realtime, one host"
#define CLOCK_E2E_NONE                                                                   \
    "none: the readouts of every node are on other hosts, whose clocks share no base with " \
    "its own"

#define CLOCK_BUILD_NONE                                                                 \
    "none: the readouts of every SFC are on other hosts, whose clocks share no base with " \
    "its own"

/* "realtime, readout to SFC, one host", and which SFCs when some were left out. */
static const char *build_clock(const struct figures *fg, char *buf, size_t len)
{
    if (!fg->build_sfcs && fg->build_apart)
        return CLOCK_BUILD_NONE;
    if (!fg->build_apart)
        return CLOCK_BUILD;
    snprintf(buf, len, "%s; %u of %u SFCs, the readouts of the others are on other hosts",
             CLOCK_BUILD, fg->build_sfcs, fg->build_sfcs + fg->build_apart);
    return buf;
}

/* "realtime, one host", and which nodes when some were left out. */
static const char *e2e_clock(const struct figures *fg, char *buf, size_t len)
{
    if (!fg->e2e_nodes && fg->e2e_apart)
        return CLOCK_E2E_NONE;
    if (!fg->e2e_apart)
        return CLOCK_E2E;
    snprintf(buf, len, "%s; %u of %u nodes, the readouts of the others are on other hosts",
             CLOCK_E2E, fg->e2e_nodes, fg->e2e_nodes + fg->e2e_apart);
    return buf;
}

/* The run's identity: farm, run number, start and stop (UTC), farm file. */
static void run_text(FILE *out, const struct farm_run_id *id)
{
    char t0[32], t1[32];

    fprintf(out, "  run      farm %s, run ", id->farm[0] ? id->farm : "unknown");
    if (id->run)
        fprintf(out, "%u", id->run);
    else
        fprintf(out, "unknown");
    farm_utc_iso(id->start_ms, t0, sizeof(t0));
    farm_utc_iso(id->stop_ms, t1, sizeof(t1));
    fprintf(out, ", %s to %s\n", t0[0] ? t0 : "unknown", t1[0] ? t1 : "unknown");
    fprintf(out, "           farm file sha256 %s\n",
            id->farm_file_sha256[0] ? id->farm_file_sha256 : "unknown");
    if (id->insecure)
        fprintf(out, "           %s\n", FARM_INSECURE_NOTE);
}

/* s as a JSON string, or null when it is empty. */
static void str_or_null(FILE *out, const char *s)
{
    if (s[0])
        fprintf(out, "\"%s\"", s);
    else
        fputs("null", out);
}

static void run_json(FILE *out, const struct farm_run_id *id)
{
    char t[32];

    fprintf(out, "\"run\": {\"farm\": ");
    str_or_null(out, id->farm);
    if (id->run)
        fprintf(out, ", \"run\": %u, \"start_utc\": ", id->run);
    else
        fprintf(out, ", \"run\": null, \"start_utc\": ");
    str_or_null(out, farm_utc_iso(id->start_ms, t, sizeof(t)));
    fprintf(out, ", \"stop_utc\": ");
    str_or_null(out, farm_utc_iso(id->stop_ms, t, sizeof(t)));
    fprintf(out, ", \"farm_file_sha256\": ");
    str_or_null(out, id->farm_file_sha256);
    if (id->insecure)
        fprintf(out, ", \"insecure\": true");
    fputc('}', out);
}

static const char *const dist_names[] = {
    [FF_DIST_FIXED] = "fixed", [FF_DIST_UNIFORM] = "uniform", [FF_DIST_LOGNORMAL] = "lognormal",
};

static const char *dist_name(enum ff_frag_dist d)
{
    return (unsigned)d < 3 ? dist_names[d] : "unknown";
}

/* "S@E" or "none". */
static const char *silence_str(const struct farm_conf *c, char *buf, size_t len)
{
    if (c->silence_source == FF_NO_SILENCE)
        return "none";
    snprintf(buf, len, "%u@%" PRIu64, c->silence_source, c->silence_event);
    return buf;
}

/* 1 when the run asked for faults, or the readout had a fault stage. */
static int any_faults(const struct farm_conf *c, const struct ebf_kv *ro)
{
    return c->faults[0] || c->silence_source != FF_NO_SILENCE || c->burst_events ||
           ebf_kv_u64(ro, RO_FAULT_NAME(FRAMES_IN), 0) > 0;
}

/* What the run asked of the readout's fault stage. */
static void faults_text(FILE *out, const struct farm_conf *c)
{
    char sil[48];

    fprintf(out, "  faults   frame faults %s; silence %s; ", c->faults[0] ? c->faults : "none",
            silence_str(c, sil, sizeof(sil)));
    if (c->burst_events)
        fprintf(out, "bursts of %u events, %u us apart", c->burst_events, c->burst_gap_us);
    else
        fprintf(out, "no bursts");
    fprintf(out, "; seed %" PRIu64 "\n", c->seed);
}

/* Each process's summary counters (sumtable.h): the readout (its fault
 * stage's when there were faults), the SFCs, then every node by name. */
static void processes_text(FILE *out, const struct farm_conf *c, const struct farm_result *r)
{
    struct sum_line ln;
    int faults = any_faults(c, &r->readout);

    if (faults)
        faults_text(out, c);
    /* A gone readout's counters are not there: no zeros stand for them. */
    if (r->readouts_gone)
        fprintf(out, "  readout  %s%s gone: no final counters%s\n", r->readout_gone,
                r->readouts_gone > 1 ? " and others" : "",
                r->readout.n ? "; the survivors' follow" : "");
    if (!r->readouts_gone || r->readout.n) {
        sum_begin(&ln, out, "readout");
        sum_text(&ln, &ro_counter_table, &r->readout);
        if (faults)
            sum_text(&ln, &ro_fault_counter_table, &r->readout);
        sum_end(&ln);
    }
    sum_begin(&ln, out, "sfc");
    sum_text(&ln, &sfc_counter_table, &r->sfc);
    sum_end(&ln);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        sum_begin(&ln, out, r->node[i].name);
        if (r->node[i].gone)
            sum_item(&ln, "gone: no final counters (killed or crashed)");
        else
            sum_text(&ln, &node_counter_table, &r->node[i].kv);
        sum_end(&ln);
    }
}

/* The ledger's lines. */
static void ledger_text(FILE *out, const struct farm_result *r, const struct ledger *l)
{
    if (l->readouts_gone && l->n_ro_lost > 1) {
        fprintf(out, "  ledger   ");
        for (unsigned i = 0; i < l->n_ro_lost; i++)
            fprintf(out, "%sreadout %s lost from event %" PRIu64 " on", i ? ", " : "",
                    l->ro_lost[i], l->ro_lost_from[i]);
        fprintf(out, " (%u readout(s) gone, their generated count unknown): closed over what "
                "the survivors saw\n           seen %" PRIu64, l->readouts_gone, l->generated);
    } else if (l->readouts_gone) {
        fprintf(out, "  ledger   readout %s lost from event %" PRIu64 " on (%u readout(s) gone, "
                "their generated count unknown): closed over what the survivors saw\n"
                "           seen %" PRIu64, l->readout_gone,
                l->n_ro_lost ? l->ro_lost_from[0] : l->gone_from, l->readouts_gone,
                l->generated);
    }
    else
        fprintf(out, "  ledger   generated %" PRIu64, l->generated);
    if (l->sfcs_gone)
        fprintf(out, " (SFC %s gone, %u SFC(s): %" PRIu64 " of its events decided by its nodes, "
                "%" PRIu64 " sfc_lost)", l->sfc_gone, l->sfcs_gone, l->gone_decided, l->sfc_lost);
    fprintf(out, " = accepted %" PRIu64 " + rejected %" PRIu64 " + lost %" PRIu64
            "; incomplete %" PRIu64 "\n",
            l->accepted, l->rejected, l->lost_total, l->incomplete);
    fprintf(out, "           lost by reason:");
    for (unsigned i = 0; i < l->n_lost; i++)
        fprintf(out, " %s %" PRIu64 "%s", l->lost_name[i], l->lost[i],
                i + 1 < l->n_lost ? "," : "");
    fprintf(out, "\n           incomplete by missing source: ");
    sum_values_text(out, SFC_NAME(MISSING_SOURCE), &r->sfc);
    fprintf(out, "\n           nodes: %" PRIu64 " declared dead, %" PRIu64 " events re-dispatched, %"
            PRIu64 " late acks ignored, %" PRIu64 " rejoins, %" PRIu64 " revived; ",
            l->nodes_dead, l->redispatched, l->late_acks, l->rejoins, l->revived);
    if (l->nodes_reported)
        fprintf(out, "the nodes' acks %s the SFC's", l->nodes_agree ? "agree with" : "DIFFER FROM");
    else
        fprintf(out, "%u node(s) gave no counters, %" PRIu64 " restarted (not cross-checked)",
                l->nodes_silent, l->rejoins);
    fputc('\n', out);
    ledger_store_text(out, &l->store);
    fprintf(out, "           %s", l->closed ? "CLOSED" : "NOT CLOSED");
    if (!l->closed)
        fprintf(out, " (unaccounted %" PRId64 ", id digest %s, id records %s)", l->unaccounted,
                l->digest_match ? "agrees" : "differs", l->ids_match ? "agree" : "differ");
    if (!l->ids_match) {
        fprintf(out, "\n           ledger.mismatch: ids generated but in no bucket: ");
        ids_text(out, l->missing, l->n_missing, !l->ids_listed || l->n_missing == LEDGER_MAX_IDS);
        fprintf(out, "; ids counted twice or never generated: ");
        ids_text(out, l->extra, l->n_extra, !l->ids_listed || l->n_extra == LEDGER_MAX_IDS);
    }
    fputc('\n', out);
}

void summary_text(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l)
{
    struct figures fg;
    char clk[160];

    figures(r, &fg);
    fprintf(out, "ebfarm run: %" PRIu64 " events x %u sources, fragments ", c->events,
            c->sources);
    if (c->frag_dist == FF_DIST_LOGNORMAL)
        fprintf(out, "log-normal (mean %g B, sd %g B) in ", c->frag_mean, c->frag_sigma);
    fprintf(out, "%u..%u B, %u nodes\n", c->frag_min, c->frag_max, c->nodes);
    run_text(out, &r->id);
    placement_text(out, r);
    processes_text(out, c, r);
    ledger_text(out, r, l);
    fprintf(out, "  rate     %.0f events/s, %.0f frames/s, %.2f Gbit/s payload over %.2f s\n",
            fg.events_s, fg.frames_s, fg.payload_gbit_s, fg.seconds);
    capacity_text(out, r);
    if (!fg.build_sfcs && fg.build_apart)
        fprintf(out, "  latency  build not computed (clock: %s)\n", CLOCK_BUILD_NONE);
    else
        fprintf(out, "  latency  build p50 %.1f us p99 %.1f us (clock: %s)\n",
                ebf_hist_quantile(&fg.build, 0.5) / 1e3,
                ebf_hist_quantile(&fg.build, 0.99) / 1e3, build_clock(&fg, clk, sizeof(clk)));
    if (!fg.e2e_nodes && fg.e2e_apart)
        fprintf(out, "           end-to-end not computed (clock: %s)\n", CLOCK_E2E_NONE);
    else
        fprintf(out, "           end-to-end p50 %.1f us p99 %.1f us max %.1f us (clock: %s)\n",
                ebf_hist_quantile(&fg.e2e, 0.5) / 1e3, ebf_hist_quantile(&fg.e2e, 0.99) / 1e3,
                (double)fg.e2e.max / 1e3, e2e_clock(&fg, clk, sizeof(clk)));
}

static void hist_json(FILE *out, const struct ebf_hist *h)
{
    fprintf(out, "{\"count\": %" PRIu64 ", \"min\": %" PRIu64 ", \"p50\": %" PRIu64
            ", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64
            ", \"max\": %" PRIu64 "}",
            h->count, h->count ? h->min : 0, ebf_hist_quantile(h, 0.5),
            ebf_hist_quantile(h, 0.9), ebf_hist_quantile(h, 0.99),
            ebf_hist_quantile(h, 0.999), h->max);
}

/* "readout", "sfc" and "nodes": each process's summary counters
 * (sumtable.h); a node by name, gone or with its counters. */
static void processes_json(FILE *out, const struct farm_result *r)
{
    int first = 1;

    fprintf(out, " \"readout\": {");
    if (r->readouts_gone) {         /* no zeros stand for a gone readout's counters */
        fprintf(out, "\"gone\": \"%s\", \"readouts_gone\": %u", r->readout_gone,
                r->readouts_gone);
        first = 0;
    }
    if (!r->readouts_gone || r->readout.n) {
        sum_json(out, &ro_counter_table, &r->readout, &first);
        sum_json(out, &ro_fault_counter_table, &r->readout, &first);
    }
    fprintf(out, "},\n \"sfc\": {");
    first = 1;
    sum_json(out, &sfc_counter_table, &r->sfc, &first);
    fprintf(out, "},\n \"nodes\": [");
    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct farm_node_result *n = &r->node[i];
        fprintf(out, "%s{\"name\": \"%s\", \"gone\": %s", i ? ", " : "", n->name,
                n->gone ? "true" : "false");
        first = 0;
        if (!n->gone)
            sum_json(out, &node_counter_table, &n->kv, &first);
        fputc('}', out);
    }
    fprintf(out, "],\n");
}

void summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l)
{
    struct figures fg;
    char clk[160];

    figures(r, &fg);
    fputc('{', out);
    run_json(out, &r->id);
    if (l->readouts_gone) {
        fprintf(out, ",\n \"ledger\": {\"readout_lost\": {\"name\": \"%s\", \"from_event\": %"
                PRIu64 ", \"readouts\": %u}, \"readouts_lost\": [", l->readout_gone,
                l->n_ro_lost ? l->ro_lost_from[0] : l->gone_from, l->readouts_gone);
        for (unsigned i = 0; i < l->n_ro_lost; i++)
            fprintf(out, "%s{\"name\": \"%s\", \"from_event\": %" PRIu64 "}", i ? ", " : "",
                    l->ro_lost[i], l->ro_lost_from[i]);
        fprintf(out, "], \"over\": \"survivors\", \"generated\": null, \"seen\": %" PRIu64
                ", ", l->generated);
    }
    else
        fprintf(out, ",\n \"ledger\": {\"generated\": %" PRIu64 ", ", l->generated);
    if (l->sfcs_gone)
        fprintf(out, "\"sfc_gone\": {\"name\": \"%s\", \"sfcs\": %u, \"decided_by_its_nodes\": %"
                PRIu64 ", \"sfc_lost\": %" PRIu64 "}, ", l->sfc_gone, l->sfcs_gone,
                l->gone_decided, l->sfc_lost);
    fprintf(out, "\"accepted\": %" PRIu64 ", \"rejected\": %" PRIu64 ", \"incomplete\": %"
            PRIu64 ", \"lost\": {", l->accepted, l->rejected, l->incomplete);
    int any = 0;
    for (unsigned i = 0; i < l->n_lost; i++) {
        if (!l->lost[i])
            continue;
        fprintf(out, "%s\"%s\": %" PRIu64, any ? ", " : "", l->lost_name[i], l->lost[i]);
        any = 1;
    }
    fprintf(out, "}, \"lost_total\": %" PRIu64 ", \"unaccounted\": %" PRId64
            ", \"id_digest_match\": %s, \"id_range\": {\"lo\": %" PRIu64 ", \"n\": %" PRIu64
            "}, \"ids_match\": %s",
            l->lost_total, l->unaccounted, l->digest_match ? "true" : "false", l->id_lo,
            l->generated, l->ids_match ? "true" : "false");
    if (!l->ids_match) {
        fprintf(out, ", \"mismatch\": {\"missing\": ");
        ids_json(out, l->missing, l->n_missing);
        fprintf(out, ", \"extra\": ");
        ids_json(out, l->extra, l->n_extra);
        fprintf(out, ", \"complete\": %s}", l->ids_listed ? "true" : "false");
    }
    fprintf(out, ", \"incomplete_by_missing_source\": ");
    sum_values_json(out, SFC_NAME(MISSING_SOURCE), &r->sfc);
    ledger_store_json(out, &l->store);
    fprintf(out, ", \"nodes_dead\": %" PRIu64 ", \"redispatched\": %" PRIu64
            ", \"late_acks\": %" PRIu64 ", \"rejoins\": %" PRIu64 ", \"revived\": %" PRIu64
            ", \"nodes_silent\": %u"
            ", \"nodes_agree\": %s, \"closed\": %s},\n",
            l->nodes_dead, l->redispatched, l->late_acks, l->rejoins, l->revived, l->nodes_silent,
            l->nodes_reported ? (l->nodes_agree ? "true" : "false") : "null",
            l->closed ? "true" : "false");
    char sil[48];
    fprintf(out, " \"config\": {\"events\": %" PRIu64 ", \"sources\": %u, \"nodes\": %u"
            ", \"readouts\": %u, \"sfcs\": %u"
            ", \"frag_min\": %u, \"frag_max\": %u, \"frag_dist\": \"%s\", \"frag_mean\": %g"
            ", \"frag_sigma\": %g, \"rate\": %g, \"encap\": \"%s\", \"mtu\": %u"
            ", \"seed\": %" PRIu64
            ", \"faults\": \"%s\", \"silence\": \"%s\", \"burst_events\": %u"
            ", \"burst_gap_us\": %u, \"hosts\": ",
            c->events, c->sources, c->nodes, c->readouts, c->sfcs, c->frag_min, c->frag_max,
            dist_name(c->frag_dist),
            c->frag_mean, c->frag_sigma, c->rate, c->udp ? "udp" : "eth", c->mtu, c->seed,
            c->faults[0] ? c->faults : "none", silence_str(c, sil, sizeof(sil)), c->burst_events,
            c->burst_gap_us);
    placement_json(out, r);
    fprintf(out, "},\n");
    processes_json(out, r);
    fprintf(out, " \"rates\": {\"seconds\": %.3f, \"events_per_s\": %.0f, \"frames_per_s\": %.0f"
            ", \"payload_gbit_per_s\": %.3f},\n",
            fg.seconds, fg.events_s, fg.frames_s, fg.payload_gbit_s);
    capacity_json(out, r);
    fprintf(out, " \"latency_ns\": {\"build\": ");
    if (!fg.build_sfcs && fg.build_apart)
        fputs("null", out);
    else
        hist_json(out, &fg.build);
    fprintf(out, ", \"end_to_end\": ");
    if (!fg.e2e_nodes && fg.e2e_apart)
        fputs("null", out);
    else
        hist_json(out, &fg.e2e);
    fprintf(out, ", \"end_to_end_nodes_apart\": %u, \"build_sfcs_apart\": %u, "
            "\"clock\": {\"build\": \"%s\", ", fg.e2e_apart, fg.build_apart,
            build_clock(&fg, clk, sizeof(clk)));
    fprintf(out, "\"end_to_end\": \"%s\"}}}\n", e2e_clock(&fg, clk, sizeof(clk)));
}
