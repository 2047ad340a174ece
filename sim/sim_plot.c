/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_plot.c - a sweep's SVG: figures against the swept value, mean lines with min-max bars over the seeds. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "sim_sweep.h"

#define W 760.0
#define H 240.0
#define ML 80.0          /* margins: left, right, top, bottom */
#define MR 20.0
#define MT 30.0
#define MB 45.0

struct axis {
    double lo, hi;
    int log;
};

/* Map v on axis a to [p0, p1]. */
static double map(const struct axis *a, double v, double p0, double p1)
{
    double lo = a->log ? log10(a->lo) : a->lo, hi = a->log ? log10(a->hi) : a->hi;
    double x = a->log ? log10(v > 0 ? v : a->lo) : v;

    return hi > lo ? p0 + (x - lo) / (hi - lo) * (p1 - p0) : (p0 + p1) / 2;
}

/* The range of the values (x) or of the figures' min and max (figs). */
static struct axis range(const struct sim_sweep *s, const unsigned *figs, unsigned nf, int logy)
{
    struct axis a = {INFINITY, -INFINITY, logy};

    for (unsigned i = 0; i < s->n; i++)
        for (unsigned k = 0; k < nf; k++) {
            double lo = s->min[i][figs[k]], hi = s->max[i][figs[k]];
            if (!logy || lo > 0)
                a.lo = fmin(a.lo, lo);
            a.hi = fmax(a.hi, hi);
        }
    if (logy && !(a.lo > 0))
        a.log = 0;
    if (!a.log)
        a.lo = fmin(a.lo, 0);
    if (!(a.hi > a.lo))
        a.hi = a.lo + 1;
    if (a.log)
        a.lo /= 1.5, a.hi *= 1.5;
    else
        a.hi += (a.hi - a.lo) * 0.05;
    return a;
}

/* A round step (1, 2 or 5 times a power of ten) for about five ticks. */
static double nice_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;

    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

/* The tick at v: a grid line and its label; vertical axis when y. */
static void tick(FILE *f, const struct axis *a, double v, int y)
{
    if (y) {
        double p = map(a, v, H - MB, MT);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#ccc'/>"
                "<text x='%.1f' y='%.1f' font-size='11' text-anchor='end'>%g</text>\n",
                ML, p, W - MR, p, ML - 4, p + 4, v);
    } else {
        double p = map(a, v, ML, W - MR);
        fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#000'/>"
                "<text x='%.1f' y='%.1f' font-size='11' text-anchor='middle'>%g</text>\n",
                p, H - MB, p, H - MB + 4, p, H - MB + 16, v);
    }
}

/* Round ticks on a linear axis; on a log one each decade, and 2 and 5
 * times it too when the axis spans less than three decades. */
static void ticks(FILE *f, const struct axis *a, int y)
{
    if (a->log) {
        static const double m[] = {1, 2, 5};
        int all = a->hi / a->lo < 1000;
        for (double d = pow(10, floor(log10(a->lo))); d <= a->hi; d *= 10)
            for (unsigned i = 0; i < (all ? 3u : 1u); i++)
                if (d * m[i] >= a->lo && d * m[i] <= a->hi)
                    tick(f, a, d * m[i], y);
        return;
    }
    double step = nice_step(a->hi - a->lo);
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step)
        tick(f, a, fabs(v) < step * 1e-9 ? 0 : v, y);
}

/* One panel: figures figs against the swept value, title, y unit. */
static void panel(FILE *f, const struct sim_sweep *s, const char *title, const char *unit,
                  const unsigned *figs, unsigned nf, int logy)
{
    static const char *const color[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    struct axis x = {s->value[0], s->value[s->n - 1], 0}, y = range(s, figs, nf, logy);

    if (x.lo > x.hi)
        x.lo = s->value[s->n - 1], x.hi = s->value[0];
    x.log = x.lo > 0 && x.hi / x.lo >= 50;
    if (!(x.hi > x.lo))
        x.lo -= 1, x.hi += 1;
    fprintf(f, "<text x='%.0f' y='18' font-size='14' font-weight='bold'>%s</text>\n", ML, title);
    fprintf(f, "<rect x='%.0f' y='%.0f' width='%.0f' height='%.0f' fill='none' stroke='#000'/>\n",
            ML, MT, W - ML - MR, H - MT - MB);
    ticks(f, &x, 0);
    ticks(f, &y, 1);
    fprintf(f, "<text x='%.0f' y='%.0f' font-size='12' text-anchor='middle'>%s%s</text>\n",
            (ML + W - MR) / 2, H - 8, s->key, x.log ? " (log)" : "");
    fprintf(f, "<text transform='translate(16 %.0f) rotate(-90)' font-size='12' "
            "text-anchor='middle'>%s%s</text>\n", (MT + H - MB) / 2, unit, y.log ? " (log)" : "");
    for (unsigned k = 0; k < nf; k++) {
        unsigned g = figs[k];
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", color[k]);
        for (unsigned i = 0; i < s->n; i++)
            fprintf(f, "%.1f,%.1f ", map(&x, s->value[i], ML, W - MR),
                    map(&y, s->mean[i][g], H - MB, MT));
        fprintf(f, "'/>\n");
        for (unsigned i = 0; i < s->n; i++) {
            double px = map(&x, s->value[i], ML, W - MR);
            fprintf(f, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='%s'/>"
                    "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s'/>\n", px,
                    map(&y, s->min[i][g], H - MB, MT), px, map(&y, s->max[i][g], H - MB, MT),
                    color[k], px, map(&y, s->mean[i][g], H - MB, MT), color[k]);
        }
        fprintf(f, "<text x='%.0f' y='%.0f' font-size='11' fill='%s' text-anchor='end'>%s</text>\n",
                W - MR - 4, MT + 14 + 13 * k, color[k], sim_fig_name(g));
    }
}

int sim_sweep_svg(const char *path, const char *farm, const struct sim_sweep *s)
{
    static const unsigned rate[] = {SIM_FIG_RATE},
        lat[] = {SIM_FIG_P50_MS, SIM_FIG_P99_MS, SIM_FIG_MAX_MS},
        loss[] = {SIM_FIG_DROP_FRAC, SIM_FIG_INCOMPLETE_FRAC, SIM_FIG_HELD_FRAC,
                  SIM_FIG_LOST_FRAC},
        peak[] = {SIM_FIG_EVTAB_PEAK, SIM_FIG_PORT_PEAK_KB}, replay[] = {SIM_FIG_REPLAY_PEAK_KB};
    FILE *f = fopen(path, "w");

    if (!f)
        return -errno;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' height='%.0f' "
            "font-family='sans-serif'>\n<!-- ebfarm sim %s: sweep of %s, %u seed(s); points "
            "are means, bars min to max over the seeds -->\n", W, 5 * H, farm, s->key, s->seeds);
    fprintf(f, "<g>\n");
    panel(f, s, "Events decided per second of triggers", "events/s", rate, 1, 0);
    fprintf(f, "</g>\n<g transform='translate(0 %.0f)'>\n", H);
    panel(f, s, "Latency, trigger to ack", "ms", lat, 3, 1);
    fprintf(f, "</g>\n<g transform='translate(0 %.0f)'>\n", 2 * H);
    panel(f, s, "Frames dropped / sent, events incomplete, time held, events lost", "fraction",
          loss, 4, 0);
    fprintf(f, "</g>\n<g transform='translate(0 %.0f)'>\n", 3 * H);
    panel(f, s, "Peaks: events one SFC held, KiB one switch port held", "events, KiB", peak, 2,
          0);
    fprintf(f, "</g>\n<g transform='translate(0 %.0f)'>\n", 4 * H);
    panel(f, s, "Failover: KiB one source's replay buffer held at most", "KiB", replay, 1, 0);
    fprintf(f, "</g>\n</svg>\n");
    return fclose(f) == 0 ? 0 : -errno;
}
