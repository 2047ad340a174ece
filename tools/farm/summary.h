/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.h - the run summary: ledger, counters, rates and latency, as text or JSON. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "farm_types.h"
#include "ledger.h"

void summary_text(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l);
void summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l);

#endif /* SUMMARY_H */
