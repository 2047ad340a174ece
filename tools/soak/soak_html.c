/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_html.c - a soak's report as one HTML page with inline SVG plots over time. */
#include "soak_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ML 70   /* margins: left, top, bottom; the right one holds the legend */
#define MT 28
#define MB 36
#define MR_MIN 100
#define CHAR_PX 7.2     /* a legend character at font-size 12, a little generous */

/* The plot being drawn: its size (soak_svg_plot: 760 x 260 px, as cmd_sim
 * stacks them; soak_svg_plot_bound: a 1200 x 300 viewBox as wide as the
 * page) and its right margin, room for the legend. One thread. */
static int W = 760, H = 260, plot_mr = 150;

/* A 1-2-5 step giving about 5 ticks over span. */
static double nice_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

struct axis {
    double lo, hi;
    int log;
};

static double map(const struct axis *a, double v, double px0, double px1)
{
    double u = a->log ? (log10(v) - a->lo) / (a->hi - a->lo) : (v - a->lo) / (a->hi - a->lo);
    return px0 + u * (px1 - px0);
}

/* The y range over every series (log: decades around the positive values). */
static void y_range(const struct soak_series *s, unsigned ns, unsigned n, int logy,
                    struct axis *a)
{
    double lo = INFINITY, hi = -INFINITY;

    for (unsigned k = 0; k < ns; k++)
        for (unsigned i = 0; i < n; i++) {
            double v = s[k].y[i];
            if (logy && v <= 0)
                continue;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
    a->log = logy;
    if (logy) {
        a->lo = isfinite(lo) ? floor(log10(lo)) : 0;
        a->hi = isfinite(hi) ? ceil(log10(hi)) : 1;
        if (a->hi <= a->lo)
            a->hi = a->lo + 1;
        return;
    }
    a->lo = lo < 0 ? lo : 0;
    a->hi = isfinite(hi) && hi > a->lo ? hi * 1.05 : a->lo + 1;
}

/* A tick label: 40k, 1.5M, 0.25. */
static void tick_label(char *buf, size_t len, double v)
{
    double a = fabs(v);

    if (a >= 1e6)
        snprintf(buf, len, "%gM", v / 1e6);
    else if (a >= 1e4)
        snprintf(buf, len, "%gk", v / 1e3);
    else
        snprintf(buf, len, "%.4g", v);
}

static void y_ticks(FILE *f, const struct axis *a)
{
    char label[32];

    if (a->log) {
        for (double d = a->lo; d <= a->hi + 1e-9; d++) {
            double y = map(a, pow(10, d), H - MB, MT);
            fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
                    "<text x='%d' y='%.1f' text-anchor='end' font-size='11'>%g</text>\n",
                    ML, W - plot_mr, y, y, ML - 4, y + 4, pow(10, d));
        }
        return;
    }
    double step = nice_step(a->hi - a->lo);
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step) {
        double y = map(a, v, H - MB, MT);
        tick_label(label, sizeof(label), fabs(v) < step * 1e-9 ? 0 : v);
        fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
                "<text x='%d' y='%.1f' text-anchor='end' font-size='11'>%s</text>\n",
                ML, W - plot_mr, y, y, ML - 4, y + 4, label);
    }
}

static void x_ticks(FILE *f, const struct axis *a)
{
    double step = nice_step(a->hi - a->lo);
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step) {
        double x = map(a, v, ML, W - plot_mr);
        fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%d' y2='%d' stroke='#ddd'/>"
                "<text x='%.1f' y='%d' text-anchor='middle' font-size='11'>%g</text>\n",
                x, x, MT, H - MB, x, H - MB + 14, v);
    }
}

static void polyline(FILE *f, const struct axis *ax, const struct axis *ay, const double *x,
                     const struct soak_series *s, unsigned n)
{
    fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='1.6'%s points='", s->color,
            s->dashed ? " stroke-dasharray='6 4'" : "");
    for (unsigned i = 0; i < n; i++) {
        if (ay->log && s->y[i] <= 0)
            continue;
        fprintf(f, "%.1f,%.1f ", map(ax, x[i], ML, W - plot_mr), map(ay, s->y[i], H - MB, MT));
    }
    fprintf(f, "'/>\n");
    for (unsigned i = 0; n < 40 && i < n; i++)      /* dots while they stay apart */
        if (!ay->log || s->y[i] > 0)
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='2' fill='%s'/>\n",
                    map(ax, x[i], ML, W - plot_mr), map(ay, s->y[i], H - MB, MT), s->color);
}

/* Whether every value of every series is 0. */
static int all_zero(const struct soak_series *s, unsigned ns, unsigned n)
{
    for (unsigned k = 0; k < ns; k++)
        for (unsigned i = 0; i < n; i++)
            if (s[k].y[i] != 0)
                return 0;
    return 1;
}

/* The plot's y axis taken to include bound (> 0). */
static void y_include(struct axis *a, double bound)
{
    if (a->log) {
        double d = log10(bound);
        a->lo = d < a->lo ? floor(d) : a->lo;
        a->hi = d > a->hi ? ceil(d) : a->hi;
    } else if (bound * 1.05 > a->hi) {
        a->hi = bound * 1.05;
    }
}

/* The plot of series all 0: its title and one line naming them. */
static void zero_plot(FILE *f, const char *title, const struct soak_series *s, unsigned ns)
{
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 %d 48' width='100%%' "
            "font-family='sans-serif'>\n<text x='%d' y='16' font-size='14' "
            "font-weight='bold'>%s</text>\n<text x='%d' y='38' font-size='12'>", W, ML, title,
            ML);
    for (unsigned k = 0; k < ns; k++)
        fprintf(f, "%s%s", k ? ", " : "", s[k].name);
    fprintf(f, ": 0 in every interval</text>\n</svg>\n");
}

/* Legend entry k: a short line in color (dotted) and the name. */
static void legend(FILE *f, unsigned k, const char *color, int dotted, const char *name)
{
    int y = MT + 10 + 18 * (int)k;

    fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='%s' stroke-width='%d'%s/>"
            "<text x='%d' y='%d' font-size='12'>%s</text>\n", W - plot_mr + 10,
            W - plot_mr + 28, y, y, color, dotted ? 1 : 3, dotted ? " stroke-dasharray='2 3'" : "",
            W - plot_mr + 32, y + 4, name);
}

/* The plot of soak_svg_plot and soak_svg_plot_bound: W, H and plot_mr set,
 * the <svg> element's size attributes in size. */
static void plot(FILE *f, const char *title, const char *unit, const double *x, unsigned n,
                 const struct soak_series *s, unsigned ns, int logy, double bound,
                 const char *bound_name, const char *size)
{
    struct axis ax = {0, 1, 0}, ay;

    if (n) {
        ax.lo = x[0] < 0 ? x[0] : 0;
        ax.hi = x[n - 1] > ax.lo ? x[n - 1] : ax.lo + 1;
    }
    y_range(s, ns, n, logy, &ay);
    if (bound > 0)
        y_include(&ay, bound);
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' %s font-family='sans-serif'>\n"
            "<text x='%d' y='16' font-size='14' font-weight='bold'>%s</text>\n", size, ML, title);
    y_ticks(f, &ay);
    x_ticks(f, &ax);
    fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#888'/>\n"
            "<text x='%d' y='%d' font-size='11' text-anchor='middle'>time (s)</text>\n"
            "<text x='14' y='%d' font-size='11' transform='rotate(-90 14 %d)' "
            "text-anchor='middle'>%s</text>\n", ML, MT, W - ML - plot_mr, H - MT - MB,
            (ML + W - plot_mr) / 2, H - 6, (MT + H - MB) / 2, (MT + H - MB) / 2, unit);
    for (unsigned k = 0; k < ns; k++) {
        polyline(f, &ax, &ay, x, &s[k], n);
        legend(f, k, s[k].color, 0, s[k].name);
    }
    if (bound > 0) {
        double y = map(&ay, bound, H - MB, MT);
        fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#c00' "
                "stroke-dasharray='2 3'/>\n", ML, W - plot_mr, y, y);
        legend(f, ns, "#c00", 1, bound_name ? bound_name : "bound");
    }
    fprintf(f, "</svg>\n");
}

void soak_svg_plot(FILE *f, const char *title, const char *unit, const double *x, unsigned n,
                   const struct soak_series *s, unsigned ns, int logy)
{
    char size[64];

    W = 760, H = 260, plot_mr = 150;
    snprintf(size, sizeof(size), "width='%d' height='%d'", W, H);
    plot(f, title, unit, x, n, s, ns, logy, 0, NULL, size);
}

void soak_svg_plot_bound(FILE *f, const char *title, const char *unit, const double *x,
                         unsigned n, const struct soak_series *s, unsigned ns, int logy,
                         double bound, const char *bound_name)
{
    size_t longest = bound > 0 && bound_name ? strlen(bound_name) : 0;
    char size[64];

    W = 1200, H = 300;
    if (n && !logy && all_zero(s, ns, n)) {
        zero_plot(f, title, s, ns);
        return;
    }
    for (unsigned k = 0; k < ns; k++)
        longest = strlen(s[k].name) > longest ? strlen(s[k].name) : longest;
    plot_mr = 40 + (int)(CHAR_PX * (double)longest);
    plot_mr = plot_mr < MR_MIN ? MR_MIN : plot_mr;
    snprintf(size, sizeof(size), "viewBox='0 0 %d %d' width='100%%'", W, H);
    plot(f, title, unit, x, n, s, ns, logy, bound, bound_name, size);
}

static const char *const colors[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
};
#define N_COLORS (sizeof(colors) / sizeof(colors[0]))

/* s as HTML text (&, <, > and quotes escaped). */
static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void page_head(FILE *f, const struct soak_meta *m, const struct soak_ledger_view *l,
                      const struct soak_verdict *v)
{
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>ebfarm soak: %s run %u"
            "</title>\n<style>body{font-family:sans-serif;margin:20px;max-width:1240px}"
            "svg{display:block;margin:8px 0}"
            "td,th{padding:2px 8px;text-align:right}th{background:#eee}"
            ".pass{color:#080;font-weight:bold}.fail{color:#c00;font-weight:bold}"
            "td.l{text-align:left}</style></head><body>\n", m->farm, m->run);
    fprintf(f, "<h1>Soak of farm %s, run %u: <span class='%s'>%s</span></h1>\n", m->farm, m->run,
            v->pass ? "pass" : "fail", v->pass ? "PASS" : "FAIL");
    fprintf(f, "<p>%s to %s UTC, %.0f s (asked %.0f s, every %.0f s)%s; farm file ",
            m->start_utc, m->stop_utc, m->elapsed_s, m->duration_s, m->interval_s,
            m->interrupted ? ", <b>interrupted</b>" : "");
    html_text(f, m->farm_file);
    fprintf(f, " (sha256 %.12s)", m->farm_file_sha256);
    if (m->kills || m->stalls)
        fprintf(f, "; faults: %u nodes killed and restarted, %u stalls", m->kills, m->stalls);
    if (m->sfc_kills || m->drains)
        fprintf(f, "; SFCs: %u killed and restarted, %u drained and undrained", m->sfc_kills,
                m->drains);
    fprintf(f, ".</p>\n<table><tr><th>criterion</th><th>result</th><th class='l'>detail</th>"
            "</tr>\n");
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++) {
        fprintf(f, "<tr><td class='l'>%s</td><td class='%s'>%s</td><td class='l'>",
                soak_rule_name(i), v->rule[i].pass ? "pass" : "fail",
                v->rule[i].pass ? "pass" : "FAIL");
        html_text(f, v->rule[i].detail);
        fprintf(f, "</td></tr>\n");
    }
    fprintf(f, "</table>\n<h2>Ledger</h2><p>generated %llu = accepted %llu + rejected %llu + "
            "lost %llu; incomplete %llu; %s</p>\n", (unsigned long long)l->f.generated,
            (unsigned long long)l->accepted, (unsigned long long)l->rejected,
            (unsigned long long)l->f.lost_total, (unsigned long long)l->f.incomplete,
            l->f.closed ? "<span class='pass'>closed</span>"
                        : "<span class='fail'>does not close</span>");
}

/* The interval table at the page's end. */
static void page_table(FILE *f, const struct soak_interval *iv, unsigned n)
{
    fprintf(f, "<h2>Intervals</h2><table><tr><th>#</th><th>end s</th><th>events/s</th>"
            "<th>generated</th><th>decided</th><th>lost</th><th>incomplete</th>"
            "<th>in flight</th><th>throttled s</th><th>e2e p50 ms</th><th>p99 ms</th>"
            "<th>p99.9 ms</th><th>max ms</th></tr>\n");
    for (unsigned i = 0; i < n; i++) {
        const struct soak_pct *p = &iv[i].lat[SOAK_H_E2E];
        fprintf(f, "<tr><td>%u</td><td>%.1f</td><td>%.0f</td><td>%llu</td><td>%llu</td>"
                "<td>%llu</td><td>%llu</td><td>%lld</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>"
                "<td>%.3f</td><td>%.3f</td></tr>\n", iv[i].index, iv[i].t1,
                iv[i].events_per_s, (unsigned long long)iv[i].generated,
                (unsigned long long)iv[i].decided, (unsigned long long)iv[i].lost,
                (unsigned long long)iv[i].incomplete, (long long)iv[i].in_flight,
                iv[i].throttle_s, (double)p->p50 / 1e6, (double)p->p99 / 1e6,
                (double)p->p999 / 1e6, (double)p->max / 1e6);
    }
    fprintf(f, "</table>\n");
}

/* Columns of values over the intervals, filled by the caller. */
enum col {
    C_EV, C_DEC, C_P50, C_P90, C_P99, C_P999, C_MAX, C_BUILD99, C_LOST, C_INCOMPL, C_REJ,
    C_READY, C_UNACKED, C_CREDITS, C_THROTTLE, C_MAXCOL
};

static void fill(const struct soak_interval *iv, unsigned n, double *x, double **c)
{
    for (unsigned i = 0; i < n; i++) {
        const struct soak_pct *e = &iv[i].lat[SOAK_H_E2E];
        double dt = iv[i].t1 - iv[i].t0;
        x[i] = iv[i].t1;
        c[C_EV][i] = iv[i].events_per_s;
        c[C_DEC][i] = dt > 0 ? (double)iv[i].decided / dt : 0;
        c[C_P50][i] = (double)e->p50 / 1e6;
        c[C_P90][i] = (double)e->p90 / 1e6;
        c[C_P99][i] = (double)e->p99 / 1e6;
        c[C_P999][i] = (double)e->p999 / 1e6;
        c[C_MAX][i] = (double)e->max / 1e6;
        c[C_BUILD99][i] = (double)iv[i].lat[SOAK_H_BUILD].p99 / 1e6;
        c[C_LOST][i] = (double)iv[i].lost;
        c[C_INCOMPL][i] = (double)iv[i].incomplete;
        c[C_REJ][i] = (double)(soak_counts_sum(&iv[i].d, "reject.") +
                               soak_counts_sum(&iv[i].d, "drop."));
        c[C_READY][i] = iv[i].ready;
        c[C_UNACKED][i] = iv[i].unacked;
        c[C_CREDITS][i] = iv[i].credits;
        c[C_THROTTLE][i] = iv[i].throttle_s;
    }
}

/* A plot of the page (linear y, no bound). */
static void page_plot(FILE *f, const char *title, const char *unit, const double *x, unsigned n,
                      const struct soak_series *s, unsigned ns)
{
    soak_svg_plot_bound(f, title, unit, x, n, s, ns, 0, 0, NULL);
}

/* RSS per process, MB, as series (at most N_COLORS processes drawn). */
static void memory_plot(FILE *f, const struct soak_interval *iv, unsigned n, const double *x,
                        double *buf)
{
    struct soak_series s[N_COLORS];
    unsigned np = n ? iv[0].n_mem : 0;

    np = np < N_COLORS ? np : N_COLORS;
    for (unsigned p = 0; p < np; p++) {
        double *y = buf + (size_t)p * n;
        for (unsigned i = 0; i < n; i++)
            y[i] = p < iv[i].n_mem ? (double)iv[i].mem[p].rss_kb / 1024.0 : 0;
        s[p] = (struct soak_series){iv[0].mem[p].name, colors[p], y, 0};
    }
    page_plot(f, "Memory: RSS per process", "MB", x, n, s, np);
}

int soak_html_write(FILE *f, const struct soak_meta *m, const struct soak_interval *iv,
                    unsigned n, const struct soak_ledger_view *l, const struct soak_verdict *v)
{
    size_t cells = (size_t)(n ? n : 1) * (C_MAXCOL + 1 + N_COLORS);
    double *mem = calloc(cells, sizeof(double)), *c[C_MAXCOL];

    if (!mem)
        return -1;
    for (unsigned k = 0; k < C_MAXCOL; k++)
        c[k] = mem + (size_t)(k + 1) * (n ? n : 1);
    double *x = mem;
    fill(iv, n, x, c);
    page_head(f, m, l, v);
    fprintf(f, "<h2>Over time</h2>\n");
    page_plot(f, "Rates", "events/s", x, n, (struct soak_series[]){
        {"generated", colors[0], c[C_EV], 0}, {"decided", colors[2], c[C_DEC], 1}}, 2);
    char bound[48];
    snprintf(bound, sizeof(bound), "p99 bound %g ms", m->p99_bound_ms);
    soak_svg_plot_bound(f, "End-to-end latency per interval (log scale)", "ms", x, n,
                        (struct soak_series[]){{"p50", colors[0], c[C_P50], 0},
                                               {"p90", colors[2], c[C_P90], 0},
                                               {"p99", colors[3], c[C_P99], 0},
                                               {"p99.9", colors[1], c[C_P999], 0},
                                               {"max", colors[7], c[C_MAX], 0},
                                               {"build p99", colors[4], c[C_BUILD99], 0}}, 6, 1,
                        m->p99_bound_ms, bound);
    page_plot(f, "Losses, incomplete events, frames rejected or dropped per interval", "count",
              x, n, (struct soak_series[]){{"lost", colors[1], c[C_LOST], 0},
                                           {"incomplete", colors[3], c[C_INCOMPL], 0},
                                           {"rejected/dropped frames", colors[4], c[C_REJ], 0}},
              3);
    page_plot(f, "Queues and credits at each interval's end", "events", x, n,
              (struct soak_series[]){{"ready queue", colors[0], c[C_READY], 0},
                                     {"unacked", colors[3], c[C_UNACKED], 0},
                                     {"credits", colors[2], c[C_CREDITS], 0}}, 3);
    page_plot(f, "Throttle: time the readouts were held per interval", "s", x, n,
              (struct soak_series[]){{"held", colors[1], c[C_THROTTLE], 0}}, 1);
    memory_plot(f, iv, n, x, mem + (size_t)(C_MAXCOL + 1) * (n ? n : 1));
    page_table(f, iv, n);
    fprintf(f, "</body></html>\n");
    free(mem);
    return 0;
}
