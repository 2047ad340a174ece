/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_json.h - the ledger as the run summary's JSON object "ledger". */
#ifndef LEDGER_JSON_H
#define LEDGER_JSON_H

#include "farm_types.h"
#include "jsonout.h"
#include "ledger.h"

/*
 * The value of the summary's member "ledger" (docs/demo.md, JSON schema):
 * what was generated (or seen, with readouts gone, each named with the
 * event it was lost from), the SFCs gone, the decided, lost and
 * unaccounted events, the id checks and, when they fail, the ids that
 * differ, incomplete events by missing source (from r's SFC counters),
 * the storage part and the nodes' side. NULL when out of memory.
 */
json_t *ledger_json(const struct farm_result *r, const struct ledger *l);

#endif /* LEDGER_JSON_H */
