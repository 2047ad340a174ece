/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_report.c - loopback results as a live line, a table, JSON and CSV, with their metadata. */
#include "lb_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lb_rate.h"
#include "lb_reason.h"

int lb_report_add(struct lb_report *r, const struct lb_trial_rec *t)
{
    if (r->n_trials == r->cap_trials) {
        unsigned cap = r->cap_trials ? r->cap_trials * 2 : 32;
        struct lb_trial_rec *n = realloc(r->trial, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        r->trial = n;
        r->cap_trials = cap;
    }
    r->trial[r->n_trials] = *t;
    r->trial[r->n_trials].search = r->n_searches ? (int)r->n_searches - 1 : 0;
    return (int)r->n_trials++;
}

int lb_report_trial(struct lb_report *r, const struct lb_trial_rec *t, FILE *live,
                    struct lb_trial_out *out)
{
    out->achieved_fps = t->achieved_fps;
    out->sent = t->sent;
    out->lost = t->lost;
    out->valid = t->valid;
    out->reason = t->valid ? LB_INVALID_NONE : t->invalid_reason;
    out->stall_s = t->stall_ms / 1e3;
    out->p99_ns = t->lat.valid ? t->lat.p99 : -1;
    int i = lb_report_add(r, t);
    if (i >= 0 && live)
        lb_print_trial_end(live, i, t);
    return i;
}

void lb_report_free(struct lb_report *r)
{
    free(r->trial);
    r->trial = NULL;
    for (unsigned i = 0; i < LB_MAX_SIZES; i++)
        for (unsigned p = 0; p < 2; p++) {
            free(r->size[i].rep_values[p]);
            r->size[i].rep_values[p] = NULL;
        }
    r->n_trials = r->cap_trials = 0;
}

void lb_latency_from_hist(const struct ebf_hist *h, double k, struct lb_latency *l)
{
    memset(l, 0, sizeof(*l));
    l->count = h->count;
    if (!h->count)
        return;
    l->valid = 1;
    l->min = (double)h->min * k;
    l->p50 = (double)ebf_hist_quantile(h, 0.50) * k;
    l->p90 = (double)ebf_hist_quantile(h, 0.90) * k;
    l->p99 = (double)ebf_hist_quantile(h, 0.99) * k;
    l->p999 = (double)ebf_hist_quantile(h, 0.999) * k;
    l->p9999 = (double)ebf_hist_quantile(h, 0.9999) * k;
    l->max = (double)h->max * k;
    l->mean = (double)h->sum / (double)h->count * k;
}

void lb_meta_host(struct lb_meta *m)
{
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    struct utsname u;
    time_t now = time(NULL);
    struct tm tm;

    snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
    while (f && fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        if (!strncmp(line, "model name", 10) && !strcmp(m->cpu_model, "unknown")) {
            snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", colon + 2);
            m->cpu_model[strcspn(m->cpu_model, "\n")] = '\0';
        } else if (!strncmp(line, "cpu MHz", 7) && m->cpu_mhz == 0) {
            m->cpu_mhz = atof(colon + 1);
        }
    }
    if (f)
        fclose(f);
    if (uname(&u) == 0)
        snprintf(m->kernel, sizeof(m->kernel), "%s %s", u.sysname, u.release);
    gethostname(m->hostname, sizeof(m->hostname) - 1);
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void lb_print_live(FILE *f, double t_s, unsigned frame_size, double fps, double loss_ratio,
                   double p99_ns)
{
    fprintf(f, "  %6.1fs  %5uB  %8.4f Mpps  L1 %7.3f Gbit/s  L2 %7.3f Gbit/s  loss %.3e  p99 ",
            t_s, frame_size, fps / 1e6, lb_l1_bps(fps, frame_size) / 1e9,
            lb_l2_bps(fps, frame_size) / 1e9, loss_ratio);
    if (p99_ns >= 0)
        fprintf(f, "%.1f us\n", p99_ns / 1e3);
    else
        fprintf(f, "-\n");
    fflush(f);
}

void lb_print_trial_end(FILE *f, int i, const struct lb_trial_rec *t)
{
    fprintf(f, "  trial %d: %s %uB asked %.4f Mfps, achieved %.4f Mfps, loss %.3e: %s%s\n", i,
            t->path, t->frame_size, t->requested_fps / 1e6, t->achieved_fps / 1e6,
            t->loss_ratio, t->valid ? "valid" : "INVALID ",
            t->valid ? "" : lb_invalid_name((unsigned)t->invalid_reason));
    fflush(f);
}

/* Trial i when it is one of frame size fs, else NULL. */
static const struct lb_trial_rec *trial_at(const struct lb_report *r, int i, unsigned fs)
{
    return i >= 0 && (unsigned)i < r->n_trials && r->trial[i].frame_size == fs ? &r->trial[i]
                                                                               : NULL;
}

/* Trials of frame size fs on path, every attempt (but not the sender probe,
 * which table_mlr shows), and the invalid ones. */
static void count_trials(const struct lb_report *r, unsigned fs, const char *path, unsigned *n,
                         unsigned *invalid)
{
    *n = *invalid = 0;
    for (unsigned i = 0; i < r->n_trials; i++)
        if (r->trial[i].frame_size == fs && !strcmp(r->trial[i].path, path) &&
            !(r->trial[i].phase && !strcmp(r->trial[i].phase, "sender probe"))) {
            (*n)++;
            *invalid += !r->trial[i].valid;
        }
}

static void table_search(FILE *f, const struct lb_report *r, const struct lb_size_result *s,
                         const struct lb_search_result *x, const char *path, int lat_i)
{
    const struct lb_trial_rec *lt = trial_at(r, lat_i, s->frame_size);
    unsigned fs = s->frame_size, n, invalid;

    count_trials(r, fs, path, &n, &invalid);
    if (!x->found) {
        fprintf(f, "%6u  %-6s  %-12s  %8s  %8s  %8s  %6s  %10s  %10s  %3u/%-3u\n", fs, path,
                n ? "none" : "not run", "-", "-", "-", "-", "-", "-", invalid, n);
        return;
    }
    char p50[16] = "-", p99[16] = "-";
    if (lt && lt->lat.valid) {
        snprintf(p50, sizeof(p50), "%.1f", lt->lat.p50 / 1e3);
        snprintf(p99, sizeof(p99), "%.1f", lt->lat.p99 / 1e3);
    }
    fprintf(f, "%6u  %-6s  %12.4f  %8.3f  %8.3f  %8.2f  %6s  %10s  %10s  %3u/%-3u\n", fs, path,
            x->fps / 1e6, lb_l1_bps(x->fps, fs) / 1e9, lb_l2_bps(x->fps, fs) / 1e9,
            r->meta.link_mbps > 0 ? 100.0 * x->fps / lb_line_fps(r->meta.link_mbps, fs) : 0,
            "", p50, p99, invalid, n);
}

/* What bounds an MLRsearch result, in words. */
static const char *bound_words(int b)
{
    return b == LB_MLR_BY_SENDER ? "sender-bound" : b == LB_MLR_BY_MAX_LOAD ? "max-load-bound"
                                                                           : "loss-bound";
}

/* --search mlr: the sender probe, then a line per goal under the size's row. */
static void table_mlr(FILE *f, const struct lb_report *r, const struct lb_size_result *s, int p)
{
    const struct lb_mlr_probe *pr = &s->mlr_probe[p];
    if (s->mlr_ran[p] && pr->ran) {
        fprintf(f, "%6s  %-6s  sender probe (not a search trial): asked %.4f Mfps, achieved "
                "%.4f (%.4f on its CPU)%s%s: max load %.4f Mfps", "", "mlr", pr->fps / 1e6,
                pr->achieved_fps / 1e6, pr->reach_fps / 1e6, pr->valid ? "" : ", invalid ",
                pr->valid ? "" : lb_invalid_name((unsigned)pr->reason), pr->max_fps / 1e6);
        fprintf(f, pr->capped ? ", its reach less the margin (%g%%)\n" : "\n", 100 * pr->margin);
    }
    for (unsigned g = 0; s->mlr_ran[p] && g < r->meta.n_goals; g++) {
        const struct lb_mlr_goal *x = &r->meta.goal[g];
        const struct lb_mlr_goal_result *m = &s->mlr[p][g];
        fprintf(f, "%6s  %-6s  goal %u (loss %g, exceed %g, %g s trials, sum %g s, width %g%%): ",
                "", "mlr", g, x->loss_ratio, x->exceed_ratio, x->final_duration, x->duration_sum,
                100 * x->width);
        if (!m->found)
            fprintf(f, "none (%.4f Mfps is an upper bound), %s\n", m->upper_fps / 1e6,
                    bound_words(m->bound_by));
        else if (m->upper_fps > 0)
            fprintf(f, "conditional %.4f Mpps, bounds %.4f .. %.4f, %s\n",
                    m->conditional_fps / 1e6, m->lower_fps / 1e6, m->upper_fps / 1e6,
                    bound_words(m->bound_by));
        else
            fprintf(f, "conditional %.4f Mpps at the max load, %s\n", m->conditional_fps / 1e6,
                    bound_words(m->bound_by));
    }
    if (s->mlr_ran[p] && s->mlr_timed_out[p])
        fprintf(f, "%6s  %-6s  stopped at --max-trials before every goal was met\n", "", "mlr");
}

/* --repeat N: the spread of the N figures under the size's row. */
static void table_repeat(FILE *f, const struct lb_repeat *x, const char *unit, double scale)
{
    if (x->n <= 1)
        return;
    fprintf(f, "%6s  %-6s  %u of %u found: mean %.4f %s, sd %.4f, min %.4f, max %.4f\n", "",
            "repeat", x->found, x->n, x->mean / scale, unit, x->stddev / scale, x->min / scale,
            x->max / scale);
}

void lb_print_trials(FILE *f, const struct lb_report *r)
{
    fprintf(f, "\n%4s  %6s  %-6s  %5s  %-13s  %9s  %9s  %6s  %10s  %s\n", "#", "search", "path",
            "frame", "phase", "asked", "achieved", "s", "loss", "valid");
    fprintf(f, "%4s  %6s  %-6s  %5s  %-13s  %9s  %9s  %6s  %10s\n", "", "", "", "bytes", "",
            "Mpps", "Mpps", "", "ratio");
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_trial_rec *t = &r->trial[i];
        fprintf(f, "%4u  %6d  %-6s  %5u  %-13s  %9.4f  %9.4f  %6.2f  %10.3e  %s%s", i, t->search,
                t->path, t->frame_size, t->phase ? t->phase : "search", t->requested_fps / 1e6,
                t->achieved_fps / 1e6, t->intended_s, t->loss_ratio, t->valid ? "yes" : "NO ",
                t->valid ? "" : lb_invalid_name((unsigned)t->invalid_reason));
        if (!t->valid && t->stall_ms > 0)
            fprintf(f, " (stalled %.1f ms)", t->stall_ms);
        if (t->retried)
            fprintf(f, ", retried");
        fputc('\n', f);
    }
}

void lb_print_table(FILE *f, const struct lb_report *r)
{
    const char *mode = r->meta.mode;
    fprintf(f, "\nebfarm loopback: %s, %s -> %s (%s -> %s, link %.0f Mbit/s), trials %.2f s\n",
            mode, r->meta.tx_port, r->meta.rx_port, r->meta.tx_driver, r->meta.rx_driver,
            r->meta.link_mbps, r->meta.trial_s);
    if (!strcmp(mode, "throughput") || !strcmp(mode, "latency")) {
        fprintf(f, "%6s  %-6s  %12s  %8s  %8s  %8s  %6s  %10s  %10s  %7s\n", "frame", "path",
                "zero-loss", "L1", "L2", "% line", "", "p50", "p99", "invalid/");
        fprintf(f, "%6s  %-6s  %12s  %8s  %8s  %8s  %6s  %10s  %10s  %7s\n", "bytes", "",
                "Mpps", "Gbit/s", "Gbit/s", "", "", "us", "us", "trials");
        for (unsigned i = 0; i < r->n_sizes; i++) {
            const struct lb_size_result *s = &r->size[i];
            table_search(f, r, s, &s->tput, "dpdk", s->lat_trial);
            table_mlr(f, r, s, 0);
            table_repeat(f, &s->rep[0], !strcmp(mode, "latency") ? "us p99" : "Mpps",
                         !strcmp(mode, "latency") ? 1e3 : 1e6);
            if (r->meta.compare_kernel) {
                table_search(f, r, s, &s->kernel, "kernel", s->kernel_lat_trial);
                table_mlr(f, r, s, 1);
                table_repeat(f, &s->rep[1], !strcmp(mode, "latency") ? "us p99" : "Mpps",
                             !strcmp(mode, "latency") ? 1e3 : 1e6);
            }
            if (r->meta.compare_kernel && s->kernel.found && s->tput.found)
                fprintf(f, "%6s  %-6s  %12.2fx\n", "", "ratio", s->tput.fps / s->kernel.fps);
        }
    } else if (!strcmp(mode, "loss")) {
        fprintf(f, "%6s  %8s  %12s  %12s  %s\n", "frame", "offered", "offered", "loss",
                "valid");
        for (unsigned i = 0; i < r->n_sizes; i++)
            for (int k = 0; k < r->size[i].n_loss; k++) {
                const struct lb_loss_point *p = &r->size[i].loss[k];
                fprintf(f, "%6u  %7.0f%%  %9.4f Mpps  %12.4e  %s\n", r->size[i].frame_size,
                        p->pct, p->fps / 1e6, p->loss_ratio, p->valid ? "yes" : "NO");
            }
    } else {
        fprintf(f, "%6s  %14s  %12s  %s\n", "frame", "longest burst", "at Mpps", "trials");
        for (unsigned i = 0; i < r->n_sizes; i++) {
            const struct lb_size_result *s = &r->size[i];
            fprintf(f, "%6u  %14.0f  %12.4f  %u\n", s->frame_size, s->tput.found ? s->tput.fps : 0,
                    r->n_trials ? r->trial[0].requested_fps / 1e6 : 0, s->tput.trials);
            table_repeat(f, &s->rep[0], "frames", 1);
        }
    }
    fprintf(f, "latency includes the measurement: a TSC read costs %.1f ns; see each trial's "
               "tx_hold_p99_ns and rx_loop_p99_ns in --json\n", r->meta.tsc_read_ns);
    if (r->meta.interrupted)
        fprintf(f, "INTERRUPTED: a signal stopped the run after %u trials; its last trial is "
                   "invalid (stopped) and a size marked 'not run' was never tried\n",
                r->n_trials);
}

/* v rounded down to two significant digits, as a --rate value: "1.3Mfps". */
static void rate_down(char *b, size_t n, double v)
{
    static const struct {
        double scale;
        const char *suffix;
    } u[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
    unsigned i = 0;

    while (i < 3 && v < u[i].scale)
        i++;
    double x = v / u[i].scale, step = x >= 10 ? (x >= 100 ? 10 : 1) : 0.1;
    x = floor(x / step + 1e-9) * step;
    snprintf(b, n, "%.*f%sfps", step < 1 ? 1 : 0, x, u[i].suffix);
}

int lb_rate_hint(const struct lb_report *r, unsigned frame_size, const char *path, char *b,
                 size_t n)
{
    double best = 0, asked = 0;
    unsigned k = 0;

    if (r->meta.interrupted)    /* a rate that was cut short says nothing of the sender */
        return 0;
    for (unsigned i = 0; i < r->n_trials; i++) {
        const struct lb_trial_rec *t = &r->trial[i];
        if (t->frame_size != frame_size || strcmp(t->path, path) != 0)
            continue;
        if (t->valid)
            return 0;
        best = fmax(best, t->achieved_fps);
        asked = fmax(asked, t->requested_fps);
        k++;
    }
    if (!k || best < 1)
        return 0;
    char rate[32];
    rate_down(rate, sizeof(rate), best);
    snprintf(b, n, "loopback: every %s trial of %u-byte frames was invalid: the sender reached "
                   "at most %.4f Mfps of the %.4f asked; try --rate %s\n",
             path, frame_size, best / 1e6, asked / 1e6, rate);
    return 1;
}
