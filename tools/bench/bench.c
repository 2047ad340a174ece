/* SPDX-License-Identifier: BSD-3-Clause */
/* bench.c - `ebfarm bench`: every case run as alternated subject/reference pairs into results. */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cap.h"
#include "bench_latency.h"
#include "bench_meta.h"
#include "bench_sfc.h"
#include "bench_stats.h"
#include "bench_txrate.h"
#include "bench_verify.h"
#include "farm_proc.h"
#include "farm_signal.h"

/* Each case's unit, reference and runs; the name is bench_case_name()'s. */
static const struct bench_case_def cases[BENCH_CASE_MAX] = {
    [BENCH_CASE_READOUT_TX] = {NULL, "frames/s", "testpmd_txonly", bench_txrate_side},
    [BENCH_CASE_NODE_VERIFY] = {NULL, "bytes/s", "crc32c", bench_verify_side},
    [BENCH_CASE_SFC_CYCLES] = {NULL, "cycles/frame", "testpmd_io", bench_sfc_side},
    [BENCH_CASE_SFC_CAPACITY] = {NULL, "frames/s", "crc32c_pass", bench_cap_side},
    [BENCH_CASE_SFC_SAMPLED] = {NULL, "frames/s", "header_forward", bench_sampled_side},
    [BENCH_CASE_SFC_WORKERS] = {NULL, "frames/s", "one_worker", bench_workers_side},
    [BENCH_CASE_LATENCY] = {NULL, "us", "idle_backoff", NULL}, /* bench_latency_run */
};

int bench_run_case(struct bench_env *env, const struct bench_case_def *def,
                   struct bench_result *r, FILE *progress, char *err, size_t len)
{
    double s[BENCH_MAX_PAIRS], ref[BENCH_MAX_PAIRS], sp[BENCH_MAX_PAIRS], rp[BENCH_MAX_PAIRS];
    double lrx[BENCH_MAX_PAIRS], ltx[BENCH_MAX_PAIRS];
    unsigned n = env->o->pairs;
    for (unsigned i = 0; i < n; i++) {
        env->per_poll = env->link_rx = env->link_tx = 0;
        if (def->side(env, 0, &s[i], err, len) != 0)
            return -1;
        sp[i] = env->per_poll;
        lrx[i] = env->link_rx;
        ltx[i] = env->link_tx;
        env->per_poll = 0;
        if (def->side(env, 1, &ref[i], err, len) != 0)
            return -1;
        rp[i] = env->per_poll;
        if (progress)
            fprintf(progress, "bench: %s pair %u/%u: %.4g %s, %s %.4g\n", def->name, i + 1, n,
                    s[i], def->unit, def->reference, ref[i]);
    }
    bench_result_set(r, def->name, def->unit, def->reference, s, ref, n);
    bench_result_per_poll(r, sp, rp, n);
    bench_result_link(r, s, ref, lrx, ltx, n);
    return 0;
}

/* dpdk-testpmd: $EBFARM_TESTPMD, else the first dpdk-testpmd in PATH.
 * Returns 0, or -1 with err saying where to get it. */
static int find_testpmd(struct bench_env *env, char *err, size_t len)
{
    const char *t = getenv("EBFARM_TESTPMD");
    if (t && t[0]) {
        snprintf(env->testpmd, sizeof(env->testpmd), "%s", t);
        if (access(t, X_OK) == 0)
            return 0;
        snprintf(err, len, "EBFARM_TESTPMD=%s is not an executable file", t);
        return -1;
    }
    const char *path = getenv("PATH");
    char dir[PATH_MAX];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
        p += n + (p[n] == ':');
        if (snprintf(env->testpmd, sizeof(env->testpmd), "%s/dpdk-testpmd", dir) <
                (int)sizeof(env->testpmd) &&
            access(env->testpmd, X_OK) == 0)
            return 0;
    }
    snprintf(err, len, "dpdk-testpmd is not in PATH: install the dpdk-dev package "
                       "(tools/scripts/packages.txt) or set EBFARM_TESTPMD");
    return -1;
}

/* Write each sweep's SVG figure as DIR/<name>.svg (DIR made if missing),
 * the machine, DPDK version and date in its footer. */
static int write_svgs(const char *dir, const struct bench_sweep *sw, int n, int huge, char *err,
                      size_t len)
{
    struct bench_meta m;
    char footer[512];
    bench_meta_collect(&m);
    snprintf(footer, sizeof(footer), "%s, %u CPUs; DPDK %s; %s; ebfarm-sfc-capacity over "
             "net_ring, --verify full, %s", m.cpu_model, m.cpus, m.dpdk_version, m.date,
             huge ? "hugepages" : "4 KiB pages");
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, len, "--svg %s: cannot make the directory: %s", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s.svg", dir, sw[i].name);
        FILE *f = fopen(path, "w");
        if (!f) {
            snprintf(err, len, "--svg %s: cannot write %s", dir, path);
            return -1;
        }
        bench_sweep_svg(f, &sw[i], footer);
        fclose(f);
    }
    return 0;
}

int bench_run_all(const struct bench_opts *o, struct bench_result *r, struct bench_sweep *sw,
                  int *n_sweeps, FILE *progress, char *err, size_t len)
{
    *n_sweeps = 0;
    struct bench_env env = {.o = o};
    if (farm_build_dir(env.build, sizeof(env.build)) != 0) {
        snprintf(err, len, "cannot find the build directory; set EBFARM_BUILD_DIR");
        return -1;
    }
    int wants_testpmd = bench_opts_wants(o, BENCH_CASE_READOUT_TX) ||
                        bench_opts_wants(o, BENCH_CASE_SFC_CYCLES);
    if (wants_testpmd && find_testpmd(&env, err, len) != 0)
        return -1;
    snprintf(env.tmp, sizeof(env.tmp), "/tmp/ebfarm-bench.XXXXXX");
    if (!mkdtemp(env.tmp)) {
        snprintf(err, len, "cannot make a scratch directory under /tmp");
        return -1;
    }
    int n = 0;
    for (unsigned c = 0; c < BENCH_CASE_MAX; c++) {
        if (!bench_opts_wants(o, c))
            continue;
        if (c == BENCH_CASE_LATENCY) { /* two results of the same runs */
            int k = bench_latency_run(&env, &r[n], progress, err, len);
            if (k < 0) {
                n = -1;
                break;
            }
            n += k;
            continue;
        }
        struct bench_case_def def = cases[c];
        def.name = bench_case_name(c);
        if (bench_run_case(&env, &def, &r[n], progress, err, len) != 0) {
            n = -1;
            break;
        }
        if (c == BENCH_CASE_SFC_CYCLES)
            r[n].pinned = bench_sfc_pinned(r[n].note, sizeof(r[n].note));
        n++;
    }
    if (n >= 0 && o->sweeps && bench_opts_wants(o, BENCH_CASE_SFC_CAPACITY)) {
        if (bench_sweeps_run(&env, sw, progress, err, len) != 0)
            n = -1;
        else
            *n_sweeps = BENCH_SWEEPS;
    }
    if (n >= 0 || farm_signal_count() > 0) /* a failure's message names a log in it: kept */
        farm_rm_rf(env.tmp);
    if (n >= 0 && *n_sweeps && o->svg_dir &&
        write_svgs(o->svg_dir, sw, *n_sweeps, o->huge_dir != NULL, err, len) != 0)
        n = -1;                 /* no run failed: nothing to keep */
    return n;
}
