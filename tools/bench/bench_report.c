/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_report.c - benchmark results and metadata as a table, one JSON object or CSV. */
#include "bench_report.h"

#include <string.h>

#include "jsonout.h"

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

void bench_result_link(struct bench_result *r, const double *s, const double *ref,
                       const double *rx, const double *tx, size_t n)
{
    double lrx[BENCH_MAX_PAIRS], ltx[BENCH_MAX_PAIRS], all[BENCH_MAX_PAIRS];
    double own[BENCH_MAX_PAIRS], like[BENCH_MAX_PAIRS], ratio[BENCH_MAX_PAIRS];
    size_t k = 0;

    for (size_t i = 0; i < n && i < BENCH_MAX_PAIRS; i++) {
        if (rx[i] + tx[i] <= 0 || ref[i] <= 0)
            continue;
        lrx[k] = rx[i];
        ltx[k] = tx[i];
        all[k] = rx[i] + tx[i];
        own[k] = s[i] - all[k];
        like[k] = (s[i] - tx[i]) / ref[i];
        ratio[k] = own[k] / ref[i];
        k++;
    }
    r->link = k > 0;
    bench_spread_of(lrx, k, &r->link_rx);
    bench_spread_of(ltx, k, &r->link_tx);
    bench_spread_of(all, k, &r->link_all);
    bench_spread_of(own, k, &r->own);
    bench_spread_of(like, k, &r->like);
    bench_spread_of(ratio, k, &r->own_ratio);
}

/* The link split's lines of the table, of the results that have it. */
static void print_links(FILE *f, const struct bench_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!r[i].link)
            continue;
        fprintf(f, "link split: %s %.4g %s: link copies %.4g (receive %.4g, transmit %.4g), "
                   "own %.4g (medians of the pairs)\n",
                r[i].name, r[i].value.median, r[i].unit, r[i].link_all.median,
                r[i].link_rx.median, r[i].link_tx.median, r[i].own.median);
        fprintf(f, "link split: %s less its transmit copy over %s (one receive copy each) "
                   "%.3f [%.3f-%.3f]; own over %s's whole %.3f [%.3f-%.3f]\n",
                r[i].name, r[i].reference, r[i].like.median, r[i].like.min, r[i].like.max,
                r[i].reference, r[i].own_ratio.median, r[i].own_ratio.min,
                r[i].own_ratio.max);
    }
}

void bench_print_table(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                       size_t n)
{
    fprintf(f, "ebfarm bench%s, %s\n", m->quick ? " --quick" : "", m->date);
    fprintf(f, "cpu: %s, %.0f MHz, %u CPUs; DPDK %s; driver %s\n", m->cpu_model, m->cpu_mhz,
            m->cpus, m->dpdk_version, m->driver);
    fprintf(f, "fragment %u B, frame %u B; %u pairs (subject, reference alternated); "
               "in-process rigs on %s; median [min-max]\n\n",
            m->frag_size, m->frame_size, m->pairs,
            m->rig_hugepages ? "hugepages" : "4 KiB pages");
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
    print_links(f, r, n);
    for (size_t i = 0; i < n; i++)
        if (r[i].note[0])
            fprintf(f, "note: %s: %s\n", r[i].name, r[i].note);
}

/* ["name: note", ...] of the results that have a note, or NULL when none
 * has one (or out of memory). */
static json_t *notes_json(const struct bench_result *r, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++) {
        char s[sizeof(r[i].name) + sizeof(r[i].note) + 4];
        if (!r[i].note[0])
            continue;
        snprintf(s, sizeof(s), "%s: %s", r[i].name, r[i].note);
        if (jout_append(a, jout_str(s)) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    if (a && !json_array_size(a)) {
        json_decref(a);
        a = NULL;
    }
    return a;
}

static json_t *meta_json(const struct bench_meta *m, const struct bench_result *r, size_t n)
{
    json_t *o = json_pack("{s:o, s:o, s:i, s:o, s:o, s:i, s:i, s:i, s:b, s:b, s:o}",
                          "cpu_model", jout_str(m->cpu_model), "cpu_mhz",
                          jout_fixed(m->cpu_mhz, 3), "cpus", (int)m->cpus, "dpdk_version",
                          jout_str(m->dpdk_version), "driver", jout_str(m->driver),
                          "frame_size", (int)m->frame_size, "frag_size", (int)m->frag_size,
                          "pairs", (int)m->pairs, "quick", m->quick, "rig_hugepages",
                          m->rig_hugepages, "date", jout_str(m->date));
    json_t *notes = notes_json(r, n);

    if (o && notes && jout_set(o, "notes", notes) != 0) {
        json_decref(o);
        return NULL;
    }
    if (!o)
        json_decref(notes);
    return o;
}

/* Six significant digits, as the table's and the CSV's %.6g. */
static json_t *sig6(double v)
{
    return jout_sig(v, 6);
}

/* The link split's members of a result (bench_result_link). */
static json_t *link_json(const struct bench_result *r)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "link_cycles_per_frame", sig6(r->link_all.median),
                     "link_rx_cycles_per_frame", sig6(r->link_rx.median),
                     "link_tx_cycles_per_frame", sig6(r->link_tx.median), "own_cycles_per_frame",
                     sig6(r->own.median), "like_for_like_ratio", sig6(r->like.median),
                     "like_for_like_ratio_min", sig6(r->like.min), "like_for_like_ratio_max",
                     sig6(r->like.max), "own_ratio", sig6(r->own_ratio.median), "own_ratio_min",
                     sig6(r->own_ratio.min), "own_ratio_max", sig6(r->own_ratio.max));
}

static json_t *result_json(const struct bench_result *r)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
                          "name", jout_str(r->name), "value", sig6(r->value.median), "unit",
                          jout_str(r->unit), "reference", jout_str(r->reference),
                          "reference_value", sig6(r->reference_value.median), "ratio",
                          sig6(r->ratio.median), "pairs", (int)r->pairs, "value_min",
                          sig6(r->value.min), "value_max", sig6(r->value.max),
                          "reference_value_min", sig6(r->reference_value.min),
                          "reference_value_max", sig6(r->reference_value.max), "ratio_min",
                          sig6(r->ratio.min), "ratio_max", sig6(r->ratio.max));

    if (o && r->pinned >= 0 && jout_set(o, "pinned", json_boolean(r->pinned)) != 0)
        goto fail;
    if (o && r->per_poll &&     /* 0: that side's runs did not tell */
        (jout_set(o, "frames_per_busy_poll", sig6(r->value_per_poll.median)) != 0 ||
         jout_set(o, "reference_frames_per_busy_poll", sig6(r->reference_per_poll.median)) != 0))
        goto fail;
    if (o && r->link && jout_merge(o, link_json(r)) != 0)
        goto fail;
    if (o && r->note[0] && jout_set(o, "note", jout_str(r->note)) != 0)
        goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

static json_t *bench_json(const struct bench_meta *m, const struct bench_result *r, size_t n)
{
    json_t *results = json_array();

    for (size_t i = 0; results && i < n; i++)
        if (jout_append(results, result_json(&r[i])) != 0) {
            json_decref(results);
            return NULL;
        }
    return json_pack("{s:o, s:o}", "meta", meta_json(m, r, n), "results", results);
}

void bench_print_json(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                      size_t n)
{
    bench_print_json_with(f, m, r, n, NULL);
}

void bench_print_json_with(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                           size_t n, json_t *sweeps)
{
    json_t *o = bench_json(m, r, n);

    if (o && sweeps && jout_set(o, "sweeps", sweeps) != 0) {
        json_decref(o);
        o = NULL;
    } else if (!o) {
        json_decref(sweeps);
    }
    if (jout_write(f, o, JOUT_COMPACT) != 0)
        fprintf(stderr, "ebfarm bench: the JSON could not be written\n");
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
