/* SPDX-License-Identifier: BSD-3-Clause */
/* soak_verdict.c - a soak's verdict: named criteria over its intervals and final ledger, with bounds from the options. */
#include "soak_verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rule_names[SOAK_RULE_MAX] = {
#define SOAK_RULE_NAME(id, name) name,
    SOAK_FOREACH_RULE(SOAK_RULE_NAME)
#undef SOAK_RULE_NAME
};

const char *soak_rule_name(enum soak_rule_id r)
{
    return r < SOAK_RULE_MAX ? rule_names[r] : "?";
}

void soak_bounds_default(struct soak_bounds *b)
{
    memset(b, 0, sizeof(*b));
    b->loss_default = 0;
    b->incomplete = SOAK_NO_LIMIT;
    b->rss_growth_mb = 64;
    b->p99_ms = 1000;
}

/* A budget: a decimal count. 0 or -1. */
static int budget_num(const char *s, size_t n, uint64_t *v)
{
    char buf[24], *end;

    if (n == 0 || n >= sizeof(buf) || s[0] < '0' || s[0] > '9')
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *v = strtoull(buf, &end, 10);
    return errno || *end ? -1 : 0;
}

/* REASON=N of length n into b. */
static int budget_pair(struct soak_bounds *b, const char *s, size_t n, char *err, size_t len)
{
    const char *eq = memchr(s, '=', n);
    size_t klen = eq ? (size_t)(eq - s) : 0;
    uint64_t v;

    if (!eq || klen == 0 || klen >= SOAK_NAME_MAX || budget_num(eq + 1, n - klen - 1, &v)) {
        snprintf(err, len, "option '--max-loss': \"%.*s\" is not REASON=N (a lost reason such as "
                 "no_node or withheld, or incomplete, and a count)", (int)n, s);
        return -1;
    }
    if (klen == strlen("incomplete") && strncmp(s, "incomplete", klen) == 0) {
        b->incomplete = v;
        return 0;
    }
    for (unsigned i = 0; i < b->n_budgets; i++)
        if (strlen(b->budget_name[i]) == klen && strncmp(b->budget_name[i], s, klen) == 0) {
            b->budget[i] = v;        /* given again: the later one holds */
            return 0;
        }
    if (b->n_budgets == SOAK_MAX_BUDGETS) {
        snprintf(err, len, "option '--max-loss': more than %d reasons", SOAK_MAX_BUDGETS);
        return -1;
    }
    snprintf(b->budget_name[b->n_budgets], SOAK_NAME_MAX, "%.*s", (int)klen, s);
    b->budget[b->n_budgets++] = v;
    return 0;
}

int soak_bounds_loss(struct soak_bounds *b, const char *spec, char *err, size_t len)
{
    uint64_t v;

    if (!strchr(spec, '=')) {
        if (budget_num(spec, strlen(spec), &v)) {
            snprintf(err, len, "option '--max-loss': \"%s\" is not a count, nor a list of "
                     "REASON=N", spec);
            return -1;
        }
        b->loss_default = b->incomplete = v;
        b->n_budgets = 0;
        return 0;
    }
    for (const char *s = spec; *s;) {
        size_t n = strcspn(s, ",");
        if (budget_pair(b, s, n, err, len))
            return -1;
        s += n + (s[n] == ',');
    }
    return 0;
}

uint64_t soak_budget_of(const struct soak_bounds *b, const char *reason)
{
    if (strcmp(reason, "incomplete") == 0)
        return b->incomplete;
    for (unsigned i = 0; i < b->n_budgets; i++)
        if (strcmp(b->budget_name[i], reason) == 0)
            return b->budget[i];
    return b->loss_default;
}

/* Append to a rule's detail. */
static void note(struct soak_rule *r, const char *fmt, const char *what, uint64_t a, uint64_t b)
{
    size_t o = strlen(r->detail);
    snprintf(r->detail + o, sizeof(r->detail) - o, fmt, o ? "; " : "", what,
             (unsigned long long)a, (unsigned long long)b);
}

static void judge_sums(const struct soak_interval *iv, unsigned n, const struct soak_final *f,
                       struct soak_rule *r)
{
    uint64_t g = f->base_generated, d = f->base_decided, l = f->base_lost;

    for (unsigned i = 0; i < n; i++) {
        g += iv[i].generated;
        d += iv[i].decided;
        l += iv[i].lost;
    }
    r->pass = g == f->generated && d == f->decided && l == f->lost_total;
    if (g != f->generated)
        note(r, "%s%s: intervals %llu, ledger %llu", "generated", g, f->generated);
    if (d != f->decided)
        note(r, "%s%s: intervals %llu, ledger %llu", "decided", d, f->decided);
    if (l != f->lost_total)
        note(r, "%s%s: intervals %llu, ledger %llu", "lost", l, f->lost_total);
    if (r->pass && f->base_generated + f->base_decided + f->base_lost)
        snprintf(r->detail, sizeof(r->detail), "%u intervals and what came before them: "
                 "generated %llu, decided %llu, lost %llu", n, (unsigned long long)g,
                 (unsigned long long)d, (unsigned long long)l);
    else if (r->pass)
        snprintf(r->detail, sizeof(r->detail), "%u intervals: generated %llu, decided %llu, "
                 "lost %llu", n, (unsigned long long)g, (unsigned long long)d,
                 (unsigned long long)l);
}

/* The source most often missing, as " (most often missing: source S, N events)". */
static void most_missing(const struct soak_final *f, char *buf, size_t len)
{
    const struct soak_count *m = NULL;

    buf[0] = '\0';
    for (unsigned i = 0; i < f->missing.n; i++)
        if (!m || f->missing.c[i].v > m->v)
            m = &f->missing.c[i];
    if (m && m->v)
        if (snprintf(buf, len, " (most often missing: source %s, %llu events)", m->name,
                     (unsigned long long)m->v) < 0)
            buf[0] = '\0';
}

static void judge_loss(const struct soak_bounds *b, const struct soak_final *f,
                       struct soak_rule *r)
{
    char why[96];

    r->pass = 1;
    for (unsigned i = 0; i < f->lost.n; i++) {
        uint64_t budget = soak_budget_of(b, f->lost.c[i].name);
        if (f->lost.c[i].v > budget) {
            r->pass = 0;
            note(r, "%slost %s %llu > budget %llu", f->lost.c[i].name, f->lost.c[i].v, budget);
        }
    }
    if (b->incomplete != SOAK_NO_LIMIT && f->incomplete > b->incomplete) {
        r->pass = 0;
        note(r, "%s%s %llu > budget %llu", "incomplete", f->incomplete, b->incomplete);
        most_missing(f, why, sizeof(why));
        size_t o = strlen(r->detail);
        snprintf(r->detail + o, sizeof(r->detail) - o, "%s", why);
    }
    if (r->pass)
        snprintf(r->detail, sizeof(r->detail), "lost %llu, incomplete %llu: within budget",
                 (unsigned long long)f->lost_total, (unsigned long long)f->incomplete);
}

static void judge_memory(const struct soak_bounds *b, const struct soak_interval *iv, unsigned n,
                         struct soak_rule *r)
{
    double worst = 0;
    const char *who = NULL;

    for (unsigned p = 0; n && p < iv[0].n_mem; p++) {
        uint64_t base = 0;
        for (unsigned i = 0; i < n; i++) {
            const struct soak_mem *m = p < iv[i].n_mem ? &iv[i].mem[p] : NULL;
            if (!m || !m->pid || !m->rss_kb)
                continue;
            /* A restarted process (another pid) is measured from the
             * first incarnation's first sample too: its own first one
             * falls in its warm-up, whose pages are no growth. */
            if (!base) {
                base = m->rss_kb;
                continue;
            }
            double grew = ((double)m->rss_kb - (double)base) / 1024.0;
            if (grew > worst) {
                worst = grew;
                who = m->name;
            }
        }
    }
    r->pass = worst <= b->rss_growth_mb;
    snprintf(r->detail, sizeof(r->detail), "largest RSS growth %.1f MB%s%s (bound %.1f MB)",
             worst, who ? " by " : "", who ? who : "", b->rss_growth_mb);
}

static void judge_p99(const struct soak_bounds *b, const struct soak_interval *iv, unsigned n,
                      struct soak_rule *r)
{
    uint64_t worst = 0, lo = UINT64_MAX;
    unsigned at = 0, over = 0;

    for (unsigned i = 0; i < n; i++) {
        const struct soak_pct *p = &iv[i].lat[SOAK_H_E2E];
        if (!p->count)
            continue;
        over += (double)p->p99 > b->p99_ms * 1e6;
        lo = p->p99 < lo ? p->p99 : lo;
        if (p->p99 >= worst) {
            worst = p->p99;
            at = iv[i].index;
        }
    }
    r->pass = over == 0;
    if (lo == UINT64_MAX)
        snprintf(r->detail, sizeof(r->detail), "no end-to-end latency recorded (bound %.3f ms)",
                 b->p99_ms);
    else
        snprintf(r->detail, sizeof(r->detail), "end-to-end p99 %.3f..%.3f ms over intervals, "
                 "highest in interval %u; %u above the bound %.3f ms", (double)lo / 1e6,
                 (double)worst / 1e6, at, over, b->p99_ms);
}

void soak_judge(const struct soak_bounds *b, const struct soak_interval *iv, unsigned n,
                const struct soak_final *f, struct soak_verdict *v)
{
    memset(v, 0, sizeof(*v));
    struct soak_rule *r = v->rule;
    r[SOAK_RULE_LEDGER_CLOSED].pass = f->closed;
    snprintf(r[SOAK_RULE_LEDGER_CLOSED].detail, sizeof(r[0].detail),
             "generated %llu = decided %llu + lost %llu%s", (unsigned long long)f->generated,
             (unsigned long long)f->decided, (unsigned long long)f->lost_total,
             f->closed ? ": closed" : ": does NOT close");
    judge_sums(iv, n, f, &r[SOAK_RULE_INTERVALS_ADD_UP]);
    judge_loss(b, f, &r[SOAK_RULE_LOSS_BUDGET]);
    judge_memory(b, iv, n, &r[SOAK_RULE_MEMORY_GROWTH]);
    judge_p99(b, iv, n, &r[SOAK_RULE_INTERVAL_P99]);
    r[SOAK_RULE_NO_RESTART].pass = f->restarts == 0;
    if (f->restarts)
        snprintf(r[SOAK_RULE_NO_RESTART].detail, sizeof(r[0].detail), "%u unasked: %s",
                 f->restarts, f->restart_note);
    else
        snprintf(r[SOAK_RULE_NO_RESTART].detail, sizeof(r[0].detail),
                 "every process ran through (restarts the soak made excepted)");
    v->pass = 1;
    for (unsigned i = 0; i < SOAK_RULE_MAX; i++)
        v->pass &= r[i].pass;
}
