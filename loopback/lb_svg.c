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

unsigned lb_ticks_linear(double lo, double hi, unsigned want, double *v, unsigned max,
                         int *decimals)
{
    unsigned n = 0;

    if (!(hi > lo) || want == 0)
        return 0;
    double raw = (hi - lo) / want, mag = pow(10, floor(log10(raw))), f = raw / mag;
    double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    int d = -(int)floor(log10(step) + 1e-9);
    *decimals = d > 0 ? d : 0;
    for (double k = ceil(lo / step - 1e-9); n < max && k * step <= hi * (1 + 1e-9); k++)
        v[n++] = k == 0 ? 0 : k * step;     /* never -0 */
    return n;
}

unsigned lb_ticks_log(double lo, double hi, double *v, unsigned max)
{
    static const double m125[] = {1, 2, 5};
    unsigned n = 0;

    if (!(lo > 0) || !(hi > lo))
        return 0;
    for (int only_decades = 0; only_decades < 2; only_decades++) {
        n = 0;
        for (int k = (int)floor(log10(lo)); k <= (int)ceil(log10(hi)); k++)
            for (unsigned m = 0; m < (only_decades ? 1u : 3u); m++) {
                double t = m125[m] * pow(10, k);
                if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9) && n < max)
                    v[n++] = t;
            }
        if (n <= 8)
            break;
    }
    return n;
}

void lb_tick_label(char *b, size_t n, double v, int decimals, const char *unit)
{
    if (decimals < 0)      /* as many as a 1-2-5 value needs */
        decimals = v > 0 && v < 1 ? (int)ceil(-log10(v) - 1e-9) : 0;
    snprintf(b, n, "%.*f%s%s", decimals, v, *unit ? " " : "", unit);
}

/* Tick labels at v[0..n) along x (or y when vertical), values shown in
 * the unit of scale (value / scale), decimals as lb_tick_label's. */
static void ticks_at(FILE *f, const struct axis *a, double top, const double *v, unsigned n,
                     int vertical, double scale, int decimals, const char *unit)
{
    char b[48];

    for (unsigned i = 0; i < n; i++) {
        lb_tick_label(b, sizeof(b), v[i] / scale, decimals, unit);
        if (vertical)
            fprintf(f, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s</text>\n",
                    ML - 6, map(a, v[i]) + 4, b);
        else
            fprintf(f, "<text x='%.1f' y='%.0f' font-size='11' text-anchor='middle'>%s</text>\n",
                    map(a, v[i]), top + PH - MB + 16, b);
    }
}

/* Linear ticks on a at 1-2-5 steps, about 5 of them. */
static void ticks_linear(FILE *f, const struct axis *a, double top, int vertical, double scale,
                         const char *unit)
{
    double v[16];
    int d;
    unsigned n = lb_ticks_linear(a->lo / scale, a->hi / scale, 5, v, 16, &d);

    for (unsigned i = 0; i < n; i++)
        v[i] *= scale;
    ticks_at(f, a, top, v, n, vertical, scale, d, unit);
}

#define ZB 16                    /* panel 1: band under the log axis where zero loss goes */

/* Log loss axis (%): decades around the non-zero losses (1e-4 .. 1 % when
 * none lost anything), at least one decade. */
static void loss_axis(const struct lb_report *r, struct axis *y)
{
    double lo = 0, hi = 0;
    for (unsigned i = 0; i < r->n_trials; i++) {
        double l = 100 * r->trial[i].loss_ratio;
        if (l > 0) {
            lo = lo > 0 ? fmin(lo, l) : l;
            hi = fmax(hi, l);
        }
    }
    y->lo = lo > 0 ? pow(10, floor(log10(lo) + 1e-9)) : 1e-4;
    y->hi = hi > 0 ? pow(10, ceil(log10(hi) - 1e-9)) : 1;
    y->lo = fmax(y->lo, 1e-7);
    if (y->hi < y->lo * 10)
        y->hi = y->lo * 10;
    y->p0 = PH - MB - ZB;
    y->p1 = MT;
    y->log = 1;
}

/* The zero-loss rate each size's search found: a dashed vertical line
 * (dotted for the kernel reference) in its colour, labelled in Mpps. */
static void found_marks(FILE *f, const struct lb_report *r, const struct axis *x)
{
    if (strcmp(r->meta.mode, "throughput") && strcmp(r->meta.mode, "latency"))
        return;
    for (unsigned i = 0; i < r->n_sizes; i++)
        for (int p = 0; p < 2; p++) {
            const struct lb_search_result *s = p ? &r->size[i].kernel : &r->size[i].tput;
            if (!s->found || (p && !r->meta.compare_kernel))
                continue;
            double px = map(x, s->fps / 1e6);
            fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s' "
                       "stroke-dasharray='%s'/>\n", px, MT, px, PH - MB, colour[i % 8],
                    p ? "1,3" : "5,3");
            fprintf(f, "<text x='%.1f' y='%d' font-size='10' fill='%s' text-anchor='middle'>"
                       "%.4g</text>\n", px, MT - 4 - 10 * p, colour[i % 8], s->fps / 1e6);
        }
}

/* Panel 1: every trial's loss (%, log; zero loss in the band below)
 * against the rate it achieved (Mpps), and the rates found. */
static void loss_panel(FILE *f, const struct lb_report *r)
{
    double xmax = 0, v[16];
    for (unsigned i = 0; i < r->n_trials; i++)
        xmax = fmax(xmax, r->trial[i].achieved_fps / 1e6);
    struct axis x = {0, xmax > 0 ? xmax * 1.05 : 1, ML, W - MR, 0}, y;
    loss_axis(r, &y);
    frame(f, 0, "Frame loss against achieved rate (filled: valid trial, hollow: sender missed "
                "the rate; dashed: zero-loss rate found)", "achieved rate, Mpps", "loss, % (log)");
    ticks_linear(f, &x, 0, 0, 1, "Mpps");
    unsigned n = lb_ticks_log(y.lo, y.hi, v, 16);
    ticks_at(f, &y, 0, v, n, 1, 1, -1, "%");
    fprintf(f, "<text x='%d' y='%d' font-size='11' text-anchor='end'>0 %%</text>\n", ML - 6,
            PH - MB - 2);
    found_marks(f, r, &x);
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_trial_rec *t = &r->trial[i];
        const char *c = colour[size_index(r, t->frame_size) % 8];
        double px = map(&x, t->achieved_fps / 1e6);
        double py = t->loss_ratio > 0 ? map(&y, fmax(100 * t->loss_ratio, y.lo)) : PH - MB - 6;
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

/* The kernel reference's latency trial of frame size i, NULL when none. */
static const struct lb_trial_rec *kernel_lat_trial(const struct lb_report *r, unsigned i)
{
    int k = r->size[i].kernel_lat_trial;
    if (k >= 0 && (unsigned)k < r->n_trials && r->trial[k].lat.valid)
        return &r->trial[k];
    return NULL;
}

#define MICRO "\xc2\xb5"        /* U+00B5 in UTF-8 */

/* One histogram as a polyline: solid for DPDK, dashed for the kernel. */
static void lat_curve(FILE *f, const struct lb_trial_rec *t, const char *c, int dashed,
                      const struct axis *x, const struct axis *y)
{
    fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.5'%s points='", c,
            dashed ? " stroke-dasharray='6,3'" : "");
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        if (!t->lat_hist.bucket[b])
            continue;
        double ns = (double)ebf_hist_bucket_lo(b) * t->ns_per_unit;
        double frac = (double)t->lat_hist.bucket[b] / (double)t->lat_hist.count;
        fprintf(f, "%.1f,%.1f ", map(x, fmax(ns, x->lo)), map(y, frac));
    }
    fprintf(f, "'/>\n");
}

/* Panel 2: latency histograms, fraction of frames per bucket, log time
 * axis in microseconds; the kernel reference's dashed. */
static void latency_panel(FILE *f, const struct lb_report *r)
{
    double lo = 1e12, hi = 1, ymax = 0, v[32];
    for (unsigned i = 0; i < 2 * r->n_sizes; i++) {
        const struct lb_trial_rec *t = i % 2 ? kernel_lat_trial(r, i / 2) : lat_trial(r, i / 2);
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
    frame(f, PH, "One-way latency of every frame (log-bucketed histogram)",
          "latency, " MICRO "s (log)", "fraction of frames");
    ticks_at(f, &x, PH, v, lb_ticks_log(x.lo, x.hi, v, 32), 0, 1e3, -1, MICRO "s");
    ticks_linear(f, &y, PH, 1, 1, "");
    for (unsigned i = 0; i < 2 * r->n_sizes; i++) {
        const struct lb_trial_rec *t = i % 2 ? kernel_lat_trial(r, i / 2) : lat_trial(r, i / 2);
        if (t)
            lat_curve(f, t, colour[(i / 2) % 8], i % 2, &x, &y);
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
    fprintf(f, "<text x='%d' y='%u' font-size='11'>solid line: DPDK</text>\n", W - MR + 16,
            PH + MT + 16);
    fprintf(f, "<text x='%d' y='%u' font-size='11'>dashed line: kernel</text>\n", W - MR + 16,
            PH + MT + 32);
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
