/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_bench.c - ebfarm bench: ebfarm against reference runs, side by side, as a table, JSON or CSV. */
#include "cmd_bench.h"

#include <stdio.h>

#include "bench.h"
#include "bench_meta.h"
#include "bench_opts.h"
#include "bench_report.h"
#include "bench_txrate.h"
#include "farm_signal.h"

int cmd_bench(int argc, char **argv)
{
    struct bench_opts o;
    char err[512];
    if (bench_opts_parse(&o, argc, argv, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s\n", err);
        return 2;
    }
    if (o.help) {
        fputs(bench_usage, stdout);
        return 0;
    }
    struct bench_meta m = {0};
    bench_meta_collect(&m);
    snprintf(m.driver, sizeof(m.driver), "%s", BENCH_DRIVER);
    m.frag_size = o.frag_size;
    m.frame_size = bench_tx_frame_size(o.frag_size);
    m.pairs = o.pairs;
    m.quick = o.quick;
    m.rig_hugepages = o.huge_dir != NULL;
    farm_signal_catch(); /* Ctrl-C stops the run going on and cleans up */
    struct bench_result r[BENCH_RESULTS_MAX];
    struct bench_sweep sw[BENCH_SWEEPS];
    int n_sw = 0;
    int n = bench_run_all(&o, r, sw, &n_sw, stderr, err, sizeof(err));
    if (n < 0) {
        fprintf(stderr, "ebfarm bench: %s\n", err);
        return 1;
    }
    if (o.format == BENCH_OUT_JSON)
        bench_print_json_with(stdout, &m, r, (size_t)n,
                              n_sw ? bench_sweeps_json(sw, (size_t)n_sw) : NULL);
    else if (o.format == BENCH_OUT_CSV)
        bench_print_csv(stdout, &m, r, (size_t)n);
    else
        bench_print_table(stdout, &m, r, (size_t)n);
    if (o.format == BENCH_OUT_TABLE)
        bench_sweeps_table(stdout, sw, (size_t)n_sw);
    return 0;
}
