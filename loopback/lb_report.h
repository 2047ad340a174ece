/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_report.h - loopback results: trial records, per-size results, metadata, and their output as table, JSON, CSV, SVG. */
#ifndef LB_REPORT_H
#define LB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "ebf_hist.h"
#include "lb_mlr.h"
#include "lb_search.h"
#include "lb_seq.h"

/* Not for the fast path: the control thread fills and prints these. */

#define LB_MAX_SIZES 16
#define LB_BURSTS_SHOWN 8
#define LB_REPORT_QUEUES 4       /* --queues: per-queue figures kept (LB_MAX_QUEUES) */

struct lb_latency {
    int valid;                   /* measured (same TSC on both ends) */
    uint64_t count;
    double min, p50, p90, p99, p999, p9999, max, mean;  /* ns */
};

/* One trial, as reported. */
struct lb_trial_rec {
    const char *path;            /* "dpdk" or "kernel" */
    const char *mode;            /* "throughput", "latency", "loss", "back-to-back" */
    unsigned frame_size;
    double requested_fps, achieved_fps;
    int valid;
    int invalid_reason;          /* enum lb_invalid (lb_reason.h): LB_INVALID_NONE when valid */
    double stall_ms;             /* the sender lost its CPU this long (passes > LB_STALL_US) */
    int search;                  /* index of the search that ran it (lb_report.n_searches) */
    const char *phase;           /* what it ran for: "search", "repeat", "mlr g0 final", ... */
    double intended_s;           /* trial length asked for */
    int retried;                 /* invalid, and run again (--retries): not seen by the search */
    double duration_s;
    uint64_t sent, tx_accepted, tx_refused, tx_nombuf;
    uint64_t rx, unique, lost, dup, reordered, late;
    uint64_t bursts, max_burst;
    uint64_t foreign, bad_frame, bad_checksum, stale;
    uint64_t imissed, rx_nombuf, ierrors, oerrors;   /* port counter deltas */
    uint64_t unattributed;       /* lost - (tx drops + rx port drops + corrupted) */
    double loss_ratio;
    struct lb_latency lat;
    struct ebf_hist lat_hist;    /* in units of ns_per_unit (TSC cycles) */
    double ns_per_unit;
    double tx_lag_p99_ns, tx_hold_p99_ns, rx_loop_p99_ns;
    unsigned n_bursts_shown;
    struct {
        uint64_t first_seq, len;
        double t_ms;             /* since the trial started */
    } burst[LB_BURSTS_SHOWN];
    unsigned n_queues;           /* --queues > 1: the queues below; else 0 */
    struct {
        uint64_t tx_sent, tx_accepted, rx;
    } queue[LB_REPORT_QUEUES];
    uint64_t queue_split;        /* frames received on another queue than their stream's */
};

/* What one frame size found, per path. */
struct lb_size_result {
    unsigned frame_size;
    struct lb_search_result tput;        /* throughput / back-to-back (fps = frames) */
    int lat_trial;                       /* index of the latency trial, -1 */
    int n_loss;
    struct lb_loss_point loss[10];
    struct lb_search_result kernel;      /* the kernel reference, --compare-kernel */
    int kernel_lat_trial;
    /* --search mlr: per path (0 dpdk, 1 kernel) and goal */
    int mlr_ran[2];
    unsigned mlr_trials[2], mlr_invalid[2];
    int mlr_timed_out[2];
    struct lb_mlr_goal_result mlr[2][LB_MLR_MAX_GOALS];
    struct lb_mlr_probe mlr_probe[2];    /* the sender probe before the search */
    /* --repeat N: per path, the figure of each repetition and their spread */
    struct lb_repeat rep[2];
    double *rep_values[2];               /* malloc'd, rep[p].n values; freed by lb_report_free */
};

struct lb_meta {
    char date[32];
    char dpdk_version[64];
    char cpu_model[128];
    double cpu_mhz;
    double tsc_hz;
    char hostname[64];
    char kernel[160];
    char tx_driver[32], rx_driver[32];
    double link_mbps;
    unsigned link_mtu;
    double trial_s;
    double tolerance;
    double probe_margin;         /* --probe-margin */
    double loss_ratio;
    double resolution_pct;
    const char *pacing;          /* "constant" or "poisson" */
    const char *idle;
    const char *tx_port, *rx_port;
    const char *mode;
    double tsc_read_ns;          /* cost of one TSC read: part of every latency */
    int compare_kernel;
    const char *search;          /* "binary" (RFC 2544) or "mlr" */
    unsigned repeat;             /* --repeat: repetitions, 1 for none */
    unsigned burst;              /* --burst */
    double tx_hold_us;           /* --tx-hold */
    unsigned n_goals;            /* --search mlr: its goals */
    struct lb_mlr_goal goal[LB_MLR_MAX_GOALS];
    int interrupted;             /* a signal (Ctrl-C, SIGTERM) stopped the run */
};

struct lb_report {
    struct lb_meta meta;
    unsigned n_sizes;
    struct lb_size_result size[LB_MAX_SIZES];
    unsigned n_trials, cap_trials;
    struct lb_trial_rec *trial;  /* every trial run, in order */
    unsigned n_searches;         /* searches started; lb_report_add stamps the current one */
};

/* Append a trial (copied, its search set to n_searches - 1); returns its
 * index or -ENOMEM. */
int lb_report_add(struct lb_report *r, const struct lb_trial_rec *t);

/* A trial function's last step (both paths): out from t, t appended to r
 * (lb_report_add) and, with live, its end line printed. Returns its index,
 * or -ENOMEM. */
int lb_report_trial(struct lb_report *r, const struct lb_trial_rec *t, FILE *live,
                    struct lb_trial_out *out);
void lb_report_free(struct lb_report *r);

/* Summary figures of a histogram whose unit is ns_per_unit nanoseconds
 * (TSC cycles: 1e9 / hz). */
void lb_latency_from_hist(const struct ebf_hist *h, double ns_per_unit, struct lb_latency *l);

/* CPU model and MHz from /proc/cpuinfo, host, kernel, date (UTC): the
 * DPDK-free part of the metadata. */
void lb_meta_host(struct lb_meta *m);

/* The live line, one per second: Mpps, Gbit/s at L1 and L2, loss, p99. */
void lb_print_live(FILE *f, double t_s, unsigned frame_size, double fps, double loss_ratio,
                   double p99_ns);

/* The live line at a trial's end: its index, size, the rate asked and
 * achieved, the loss, and valid or the reason it is not ("stopped" for the
 * trial a signal cut short). */
void lb_print_trial_end(FILE *f, int i, const struct lb_trial_rec *t);

/* The summary: per size and path the rate found, with --search mlr each
 * goal's conditional throughput, with --repeat the spread. */
void lb_print_table(FILE *f, const struct lb_report *r);

/* Every trial in order: search, path, size, phase, asked and achieved
 * rate, intended length, loss ratio, and valid or the reason it is not. */
void lb_print_trials(FILE *f, const struct lb_report *r);

/*
 * When every trial of frame_size on path ("dpdk", "kernel") was invalid
 * (the sender missed the asked rate): the line "loopback: every dpdk trial
 * of 64-byte frames was invalid: the sender reached at most 0.8127 Mfps of
 * the 7.4405 asked; try --rate 810kfps\n" in b, the best achieved rate
 * rounded down to two significant digits, and 1. 0 (b untouched) when a
 * trial was valid or there was none.
 */
int lb_rate_hint(const struct lb_report *r, unsigned frame_size, const char *path, char *b,
                 size_t n);
/* The report as a JSON document (jansson; the caller json_decref()s it),
 * NULL when out of memory; lb_write_json() writes it indented. */
struct json_t;
struct json_t *lb_json_report(const struct lb_report *r);
void lb_write_json(FILE *f, const struct lb_report *r);
void lb_write_csv(FILE *f, const struct lb_report *r);

/* SVG: frame loss against offered load, and the latency histogram of the
 * latency trials (or, without one, of the last valid trial of each size). */
int lb_write_svg(FILE *f, const struct lb_report *r);

/*
 * The figure's ticks. lb_ticks_linear: the multiples of a 1-2-5 step
 * (1, 2 or 5 times a power of ten) in [lo, hi], about want of them, at
 * most max, into v; *decimals: the decimals the step needs. lb_ticks_log:
 * 1, 2 and 5 times the powers of ten in [lo, hi] (only the powers when
 * that is more than 8). Both return how many. lb_tick_label: v with
 * decimals (-1: as many as a 1-2-5 value needs), no exponent, then " unit"
 * ("" for none): "0.5 Mpps", "20 %", "0.02" with the micro sign and "s".
 */
unsigned lb_ticks_linear(double lo, double hi, unsigned want, double *v, unsigned max,
                         int *decimals);
unsigned lb_ticks_log(double lo, double hi, double *v, unsigned max);
void lb_tick_label(char *b, size_t n, double v, int decimals, const char *unit);

#endif /* LB_REPORT_H */
