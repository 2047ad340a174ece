/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_cap.c - the SFC's in-process capacity (ebfarm-sfc-capacity) against the ring ports' io-forward floor, and its sweeps. */
#include "bench_cap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_parse.h"
#include "bench_proc.h"
#include "bench_stats.h"

#define CAP_SOURCES 8

static const unsigned sweep_frag[] = {64, 256, 1024, 4096, 8000, 8000};
/* The MTU of each fragment-size point: the last one is 8000 B in one
 * jumbo frame, the one before it the same fragment in 1500-byte pieces. */
static const unsigned sweep_frag_mtu[] = {1500, 1500, 1500, 1500, 1500, 9000};
static const unsigned sweep_sources[] = {1, 2, 8, 32, 128};
static const unsigned sweep_workers[] = {1, 2};

/* The whole of a small file, NUL-terminated, or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* The rig's option for mode: --verify for the SFC's policies, --ref for
 * the references. */
static const char *mode_opt(const char *mode)
{
    if (!mode)
        return NULL;
    return strcmp(mode, "sampled") == 0 || strcmp(mode, "none") == 0 || strcmp(mode, "full") == 0
               ? "--verify" : "--ref";
}

int bench_cap_run(struct bench_env *env, const char *mode, unsigned frag_size, unsigned sources,
                  unsigned workers, unsigned mtu, struct bench_cap_run *r, char *err, size_t len)
{
    char exe[PATH_MAX + 48], prefix[64], fp[80], out[PATH_MAX + 96], frag[16], src[16], ms[16];
    char lcores[16], w[16], mtus[16];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/tools/bench/ebfarm-sfc-capacity", env->build);
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(frag, sizeof(frag), "%u", frag_size);
    snprintf(src, sizeof(src), "%u", sources);
    snprintf(ms, sizeof(ms), "%u", env->o->quick ? 300u : 1000u);
    snprintf(lcores, sizeof(lcores), workers > 1 ? "0-%u" : "0", workers - 1);
    snprintf(w, sizeof(w), "%u", workers);
    snprintf(mtus, sizeof(mtus), "%u", mtu);
    /* 4 KiB pages unless --huge-dir: "--huge-dir DIR" in the first two slots */
    char *argv[] = {exe, "--no-huge", (char *)env->o->huge_dir, "-m",
                    workers > 1 ? "512" : "256", "--no-pci", "--no-telemetry", "-l", lcores,
                    "--log-level=*:warning", fp, "--", "--frag-size", frag, "--sources", src,
                    "--ms", ms, "--workers", w, "--mtu", mtus, (char *)mode_opt(mode),
                    (char *)mode, NULL};
    if (env->o->huge_dir)
        argv[1] = "--huge-dir";
    else
        memmove(&argv[2], &argv[3], sizeof(argv) - 3 * sizeof(argv[0]));
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 60};
    if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
        return -1;
    char *text = slurp(out);
    int rc = text && bench_kv_number(text, "frames_per_busy_s", &r->fps) == 0 &&
                     bench_kv_number(text, "cycles_per_frame", &r->cycles_per_frame) == 0 &&
                     bench_kv_number(text, "payload_gbit_per_busy_s", &r->gbps) == 0 &&
                     bench_kv_number(text, "frames_per_wall_s", &r->fps_wall) == 0 &&
                     r->fps > 0
                 ? 0
                 : -1;
    free(text);
    if (rc)
        snprintf(err, len, "ebfarm-sfc-capacity printed no frames_per_busy_s (output: %s)", out);
    return rc;
}

int bench_cap_side(struct bench_env *env, int reference, double *value, char *err, size_t len)
{
    struct bench_cap_run r;
    if (bench_cap_run(env, reference ? "crc" : NULL, env->o->frag_size, CAP_SOURCES, 1, 1500,
                      &r, err, len) != 0)
        return -1;
    *value = r.fps;
    return 0;
}

int bench_sampled_side(struct bench_env *env, int reference, double *value, char *err,
                       size_t len)
{
    struct bench_cap_run r;
    if (bench_cap_run(env, reference ? "header" : "sampled", env->o->frag_size, CAP_SOURCES, 1,
                      1500, &r, err, len) != 0)
        return -1;
    *value = r.fps;
    return 0;
}

int bench_workers_side(struct bench_env *env, int reference, double *value, char *err,
                       size_t len)
{
    struct bench_cap_run r;
    if (bench_cap_run(env, NULL, env->o->frag_size, CAP_SOURCES, reference ? 1 : 2, 1500,
                      &r, err, len) != 0)
        return -1;
    *value = r.fps_wall;
    return 0;
}

/* The median, min and max of each figure of k runs (k <= 5). */
static void point_of(const struct bench_cap_run *run, unsigned k, struct bench_cap_run *med,
                     struct bench_cap_run *lo, struct bench_cap_run *hi)
{
    double v[4][5];
    struct bench_spread sp;
    for (unsigned j = 0; j < k; j++) {
        v[0][j] = run[j].fps;
        v[1][j] = run[j].cycles_per_frame;
        v[2][j] = run[j].gbps;
        v[3][j] = run[j].fps_wall;
    }
    double *out[3][4] = {{&med->fps, &med->cycles_per_frame, &med->gbps, &med->fps_wall},
                         {&lo->fps, &lo->cycles_per_frame, &lo->gbps, &lo->fps_wall},
                         {&hi->fps, &hi->cycles_per_frame, &hi->gbps, &hi->fps_wall}};
    for (int f = 0; f < 4; f++) {
        bench_spread_of(v[f], k, &sp);
        *out[0][f] = sp.median;
        *out[1][f] = sp.min;
        *out[2][f] = sp.max;
    }
}

/* over: 0 fragment sizes, 1 sources, 2 workers (at frag_size fixed and
 * CAP_SOURCES sources); sw->runs runs a point, their medians and spread. */
static int sweep(struct bench_env *env, struct bench_sweep *sw, const unsigned *x, unsigned n,
                 int over, FILE *progress, char *err, size_t len)
{
    struct bench_cap_run run[5];
    sw->n = n;
    sw->runs = env->o->quick ? 2 : 3;
    for (unsigned i = 0; i < n; i++) {
        unsigned frag = over ? sw->fixed : x[i], src = over == 1 ? x[i] : CAP_SOURCES;
        if (over == 0)
            src = sw->fixed;
        sw->x[i] = x[i];
        sw->mtu[i] = over == 0 ? sweep_frag_mtu[i] : 1500;
        for (unsigned k = 0; k < sw->runs; k++)
            if (bench_cap_run(env, NULL, frag, src, over == 2 ? x[i] : 1, sw->mtu[i], &run[k],
                              err, len) != 0)
                return -1;
        point_of(run, sw->runs, &sw->y[i], &sw->lo[i], &sw->hi[i]);
        if (progress)
            fprintf(progress, "bench: %s %s=%u mtu=%u: %.4g frames/s, %.3g Gbit/s per busy s; "
                    "%.4g frames per wall s (medians of %u)\n", sw->name, sw->x_name, x[i],
                    sw->mtu[i], sw->y[i].fps, sw->y[i].gbps, sw->y[i].fps_wall, sw->runs);
    }
    return 0;
}

int bench_sweeps_run(struct bench_env *env, struct bench_sweep *sw, FILE *progress, char *err,
                     size_t len)
{
    sw[0] = (struct bench_sweep){.name = "sfc_frag_size", .x_name = "frag_size",
                                 .fixed = CAP_SOURCES};
    sw[1] = (struct bench_sweep){.name = "sfc_sources", .x_name = "sources", .fixed = 1024};
    sw[2] = (struct bench_sweep){.name = "sfc_workers", .x_name = "workers", .fixed = 1024};
    if (sweep(env, &sw[0], sweep_frag, sizeof(sweep_frag) / sizeof(sweep_frag[0]), 0, progress,
              err, len) != 0 ||
        sweep(env, &sw[1], sweep_sources, sizeof(sweep_sources) / sizeof(sweep_sources[0]), 1,
              progress, err, len) != 0)
        return -1;
    return sweep(env, &sw[2], sweep_workers, sizeof(sweep_workers) / sizeof(sweep_workers[0]),
                 2, progress, err, len);
}
