/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_latency.c - the end-to-end latency of a paced demo farm: spinning on pinned cores against backing off. */
#include "bench_latency.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_parse.h"
#include "bench_place.h"
#include "bench_proc.h"
#include "bench_stats.h"

#define LAT_RATE "10000"
#define LAT_PROCS 4              /* the demo's spinning processes */

/* The order in which processes get a CPU of their own: the SFC (every
 * event passes it), the nodes, the readout (paced: mostly waiting). */
static const char *const order[LAT_PROCS] = {"sfc0", "node0", "node1", "ro0"};

void bench_latency_plan(const struct bench_cpus *cpus, struct bench_lat_plan *p)
{
    const struct bench_cpus c = *cpus;
    size_t o, s = 0;

    memset(p, 0, sizeof(*p));
    if (c.n < 2) {
        snprintf(p->spin, sizeof(p->spin), "backoff");
        snprintf(p->note, sizeof(p->note), "1 CPU: nothing spins, both sides back off");
        return;
    }
    /* CPU 0 of ours: control threads and whoever has no CPU of its own. */
    unsigned own = c.n - 1 < LAT_PROCS ? c.n - 1 : LAT_PROCS;
    p->pinned = own >= LAT_PROCS - 1;    /* 4 CPUs: the paced readout spins beside them */
    o = (size_t)snprintf(p->cpus, sizeof(p->cpus), "other=%u", c.cpu[0]);
    for (unsigned i = 0; i < own; i++) {
        o += (size_t)snprintf(p->cpus + o, sizeof(p->cpus) - o, ",%s=%u", order[i], c.cpu[i + 1]);
        s += (size_t)snprintf(p->spin + s, sizeof(p->spin) - s, "%s=spin,", order[i]);
    }
    snprintf(p->spin + s, sizeof(p->spin) - s, "other=%s", p->pinned ? "spin" : "backoff");
    if (p->pinned && own < LAT_PROCS)
        snprintf(p->note, sizeof(p->note), "4 CPUs: the readout spins on CPU %u beside the "
                 "control threads", c.cpu[0]);
    else if (!p->pinned)
        snprintf(p->note, sizeof(p->note), "%u CPUs, 4 needed: only %s spin%s, on %s; the "
                 "rest back off on CPU %u with the control threads", c.n,
                 own > 1 ? "sfc0 and node0" : "sfc0", own > 1 ? "" : "s",
                 own > 1 ? "CPUs of their own" : "a CPU of its own", c.cpu[0]);
}

static unsigned lat_events(const struct bench_env *env)
{
    return env->o->quick ? 3000u : 50000u;
}

/* One paced demo with idle as --idle; its end-to-end p50 and p99 in us. */
static int demo_run(struct bench_env *env, const struct bench_lat_plan *p, const char *idle,
                    double *p50, double *p99, char *err, size_t len)
{
    char exe[PATH_MAX + 32], prefix[64], out[PATH_MAX + 96], events[24], frag[16];
    bench_env_prefix(env, prefix, sizeof(prefix));
    snprintf(exe, sizeof(exe), "%s/tools/ebfarm", env->build);
    snprintf(out, sizeof(out), "%s/%s.demo.json", env->tmp, prefix);
    snprintf(events, sizeof(events), "%u", lat_events(env));
    snprintf(frag, sizeof(frag), "%u", env->o->frag_size);
    char *argv[] = {exe, "demo", "--json", "--rate", LAT_RATE, "--events", events,
                    "--frag-size", frag, "--idle", (char *)idle, "--cpus", (char *)p->cpus, NULL};
    if (!p->cpus[0])
        argv[11] = NULL;
    struct bench_proc_limits lim = {.interrupt_after_s = 0, .timeout_s = 120};
    if (bench_proc_run(argv, out, &lim, prefix, err, len) != 0)
        return -1;
    static const char *const k50[] = {"latency_ns", "end_to_end", "p50"};
    static const char *const k99[] = {"latency_ns", "end_to_end", "p99"};
    FILE *f = fopen(out, "r");
    char *text = f ? calloc(1, 1 << 20) : NULL;
    size_t got = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
    (void)got;
    if (f)
        fclose(f);
    int rc = text && bench_json_number(text, k50, 3, p50) == 0 &&
             bench_json_number(text, k99, 3, p99) == 0 ? 0 : -1;
    free(text);
    if (rc != 0 || *p99 <= 0) {
        snprintf(err, len, "ebfarm demo --json gave no latency_ns.end_to_end p50/p99 (%s)", out);
        return -1;
    }
    *p50 /= 1e3;
    *p99 /= 1e3;
    return 0;
}

int bench_latency_run(struct bench_env *env, struct bench_result *r, FILE *progress, char *err,
                      size_t len)
{
    double s50[BENCH_MAX_PAIRS], s99[BENCH_MAX_PAIRS], b50[BENCH_MAX_PAIRS], b99[BENCH_MAX_PAIRS];
    unsigned n = env->o->pairs;
    struct bench_lat_plan p;
    struct bench_cpus c;

    bench_cpus_get(&c);
    bench_latency_plan(&c, &p);
    for (unsigned i = 0; i < n; i++) {
        if (demo_run(env, &p, p.spin, &s50[i], &s99[i], err, len) != 0 ||
            demo_run(env, &p, "backoff", &b50[i], &b99[i], err, len) != 0)
            return -1;
        if (progress)
            fprintf(progress, "bench: latency pair %u/%u: p50 %.4g us p99 %.4g us, "
                    "idle_backoff p50 %.4g us p99 %.4g us\n", i + 1, n, s50[i], s99[i], b50[i],
                    b99[i]);
    }
    bench_result_set(&r[0], "latency_p50", "us", "idle_backoff", s50, b50, n);
    bench_result_set(&r[1], "latency_p99", "us", "idle_backoff", s99, b99, n);
    for (unsigned k = 0; k < BENCH_LATENCY_RESULTS; k++) {
        r[k].pinned = p.pinned;
        snprintf(r[k].note, sizeof(r[k].note), "%s", p.note);
    }
    return BENCH_LATENCY_RESULTS;
}
