/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sweep.c - the capacity sweeps as text, JSON and SVG figures. */
#include <math.h>
#include <stdio.h>

#include "bench_cap.h"
#include "jsonout.h"

void bench_sweeps_table(FILE *f, const struct bench_sweep *sw, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct bench_sweep *s = &sw[k];
        fprintf(f, "\n%s (%s %u): %s, frames per busy s, payload Gbit per busy s, "
                   "cycles per frame, frames per wall s\n",
                s->name, s->x_name[0] == 'f' ? "sources" : "frag_size", s->fixed, s->x_name);
        for (unsigned i = 0; i < s->n; i++)
            fprintf(f, "  %6.0f  %10.4g  %8.3g  %8.1f  %10.4g\n", s->x[i], s->y[i].fps,
                    s->y[i].gbps, s->y[i].cycles_per_frame, s->y[i].fps_wall);
    }
}

/* One sweep: its name, what it sweeps, what it holds fixed, its points. */
static json_t *sweep_json(const struct bench_sweep *s)
{
    json_t *pts = json_array();

    for (unsigned i = 0; pts && i < s->n; i++)
        if (jout_append(pts, json_pack("{s:o, s:o, s:o, s:o, s:o}", "x", jout_round(s->x[i]),
                                       "frames_per_busy_s", jout_sig(s->y[i].fps, 6),
                                       "payload_gbit_per_busy_s", jout_sig(s->y[i].gbps, 6),
                                       "cycles_per_frame", jout_sig(s->y[i].cycles_per_frame, 6),
                                       "frames_per_wall_s", jout_sig(s->y[i].fps_wall, 6))) != 0) {
            json_decref(pts);
            return NULL;
        }
    return json_pack("{s:s, s:s, s:i, s:o}", "name", s->name, "x", s->x_name,
                     s->x_name[0] == 'f' ? "sources" : "frag_size", (int)s->fixed, "points", pts);
}

json_t *bench_sweeps_json(const struct bench_sweep *sw, size_t n)
{
    json_t *a = json_array();

    for (size_t k = 0; a && k < n; k++)
        if (jout_append(a, sweep_json(&sw[k])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

#define W 720
#define PH 240                   /* one panel */
#define ML 70
#define MR 20
#define MT 40

/* One panel: y[i] (its own linear scale from 0) against log10 x. */
static void panel(FILE *f, const struct bench_sweep *s, const double *y, int top,
                  const char *label)
{
    double ymax = 0, x0 = log10(s->x[0]), x1 = log10(s->x[s->n - 1]);
    for (unsigned i = 0; i < s->n; i++)
        ymax = y[i] > ymax ? y[i] : ymax;
    ymax = ymax > 0 ? ymax * 1.1 : 1;
    if (x1 <= x0)
        x1 = x0 + 1;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
               "stroke=\"#888\"/>\n", ML, top, W - ML - MR, PH - 40);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s (max %.3g)</text>\n", ML, top - 6,
            label, ymax / 1.1);
    fputs("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"", f);
    for (unsigned i = 0; i < s->n; i++) {
        double px = ML + (log10(s->x[i]) - x0) / (x1 - x0) * (W - ML - MR);
        double py = top + (PH - 40) * (1 - y[i] / ymax);
        fprintf(f, "%.1f,%.1f ", px, py);
    }
    fputs("\"/>\n", f);
    for (unsigned i = 0; i < s->n; i++) {
        double px = ML + (log10(s->x[i]) - x0) / (x1 - x0) * (W - ML - MR);
        double py = top + (PH - 40) * (1 - y[i] / ymax);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#1f77b4\"/>"
                   "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.0f</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%.3g</text>\n",
                px, py, px, top + PH - 26, s->x[i], px, py - 6, y[i]);
    }
}

void bench_sweep_svg(FILE *f, const struct bench_sweep *s)
{
    double fps[BENCH_SWEEP_POINTS], gbps[BENCH_SWEEP_POINTS], wall[BENCH_SWEEP_POINTS];
    int workers = s->x_name[0] == 'w';
    for (unsigned i = 0; i < s->n; i++) {
        fps[i] = s->y[i].fps * 1e-6;
        gbps[i] = s->y[i].gbps;
        wall[i] = s->y[i].fps_wall * 1e-6;
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\">\n", W, MT + 2 * PH + 20);
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"14\">%s: SFC capacity per busy core "
               "against %s (%s %u, log scale)</text>\n",
            ML, s->name, s->x_name, s->x_name[0] == 'f' ? "sources" : "frag_size", s->fixed);
    if (s->n > 0 && workers) {
        panel(f, s, wall, MT + 10, "Mframes per wall second, every worker's lane");
        panel(f, s, fps, MT + PH + 20, "Mframes per busy second (per core)");
    } else if (s->n > 0) {
        panel(f, s, fps, MT + 10, "Mframes per busy second");
        panel(f, s, gbps, MT + PH + 20, "payload Gbit per busy second");
    }
    fputs("</svg>\n", f);
}
