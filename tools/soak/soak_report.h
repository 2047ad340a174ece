/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_report.h - a soak's report as text lines, JSON lines and CSV. */
#ifndef SOAK_REPORT_H
#define SOAK_REPORT_H

#include <stdio.h>

#include "soak_verdict.h"

/* What the report says of the soak as a whole. */
struct soak_meta {
    char farm[FF_NAME_MAX];
    uint32_t run;
    char start_utc[32], stop_utc[32];
    char farm_file[512];
    char farm_file_sha256[65];
    double duration_s, interval_s;   /* asked for */
    double elapsed_s;                /* the soak's length, start to the final counters */
    double kill_every_s, stall_every_s;  /* 0: none */
    unsigned kills, stalls;          /* faults the soak made */
    double kill_sfc_every_s, drain_sfc_every_s;  /* 0: none */
    unsigned sfc_kills, drains;      /* SFCs killed and restarted, drained and undrained */
    int attached;                    /* the farm was up before the soak */
    int interrupted;                 /* a signal ended it early */
    double p99_bound_ms;             /* --max-p99-ms, drawn on the latency plot; 0: none */
};

/* The run's ledger in full as the report shows it. */
struct soak_ledger_view {
    struct soak_final f;
    uint64_t accepted, rejected;
    int digest_match, ids_match;
};

/* One line on the terminal for interval iv. */
void soak_live_line(FILE *f, const struct soak_interval *iv);

/* With failover on (iv->fo_on), the live line is followed by this one:
 * "         failover: SFC deaths seen D, recovered R (sums over the
 * readouts; last X ms, slowest readout), replayed N, redecided so far M;
 * replay buffer B MB (largest readout)", the counts those of the interval
 * (soak_sample.h SOAK_FO_*; D and R summed over the readouts, as status
 * and the summaries show them), the recovery time and buffer level at its
 * end. */
void soak_fo_line(FILE *f, const struct soak_interval *iv);

/* The JSON lines: the header ("type":"soak"), one per interval
 * ("type":"interval") and the end ("type":"summary": ledger, bounds, verdict). */
void soak_json_header(FILE *f, const struct soak_meta *m);
void soak_json_interval(FILE *f, const struct soak_interval *iv);
void soak_json_summary(FILE *f, const struct soak_meta *m, const struct soak_ledger_view *l,
                       const struct soak_bounds *b, const struct soak_verdict *v);

/* CSV: a header line, then one row per interval (fixed columns). */
void soak_csv_header(FILE *f);
void soak_csv_row(FILE *f, const struct soak_interval *iv);

/* The verdict as text: "verdict: PASS" or "verdict: FAIL (loss_budget, ...)"
 * and one line per criterion. A soak cut short (cut: "14 of 60 s") has no
 * verdict: "verdict: INTERRUPTED after 14 of 60 s (the part run: PASS)". */
void soak_verdict_text(FILE *f, const struct soak_verdict *v, const char *cut);

#endif /* SOAK_REPORT_H */
