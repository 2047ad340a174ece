/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sfc.c - the SFC's busy cycles per frame against dpdk-testpmd io-forward from the same memif link. */
#include "bench_sfc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_parse.h"
#include "bench_place.h"
#include "bench_proc.h"
#include "farm_proc.h"
#include "farm_signal.h"

/*
 * Placement, the same on both sides when the tool has two CPUs or more:
 * the forwarding lcore (the SFC's, testpmd's lcore 1) alone on the second
 * CPU and spinning; everything else on the first: the readout, the nodes,
 * testpmd's main lcore, every control thread. With one CPU both sides run
 * unplaced.
 */
static int placed(unsigned *c0, unsigned *c1)
{
    struct bench_cpus c;

    bench_cpus_get(&c);
    if (c.n < 2)
        return 0;
    *c0 = c.cpu[0];
    *c1 = c.cpu[1];
    return 1;
}

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
    char exe[PATH_MAX + 32], prefix[64], out[PATH_MAX + 96], events[24], frag[16], cpus[48];
    unsigned c0, c1;
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/tools/ebfarm", env->build);
    snprintf(out, sizeof(out), "%s/%s.demo.json", env->tmp, prefix);
    snprintf(events, sizeof(events), "%u", sfc_events(env));
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    char *argv[] = {exe, "demo", "--json", "--events", events, "--frag-size", frag,
                    "--cpus", cpus, "--idle", "sfc=spin", NULL};
    if (placed(&c0, &c1))
        snprintf(cpus, sizeof(cpus), "sfc=%u,other=%u", c1, c0);
    else
        argv[7] = NULL;
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 120};
    if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
        return -1;
    static const char *const path[] = {"capacity", "sfc", "cycles_per_frame"};
    static const char *const passes[] = {"capacity", "sfc", "busy_passes"};
    static const char *const frames[] = {"capacity", "sfc", "frames"};
    static const char *const lrx[] = {"capacity", "sfc", "link_rx_cycles"};
    static const char *const ltx[] = {"capacity", "sfc", "link_tx_cycles"};
    char *text = slurp(out);
    int rc = text ? bench_json_number(text, path, 3, value) : -1;
    double np, nf, rx, tx;
    if (rc == 0 && bench_json_number(text, frames, 3, &nf) == 0 && nf > 0) {
        if (bench_json_number(text, passes, 3, &np) == 0 && np > 0)
            env->per_poll = nf / np;            /* frames per busy pass of its lcore */
        if (bench_json_number(text, lrx, 3, &rx) == 0 &&
            bench_json_number(text, ltx, 3, &tx) == 0) {
            env->link_rx = rx / nf;             /* the link copies' part of *value */
            env->link_tx = tx / nf;
        }
    }
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

/* The readout as a memif client of sock, sending the demo's events; with
 * cpu >= 0 its lcore and every thread of it on CPU cpu. */
static int feed(struct bench_env *env, const char *sock, int cpu, char *err, size_t len)
{
    char exe[PATH_MAX + 32], prefix[64], fp[80], out[PATH_MAX + 96], stats[PATH_MAX + 96];
    char vdev[PATH_MAX + 192], events[24], frag[16], lcores[32];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/readout/ebfarm-readout", env->build);
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(stats, sizeof(stats), "%s/%s.stats", env->tmp, prefix);
    snprintf(vdev, sizeof(vdev),
             "--vdev=net_memif0,role=client,id=0,socket=%s,socket-abstract=no", sock);
    snprintf(events, sizeof(events), "%u", sfc_events(env));
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    snprintf(lcores, sizeof(lcores), "--lcores=0@%d", cpu);
    char *argv[] = {exe, "--no-huge", "-m", "256", "--no-pci", vdev, fp, lcores, "--",
                    "--port", "net_memif0", "--sfc-mac", "02:eb:00:00:00:01",
                    "--events", events, "--frag-size", frag, "--stats", stats, NULL};
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 60};
    if (cpu < 0)
        memmove(&argv[7], &argv[8], 12 * sizeof(argv[0]));   /* no --lcores */
    int pid = bench_proc_start_on(argv, out, cpu < 0 ? 0 : bench_cpu_bit((unsigned)cpu));
    if (pid < 0) {
        snprintf(err, len, "cannot start the readout: %s", strerror(errno));
        return -1;
    }
    return bench_proc_wait(pid, exe, out, &lim, prefix, err, len);
}

static int testpmd_io_run(struct bench_env *env, double *value, char *err, size_t len)
{
    char prefix[64], fp[80], out[PATH_MAX + 96], sock[PATH_MAX + 96], vdev[PATH_MAX + 192];
    char lcores[48] = "-l0-1";
    unsigned c0 = 0, c1 = 0;
    int pin = placed(&c0, &c1);
    bench_env_prefix(env, prefix, sizeof(prefix));
    if (pin) /* main lcore 0 (prompt, stats) with the readout, lcore 1 forwards alone */
        snprintf(lcores, sizeof(lcores), "--lcores=0@%u,1@%u", c0, c1);
    snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
    snprintf(out, sizeof(out), "%s/%s.log", env->tmp, prefix);
    snprintf(sock, sizeof(sock), "%s/%s.sock", env->tmp, prefix);
    snprintf(vdev, sizeof(vdev),
             "--vdev=net_memif0,role=server,id=0,socket=%s,socket-abstract=no", sock);
    char *argv[] = {env->testpmd, lcores, "--no-huge", "-m", "256", "--no-pci", vdev,
                    "--vdev=net_null0,no-rx=1", fp, "--", "--forward-mode=io",
                    "--record-core-cycles", "--record-burst-stats", "--stats-period", "1",
                    "--total-num-mbufs=16384", NULL};
    int pid = bench_proc_start_on(argv, out, pin ? bench_cpu_bit(c0) | bench_cpu_bit(c1) : 0);
    if (pid < 0) {
        snprintf(err, len, "cannot start %s", env->testpmd);
        return -1;
    }
    char ferr[512] = "";
    int fed = wait_socket(sock, pid) == 0 ? feed(env, sock, pin ? (int)c0 : -1, ferr,
                                                  sizeof(ferr)) : -1;
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
    double per_burst;
    if (f && rc == 0 && fseek(f, 0, SEEK_SET) == 0 &&
        bench_testpmd_rx_per_burst(f, &per_burst) == 0)
        env->per_poll = per_burst;
    if (f)
        fclose(f);
    if (rc != 0 || packets <= 0) {
        snprintf(err, len, "dpdk-testpmd printed no busy cycles or forwarded packets (%s)", out);
        return -1;
    }
    *value = cycles / packets;
    return 0;
}

int bench_sfc_pinned(char *note, size_t len)
{
    unsigned c0, c1;
    int pin = placed(&c0, &c1);

    if (pin)
        note[0] = '\0';
    else
        snprintf(note, len, "1 CPU: both sides unplaced, the busy cycles include waiting for "
                 "the CPU");
    return pin;
}

int bench_sfc_side(struct bench_env *env, int reference, double *value, char *err, size_t len)
{
    if (!reference)
        return demo_run(env, value, err, len);
    /* dpdk-testpmd 22.11 now and then dies of SIGSEGV as the readout, its
     * memif client, leaves (the link's regions go while the forwarding
     * lcore polls): such a run is run again, 3 times at most. */
    int rc = -1;
    for (int t = 0; t < 3 && rc != 0 && farm_signal_count() == 0; t++)
        rc = testpmd_io_run(env, value, err, len);
    return rc;
}
