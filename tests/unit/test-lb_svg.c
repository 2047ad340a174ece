/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_svg.c - Check unit tests of the loopback's --plot figure: the exact SVG for known reports. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lb_report.h"
#include "test-lb_report.h"
#include "test-text.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

/* The SVG written for r, as a malloc'd string; lb_write_svg returns 0. */
static char *svg_of(const struct lb_report *r)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(lb_write_svg(f, r), 0);
    ck_assert_int_eq(fclose(f), 0);
    return text;
}

/*
 * The known report (tests/common/test-lb_report.h), worked by hand. Panel 1
 * (x 80..740 px): each trial at the rate it achieved, up to 0.999 Mpps,
 * axis to 0.999 * 1.05 = 1.04895 with ticks every 0.5 Mpps (80 + 0.5 /
 * 1.04895 * 660 = 394.6). Loss on a log axis (y 294..40 px, the band
 * below it for zero loss): the one non-zero loss, 5 / 812744 = 6.152e-4 %,
 * gives the decade 1e-4 .. 1e-3 %, ticks at 1, 2, 5 and 10 times 1e-4 %
 * (294 - log10(2) * 254 = 217.5, +4 for the baseline); zero loss is drawn
 * at 304 and labelled "0 %" at 308. Trial 0 (64 B, colour 0, valid:
 * filled) achieved 0.999 Mpps: 80 + 0.999 / 1.04895 * 660 = 708.6, loss 0
 * at 304; trial 1 (1518 B, colour 1, invalid: hollow) was asked for 0.8127
 * Mpps and achieved 0.8: at 80 + 0.8 / 1.04895 * 660 = 583.4, not at
 * 590.9, its loss at 294 - (log10(6.152e-4) + 4) * 254 = 93.6. The 64 B
 * search found 1 Mfps: a dashed line at 80 + 1 / 1.04895 * 660 = 709.2
 * labelled "1"; 1518 B found nothing, no line. Panel 2 (y 670..400): the 64 B
 * latency trial only (the 1518 B size has none, no kernel reference),
 * latency 100..700 ns, log axis from 100 / 1.5 = 66.7 to 700 * 1.5 = 1050
 * ns with ticks at 0.1, 0.2, 0.5 and 1 us (80 + log(100 / 66.7) / log(1050
 * / 66.7) * 660 = 177.1); 30 of 40 frames in the bucket from 256 ns and 10
 * in the one from 1024 ns: fractions 0.75 and 0.25 on an axis to 0.75 *
 * 1.05 = 0.7875 with ticks every 0.2, points (80 + log(256 / 66.7) /
 * log(1050 / 66.7) * 660, 670 - 0.75 / 0.7875 * 270) = (402.1, 412.9) and
 * (734.0, 584.3). The footer escapes <, & and > for XML.
 */
static const char expected_svg[] =
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    "<svg xmlns='http://www.w3.org/2000/svg' width='900' height='750' font-family='sans-serif'>\n"
    "<rect width='100%' height='100%' fill='white'/>\n"
    "<rect x='80' y='40' width='660' height='270' fill='none' stroke='#333'/>\n"
    "<text x='80' y='24' font-size='15' font-weight='bold'>Frame loss against achieved rate (fill"
    "ed: valid trial, hollow: sender missed the rate; dashed: zero-loss rate found)</text>\n"
    "<text x='410' y='348' font-size='12' text-anchor='middle'>achieved rate, Mpps</text>\n"
    "<text x='16' y='180' font-size='12' transform='rotate(-90 16 180)' text-anchor='middle'>loss"
    ", % (log)</text>\n"
    "<text x='80.0' y='326' font-size='11' text-anchor='middle'>0.0 Mpps</text>\n"
    "<text x='394.6' y='326' font-size='11' text-anchor='middle'>0.5 Mpps</text>\n"
    "<text x='709.2' y='326' font-size='11' text-anchor='middle'>1.0 Mpps</text>\n"
    "<text x='74' y='298.0' font-size='11' text-anchor='end'>0.0001 %</text>\n"
    "<text x='74' y='221.5' font-size='11' text-anchor='end'>0.0002 %</text>\n"
    "<text x='74' y='120.5' font-size='11' text-anchor='end'>0.0005 %</text>\n"
    "<text x='74' y='44.0' font-size='11' text-anchor='end'>0.001 %</text>\n"
    "<text x='74' y='308' font-size='11' text-anchor='end'>0 %</text>\n"
    "<line x1='709.2' y1='40' x2='709.2' y2='310' stroke='#1f77b4' stroke-dasharray='5,3'/>\n"
    "<text x='709.2' y='36' font-size='10' fill='#1f77b4' text-anchor='middle'>1</text>\n"
    "<circle cx='708.6' cy='304.0' r='4' stroke='#1f77b4' fill='#1f77b4'/>\n"
    "<circle cx='583.4' cy='93.6' r='4' stroke='#ff7f0e' fill='none'/>\n"
    "<rect x='80' y='400' width='660' height='270' fill='none' stroke='#333'/>\n"
    "<text x='80' y='384' font-size='15' font-weight='bold'>One-way latency of every frame (log-b"
    "ucketed histogram)</text>\n"
    "<text x='410' y='708' font-size='12' text-anchor='middle'>latency, \xc2\xb5s (log)</text>\n"
    "<text x='16' y='540' font-size='12' transform='rotate(-90 16 540)' text-anchor='middle'>frac"
    "tion of frames</text>\n"
    "<text x='177.1' y='686' font-size='11' text-anchor='middle'>0.1 \xc2\xb5s</text>\n"
    "<text x='343.0' y='686' font-size='11' text-anchor='middle'>0.2 \xc2\xb5s</text>\n"
    "<text x='562.4' y='686' font-size='11' text-anchor='middle'>0.5 \xc2\xb5s</text>\n"
    "<text x='728.3' y='686' font-size='11' text-anchor='middle'>1 \xc2\xb5s</text>\n"
    "<text x='74' y='674.0' font-size='11' text-anchor='end'>0.0</text>\n"
    "<text x='74' y='605.4' font-size='11' text-anchor='end'>0.2</text>\n"
    "<text x='74' y='536.9' font-size='11' text-anchor='end'>0.4</text>\n"
    "<text x='74' y='468.3' font-size='11' text-anchor='end'>0.6</text>\n"
    "<polyline fill='none' stroke='#1f77b4' stroke-width='1.5' points='402.1,412.9 734.0,584.3 '/"
    ">\n"
    "<rect x='756' y='40' width='12' height='12' fill='#1f77b4'/><text x='774' y='51' font-size='"
    "12'>64 B</text>\n"
    "<rect x='756' y='58' width='12' height='12' fill='#ff7f0e'/><text x='774' y='69' font-size='"
    "12'>1518 B</text>\n"
    "<text x='756' y='92' font-size='11'>circle: DPDK</text>\n"
    "<text x='756' y='108' font-size='11'>square: kernel</text>\n"
    "<text x='756' y='416' font-size='11'>solid line: DPDK</text>\n"
    "<text x='756' y='432' font-size='11'>dashed line: kernel</text>\n"
    "<text x='80' y='740' font-size='11' fill='#555'>2026-01-02T03:04:05Z, net_ring -&gt; net_mem"
    "if, Test \"CPU\" \\ 2\tGHz &lt;&amp;&gt;, DPDK 22.11.1</text>\n"
    "</svg>\n";

START_TEST(test_svg_known)
{
    struct lb_report r;

    known_report(&r);
    char *text = svg_of(&r);
    assert_text_eq(text, expected_svg);
    free(text);
    lb_report_free(&r);
}
END_TEST

/* Without a latency trial named for a size, its last valid DPDK trial with
 * a latency stands for it: here the same trial, so the same figure. */
START_TEST(test_svg_latency_fallback)
{
    struct lb_report r;

    known_report(&r);
    r.size[0].lat_trial = -1;
    char *text = svg_of(&r);
    assert_text_eq(text, expected_svg);
    free(text);
    lb_report_free(&r);
}
END_TEST

/* Lines of the figure that change when the 64 B trial ran over the kernel
 * and has no latency: a square instead of a circle (7 px, centred on the
 * same point), no histogram at all, and the latency panel's default axes
 * (1..10 ns widened by 1.5: 0.667..15 ns, ticks at 1, 2, 5 and 10 ns shown
 * in us; fractions 0..1.05 every 0.2). */
static const char *const kernel_lines[] = {
    "<rect x='705.1' y='300.5' width='7' height='7' stroke='#1f77b4' fill='#1f77b4'/>\n",
    "<text x='166.0' y='686' font-size='11' text-anchor='middle'>0.001 \xc2\xb5s</text>\n",
    "<text x='312.9' y='686' font-size='11' text-anchor='middle'>0.002 \xc2\xb5s</text>\n",
    "<text x='507.1' y='686' font-size='11' text-anchor='middle'>0.005 \xc2\xb5s</text>\n",
    "<text x='654.0' y='686' font-size='11' text-anchor='middle'>0.01 \xc2\xb5s</text>\n",
    "<text x='74' y='674.0' font-size='11' text-anchor='end'>0.0</text>\n",
    "<text x='74' y='620.0' font-size='11' text-anchor='end'>0.2</text>\n",
    "<text x='74' y='458.0' font-size='11' text-anchor='end'>0.8</text>\n",
    "<text x='74' y='404.0' font-size='11' text-anchor='end'>1.0</text>\n",
};

START_TEST(test_svg_kernel_no_latency)
{
    struct lb_report r;

    known_report(&r);
    r.trial[0].path = "kernel";
    r.trial[0].lat.valid = 0;
    r.size[0].lat_trial = -1;
    char *text = svg_of(&r);
    for (unsigned i = 0; i < sizeof(kernel_lines) / sizeof(kernel_lines[0]); i++)
        ck_assert_msg(strstr(text, kernel_lines[i]) != NULL, "missing: %s", kernel_lines[i]);
    ck_assert_ptr_null(strstr(text, "<polyline"));
    ck_assert_ptr_null(strstr(text, "<circle cx='708.6'"));
    ck_assert_ptr_nonnull(strstr(text, "<circle cx='583.4' cy='93.6' r='4' stroke='#ff7f0e' "
                                       "fill='none'/>\n"));
    /* the known figure's lines, minus the polyline, plus two y ticks */
    unsigned lines = 0, want = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    for (const char *p = expected_svg; *p; p++)
        want += *p == '\n';
    ck_assert_uint_eq(lines, want - 1 + 2);
    free(text);
    lb_report_free(&r);
}
END_TEST

/* With a kernel reference's latency trial, its histogram is drawn dashed
 * in the size's colour, after the DPDK one, and the legend says so. */
START_TEST(test_svg_kernel_latency)
{
    struct lb_report r;

    known_report(&r);
    r.size[0].kernel_lat_trial = 0;     /* the same histogram: the same points */
    char *text = svg_of(&r);
    static const char curves[] =
        "<polyline fill='none' stroke='#1f77b4' stroke-width='1.5' points='402.1,412.9 "
        "734.0,584.3 '/>\n"
        "<polyline fill='none' stroke='#1f77b4' stroke-width='1.5' stroke-dasharray='6,3' "
        "points='402.1,412.9 734.0,584.3 '/>\n";
    ck_assert_msg(strstr(text, curves) != NULL, "%s", text);
    ck_assert_ptr_nonnull(strstr(text, ">dashed line: kernel</text>\n"));
    free(text);
    lb_report_free(&r);
}
END_TEST

/* Ticks at 1-2-5 steps, labelled without exponents, with units. */
START_TEST(test_svg_ticks)
{
    double v[16];
    char b[32];
    int d;

    ck_assert_uint_eq(lb_ticks_linear(0, 7.77, 5, v, 16, &d), 4);   /* step 2 */
    ck_assert_int_eq(d, 0);
    lb_tick_label(b, sizeof(b), v[3], d, "Mpps");
    ck_assert_str_eq(b, "6 Mpps");
    ck_assert_uint_eq(lb_ticks_linear(0, 0.0105, 5, v, 16, &d), 3); /* step 0.005 */
    ck_assert_int_eq(d, 3);
    lb_tick_label(b, sizeof(b), v[2], d, "%");
    ck_assert_str_eq(b, "0.010 %");
    ck_assert_uint_eq(lb_ticks_linear(0, 1450, 5, v, 16, &d), 3);   /* 0, 500, 1000 */
    lb_tick_label(b, sizeof(b), v[2], d, "Mpps");
    ck_assert_str_eq(b, "1000 Mpps");
    ck_assert_uint_eq(lb_ticks_log(66.7, 1050, v, 16), 4);         /* 100 200 500 1000 */
    ck_assert_double_eq(v[0], 100);
    ck_assert_double_eq(v[3], 1000);
    ck_assert_uint_eq(lb_ticks_log(3, 2e6, v, 16), 6);             /* decades only */
    ck_assert_double_eq(v[0], 10);
    ck_assert_double_eq(v[5], 1e6);
    lb_tick_label(b, sizeof(b), 1390, -1, "us");
    ck_assert_str_eq(b, "1390 us");
    lb_tick_label(b, sizeof(b), 0.02, -1, "us");
    ck_assert_str_eq(b, "0.02 us");
    ck_assert_uint_eq(lb_ticks_linear(1, 1, 5, v, 16, &d), 0);
}
END_TEST

/* A stream that fails: -1. */
START_TEST(test_svg_write_error)
{
    struct lb_report r;
    FILE *f = fopen("/dev/null", "r");

    ck_assert_ptr_nonnull(f);
    known_report(&r);
    ck_assert_int_eq(lb_write_svg(f, &r), -1);
    fclose(f);
    lb_report_free(&r);
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

Suite *lb_svg_suite(void);   /* called by check-main.c, which has no header */

Suite *lb_svg_suite(void)
{
    Suite *s = suite_create("lb_svg");
    TCase *tc = tcase_create("figure");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_svg_known);
    tcase_add_test(tc, test_svg_latency_fallback);
    tcase_add_test(tc, test_svg_kernel_no_latency);
    tcase_add_test(tc, test_svg_kernel_latency);
    tcase_add_test(tc, test_svg_ticks);
    tcase_add_test(tc, test_svg_write_error);
    suite_add_tcase(s, tc);
    return s;
}
