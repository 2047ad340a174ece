/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_txrate.c - the readout's transmit rate against dpdk-testpmd txonly on net_null, same frame size. */
#include "bench_txrate.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_parse.h"
#include "bench_proc.h"
#include "ebf_proto.h"

/* The device of both sides: net_null without its receive side, so that
 * neither polls frames that a null device makes up. */
#define TX_VDEV "--vdev=net_null0,no-rx=1"

unsigned bench_tx_frame_size(unsigned frag_size)
{
    return EBF_ETH_HLEN + EBF_FRAG_HLEN + frag_size;
}

static int readout_run(struct bench_env *env, double *value, char *err, size_t len)
{
    char exe[PATH_MAX + 32], prefix[64], fp[80], out[PATH_MAX + 96], stats[PATH_MAX + 96];
    char events[24], frag[16];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/readout/ebfarm-readout", env->build);
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(stats, sizeof(stats), "%s/%s.stats", env->tmp, prefix);
    snprintf(events, sizeof(events), "%u", env->o->quick ? 100000u : 500000u);
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    char *argv[] = {exe, "--no-huge", "-m", "256", "--no-pci", TX_VDEV, fp, "--",
                    "--port", "net_null0", "--sfc-mac", "02:eb:00:00:00:01",
                    "--events", events, "--frag-size", frag, "--idle", "spin",
                    "--stats", stats, NULL};
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 60};
    if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
        return -1;
    struct bench_ro_run r;
    if (bench_ro_load(stats, &r) != 0) {
        snprintf(err, len, "readout stats file %s has no run (frames, start_ns, end_ns)", stats);
        return -1;
    }
    *value = bench_ro_fps(&r);
    return 0;
}

static int testpmd_run(struct bench_env *env, double *value, char *err, size_t len)
{
    char prefix[64], fp[80], out[PATH_MAX + 96], txpkts[32];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(txpkts, sizeof(txpkts), "--txpkts=%u", bench_tx_frame_size(env->o->frag_size));
    char *argv[] = {env->testpmd, "-l", "0-1", "--no-huge", "-m", "256", "--no-pci", TX_VDEV,
                    fp, "--", "--forward-mode=txonly", txpkts, "--stats-period", "1",
                    "--total-num-mbufs=16384", NULL};
    double run_s = env->o->quick ? 3.5 : 6.5, pps = -1;
    /* On a loaded machine testpmd's start can take most of the run, so
     * that it prints no period after its first (rates 0): then it runs
     * again, twice as long, 3 times at most. */
    for (int attempt = 0; attempt < 3 && pps <= 0; attempt++, run_s *= 2) {
        struct bench_proc_limits lim = {.interrupt_after_s = run_s, .timeout_s = run_s + 20};
        if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
            return -1;
        FILE *f = fopen(out, "r");
        pps = f ? bench_testpmd_tx_pps(f) : -1;
        if (f)
            fclose(f);
    }
    if (pps <= 0) {
        snprintf(err, len, "dpdk-testpmd printed no Tx-pps figure (output: %s)", out);
        return -1;
    }
    *value = pps;
    return 0;
}

int bench_txrate_side(struct bench_env *env, int reference, double *value, char *err,
                      size_t len)
{
    return reference ? testpmd_run(env, value, err, len) : readout_run(env, value, err, len);
}
