/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_verdict.h - a soak's verdict: named criteria over its intervals and final ledger, with bounds from the options. */
#ifndef SOAK_VERDICT_H
#define SOAK_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "soak_interval.h"

/*
 * The criteria, in the order the report lists them:
 *   ledger_closed     the run's ledger closed (counts, digest, id records)
 *   intervals_add_up  the intervals' generated, decided and lost add up to
 *                     the final ledger's (less what was counted before the
 *                     soak's first sample, when it attached)
 *   loss_budget       every lost reason (and "incomplete": events delivered
 *                     without some source) within its budget
 *   memory_growth     every process's RSS grew by at most the bound from
 *                     the end of the first interval to the end of the last
 *                     (a restarted process from its first interval)
 *   interval_p99      no interval's end-to-end p99 above the bound
 *   no_restart        no process ended or restarted unasked (nodes the
 *                     soak itself killed and started again do not count)
 * Pure functions over plain structs: the unit tests judge synthetic runs.
 */

#define SOAK_FOREACH_RULE(X)                 \
    X(LEDGER_CLOSED, "ledger_closed")        \
    X(INTERVALS_ADD_UP, "intervals_add_up")  \
    X(LOSS_BUDGET, "loss_budget")            \
    X(MEMORY_GROWTH, "memory_growth")        \
    X(INTERVAL_P99, "interval_p99")          \
    X(NO_RESTART, "no_restart")

enum soak_rule_id {
#define SOAK_RULE_ENUM(id, name) SOAK_RULE_##id,
    SOAK_FOREACH_RULE(SOAK_RULE_ENUM)
#undef SOAK_RULE_ENUM
    SOAK_RULE_MAX
};

#define SOAK_MAX_BUDGETS 16
#define SOAK_NO_LIMIT UINT64_MAX

struct soak_bounds {
    uint64_t loss_default;       /* budget of a lost reason not listed (0) */
    uint64_t incomplete;         /* budget of "incomplete" (SOAK_NO_LIMIT) */
    unsigned n_budgets;
    char budget_name[SOAK_MAX_BUDGETS][SOAK_NAME_MAX];   /* lost reasons */
    uint64_t budget[SOAK_MAX_BUDGETS];
    double rss_growth_mb;        /* per process (64) */
    double p99_ms;               /* end-to-end, per interval (1000) */
};

void soak_bounds_default(struct soak_bounds *b);

/*
 * --max-loss SPEC into b: "N" sets every reason's budget, "incomplete"
 * included; "REASON=N[,REASON=N...]" sets those reasons ("incomplete" is
 * one). 0, or -1 with err naming the bad part and what is allowed.
 */
int soak_bounds_loss(struct soak_bounds *b, const char *spec, char *err, size_t len);

/* The budget of a lost reason ("no_node", "withheld", "incomplete"). */
uint64_t soak_budget_of(const struct soak_bounds *b, const char *reason);

/* The run's ledger as the verdict sees it. */
struct soak_final {
    int closed;
    uint64_t generated, decided, lost_total;
    struct soak_counts lost;     /* by reason, names without "lost." */
    uint64_t incomplete;         /* delivered without some source */
    struct soak_counts missing;  /* incomplete events by missing source ("3") */
    /* What the run had counted before the soak's first sample (a soak that
     * attached to a running farm; 0 otherwise): the intervals add up to the
     * ledger less these. */
    uint64_t base_generated, base_decided, base_lost;
    unsigned restarts;           /* unasked process restarts and ends */
    char restart_note[256];      /* which */
};

struct soak_rule {
    int pass;
    char detail[320];
};

struct soak_verdict {
    int pass;                    /* every rule passed */
    struct soak_rule rule[SOAK_RULE_MAX];
};

const char *soak_rule_name(enum soak_rule_id r);

/* Judge the run: n intervals (the last one up to the final counters), its
 * final ledger f, the bounds b. */
void soak_judge(const struct soak_bounds *b, const struct soak_interval *iv, unsigned n,
                const struct soak_final *f, struct soak_verdict *v);

#endif /* SOAK_VERDICT_H */
