/* SPDX-License-Identifier: BSD-3-Clause */
/* test-acct.c - the farm's totals: the same snapshots give the same totals in every view. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "ebf_idset.h"
#include "farm_ask.h"
#include "farm_demo.h"
#include "ledger.h"
#include "promtext.h"
#include "soak_sample.h"
#include "summary.h"
#include "test-snapshot.h"
#include "topview.h"

/*
 * A farm of two readouts, two SFCs (events spread by id over places 0 and
 * 1: even ids to sfc0, odd to sfc1) and four nodes, two per SFC, after a
 * run of 1000 events (ids 0 .. 999):
 *
 *   ro0   events 1000, frames 5000           (the furthest)
 *   ro1   events 996 + 2 abandoned, frames 4990
 *   sfc0  500 ids: acked 100 accepted, 392 rejected (4 incomplete), lost
 *         no_node 5, event_table_full 3
 *   sfc1  500 ids: acked 110 accepted, 390 rejected, lost no_node 0
 *   node0, node1 (sfc0's) 50 + 196 each; node2, node3 (sfc1's) 55 + 195 each
 *
 * With withheld set, the readouts' fault stage withheld 4 events (2 of
 * each SFC's; both readouts the same), which the SFCs then never saw: one
 * rejection fewer at each node.
 *
 * Totals: generated 1000, accepted 210, rejected 782 (778 withheld), lost
 * 8 (12 withheld), frames 9990, in status, top (its numbers and its
 * totals line), soak's sample, the ledger and the summary's ledger line,
 * and the Prometheus exposition summed by the documented rules.
 */

enum { RO0, RO1, SFC0, SFC1, NODE0, NODE1, NODE2, NODE3, N_PROC };

static const struct {
    const char *name, *component;
    enum farm_role role;
    int place;
} proc[N_PROC] = {
    [RO0] = {"ro0", "readout", FARM_READOUT, -1}, [RO1] = {"ro1", "readout", FARM_READOUT, -1},
    [SFC0] = {"sfc0", "sfc", FARM_SFC, 0},         [SFC1] = {"sfc1", "sfc", FARM_SFC, 1},
    [NODE0] = {"node0", "node", FARM_NODE, 0},     [NODE1] = {"node1", "node", FARM_NODE, 0},
    [NODE2] = {"node2", "node", FARM_NODE, 1},     [NODE3] = {"node3", "node", FARM_NODE, 1},
};

/* The totals every view must give. */
struct want {
    uint64_t generated, accepted, rejected, lost, frames;
    const char *missing;         /* "" when every process answered */
};

/* The snapshot of process i (NULL when dead). */
static Ebfarm__Snapshot *snap_of(unsigned i, int withheld)
{
    struct ebf_metrics ms;
    uint64_t w = withheld ? 1 : 0;

    ck_assert_int_eq(ebf_metrics_init(&ms, 16), 0);
    switch (i) {
    case RO0: case RO1:
        ebf_metrics_counter(&ms, "events", i == RO0 ? 1000 : 996);
        ebf_metrics_counter(&ms, "events_abandoned", i == RO0 ? 0 : 2);
        ebf_metrics_counter(&ms, "frames", i == RO0 ? 5000 : 4990);
        if (withheld)
            ebf_metrics_counter(&ms, "fault.withheld_events", 4);
        break;
    case SFC0:
        ebf_metrics_counter(&ms, "ack.accept", 100);
        ebf_metrics_counter(&ms, "ack.reject", 392 - 2 * w);
        ebf_metrics_counter(&ms, "ack.incomplete", 4);
        ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", 5);
        ebf_metrics_counter_l(&ms, "lost", "reason", "event_table_full", 3);
        break;
    case SFC1:
        ebf_metrics_counter(&ms, "ack.accept", 110);
        ebf_metrics_counter(&ms, "ack.reject", 390 - 2 * w);
        ebf_metrics_counter_l(&ms, "lost", "reason", "no_node", 0);
        break;
    default:
        ebf_metrics_counter(&ms, "accepted", i < NODE2 ? 50 : 55);
        ebf_metrics_counter(&ms, "rejected", (i < NODE2 ? 196 : 195) - w);
        break;
    }
    Ebfarm__Snapshot *s = received(&ms, proc[i].component, proc[i].name, 3, EBF_S_RUNNING,
                                   1000000000);
    ebf_metrics_free(&ms);
    return s;
}

/* A scenario: which processes are dead, and whether events were withheld. */
struct farm {
    Ebfarm__Snapshot *snap[N_PROC];  /* NULL: dead */
    int withheld;
};

static void farm_make(struct farm *f, unsigned dead_mask, int withheld)
{
    f->withheld = withheld;
    for (unsigned i = 0; i < N_PROC; i++)
        f->snap[i] = dead_mask & (1u << i) ? NULL : snap_of(i, withheld);
}

static void farm_drop(struct farm *f)
{
    for (unsigned i = 0; i < N_PROC; i++)
        drop(f->snap[i]);
}

static void check_totals(const char *view, const struct acct_totals *t, const struct want *w)
{
    ck_assert_msg(t->generated_known && t->decided_known && t->lost_known, "%s: unknown", view);
    ck_assert_msg(t->generated == w->generated, "%s: generated %llu", view,
                  (unsigned long long)t->generated);
    ck_assert_msg(t->accepted == w->accepted, "%s: accepted %llu", view,
                  (unsigned long long)t->accepted);
    ck_assert_msg(t->rejected == w->rejected, "%s: rejected %llu", view,
                  (unsigned long long)t->rejected);
    ck_assert_msg(t->lost == w->lost, "%s: lost %llu", view, (unsigned long long)t->lost);
    ck_assert_msg(t->frames == w->frames, "%s: frames %llu", view, (unsigned long long)t->frames);
    ck_assert_str_eq(t->missing, w->missing);
}

/* --- The views ----------------------------------------------------------- */

/* ebfarm status: the replies of farm_status. */
static void status_view(const struct farm *f, struct acct_totals *t)
{
    static struct farm_state st;
    Ebfarm__Reply rep[N_PROC], *r[N_PROC];
    Ebfarm__Status status[N_PROC];
    int place[N_PROC];

    memset(&st, 0, sizeof(st));
    st.n = N_PROC;
    for (unsigned i = 0; i < N_PROC; i++) {
        snprintf(st.proc[i].name, sizeof(st.proc[i].name), "%s", proc[i].name);
        st.proc[i].role = proc[i].role;
        place[i] = proc[i].place;
        ebfarm__reply__init(&rep[i]);
        ebfarm__status__init(&status[i]);
        status[i].metrics = f->snap[i];
        rep[i].status = &status[i];
        r[i] = f->snap[i] ? &rep[i] : NULL;    /* a dead process does not answer */
    }
    farm_status_totals(&st, r, place, t);
}

/* ebfarm top: the processes as top holds them (a dead one has no snapshot). */
static void top_procs(const struct farm *f, struct top_proc *p)
{
    for (unsigned i = 0; i < N_PROC; i++)
        p[i] = (struct top_proc){.name = proc[i].name, .component = proc[i].component,
                                 .cur = f->snap[i], .placed = 1, .place = proc[i].place};
}

/* ebfarm soak: one sample; the totals as its counts. */
static void soak_view(const struct farm *f, struct acct_totals *t)
{
    static struct soak_acc acc;
    static struct soak_sample s;
    struct soak_proc_in in[N_PROC];

    for (unsigned i = 0; i < N_PROC; i++)
        in[i] = (struct soak_proc_in){.name = proc[i].name, .component = proc[i].component,
                                      .snap = f->snap[i], .placed = 1, .place = proc[i].place};
    soak_acc_init(&acc, N_PROC);
    ck_assert_int_eq(soak_sample_take(&acc, in, N_PROC, 1, &s), 0);
    memset(t, 0, sizeof(*t));
    t->generated = soak_counts_get(&s.c, "generated");
    t->accepted = soak_counts_get(&s.c, "accepted");
    t->rejected = soak_counts_get(&s.c, "rejected");
    t->lost = soak_counts_sum(&s.c, "lost.");
    t->frames = soak_counts_get(&s.c, "frames");
    t->generated_known = t->decided_known = t->lost_known = 1;
}

/* A snapshot's counters as a stats file has them ("lost.no_node"). */
static void kv_put(struct ebf_kv *kv, const char *key, uint64_t v)
{
    for (unsigned i = 0; i < kv->n; i++)
        if (strcmp(kv->pair[i].key, key) == 0) {
            uint64_t was = strtoull(kv->pair[i].val, NULL, 0);
            snprintf(kv->pair[i].val, sizeof(kv->pair[i].val), "%llu",
                     (unsigned long long)(was + v));
            return;
        }
    kv->pair = realloc(kv->pair, (kv->n + 1) * sizeof(kv->pair[0]));
    ck_assert_ptr_nonnull(kv->pair);
    snprintf(kv->pair[kv->n].key, sizeof(kv->pair[0].key), "%s", key);
    snprintf(kv->pair[kv->n].val, sizeof(kv->pair[0].val), "%llu", (unsigned long long)v);
    kv->n++;
}

static void kv_add_snap(struct ebf_kv *kv, const Ebfarm__Snapshot *s)
{
    char key[96];

    for (size_t i = 0; s && i < s->n_counters; i++) {
        const Ebfarm__Counter *c = s->counters[i];
        snprintf(key, sizeof(key), "%s%s%s", c->name, c->n_labels ? "." : "",
                 c->n_labels ? c->labels[0]->value : "");
        kv_put(kv, key, c->value);
    }
}

/* The SFCs' id records of a run with the shape above, as the ledger reads
 * them from the live SFCs' final counters: the even ids but 8 lost (sfc0),
 * the odd ones (sfc1); without the withheld ones. */
static void kv_add_ids(struct ebf_kv *kv, unsigned sfc, int withheld)
{
    static const char *const rec[2] = {"ledger.acked", "ledger.lost"};
    struct ebf_idset s[2];
    char key[96];

    ebf_idset_init(&s[0]);
    ebf_idset_init(&s[1]);
    for (uint64_t id = sfc == SFC0 ? 0 : 1; id < 1000; id += 2) {
        if (withheld && (id == 10 || id == 11 || id == 20 || id == 21))
            continue;
        ebf_idset_add(&s[sfc == SFC0 && id >= 100 && id < 116], id);
    }
    for (unsigned k = 0; k < 2; k++)
        for (unsigned c = 0; c < EBF_IDSET_CELLS; c++) {
            snprintf(key, sizeof(key), "%s.count.%u", rec[k], c);
            kv_put(kv, key, s[k].count[c]);
            snprintf(key, sizeof(key), "%s.id_sum.%u", rec[k], c);
            kv_put(kv, key, s[k].id_sum[c]);
            snprintf(key, sizeof(key), "%s.hash_sum.%u", rec[k], c);
            kv_put(kv, key, s[k].hash_sum[c]);
        }
}

/* What the staged stop collects (farm_collect.h) from the same counters:
 * each readout's and SFC's own and their sums, each node's; the dead gone. */
static void result_of(const struct farm *f, struct farm_result *r)
{
    memset(r, 0, sizeof(*r));
    r->n_ro = 2;
    r->n_sfcs = 2;
    r->n_places = 2;
    r->n_nodes = 4;
    for (unsigned i = 0; i < N_PROC; i++) {
        const Ebfarm__Snapshot *s = f->snap[i];
        struct farm_part_result *x = i <= RO1 ? &r->ro[i] : i <= SFC1 ? &r->sfcs[i - SFC0] : NULL;
        if (x) {
            snprintf(x->name, sizeof(x->name), "%s", proc[i].name);
            x->gone = !s;
            x->place = proc[i].place;
            kv_add_snap(&x->kv, s);
            kv_add_snap(i <= RO1 ? &r->readout : &r->sfc, s);
            if (s && i >= SFC0)
                kv_add_ids(&r->sfc, i, f->withheld);
        } else {
            struct farm_node_result *n = &r->node[i - NODE0];
            snprintf(n->name, sizeof(n->name), "%s", proc[i].name);
            n->gone = !s;
            r->node_place[i - NODE0] = proc[i].place;
            kv_add_snap(&n->kv, s);
            r->nodes_silent += !s;
        }
        if (!s && proc[i].role == FARM_READOUT && !r->readouts_gone++)
            snprintf(r->readout_gone, sizeof(r->readout_gone), "%s", proc[i].name);
        r->sfcs_gone += !s && proc[i].role == FARM_SFC;
    }
}

static void result_free(struct farm_result *r)
{
    free(r->readout.pair);
    free(r->sfc.pair);
    for (unsigned i = 0; i < 2; i++) {
        free(r->ro[i].kv.pair);
        free(r->sfcs[i].kv.pair);
    }
    for (unsigned i = 0; i < 4; i++)
        free(r->node[i].kv.pair);
}

/* The final ledger and the summary's ledger line of the same counters. */
static void ledger_view(const struct farm *f, const struct want *w, struct acct_totals *t)
{
    static struct farm_result r;
    struct farm_conf c;
    struct ledger l;
    char *text = NULL, line[160];

    result_of(f, &r);
    ledger_close(&r, &l);
    memset(t, 0, sizeof(*t));
    t->generated = l.generated;
    t->accepted = l.accepted;
    t->rejected = l.rejected;
    t->lost = l.lost_total;
    t->frames = w->frames;       /* not a ledger figure */
    t->generated_known = t->decided_known = t->lost_known = 1;
    snprintf(t->missing, sizeof(t->missing), "%s", w->missing);
    /* Everything decided or lost (a closed run): the ledger balances. */
    ck_assert_int_eq(l.unaccounted, 0);
    farm_conf_default(&c);
    CAPTURE(text, summary_text(m_, &c, &r, &l));
    snprintf(line, sizeof(line), " = accepted %llu + rejected %llu + lost %llu;",
             (unsigned long long)w->accepted, (unsigned long long)w->rejected,
             (unsigned long long)w->lost);
    ck_assert_msg(strstr(text, line) != NULL, "%s", text);
    free(text);
    result_free(&r);
}

/* One sample "name{...component="c"...} v" of an exposition line: 1 with
 * its component and value, 0 for any other line. */
static int prom_sample(const char *line, const char *name, char *component, uint64_t *v)
{
    size_t len = strlen(name);
    const char *c = strstr(line, "component=\""), *end = strstr(line, "} ");

    if (strncmp(line, name, len) != 0 || line[len] != '{' || !c || !end)
        return 0;
    sscanf(c + 11, "%15[^\"]", component);
    *v = strtoull(end + 2, NULL, 10);
    return 1;
}

/* The process an exposition line is of (its process label). */
static unsigned proc_of(const char *line)
{
    char want[64];

    for (unsigned i = 0; i < N_PROC; i++) {
        snprintf(want, sizeof(want), "process=\"%s\"", proc[i].name);
        if (strstr(line, want))
            return i;
    }
    ck_abort_msg("no process in %s", line);
    return 0;
}

/* The Prometheus exporter: it serves each process's own metrics and no
 * farm totals (docs/monitoring.md); the totals by the same rules over its
 * exposition: generated the readouts' max of ebfarm_events_total +
 * ebfarm_events_abandoned_total, accepted and rejected the SFCs'
 * ebfarm_ack_*_total, lost the SFCs' ebfarm_lost_total plus one readout's
 * withheld events, frames the readouts' sum. A dead process serves none. */
static void exporter_view(const struct farm *f, struct acct_totals *t)
{
    struct prom_proc p[N_PROC];
    uint64_t gen[N_PROC] = {0}, withheld = 0, v;
    char *text = NULL, comp[16], *save = NULL;

    for (unsigned i = 0; i < N_PROC; i++)
        p[i] = (struct prom_proc){proc[i].component, proc[i].name, "acct", f->snap[i],
                                  f->snap[i] != NULL};
    CAPTURE(text, ck_assert_int_eq(prom_render(m_, p, N_PROC), 0));
    memset(t, 0, sizeof(*t));
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if ((prom_sample(line, "ebfarm_events_total", comp, &v) ||
             prom_sample(line, "ebfarm_events_abandoned_total", comp, &v)) &&
            !strcmp(comp, "readout"))
            gen[proc_of(line)] += v;
        else if (prom_sample(line, "ebfarm_ack_accept_total", comp, &v))
            t->accepted += v;
        else if (prom_sample(line, "ebfarm_ack_reject_total", comp, &v))
            t->rejected += v;
        else if (prom_sample(line, "ebfarm_lost_total", comp, &v))
            t->lost += v;
        else if (prom_sample(line, "ebfarm_fault_withheld_events_total", comp, &v))
            withheld = v;                        /* every readout withholds the same */
        else if (prom_sample(line, "ebfarm_frames_total", comp, &v) && !strcmp(comp, "readout"))
            t->frames += v;
    }
    for (unsigned i = 0; i < N_PROC; i++)
        t->generated = gen[i] > t->generated ? gen[i] : t->generated;
    t->lost += withheld;
    t->generated_known = t->decided_known = t->lost_known = 1;
    free(text);
}

/* Every view of f gives w, and top's totals line says it in words. */
static void every_view(const struct farm *f, const struct want *w, const char *top_line)
{
    struct top_proc p[N_PROC];
    struct acct_totals t;
    char *text = NULL;

    status_view(f, &t);
    check_totals("status", &t, w);
    top_procs(f, p);
    top_totals(p, N_PROC, &t);
    check_totals("top", &t, w);
    CAPTURE(text, top_frame(m_, "acct", p, N_PROC));
    ck_assert_msg(strstr(text, top_line) != NULL, "%s", text);
    free(text);
    soak_view(f, &t);
    snprintf(t.missing, sizeof(t.missing), "%s", w->missing);   /* soak names none */
    check_totals("soak", &t, w);
    ledger_view(f, w, &t);
    check_totals("ledger", &t, w);
    /* A dead SFC's share: its nodes' decisions stand in by their place in
     * the farm file, which the exposition does not carry. */
    if (f->snap[SFC1]) {
        exporter_view(f, &t);
        snprintf(t.missing, sizeof(t.missing), "%s", w->missing);
        check_totals("exporter", &t, w);
    }
}

/* --- The cases ------------------------------------------------------------ */

START_TEST(test_all_answer)
{
    static const struct want w = {1000, 210, 782, 8, 9990, ""};
    struct farm f;

    farm_make(&f, 0, 0);
    every_view(&f, &w, "\ntotals: generated 1000, accepted 210, rejected 782, lost 8\n");
    farm_drop(&f);
}
END_TEST

/* The readouts' withheld events count once, as the first readout's. */
START_TEST(test_withheld_once)
{
    static const struct want w = {1000, 210, 778, 12, 9990, ""};
    struct farm f;

    farm_make(&f, 0, 1);
    every_view(&f, &w, "\ntotals: generated 1000, accepted 210, rejected 778, lost 12\n");
    farm_drop(&f);
}
END_TEST

/* A dead node: the SFC's acks are the decisions of record; the node is
 * named, no total is unknown. */
START_TEST(test_node_dead)
{
    static const struct want w = {1000, 210, 782, 8, 9990, "node1"};
    struct farm f;

    farm_make(&f, 1u << NODE1, 0);
    every_view(&f, &w, "\ntotals: generated 1000, accepted 210, rejected 782, lost 8 "
                       "(no counters from node1)\n");
    farm_drop(&f);
}
END_TEST

/* A dead SFC: its nodes' own decisions stand in for its acks. */
START_TEST(test_sfc_dead)
{
    static const struct want w = {1000, 210, 782, 8, 9990, "sfc1"};
    struct farm f;

    farm_make(&f, 1u << SFC1, 0);
    every_view(&f, &w, "\ntotals: generated 1000, accepted 210, rejected 782, lost 8 "
                       "(no counters from sfc1)\n");
    farm_drop(&f);
}
END_TEST

/* A dead readout behind the other: the furthest one's count stands; the
 * ledger closes over the ids the SFCs saw, the same 1000. */
START_TEST(test_readout_dead)
{
    static const struct want w = {1000, 210, 782, 8, 5000, "ro1"};
    struct farm f;

    farm_make(&f, 1u << RO1, 0);
    every_view(&f, &w, "\ntotals: generated 1000, accepted 210, rejected 782, lost 8 "
                       "(no counters from ro1)\n");
    farm_drop(&f);
}
END_TEST

/* A total no answering process gives is unknown, in the same words in
 * status's and top's line; a dead SFC whose nodes' place is not known
 * leaves its share out, named. */
START_TEST(test_unknown)
{
    struct acct_part p[4];
    struct acct_totals t;
    char buf[128];
    struct farm f;

    acct_part_init(&p[0], ACCT_READOUT, "ro0", -1);
    acct_part_init(&p[1], ACCT_SFC, "sfc0", -1);
    acct_part_init(&p[2], ACCT_NODE, "node0", -1);
    acct_part_init(&p[3], ACCT_NODE, "node1", -1);
    acct_combine(p, 4, &t);
    ck_assert(!t.generated_known && !t.decided_known && !t.lost_known);
    ck_assert_str_eq(acct_item_text(&t, ACCT_GENERATED, buf, sizeof(buf)), "generated ?");
    ck_assert_str_eq(acct_item_text(&t, ACCT_FRAMES, buf, sizeof(buf)), "frames ?");
    ck_assert_str_eq(acct_missing_text(&t, buf, sizeof(buf)),
                     "(no counters from ro0, sfc0, node0, node1)");

    farm_make(&f, 1u << RO0 | 1u << RO1 | 1u << SFC1, 0);
    struct top_proc tp[N_PROC];
    top_procs(&f, tp);
    for (unsigned i = 0; i < N_PROC; i++)
        tp[i].placed = 0;
    top_totals(tp, N_PROC, &t);
    ck_assert(!t.generated_known && t.decided_known && t.lost_known);
    ck_assert_uint_eq(t.accepted, 100);          /* sfc0's only */
    ck_assert_uint_eq(t.rejected, 392);
    ck_assert_uint_eq(t.lost, 8);
    char *text = NULL;
    CAPTURE(text, top_frame(m_, "acct", tp, N_PROC));
    ck_assert_msg(strstr(text, "\ntotals: generated ?, accepted 100, rejected 392, lost 8 "
                               "(no counters from ro0, ro1, sfc1)\n") != NULL, "%s", text);
    free(text);
    farm_drop(&f);
}
END_TEST

/* Several SFCs' reasons merge by name in first-seen order; the ledger's
 * stats-file reading gives the same as the snapshot's. */
START_TEST(test_reasons_merge)
{
    struct acct_part p[3];
    struct acct_totals t;
    struct farm f;
    struct ebf_kv kv = {0};

    farm_make(&f, 0, 0);
    acct_part_init(&p[0], ACCT_SFC, "sfc0", 0);
    acct_part_pb(&p[0], f.snap[SFC0]);
    acct_part_init(&p[1], ACCT_SFC, "sfc1", 1);
    acct_part_pb(&p[1], f.snap[SFC1]);
    kv_add_snap(&kv, f.snap[SFC0]);
    acct_part_init(&p[2], ACCT_SFC, "sfc0", 0);
    acct_part_kv(&p[2], &kv);
    ck_assert_int_eq(memcmp(&p[0], &p[2], sizeof(p[0])), 0);
    acct_combine(p, 2, &t);
    ck_assert_uint_eq(t.n_lost, 2);
    ck_assert_str_eq(t.lost_name[0], "no_node");
    ck_assert_uint_eq(t.lost_by[0], 5);
    ck_assert_str_eq(t.lost_name[1], "event_table_full");
    ck_assert_uint_eq(t.lost_by[1], 3);
    ck_assert_uint_eq(t.incomplete, 4);
    free(kv.pair);
    farm_drop(&f);
}
END_TEST

Suite *acct_suite(void);

Suite *acct_suite(void)
{
    Suite *s = suite_create("acct");
    TCase *tc = tcase_create("views");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_all_answer);
    tcase_add_test(tc, test_withheld_once);
    tcase_add_test(tc, test_node_dead);
    tcase_add_test(tc, test_sfc_dead);
    tcase_add_test(tc, test_readout_dead);
    tcase_add_test(tc, test_unknown);
    tcase_add_test(tc, test_reasons_merge);
    suite_add_tcase(s, tc);
    return s;
}
