/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_cap.h - the SFC's in-process capacity (ebfarm-sfc-capacity) against the ring ports' io-forward floor, and its sweeps. */
#ifndef BENCH_CAP_H
#define BENCH_CAP_H

#include <stddef.h>
#include <stdio.h>

#include "bench_env.h"
#include "jsonout.h"

/* The figures of one run of ebfarm-sfc-capacity. */
struct bench_cap_run {
    double fps;                  /* frames per busy second */
    double cycles_per_frame;
    double gbps;                 /* fragment payload, Gbit per busy second */
    double fps_wall;             /* frames per wall second, every worker's lane summed */
};

/* One run: mode NULL the SFC's data plane (--verify full), "sampled" or
 * "none" with that policy, "io", "header" or "crc" a reference (--ref:
 * the same frames forwarded port to port, as pointers, with their headers
 * parsed, or with those and a plain CRC32C check); frag_size bytes from
 * each of sources; an SFC of workers workers, each with a lane of its own
 * on an lcore of its own (EAL -l 0..workers-1); pieces of at most an
 * mtu-byte frame (the rig's pools sized to it). Returns 0, or -1 with the
 * reason (and the run's log) in err. */
int bench_cap_run(struct bench_env *env, const char *mode, unsigned frag_size, unsigned sources,
                  unsigned workers, unsigned mtu, struct bench_cap_run *r, char *err, size_t len);

/* The capacity case: 1 KiB (--frag-size) x 8 sources, --verify full,
 * frames per busy second; reference 1 is the CRC32C pass (--ref crc), the
 * floor of a full verify in the same rig and cache state. */
int bench_cap_side(struct bench_env *env, int reference, double *value, char *err, size_t len);

/* The sampled case: the same with --verify sampled; reference 1 is the
 * header-parsing forward (--ref header), the floor of sampled and none. */
int bench_sampled_side(struct bench_env *env, int reference, double *value, char *err,
                       size_t len);

/* The workers case: an SFC of 2 workers (reference 1: of 1), 1 KiB
 * (--frag-size) x 8 sources, frames per wall second of all its lanes. */
int bench_workers_side(struct bench_env *env, int reference, double *value, char *err,
                       size_t len);

#define BENCH_SWEEP_POINTS 8

/* One sweep of the SFC's capacity over one parameter, one run per point. */
struct bench_sweep {
    const char *name;            /* "sfc_frag_size", "sfc_sources", "sfc_workers" */
    const char *x_name;          /* "frag_size" (bytes), "sources", "workers" */
    unsigned fixed;              /* sources (over frag_size), else frag_size */
    unsigned n;
    double x[BENCH_SWEEP_POINTS];
    unsigned mtu[BENCH_SWEEP_POINTS];  /* the MTU of each point (1500; jumbo: 9000) */
    struct bench_cap_run y[BENCH_SWEEP_POINTS];    /* the median of each figure over runs */
    struct bench_cap_run lo[BENCH_SWEEP_POINTS], hi[BENCH_SWEEP_POINTS];   /* min, max */
    unsigned runs;               /* runs per point (3; --quick 1) */
};

#define BENCH_SWEEPS 3

/* Run the sweeps (fragment sizes 64..8000 B at 8 sources and MTU 1500,
 * then 8000 B again in one 9000-byte frame, sources 1..128
 * at 1 KiB, workers 1 and 2 at 1 KiB x 8 sources) into sw[BENCH_SWEEPS]. progress (may be NULL) gets a line per
 * point. Returns 0, or -1 with err set. */
int bench_sweeps_run(struct bench_env *env, struct bench_sweep *sw, FILE *progress, char *err,
                     size_t len);

/* The sweeps as text lines (after the table), and as the JSON array
 * "sweeps" (the value of that key; NULL when out of memory). */
void bench_sweeps_table(FILE *f, const struct bench_sweep *sw, size_t n);
json_t *bench_sweeps_json(const struct bench_sweep *sw, size_t n);

/* One sweep as an SVG figure: frames and payload per busy second against
 * the swept parameter (log scale); over workers, frames per wall second
 * and per busy second. Each panel has y ticks from a zero baseline, axis
 * titles, each point's median with its min-max; the jumbo point apart (red,
 * "MTU 9000"); footer (the machine, DPDK version and date) at the bottom. */
void bench_sweep_svg(FILE *f, const struct bench_sweep *sw, const char *footer);

#endif /* BENCH_CAP_H */
