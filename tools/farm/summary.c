/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c - a run's summary as text or JSON: the ledger, counters, rates and latency. */
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_hist.h"
#include "ro_fault.h"

/* Sum of every key that starts with prefix, over the nodes or one kv. */
static uint64_t prefix_sum(const struct ebf_kv *kv, const char *prefix)
{
    size_t n = strlen(prefix);
    uint64_t s = 0;
    for (unsigned i = 0; i < kv->n; i++)
        if (strncmp(kv->pair[i].key, prefix, n) == 0)
            s += strtoull(kv->pair[i].val, NULL, 0);
    return s;
}

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

static void hist_load(const struct ebf_kv *kv, const char *prefix, struct ebf_hist *h)
{
    char key[96];

    ebf_hist_init(h);
    snprintf(key, sizeof(key), "%s.count", prefix);
    h->count = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "%s.sum", prefix);
    h->sum = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "%s.min", prefix);
    h->min = h->count ? ebf_kv_u64(kv, key, 0) : UINT64_MAX;
    snprintf(key, sizeof(key), "%s.max", prefix);
    h->max = ebf_kv_u64(kv, key, 0);
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        snprintf(key, sizeof(key), "%s.bucket.%u", prefix, b);
        h->bucket[b] = ebf_kv_u64(kv, key, 0);
    }
}

struct figures {
    double seconds;
    double events_s, frames_s, payload_gbit_s;
    struct ebf_hist build, e2e;
};

static void figures(const struct farm_result *r, struct figures *fg)
{
    uint64_t t0 = ebf_kv_u64(&r->readout, "start_ns", 0);
    uint64_t t1 = ebf_kv_u64(&r->readout, "end_ns", 0);

    memset(fg, 0, sizeof(*fg));
    fg->seconds = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0;
    if (fg->seconds > 0) {
        fg->events_s = (double)ebf_kv_u64(&r->readout, "events", 0) / fg->seconds;
        fg->frames_s = (double)ebf_kv_u64(&r->readout, "frames", 0) / fg->seconds;
        fg->payload_gbit_s =
            (double)ebf_kv_u64(&r->readout, "payload_bytes", 0) * 8e-9 / fg->seconds;
    }
    hist_load(&r->sfc, "hist.build_ns", &fg->build);
    ebf_hist_init(&fg->e2e);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        struct ebf_hist h;
        hist_load(&r->node[i], "hist.e2e_ns", &h);
        ebf_hist_merge(&fg->e2e, &h);
    }
}

/* Print "name N" for every non-zero key under prefix, or "none". */
static void reasons_text(FILE *out, const struct ebf_kv *kv, const char *prefix)
{
    size_t n = strlen(prefix);
    int any = 0;
    for (unsigned i = 0; i < kv->n; i++) {
        const struct ebf_kv_pair *p = &kv->pair[i];
        if (strncmp(p->key, prefix, n) == 0 && strcmp(p->val, "0") != 0) {
            fprintf(out, "%s%s %s", any ? ", " : "", p->key + n, p->val);
            any = 1;
        }
    }
    if (!any)
        fprintf(out, "none");
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
           ebf_kv_u64(ro, "fault.frames_in", 0) > 0;
}

/* 1 when the readout's fault stage kept frames from the SFCs. */
/* What was asked for, then what the readout's fault stage did. */
static void faults_text(FILE *out, const struct farm_conf *c, const struct ebf_kv *ro)
{
    char key[48], sil[48];

    fprintf(out, "  faults   frame faults %s; silence %s; ", c->faults[0] ? c->faults : "none",
            silence_str(c, sil, sizeof(sil)));
    if (c->burst_events)
        fprintf(out, "bursts of %u events, %u us apart", c->burst_events, c->burst_gap_us);
    else
        fprintf(out, "no bursts");
    fprintf(out, "; seed %" PRIu64 "\n           readout: of %" PRIu64 " frames:", c->seed,
            ebf_kv_u64(ro, "fault.frames_in", 0));
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        snprintf(key, sizeof(key), "fault.%s", ro_fault_counter(k));
        fprintf(out, "%s %s %" PRIu64, k ? "," : "", ro_fault_counter(k), ebf_kv_u64(ro, key, 0));
    }
    fprintf(out, "; silenced %" PRIu64 " frames (%" PRIu64 " fragments); %" PRIu64
            " burst gaps; not done: %" PRIu64 " duplicates (no mbuf), %" PRIu64
            " reorders/delays (hold full)\n",
            ebf_kv_u64(ro, "fault.silenced_frames", 0),
            ebf_kv_u64(ro, "fault.silenced_fragments", 0), ebf_kv_u64(ro, "fault.burst_gaps", 0),
            ebf_kv_u64(ro, "fault.dup_failed", 0), ebf_kv_u64(ro, "fault.hold_full", 0));
}

void summary_text(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l)
{
    struct figures fg;
    const struct ebf_kv *ro = &r->readout, *sfc = &r->sfc;

    figures(r, &fg);
    fprintf(out, "ebfarm run: %" PRIu64 " events x %u sources, fragments ", c->events,
            c->sources);
    if (c->frag_dist == FF_DIST_LOGNORMAL)
        fprintf(out, "log-normal (mean %g B, sd %g B) in ", c->frag_mean, c->frag_sigma);
    fprintf(out, "%u..%u B, %u nodes\n", c->frag_min, c->frag_max, c->nodes);
    fprintf(out, "  readout  generated %" PRIu64 " events, sent %" PRIu64 " frames (%" PRIu64
            " bytes); back-pressure: %" PRIu64 " frames refused at first try, all retried\n"
            "           throttled %" PRIu64 " times for %.1f ms in all (%" PRIu64
            " throttle frames heard)\n",
            l->generated, ebf_kv_u64(ro, "frames", 0), ebf_kv_u64(ro, "bytes", 0),
            ebf_kv_u64(ro, "tx_refused", 0), ebf_kv_u64(ro, "throttle.holds", 0),
            (double)ebf_kv_u64(ro, "throttle.held_ns", 0) / 1e6,
            ebf_kv_u64(ro, "throttle.frames", 0));
    if (any_faults(c, ro))
        faults_text(out, c, ro);
    fprintf(out, "  sfc      received %" PRIu64 " frames; rejected: ",
            ebf_kv_u64(sfc, "rx.frames", 0));
    reasons_text(out, sfc, "rx.reject.");
    fprintf(out, "; dropped: ");
    reasons_text(out, sfc, "rx.drop.");
    fprintf(out, "\n           sequence gaps by source: ");
    reasons_text(out, sfc, "seq.gap.");
    fprintf(out, "; of them filled later (reordered): ");
    reasons_text(out, sfc, "seq.reorder.");
    fprintf(out, "; repeated: ");
    reasons_text(out, sfc, "seq.dup.");
    fprintf(out, "; throttle on %" PRIu64 " times, %" PRIu64 " frames (%" PRIu64 " refused)",
            ebf_kv_u64(sfc, "throttle.on", 0), ebf_kv_u64(sfc, "throttle.frames", 0),
            ebf_kv_u64(sfc, "throttle.tx_fail", 0));
    fprintf(out, "\n           built %" PRIu64 " complete, %" PRIu64 " incomplete; sent %" PRIu64
            " events in %" PRIu64 " frames; acked %" PRIu64 "\n",
            ebf_kv_u64(sfc, "events.complete", 0), ebf_kv_u64(sfc, "events.incomplete", 0),
            ebf_kv_u64(sfc, "events.sent", 0), ebf_kv_u64(sfc, "tx.frames", 0),
            ebf_kv_u64(sfc, "ack.events", 0));
    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct ebf_kv *n = &r->node[i];
        fprintf(out, "  node%-4u decided %" PRIu64 " (accepted %" PRIu64 ", rejected %" PRIu64
                "), bad events %" PRIu64 ", rejected frames %" PRIu64 "\n",
                i, ebf_kv_u64(n, "events", 0), ebf_kv_u64(n, "accepted", 0),
                ebf_kv_u64(n, "rejected", 0), ebf_kv_u64(n, "events_bad", 0),
                prefix_sum(n, "rx.reject."));
    }
    fprintf(out, "  ledger   generated %" PRIu64 " = accepted %" PRIu64 " + rejected %" PRIu64
            " + lost %" PRIu64 "; incomplete %" PRIu64 "\n",
            l->generated, l->accepted, l->rejected, l->lost_total, l->incomplete);
    fprintf(out, "           lost by reason:");
    for (unsigned i = 0; i < l->n_lost; i++)
        fprintf(out, " %s %" PRIu64 "%s", l->lost_name[i], l->lost[i],
                i + 1 < l->n_lost ? "," : "");
    fprintf(out, "\n           incomplete by missing source: ");
    reasons_text(out, sfc, "missing.source.");
    fprintf(out, "\n           nodes: %" PRIu64 " declared dead, %" PRIu64 " events re-dispatched, %"
            PRIu64 " late acks ignored, %" PRIu64 " rejoins, %" PRIu64 " revived; ",
            l->nodes_dead, l->redispatched, l->late_acks, l->rejoins, l->revived);
    if (l->nodes_reported)
        fprintf(out, "the nodes' acks %s the SFC's", l->nodes_agree ? "agree with" : "DIFFER FROM");
    else
        fprintf(out, "%u node(s) gave no counters, %" PRIu64 " restarted (not cross-checked)",
                l->nodes_silent, l->rejoins);
    fprintf(out, "\n           %s", l->closed ? "CLOSED" : "NOT CLOSED");
    if (!l->closed)
        fprintf(out, " (unaccounted %" PRId64 ", id digest %s, id records %s)", l->unaccounted,
                l->digest_match ? "agrees" : "differs", l->ids_match ? "agree" : "differ");
    if (!l->ids_match) {
        fprintf(out, "\n           ledger.mismatch: ids generated but in no bucket: ");
        ids_text(out, l->missing, l->n_missing, !l->ids_listed || l->n_missing == LEDGER_MAX_IDS);
        fprintf(out, "; ids counted twice or never generated: ");
        ids_text(out, l->extra, l->n_extra, !l->ids_listed || l->n_extra == LEDGER_MAX_IDS);
    }
    fprintf(out, "\n  rate     %.0f events/s, %.0f frames/s, %.2f Gbit/s payload over %.2f s\n",
            fg.events_s, fg.frames_s, fg.payload_gbit_s, fg.seconds);
    fprintf(out, "  latency  build p50 %.1f us p99 %.1f us; end-to-end p50 %.1f us p99 %.1f us max %.1f us\n",
            ebf_hist_quantile(&fg.build, 0.5) / 1e3, ebf_hist_quantile(&fg.build, 0.99) / 1e3,
            ebf_hist_quantile(&fg.e2e, 0.5) / 1e3, ebf_hist_quantile(&fg.e2e, 0.99) / 1e3,
            (double)fg.e2e.max / 1e3);
}

/* JSON object of every key under prefix with a non-empty remainder. */
static void reasons_json(FILE *out, const struct ebf_kv *kv, const char *prefix)
{
    size_t n = strlen(prefix);
    int any = 0;
    fputc('{', out);
    for (unsigned i = 0; i < kv->n; i++) {
        const struct ebf_kv_pair *p = &kv->pair[i];
        if (strncmp(p->key, prefix, n) == 0) {
            fprintf(out, "%s\"%s\": %s", any ? ", " : "", p->key + n, p->val);
            any = 1;
        }
    }
    fputc('}', out);
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

/* The readout's fault counters, ", \"faults\": {...}},\n" closing the readout object;
 * zeros when it had no fault stage. */
static void faults_json(FILE *out, const struct ebf_kv *ro)
{
    static const char *const more[] = {
        "silenced_frames", "silenced_fragments", "dup_failed", "hold_full", "burst_gaps",
    };
    char key[48];

    fprintf(out, ", \"faults\": {\"frames_in\": %" PRIu64, ebf_kv_u64(ro, "fault.frames_in", 0));
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        snprintf(key, sizeof(key), "fault.%s", ro_fault_counter(k));
        fprintf(out, ", \"%s\": %" PRIu64, ro_fault_counter(k), ebf_kv_u64(ro, key, 0));
    }
    for (unsigned i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
        snprintf(key, sizeof(key), "fault.%s", more[i]);
        fprintf(out, ", \"%s\": %" PRIu64, more[i], ebf_kv_u64(ro, key, 0));
    }
    fprintf(out, ", \"dropped_by_source\": ");
    reasons_json(out, ro, "fault.dropped.source.");
    fprintf(out, "}},\n");
}

void summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l)
{
    struct figures fg;
    const struct ebf_kv *ro = &r->readout, *sfc = &r->sfc;

    figures(r, &fg);
    fprintf(out, "{\"ledger\": {\"generated\": %" PRIu64 ", \"accepted\": %" PRIu64
            ", \"rejected\": %" PRIu64 ", \"incomplete\": %" PRIu64 ", \"lost\": {",
            l->generated, l->accepted, l->rejected, l->incomplete);
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
    reasons_json(out, sfc, "missing.source.");
    fprintf(out, ", \"nodes_dead\": %" PRIu64 ", \"redispatched\": %" PRIu64
            ", \"late_acks\": %" PRIu64 ", \"rejoins\": %" PRIu64 ", \"revived\": %" PRIu64
            ", \"nodes_silent\": %u"
            ", \"nodes_agree\": %s, \"closed\": %s},\n",
            l->nodes_dead, l->redispatched, l->late_acks, l->rejoins, l->revived, l->nodes_silent,
            l->nodes_reported ? (l->nodes_agree ? "true" : "false") : "null",
            l->closed ? "true" : "false");
    char sil[48];
    fprintf(out, " \"config\": {\"events\": %" PRIu64 ", \"sources\": %u, \"nodes\": %u"
            ", \"frag_min\": %u, \"frag_max\": %u, \"frag_dist\": \"%s\", \"frag_mean\": %g"
            ", \"frag_sigma\": %g, \"rate\": %g, \"encap\": \"%s\", \"seed\": %" PRIu64
            ", \"faults\": \"%s\", \"silence\": \"%s\", \"burst_events\": %u"
            ", \"burst_gap_us\": %u},\n",
            c->events, c->sources, c->nodes, c->frag_min, c->frag_max, dist_name(c->frag_dist),
            c->frag_mean, c->frag_sigma, c->rate, c->udp ? "udp" : "eth", c->seed,
            c->faults[0] ? c->faults : "none", silence_str(c, sil, sizeof(sil)), c->burst_events,
            c->burst_gap_us);
    fprintf(out, " \"readout\": {\"events\": %" PRIu64 ", \"frames\": %" PRIu64
            ", \"bytes\": %" PRIu64 ", \"tx_refused\": %" PRIu64 ", \"tx_abandoned\": %" PRIu64,
            ebf_kv_u64(ro, "events", 0), ebf_kv_u64(ro, "frames", 0), ebf_kv_u64(ro, "bytes", 0),
            ebf_kv_u64(ro, "tx_refused", 0), ebf_kv_u64(ro, "tx_abandoned", 0));
    fprintf(out, ", \"throttle\": {\"holds\": %" PRIu64 ", \"held_ms\": %.1f, \"frames\": %" PRIu64
            ", \"stale\": %" PRIu64 ", \"rejected\": %" PRIu64 "}, \"rx_other\": %" PRIu64,
            ebf_kv_u64(ro, "throttle.holds", 0), (double)ebf_kv_u64(ro, "throttle.held_ns", 0) / 1e6,
            ebf_kv_u64(ro, "throttle.frames", 0), ebf_kv_u64(ro, "throttle.stale", 0),
            ebf_kv_u64(ro, "throttle.rejected", 0), ebf_kv_u64(ro, "rx.other", 0));
    faults_json(out, ro);
    fprintf(out, " \"sfc\": {\"rx_frames\": %" PRIu64 ", \"rx_reject\": ",
            ebf_kv_u64(sfc, "rx.frames", 0));
    reasons_json(out, sfc, "rx.reject.");
    fprintf(out, ", \"rx_drop\": ");
    reasons_json(out, sfc, "rx.drop.");
    fprintf(out, ", \"events_complete\": %" PRIu64 ", \"events_incomplete\": %" PRIu64
            ", \"events_sent\": %" PRIu64 ", \"tx_frames\": %" PRIu64 ", \"acks\": %" PRIu64
            ", \"missing_by_source\": ",
            ebf_kv_u64(sfc, "events.complete", 0), ebf_kv_u64(sfc, "events.incomplete", 0),
            ebf_kv_u64(sfc, "events.sent", 0), ebf_kv_u64(sfc, "tx.frames", 0),
            ebf_kv_u64(sfc, "ack.events", 0));
    reasons_json(out, sfc, "missing.source.");
    fprintf(out, ", \"seq_gap\": ");
    reasons_json(out, sfc, "seq.gap.");
    fprintf(out, ", \"seq_reorder\": ");
    reasons_json(out, sfc, "seq.reorder.");
    fprintf(out, ", \"seq_dup\": ");
    reasons_json(out, sfc, "seq.dup.");
    fprintf(out, ", \"late_by_source\": ");
    reasons_json(out, sfc, "late.source.");
    fprintf(out, ", \"throttle\": {\"on\": %" PRIu64 ", \"off\": %" PRIu64 ", \"frames\": %" PRIu64
            ", \"tx_fail\": %" PRIu64 "}",
            ebf_kv_u64(sfc, "throttle.on", 0), ebf_kv_u64(sfc, "throttle.off", 0),
            ebf_kv_u64(sfc, "throttle.frames", 0), ebf_kv_u64(sfc, "throttle.tx_fail", 0));
    fprintf(out, "},\n \"nodes\": [");
    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct ebf_kv *n = &r->node[i];
        fprintf(out, "%s{\"events\": %" PRIu64 ", \"accepted\": %" PRIu64 ", \"rejected\": %" PRIu64
                ", \"incomplete\": %" PRIu64 ", \"events_bad\": %" PRIu64 ", \"verify\": ",
                i ? ", " : "", ebf_kv_u64(n, "events", 0), ebf_kv_u64(n, "accepted", 0),
                ebf_kv_u64(n, "rejected", 0), ebf_kv_u64(n, "incomplete", 0),
                ebf_kv_u64(n, "events_bad", 0));
        reasons_json(out, n, "verify.");
        fprintf(out, ", \"rx_reject\": ");
        reasons_json(out, n, "rx.reject.");
        fputc('}', out);
    }
    fprintf(out, "],\n \"rates\": {\"seconds\": %.3f, \"events_per_s\": %.0f, \"frames_per_s\": %.0f"
            ", \"payload_gbit_per_s\": %.3f},\n",
            fg.seconds, fg.events_s, fg.frames_s, fg.payload_gbit_s);
    fprintf(out, " \"latency_ns\": {\"build\": ");
    hist_json(out, &fg.build);
    fprintf(out, ", \"end_to_end\": ");
    hist_json(out, &fg.e2e);
    fprintf(out, "}}\n");
}
