/* SPDX-License-Identifier: BSD-3-Clause */
/* acct.h - the farm's accounting: generated, decided and lost events from every process's counters. */
#ifndef ACCT_H
#define ACCT_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_kv.h"
#include "ebfarm.pb-c.h"

/*
 * One code path for the farm's totals, whether the counters come from
 * metrics snapshots while a run goes on (ebfarm status, top, soak, the
 * Prometheus exporter) or from the final stats files after the staged
 * stop (the ledger, tools/farm/ledger.h, and the summaries):
 *
 *   generated  the furthest readout's events + events_abandoned (every
 *              readout generates every event id);
 *   frames     the readouts' frames, summed;
 *   accepted, rejected, incomplete
 *              the acks the SFCs took (once per event: the decision of
 *              record, also when a node died), plus, for an SFC that gave
 *              no counters, its own nodes' decisions (their place says
 *              which nodes are its);
 *   lost       the SFCs' lost events by reason, plus the events the
 *              readouts' fault stage withheld (the first answering
 *              readout's count, once: every readout withholds the same).
 *
 * A process that gave no counters (dead, not answering, or stale) adds
 * nothing and is named in the totals' missing list; a total that no
 * answering process gives is unknown (known 0), printed "?" (JSON null).
 * DPDK-free, no global state, any thread.
 */

#define ACCT_MAX_REASONS 16
#define ACCT_NAME_MAX 48
#define ACCT_MISSING_MAX 512
#define ACCT_MAX_PARTS 128       /* at least a farm's processes (FARM_MAX_PROCS) */

enum acct_role { ACCT_READOUT, ACCT_SFC, ACCT_NODE };

/* One process's share of the totals, read from its counters. */
struct acct_part {
    char name[ACCT_NAME_MAX];
    enum acct_role role;
    int answered;                /* its counters are in; 0: it gave none */
    int place;                   /* SFC: its place in the readouts' sfcs; node: its SFC's;
                                  * -1: not known */
    uint64_t generated, frames;  /* readout: events + events_abandoned, frames */
    uint64_t withheld;           /* readout: fault.withheld_events ... */
    int has_withheld;            /* ... when it has that counter */
    uint64_t accepted, rejected; /* SFC: acks taken; node: its own decisions */
    uint64_t incomplete;         /* SFC: acks of events delivered incomplete */
    unsigned n_lost;             /* SFC: lost by reason, in the order of its counters */
    char lost_name[ACCT_MAX_REASONS][ACCT_NAME_MAX];
    uint64_t lost[ACCT_MAX_REASONS];
};

/* The farm's totals. */
struct acct_totals {
    uint64_t generated, frames;
    uint64_t accepted, rejected, incomplete;
    uint64_t lost;               /* the SFCs' every reason, plus withheld */
    unsigned n_lost;             /* the SFCs' reasons, merged by name in first-seen order */
    char lost_name[ACCT_MAX_REASONS][ACCT_NAME_MAX];
    uint64_t lost_by[ACCT_MAX_REASONS];
    uint64_t withheld;           /* the first answering readout's, when has_withheld */
    int has_withheld;
    uint64_t gone_decided;       /* decided by the nodes of SFCs that gave no counters
                                  * (within accepted and rejected) */
    int generated_known;         /* a readout answered (generated, frames) */
    int decided_known;           /* an SFC answered, or stood in for by its nodes
                                  * (accepted, rejected, incomplete) */
    int lost_known;              /* an SFC answered */
    int best_readout;            /* the part index of the furthest readout; -1: none */
    unsigned n_missing;          /* processes that gave no counters ... */
    char missing[ACCT_MISSING_MAX];  /* ... named, ", " between ("node1, ro0") */
};

/* The role of a component name ("readout", "sfc", "node"); -1 for none. */
int acct_role_of(const char *component);

/* p as a process of role named name at place (-1: not known), that gave
 * no counters yet (answered 0, every count 0). */
void acct_part_init(struct acct_part *p, enum acct_role role, const char *name, int place);

/* p's counts from a stats file's key/values (lost by reason from the keys
 * "lost.<reason>", in their order); p->answered set. */
void acct_part_kv(struct acct_part *p, const struct ebf_kv *kv);

/* p's counts from a metrics snapshot (lost by reason from the counter
 * "lost" by its label); p->answered set. s NULL: p stays unanswered. */
void acct_part_pb(struct acct_part *p, const Ebfarm__Snapshot *s);

/* Add reason's v to p's lost (a new reason appended; beyond
 * ACCT_MAX_REASONS it is dropped and -1 returned); 0 otherwise. */
int acct_part_lost(struct acct_part *p, const char *reason, uint64_t v);

/* The totals of the n parts, by the rules above. */
void acct_combine(const struct acct_part *p, unsigned n, struct acct_totals *t);

/* Which totals are printed ("totals: ..."): each "name value", or
 * "name ?" when unknown. */
enum acct_item { ACCT_GENERATED, ACCT_ACCEPTED, ACCT_REJECTED, ACCT_LOST, ACCT_FRAMES, ACCT_ITEMS };

/* The item's name ("generated"), value and whether it is known. */
const char *acct_item_name(enum acct_item i);
uint64_t acct_item_value(const struct acct_totals *t, enum acct_item i, int *known);

/* "generated 505" or "generated ?" into buf; returns buf. */
const char *acct_item_text(const struct acct_totals *t, enum acct_item i, char *buf, size_t len);

/* "(no counters from node1, ro0)" into buf, "" when none is missing;
 * returns buf. The same words in every view. */
const char *acct_missing_text(const struct acct_totals *t, char *buf, size_t len);

#endif /* ACCT_H */
