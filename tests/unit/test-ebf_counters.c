/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_counters.c - the counter-table walker: every shape, type and flag into a metric list, exactly. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "ebf_counters.h"

/* A stats struct with one field of every kind a table can describe. */
struct demo_stats {
    uint64_t frames;
    uint32_t level;
    uint16_t n_nodes;
    uint8_t flag;
    int signed_level;
    double rate;
    uint64_t reject[4];          /* index 0 is "ok": not listed */
    uint64_t by_source[6];       /* sparse */
    uint64_t per_node[3];        /* n_nodes of them in use */
    uint32_t credits[3];
    uint64_t pool_a;
    uint32_t pool_b;
    struct ebf_hist lat_ns;
    struct ebf_idset ids;
};

static const char *const reject_names[] = {"ok", "short", "crc", "type"};

static const char *reject_label(unsigned i)
{
    return reject_names[i];
}

#define DEMO_FOREACH_COUNTER(X)                                                                    \
    X(FRAMES, C, "rx.frames", frames, (), EBF_CF_SUM, "Frames.")                                  \
    X(LEVEL, G, "level", level, (), 0, "A level.")                                                 \
    X(FLAG, G, "flag", flag, (), 0, "A flag.")                                                     \
    X(SIGNED, G, "signed", signed_level, (), 0, "A signed level.")                                 \
    X(SIGNED_C, C, "signed_count", signed_level, (), 0, "A negative count reads 0.")               \
    X(RATE, G, "rate", rate, (), 0, "A rate.")                                                     \
    X(REJECT, CA, "rx.reject", reject, ("reason", 1, reject_label), 0, "Rejects.")                 \
    X(SOURCE, CA, "source.frames", by_source, ("source", 0, NULL), EBF_CF_SKIP0, "By source.")     \
    X(NODE, CN, "node.sent", per_node, ("node", NULL, n_nodes), 0, "By node.")                     \
    X(CREDITS, GN, "node_credits", credits, ("node", NULL, n_nodes), 0, "Credits by node.")        \
    X(BUSIEST, GMAX, "busiest_source", by_source, (), 0, "The busiest source.")                    \
    X(POOL_A, GL, "mempool_in_use", pool_a, ("pool", "a"), 0, "Mbufs in use.")                     \
    X(POOL_B, CL, "pool_total", pool_b, ("pool", "b"), 0, "A labelled counter.")                   \
    X(DIGEST, C, "digest", frames, (), EBF_CF_RUN, "Not a rate.")                                  \
    X(LAT_NS, H, "lat_ns", lat_ns, (), 0, "Latency.")                                              \
    X(IDS, I, "ledger.ids", ids, (), EBF_CF_RUN, "Id record.")

enum demo_id {
#define DEMO_ID(id, ...) DEMO_M_##id,
    DEMO_FOREACH_COUNTER(DEMO_ID)
#undef DEMO_ID
    DEMO_M_MAX
};

#define DEMO_DESC(id, shape, name, field, args, flags, help) \
    EBF_COUNTER_ENTRY(struct demo_stats, DEMO_M_##id, shape, name, field, args, flags, help)

static const struct ebf_counter demo_counters[] = {
    DEMO_FOREACH_COUNTER(DEMO_DESC)
};

static const struct ebf_counter_table demo_table = EBF_COUNTER_TABLE("demo", demo_counters);

/* Unlabelled scalars only: for the label override. */
struct two {
    uint64_t a, b;
};

static const struct ebf_counter two_counters[] = {
    EBF_CTR_C(struct two, "port.a", a, (), 0, "A."),
    EBF_CTR_C(struct two, "port.b", b, (), 0, "B."),
};

static const struct ebf_counter_table two_table = EBF_COUNTER_TABLE("two", two_counters);

static struct demo_stats demo;

static void demo_fill(void)
{
    memset(&demo, 0, sizeof(demo));
    demo.frames = 1ull << 40;
    demo.level = 7;
    demo.n_nodes = 2;
    demo.flag = 1;
    demo.signed_level = -1;
    demo.rate = 2.5;
    demo.reject[0] = 99;         /* never listed: first is 1 */
    demo.reject[2] = 3;
    demo.by_source[1] = 4;
    demo.by_source[4] = 9;
    demo.per_node[0] = 10;
    demo.per_node[1] = 11;
    demo.per_node[2] = 12;       /* beyond n_nodes */
    demo.credits[1] = 32;
    demo.pool_a = 5;
    demo.pool_b = 6;
    ebf_hist_init(&demo.lat_ns);
    ebf_hist_add(&demo.lat_ns, 100);
    ebf_idset_init(&demo.ids);
    ebf_idset_add(&demo.ids, 42);
}

struct want {
    enum ebf_metric_kind k;
    const char *name, *label, *lv;
    double v;
};

static void check(const struct ebf_metric *m, const struct want *w, unsigned i)
{
    ck_assert_msg(m->kind == w->k, "metric %u: kind %d", i, m->kind);
    ck_assert_str_eq(m->name, w->name);
    ck_assert_str_eq(m->label, w->label);
    ck_assert_str_eq(m->label_value, w->lv);
    if (w->k == EBF_M_COUNTER)
        ck_assert_msg((double)m->count == w->v, "%s: %llu", m->name,
                      (unsigned long long)m->count);
    else if (w->k == EBF_M_GAUGE)
        ck_assert_msg(m->value == w->v, "%s: %g", m->name, m->value);
}

/* Every entry in table order, each shape as its contract says. */
START_TEST(test_walk_every_shape)
{
    static const struct want want[] = {
        {EBF_M_COUNTER, "rx.frames", "", "", 1099511627776.0},
        {EBF_M_GAUGE, "level", "", "", 7},
        {EBF_M_GAUGE, "flag", "", "", 1},
        {EBF_M_GAUGE, "signed", "", "", -1},
        {EBF_M_COUNTER, "signed_count", "", "", 0},
        {EBF_M_GAUGE, "rate", "", "", 2.5},
        {EBF_M_COUNTER, "rx.reject", "reason", "short", 0},
        {EBF_M_COUNTER, "rx.reject", "reason", "crc", 3},
        {EBF_M_COUNTER, "rx.reject", "reason", "type", 0},
        {EBF_M_COUNTER, "source.frames", "source", "1", 4},
        {EBF_M_COUNTER, "source.frames", "source", "4", 9},
        {EBF_M_COUNTER, "node.sent", "node", "0", 10},
        {EBF_M_COUNTER, "node.sent", "node", "1", 11},
        {EBF_M_GAUGE, "node_credits", "node", "0", 0},
        {EBF_M_GAUGE, "node_credits", "node", "1", 32},
        {EBF_M_GAUGE, "busiest_source", "", "", 4},
        {EBF_M_GAUGE, "mempool_in_use", "pool", "a", 5},
        {EBF_M_COUNTER, "pool_total", "pool", "b", 6},
        {EBF_M_COUNTER, "digest", "", "", 1099511627776.0},
        {EBF_M_HIST, "lat_ns", "", "", 0},
    };
    const unsigned n = sizeof(want) / sizeof(want[0]);
    struct ebf_metrics ms;

    demo_fill();
    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_counters_metrics(&demo_table, &demo, &ms);
    /* then the id record: 3 parts x 3 cells holding id 42 */
    ck_assert_uint_eq(ms.n, n + 9);
    ck_assert_int_eq(ms.overflow, 0);
    for (unsigned i = 0; i < n; i++)
        check(&ms.m[i], &want[i], i);
    ck_assert_ptr_eq(ms.m[n - 1].hist, &demo.lat_ns);
    const char *part[] = {"ledger.ids.count", "ledger.ids.id_sum", "ledger.ids.hash_sum"};
    for (unsigned p = 0; p < 3; p++)
        for (unsigned k = 0; k < EBF_IDSET_PARTS; k++) {
            const struct ebf_metric *m = &ms.m[n + p * 3 + k];
            char cell[8];
            snprintf(cell, sizeof(cell), "%u", ebf_idset_cell(42, k));
            ck_assert_str_eq(m->name, part[p]);
            ck_assert_str_eq(m->label, "cell");
            ck_assert_str_eq(m->label_value, cell);
            ck_assert_uint_eq(m->count, p == 0 ? 1 : p == 1 ? 42 : ebf_idset_hash(42));
        }
    ebf_metrics_free(&ms);
}
END_TEST

/* Counted arrays stop at their array's size; a zero array has no maximum. */
START_TEST(test_walk_bounds)
{
    struct ebf_metrics ms;

    demo_fill();
    demo.n_nodes = 9;
    memset(demo.by_source, 0, sizeof(demo.by_source));
    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_counters_metrics(&demo_table, &demo, &ms);
    unsigned sent = 0;
    for (unsigned i = 0; i < ms.n; i++) {
        sent += strcmp(ms.m[i].name, "node.sent") == 0;
        ck_assert_str_ne(ms.m[i].name, "source.frames");
    }
    ck_assert_uint_eq(sent, 3);
    const struct ebf_metric *m = ebf_metrics_find(&ms, EBF_M_GAUGE, "busiest_source", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert(m->value == -1);
    ebf_metrics_free(&ms);
}
END_TEST

/* The label override marks every entry; a full list sets overflow. */
START_TEST(test_walk_label_and_overflow)
{
    struct two t = {.a = 1, .b = 2};
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 3), 0);
    ebf_counters_metrics_l(&two_table, &t, "port", "rx", &ms);
    ebf_counters_metrics_l(&two_table, &t, "port", "node0", &ms);
    ck_assert_uint_eq(ms.n, 3);
    ck_assert_int_eq(ms.overflow, 1);
    static const struct want want[] = {
        {EBF_M_COUNTER, "port.a", "port", "rx", 1},
        {EBF_M_COUNTER, "port.b", "port", "rx", 2},
        {EBF_M_COUNTER, "port.a", "port", "node0", 1},
    };
    for (unsigned i = 0; i < 3; i++)
        check(&ms.m[i], &want[i], i);
    ebf_metrics_free(&ms);
}
END_TEST

/* What the compiler found: types, sizes, offsets; lookups by name. */
START_TEST(test_descriptors)
{
    const struct ebf_counter *c = demo_table.c;

    ck_assert_uint_eq(demo_table.n, DEMO_M_MAX);
    ck_assert_int_eq(c[DEMO_M_FRAMES].type, EBF_CT_U64);
    ck_assert_int_eq(c[DEMO_M_LEVEL].type, EBF_CT_U32);
    ck_assert_int_eq(c[DEMO_M_FLAG].type, EBF_CT_U8);
    ck_assert_int_eq(c[DEMO_M_SIGNED].type, EBF_CT_INT);
    ck_assert_int_eq(c[DEMO_M_RATE].type, EBF_CT_DOUBLE);
    ck_assert_int_eq(c[DEMO_M_CREDITS].type, EBF_CT_U32);
    ck_assert_int_eq(c[DEMO_M_LAT_NS].type, EBF_CT_HIST);
    ck_assert_int_eq(c[DEMO_M_IDS].type, EBF_CT_IDSET);
    ck_assert_uint_eq(c[DEMO_M_REJECT].n, 4);
    ck_assert_uint_eq(c[DEMO_M_REJECT].first, 1);
    ck_assert_uint_eq(c[DEMO_M_NODE].count_off, offsetof(struct demo_stats, n_nodes));
    ck_assert_uint_eq(c[DEMO_M_CREDITS].off, offsetof(struct demo_stats, credits));
    ck_assert_uint_eq(c[DEMO_M_FRAMES].flags, EBF_CF_SUM);
    ck_assert_str_eq(c[DEMO_M_POOL_A].label_value, "a");
    ck_assert_ptr_eq(ebf_counters_find(&demo_table, "node.sent"), &c[DEMO_M_NODE]);
    ck_assert_ptr_null(ebf_counters_find(&demo_table, "node"));
    ck_assert_ptr_eq(ebf_counters_find(&demo_table, "ledger.ids.hash_sum"), &c[DEMO_M_IDS]);
    ck_assert_ptr_null(ebf_counters_find(&demo_table, "ledger.ids.sum"));
    const struct ebf_counter_table *const tables[] = {&two_table, &demo_table, NULL};
    ck_assert_ptr_eq(ebf_counters_find_in(tables, "rate"), &c[DEMO_M_RATE]);
    ck_assert_ptr_eq(ebf_counters_find_in(tables, "port.b"), &two_counters[1]);
    ck_assert_ptr_null(ebf_counters_find_in(tables, "nothing"));
    char key[16];
    ebf_counter_key(key, sizeof(key), "fault.dropped.source");
    ck_assert_str_eq(key, "fault_dropped_s");       /* cut to fit, still terminated */
    ebf_counter_key(key, sizeof(key), "rx.reject-x");
    ck_assert_str_eq(key, "rx_reject_x");
}
END_TEST

Suite *ebf_counters_suite(void);

Suite *ebf_counters_suite(void)
{
    Suite *s = suite_create("ebf_counters");
    TCase *tc = tcase_create("walk");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_walk_every_shape);
    tcase_add_test(tc, test_walk_bounds);
    tcase_add_test(tc, test_walk_label_and_overflow);
    tcase_add_test(tc, test_descriptors);
    suite_add_tcase(s, tc);
    return s;
}
