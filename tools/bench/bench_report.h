/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_report.h - benchmark results and the run's metadata as a table, one JSON object or CSV. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "bench_stats.h"
#include "jsonout.h"

/* The machine and software a benchmark ran on (bench_meta.c fills it). */
struct bench_meta {
    char cpu_model[128];         /* /proc/cpuinfo "model name", "unknown" if absent */
    double cpu_mhz;              /* /proc/cpuinfo "cpu MHz" of the first CPU, 0 if absent */
    unsigned cpus;               /* online CPUs */
    char dpdk_version[32];       /* the DPDK the daemons were built with */
    char driver[96];             /* the virtual device both sides ran on */
    unsigned frame_size;         /* bytes of each frame on the device */
    unsigned frag_size;          /* fragment payload bytes */
    unsigned pairs;              /* subject/reference pairs of each result */
    int quick;                   /* 1: --quick */
    int rig_hugepages;           /* 1: the in-process rigs ran on hugepages (--huge-dir) */
    char date[32];               /* UTC, ISO 8601 */
};

/* One measurement against its reference, over `pairs` alternated runs. */
struct bench_result {
    char name[48];               /* what was measured, e.g. "readout_tx_rate" */
    char unit[24];               /* of value and reference_value */
    char reference[48];          /* the reference run, e.g. "testpmd_txonly" */
    struct bench_spread value;   /* the subject's runs */
    struct bench_spread reference_value;
    struct bench_spread ratio;   /* value / reference_value per pair */
    unsigned pairs;
    int pinned;                  /* -1 (bench_result_set): no placement question; 1: every
                                  * process where the case asks; 0: not (note says why) */
    char note[256];              /* "" or what the reader must know of this result */
    int per_poll;                /* 1: the sides told their frames per busy poll */
    struct bench_spread value_per_poll, reference_per_poll;   /* of the runs that told */
    int link;                    /* 1: the subject told its link copies' cycles (sfc_cycles) */
    struct bench_spread link_rx, link_tx;   /* the subject's cycles per frame in its receive
                                             * and transmit bursts */
    struct bench_spread link_all, own;      /* their sum; value less it (the building) */
    struct bench_spread like;    /* (value - link_tx) / reference_value: one copy each */
    struct bench_spread own_ratio;          /* own / reference_value: at most own over the
                                             * reference's own part (not measurable) */
};

/* Fill r from pairs of runs: s[i] the subject's, ref[i] the reference's. */
void bench_result_set(struct bench_result *r, const char *name, const char *unit,
                      const char *reference, const double *s, const double *ref, size_t n);

/* The frames per busy poll (burst occupancy) of each side's runs, 0 where
 * a run did not tell: r->per_poll set when any did, the spreads over the
 * runs that told (0 when none of a side's did). */
void bench_result_per_poll(struct bench_result *r, const double *s, const double *ref, size_t n);

/*
 * The split of a cycles-per-frame result whose subject pays link copies
 * its reference does not (sfc_cycles: the SFC receives from one memif link
 * and transmits into another, testpmd receives from the same kind of link
 * and frees): rx[i] and tx[i] the subject's cycles per frame in its
 * receive and transmit bursts of pair i, s[i] and ref[i] the pair's
 * figures. Sets r->link when any rx[i] + tx[i] is positive, and the
 * spreads over the pairs that told: the link part rx + tx, the own part s
 * - rx - tx, the like-for-like ratio (s - tx) / ref (both sides pay one
 * receive copy) and the own ratio (s - rx - tx) / ref: the subject's own
 * part over the reference's whole, a floor of own over own (the
 * reference's receive copy is inside its figure and not measured).
 */
void bench_result_link(struct bench_result *r, const double *s, const double *ref,
                       const double *rx, const double *tx, size_t n);

/* A human table: metadata lines, then one row per result (median and
 * min-max of value, reference value and ratio). */
void bench_print_table(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                       size_t n);

/* One JSON object: {"meta": {...}, "results": [{"name", "value", "unit",
 * "reference", "reference_value", "ratio", "pairs", "value_min", ...}]}.
 * value, reference_value and ratio are the medians. A result with pinned
 * 0 or 1 has "pinned": false/true, one with a note "note"; the notes are
 * also in meta, "notes": ["name: note", ...], when there is one. The table
 * lists them under its rows. A result with its link split (r->link) has
 * "link_cycles_per_frame", "link_rx_cycles_per_frame",
 * "link_tx_cycles_per_frame", "own_cycles_per_frame",
 * "like_for_like_ratio" and "own_ratio", each with "_min" and "_max". */
void bench_print_json(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                      size_t n);

/* The same with a last key, "sweeps", of value sweeps (taken; left out
 * when NULL). */
void bench_print_json_with(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                           size_t n, json_t *sweeps);

/* CSV: a header line, then one line per result; the metadata repeated in
 * the last columns of every line so that each line stands alone. */
void bench_print_csv(FILE *f, const struct bench_meta *m, const struct bench_result *r,
                     size_t n);

#endif /* BENCH_REPORT_H */
