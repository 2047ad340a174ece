/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.h - the run summary: ledger, counters, rates and latency, as text or JSON. */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "farm.h"

#define LEDGER_MAX_REASONS 16

struct ledger {
    uint64_t generated;          /* events the readout generated */
    uint64_t accepted, rejected; /* decided by the nodes */
    uint64_t incomplete;         /* delivered incomplete (within the above) */
    unsigned n_lost;
    char lost_name[LEDGER_MAX_REASONS][48];
    uint64_t lost[LEDGER_MAX_REASONS];
    uint64_t lost_total;
    int digest_match;            /* every id once: sum of mix64(id) agrees */
    int64_t unaccounted;         /* generated - (accepted + rejected + lost) */
    int closed;
};

/*
 * Closed means generated == accepted + rejected + lost and the id digests
 * agree: the readout's sum of ebf_mix64(id) over generated ids equals the
 * nodes' over decided ids plus the SFC's over lost ids, so no id was counted
 * twice while another went missing.
 */
void summary_ledger(const struct farm_result *r, struct ledger *l);

void summary_text(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l);
void summary_json(FILE *out, const struct farm_conf *c, const struct farm_result *r,
                  const struct ledger *l);

#endif /* SUMMARY_H */
