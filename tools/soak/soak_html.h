/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_html.h - a soak's report as one HTML page with inline SVG plots over time. */
#ifndef SOAK_HTML_H
#define SOAK_HTML_H

#include <stdio.h>

#include "soak_report.h"

/* One line of a plot: a name for the legend, a colour, n values, dashed
 * (to show a line that may lie on another). */
struct soak_series {
    const char *name;
    const char *color;
    const double *y;
    int dashed;
};

/*
 * An SVG line plot of the series over x (seconds), n points each: axes
 * with 1-2-5 ticks (or decades when logy; values <= 0 are left out
 * there), a title, the y unit, a legend. Writes nothing but the <svg>
 * element.
 */
void soak_svg_plot(FILE *f, const char *title, const char *unit, const double *x, unsigned n,
                   const struct soak_series *s, unsigned ns, int logy);

/*
 * The same with a horizontal line at y = bound (a limit such as the p99
 * bound; bound <= 0: none), named in the legend, the y axis taken to
 * include it. The plot spans the page (viewBox, width 100%), the legend as
 * wide as its longest name. When every value of every series is 0 (linear
 * y), no empty chart: one line of text naming the series "0 in every
 * interval".
 */
void soak_svg_plot_bound(FILE *f, const char *title, const char *unit, const double *x,
                         unsigned n, const struct soak_series *s, unsigned ns, int logy,
                         double bound, const char *bound_name);

/*
 * The page: the soak's identity, the verdict with each criterion, the
 * ledger, then plots of rates, latency percentiles (end-to-end, log
 * scale), losses and incomplete events, queues and credits, and RSS per
 * process, and a table of the intervals. Self-contained (no scripts, no
 * external files). Returns 0, or -1 when memory ran out.
 */
int soak_html_write(FILE *f, const struct soak_meta *m, const struct soak_interval *iv,
                    unsigned n, const struct soak_ledger_view *l, const struct soak_verdict *v);

#endif /* SOAK_HTML_H */
