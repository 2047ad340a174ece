/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_svg.c - the --plot figure as plain SVG text: loss against offered load, and latency histograms. */
#include <math.h>
#include <string.h>

#include "lb_report.h"

#define W 900
#define PH 360                   /* height of one panel */
#define ML 80                    /* margins */
#define MR 160
#define MT 40
#define MB 50

static const char *const colour[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

struct axis {
    double lo, hi;               /* data range */
    double p0, p1;               /* pixel range */
    int log;
};

static double map(const struct axis *a, double v)
{
    if (a->log) {
        v = log10(v > 0 ? v : a->lo);
        return a->p0 + (v - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) * (a->p1 - a->p0);
    }
    return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static int size_index(const struct lb_report *r, unsigned fs)
{
    for (unsigned i = 0; i < r->n_sizes; i++)
        if (r->size[i].frame_size == fs)
            return (int)i;
    return 0;
}

static void frame(FILE *f, double top, const char *title, const char *xl, const char *yl)
{
    fprintf(f, "<rect x='%d' y='%.0f' width='%d' height='%d' fill='none' stroke='#333'/>\n", ML,
            top + MT, W - ML - MR, PH - MT - MB);
    fprintf(f, "<text x='%d' y='%.0f' font-size='15' font-weight='bold'>%s</text>\n", ML, top + 24,
            title);
    fprintf(f, "<text x='%d' y='%.0f' font-size='12' text-anchor='middle'>%s</text>\n",
            ML + (W - ML - MR) / 2, top + PH - 12, xl);
    fprintf(f, "<text x='16' y='%.0f' font-size='12' transform='rotate(-90 16 %.0f)' "
               "text-anchor='middle'>%s</text>\n", top + PH / 2.0, top + PH / 2.0, yl);
}

static void ticks(FILE *f, const struct axis *x, const struct axis *y, double top)
{
    for (int i = 0; i <= 4; i++) {
        double xv = x->log ? pow(10, log10(x->lo) + i * (log10(x->hi) - log10(x->lo)) / 4)
                           : x->lo + i * (x->hi - x->lo) / 4;
        double yv = y->lo + i * (y->hi - y->lo) / 4;
        fprintf(f, "<text x='%.1f' y='%.0f' font-size='11' text-anchor='middle'>%.3g</text>\n",
                map(x, xv), top + PH - MB + 16, xv);
        fprintf(f, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%.3g</text>\n", ML - 6,
                map(y, yv) + 4, yv);
    }
}

/* Panel 1: every trial's loss (%) against its offered load (Mpps). */
static void loss_panel(FILE *f, const struct lb_report *r)
{
    double xmax = 0, ymax = 1;
    for (unsigned i = 0; i < r->n_trials; i++) {
        xmax = fmax(xmax, r->trial[i].requested_fps / 1e6);
        ymax = fmax(ymax, 100 * r->trial[i].loss_ratio);
    }
    struct axis x = {0, xmax > 0 ? xmax * 1.05 : 1, ML, W - MR, 0};
    struct axis y = {0, ymax * 1.05, PH - MB, MT, 0};
    frame(f, 0, "Frame loss against offered load (filled: valid trial, hollow: sender missed the rate)",
          "offered load, Mpps", "loss, %");
    ticks(f, &x, &y, 0);
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_trial_rec *t = &r->trial[i];
        const char *c = colour[size_index(r, t->frame_size) % 8];
        double px = map(&x, t->requested_fps / 1e6), py = map(&y, 100 * t->loss_ratio);
        if (!strcmp(t->path, "kernel"))
            fprintf(f, "<rect x='%.1f' y='%.1f' width='7' height='7' stroke='%s' fill='%s'/>\n",
                    px - 3.5, py - 3.5, c, t->valid ? c : "none");
        else
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='4' stroke='%s' fill='%s'/>\n", px, py, c,
                    t->valid ? c : "none");
    }
}

/* The trial whose latency histogram stands for frame size i. */
static const struct lb_trial_rec *lat_trial(const struct lb_report *r, unsigned i)
{
    int k = r->size[i].lat_trial;
    if (k >= 0 && (unsigned)k < r->n_trials && r->trial[k].lat.valid)
        return &r->trial[k];
    const struct lb_trial_rec *best = NULL;
    for (unsigned n = 0; n < r->n_trials; n++) {
        const struct lb_trial_rec *t = &r->trial[n];
        if (t->frame_size == r->size[i].frame_size && !strcmp(t->path, "dpdk") && t->valid &&
            t->lat.valid)
            best = t;
    }
    return best;
}

/* Panel 2: latency histograms, fraction of frames per bucket, log time axis. */
static void latency_panel(FILE *f, const struct lb_report *r)
{
    double lo = 1e12, hi = 1, ymax = 0;
    for (unsigned i = 0; i < r->n_sizes; i++) {
        const struct lb_trial_rec *t = lat_trial(r, i);
        if (!t)
            continue;
        lo = fmin(lo, fmax(t->lat.min, 1));
        hi = fmax(hi, t->lat.max);
        for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
            ymax = fmax(ymax, (double)t->lat_hist.bucket[b] / (double)t->lat_hist.count);
    }
    if (lo >= hi)
        lo = 1, hi = 10;
    struct axis x = {lo / 1.5, hi * 1.5, ML, W - MR, 1};
    struct axis y = {0, ymax > 0 ? ymax * 1.05 : 1, PH + PH - MB, PH + MT, 0};
    frame(f, PH, "One-way latency of every frame (log-bucketed histogram)", "latency, ns (log)",
          "fraction of frames");
    ticks(f, &x, &y, PH);
    for (unsigned i = 0; i < r->n_sizes; i++) {
        const struct lb_trial_rec *t = lat_trial(r, i);
        if (!t)
            continue;
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5' points='", colour[i % 8]);
        for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
            if (!t->lat_hist.bucket[b])
                continue;
            double ns = (double)ebf_hist_bucket_lo(b) * t->ns_per_unit;
            double frac = (double)t->lat_hist.bucket[b] / (double)t->lat_hist.count;
            fprintf(f, "%.1f,%.1f ", map(&x, fmax(ns, x.lo)), map(&y, frac));
        }
        fprintf(f, "'/>\n");
    }
}

static void legend(FILE *f, const struct lb_report *r)
{
    for (unsigned i = 0; i < r->n_sizes; i++)
        fprintf(f, "<rect x='%d' y='%u' width='12' height='12' fill='%s'/>"
                   "<text x='%d' y='%u' font-size='12'>%u B</text>\n",
                W - MR + 16, MT + 18 * i, colour[i % 8], W - MR + 34, MT + 18 * i + 11,
                r->size[i].frame_size);
    fprintf(f, "<text x='%d' y='%u' font-size='11'>circle: DPDK</text>\n", W - MR + 16,
            MT + 18 * r->n_sizes + 16);
    fprintf(f, "<text x='%d' y='%u' font-size='11'>square: kernel</text>\n", W - MR + 16,
            MT + 18 * r->n_sizes + 32);
}

/* Text as XML character data: &, < and > escaped. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '&')
            fputs("&amp;", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else
            fputc(*s, f);
    }
}

/* The footer: date, drivers, CPU and DPDK version. */
static void footer(FILE *f, const struct lb_report *r)
{
    const char *const parts[] = {r->meta.date, ", ", r->meta.tx_driver, " -> ",
                                 r->meta.rx_driver, ", ", r->meta.cpu_model, ", ",
                                 r->meta.dpdk_version};

    fprintf(f, "<text x='%d' y='%d' font-size='11' fill='#555'>", ML, 2 * PH + 20);
    for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        xml_text(f, parts[i]);
    fprintf(f, "</text>\n");
}

int lb_write_svg(FILE *f, const struct lb_report *r)
{
    fprintf(f, "<?xml version='1.0' encoding='UTF-8'?>\n"
               "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
               "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n",
            W, 2 * PH + 30);
    loss_panel(f, r);
    latency_panel(f, r);
    legend(f, r);
    footer(f, r);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
