/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_fault.c - fault specs, the seeded decision stream, log-normal sizes and fault counters, without EAL. */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_metrics.h"
#include "ro_fault.h"
#include "ro_size.h"
#include "ro_stats.h"

#define ALL_KEYS "drop, dup, reorder, delay, corrupt_payload, corrupt_header, corrupt, " \
                 "window, delay_us, delay_frames, dup_frames"

/* Specs that parse, and the conf they give (the other fields at defaults). */
START_TEST(test_parse_good)
{
    static const struct {
        const char *spec;
        double p[RO_FK_MAX];     /* drop, dup, reorder, delay, corrupt_payload, corrupt_header */
        uint32_t window, delay_us, delay_frames;
    } t[] = {
        {"", {0}, 8, 1000, 0},
        {"drop=0.001,dup=0.001,reorder=0.01,corrupt=0.0005,delay=0.001",
         {0.001, 0.001, 0.01, 0.001, 0.0005, 0}, 8, 1000, 0},
        {"corrupt_header=0.25,corrupt_payload=0.25", {0, 0, 0, 0, 0.25, 0.25}, 8, 1000, 0},
        {"reorder=1,window=1024", {0, 0, 1, 0, 0, 0}, 1024, 1000, 0},
        {"delay=0.5,delay_us=0", {0, 0, 0, 0.5, 0, 0}, 8, 0, 0},
        {"delay=1e-3,delay_frames=16,window=1", {0, 0, 0, 0.001, 0, 0}, 1, 1000, 16},
        {"drop=0.5,dup=0.5", {0.5, 0.5, 0, 0, 0, 0}, 8, 1000, 0},
        {"drop=0", {0}, 8, 1000, 0},
    };
    char err[512];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ro_fault_conf fc;
        ro_fault_conf_init(&fc);
        err[0] = '\0';
        ck_assert_msg(ro_fault_parse(t[i].spec, &fc, err, sizeof(err)) == 0,
                      "\"%s\" refused: %s", t[i].spec, err);
        for (unsigned k = 0; k < RO_FK_MAX; k++)
            ck_assert_msg(fc.p[k] == t[i].p[k], "\"%s\": %s = %g, want %g", t[i].spec,
                          ro_fault_key(k), fc.p[k], t[i].p[k]);
        ck_assert_uint_eq(fc.window, t[i].window);
        ck_assert_uint_eq(fc.delay_us, t[i].delay_us);
        ck_assert_uint_eq(fc.delay_frames, t[i].delay_frames);
        ck_assert_uint_eq(fc.seed, 1);
        ck_assert_uint_eq(fc.silence_source, RO_FAULT_NO_SILENCE);
        ck_assert_uint_eq(fc.burst_events, 0);
        ck_assert_int_eq(ro_fault_conf_active(&fc), i != 0 && i != 7);
    }
}
END_TEST

/* Specs that are refused, with the exact message. */
START_TEST(test_parse_bad)
{
    static const struct {
        const char *spec, *err;
    } t[] = {
        {"foo=1", "unknown key 'foo' (allowed: " ALL_KEYS ")"},
        {"drop", "'drop' has no value (want drop=VALUE)"},
        {"drop=", "'drop': \"\" is not a probability in 0..1"},
        {"drop=1.5", "'drop': \"1.5\" is not a probability in 0..1"},
        {"dup=-0.1", "'dup': \"-0.1\" is not a probability in 0..1"},
        {"reorder=x", "'reorder': \"x\" is not a probability in 0..1"},
        {"corrupt=0.1%", "'corrupt': \"0.1%\" is not a probability in 0..1"},
        {"window=0", "'window': \"0\" is not an integer in 1..1024"},
        {"window=1025", "'window': \"1025\" is not an integer in 1..1024"},
        {"delay_us=-1", "'delay_us': \"-1\" is not an integer in 0..10000000"},
        {"delay_frames=2000", "'delay_frames': \"2000\" is not an integer in 0..1024"},
        {"dup_frames=1025", "'dup_frames': \"1025\" is not an integer in 0..1024"},
        {"dup=0.1,dup_frames=x", "'dup_frames': \"x\" is not an integer in 0..1024"},
        {"drop=0.1,,dup=0.1", "empty item (want key=value,key=value,...)"},
        {"drop=0.1,", "empty item (want key=value,key=value,...)"},
        {"drop=0.1,drop=0.2", "'drop' given twice"},
        {"corrupt=0.1,corrupt_payload=0.1", "'corrupt_payload' given twice"},
        {"drop=0.6,dup=0.6", "probabilities add up to 1.2, above 1 (a frame gets one fault at most)"},
        {"DROP=0.1", "unknown key 'DROP' (allowed: " ALL_KEYS ")"},
        {"seed=3", "unknown key 'seed' (allowed: " ALL_KEYS ")"},
    };
    char err[512];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ro_fault_conf fc;
        ro_fault_conf_init(&fc);
        err[0] = '\0';
        ck_assert_msg(ro_fault_parse(t[i].spec, &fc, err, sizeof(err)) == -EINVAL,
                      "\"%s\" accepted", t[i].spec);
        ck_assert_str_eq(err, t[i].err);
    }

    char big[1100];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct ro_fault_conf fc;
    ro_fault_conf_init(&fc);
    ck_assert_int_eq(ro_fault_parse(big, &fc, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "spec longer than 1023 characters");
}
END_TEST

START_TEST(test_parse_silence)
{
    static const struct {
        const char *val, *err;
        uint32_t source;
        uint64_t event;
    } t[] = {
        {"3@1000", NULL, 3, 1000},
        {"0@0", NULL, 0, 0},
        {"127@0x10", NULL, 127, 16},
        {"3", "\"3\" is not SOURCE@EVENT (for example 3@1000)", 0, 0},
        {"128@5", "\"128@5\": source \"128\" is not an integer in 0..127", 0, 0},
        {"a@5", "\"a@5\": source \"a\" is not an integer in 0..127", 0, 0},
        {"3@", "\"3@\": event \"\" is not an unsigned integer", 0, 0},
        {"3@-1", "\"3@-1\": event \"-1\" is not an unsigned integer", 0, 0},
    };
    char err[512];

    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ro_fault_conf fc;
        ro_fault_conf_init(&fc);
        err[0] = '\0';
        int rc = ro_fault_parse_silence(t[i].val, &fc, err, sizeof(err));
        if (t[i].err) {
            ck_assert_int_eq(rc, -EINVAL);
            ck_assert_str_eq(err, t[i].err);
            ck_assert_uint_eq(fc.silence_source, RO_FAULT_NO_SILENCE);
            continue;
        }
        ck_assert_msg(rc == 0, "\"%s\" refused: %s", t[i].val, err);
        ck_assert_uint_eq(fc.silence_source, t[i].source);
        ck_assert_uint_eq(fc.silence_event, t[i].event);
        ck_assert_int_eq(ro_fault_conf_active(&fc), 1);
    }
}
END_TEST

/* The same conf gives the same stream; another seed another one. */
START_TEST(test_decide_reproducible)
{
    struct ro_fault_conf fc;
    struct ro_fault_plan a, b, c;
    char err[256];
    unsigned differ = 0, faults = 0;

    ro_fault_conf_init(&fc);
    ck_assert_int_eq(ro_fault_parse("drop=0.1,dup=0.1,reorder=0.1,delay=0.1,corrupt=0.1,"
                                    "corrupt_header=0.1,window=5,delay_frames=3",
                                    &fc, err, sizeof(err)), 0);
    fc.seed = 42;
    ro_fault_plan_init(&a, &fc);
    ro_fault_plan_init(&b, &fc);
    fc.seed = 43;
    ro_fault_plan_init(&c, &fc);
    for (unsigned i = 0; i < 10000; i++) {
        uint32_t xa, xb, xc;
        enum ro_fault_kind ka = ro_fault_decide(&a, &xa);
        enum ro_fault_kind kb = ro_fault_decide(&b, &xb);
        enum ro_fault_kind kc = ro_fault_decide(&c, &xc);
        ck_assert_int_eq(ka, kb);
        ck_assert_uint_eq(xa, xb);
        differ += ka != kc;
        faults += ka != RO_FK_NONE;
    }
    /* Two independent streams with P(fault) = 0.6 agree on a frame with
     * probability 0.4^2 + 6 * 0.1^2 = 0.22: about 7800 of 10000 differ. */
    ck_assert_uint_gt(differ, 7000);
    ck_assert_uint_gt(faults, 5500);
    ck_assert_uint_lt(faults, 6500);
}
END_TEST

/*
 * Each kind comes up at its rate: 200000 draws, every count within 5
 * binomial standard deviations of n p (a false alarm about once in 10^6
 * seeds; the seed is fixed, so this run's outcome never changes). The
 * reorder distance covers 1..window uniformly, the delay is delay_frames.
 */
START_TEST(test_decide_rates)
{
    static const double p[RO_FK_MAX] = {0.1, 0.05, 0.2, 0.05, 0.1, 0.02};
    const unsigned n = 200000, window = 6;
    struct ro_fault_conf fc;
    struct ro_fault_plan pl;
    uint64_t count[RO_FK_MAX + 1] = {0}, dist[7] = {0};

    ro_fault_conf_init(&fc);
    memcpy(fc.p, p, sizeof(p));
    fc.window = window;
    fc.delay_frames = 9;
    fc.seed = 7;
    ro_fault_plan_init(&pl, &fc);
    for (unsigned i = 0; i < n; i++) {
        uint32_t arg;
        enum ro_fault_kind k = ro_fault_decide(&pl, &arg);
        ck_assert_int_le(k, RO_FK_NONE);
        count[k]++;
        if (k == RO_FK_REORDER) {
            ck_assert_uint_ge(arg, 1);
            ck_assert_uint_le(arg, window);
            dist[arg]++;
        } else if (k == RO_FK_DELAY) {
            ck_assert_uint_eq(arg, 9);
        } else if (k != RO_FK_CORRUPT_PAYLOAD) {
            ck_assert_uint_eq(arg, 0);
        }
    }
    double none = 1;
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        double mean = n * p[k], sd = sqrt(n * p[k] * (1 - p[k]));
        ck_assert_msg(fabs((double)count[k] - mean) < 5 * sd, "%s: %lu, want %.0f +- %.0f",
                      ro_fault_key(k), (unsigned long)count[k], mean, 5 * sd);
        none -= p[k];
    }
    double sd = sqrt(n * none * (1 - none));
    ck_assert_double_lt(fabs((double)count[RO_FK_NONE] - n * none), 5 * sd);
    /* Each of the 6 distances: count[REORDER] / 6 each, binomial again. */
    for (unsigned d = 1; d <= window; d++) {
        double m = (double)count[RO_FK_REORDER] / window;
        ck_assert_double_lt(fabs((double)dist[d] - m), 5 * sqrt(m * (1 - 1.0 / window)));
    }
}
END_TEST

/* Probability 0 never fires; probability 1 always does. */
START_TEST(test_decide_edges)
{
    struct ro_fault_conf fc;
    struct ro_fault_plan pl;
    uint32_t arg;

    ro_fault_conf_init(&fc);
    ro_fault_plan_init(&pl, &fc);
    for (unsigned i = 0; i < 10000; i++)
        ck_assert_int_eq(ro_fault_decide(&pl, &arg), RO_FK_NONE);
    for (unsigned k = 0; k < RO_FK_MAX; k++) {
        ro_fault_conf_init(&fc);
        fc.p[k] = 1;
        ro_fault_plan_init(&pl, &fc);
        for (unsigned i = 0; i < 10000; i++)
            ck_assert_int_eq(ro_fault_decide(&pl, &arg), k);
    }
    ck_assert_str_eq(ro_fault_key(RO_FK_CORRUPT_PAYLOAD), "corrupt_payload");
    ck_assert_str_eq(ro_fault_counter(RO_FK_DUP), "duplicated");
    ck_assert_str_eq(ro_fault_counter(RO_FK_MAX), "unknown");
}
END_TEST

/*
 * Log-normal sizes with mean 1000 and sd 300 over 100000 (source, event)
 * pairs. The sample mean has a standard error of 300 / sqrt(1e5) = 0.95
 * bytes; the sample sd one of sd * sqrt((kurtosis - 1) / 4n) = 0.9 bytes
 * (kurtosis 4.57 for sigma = 0.294). Both must be within 5 bytes,
 * over 5 standard errors. Sizes are a pure function of (seed, source, event).
 */
START_TEST(test_lognormal_sizes)
{
    double mu, sigma, sum = 0, sum2 = 0;
    const unsigned n = 100000;

    ro_size_lognormal_params(1000, 300, &mu, &sigma);
    ck_assert_double_eq_tol(sigma, sqrt(log(1.09)), 1e-12);
    ck_assert_double_eq_tol(mu, log(1000) - log(1.09) / 2, 1e-12);
    for (unsigned i = 0; i < n; i++) {
        uint16_t s = (uint16_t)(i % 8);
        uint64_t e = i / 8;
        uint32_t x = ro_size_lognormal(5, s, e, mu, sigma, 1, 1u << 20);
        ck_assert_uint_eq(ro_size_lognormal(5, s, e, mu, sigma, 1, 1u << 20), x);
        ck_assert_uint_ge(x, 1);
        sum += x;
        sum2 += (double)x * x;
    }
    double mean = sum / n, sd = sqrt((sum2 - sum * sum / n) / (n - 1));
    ck_assert_msg(fabs(mean - 1000) < 5, "mean %.2f, want 1000 +- 5", mean);
    ck_assert_msg(fabs(sd - 300) < 5, "sd %.2f, want 300 +- 5", sd);

    /* Clamps: [990, 1010] holds every size; sd 0 gives the mean itself. */
    unsigned lo = 0, hi = 0, differ = 0;
    for (uint64_t e = 0; e < 1000; e++) {
        uint32_t x = ro_size_lognormal(5, 1, e, mu, sigma, 990, 1010);
        ck_assert_uint_ge(x, 990);
        ck_assert_uint_le(x, 1010);
        lo += x == 990;
        hi += x == 1010;
        differ += ro_size_lognormal(6, 1, e, mu, sigma, 1, 1u << 20) !=
                  ro_size_lognormal(5, 1, e, mu, sigma, 1, 1u << 20);
    }
    ck_assert_uint_gt(lo, 400);      /* P(x < 990) is about 0.5 */
    ck_assert_uint_gt(hi, 400);
    ck_assert_uint_gt(differ, 900);  /* another seed, other sizes */
    ro_size_lognormal_params(1500, 0, &mu, &sigma);
    ck_assert_double_eq(sigma, 0);
    for (uint64_t e = 0; e < 100; e++)
        ck_assert_uint_eq(ro_size_lognormal(1, 0, e, mu, sigma, 1, 1u << 20), 1500);
}
END_TEST

/* The fault counters as the readout publishes them, written as stats lines, exactly. */
START_TEST(test_write_stats)
{
    static struct ro_snap snap;
    struct ro_fault_stats fs;
    struct ebf_metrics ms;
    char *buf = NULL;
    size_t len = 0;

    memset(&fs, 0, sizeof(fs));
    fs.frames_in = 100;
    for (unsigned k = 0; k < RO_FK_MAX; k++)
        fs.n[k] = k + 1;
    fs.silenced_frames = 7;
    fs.silenced_fragments = 5;
    fs.dup_failed = 8;
    fs.hold_full = 9;
    fs.burst_gaps = 10;
    fs.dropped_source[1] = 1;
    fs.dropped_source[2] = 99;          /* beyond n_sources: not written */
    fs.withheld_events = 1;
    fs.withheld_digest = ebf_mix64(42);
    ebf_idset_init(&fs.withheld);
    ebf_idset_add(&fs.withheld, 42);
    ck_assert_int_eq(ebf_metrics_init(&ms, 256), 0);
    snap.fault = fs;
    snap.n_sources = 2;
    ro_fault_metrics(&snap, &ms);
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ebf_metrics_write_kv(&ms, f);
    fclose(f);
    ebf_metrics_free(&ms);
    /* the id record: one cell per partition holds id 42 */
    char rec[1024];
    size_t o = 0;
    const char *part[3] = {"count", "id_sum", "hash_sum"};
    for (unsigned p = 0; p < 3; p++)
        for (unsigned k = 0; k < EBF_IDSET_PARTS; k++) {
            unsigned c = ebf_idset_cell(42, k);
            uint64_t v = p == 0 ? 1 : p == 1 ? 42 : ebf_idset_hash(42);
            o += (size_t)snprintf(rec + o, sizeof(rec) - o, "ledger.withheld.%s.%u %llu\n",
                                  part[p], c, (unsigned long long)v);
        }
    char want[4096];
    snprintf(want, sizeof(want),
             "fault.frames_in 100\n"
             "fault.dropped 1\n"
             "fault.duplicated 2\n"
             "fault.reordered 3\n"
             "fault.delayed 4\n"
             "fault.corrupted_payload 5\n"
             "fault.corrupted_header 6\n"
             "fault.silenced_frames 7\n"
             "fault.silenced_fragments 5\n"
             "fault.dup_failed 8\n"
             "fault.hold_full 9\n"
             "fault.burst_gaps 10\n"
             "fault.withheld_events 1\n"
             "fault.withheld_digest %llu\n"
             "%s"
             "fault.dropped.source.0 0\n"
             "fault.dropped.source.1 1\n",
             (unsigned long long)ebf_mix64(42), rec);
    ck_assert_str_eq(buf, want);
    free(buf);
}
END_TEST

Suite *ro_fault_suite(void);

Suite *ro_fault_suite(void)
{
    Suite *s = suite_create("fault");
    TCase *tc = tcase_create("plan");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_parse_good);
    tcase_add_test(tc, test_parse_bad);
    tcase_add_test(tc, test_parse_silence);
    tcase_add_test(tc, test_decide_reproducible);
    tcase_add_test(tc, test_decide_rates);
    tcase_add_test(tc, test_decide_edges);
    tcase_add_test(tc, test_lognormal_sizes);
    tcase_add_test(tc, test_write_stats);
    suite_add_tcase(s, tc);
    return s;
}
