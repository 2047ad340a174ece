/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_env.h - what every case of a bench run shares: options, where the programs and scratch files are, unique names. */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include <limits.h>
#include <stddef.h>

#include "bench_opts.h"

struct bench_env {
    const struct bench_opts *o;
    char build[PATH_MAX];        /* the build directory (readout/ebfarm-readout ...) */
    char tmp[PATH_MAX];          /* scratch directory of this bench run: outputs, stats files */
    char testpmd[PATH_MAX];      /* the dpdk-testpmd program */
    unsigned seq;                /* runs so far: the unique part of names */
    double per_poll;             /* frames per busy poll of the last side run, when it
                                    tells (sfc_cycles: burst occupancy); else 0 */
    double link_rx, link_tx;     /* sfc_cycles' SFC: its busy cycles per frame in receive
                                    and in transmit bursts (the link copies); else 0 */
};

/* One side of a case: run it once and give its figure. reference selects
 * the reference run. Returns 0, or -1 with the reason in err. */
typedef int (*bench_side_fn)(struct bench_env *env, int reference, double *value, char *err,
                             size_t len);

/* A unique DPDK file prefix for the next run: "ebfbench<pid>-<seq>". */
void bench_env_prefix(struct bench_env *env, char *buf, size_t len);

#endif /* BENCH_ENV_H */
