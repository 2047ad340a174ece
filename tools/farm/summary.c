/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c - a run's summary as text or JSON: the ledger, counters, rates, capacity and latency. */
#include "summary.h"

#include <inttypes.h>
#include <string.h>

#include "capacity.h"
#include "ebf_hist.h"
#include "farm_fo_view.h"
#include "farm_runid.h"
#include "farm_stopat.h"
#include "ledger_json.h"
#include "node_stats.h"
#include "placement.h"
#include "ro_stats.h"
#include "sfc_stats.h"
#include "sumtable.h"

/* "a, b, c" of the first LEDGER_MAX_IDS of n ids, "..." after them or
 * when the list was cut (cut: it does not hold every id). */
static void ids_text(FILE *out, const uint64_t *ids, unsigned n, int cut)
{
    if (n > LEDGER_MAX_IDS) {
        n = LEDGER_MAX_IDS;
        cut = 1;
    }
    for (unsigned i = 0; i < n; i++)
        fprintf(out, "%s%" PRIu64, i ? ", " : "", ids[i]);
    if (!n)
        fprintf(out, "none");
    if (cut)
        fprintf(out, ", ...");
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

static json_t *run_json(const struct farm_run_id *id)
{
    char t0[32], t1[32];
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "farm", jout_str_or_null(id->farm), "run",
                          id->run ? json_integer(id->run) : json_null(), "start_utc",
                          jout_str_or_null(farm_utc_iso(id->start_ms, t0, sizeof(t0))),
                          "stop_utc", jout_str_or_null(farm_utc_iso(id->stop_ms, t1, sizeof(t1))),
                          "farm_file_sha256", jout_str_or_null(id->farm_file_sha256));

    if (o && id->insecure && jout_set(o, "insecure", json_true()) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
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

/* One row per part (readout or SFC) of a farm of several, by name: its own
 * counters (summed, four readouts said "events 800000" for 200,000
 * generated), or "gone" for one killed (an SFC appeared only inside the
 * ledger's line). */
static void parts_text(FILE *out, const struct farm_part_result *x, unsigned n,
                       const struct ebf_counter_table *t, const struct ebf_counter_table *faults)
{
    struct sum_line ln;

    for (unsigned i = 0; i < n; i++) {
        sum_begin(&ln, out, x[i].name);
        if (x[i].gone) {
            sum_item(&ln, "gone: no final counters (killed or crashed)");
        } else {
            sum_text(&ln, t, &x[i].kv);
            if (faults)
                sum_text(&ln, faults, &x[i].kv);
        }
        sum_end(&ln);
    }
}

/* Each process's summary counters (sumtable.h): the readout (its fault
 * stage's when there were faults), the SFCs, then every node by name; a
 * farm of several readouts or SFCs a row for each. */
static void processes_text(FILE *out, const struct farm_conf *c, const struct farm_result *r)
{
    struct sum_line ln;
    int faults = any_faults(c, &r->readout);

    if (faults)
        faults_text(out, c);
    if (r->n_ro > 1)
        parts_text(out, r->ro, r->n_ro, &ro_counter_table, faults ? &ro_fault_counter_table : NULL);
    /* A gone readout's counters are not there: no zeros stand for them. */
    else if (r->readouts_gone)
        fprintf(out, "  readout  %s%s gone: no final counters%s\n", r->readout_gone,
                r->readouts_gone > 1 ? " and others" : "",
                r->readout.n ? "; the survivors' follow" : "");
    if (r->n_ro <= 1 && (!r->readouts_gone || r->readout.n)) {
        sum_begin(&ln, out, "readout");
        sum_text(&ln, &ro_counter_table, &r->readout);
        if (faults)
            sum_text(&ln, &ro_fault_counter_table, &r->readout);
        sum_end(&ln);
    }
    if (r->n_sfcs > 1) {
        parts_text(out, r->sfcs, r->n_sfcs, &sfc_counter_table, NULL);
    } else {
        sum_begin(&ln, out, "sfc");
        sum_text(&ln, &sfc_counter_table, &r->sfc);
        sum_end(&ln);
    }
    for (unsigned i = 0; i < r->n_nodes; i++) {
        sum_begin(&ln, out, r->node[i].name);
        if (r->node[i].gone)
            sum_item(&ln, "gone: no final counters (killed or crashed)");
        else
            sum_text(&ln, &node_counter_table, &r->node[i].kv);
        sum_end(&ln);
    }
}

/* A failover's replays built incomplete (replay.unsound): decided, so named only. */
#define UNSOUND_TEXT                                                                     \
    "replay.unsound %" PRIu64 " built incomplete, pieces lost on the way: decided, in the ledger"

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
    if (l->failover && !l->sfcs_gone)
        fprintf(out, " (failed over: %u SFC(s) killed and restarted, %" PRIu64 " fence(s); "
                "replayed %" PRIu64 ", redecided %" PRIu64 "; replay.fenced %" PRIu64
                " built again, replay.partial %" PRIu64 " decided before: %" PRIu64 " proven by "
                "replay ends, %" PRIu64 " at the 5 s cap; " UNSOUND_TEXT ")", l->sfcs_restarted,
                l->fences, l->replayed, l->redecided, l->replay_fenced, l->replay_partial,
                l->replay_ended, l->replay_wait_cap, l->replay_unsound);
    else if (l->failover)
        fprintf(out, " (SFC %s gone, %u SFC(s), failed over: %" PRIu64 " of its events decided "
                "by its nodes, watermark %" PRIu64 "%s; replayed %" PRIu64 ", redecided %" PRIu64
                "; " UNSOUND_TEXT ")", l->sfc_gone, l->sfcs_gone, l->gone_decided,
                l->release_mark, l->mark_evicted ? " (its nodes' record may lack ids)" : "",
                l->replayed, l->redecided, l->replay_unsound);
    else if (l->sfcs_gone)
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
        ids_text(out, l->missing, l->n_missing, !l->ids_listed);
        fprintf(out, "; ids counted twice or never generated: ");
        ids_text(out, l->extra, l->n_extra, !l->ids_listed);
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
    farm_stop_at_text(out, r, c->events);
    ledger_text(out, r, l);
    struct farm_fo_view fo;
    farm_fo_view_result(&fo, r);
    farm_fo_view_summary(out, &fo);
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

/* A histogram, or null when clocks left every process out. */
static json_t *hist_json(const struct ebf_hist *h, int none)
{
    if (none)
        return json_null();
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "count", jout_u64(h->count), "min",
                     jout_u64(h->count ? h->min : 0), "p50", jout_u64(ebf_hist_quantile(h, 0.5)),
                     "p90", jout_u64(ebf_hist_quantile(h, 0.9)), "p99",
                     jout_u64(ebf_hist_quantile(h, 0.99)), "p999",
                     jout_u64(ebf_hist_quantile(h, 0.999)), "max", jout_u64(h->max));
}

/* The readouts' summary counters (sumtable.h); a gone readout's are not
 * there, and no zeros stand for them. */
static json_t *readout_json(const struct farm_result *r)
{
    json_t *o = json_object();
    int rc = !o;

    if (!rc && r->readouts_gone)
        rc = jout_set(o, "gone", jout_str(r->readout_gone)) |
             jout_set(o, "readouts_gone", json_integer(r->readouts_gone));
    if (!rc && (!r->readouts_gone || r->readout.n))
        rc = sum_json(o, &ro_counter_table, &r->readout) |
             sum_json(o, &ro_fault_counter_table, &r->readout);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A node by name, gone or with its summary counters. */
static json_t *node_json(const struct farm_node_result *n)
{
    json_t *o = json_pack("{s:o, s:b}", "name", jout_str(n->name), "gone", n->gone);

    if (o && !n->gone && sum_json(o, &node_counter_table, &n->kv) != 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A readout or SFC by name, gone or with its own summary counters (and a
 * readout's fault stage's); a readout with the sources it sends and where
 * its run ended (next_event, and stop_at: the staged stop's common end, 0
 * when none), an SFC with its place. */
static json_t *part_json(const struct farm_part_result *x, int readout)
{
    json_t *o = json_pack("{s:o, s:b}", "name", jout_str(x->name), "gone", x->gone);
    int rc = !o;

    if (!rc && readout)
        rc = jout_merge(o, json_pack("{s:i, s:i}", "first_source", (int)x->first_source,
                                     "n_sources", (int)x->n_sources));
    else if (!rc)
        rc = jout_set(o, "place", x->place >= 0 ? json_integer(x->place) : json_null());
    if (!rc && !x->gone && readout)
        rc = sum_json(o, &ro_counter_table, &x->kv) |
             sum_json(o, &ro_fault_counter_table, &x->kv) |
             jout_set(o, "next_event", jout_u64(ebf_kv_u64(&x->kv, "next_event", 0))) |
             jout_set(o, "stop_at", jout_u64(ebf_kv_u64(&x->kv, "stop_at", 0)));
    else if (!rc && !x->gone)
        rc = sum_json(o, &sfc_counter_table, &x->kv);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* An array of part_json of the n parts x. */
static json_t *parts_json(const struct farm_part_result *x, unsigned n, int readout)
{
    json_t *a = json_array();

    for (unsigned i = 0; a && i < n; i++)
        if (jout_append(a, part_json(&x[i], readout)) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* "readout", "sfc" and "nodes": each process's summary counters ("readout"
 * and "sfc" summed over the farm's), and "readouts" and "sfcs": a row per
 * readout and per SFC, gone ones named. */
static int processes_json(json_t *root, const struct farm_result *r)
{
    json_t *sfc = json_object(), *nodes = json_array();
    int rc = jout_set(root, "readout", readout_json(r));

    if (sfc && sum_json(sfc, &sfc_counter_table, &r->sfc) != 0) {
        json_decref(sfc);
        sfc = NULL;
    }
    for (unsigned i = 0; nodes && i < r->n_nodes; i++)
        if (jout_append(nodes, node_json(&r->node[i])) != 0) {
            json_decref(nodes);
            nodes = NULL;
        }
    return rc | jout_set(root, "sfc", sfc) | jout_set(root, "nodes", nodes) |
           jout_set(root, "readouts", parts_json(r->ro, r->n_ro, 1)) |
           jout_set(root, "sfcs", parts_json(r->sfcs, r->n_sfcs, 0));
}

/* What the run was asked to be, and where its processes ran. */
static json_t *config_json(const struct farm_conf *c, const struct farm_result *r)
{
    char sil[48];

    return json_pack("{s:o, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:o, s:o, s:o, s:s, s:i, s:o, "
                     "s:o, s:s, s:i, s:i, s:o}",
                     "events", jout_u64(c->events), "sources", (int)c->sources, "nodes",
                     (int)c->nodes, "readouts", (int)c->readouts, "sfcs", (int)c->sfcs,
                     "frag_min", (int)c->frag_min, "frag_max", (int)c->frag_max, "frag_dist",
                     dist_name(c->frag_dist), "frag_mean", jout_sig(c->frag_mean, 6),
                     "frag_sigma", jout_sig(c->frag_sigma, 6), "rate", jout_sig(c->rate, 6),
                     "encap", c->udp ? "udp" : "eth", "mtu", (int)c->mtu, "seed",
                     jout_u64(c->seed), "faults", jout_str(c->faults[0] ? c->faults : "none"),
                     "silence", silence_str(c, sil, sizeof(sil)), "burst_events",
                     (int)c->burst_events, "burst_gap_us", (int)c->burst_gap_us, "hosts",
                     placement_json(r));
}

static json_t *rates_json(const struct figures *fg)
{
    return json_pack("{s:o, s:o, s:o, s:o}", "seconds", jout_fixed(fg->seconds, 3),
                     "events_per_s", jout_round(fg->events_s), "frames_per_s",
                     jout_round(fg->frames_s), "payload_gbit_per_s",
                     jout_fixed(fg->payload_gbit_s, 3));
}

static json_t *latency_json(const struct figures *fg)
{
    char b[160], e[160];

    return json_pack("{s:o, s:o, s:i, s:i, s:{s:s, s:s}}", "build",
                     hist_json(&fg->build, !fg->build_sfcs && fg->build_apart), "end_to_end",
                     hist_json(&fg->e2e, !fg->e2e_nodes && fg->e2e_apart),
                     "end_to_end_nodes_apart", (int)fg->e2e_apart, "build_sfcs_apart",
                     (int)fg->build_apart, "clock", "build", build_clock(fg, b, sizeof(b)),
                     "end_to_end", e2e_clock(fg, e, sizeof(e)));
}

int summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                 const struct ledger *l)
{
    struct figures fg;
    json_t *o;

    struct farm_fo_view fo;

    figures(r, &fg);
    farm_fo_view_result(&fo, r);
    o = json_pack("{s:o, s:o, s:o}", "run", run_json(&r->id), "ledger", ledger_json(r, l),
                  "config", config_json(c, r));
    if (o && fo.on && jout_set(o, "failover", farm_fo_view_json(&fo)) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (o && (processes_json(o, r) |
              jout_merge(o, json_pack("{s:o, s:o, s:o}", "rates", rates_json(&fg), "capacity",
                                      capacity_json(r), "latency_ns", latency_json(&fg)))) != 0) {
        json_decref(o);
        o = NULL;
    }
    return jout_write(out, o, JOUT_LINES);
}

void summary_json_or_say(const struct farm_conf *c, const struct farm_result *r,
                         const struct ledger *l, const char *who)
{
    int rc = summary_json(stdout, c, r, l);

    if (rc != 0)
        fprintf(stderr, "%s: the JSON summary could not be written (%s)\n", who, strerror(-rc));
}
