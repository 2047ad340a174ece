/* SPDX-License-Identifier: BSD-3-Clause */
/* topview.c - rates and interval percentiles from snapshot pairs, and top's plain-text frame. */
#include "topview.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "ebf_pb.h"
#include "farm_fo_view.h"
#include "node_stats.h"
#include "ro_stats.h"
#include "sfc_stats.h"

#define MISSING UINT64_MAX

double top_rate(const Ebfarm__Snapshot *prev, const Ebfarm__Snapshot *cur, const char *name,
                const char *lv)
{
    if (!prev || !cur || cur->time_ns <= prev->time_ns)
        return -1;
    uint64_t a = ebf_pb_counter(prev, name, lv, MISSING);
    uint64_t b = ebf_pb_counter(cur, name, lv, MISSING);
    if (a == MISSING || b == MISSING)
        return -1;
    double dt = (double)(cur->time_ns - prev->time_ns) * 1e-9;
    return (double)(b >= a ? b - a : b) / dt;
}

/* The counters behind frames/s, events/s and payload Gbit/s per component:
 * entries of its counter table. */
static const struct {
    const char *component;
    const struct ebf_counter_table *t;
    unsigned frames, events, payload;
} rate_names[] = {
    {"readout", &ro_counter_table, RO_M_FRAMES, RO_M_EVENTS, RO_M_PAYLOAD_BYTES},
    {"sfc", &sfc_counter_table, SFC_M_RX_FRAMES, SFC_M_EVENTS_SENT, SFC_M_TX_PAYLOAD_BYTES},
    {"node", &node_counter_table, NODE_M_RX_FRAMES, NODE_M_EVENTS, NODE_M_PAYLOAD_BYTES},
};

void top_rates(const char *component, const Ebfarm__Snapshot *prev, const Ebfarm__Snapshot *cur,
               struct top_rates *r)
{
    r->frames = r->events = r->gbit = -1;
    for (unsigned i = 0; i < sizeof(rate_names) / sizeof(rate_names[0]); i++) {
        const struct ebf_counter *c = rate_names[i].t->c;
        if (strcmp(component, rate_names[i].component) != 0)
            continue;
        r->frames = top_rate(prev, cur, c[rate_names[i].frames].name, NULL);
        r->events = top_rate(prev, cur, c[rate_names[i].events].name, NULL);
        double bytes = top_rate(prev, cur, c[rate_names[i].payload].name, NULL);
        r->gbit = bytes < 0 ? -1 : bytes * 8e-9;
    }
}

int top_hist_window(const Ebfarm__Histogram *prev, const Ebfarm__Histogram *cur,
                    struct ebf_hist *out)
{
    struct ebf_hist p;

    if (ebf_pb_hist(cur, out) != 0)
        return -EINVAL;
    if (!prev || ebf_pb_hist(prev, &p) != 0 || cur->count <= prev->count || cur->sum < prev->sum)
        return 0;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
        if (out->bucket[b] < p.bucket[b])
            return 0;
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++)
        out->bucket[b] -= p.bucket[b];
    out->count -= p.count;
    out->sum -= p.sum;
    out->min = 0;
    return 1;
}

void top_totals(const struct top_proc *p, unsigned n, struct acct_totals *t)
{
    struct acct_part a[ACCT_MAX_PARTS];
    unsigned k = 0;

    for (unsigned i = 0; i < n && k < ACCT_MAX_PARTS; i++) {
        int role = acct_role_of(p[i].component);
        if (role < 0)
            continue;
        acct_part_init(&a[k], (enum acct_role)role, p[i].name, p[i].placed ? p[i].place : -1);
        if (!p[i].stale)
            acct_part_pb(&a[k], p[i].cur);
        k++;
    }
    acct_combine(a, k, t);
}

/* --- The frame ------------------------------------------------------------ */

/* A rate with a k/M/G suffix, "-" when unknown. */
static const char *fmt_rate(char *b, size_t n, double v)
{
    if (v < 0)
        snprintf(b, n, "-");
    else if (v < 1e3)
        snprintf(b, n, "%.0f", v);
    else if (v < 1e6)
        snprintf(b, n, "%.1fk", v / 1e3);
    else if (v < 1e9)
        snprintf(b, n, "%.1fM", v / 1e6);
    else
        snprintf(b, n, "%.1fG", v / 1e9);
    return b;
}

/* Nanoseconds as ns, us, ms or s. */
static const char *fmt_ns(char *b, size_t n, uint64_t ns)
{
    if (ns < 1000)
        snprintf(b, n, "%" PRIu64 "ns", ns);
    else if (ns < 1000000)
        snprintf(b, n, "%.1fus", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(b, n, "%.1fms", (double)ns / 1e6);
    else
        snprintf(b, n, "%.2fs", (double)ns / 1e9);
    return b;
}

/* A metric of a daemon's counter table, shown under a short name. */
struct shown_metric {
    const struct ebf_counter_table *t;
    unsigned id;
    const char *shown;
};

/* Gauges shown on the queue line, in this order, with their short names. */
static const struct shown_metric queue_gauges[] = {
    {&sfc_counter_table, SFC_M_EVENTS_BUILDING, "building"},
    {&sfc_counter_table, SFC_M_READY_QUEUE, "ready"},
    {&node_counter_table, NODE_M_EVENTS_IN_PROGRESS, "in_progress"},
    {&node_counter_table, NODE_M_ACKS_PENDING, "acks_pending"},
    {&sfc_counter_table, SFC_M_NODE_CREDITS, "credits"},
    {&node_counter_table, NODE_M_CREDITS, "credits"},
    {&sfc_counter_table, SFC_M_NODE_UNACKED, "unacked"},
    {&sfc_counter_table, SFC_M_MEMPOOL_RX, "mempool"},
};

static const char *shown_name(const struct shown_metric *m)
{
    return m->t->c[m->id].name;
}

/* The name of the node SFC sfc calls k (its gauges' label node="k": the
 * k-th of its nodes, in file order, each placed at the SFC's place); NULL
 * when not known. */
static const char *node_name(const struct top_proc *all, unsigned n, const struct top_proc *sfc,
                             const char *k)
{
    char *end;
    unsigned long want = strtoul(k, &end, 10), seen = 0;

    if (*end || end == k || !sfc->placed || sfc->place < 0)
        return NULL;
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(all[i].component, "node") && all[i].placed &&
            all[i].place == sfc->place && seen++ == want)
            return all[i].name;
    return NULL;
}

/* The queue and credit gauges of p; an SFC's per-node ones labelled by
 * the node's name (node0:32), not its index in the SFC. */
static void queue_line(FILE *f, const struct top_proc *all, unsigned n, const struct top_proc *p)
{
    const Ebfarm__Snapshot *s = p->cur;
    int any = 0;

    for (unsigned q = 0; q < sizeof(queue_gauges) / sizeof(queue_gauges[0]); q++) {
        int first = 1;
        for (size_t i = 0; i < s->n_gauges; i++) {
            const Ebfarm__Gauge *g = s->gauges[i];
            if (strcmp(g->name, shown_name(&queue_gauges[q])) != 0)
                continue;
            if (first)
                fprintf(f, "%s%s", any ? "  " : "    ", queue_gauges[q].shown);
            const char *who = g->n_labels && !strcmp(g->labels[0]->name, "node")
                                  ? node_name(all, n, p, g->labels[0]->value)
                                  : NULL;
            if (g->n_labels)
                fprintf(f, " %s:%.0f", who ? who : g->labels[0]->value, g->value);
            else
                fprintf(f, " %.0f", g->value);
            first = 0;
            any = 1;
        }
    }
    if (any)
        fputc('\n', f);
}

/* " p50 X p99 Y" of h, " -" when it is empty. */
static void quantiles(FILE *f, const struct ebf_hist *h)
{
    char a[24], b[24];

    if (h->count == 0) {
        fputs(" -", f);
        return;
    }
    fprintf(f, " p50 %s p99 %s", fmt_ns(a, sizeof(a), ebf_hist_quantile(h, 0.5)),
            fmt_ns(b, sizeof(b), ebf_hist_quantile(h, 0.99)));
}

/* Per histogram: the last interval's percentiles, then the run's. */
static void latency_line(FILE *f, const Ebfarm__Snapshot *prev, const Ebfarm__Snapshot *cur)
{
    struct ebf_hist h;

    if (!cur->n_histograms)
        return;
    fputs("    latency", f);
    for (size_t i = 0; i < cur->n_histograms; i++) {
        const Ebfarm__Histogram *c = cur->histograms[i];
        size_t len = strlen(c->name);
        if (len > 3 && strcmp(c->name + len - 3, "_ns") == 0)
            len -= 3;
        fprintf(f, "%s%.*s", i ? ";  " : " ", (int)len, c->name);
        int live = top_hist_window(prev ? ebf_pb_find_hist(prev, c->name) : NULL, c, &h);
        if (live < 0) {
            fputs(" -", f);
            continue;
        }
        fputs(" last", f);
        if (live)
            quantiles(f, &h);
        else
            fputs(" -", f);
        ebf_pb_hist(c, &h);
        fputs(", run", f);
        quantiles(f, &h);
    }
    fputc('\n', f);
}

/* Counters shown by reason when non-zero. */
static const struct shown_metric problem_counters[] = {
    {&sfc_counter_table, SFC_M_RX_REJECT, "reject"},
    {&node_counter_table, NODE_M_PIECE_REJECT, "piece_reject"},
    {&sfc_counter_table, SFC_M_RX_DROP, "drop"},
    {&sfc_counter_table, SFC_M_LOST, "lost"},
};

static void problem_line(FILE *f, const Ebfarm__Snapshot *s)
{
    int any = 0;

    for (unsigned q = 0; q < sizeof(problem_counters) / sizeof(problem_counters[0]); q++) {
        int first = 1;
        for (size_t i = 0; i < s->n_counters; i++) {
            const Ebfarm__Counter *c = s->counters[i];
            if (!c->value || strcmp(c->name, shown_name(&problem_counters[q])) != 0)
                continue;
            if (first)
                fprintf(f, "%s%s", any ? "  " : "    ", problem_counters[q].shown);
            else
                fputc(',', f);
            fprintf(f, " %s %" PRIu64, c->n_labels ? c->labels[0]->value : "-", c->value);
            first = 0;
            any = 1;
        }
    }
    if (any)
        fputc('\n', f);
}

/* --- Marks and the layout --------------------------------------------------- */

enum { DETAILS_PROBLEMS = 1, DETAILS_LATENCY, DETAILS_ALL };

const char *top_node_mark(const struct top_proc *all, unsigned n, const struct top_proc *p)
{
    if (strcmp(p->component, "node") != 0 || !p->cur)
        return NULL;
    double epoch = ebf_pb_gauge(p->cur, NODE_NAME(EPOCH), NULL, -1);
    if (epoch < 0)
        return NULL;
    for (unsigned i = 0; i < n; i++) {
        const Ebfarm__Snapshot *s = all[i].cur;
        if (!s || strcmp(all[i].component, "sfc") != 0)
            continue;
        for (size_t g = 0; g < s->n_gauges; g++) {
            const Ebfarm__Gauge *e = s->gauges[g];
            if (e->n_labels && e->value == epoch && strcmp(e->name, SFC_NAME(NODE_EPOCH)) == 0 &&
                ebf_pb_gauge(s, SFC_NAME(NODE_ALIVE), e->labels[0]->value, 1) == 0)
                return "dead";
        }
    }
    if (p->rejoined)
        return "rejoined";
    if (p->prev && p->prev->run_number == p->cur->run_number) {
        double was = ebf_pb_gauge(p->prev, NODE_NAME(EPOCH), NULL, -1);
        if (was >= 0 && was != epoch)
            return "rejoined";
    }
    return NULL;
}

/* The columns of a process row, most important first; drop_rank: the
 * order in which a narrow terminal drops them (0: never). */
enum { C_NAME, C_ROLE, C_STATE, C_RUN, C_FRAMES, C_EVENTS, C_GBIT, C_N };
static const struct {
    const char *head;
    unsigned full, compact;  /* widths: as wide as fits, and on a narrow terminal */
    int left;                /* left-aligned */
    unsigned drop_rank;
} cols[C_N] = {
    [C_NAME] = {"NAME", 12, 0, 1, 0},     [C_ROLE] = {"ROLE", 8, 7, 1, 3},
    [C_STATE] = {"STATE", 10, 10, 1, 0},  [C_RUN] = {"RUN", 5, 5, 0, 2},
    [C_FRAMES] = {"FRAMES/S", 10, 8, 0, 4}, [C_EVENTS] = {"EVENTS/S", 10, 8, 0, 0},
    [C_GBIT] = {"GBIT/S", 8, 6, 0, 1},
};

struct layout {
    unsigned w[C_N];    /* 0: dropped */
    unsigned mark;      /* the width of the mark column; 0: none */
    int details;        /* the detail lines under each row: DETAILS_ALL, _LATENCY
                         * (no queue lines), _PROBLEMS (rejects, drops, losses
                         * only) or 0 */
};

static unsigned row_width(const struct layout *l)
{
    unsigned w = l->mark ? l->mark + 1 : 0, k = 0;

    for (unsigned c = 0; c < C_N; c++)
        if (l->w[c]) {
            w += l->w[c];
            k++;
        }
    return w + k - 1;
}

/* The widest layout that fits width (0: any): the full widths; else the
 * compact ones (NAME as wide as the longest name), then columns dropped by
 * drop_rank until the row fits. */
static void lay_out(struct layout *l, const struct top_proc *p, unsigned n, unsigned width)
{
    unsigned name = 4;

    l->mark = 0;
    for (unsigned i = 0; i < n; i++) {
        const char *m = top_node_mark(p, n, &p[i]);
        if (m && strlen(m) > l->mark)
            l->mark = (unsigned)strlen(m);
        if (strlen(p[i].name) > name)
            name = (unsigned)strlen(p[i].name);
    }
    for (unsigned c = 0; c < C_N; c++)
        l->w[c] = cols[c].full;
    if (!width || row_width(l) <= width)
        return;
    for (unsigned c = 0; c < C_N; c++)
        l->w[c] = cols[c].compact;
    l->w[C_NAME] = name;
    for (unsigned rank = 1; row_width(l) > width; rank++) {
        unsigned c = 0;
        while (c < C_N && cols[c].drop_rank != rank)
            c++;
        if (c == C_N)
            break;
        l->w[c] = 0;
    }
}

static void cells(FILE *f, const struct layout *l, const char *const v[C_N], const char *mark)
{
    int first = 1;

    for (unsigned c = 0; c < C_N; c++) {
        if (!l->w[c])
            continue;
        fprintf(f, cols[c].left ? "%s%-*s" : "%s%*s", first ? "" : " ", (int)l->w[c], v[c]);
        first = 0;
    }
    if (mark)
        fprintf(f, " %s", mark);
    fputc('\n', f);
}

/* The STATE column: EXITED for a process gone (as status says it, also
 * when its last snapshot is still fresh), STALE, NO_DATA before a snapshot,
 * FINISHED for a running readout that generated every event it was asked
 * for, else the state the snapshot gives. */
static const char *state_of(const struct top_proc *p)
{
    if (p->gone)
        return "EXITED";
    if (!p->cur)
        return "NO_DATA";
    if (p->stale)
        return "STALE";
    if (p->cur->state == EBFARM__STATE__RUNNING && !strcmp(p->component, "readout") &&
        ebf_pb_gauge(p->cur, "finished", NULL, 0) == 1)
        return "FINISHED";
    return ebf_state_name((enum ebf_state)p->cur->state);
}

static void proc_lines(FILE *f, const struct layout *l, const struct top_proc *all, unsigned n,
                       const struct top_proc *p, const char *mark)
{
    struct top_rates r = {-1, -1, -1};
    char fr[16], ev[16], run[16], gb[16] = "-";
    const char *state = state_of(p);

    if (p->cur) {
        snprintf(run, sizeof(run), "%u", p->cur->run_number);
        if (!p->stale && !p->gone)
            top_rates(p->component, p->prev, p->cur, &r);
    } else {
        snprintf(run, sizeof(run), "-");
    }
    if (r.gbit >= 0)
        snprintf(gb, sizeof(gb), "%.2f", r.gbit);
    const char *v[C_N] = {p->name, p->component, state, run, fmt_rate(fr, sizeof(fr), r.frames),
                          fmt_rate(ev, sizeof(ev), r.events), gb};
    cells(f, l, v, mark);
    if (!p->cur || !l->details)
        return;
    if (l->details >= DETAILS_ALL)
        queue_line(f, all, n, p);
    if (l->details >= DETAILS_LATENCY)
        latency_line(f, p->prev, p->cur);
    problem_line(f, p->cur);
}

/* "dropped columns: A B" naming the columns l leaves out; nothing when none. */
static void dropped_line(FILE *f, const struct layout *l)
{
    const char *sep = "dropped columns:";

    for (unsigned rank = 1; rank < C_N; rank++)
        for (unsigned c = 0; c < C_N; c++)
            if (cols[c].drop_rank == rank && !l->w[c]) {
                fprintf(f, "%s %s", sep, cols[c].head);
                sep = "";
            }
    if (!*sep)
        fputc('\n', f);
}

/* The totals on one line, or wrapped at width after a comma; the
 * processes that gave no counters named last. */
static void totals_line(FILE *f, const struct acct_totals *t, unsigned width)
{
    char item[ACCT_LOST + 2][ACCT_MISSING_MAX + 32], v[ACCT_MISSING_MAX + 32];
    unsigned col = 0, n = 0;

    for (unsigned i = 0; i <= ACCT_LOST; i++)
        snprintf(item[n++], sizeof(item[0]), "%s%s%s", i ? "" : "totals: ",
                 acct_item_text(t, (enum acct_item)i, v, sizeof(v)), i < ACCT_LOST ? "," : "");
    if (t->n_missing)
        acct_missing_text(t, item[n++], sizeof(item[0]));
    for (unsigned i = 0; i < n; i++) {
        unsigned w = (unsigned)strlen(item[i]);
        if (i && width && col + 1 + w > width) {
            fputs("\n ", f);
            col = 1;
        }
        col += (unsigned)fprintf(f, "%s%s", i ? " " : "", item[i]);
    }
    fputc('\n', f);
}

/* "failover: SFCs live ..." when failover is on (farm_fo_view.h), from
 * the latest snapshots; a stale one counts as gone. */
static void failover_line(FILE *f, const struct top_proc *p, unsigned n)
{
    struct farm_fo_view v;

    farm_fo_view_init(&v);
    for (unsigned i = 0; i < n; i++) {
        int role = !strcmp(p[i].component, "sfc") ? FARM_SFC
                   : !strcmp(p[i].component, "readout") ? FARM_READOUT : FARM_NODE;
        farm_fo_view_snapshot(&v, (enum farm_role)role, p[i].name, p[i].stale ? NULL : p[i].cur);
    }
    farm_fo_view_end(&v);
    farm_fo_view_text(f, &v, "failover: ");
}

static void frame_text(FILE *f, const char *farm, const struct top_proc *p, unsigned n,
                       const struct layout *l, unsigned width)
{
    static const char *const head[C_N] = {"NAME", "ROLE", "STATE", "RUN", "FRAMES/S",
                                           "EVENTS/S", "GBIT/S"};
    struct acct_totals t;

    fprintf(f, "farm %s: %u processes\n", farm, n);
    cells(f, l, head, NULL);
    for (unsigned i = 0; i < n; i++)
        proc_lines(f, l, p, n, &p[i], top_node_mark(p, n, &p[i]));
    top_totals(p, n, &t);
    totals_line(f, &t, width);
    failover_line(f, p, n);
    dropped_line(f, l);
    if (!l->details)
        fputs("dropped detail lines: too few rows\n", f);
    else if (l->details < DETAILS_ALL)
        fprintf(f, "dropped detail lines: queues%s\n",
                l->details < DETAILS_LATENCY ? ", latency" : "");
}

/* Each line of text cut to width (0: as is). */
static void put_cut(FILE *f, const char *text, unsigned width)
{
    for (const char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl)
            nl = line + strlen(line) - 1;
        size_t w = (size_t)(nl - line);
        fwrite(line, 1, width && w > width ? width : w, f);
        fputc('\n', f);
    }
}

static unsigned count_lines(const char *text)
{
    unsigned k = 0;

    for (; *text; text++)
        k += *text == '\n';
    return k;
}

void top_frame_fit(FILE *f, const char *farm, const struct top_proc *p, unsigned n,
                   unsigned width, unsigned height)
{
    struct layout l;
    char *text = NULL;
    size_t len = 0;
    FILE *m;

    lay_out(&l, p, n, width);
    /* Fewer detail lines until the frame fits: the problem lines (rejects,
     * drops, losses) go last. */
    for (l.details = DETAILS_ALL;; l.details--) {
        if (!(m = open_memstream(&text, &len)))
            return;
        frame_text(m, farm, p, n, &l, width);
        fclose(m);
        if (!height || !l.details || count_lines(text) <= height)
            break;
        free(text);
        text = NULL;
    }
    put_cut(f, text, width);
    free(text);
}

void top_frame(FILE *f, const char *farm, const struct top_proc *p, unsigned n)
{
    top_frame_fit(f, farm, p, n, 0, 0);
}
