/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_sim.c - ebfarm sim FARM.yaml: build the simulator's configuration from a farm file, run it, print the summary. */
#include "cmd_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "farmfile.h"
#include "soak_html.h"
#include "sim_conf.h"
#include "sim_farm.h"
#include "sim_report.h"
#include "sim_sweep.h"

static const char usage[] =
    "usage: ebfarm sim FARM.yaml [--json] [--seed N] [--duration S] [--svg FILE]\n"
    "                 [--set KEY=VALUE]... [--fault SPEC]... [--sweep KEY=V1,V2,... [--seeds N]]\n"
    "  simulate the farm in virtual time (docs/scale.md): its readouts, switch, SFCs\n"
    "  (the real sfc_evtab and sfc_credit) and nodes, sized and timed by the farm\n"
    "  file's run: keys and its sim: section (links, switch buffers, costs, trigger\n"
    "  times, faults; sim.failover: the daemons' release, route and replay\n"
    "  modules). Prints the summary with the simulated ledger (--json: one\n"
    "  object); the same seed prints the same bytes. The simulator's own speed\n"
    "  and memory go to stderr, with progress every second for long runs.\n"
    "  --seed N       the PRNG seed (default: sim.seed, else run.seed)\n"
    "  --duration S   farm time the triggers run, s (default: sim.duration_s)\n"
    "  --svg FILE     plots over farm time into FILE: event rates, latency\n"
    "                 percentiles, switch drops (with --sweep: the figures against\n"
    "                 the swept value, min-max bars over the seeds)\n"
    "  --set KEY=VALUE  a sim: key over the farm file's (repeatable)\n"
    "  --fault SPEC   one more fault, as in sim.faults: \"sfc_death 3 1.0\" (repeatable)\n"
    "  --sweep KEY=V1,V2,...  run once per value of the sim: key and per seed,\n"
    "                 print each figure's mean, min and max (docs/scale.md)\n"
    "  --seeds N      seeds per value of a sweep, from --seed on (1)\n"
    "Exit status: 0 when the simulated ledger closes, 1 when not, 2 for bad input.\n";

/* The farm's own keys as the simulation's defaults: sizes, rate, fragment
 * size, MTU, trigger time, acceptance, timeout, seed, credits, capacity. */
static void from_farm(const struct farm_spec *s, struct sim_conf *c)
{
    const struct ff_run *r = &s->run;

    sim_conf_defaults(c);
    c->sources = r->sources;
    c->sfcs = s->n_sfcs;
    c->nodes_per_sfc = s->n_nodes / s->n_sfcs ? s->n_nodes / s->n_sfcs : 1;
    if (r->rate > 0)
        c->rate_hz = r->rate;
    c->frag_bytes = r->frag_max;
    c->mtu = r->mtu;
    c->trigger_us = r->trigger_us;
    c->accept = r->accept;
    c->timeout_ms = r->timeout_ms;
    c->seed = r->seed;
    if (r->duration_s > 0)
        c->duration_s = r->duration_s;
    else if (r->events && c->rate_hz > 0)
        c->duration_s = (double)r->events / c->rate_hz;
    c->credits = s->node[0].credits;
    if (s->sfc[0].capacity)
        c->capacity = s->sfc[0].capacity;
}

/* The sim: section over the defaults; 0 or -EINVAL with err. */
static int from_sim(const struct ff_sim *s, struct sim_conf *c, char *err, size_t len)
{
    int rc = 0;

#define SET(k) \
    if (rc == 0 && s->k[0]) \
        rc = sim_conf_set(c, #k, s->k, err, len);
    FF_SIM_KEYS(SET)
#undef SET
    for (unsigned i = 0; i < s->n_faults && rc == 0; i++)
        rc = sim_conf_fault(c, s->fault[i], err, len);
    return rc;
}

/* Rates per second of a bin's counts into y. */
static void per_s(const struct sim_series *s, const uint64_t *v, double *y)
{
    for (unsigned b = 0; b < s->n; b++)
        y[b] = (double)v[b] / s->bin_s;
}

/* Latency quantile q of each bin, ms, into y (0 for an empty bin). */
static void quantile(const struct sim_series *s, double q, double *y)
{
    for (unsigned b = 0; b < s->n; b++)
        y[b] = (double)ebf_hist_quantile(&s->latency_ns[b], q) / 1e6;
}

/* Three plots over farm time, stacked in one SVG: events/s generated
 * and decided, latency p50/p90/p99 (log scale), switch drops/s. */
static int write_svg(const char *path, const struct sim_result *r)
{
    static double x[SIM_BINS], y[6][SIM_BINS];
    const struct sim_series *s = &r->series;
    FILE *f = fopen(path, "w");

    if (!f)
        return -errno;
    for (unsigned b = 0; b < s->n; b++)
        x[b] = (b + 1) * s->bin_s;
    per_s(s, s->generated, y[0]);
    per_s(s, s->decided, y[1]);
    quantile(s, 0.5, y[2]);
    quantile(s, 0.9, y[3]);
    quantile(s, 0.99, y[4]);
    per_s(s, s->drops, y[5]);
    const struct soak_series rate[] = {{"generated", "#1f77b4", y[0], 0},
                                       {"decided", "#d62728", y[1], 1}};
    const struct soak_series lat[] = {{"p50", "#2ca02c", y[2], 0}, {"p90", "#ff7f0e", y[3], 0},
                                      {"p99", "#9467bd", y[4], 0}};
    const struct soak_series drop[] = {{"switch drops", "#8c564b", y[5], 0}};
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='760' height='780'>\n<g>\n");
    soak_svg_plot(f, "Events", "events/s", x, s->n, rate, 2, 0);
    fprintf(f, "</g>\n<g transform='translate(0 260)'>\n");
    soak_svg_plot(f, "Latency, trigger to ack", "ms", x, s->n, lat, 3, 1);
    fprintf(f, "</g>\n<g transform='translate(0 520)'>\n");
    soak_svg_plot(f, "Fragment frames dropped at switch ports", "frames/s", x, s->n, drop, 1, 0);
    fprintf(f, "</g>\n</svg>\n");
    return fclose(f) == 0 ? 0 : -errno;
}

static void progress(double farm_s, double total_s, void *arg)
{
    (void)arg;
    fprintf(stderr, "ebfarm sim: %.2f of at most %.2f s of farm time\n", farm_s, total_s);
}

struct opts {
    int json;
    unsigned seeds;
    const char *svg, *sweep;
};

/* --set KEY=VALUE into c; 0, or 2 with a message. */
static int set_kv(struct sim_conf *c, const char *kv)
{
    char key[64], err[256];
    const char *eq = strchr(kv, '=');

    if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
        fprintf(stderr, "ebfarm sim: --set wants KEY=VALUE (got '%s')\n", kv);
        return 2;
    }
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = '\0';
    if (sim_conf_set(c, key, eq + 1, err, sizeof(err))) {
        fprintf(stderr, "ebfarm sim: option '--set': %s\n", err);
        return 2;
    }
    return 0;
}

/* One option o with its value v into c or o; 0, or 2 with a message. */
static int option(const char *o, const char *v, struct sim_conf *c, struct opts *op)
{
    char err[256];

    if (!strcmp(o, "--svg"))
        op->svg = v;
    else if (!strcmp(o, "--sweep"))
        op->sweep = v;
    else if (!strcmp(o, "--set"))
        return set_kv(c, v);
    else if (!strcmp(o, "--fault")) {
        if (sim_conf_fault(c, v, err, sizeof(err))) {
            fprintf(stderr, "ebfarm sim: option '--fault': %s\n", err);
            return 2;
        }
    }
    else if (!strcmp(o, "--seeds")) {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || end == v || n < 1 || n > 1000) {
            fprintf(stderr, "ebfarm sim: option '--seeds': \"%s\" is not 1..1000\n", v);
            return 2;
        }
        op->seeds = (unsigned)n;
    } else if (sim_conf_set(c, !strcmp(o, "--seed") ? "seed" : "duration_s", v, err,
                            sizeof(err))) {
        fprintf(stderr, "ebfarm sim: option '%s': %s\n", o, err);
        return 2;
    }
    return 0;
}

/* Options after the farm file into c and op; 0, or 2 with a message. */
static int options(int argc, char **argv, struct sim_conf *c, struct opts *op)
{
    static const char *const valued[] = {"--seed", "--duration", "--svg", "--set",
                                         "--fault", "--sweep", "--seeds", NULL};

    for (int i = 2; i < argc; i++) {
        const char *o = argv[i];
        unsigned k = 0;
        if (!strcmp(o, "--json")) {
            op->json = 1;
            continue;
        }
        while (valued[k] && strcmp(o, valued[k]))
            k++;
        if (!valued[k]) {
            fprintf(stderr, "ebfarm sim: unknown option '%s'\n%s", o, usage);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "ebfarm sim: option '%s' needs a value\n", o);
            return 2;
        }
        if (option(o, argv[++i], c, op))
            return 2;
    }
    if (op->seeds > 1 && !op->sweep) {
        fprintf(stderr, "ebfarm sim: --seeds goes with --sweep\n");
        return 2;
    }
    return 0;
}

/* The sweep of op->sweep: its table or JSON on stdout, its SVG; exit status. */
static int sweep(const char *farm, const struct sim_conf *c, const struct opts *op,
                 struct sim_result *r)
{
    static struct sim_sweep s;
    char err[256];
    int rc = sim_sweep_run(c, op->sweep, op->seeds, &s, r, progress, err, sizeof(err));

    if (rc) {
        fprintf(stderr, "ebfarm sim: %s\n", err);
        return rc == -EINVAL ? 2 : 1;
    }
    if (op->json)
        sim_sweep_json(stdout, farm, &s);
    else
        sim_sweep_text(stdout, farm, &s);
    if (op->svg && (rc = sim_sweep_svg(op->svg, farm, &s)) != 0) {
        fprintf(stderr, "ebfarm sim: cannot write %s: %s\n", op->svg, strerror(-rc));
        return 1;
    }
    for (unsigned i = 0; i < s.n; i++)
        if (s.min[i][SIM_FIG_CLOSED] < 1)
            return 1;
    return 0;
}

int cmd_sim(int argc, char **argv)
{
    static struct farm_spec spec;
    static struct sim_result r;  /* its time series: half a MiB */
    struct opts op = {0, 1, NULL, NULL};
    struct sim_conf c;
    struct rusage ru;
    char err[1024];
    int rc;

    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return fputs(usage, stdout), 0;
    if (argc < 2 || argv[1][0] == '-')
        return fputs(usage, stderr), 2;
    if (farm_spec_load(argv[1], &spec, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm sim: %s\n", err);
        return 2;
    }
    from_farm(&spec, &c);
    if (from_sim(&spec.sim, &c, err, sizeof(err)) || sim_conf_check(&c, err, sizeof(err))) {
        fprintf(stderr, "ebfarm sim: farm file '%s': %s\n", argv[1], err);
        return 2;
    }
    if ((rc = options(argc, argv, &c, &op)))
        return rc;
    if (sim_conf_check(&c, err, sizeof(err))) {
        fprintf(stderr, "ebfarm sim: %s\n", err);
        return 2;
    }
    if (op.sweep)
        return sweep(spec.name, &c, &op, &r);
    if (sim_run(&c, &r, progress, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm sim: %s\n", err);
        return 1;
    }
    if (op.json)
        sim_report_json(stdout, spec.name, &c, &r);
    else
        sim_report_text(stdout, spec.name, &c, &r);
    if (op.svg && (rc = write_svg(op.svg, &r)) != 0)
        fprintf(stderr, "ebfarm sim: cannot write %s: %s\n", op.svg, strerror(-rc));
    getrusage(RUSAGE_SELF, &ru);
    sim_report_self(stderr, &r, ru.ru_maxrss, op.json);
    return r.l.closed && rc == 0 ? 0 : 1;
}
