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
                   "cycles per frame, frames per wall s, MTU\n",
                s->name, s->x_name[0] == 'f' ? "sources" : "frag_size", s->fixed, s->x_name);
        for (unsigned i = 0; i < s->n; i++)
            fprintf(f, "  %6.0f  %10.4g  %8.3g  %8.1f  %10.4g  %5u\n", s->x[i], s->y[i].fps,
                    s->y[i].gbps, s->y[i].cycles_per_frame, s->y[i].fps_wall, s->mtu[i]);
    }
}

/* One point of a sweep: its medians, the MTU it ran at, and the min-max of
 * its runs. */
static json_t *point_json(const struct bench_sweep *s, unsigned i)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}",
                     "x", jout_round(s->x[i]), "frames_per_busy_s", jout_sig(s->y[i].fps, 6),
                     "payload_gbit_per_busy_s", jout_sig(s->y[i].gbps, 6), "cycles_per_frame",
                     jout_sig(s->y[i].cycles_per_frame, 6), "frames_per_wall_s",
                     jout_sig(s->y[i].fps_wall, 6), "mtu", (int)s->mtu[i], "runs", (int)s->runs,
                     "frames_per_busy_s_min", jout_sig(s->lo[i].fps, 6),
                     "frames_per_busy_s_max", jout_sig(s->hi[i].fps, 6),
                     "payload_gbit_per_busy_s_min", jout_sig(s->lo[i].gbps, 6),
                     "payload_gbit_per_busy_s_max", jout_sig(s->hi[i].gbps, 6),
                     "frames_per_wall_s_min", jout_sig(s->lo[i].fps_wall, 6),
                     "frames_per_wall_s_max", jout_sig(s->hi[i].fps_wall, 6));
}

/* One sweep: its name, what it sweeps, what it holds fixed, its points. */
static json_t *sweep_json(const struct bench_sweep *s)
{
    json_t *pts = json_array();

    for (unsigned i = 0; pts && i < s->n; i++)
        if (jout_append(pts, point_json(s, i)) != 0) {
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
#define PH 260                   /* one panel */
#define ML 80
#define MR 70
#define MT 40
#define PLOT_H (PH - 60)         /* the plotting area of a panel */
#define FOOT 40

/* A step of about a fifth of max from 1, 2 or 5 times a power of ten. */
static double tick_step(double max)
{
    double raw = max / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

/* The x position of point i: log10 x across the plot, from the first
 * point to the last. */
static double px_of(const struct bench_sweep *s, unsigned i)
{
    double x0 = log10(s->x[0]), x1 = log10(s->x[s->n - 1]);
    if (x1 <= x0)
        x1 = x0 + 1;
    return ML + 10 + (log10(s->x[i]) - x0) / (x1 - x0) * (W - ML - MR - 20);
}

/* The y axis: the zero baseline, ticks with values, and its title. */
static void y_axis(FILE *f, int top, double ymax, const char *label)
{
    double step = tick_step(ymax);
    for (double v = 0; v <= ymax * 1.0001; v += step) {
        double py = top + PLOT_H * (1 - v / ymax);
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>"
                   "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\">%g</text>\n",
                ML - 4, py, W - MR, py, v == 0 ? "#000" : "#ddd", ML - 6, py + 3, v);
    }
    fprintf(f, "<text x=\"14\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\" "
               "transform=\"rotate(-90 14 %d)\">%s</text>\n",
            top + PLOT_H / 2, top + PLOT_H / 2, label);
}

/* One panel: y[i] (its own linear scale from 0) against log10 x, with
 * y_lo..y_hi drawn as the spread of each point (min-max of its runs). */
static void panel(FILE *f, const struct bench_sweep *s, const double *y, const double *y_lo,
                  const double *y_hi, int top, const char *label)
{
    double ymax = 0;
    for (unsigned i = 0; i < s->n; i++)
        ymax = y_hi[i] > ymax ? y_hi[i] : ymax;
    ymax = ymax > 0 ? ymax * 1.1 : 1;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", ML, top - 8, label);
    y_axis(f, top, ymax, label);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>\n", ML, top,
            ML, top + PLOT_H);
    fputs("<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"", f);
    for (unsigned i = 0; i < s->n; i++)
        if (s->mtu[i] == s->mtu[0])      /* the line joins the points of one MTU */
            fprintf(f, "%.1f,%.1f ", px_of(s, i), top + PLOT_H * (1 - y[i] / ymax));
    fputs("\"/>\n", f);
    for (unsigned i = 0; i < s->n; i++) {
        double px = px_of(s, i), py = top + PLOT_H * (1 - y[i] / ymax);
        int jumbo = s->mtu[i] != s->mtu[0];
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>",
                px, top + PLOT_H * (1 - y_lo[i] / ymax), px, top + PLOT_H * (1 - y_hi[i] / ymax));
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%.0f%s</text>"
                   "<text x=\"%.1f\" y=\"%.1f\" font-size=\"9\" text-anchor=\"%s\">%.3g</text>\n",
                px, py, jumbo ? "#d62728" : "#1f77b4", px, top + PLOT_H + 14 + 11 * jumbo,
                s->x[i], jumbo ? " (MTU 9000)" : "", px + (jumbo ? 6 : 0), py - 6,
                jumbo ? "start" : "middle", y[i]);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s%s</text>\n",
            (ML + W - MR) / 2, top + PLOT_H + 38, s->x_name,
            s->x_name[0] == 'f' ? " (bytes, log scale)" : " (log scale)");
}

void bench_sweep_svg(FILE *f, const struct bench_sweep *s, const char *footer)
{
    double v[3][3][BENCH_SWEEP_POINTS];     /* [panel value][median, min, max][point] */
    int workers = s->x_name[0] == 'w';
    for (unsigned i = 0; i < s->n; i++) {
        const struct bench_cap_run *m[3] = {&s->y[i], &s->lo[i], &s->hi[i]};
        for (int k = 0; k < 3; k++) {
            v[0][k][i] = m[k]->fps * 1e-6;
            v[1][k][i] = m[k]->gbps;
            v[2][k][i] = m[k]->fps_wall * 1e-6;
        }
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\">\n", W, MT + 2 * PH + 20 + FOOT);
    fprintf(f, "<text x=\"%d\" y=\"20\" font-size=\"13\">%s: SFC capacity against %s "
               "(%s %u); median, min-max of %u run%s</text>\n",
            ML, s->name, s->x_name, s->x_name[0] == 'f' ? "sources" : "frag_size", s->fixed,
            s->runs, s->runs == 1 ? "" : "s");
    int a = workers ? 2 : 0, b = workers ? 0 : 1;
    if (s->n > 0) {
        panel(f, s, v[a][0], v[a][1], v[a][2], MT + 20,
              workers ? "Mframes per wall second, every worker's lane" : "Mframes per busy second");
        panel(f, s, v[b][0], v[b][1], v[b][2], MT + PH + 30,
              workers ? "Mframes per busy second (per core)" : "payload Gbit per busy second");
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#444\">", ML,
            MT + 2 * PH + 20 + FOOT - 12);
    for (const char *c = footer ? footer : ""; *c; c++)    /* the CPU model is the kernel's */
        if (*c == '<' || *c == '&' || *c == '>')
            fprintf(f, "&#%d;", *c);
        else
            fputc(*c, f);
    fputs("</text>\n", f);
    fputs("</svg>\n", f);
}
