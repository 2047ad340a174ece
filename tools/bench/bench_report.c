/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_report.c - benchmark results and metadata as a table, one JSON object or CSV. */
#include "bench_report.h"

#include <string.h>

void bench_result_set(struct bench_result *r, const char *name, const char *unit,
                      const char *reference, const double *s, const double *ref, size_t n)
{
    double ratio[BENCH_MAX_PAIRS];
    memset(r, 0, sizeof(*r));
    snprintf(r->name, sizeof(r->name), "%s", name);
    snprintf(r->unit, sizeof(r->unit), "%s", unit);
    snprintf(r->reference, sizeof(r->reference), "%s", reference);
    if (n > BENCH_MAX_PAIRS)
        n = BENCH_MAX_PAIRS;
    bench_ratios(s, ref, n, ratio);
    bench_spread_of(s, n, &r->value);
    bench_spread_of(ref, n, &r->reference_value);
    bench_spread_of(ratio, n, &r->ratio);
    r->pairs = (unsigned)n;
    r->pinned = -1;
}

/* The spread of the positive ones of v[0..n). */
static void spread_told(const double *v, size_t n, struct bench_spread *sp)
{
    double t[BENCH_MAX_PAIRS];
    size_t k = 0;
    for (size_t i = 0; i < n && i < BENCH_MAX_PAIRS; i++)
        if (v[i] > 0)
            t[k++] = v[i];
    if (k)
        bench_spread_of(t, k, sp);
    else
        memset(sp, 0, sizeof(*sp));
}

void bench_result_per_poll(struct bench_result *r, const double *s, const double *ref, size_t n)
{
    spread_told(s, n, &r->value_per_poll);
    spread_told(ref, n, &r->reference_per_poll);
    r->per_poll = r->value_per_poll.median > 0 || r->reference_per_poll.median > 0;
}

void bench_print_table(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                       size_t n)
{
    fprintf(f, "ebfarm bench%s, %s\n", m->quick ? " --quick" : "", m->date);
    fprintf(f, "cpu: %s, %.0f MHz, %u CPUs; DPDK %s; driver %s\n", m->cpu_model, m->cpu_mhz,
            m->cpus, m->dpdk_version, m->driver);
    fprintf(f, "fragment %u B, frame %u B; %u pairs (subject, reference alternated); "
               "median [min-max]\n\n",
            m->frag_size, m->frame_size, m->pairs);
    fprintf(f, "%-20s %-34s %-13s %-20s %-34s %s\n", "name", "value", "unit", "reference",
            "reference value", "ratio");
    for (size_t i = 0; i < n; i++) {
        char v[64], rv[64], ra[64];
        snprintf(v, sizeof(v), "%.4g [%.4g-%.4g]", r[i].value.median, r[i].value.min,
                 r[i].value.max);
        snprintf(rv, sizeof(rv), "%.4g [%.4g-%.4g]", r[i].reference_value.median,
                 r[i].reference_value.min, r[i].reference_value.max);
        snprintf(ra, sizeof(ra), "%.3f [%.3f-%.3f]", r[i].ratio.median, r[i].ratio.min,
                 r[i].ratio.max);
        fprintf(f, "%-20s %-34s %-13s %-20s %-34s %s%s\n", r[i].name, v, r[i].unit,
                r[i].reference, rv, ra, r[i].pinned == 0 ? "  (not pinned)" : "");
    }
    for (size_t i = 0; i < n; i++)
        if (r[i].per_poll)
            fprintf(f, "frames per busy poll: %s %.3g [%.3g-%.3g], %s %.3g [%.3g-%.3g]\n",
                    r[i].name, r[i].value_per_poll.median, r[i].value_per_poll.min,
                    r[i].value_per_poll.max, r[i].reference, r[i].reference_per_poll.median,
                    r[i].reference_per_poll.min, r[i].reference_per_poll.max);
    for (size_t i = 0; i < n; i++)
        if (r[i].note[0])
            fprintf(f, "note: %s: %s\n", r[i].name, r[i].note);
}

/* Names, units and the CPU model hold no quote or backslash of their own
 * making, but the CPU model comes from the kernel: escape it anyway. */
static void json_str(FILE *f, const char *s)
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

/* ,"notes":["name: note", ...] when a result has a note. */
static void json_notes(FILE *f, const struct bench_result *r, size_t n)
{
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        if (!r[i].note[0])
            continue;
        char s[sizeof(r[i].name) + sizeof(r[i].note) + 4];
        snprintf(s, sizeof(s), "%s: %s", r[i].name, r[i].note);
        fputs(any++ ? "," : ",\"notes\":[", f);
        json_str(f, s);
    }
    if (any)
        fputc(']', f);
}

static void json_meta(FILE *f, const struct bench_meta *m, const struct bench_result *r, size_t n)
{
    fputs("\"meta\":{\"cpu_model\":", f);
    json_str(f, m->cpu_model);
    fprintf(f, ",\"cpu_mhz\":%.3f,\"cpus\":%u,\"dpdk_version\":", m->cpu_mhz, m->cpus);
    json_str(f, m->dpdk_version);
    fputs(",\"driver\":", f);
    json_str(f, m->driver);
    fprintf(f, ",\"frame_size\":%u,\"frag_size\":%u,\"pairs\":%u,\"quick\":%s,\"date\":",
            m->frame_size, m->frag_size, m->pairs, m->quick ? "true" : "false");
    json_str(f, m->date);
    json_notes(f, r, n);
    fputc('}', f);
}

static void json_result(FILE *f, const struct bench_result *r)
{
    fputs("{\"name\":", f);
    json_str(f, r->name);
    fprintf(f, ",\"value\":%.6g,\"unit\":", r->value.median);
    json_str(f, r->unit);
    fputs(",\"reference\":", f);
    json_str(f, r->reference);
    fprintf(f,
            ",\"reference_value\":%.6g,\"ratio\":%.6g,\"pairs\":%u,"
            "\"value_min\":%.6g,\"value_max\":%.6g,"
            "\"reference_value_min\":%.6g,\"reference_value_max\":%.6g,"
            "\"ratio_min\":%.6g,\"ratio_max\":%.6g",
            r->reference_value.median, r->ratio.median, r->pairs, r->value.min, r->value.max,
            r->reference_value.min, r->reference_value.max, r->ratio.min, r->ratio.max);
    if (r->pinned >= 0)
        fprintf(f, ",\"pinned\":%s", r->pinned ? "true" : "false");
    if (r->per_poll)            /* 0: that side's runs did not tell */
        fprintf(f, ",\"frames_per_busy_poll\":%.6g,\"reference_frames_per_busy_poll\":%.6g",
                r->value_per_poll.median, r->reference_per_poll.median);
    if (r->note[0]) {
        fputs(",\"note\":", f);
        json_str(f, r->note);
    }
    fputc('}', f);
}

void bench_print_json(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                      size_t n)
{
    bench_print_json_with(f, m, r, n, NULL, NULL);
}

void bench_print_json_with(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                           size_t n, void (*sweeps_json)(FILE *f, const void *arg),
                           const void *arg)
{
    fputc('{', f);
    json_meta(f, m, r, n);
    fputs(",\"results\":[", f);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        json_result(f, &r[i]);
    }
    fputc(']', f);
    if (sweeps_json) {
        fputs(",\"sweeps\":", f);
        sweeps_json(f, arg);
    }
    fputs("}\n", f);
}

/* A CSV field: quoted, inner quotes doubled. */
static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void bench_print_csv(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                     size_t n)
{
    fputs("name,value,unit,reference,reference_value,ratio,pairs,value_min,value_max,"
          "reference_value_min,reference_value_max,ratio_min,ratio_max,"
          "cpu_model,cpu_mhz,dpdk_version,driver,frame_size,date\n",
          f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s,%.6g,%s,%s,%.6g,%.6g,%u,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", r[i].name,
                r[i].value.median, r[i].unit, r[i].reference, r[i].reference_value.median,
                r[i].ratio.median, r[i].pairs, r[i].value.min, r[i].value.max,
                r[i].reference_value.min, r[i].reference_value.max, r[i].ratio.min,
                r[i].ratio.max);
        csv_str(f, m->cpu_model);
        fprintf(f, ",%.3f,%s,", m->cpu_mhz, m->dpdk_version);
        csv_str(f, m->driver);
        fprintf(f, ",%u,%s\n", m->frame_size, m->date);
    }
}
