/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_parse.h - figures out of the runs' outputs: dpdk-testpmd's periodic stats, the readout's stats file. */
#ifndef BENCH_PARSE_H
#define BENCH_PARSE_H

#include <stdint.h>
#include <stdio.h>

/*
 * dpdk-testpmd with --stats-period prints, every period, "Tx-pps: N" per
 * port (the packets sent since the last print, per second). The rate of a
 * run is the median of those samples, the first left out when there are
 * two or more (it includes the start of forwarding). Returns the rate in
 * packets per second, or -1 when the output has no sample.
 */
double bench_testpmd_tx_pps(FILE *out);

/*
 * dpdk-testpmd with --record-core-cycles prints at its end "total
 * cycles=N" (the cycles of its forwarding passes that moved packets; 22.11
 * prints "total io packets=0" and INF beside them) and the accumulated
 * forward statistics, "TX-packets: N" among them. Sets *cycles and
 * *packets; returns 0, or -1 when either is missing.
 */
int bench_testpmd_io_cycles(FILE *out, double *cycles, double *packets);

/*
 * With --record-burst-stats dpdk-testpmd 22.11 prints, per port, under its
 * "TX-packets: N" a line "TX-bursts : T [...]", and under "RX-packets: N"
 * one "RX-bursts : T [P% of 0 pkts + ...]" (P a whole percent, rounded
 * down). The io forward transmits each non-empty receive burst once, in one
 * transmit burst (no retry; net_null takes every packet): the transmitting
 * port's N over T is its packets per non-empty receive burst, exactly. Sets
 * *per_burst to that; without a TX-bursts line, to the receiving port's N
 * over T (100 - P) / 100 unless more than 90% of its bursts were empty (1%
 * of rounding would be too much of the rest). Returns 0, or -1 when
 * neither tells (22.11's memif port, for one, shows 0 RX-packets once its
 * client has left).
 */
int bench_testpmd_rx_per_burst(FILE *out, double *per_burst);

/*
 * The number at the path keys (n object keys, each inside the previous
 * one) of the JSON object in text: {"a": {"b": 3}} with keys a, b gives 3.
 * The object starts text or a line of it (`ebfarm demo --json`'s output
 * after its standard error's lines). Returns 0, or -1 when the text holds
 * no JSON object, a key is missing or its value is not a number.
 */
int bench_json_number(const char *text, const char *const *keys, unsigned n, double *out);

/*
 * The number of key in a line of "key=value" words (ebfarm-sfc-capacity's
 * output): "frames=10 busy_cycles=5" with key busy_cycles gives 5. A key
 * counts only as a whole word (at the start or after a space). Returns 0,
 * or -1 when the key or its number is missing.
 */
int bench_kv_number(const char *text, const char *key, double *out);

/* The figures of a readout run, from its stats file. */
struct bench_ro_run {
    uint64_t frames;             /* "frames": frames sent */
    uint64_t bytes;              /* "bytes": frame bytes sent */
    uint64_t start_ns, end_ns;   /* first and last event, wall clock */
    uint64_t busy_cycles;        /* "lcore.busy_cycles.0" */
};

/* Load a readout's stats file. Returns 0, or -1 when it cannot be read or
 * lacks one of the keys above, or its run is empty (no frames, end <= start). */
int bench_ro_load(const char *path, struct bench_ro_run *r);

/* Frames per wall second of the run: frames / (end_ns - start_ns). */
double bench_ro_fps(const struct bench_ro_run *r);

#endif /* BENCH_PARSE_H */
