/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.h - the run summary: ledger, counters, rates, per-core capacity and latency, as text or JSON. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "farm_types.h"
#include "ledger.h"

/*
 * The run summary of r: which run it was (r->id: farm, run number, start
 * and stop in UTC, the farm file's SHA-256), every process's summary
 * counters, the ledger l, rates, and latencies with the clock each was
 * measured with (build: the SFC's TSC; end to end: CLOCK_REALTIME of one
 * host, computed only from nodes whose readouts are on their host, see
 * farm_result_hosts). As text, or as one JSON object.
 */
void summary_text(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l);
/* The JSON one returns 0, or -ENOMEM (nothing written) or -EIO. */
int summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                 const struct ledger *l);

/* summary_json on stdout, or a line on stderr, "<who>: the JSON summary
 * could not be written (...)", when it fails. */
void summary_json_or_say(const struct farm_conf *c, const struct farm_result *r,
                         const struct ledger *l, const char *who);

#endif /* SUMMARY_H */
