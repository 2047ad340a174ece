/* SPDX-License-Identifier: BSD-3-Clause */
/* sim_report.h - a simulated run's summary: text like the demo's, or one JSON object. */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>

#include "sim_conf.h"
#include "sim_farm.h"

/*
 * Both forms hold only what the model computed, nothing of the machine it
 * ran on: the same configuration and seed print the same bytes. The
 * simulator's own speed and memory go to sim_report_self (stderr).
 */
void sim_report_text(FILE *out, const char *farm, const struct sim_conf *c,
                     const struct sim_result *r);

/* 0, or -ENOMEM (nothing printed). */
int sim_report_json(FILE *out, const char *farm, const struct sim_conf *c,
                    const struct sim_result *r);

/* The simulator's events, wall time, events per second and peak memory
 * (max_rss_kb): one line of text, or one JSON object when json. */
void sim_report_self(FILE *out, const struct sim_result *r, long max_rss_kb, int json);

/* The names of the lost reasons, as the SFC's (sfc_stats.h) and the
 * ledger's (sfc_lost). */
const char *sim_lost_name(enum sim_lost l);

#endif /* SIM_REPORT_H */
