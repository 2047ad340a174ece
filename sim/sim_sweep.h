/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_sweep.h - runs of one farm over the values of one sim: key and several seeds, with each figure's mean, min and max. */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <stdio.h>

#include "sim_conf.h"
#include "sim_farm.h"

/* The figures a sweep keeps of each run (sim_sweep_figures). */
enum sim_fig {
    SIM_FIG_RATE,            /* events decided per second of trigger time */
    SIM_FIG_P50_MS,          /* latency trigger -> ack, ms */
    SIM_FIG_P99_MS,
    SIM_FIG_DROP_FRAC,       /* fragment frames dropped at switch ports / sent */
    SIM_FIG_INCOMPLETE_FRAC, /* incomplete events / generated */
    SIM_FIG_LOST_FRAC,       /* lost events / generated */
    SIM_FIG_PORT_PEAK_KB,    /* most KiB any SFC switch port held */
    SIM_FIG_EVTAB_PEAK,      /* most events any SFC held */
    SIM_FIG_HELD_FRAC,       /* readouts held by the throttle / trigger time */
    SIM_FIG_MAX_MS,          /* latency trigger -> ack, the longest */
    SIM_FIG_REPLAY_PEAK_KB,  /* failover: most KiB one source's replay buffer held */
    SIM_FIG_CLOSED,          /* 1 when the ledger closed */
    SIM_FIG_N
};

#define SIM_SWEEP_MAX 32     /* values of the swept key */

struct sim_sweep {
    char key[32];
    unsigned n, seeds;
    double value[SIM_SWEEP_MAX];
    double mean[SIM_SWEEP_MAX][SIM_FIG_N], min[SIM_SWEEP_MAX][SIM_FIG_N],
        max[SIM_SWEEP_MAX][SIM_FIG_N];
};

/* The figures of one run r of c into fig[SIM_FIG_N]. */
void sim_sweep_figures(const struct sim_conf *c, const struct sim_result *r, double *fig);

/* A figure's name in the JSON and the table ("rate_per_s", ...). */
const char *sim_fig_name(enum sim_fig f);

/*
 * s->key = each of the comma-separated values of spec ("KEY=a,b,c", at most
 * SIM_SWEEP_MAX, each a number) and s->seeds seeds from c->seed on: runs
 * c with that key and seed (r is scratch; progress, unless NULL, is each
 * run's, as sim_run's) and keeps each figure's mean, min and max over the
 * seeds. Returns 0, -EINVAL (a bad spec or value, with err) or what
 * sim_run returned.
 */
int sim_sweep_run(const struct sim_conf *c, const char *spec, unsigned seeds,
                  struct sim_sweep *s, struct sim_result *r, sim_progress_fn progress,
                  char *err, size_t errlen);

/* The sweep as a table (text) or one JSON object; the same sweep prints
 * the same bytes. */
void sim_sweep_text(FILE *out, const char *farm, const struct sim_sweep *s);
void sim_sweep_json(FILE *out, const char *farm, const struct sim_sweep *s);

/* Five plots of the figures against the swept value, each point the mean
 * with a bar from min to max over the seeds: decided rate, latency p50,
 * p99 and max (log), dropped, incomplete and lost fractions and time
 * held, event-table and port peaks, the replay buffer's peak. 0 or
 * -errno. */
int sim_sweep_svg(const char *path, const char *farm, const struct sim_sweep *s);

#endif /* SIM_SWEEP_H */
