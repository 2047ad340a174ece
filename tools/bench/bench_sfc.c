/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sfc.c - the SFC's busy cycles per frame against dpdk-testpmd io-forward from the same memif link. */
#include "bench_sfc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_parse.h"
#include "bench_proc.h"
#include "farm_proc.h"

static unsigned sfc_events(const struct bench_env *env)
{
    return env->o->quick ? 50000u : 200000u;
}

/* The whole of a small file, NUL-terminated, or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static int demo_run(struct bench_env *env, double *value, char *err, size_t len)
{
    char exe[PATH_MAX + 32], prefix[64], out[PATH_MAX + 96], events[24], frag[16];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/tools/ebfarm", env->build);
    snprintf(out, sizeof(out), "%s/%s.demo.json", env->tmp, prefix);
    snprintf(events, sizeof(events), "%u", sfc_events(env));
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    char *argv[] = {exe, "demo", "--json", "--events", events, "--frag-size", frag, NULL};
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 120};
    if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
        return -1;
    static const char *const path[] = {"capacity", "sfc", "cycles_per_frame"};
    char *text = slurp(out);
    int rc = text ? bench_json_number(text, path, 3, value) : -1;
    free(text);
    if (rc != 0)
        snprintf(err, len, "ebfarm demo --json gave no capacity.sfc.cycles_per_frame (%s)", out);
    return rc;
}

/* Wait up to 20 s for testpmd's memif socket. */
static int wait_socket(const char *sock, int pid)
{
    for (int i = 0; i < 1000; i++) {
        if (access(sock, F_OK) == 0)
            return 0;
        if (!farm_alive(pid))
            return -1;
        farm_sleep_ms(20);
    }
    return -1;
}

/* The readout as a memif client of sock, sending the demo's events. */
static int feed(struct bench_env *env, const char *sock, char *err, size_t len)
{
    char exe[PATH_MAX + 32], prefix[64], fp[80], out[PATH_MAX + 96], stats[PATH_MAX + 96];
    char vdev[PATH_MAX + 192], events[24], frag[16];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/readout/ebfarm-readout", env->build);
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(stats, sizeof(stats), "%s/%s.stats", env->tmp, prefix);
    snprintf(vdev, sizeof(vdev),
             "--vdev=net_memif0,role=client,id=0,socket=%s,socket-abstract=no", sock);
    snprintf(events, sizeof(events), "%u", sfc_events(env));
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    char *argv[] = {exe, "--no-huge", "-m", "256", "--no-pci", vdev, fp, "--",
                    "--port", "net_memif0", "--sfc-mac", "02:eb:00:00:00:01",
                    "--events", events, "--frag-size", frag, "--stats", stats, NULL};
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 60};
    return bench_proc_run(argv, out, &lim, prefix, err, len);
}

static int testpmd_io_run(struct bench_env *env, double *value, char *err, size_t len)
{
    char prefix[64], fp[80], out[PATH_MAX + 96], sock[PATH_MAX + 96], vdev[PATH_MAX + 192];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(sock, sizeof(sock), "%s/%s.sock", env->tmp, prefix);
    snprintf(vdev, sizeof(vdev),
             "--vdev=net_memif0,role=server,id=0,socket=%s,socket-abstract=no", sock);
    char *argv[] = {env->testpmd, "-l", "0-1", "--no-huge", "-m", "256", "--no-pci", vdev,
                    "--vdev=net_null0,no-rx=1", fp, "--", "--forward-mode=io",
                    "--record-core-cycles", "--stats-period", "1",
                    "--total-num-mbufs=16384", NULL};
    int pid = bench_proc_start(argv, out);
    if (pid < 0) {
        snprintf(err, len, "cannot start %s", env->testpmd);
        return -1;
    }
    char ferr[512] = "";
    int fed = wait_socket(sock, pid) == 0 ? feed(env, sock, ferr, sizeof(ferr)) : -1;
    struct bench_proc_limits lim = {.interrupt_after_s = 0.3, .timeout_s = 20};
    int rc = bench_proc_wait(pid, env->testpmd, out, &lim, prefix, err, len);
    unlink(sock);
    if (fed != 0) {
        snprintf(err, len, "the readout feeding dpdk-testpmd failed: %s",
                 ferr[0] ? ferr : "no memif socket");
        return -1;
    }
    if (rc != 0)
        return -1;
    FILE *f = fopen(out, "r");
    double cycles, packets;
    rc = f ? bench_testpmd_io_cycles(f, &cycles, &packets) : -1;
    if (f)
        fclose(f);
    if (rc != 0 || packets <= 0) {
        snprintf(err, len, "dpdk-testpmd printed no busy cycles or forwarded packets (%s)", out);
        return -1;
    }
    *value = cycles / packets;
    return 0;
}

int bench_sfc_side(struct bench_env *env, int reference, double *value, char *err, size_t len)
{
    return reference ? testpmd_io_run(env, value, err, len) : demo_run(env, value, err, len);
}
