/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_report.c - a soak's report as text lines, JSON lines and CSV. */
#include "soak_report.h"

#include <string.h>

#include "jsonout.h"

static double total_rss_mb(const struct soak_interval *iv)
{
    uint64_t kb = 0;

    for (unsigned i = 0; i < iv->n_mem; i++)
        kb += iv->mem[i].rss_kb;
    return (double)kb / 1024.0;
}

void soak_fo_line(FILE *f, const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;

    fprintf(f, "         failover: SFC deaths seen %llu, recovered %llu (sums over the "
            "readouts; last %.1f ms, slowest readout), replayed "
            "%llu, redecided so far %llu; replay buffer %.1f MB (largest readout)\n",
            (unsigned long long)soak_counts_get(d, SOAK_FO_DEATHS),
            (unsigned long long)soak_counts_get(d, SOAK_FO_RECOVERIES), iv->recover_s * 1e3,
            (unsigned long long)soak_counts_get(d, SOAK_FO_REPLAYED),
            (unsigned long long)soak_counts_get(d, SOAK_FO_REDECIDED), iv->replay_bytes / 1e6);
}

void soak_live_line(FILE *f, const struct soak_interval *iv)
{
    const struct soak_pct *e = &iv->lat[SOAK_H_E2E];

    fprintf(f, "[%6.0fs] #%-4u %9.0f ev/s %10.0f fr/s  decided %-9llu lost %-5llu incompl %-6llu "
            "in flight %-6lld (sfc %-5.0f) throttled %5.2fs  e2e p99 %8.3f ms max %8.3f ms  "
            "rss %6.1f MB\n",
            iv->t1, iv->index, iv->events_per_s, iv->frames_per_s,
            (unsigned long long)iv->decided, (unsigned long long)iv->lost,
            (unsigned long long)iv->incomplete, (long long)iv->in_flight,
            iv->building + iv->ready + iv->unacked, iv->throttle_s, (double)e->p99 / 1e6, (double)e->max / 1e6, total_rss_mb(iv));
    if (iv->fo_on)
        soak_fo_line(f, iv);
    fflush(f);
}

/* A line of the report, or a message when it could not be made. */
static void report_write(FILE *f, json_t *o)
{
    if (jout_write(f, o, JOUT_COMPACT) != 0)
        fprintf(stderr, "ebfarm soak: a JSON line of the report could not be written\n");
}

void soak_json_header(FILE *f, const struct soak_meta *m)
{
    json_t *o = json_pack("{s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "type",
                          "soak", "farm", jout_str(m->farm), "run", (int)m->run, "start_utc",
                          jout_str(m->start_utc), "farm_file", jout_str(m->farm_file),
                          "farm_file_sha256", jout_str(m->farm_file_sha256), "duration_s",
                          jout_sig(m->duration_s, 6), "interval_s", jout_sig(m->interval_s, 6),
                          "kill_node_every_s", jout_sig(m->kill_every_s, 6),
                          "stall_nodes_every_s", jout_sig(m->stall_every_s, 6), "attached",
                          m->attached);

    if (o && m->kill_sfc_every_s > 0)
        jout_set(o, "kill_sfc_every_s", jout_sig(m->kill_sfc_every_s, 6));
    if (o && m->drain_sfc_every_s > 0)
        jout_set(o, "drain_sfc_every_s", jout_sig(m->drain_sfc_every_s, 6));

    report_write(f, o);
}

/* {"<suffix>":N,...} of every count of c named "<prefix><suffix>" (all of
 * them with prefix ""). */
static json_t *counts_json(const struct soak_counts *c, const char *prefix)
{
    size_t len = strlen(prefix);
    json_t *o = json_object();

    for (unsigned i = 0; o && i < c->n; i++) {
        if (strncmp(c->c[i].name, prefix, len) != 0)
            continue;
        if (jout_set(o, c->c[i].name + len, jout_u64(c->c[i].v)) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *latency_json(const struct soak_interval *iv)
{
    json_t *o = json_object();

    for (unsigned k = 0; o && k < SOAK_H_MAX; k++) {
        const struct soak_pct *p = &iv->lat[k];
        if (jout_set(o, soak_hist_key(k),
                     json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "count", jout_u64(p->count),
                               "p50", jout_u64(p->p50), "p90", jout_u64(p->p90), "p99",
                               jout_u64(p->p99), "p99_9", jout_u64(p->p999), "max",
                               jout_u64(p->max))) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *processes_json(const struct soak_interval *iv)
{
    json_t *a = json_array();

    for (unsigned i = 0; a && i < iv->n_mem; i++) {
        const struct soak_mem *m = &iv->mem[i];
        if (jout_append(a, json_pack("{s:o, s:i, s:o, s:o, s:o}", "name", jout_str(m->name),
                                     "pid", m->pid, "rss_kb", jout_u64(m->rss_kb),
                                     "mempool_in_use", jout_round(m->mempool), "log_bytes",
                                     jout_u64(m->log_bytes))) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The interval's ledger and rates: the line's first members. */
static json_t *interval_head(const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;

    return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, "
                     "s:o, s:o, s:o}",
                     "type", "interval", "index", (int)iv->index, "t0", jout_fixed(iv->t0, 3),
                     "t1", jout_fixed(iv->t1, 3), "events_per_s", jout_fixed(iv->events_per_s, 1),
                     "frames_per_s", jout_fixed(iv->frames_per_s, 1), "generated",
                     jout_u64(iv->generated), "decided", jout_u64(iv->decided), "accepted",
                     jout_u64(soak_counts_get(d, "accepted")), "rejected",
                     jout_u64(soak_counts_get(d, "rejected")), "lost", jout_u64(iv->lost),
                     "incomplete", jout_u64(iv->incomplete), "in_flight",
                     (json_int_t)iv->in_flight, "throttle_s", jout_fixed(iv->throttle_s, 6),
                     "redispatched", jout_u64(soak_counts_get(d, "redispatched")), "nodes_dead",
                     jout_u64(soak_counts_get(d, "nodes_dead")), "rejoins",
                     jout_u64(soak_counts_get(d, "rejoins")));
}

/* The interval's counts by reason, levels, latencies and processes. */
static json_t *interval_rest(const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;

    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o}",
                     "lost_by_reason", counts_json(d, "lost."), "rejects",
                     counts_json(d, "reject."), "drops", counts_json(d, "drop."),
                     "node_rejects", counts_json(d, "node_reject."), "verify",
                     counts_json(d, "verify."), "missing_by_source", counts_json(d, "missing."),
                     "credits", jout_round(iv->credits), "ready", jout_round(iv->ready),
                     "building", jout_round(iv->building), "unacked", jout_round(iv->unacked),
                     "mempool_in_use", jout_round(iv->mempool), "nodes_alive",
                     (int)iv->nodes_alive, "latency_ns", latency_json(iv), "processes",
                     processes_json(iv));
}

/* The interval's failover figures (failover on): counts in the interval,
 * levels at its end. */
static json_t *interval_fo(const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;

    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "sfc_deaths_seen",
                     jout_u64(soak_counts_get(d, SOAK_FO_DEATHS)), "recovered",
                     jout_u64(soak_counts_get(d, SOAK_FO_RECOVERIES)), "recover_last_s",
                     jout_fixed(iv->recover_s, 6), "replayed",
                     jout_u64(soak_counts_get(d, SOAK_FO_REPLAYED)), "redecided_marked",
                     jout_u64(soak_counts_get(d, SOAK_FO_REDECIDED)), "replay_held_bytes",
                     jout_u64((uint64_t)iv->replay_bytes));
}

void soak_json_interval(FILE *f, const struct soak_interval *iv)
{
    json_t *o = interval_head(iv);

    if (o && jout_merge(o, interval_rest(iv)) != 0) {
        json_decref(o);
        o = NULL;
    }
    if (o && iv->fo_on && jout_set(o, "failover", interval_fo(iv)) != 0) {
        json_decref(o);
        o = NULL;
    }
    report_write(f, o);
}

static json_t *bounds_json(const struct soak_bounds *b)
{
    json_t *loss = json_object();

    for (unsigned i = 0; loss && i < b->n_budgets; i++)
        if (jout_set(loss, b->budget_name[i], jout_u64(b->budget[i])) != 0) {
            json_decref(loss);
            return NULL;
        }
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "loss_default", jout_u64(b->loss_default),
                     "incomplete",
                     b->incomplete == SOAK_NO_LIMIT ? json_null() : jout_u64(b->incomplete),
                     "loss", loss, "rss_growth_mb", jout_sig(b->rss_growth_mb, 6), "p99_ms",
                     jout_sig(b->p99_ms, 6));
}

static json_t *ledger_json(const struct soak_ledger_view *l)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:b, s:o, s:o}", "generated",
                     jout_u64(l->f.generated), "accepted", jout_u64(l->accepted), "rejected",
                     jout_u64(l->rejected), "decided", jout_u64(l->f.decided), "lost_total",
                     jout_u64(l->f.lost_total), "incomplete", jout_u64(l->f.incomplete),
                     "digest_match", l->digest_match, "ids_match", l->ids_match, "closed",
                     l->f.closed, "lost", counts_json(&l->f.lost, ""), "missing_by_source",
                     counts_json(&l->f.missing, ""));
}

static json_t *verdict_json(const struct soak_verdict *v)
{
    json_t *criteria = json_array(), *failed = json_array();
    int rc = !criteria || !failed;

    for (unsigned i = 0; !rc && i < SOAK_RULE_MAX; i++) {
        rc |= jout_append(criteria, json_pack("{s:s, s:b, s:o}", "name", soak_rule_name(i),
                                              "pass", v->rule[i].pass, "detail",
                                              jout_str(v->rule[i].detail)));
        if (!v->rule[i].pass)
            rc |= jout_append(failed, json_string(soak_rule_name(i)));
    }
    if (rc) {
        json_decref(criteria);
        json_decref(failed);
        return NULL;
    }
    return json_pack("{s:s, s:o, s:o}", "result", v->pass ? "pass" : "fail", "criteria",
                     criteria, "failed", failed);
}

void soak_json_summary(FILE *f, const struct soak_meta *m, const struct soak_ledger_view *l,
                       const struct soak_bounds *b, const struct soak_verdict *v)
{
    json_t *o = json_pack("{s:s, s:o, s:i, s:o, s:o, s:o, s:b, s:i, s:i, s:o, "
                          "s:{s:o, s:o, s:o}, s:o, s:o}",
                          "type", "summary", "farm", jout_str(m->farm), "run", (int)m->run,
                          "start_utc", jout_str(m->start_utc), "stop_utc",
                          jout_str(m->stop_utc), "elapsed_s", jout_fixed(m->elapsed_s, 3),
                          "interrupted", m->interrupted, "kills", (int)m->kills, "stalls",
                          (int)m->stalls, "ledger", ledger_json(l), "before_soak", "generated",
                          jout_u64(l->f.base_generated), "decided", jout_u64(l->f.base_decided),
                          "lost", jout_u64(l->f.base_lost), "bounds", bounds_json(b), "verdict",
                          verdict_json(v));

    if (o && (m->kill_sfc_every_s > 0 || m->drain_sfc_every_s > 0))
        jout_merge(o, json_pack("{s:i, s:i}", "sfc_kills", (int)m->sfc_kills, "sfc_drains",
                                (int)m->drains));

    report_write(f, o);
}

#define CSV_LOST(X) X("event_table_full") X("stopped_building") X("no_node") \
    X("stopped_unacked") X("withheld")

void soak_csv_header(FILE *f)
{
    fprintf(f, "index,t0_s,t1_s,events_per_s,frames_per_s,generated,decided,accepted,rejected,"
            "lost,incomplete,in_flight");
#define CSV_H(r) fprintf(f, ",lost_%s", r);
    CSV_LOST(CSV_H)
#undef CSV_H
    fprintf(f, ",rejects,drops,throttle_s,credits,ready,building,unacked,mempool_in_use,"
            "nodes_alive,redispatched");
    for (unsigned k = 0; k < SOAK_H_MAX; k++)
        fprintf(f, ",%s_count,%s_p50_ns,%s_p90_ns,%s_p99_ns,%s_p99_9_ns,%s_max_ns",
                soak_hist_key(k), soak_hist_key(k), soak_hist_key(k), soak_hist_key(k),
                soak_hist_key(k), soak_hist_key(k));
    fprintf(f, ",rss_total_kb\n");
}

void soak_csv_row(FILE *f, const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;
    uint64_t rss = 0;

    fprintf(f, "%u,%.3f,%.3f,%.1f,%.1f,%llu,%llu,%llu,%llu,%llu,%llu,%lld", iv->index, iv->t0,
            iv->t1, iv->events_per_s, iv->frames_per_s, (unsigned long long)iv->generated,
            (unsigned long long)iv->decided, (unsigned long long)soak_counts_get(d, "accepted"),
            (unsigned long long)soak_counts_get(d, "rejected"), (unsigned long long)iv->lost,
            (unsigned long long)iv->incomplete, (long long)iv->in_flight);
#define CSV_V(r) fprintf(f, ",%llu", (unsigned long long)soak_counts_get(d, "lost." r));
    CSV_LOST(CSV_V)
#undef CSV_V
    fprintf(f, ",%llu,%llu,%.6f,%.0f,%.0f,%.0f,%.0f,%.0f,%u,%llu",
            (unsigned long long)soak_counts_sum(d, "reject."),
            (unsigned long long)soak_counts_sum(d, "drop."), iv->throttle_s, iv->credits,
            iv->ready, iv->building, iv->unacked, iv->mempool, iv->nodes_alive,
            (unsigned long long)soak_counts_get(d, "redispatched"));
    for (unsigned k = 0; k < SOAK_H_MAX; k++) {
        const struct soak_pct *p = &iv->lat[k];
        fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)p->count,
                (unsigned long long)p->p50, (unsigned long long)p->p90,
                (unsigned long long)p->p99, (unsigned long long)p->p999,
                (unsigned long long)p->max);
    }
    for (unsigned i = 0; i < iv->n_mem; i++)
        rss += iv->mem[i].rss_kb;
    fprintf(f, ",%llu\n", (unsigned long long)rss);
}

void soak_verdict_text(FILE *f, const struct soak_verdict *v, const char *cut)
{
    if (cut)
        fprintf(f, "verdict: INTERRUPTED after %s (the part run: ", cut);
    else
        fprintf(f, "verdict: ");
    fprintf(f, "%s", v->pass ? "PASS" : "FAIL (");
    for (unsigned i = 0, k = 0; i < SOAK_RULE_MAX; i++)
        if (!v->rule[i].pass)
            fprintf(f, "%s%s", k++ ? ", " : "", soak_rule_name(i));
    fprintf(f, "%s%s\n", v->pass ? "" : ")", cut ? ")" : "");
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++)
        fprintf(f, "  %-4s %-17s %s\n", v->rule[i].pass ? "ok" : "FAIL", soak_rule_name(i),
                v->rule[i].detail);
}
