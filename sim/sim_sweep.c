/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_sweep.c - one farm simulated over the values of one sim: key and several seeds, figures kept as mean, min and max. */
#include "sim_sweep.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const fig_names[SIM_FIG_N] = {
    "rate_per_s", "latency_p50_ms", "latency_p99_ms", "drop_fraction", "incomplete_fraction",
    "lost_fraction", "port_peak_kib", "evtab_peak", "held_fraction", "latency_max_ms",
    "replay_peak_kib", "closed",
};

const char *sim_fig_name(enum sim_fig f)
{
    return f < SIM_FIG_N ? fig_names[f] : "?";
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : 0;
}

void sim_sweep_figures(const struct sim_conf *c, const struct sim_result *r, double *fig)
{
    const struct sim_ledger *l = &r->l;

    fig[SIM_FIG_RATE] = ratio((double)(l->accepted + l->rejected), c->duration_s);
    fig[SIM_FIG_P50_MS] = (double)ebf_hist_quantile(&r->latency_ns, 0.5) / 1e6;
    fig[SIM_FIG_P99_MS] = (double)ebf_hist_quantile(&r->latency_ns, 0.99) / 1e6;
    fig[SIM_FIG_DROP_FRAC] = ratio((double)r->switch_drops, (double)r->frames);
    fig[SIM_FIG_INCOMPLETE_FRAC] = ratio((double)l->incomplete, (double)l->generated);
    fig[SIM_FIG_LOST_FRAC] = ratio((double)l->lost_total, (double)l->generated);
    fig[SIM_FIG_PORT_PEAK_KB] = r->port_peak / 1024.0;
    fig[SIM_FIG_EVTAB_PEAK] = r->evtab_peak;
    fig[SIM_FIG_HELD_FRAC] = ratio(r->held_s, c->duration_s);
    fig[SIM_FIG_MAX_MS] = (double)r->latency_ns.max / 1e6;
    fig[SIM_FIG_REPLAY_PEAK_KB] = (double)r->replay_peak_bytes / 1024.0;
    fig[SIM_FIG_CLOSED] = l->closed ? 1 : 0;
}

/* "KEY=a,b,c" into s->key and s->value; 0 or -EINVAL with err. */
static int parse_spec(const char *spec, struct sim_sweep *s, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    const char *p;

    if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(s->key)) {
        snprintf(err, errlen, "--sweep wants KEY=V1,V2,... (got '%s')", spec);
        return -EINVAL;
    }
    memcpy(s->key, spec, (size_t)(eq - spec));
    s->key[eq - spec] = '\0';
    for (p = eq + 1, s->n = 0; *p; s->n++) {
        char *end;
        if (s->n == SIM_SWEEP_MAX) {
            snprintf(err, errlen, "--sweep: at most %d values", SIM_SWEEP_MAX);
            return -EINVAL;
        }
        s->value[s->n] = strtod(p, &end);
        if (end == p || (*end && *end != ',')) {
            snprintf(err, errlen, "--sweep: '%s' is not a list of numbers", eq + 1);
            return -EINVAL;
        }
        p = *end ? end + 1 : end;
    }
    if (!s->n) {
        snprintf(err, errlen, "--sweep: no value for '%s'", s->key);
        return -EINVAL;
    }
    return 0;
}

/* Fold the figures of one run (k-th seed) into point i. */
static void fold(struct sim_sweep *s, unsigned i, unsigned k, const double *fig)
{
    for (unsigned f = 0; f < SIM_FIG_N; f++) {
        if (k == 0 || fig[f] < s->min[i][f])
            s->min[i][f] = fig[f];
        if (k == 0 || fig[f] > s->max[i][f])
            s->max[i][f] = fig[f];
        s->mean[i][f] += fig[f] / s->seeds;
    }
}

int sim_sweep_run(const struct sim_conf *c, const char *spec, unsigned seeds,
                  struct sim_sweep *s, struct sim_result *r, sim_progress_fn progress,
                  char *err, size_t errlen)
{
    double fig[SIM_FIG_N];
    char text[64];
    int rc;

    memset(s, 0, sizeof(*s));
    s->seeds = seeds ? seeds : 1;
    if ((rc = parse_spec(spec, s, err, errlen)))
        return rc;
    for (unsigned i = 0; i < s->n; i++) {
        for (unsigned k = 0; k < s->seeds; k++) {
            struct sim_conf run = *c;
            snprintf(text, sizeof(text), "%.17g", s->value[i]);
            if ((rc = sim_conf_set(&run, s->key, text, err, errlen)))
                return rc;
            run.seed = c->seed + k;
            if ((rc = sim_conf_check(&run, err, errlen)) ||
                (rc = sim_run(&run, r, progress, NULL, err, errlen)))
                return rc;
            sim_sweep_figures(&run, r, fig);
            fold(s, i, k, fig);
        }
    }
    return 0;
}

void sim_sweep_text(FILE *out, const char *farm, const struct sim_sweep *s)
{
    fprintf(out, "ebfarm sim %s: sweep of %s over %u seed(s): mean [min, max]\n", farm, s->key,
            s->seeds);
    for (unsigned i = 0; i < s->n; i++) {
        fprintf(out, "  %s = %g\n", s->key, s->value[i]);
        for (unsigned f = 0; f < SIM_FIG_N; f++)
            fprintf(out, "    %-20s %.6g [%.6g, %.6g]\n", fig_names[f], s->mean[i][f],
                    s->min[i][f], s->max[i][f]);
    }
}

/* One array of the sweep's points of figure f (which: 0 mean, 1 min, 2 max). */
static void json_array(FILE *out, const struct sim_sweep *s, unsigned f, int which)
{
    fputc('[', out);
    for (unsigned i = 0; i < s->n; i++) {
        double v = which == 0 ? s->mean[i][f] : which == 1 ? s->min[i][f] : s->max[i][f];
        fprintf(out, "%s%.6g", i ? ", " : "", v);
    }
    fputc(']', out);
}

void sim_sweep_json(FILE *out, const char *farm, const struct sim_sweep *s)
{
    fprintf(out, "{\"farm\": \"%s\", \"sweep\": \"%s\", \"seeds\": %u, \"values\": ", farm,
            s->key, s->seeds);
    fputc('[', out);
    for (unsigned i = 0; i < s->n; i++)
        fprintf(out, "%s%.17g", i ? ", " : "", s->value[i]);
    fprintf(out, "], \"figures\": {");
    for (unsigned f = 0; f < SIM_FIG_N; f++) {
        fprintf(out, "%s\n  \"%s\": {\"mean\": ", f ? "," : "", fig_names[f]);
        json_array(out, s, f, 0);
        fprintf(out, ", \"min\": ");
        json_array(out, s, f, 1);
        fprintf(out, ", \"max\": ");
        json_array(out, s, f, 2);
        fputc('}', out);
    }
    fprintf(out, "}}\n");
}
