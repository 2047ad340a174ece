/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_report.c - a soak's report as text lines, JSON lines and CSV. */
#include "soak_report.h"

#include <string.h>

void soak_jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static double total_rss_mb(const struct soak_interval *iv)
{
    uint64_t kb = 0;

    for (unsigned i = 0; i < iv->n_mem; i++)
        kb += iv->mem[i].rss_kb;
    return (double)kb / 1024.0;
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
    fflush(f);
}

void soak_json_header(FILE *f, const struct soak_meta *m)
{
    fprintf(f, "{\"type\":\"soak\",\"farm\":");
    soak_jstr(f, m->farm);
    fprintf(f, ",\"run\":%u,\"start_utc\":", m->run);
    soak_jstr(f, m->start_utc);
    fprintf(f, ",\"farm_file\":");
    soak_jstr(f, m->farm_file);
    fprintf(f, ",\"farm_file_sha256\":");
    soak_jstr(f, m->farm_file_sha256);
    fprintf(f, ",\"duration_s\":%g,\"interval_s\":%g,\"kill_node_every_s\":%g,"
            "\"stall_nodes_every_s\":%g,\"attached\":%s}\n", m->duration_s, m->interval_s,
            m->kill_every_s, m->stall_every_s, m->attached ? "true" : "false");
    fflush(f);
}

/* ,"key":{"<suffix>":N,...} for every count of c named "<prefix><suffix>". */
static void json_group(FILE *f, const char *key, const struct soak_counts *c, const char *prefix)
{
    size_t len = strlen(prefix);
    int first = 1;

    fprintf(f, ",\"%s\":{", key);
    for (unsigned i = 0; i < c->n; i++) {
        if (strncmp(c->c[i].name, prefix, len) != 0)
            continue;
        fprintf(f, "%s", first ? "" : ",");
        soak_jstr(f, c->c[i].name + len);
        fprintf(f, ":%llu", (unsigned long long)c->c[i].v);
        first = 0;
    }
    fputc('}', f);
}

static void json_latency(FILE *f, const struct soak_interval *iv)
{
    fprintf(f, ",\"latency_ns\":{");
    for (unsigned k = 0; k < SOAK_H_MAX; k++) {
        const struct soak_pct *p = &iv->lat[k];
        fprintf(f, "%s\"%s\":{\"count\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,"
                "\"p99_9\":%llu,\"max\":%llu}", k ? "," : "", soak_hist_key(k),
                (unsigned long long)p->count, (unsigned long long)p->p50,
                (unsigned long long)p->p90, (unsigned long long)p->p99,
                (unsigned long long)p->p999, (unsigned long long)p->max);
    }
    fputc('}', f);
}

void soak_json_interval(FILE *f, const struct soak_interval *iv)
{
    const struct soak_counts *d = &iv->d;

    fprintf(f, "{\"type\":\"interval\",\"index\":%u,\"t0\":%.3f,\"t1\":%.3f,"
            "\"events_per_s\":%.1f,\"frames_per_s\":%.1f,\"generated\":%llu,\"decided\":%llu,"
            "\"accepted\":%llu,\"rejected\":%llu,\"lost\":%llu,\"incomplete\":%llu,"
            "\"in_flight\":%lld,\"throttle_s\":%.6f,\"redispatched\":%llu,\"nodes_dead\":%llu,"
            "\"rejoins\":%llu",
            iv->index, iv->t0, iv->t1, iv->events_per_s, iv->frames_per_s,
            (unsigned long long)iv->generated, (unsigned long long)iv->decided,
            (unsigned long long)soak_counts_get(d, "accepted"),
            (unsigned long long)soak_counts_get(d, "rejected"), (unsigned long long)iv->lost,
            (unsigned long long)iv->incomplete, (long long)iv->in_flight, iv->throttle_s,
            (unsigned long long)soak_counts_get(d, "redispatched"),
            (unsigned long long)soak_counts_get(d, "nodes_dead"),
            (unsigned long long)soak_counts_get(d, "rejoins"));
    json_group(f, "lost_by_reason", d, "lost.");
    json_group(f, "rejects", d, "reject.");
    json_group(f, "drops", d, "drop.");
    json_group(f, "node_rejects", d, "node_reject.");
    json_group(f, "verify", d, "verify.");
    json_group(f, "missing_by_source", d, "missing.");
    fprintf(f, ",\"credits\":%.0f,\"ready\":%.0f,\"building\":%.0f,\"unacked\":%.0f,"
            "\"mempool_in_use\":%.0f,\"nodes_alive\":%u", iv->credits, iv->ready, iv->building,
            iv->unacked, iv->mempool, iv->nodes_alive);
    json_latency(f, iv);
    fprintf(f, ",\"processes\":[");
    for (unsigned i = 0; i < iv->n_mem; i++) {
        fprintf(f, "%s{\"name\":", i ? "," : "");
        soak_jstr(f, iv->mem[i].name);
        fprintf(f, ",\"pid\":%d,\"rss_kb\":%llu,\"mempool_in_use\":%.0f,\"log_bytes\":%llu}",
                iv->mem[i].pid, (unsigned long long)iv->mem[i].rss_kb, iv->mem[i].mempool,
                (unsigned long long)iv->mem[i].log_bytes);
    }
    fprintf(f, "]}\n");
    fflush(f);
}

static void json_counts(FILE *f, const char *key, const struct soak_counts *c)
{
    fprintf(f, ",\"%s\":{", key);
    for (unsigned i = 0; i < c->n; i++) {
        fprintf(f, "%s", i ? "," : "");
        soak_jstr(f, c->c[i].name);
        fprintf(f, ":%llu", (unsigned long long)c->c[i].v);
    }
    fputc('}', f);
}

static void json_bounds(FILE *f, const struct soak_bounds *b)
{
    fprintf(f, ",\"bounds\":{\"loss_default\":%llu,\"incomplete\":",
            (unsigned long long)b->loss_default);
    if (b->incomplete == SOAK_NO_LIMIT)
        fprintf(f, "null");
    else
        fprintf(f, "%llu", (unsigned long long)b->incomplete);
    fprintf(f, ",\"loss\":{");
    for (unsigned i = 0; i < b->n_budgets; i++) {
        fprintf(f, "%s", i ? "," : "");
        soak_jstr(f, b->budget_name[i]);
        fprintf(f, ":%llu", (unsigned long long)b->budget[i]);
    }
    fprintf(f, "},\"rss_growth_mb\":%g,\"p99_ms\":%g}", b->rss_growth_mb, b->p99_ms);
}

void soak_json_summary(FILE *f, const struct soak_meta *m, const struct soak_ledger_view *l,
                       const struct soak_bounds *b, const struct soak_verdict *v)
{
    fprintf(f, "{\"type\":\"summary\",\"farm\":");
    soak_jstr(f, m->farm);
    fprintf(f, ",\"run\":%u,\"start_utc\":", m->run);
    soak_jstr(f, m->start_utc);
    fprintf(f, ",\"stop_utc\":");
    soak_jstr(f, m->stop_utc);
    fprintf(f, ",\"elapsed_s\":%.3f,\"interrupted\":%s,\"kills\":%u,\"stalls\":%u", m->elapsed_s,
            m->interrupted ? "true" : "false", m->kills, m->stalls);
    fprintf(f, ",\"ledger\":{\"generated\":%llu,\"accepted\":%llu,\"rejected\":%llu,"
            "\"decided\":%llu,\"lost_total\":%llu,\"incomplete\":%llu,\"digest_match\":%s,"
            "\"ids_match\":%s,\"closed\":%s", (unsigned long long)l->f.generated,
            (unsigned long long)l->accepted, (unsigned long long)l->rejected,
            (unsigned long long)l->f.decided, (unsigned long long)l->f.lost_total,
            (unsigned long long)l->f.incomplete, l->digest_match ? "true" : "false",
            l->ids_match ? "true" : "false", l->f.closed ? "true" : "false");
    json_counts(f, "lost", &l->f.lost);
    json_counts(f, "missing_by_source", &l->f.missing);
    fputc('}', f);
    fprintf(f, ",\"before_soak\":{\"generated\":%llu,\"decided\":%llu,\"lost\":%llu}",
            (unsigned long long)l->f.base_generated, (unsigned long long)l->f.base_decided,
            (unsigned long long)l->f.base_lost);
    json_bounds(f, b);
    fprintf(f, ",\"verdict\":{\"result\":\"%s\",\"criteria\":[", v->pass ? "pass" : "fail");
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++) {
        fprintf(f, "%s{\"name\":\"%s\",\"pass\":%s,\"detail\":", i ? "," : "", soak_rule_name(i),
                v->rule[i].pass ? "true" : "false");
        soak_jstr(f, v->rule[i].detail);
        fputc('}', f);
    }
    fprintf(f, "],\"failed\":[");
    for (unsigned i = 0, k = 0; i < SOAK_RULE_MAX; i++)
        if (!v->rule[i].pass)
            fprintf(f, "%s\"%s\"", k++ ? "," : "", soak_rule_name(i));
    fprintf(f, "]}}\n");
    fflush(f);
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

void soak_verdict_text(FILE *f, const struct soak_verdict *v)
{
    fprintf(f, "verdict: %s", v->pass ? "PASS" : "FAIL (");
    for (unsigned i = 0, k = 0; i < SOAK_RULE_MAX; i++)
        if (!v->rule[i].pass)
            fprintf(f, "%s%s", k++ ? ", " : "", soak_rule_name(i));
    fprintf(f, "%s\n", v->pass ? "" : ")");
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++)
        fprintf(f, "  %-4s %-17s %s\n", v->rule[i].pass ? "ok" : "FAIL", soak_rule_name(i),
                v->rule[i].detail);
}
