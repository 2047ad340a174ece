/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_cycles.c - busy-cycle accounting driven by a scripted cycle counter, and its metrics. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_idle.h"

/*
 * The accounting reads this counter instead of the TSC: the script's clock
 * plus SLEEP_CYCLES for every back-off sleep the watched ebf_idle has taken,
 * as if each sleep lasted that long. A read made before a pass's sleep would
 * miss it and charge it to the next pass.
 */
#define SLEEP_CYCLES 1000000ull

static uint64_t script_clock;
static const struct ebf_idle *watched;
static unsigned reads;

static uint64_t fake_tsc(void)
{
    reads++;
    return script_clock + watched->sleeps * SLEEP_CYCLES;
}

#define EBF_CYCLES_TSC() fake_tsc()
#include "ebf_cycles.h"

struct pass {
    uint64_t cost;               /* cycles the pass takes before its back-off */
    unsigned work;
    unsigned sleeps;             /* back-off sleeps it takes (spin 2, pause 1) */
};

/* Busy, idle, idle, pause, sleep, sleep, busy (a sleep just before it),
 * idle, busy, idle x4 (one sleep), busy. */
static const struct pass script[] = {
    {300, 5, 0}, {40, 0, 0}, {40, 0, 0}, {41, 0, 0}, {42, 0, 1}, {43, 0, 1}, {500, 2, 0},
    {44, 0, 0}, {700, 1, 0}, {45, 0, 0}, {46, 0, 0}, {47, 0, 0}, {48, 0, 1}, {900, 32, 0},
};
#define N_PASSES (sizeof(script) / sizeof(script[0]))

static void idle_for_test(struct ebf_idle *idle)
{
    ebf_idle_init(idle, EBF_IDLE_BACKOFF);
    idle->spin = 2;
    idle->pause = 1;
    idle->max_sleep_us = 1;      /* real sleeps, kept short */
    watched = idle;
}

/* Exact busy and idle cycles and passes over the script, one counter read a
 * pass, each sleep charged to the idle pass that took it. */
START_TEST(test_scripted_passes)
{
    struct ebf_idle idle;
    struct ebf_cycles c;
    uint64_t busy = 0, idle_cycles = 0, bp = 0, ip = 0, sleeps = 0;

    idle_for_test(&idle);
    script_clock = 123456;
    reads = 0;
    ebf_cycles_start(&c);
    ck_assert_uint_eq(reads, 1);
    ck_assert_uint_eq(c.last, 123456);
    for (unsigned i = 0; i < N_PASSES; i++) {
        const struct pass *p = &script[i];
        script_clock += p->cost;
        ebf_cycles_pass_end(&c, &idle, p->work);
        sleeps += p->sleeps;
        ck_assert_msg(idle.sleeps == sleeps, "pass %u: %lu sleeps, want %lu", i,
                      (unsigned long)idle.sleeps, (unsigned long)sleeps);
        if (p->work) {
            busy += p->cost;
            bp++;
        } else {
            idle_cycles += p->cost + p->sleeps * SLEEP_CYCLES;
            ip++;
        }
        ck_assert_uint_eq(c.busy_cycles, busy);
        ck_assert_uint_eq(c.idle_cycles, idle_cycles);
        ck_assert_uint_eq(c.busy_passes, bp);
        ck_assert_uint_eq(c.idle_passes, ip);
    }
    ck_assert_uint_eq(reads, 1 + N_PASSES);
    ck_assert_uint_eq(busy, 300 + 500 + 700 + 900);
    ck_assert_uint_eq(idle_cycles, 40 + 40 + 41 + 42 + 43 + 44 + 45 + 46 + 47 + 48 +
                                   3 * SLEEP_CYCLES);
    ck_assert_uint_eq(bp, 4);
    ck_assert_uint_eq(ip, 10);
    /* Every cycle since the start is in one of the two. */
    ck_assert_uint_eq(c.busy_cycles + c.idle_cycles, c.last - 123456);
}
END_TEST

/* Stopped: passes back off but read no counter and change nothing; a new
 * start counts afresh from its own read. A NULL accounting backs off only. */
START_TEST(test_stop_and_restart)
{
    struct ebf_idle idle;
    struct ebf_cycles c, before;

    idle_for_test(&idle);
    script_clock = 0;
    reads = 0;
    ebf_cycles_start(&c);
    script_clock += 100;
    ebf_cycles_pass_end(&c, &idle, 1);
    ebf_cycles_stop(&c);
    before = c;
    for (unsigned i = 0; i < 6; i++) {
        script_clock += 10;
        ebf_cycles_pass_end(&c, &idle, 0);
        ebf_cycles_note(&c, 1);
    }
    ck_assert_uint_eq(reads, 2);
    ck_assert_int_eq(memcmp(&c, &before, sizeof(c)), 0);
    ck_assert_uint_eq(idle.sleeps, 3);       /* the back-off went on */
    ebf_cycles_pass_end(NULL, &idle, 0);
    ck_assert_uint_eq(idle.sleeps, 4);
    ck_assert_uint_eq(reads, 2);

    ebf_cycles_start(&c);
    ck_assert_uint_eq(reads, 3);
    ck_assert_uint_eq(c.busy_cycles + c.idle_cycles + c.busy_passes + c.idle_passes, 0);
    script_clock += 7;
    ebf_cycles_note(&c, 0);
    ck_assert_uint_eq(c.idle_cycles, 7);
    ck_assert_uint_eq(c.idle_passes, 1);
    ck_assert_uint_eq(c.busy_passes, 0);
}
END_TEST

/* One struct per lcore, on a cache line of its own. */
START_TEST(test_cache_aligned)
{
    struct ebf_cycles per_lcore[2];

    ck_assert_uint_eq(_Alignof(struct ebf_cycles), RTE_CACHE_LINE_SIZE);
    ck_assert_uint_eq(sizeof(struct ebf_cycles) % RTE_CACHE_LINE_SIZE, 0);
    ck_assert_uint_eq((uintptr_t)&per_lcore[1] - (uintptr_t)&per_lcore[0], RTE_CACHE_LINE_SIZE);
}
END_TEST

/* Two loops' counters as the metrics every daemon lists: four counters per
 * loop labelled lcore="<index>", then the gauge tsc_hz. */
START_TEST(test_metrics)
{
    struct ebf_cycles c[2] = {
        {.busy_cycles = 11, .idle_cycles = 12, .busy_passes = 13, .idle_passes = 14},
        {.busy_cycles = 21, .idle_cycles = 22, .busy_passes = 23, .idle_passes = 24},
    };
    static const struct {
        const char *name, *lcore;
        uint64_t v;
    } want[] = {
        {"lcore.busy_cycles", "0", 11}, {"lcore.busy_cycles", "1", 21},
        {"lcore.idle_cycles", "0", 12}, {"lcore.idle_cycles", "1", 22},
        {"lcore.busy_passes", "0", 13}, {"lcore.busy_passes", "1", 23},
        {"lcore.idle_passes", "0", 14}, {"lcore.idle_passes", "1", 24},
    };
    struct ebf_lcore_stats ls;
    struct ebf_metrics ms;

    ebf_cycles_read(c, 2, 2200000000ull, &ls);
    ck_assert_uint_eq(ls.n, 2);
    ck_assert_int_eq(ebf_metrics_init(&ms, 64), 0);
    ebf_lcore_metrics(&ls, &ms);
    ck_assert_uint_eq(ms.n, 9);
    for (unsigned i = 0; i < 8; i++) {
        const struct ebf_metric *m = &ms.m[i];
        ck_assert_int_eq(m->kind, EBF_M_COUNTER);
        ck_assert_str_eq(m->name, want[i].name);
        ck_assert_str_eq(m->label, "lcore");
        ck_assert_str_eq(m->label_value, want[i].lcore);
        ck_assert_uint_eq(m->count, want[i].v);
    }
    ck_assert_int_eq(ms.m[8].kind, EBF_M_GAUGE);
    ck_assert_str_eq(ms.m[8].name, "tsc_hz");
    ck_assert_str_eq(ms.m[8].label, "");
    ck_assert(ms.m[8].value == 2.2e9);
    ck_assert_str_eq(EBF_LCORE_NAME(BUSY_CYCLES), "lcore.busy_cycles");
    ebf_metrics_free(&ms);

    /* More loops than a snapshot holds: the first EBF_LCORE_STATS_MAX. */
    struct ebf_cycles many[EBF_LCORE_STATS_MAX + 1];
    memset(many, 0, sizeof(many));
    many[EBF_LCORE_STATS_MAX - 1].busy_passes = 5;
    ebf_cycles_read(many, EBF_LCORE_STATS_MAX + 1, 1, &ls);
    ck_assert_uint_eq(ls.n, EBF_LCORE_STATS_MAX);
    ck_assert_uint_eq(ls.busy_passes[EBF_LCORE_STATS_MAX - 1], 5);
}
END_TEST

Suite *ebf_cycles_suite(void);

Suite *ebf_cycles_suite(void)
{
    Suite *s = suite_create("ebf_cycles");
    TCase *tc = tcase_create("cycles");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_scripted_passes);
    tcase_add_test(tc, test_stop_and_restart);
    tcase_add_test(tc, test_cache_aligned);
    tcase_add_test(tc, test_metrics);
    suite_add_tcase(s, tc);
    return s;
}
