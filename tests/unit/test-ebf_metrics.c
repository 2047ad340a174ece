/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_metrics.c - unit tests of metric lists, their stats-file form and protobuf snapshots. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_fsm.h"
#include "ebf_hist.h"
#include "ebf_kv.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"

static const char *reason_name(unsigned i)
{
    static const char *const names[] = {"none", "short", "crc", "late"};
    return i < 4 ? names[i] : "?";
}

/* A latency histogram with values across small, middle and high buckets. */
static void known_hist(struct ebf_hist *h)
{
    static const uint64_t vals[] = {0,       0,         3,          15,        16,
                                    17,      1000,      1000,       1001,      65535,
                                    1u << 20, 123456789, 4000000000u, 1ull << 40, 1ull << 62};
    ebf_hist_init(h);
    for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
        ebf_hist_add(h, vals[i]);
    for (unsigned i = 0; i < 500; i++)
        ebf_hist_add(h, 2000 + 37 * i);
}

/*
 * The list every round-trip test uses: plain and labelled counters, each
 * (with and without skip_zero), index, gauges and a histogram.
 */
static void known_list(struct ebf_metrics *ms, const struct ebf_hist *h)
{
    static const uint64_t reasons[] = {99, 0, 7, 4};
    static const uint64_t sources[] = {0, 2, 0, 5};

    ebf_metrics_counter(ms, "events", 4007);
    ebf_metrics_counter(ms, "bytes", 1ull << 42);
    ebf_metrics_counter_l(ms, "rx.reject", "reason", "bad_checksum", 3);
    ebf_metrics_counter_each(ms, "drop", "reason", reasons, 1, 4, reason_name, 1);
    ebf_metrics_counter_index(ms, "src.frames", "source", sources, 4, 1);
    ebf_metrics_counter(ms, "zero", 0);
    ebf_metrics_gauge(ms, "rate", NULL, NULL, 1.5);
    ebf_metrics_gauge(ms, "queue", "port", "0", 12.25);
    ebf_metrics_hist(ms, "latency", h);
}

/* The stats-file lines of known_list(), in list order. */
static const char known_kv_text[] =
    "events 4007\n"
    "bytes 4398046511104\n"
    "rx.reject.bad_checksum 3\n"
    "drop.crc 7\n"
    "drop.late 4\n"
    "src.frames.1 2\n"
    "src.frames.3 5\n"
    "zero 0\n";

static char *write_kv(const struct ebf_metrics *ms)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    ebf_metrics_write_kv(ms, f);
    ck_assert_int_eq(fclose(f), 0);
    return text;
}

static void check_metric(const struct ebf_metric *m, enum ebf_metric_kind k, const char *name,
                         const char *label, const char *label_value)
{
    ck_assert_int_eq(m->kind, k);
    ck_assert_str_eq(m->name, name);
    ck_assert_str_eq(m->label, label);
    ck_assert_str_eq(m->label_value, label_value);
}

/* The builder stores exactly what each call says, in call order. */
START_TEST(test_builder)
{
    struct ebf_metrics ms;
    struct ebf_hist h;

    known_hist(&h);
    ck_assert_int_eq(ebf_metrics_init(&ms, 32), 0);
    known_list(&ms, &h);
    ck_assert_uint_eq(ms.n, 11);
    ck_assert_int_eq(ms.overflow, 0);

    static const struct {
        enum ebf_metric_kind k;
        const char *name, *label, *lv;
        uint64_t count;
    } want[] = {
        {EBF_M_COUNTER, "events", "", "", 4007},
        {EBF_M_COUNTER, "bytes", "", "", 1ull << 42},
        {EBF_M_COUNTER, "rx.reject", "reason", "bad_checksum", 3},
        {EBF_M_COUNTER, "drop", "reason", "crc", 7},
        {EBF_M_COUNTER, "drop", "reason", "late", 4},
        {EBF_M_COUNTER, "src.frames", "source", "1", 2},
        {EBF_M_COUNTER, "src.frames", "source", "3", 5},
        {EBF_M_COUNTER, "zero", "", "", 0},
        {EBF_M_GAUGE, "rate", "", "", 0},
        {EBF_M_GAUGE, "queue", "port", "0", 0},
        {EBF_M_HIST, "latency", "", "", 0},
    };
    for (unsigned i = 0; i < ms.n; i++) {
        check_metric(&ms.m[i], want[i].k, want[i].name, want[i].label, want[i].lv);
        if (want[i].k == EBF_M_COUNTER)
            ck_assert_uint_eq(ms.m[i].count, want[i].count);
    }
    ck_assert(ms.m[8].value == 1.5);
    ck_assert(ms.m[9].value == 12.25);
    ck_assert_ptr_eq(ms.m[10].hist, &h);

    ebf_metrics_clear(&ms);
    ck_assert_uint_eq(ms.n, 0);
    ck_assert_uint_eq(ms.cap, 32);
    ebf_metrics_free(&ms);
    ck_assert_ptr_null(ms.m);
}
END_TEST

/* each and index without skip_zero keep the zero entries. */
START_TEST(test_each_index_keep_zero)
{
    static const uint64_t v[] = {99, 0, 7, 0};
    struct ebf_metrics ms;

    ck_assert_int_eq(ebf_metrics_init(&ms, 16), 0);
    ebf_metrics_counter_each(&ms, "drop", "reason", v, 1, 4, reason_name, 0);
    ebf_metrics_counter_index(&ms, "src", "source", v, 4, 0);
    ck_assert_uint_eq(ms.n, 7);
    static const struct {
        const char *name, *label, *lv;
        uint64_t count;
    } want[] = {
        {"drop", "reason", "short", 0}, {"drop", "reason", "crc", 7},
        {"drop", "reason", "late", 0},  {"src", "source", "0", 99},
        {"src", "source", "1", 0},      {"src", "source", "2", 7},
        {"src", "source", "3", 0},
    };
    for (unsigned i = 0; i < ms.n; i++) {
        check_metric(&ms.m[i], EBF_M_COUNTER, want[i].name, want[i].label, want[i].lv);
        ck_assert_uint_eq(ms.m[i].count, want[i].count);
    }
    ebf_metrics_free(&ms);
}
END_TEST

/* find: by kind, name and label value; NULL label value matches the first. */
START_TEST(test_find)
{
    struct ebf_metrics ms;
    struct ebf_hist h;

    known_hist(&h);
    ck_assert_int_eq(ebf_metrics_init(&ms, 32), 0);
    known_list(&ms, &h);
    static const struct {
        enum ebf_metric_kind k;
        const char *name, *lv;
        int index;               /* -1: not found */
    } t[] = {
        {EBF_M_COUNTER, "events", NULL, 0},
        {EBF_M_COUNTER, "events", "", 0},
        {EBF_M_COUNTER, "drop", NULL, 3},
        {EBF_M_COUNTER, "drop", "crc", 3},
        {EBF_M_COUNTER, "drop", "late", 4},
        {EBF_M_COUNTER, "drop", "short", -1},
        {EBF_M_COUNTER, "src.frames", "3", 6},
        {EBF_M_COUNTER, "rate", NULL, -1},
        {EBF_M_GAUGE, "rate", NULL, 8},
        {EBF_M_GAUGE, "queue", "0", 9},
        {EBF_M_GAUGE, "queue", "1", -1},
        {EBF_M_HIST, "latency", NULL, 10},
        {EBF_M_GAUGE, "latency", NULL, -1},
        {EBF_M_COUNTER, "event", NULL, -1},
        {EBF_M_COUNTER, "nothing", NULL, -1},
    };
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        const struct ebf_metric *m = ebf_metrics_find(&ms, t[i].k, t[i].name, t[i].lv);
        if (t[i].index < 0)
            ck_assert_msg(m == NULL, "find %s/%s: found", t[i].name, t[i].lv);
        else
            ck_assert_msg(m == &ms.m[t[i].index], "find %s/%s: wrong entry", t[i].name,
                          t[i].lv);
    }
    ebf_metrics_free(&ms);
}
END_TEST

/* At cap, further metrics are dropped and overflow is set; clear resets it. */
START_TEST(test_overflow)
{
    struct ebf_metrics ms;
    static const uint64_t v[] = {1, 2, 3, 4};

    ck_assert_int_eq(ebf_metrics_init(&ms, 3), 0);
    ebf_metrics_counter(&ms, "a", 1);
    ebf_metrics_gauge(&ms, "b", NULL, NULL, 2);
    ck_assert_int_eq(ms.overflow, 0);
    ebf_metrics_counter(&ms, "c", 3);
    ck_assert_uint_eq(ms.n, 3);
    ck_assert_int_eq(ms.overflow, 0);
    ebf_metrics_counter_index(&ms, "d", "i", v, 4, 0);
    ebf_metrics_hist(&ms, "e", NULL);
    ck_assert_uint_eq(ms.n, 3);
    ck_assert_int_eq(ms.overflow, 1);
    ck_assert_str_eq(ms.m[2].name, "c");
    ck_assert_uint_eq(ms.m[2].count, 3);
    ck_assert_ptr_null(ebf_metrics_find(&ms, EBF_M_COUNTER, "d", NULL));

    ebf_metrics_clear(&ms);
    ck_assert_uint_eq(ms.n, 0);
    ck_assert_int_eq(ms.overflow, 0);
    ebf_metrics_counter(&ms, "f", 6);
    ck_assert_uint_eq(ms.n, 1);
    ck_assert_str_eq(ms.m[0].name, "f");
    ebf_metrics_free(&ms);
}
END_TEST

/* Names and labels longer than their fields are cut, not overrun. */
START_TEST(test_truncation)
{
    struct ebf_metrics ms;
    char longname[100], want[100];

    memset(longname, 'n', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    ck_assert_int_eq(ebf_metrics_init(&ms, 2), 0);
    ebf_metrics_counter_l(&ms, longname, longname, longname, 1);
    memset(want, 'n', 39);
    want[39] = '\0';
    ck_assert_str_eq(ms.m[0].name, want);
    ck_assert_str_eq(ms.m[0].label_value, want);
    want[15] = '\0';
    ck_assert_str_eq(ms.m[0].label, want);
    ebf_metrics_free(&ms);
}
END_TEST

/* Stats-file form: counters with ".label" keys, histograms under hist., no gauges. */
START_TEST(test_write_kv)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    char want[8192];
    size_t o;

    ebf_hist_init(&h);
    ebf_hist_add(&h, 5);
    ebf_hist_add(&h, 5);
    ebf_hist_add(&h, 17);
    ebf_hist_add(&h, 1000);
    ck_assert_int_eq(ebf_metrics_init(&ms, 32), 0);
    known_list(&ms, &h);
    char *text = write_kv(&ms);
    o = (size_t)snprintf(want, sizeof(want), "%s", known_kv_text);
    snprintf(want + o, sizeof(want) - o,
             "hist.latency.count 4\n"
             "hist.latency.sum 1027\n"
             "hist.latency.min 5\n"
             "hist.latency.max 1000\n"
             "hist.latency.bucket.5 2\n"
             "hist.latency.bucket.16 1\n"
             "hist.latency.bucket.%u 1\n",
             ebf_hist_bucket(1000));
    ck_assert_str_eq(text, want);
    free(text);

    /* An empty histogram writes min 0 and no buckets. */
    ebf_metrics_clear(&ms);
    ebf_hist_init(&h);
    ebf_metrics_hist(&ms, "empty", &h);
    ebf_metrics_gauge(&ms, "g", NULL, NULL, 3);
    text = write_kv(&ms);
    ck_assert_str_eq(text, "hist.empty.count 0\n"
                           "hist.empty.sum 0\n"
                           "hist.empty.min 0\n"
                           "hist.empty.max 0\n");
    free(text);
    ebf_metrics_free(&ms);
}
END_TEST

/* Pack a snapshot and unpack it, as a receiver does. */
static Ebfarm__Snapshot *round_trip(const struct ebf_metrics *ms, const char *component,
                                    const char *instance, uint64_t seq, uint32_t run, int state)
{
    Ebfarm__Snapshot *s = ebf_pb_snapshot(ms, component, instance, seq, run, state);

    ck_assert_ptr_nonnull(s);
    size_t n = ebfarm__snapshot__get_packed_size(s);
    uint8_t *buf = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(ebfarm__snapshot__pack(s, buf), n);
    ebf_pb_snapshot_free(s);
    Ebfarm__Snapshot *r = ebfarm__snapshot__unpack(NULL, n, buf);
    free(buf);
    ck_assert_ptr_nonnull(r);
    return r;
}

static void check_hist_equal(const struct ebf_hist *a, const struct ebf_hist *b)
{
    static const double qs[] = {0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1};

    ck_assert_uint_eq(a->count, b->count);
    ck_assert_uint_eq(a->sum, b->sum);
    ck_assert_uint_eq(a->min, b->min);
    ck_assert_uint_eq(a->max, b->max);
    for (unsigned k = 0; k < EBF_HIST_BUCKETS; k++)
        ck_assert_msg(a->bucket[k] == b->bucket[k], "bucket %u: %llu != %llu", k,
                      (unsigned long long)a->bucket[k], (unsigned long long)b->bucket[k]);
    for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
        ck_assert_uint_eq(ebf_hist_quantile(a, qs[i]), ebf_hist_quantile(b, qs[i]));
}

/* Header, counters, gauges and the histogram come back exactly. */
START_TEST(test_pb_round_trip)
{
    struct ebf_metrics ms;
    struct ebf_hist h, back;

    known_hist(&h);
    ck_assert_int_eq(ebf_metrics_init(&ms, 32), 0);
    known_list(&ms, &h);
    Ebfarm__Snapshot *s = round_trip(&ms, "readout", "ro0", 42, 7, EBF_S_PAUSED);

    ck_assert_str_eq(s->component, "readout");
    ck_assert_str_eq(s->instance, "ro0");
    ck_assert_uint_eq(s->seq, 42);
    ck_assert_uint_eq(s->run_number, 7);
    ck_assert_int_eq(s->state, EBFARM__STATE__PAUSED);
    ck_assert_uint_eq(s->n_counters, 8);
    ck_assert_uint_eq(s->n_gauges, 2);
    ck_assert_uint_eq(s->n_histograms, 1);

    static const struct {
        const char *name, *lv;
        uint64_t v;
    } c[] = {
        {"events", NULL, 4007},      {"bytes", NULL, 1ull << 42},
        {"rx.reject", "bad_checksum", 3}, {"drop", "crc", 7},
        {"drop", "late", 4},         {"src.frames", "1", 2},
        {"src.frames", "3", 5},      {"zero", NULL, 0},
        /* absent: the default comes back */
        {"drop", "short", 999},      {"drop", NULL, 999},
        {"events", "x", 999},        {"nothing", NULL, 999},
        {"rate", NULL, 999},
    };
    for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        ck_assert_msg(ebf_pb_counter(s, c[i].name, c[i].lv, 999) == c[i].v, "counter %s/%s",
                      c[i].name, c[i].lv);
    /* Labels keep their names. */
    ck_assert_uint_eq(s->counters[2]->n_labels, 1);
    ck_assert_str_eq(s->counters[2]->labels[0]->name, "reason");
    ck_assert_str_eq(s->counters[5]->labels[0]->name, "source");
    ck_assert_uint_eq(s->counters[0]->n_labels, 0);

    ck_assert(ebf_pb_gauge(s, "rate", NULL, -1) == 1.5);
    ck_assert(ebf_pb_gauge(s, "queue", "0", -1) == 12.25);
    ck_assert(ebf_pb_gauge(s, "queue", NULL, -1) == -1);
    ck_assert(ebf_pb_gauge(s, "events", NULL, -1) == -1);
    ck_assert_str_eq(s->gauges[1]->labels[0]->name, "port");

    ck_assert_ptr_null(ebf_pb_find_hist(s, "nothing"));
    ck_assert_ptr_null(ebf_pb_find_hist(s, "events"));
    const Ebfarm__Histogram *ph = ebf_pb_find_hist(s, "latency");
    ck_assert_ptr_nonnull(ph);
    ck_assert_str_eq(ph->unit, "ns");
    ck_assert_uint_eq(ph->count, 515);
    ck_assert_uint_eq(ph->min, 0);
    ck_assert_uint_eq(ph->max, 1ull << 62);
    /* Only the non-empty buckets travel, in increasing order. */
    unsigned nonempty = 0;
    for (unsigned k = 0; k < EBF_HIST_BUCKETS; k++)
        nonempty += h.bucket[k] != 0;
    ck_assert_uint_eq(ph->n_bucket_index, nonempty);
    ck_assert_uint_eq(ph->n_bucket_count, nonempty);
    for (size_t k = 1; k < ph->n_bucket_index; k++)
        ck_assert_uint_gt(ph->bucket_index[k], ph->bucket_index[k - 1]);
    ck_assert_int_eq(ebf_pb_hist(ph, &back), 0);
    check_hist_equal(&back, &h);

    ebfarm__snapshot__free_unpacked(s, NULL);
    ebf_metrics_free(&ms);
}
END_TEST

/* An empty list and an empty histogram survive the trip too. */
START_TEST(test_pb_empty)
{
    struct ebf_metrics ms;
    struct ebf_hist h, back;

    ck_assert_int_eq(ebf_metrics_init(&ms, 4), 0);
    Ebfarm__Snapshot *s = round_trip(&ms, "node", "n1", 1, 0, EBF_S_INITIAL);
    ck_assert_str_eq(s->component, "node");
    ck_assert_str_eq(s->instance, "n1");
    ck_assert_int_eq(s->state, EBFARM__STATE__INITIAL);
    ck_assert_uint_eq(s->n_counters, 0);
    ck_assert_uint_eq(s->n_gauges, 0);
    ck_assert_uint_eq(s->n_histograms, 0);
    ck_assert_uint_eq(ebf_pb_counter(s, "events", NULL, 5), 5);
    ebfarm__snapshot__free_unpacked(s, NULL);

    ebf_hist_init(&h);
    ebf_metrics_hist(&ms, "empty", &h);
    s = round_trip(&ms, "node", "n1", 2, 0, EBF_S_INITIAL);
    const Ebfarm__Histogram *ph = ebf_pb_find_hist(s, "empty");
    ck_assert_ptr_nonnull(ph);
    ck_assert_uint_eq(ph->count, 0);
    ck_assert_uint_eq(ph->min, 0);
    ck_assert_uint_eq(ph->n_bucket_index, 0);
    ck_assert_int_eq(ebf_pb_hist(ph, &back), 0);
    check_hist_equal(&back, &h);
    ck_assert_uint_eq(back.min, UINT64_MAX);
    ebfarm__snapshot__free_unpacked(s, NULL);
    ebf_metrics_free(&ms);
}
END_TEST

/* A malformed histogram is refused: mismatched arrays, an index out of range. */
START_TEST(test_pb_hist_invalid)
{
    uint32_t idx[2] = {3, EBF_HIST_BUCKETS};
    uint64_t cnt[2] = {1, 1};
    Ebfarm__Histogram ph = EBFARM__HISTOGRAM__INIT;
    struct ebf_hist h;

    ph.count = 2;
    ph.bucket_index = idx;
    ph.bucket_count = cnt;
    ph.n_bucket_index = 2;
    ph.n_bucket_count = 1;
    ck_assert_int_eq(ebf_pb_hist(&ph, &h), -EINVAL);
    ph.n_bucket_count = 2;
    ck_assert_int_eq(ebf_pb_hist(&ph, &h), -EINVAL);
    idx[1] = EBF_HIST_BUCKETS - 1;
    ck_assert_int_eq(ebf_pb_hist(&ph, &h), 0);
    ck_assert_uint_eq(h.bucket[3], 1);
    ck_assert_uint_eq(h.bucket[EBF_HIST_BUCKETS - 1], 1);
    ck_assert_uint_eq(h.count, 2);
}
END_TEST

static int pair_cmp(const void *a, const void *b)
{
    const struct ebf_kv_pair *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->val, y->val);
}

/* Parse "key value" lines into pairs. */
static void parse_lines(char *text, struct ebf_kv *kv)
{
    unsigned cap = 64;

    kv->n = 0;
    kv->pair = calloc(cap, sizeof(*kv->pair));
    ck_assert_ptr_nonnull(kv->pair);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (kv->n == cap) {
            cap *= 2;
            kv->pair = realloc(kv->pair, cap * sizeof(*kv->pair));
            ck_assert_ptr_nonnull(kv->pair);
        }
        ck_assert_int_eq(sscanf(line, "%95s %63s", kv->pair[kv->n].key, kv->pair[kv->n].val),
                         2);
        kv->n++;
    }
}

/* The snapshot's key/value pairs are exactly the stats file's (as sets). */
START_TEST(test_pb_kv_matches_write_kv)
{
    struct ebf_metrics ms;
    struct ebf_hist h;
    struct ebf_kv from_file, from_pb;

    known_hist(&h);
    ck_assert_int_eq(ebf_metrics_init(&ms, 32), 0);
    known_list(&ms, &h);
    char *text = write_kv(&ms);
    parse_lines(text, &from_file);
    free(text);

    Ebfarm__Snapshot *s = round_trip(&ms, "sfc", "sfc", 3, 2, EBF_S_RUNNING);
    ck_assert_int_eq(ebf_pb_snapshot_kv(s, &from_pb), 0);
    ebfarm__snapshot__free_unpacked(s, NULL);

    unsigned nonempty = 0;
    for (unsigned k = 0; k < EBF_HIST_BUCKETS; k++)
        nonempty += h.bucket[k] != 0;
    ck_assert_uint_eq(from_file.n, 8 + 4 + nonempty);
    ck_assert_uint_eq(from_pb.n, from_file.n);
    qsort(from_file.pair, from_file.n, sizeof(*from_file.pair), pair_cmp);
    qsort(from_pb.pair, from_pb.n, sizeof(*from_pb.pair), pair_cmp);
    for (unsigned i = 0; i < from_pb.n; i++) {
        ck_assert_str_eq(from_pb.pair[i].key, from_file.pair[i].key);
        ck_assert_str_eq(from_pb.pair[i].val, from_file.pair[i].val);
    }
    /* Keys are unique, so the sorted lists being equal means the sets are. */
    for (unsigned i = 1; i < from_pb.n; i++)
        ck_assert_str_ne(from_pb.pair[i].key, from_pb.pair[i - 1].key);
    ck_assert_uint_eq(ebf_kv_u64(&from_pb, "drop.crc", 0), 7);
    ck_assert_uint_eq(ebf_kv_u64(&from_pb, "hist.latency.count", 0), 515);
    ebf_kv_free(&from_pb);
    ebf_kv_free(&from_file);
    ebf_metrics_free(&ms);
}
END_TEST

Suite *ebf_metrics_suite(void);

Suite *ebf_metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *list = tcase_create("list");
    TCase *pb = tcase_create("pb");

    tcase_set_timeout(list, 10);
    tcase_add_test(list, test_builder);
    tcase_add_test(list, test_each_index_keep_zero);
    tcase_add_test(list, test_find);
    tcase_add_test(list, test_overflow);
    tcase_add_test(list, test_truncation);
    tcase_add_test(list, test_write_kv);
    suite_add_tcase(s, list);

    tcase_set_timeout(pb, 10);
    tcase_add_test(pb, test_pb_round_trip);
    tcase_add_test(pb, test_pb_empty);
    tcase_add_test(pb, test_pb_hist_invalid);
    tcase_add_test(pb, test_pb_kv_matches_write_kv);
    suite_add_tcase(s, pb);
    return s;
}
