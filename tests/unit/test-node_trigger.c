/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_trigger.c - Check unit tests of trigger plug-ins: loading and refusals, the threshold example's decisions, the emulation as a .so, the crash and hang guard. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "node_decide.h"
#include "node_trigger.h"

#define T_TIMEOUT 30

static char path_buf[512];

/* A shared object of the build tree, by its path under the build dir. */
static const char *built(const char *rel)
{
    const char *dir = getenv("EBFARM_BUILD_DIR");

    ck_assert_msg(dir != NULL, "EBFARM_BUILD_DIR is not set");
    snprintf(path_buf, sizeof(path_buf), "%s/%s", dir, rel);
    return path_buf;
}

#define THRESHOLD_SO "plugins/threshold/ebf-trigger-threshold.so"

/* Load the threshold plug-in with params and run init; 0 or -EINVAL. */
static int threshold_start(struct node_trigger *t, const char *const *kv, void **state,
                           char *err, size_t len)
{
    memset(t, 0, sizeof(*t));
    ck_assert_int_eq(node_trigger_load(t, built(THRESHOLD_SO), err, len), 0);
    for (; *kv; kv++)
        ck_assert_int_eq(node_trigger_param_add(t, *kv, err, len), 0);
    struct ebf_trigger_run run = {.run_number = 7, .n_params = t->n_params,
                                  .params = t->params};
    return t->p->init(&run, state, err, len);
}

START_TEST(test_refuse_abi)
{
    struct node_trigger t = {0};
    char err[512], want[1024];
    const char *p = built("tests/unit/bad-abi-plugin.so");

    ck_assert_int_eq(node_trigger_load(&t, p, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "trigger plug-in %s: ABI version %u, this node wants %u "
             "(rebuild it against this ebfarm's ebfarm/trigger.h)", p,
             EBF_TRIGGER_ABI_VERSION + 41, EBF_TRIGGER_ABI_VERSION);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(t.p);
}
END_TEST

START_TEST(test_refuse_nosym_nofile)
{
    struct node_trigger t = {0};
    char err[512], want[1024];
    const char *p = built("tests/unit/nosym-plugin.so");

    ck_assert_int_eq(node_trigger_load(&t, p, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "trigger plug-in %s: no symbol 'ebf_trigger_plugin' (a "
             "plug-in defines 'const struct ebf_trigger_plugin ebf_trigger_plugin', "
             "ebfarm/trigger.h)", p);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(node_trigger_load(&t, "/nonexistent/x.so", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "trigger plug-in /nonexistent/x.so: cannot load: /nonexistent/x.so: "
                     "cannot open shared object file: No such file or directory");
}
END_TEST

START_TEST(test_params)
{
    struct node_trigger t = {0};
    char err[256];

    ck_assert_int_eq(node_trigger_param_add(&t, "a=1", err, sizeof(err)), 0);
    ck_assert_int_eq(node_trigger_param_add(&t, "b==2", err, sizeof(err)), 0);
    ck_assert_str_eq(t.params[1].key, "b");
    ck_assert_str_eq(t.params[1].value, "=2");
    ck_assert_int_eq(node_trigger_param_add(&t, "a=3", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "'a=3': trigger parameter 'a' given twice");
    ck_assert_int_eq(node_trigger_param_add(&t, "=3", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "'=3': a trigger parameter is KEY=VALUE");
    ck_assert_int_eq(node_trigger_param_add(&t, "novalue", err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "'novalue': a trigger parameter is KEY=VALUE");
    ck_assert_uint_eq(t.n_params, 2);
}
END_TEST

START_TEST(test_threshold_refusals)
{
    static const struct {
        const char *kv[4];
        const char *err;
    } cases[] = {
        {{"threshold=1", NULL}, "parameter 'sources' is required"},
        {{"sources=0", NULL}, "parameter 'threshold' is required"},
        {{"sources=0", "threshold=1", "bogus=2", NULL},
         "unknown parameter 'bogus' (known: sources threshold word)"},
        {{"sources=0,128", "threshold=1", NULL},
         "parameter 'sources': '0,128' is not a list of source ids 0..127 separated by commas"},
        {{"sources=3,3", "threshold=1", NULL},
         "parameter 'sources': '3,3' names source 3 twice"},
        {{"sources=1,", "threshold=1", NULL}, "parameter 'sources': '1,' ends with a comma"},
        {{"sources=1", "threshold=-4", NULL},
         "parameter 'threshold': '-4' is not an integer 0..18446744073709551615"},
        {{"sources=1", "threshold=1", "word=u16", NULL}, "parameter 'word': 'u16' (allowed: u32)"},
    };
    struct node_trigger t;
    char err[256];
    void *state = NULL;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        err[0] = '\0';
        ck_assert_int_ne(threshold_start(&t, cases[i].kv, &state, err, sizeof(err)), 0);
        ck_assert_str_eq(err, cases[i].err);
        node_trigger_unload(&t);
    }
    /* Through node_trigger_check, the refusal carries the plug-in's name. */
    memset(&t, 0, sizeof(t));
    ck_assert_int_eq(node_trigger_load(&t, built(THRESHOLD_SO), err, sizeof(err)), 0);
    ck_assert_int_eq(node_trigger_param_add(&t, "sources=0", err, sizeof(err)), 0);
    ck_assert_int_eq(node_trigger_check(&t, 0, err, sizeof(err)), -EINVAL);
    ck_assert_str_eq(err, "trigger plug-in 'threshold': parameter 'threshold' is required");
    node_trigger_unload(&t);
}
END_TEST

/* An event of 4 sources: source 0 holds the words 1, 2 and 0x01000000
 * split over pieces of 3, 6 and 3 bytes (words straddle pieces); source 1
 * the word 1000; source 3 the word 7 and 2 trailing bytes (no word). */
static const uint8_t s0[12] = {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 1};
static const uint8_t s1[4] = {0xe8, 0x03, 0, 0};
static const uint8_t s3[6] = {7, 0, 0, 0, 0xff, 0xff};
static const struct ebf_trigger_piece p0[] = {{s0, 3}, {s0 + 3, 6}, {s0 + 9, 3}};
static const struct ebf_trigger_piece p1[] = {{s1, 4}};
static const struct ebf_trigger_piece p3[] = {{s3, 2}, {s3 + 2, 4}};
#define S0_SUM (1u + 2u + 0x01000000u)

static struct ebf_trigger_event crafted(int with3)
{
    static struct ebf_trigger_fragment f[4];

    f[0] = (struct ebf_trigger_fragment){12, 3, p0};
    f[1] = (struct ebf_trigger_fragment){4, 1, p1};
    f[2] = (struct ebf_trigger_fragment){0, 0, NULL};
    f[3] = with3 ? (struct ebf_trigger_fragment){6, 2, p3}
                 : (struct ebf_trigger_fragment){0, 0, NULL};
    return (struct ebf_trigger_event){
        .event_id = 99, .run_number = 7, .n_sources = 4,
        .flags = with3 ? 0 : EBF_TRIGGER_EVF_INCOMPLETE,
        .present = {with3 ? 0xbu : 0x3u, 0}, .fragments = f,
    };
}

/* The decision of threshold on the crafted event with source 3 or not. */
static int decide_at(const char *sources, unsigned long long thr, int with3)
{
    char s[64], th[64], err[256];
    const char *kv[] = {s, th, "word=u32", NULL};
    struct node_trigger t;
    void *state = NULL;
    struct ebf_trigger_decision d = {.accept = -1, .stream = 9};

    snprintf(s, sizeof(s), "sources=%s", sources);
    snprintf(th, sizeof(th), "threshold=%llu", thr);
    ck_assert_int_eq(threshold_start(&t, kv, &state, err, sizeof(err)), 0);
    struct ebf_trigger_event ev = crafted(with3);
    ck_assert_int_eq(t.p->decide(state, &ev, &d), 0);
    ck_assert_uint_eq(d.stream, 0);
    t.p->fini(state);
    node_trigger_unload(&t);
    return d.accept;
}

START_TEST(test_threshold_decisions)
{
    ck_assert_int_eq(decide_at("0,3", S0_SUM + 7, 1), 1);
    ck_assert_int_eq(decide_at("0,3", S0_SUM + 8, 1), 0);
    ck_assert_int_eq(decide_at("3,0", S0_SUM + 7, 1), 1);
    ck_assert_int_eq(decide_at("0,3", S0_SUM + 7, 0), 0);      /* 3 missing: adds 0 */
    ck_assert_int_eq(decide_at("0,3", S0_SUM, 0), 1);
    ck_assert_int_eq(decide_at("1", 1000, 1), 1);
    ck_assert_int_eq(decide_at("1", 1001, 1), 0);
    ck_assert_int_eq(decide_at("2", 0, 1), 1);                 /* nothing summed: 0 >= 0 */
    ck_assert_int_eq(decide_at("2", 1, 1), 0);
    ck_assert_int_eq(decide_at("0,1,2,3", S0_SUM + 1007, 1), 1);
    ck_assert_int_eq(decide_at("0,1,2,3", S0_SUM + 1008, 1), 0);
}
END_TEST

START_TEST(test_gather)
{
    struct ebf_trigger_event ev = crafted(1);
    uint8_t buf[16];

    memset(buf, 0xaa, sizeof(buf));
    ck_assert_uint_eq(ebf_trigger_gather(&ev.fragments[0], buf, sizeof(buf)), 12);
    ck_assert_mem_eq(buf, s0, 12);
    ck_assert_uint_eq(buf[12], 0xaa);
    memset(buf, 0xaa, sizeof(buf));
    ck_assert_uint_eq(ebf_trigger_gather(&ev.fragments[0], buf, 5), 5);
    ck_assert_mem_eq(buf, s0, 5);
    ck_assert_uint_eq(buf[5], 0xaa);
    ck_assert_uint_eq(ebf_trigger_gather(&ev.fragments[2], buf, sizeof(buf)), 0);
    ck_assert_int_eq(ebf_trigger_present(&ev, 3), 1);
    ck_assert_int_eq(ebf_trigger_present(&ev, 2), 0);
    ck_assert_int_eq(ebf_trigger_present(&ev, 4), 0);
}
END_TEST

/* The emulation loaded from plugins/emulate decides as the built-in and
 * as node_decide. */
START_TEST(test_emulate_so)
{
    struct node_trigger t = {0};
    struct ebf_trigger_param kv[] = {{"accept", "0.3"}, {"accept_seed", "24301"}};
    struct ebf_trigger_run run = {.n_params = 2, .params = kv};
    void *so_state = NULL, *in_state = NULL;
    char err[256];
    unsigned accepted = 0;

    ck_assert_int_eq(node_trigger_load(&t, built("plugins/emulate/ebf-trigger-emulate.so"), err,
                                       sizeof(err)), 0);
    ck_assert_str_eq(t.p->name, "emulate");
    ck_assert_int_eq(t.p->init(&run, &so_state, err, sizeof(err)), 0);
    ck_assert_int_eq(node_emulate_plugin.init(&run, &in_state, err, sizeof(err)), 0);
    for (uint64_t id = 0; id < 2000; id++) {
        struct ebf_trigger_event ev = {.event_id = id, .n_sources = 0};
        struct ebf_trigger_decision a, b;
        ck_assert_int_eq(t.p->decide(so_state, &ev, &a), 0);
        ck_assert_int_eq(node_emulate_plugin.decide(in_state, &ev, &b), 0);
        ck_assert_int_eq(a.accept, node_decide(id, 24301, 0.3));
        ck_assert_int_eq(b.accept, a.accept);
        accepted += (unsigned)a.accept;
    }
    ck_assert_uint_eq(accepted, 620);
    t.p->fini(so_state);
    node_emulate_plugin.fini(in_state);
    node_trigger_unload(&t);
    kv[0].value = "1.5";
    ck_assert_int_ne(node_emulate_plugin.init(&run, &in_state, err, sizeof(err)), 0);
}
END_TEST

/* Run fn in a child with stderr to a pipe; its stderr text and wait status. */
static int in_child(void (*fn)(void), char *out, size_t len)
{
    int fd[2], status;

    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        fn();
        _exit(0);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = '\0';
    close(fd[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* The crash is raised rather than made with a null store, which the
 * sanitizer build would report as undefined behaviour before the fault. */
static void crash_in_decide(void)
{
    node_trigger_guard_install("crasher", 0);
    node_trigger_guard_enter(4242);
    raise(SIGSEGV);
}

static void hang_in_decide(void)
{
    node_trigger_guard_install("sleeper", 50);
    node_trigger_guard_enter(77);
    sleep(5);
}

static void crash_outside(void)
{
    node_trigger_guard_install("crasher", 0);
    node_trigger_guard_enter(1);
    node_trigger_guard_leave();
    raise(SIGSEGV);
}

START_TEST(test_guard)
{
    char out[512];
    int st = in_child(crash_in_decide, out, sizeof(out));

    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
    ck_assert_str_eq(out, "node: trigger plug-in 'crasher' crashed (SIGSEGV) in decide on "
                     "event 4242\n");
    st = in_child(hang_in_decide, out, sizeof(out));
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    ck_assert_str_eq(out, "node: trigger plug-in 'sleeper' hung in decide on event 77 "
                     "(over 50 ms)\n");
    st = in_child(crash_outside, out, sizeof(out));
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
    ck_assert_str_eq(out, "");
}
END_TEST

Suite *node_trigger_suite(void);   /* called by check-main.c, which has no header */

Suite *node_trigger_suite(void)
{
    Suite *s = suite_create("node_trigger");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_refuse_abi);
    tcase_add_test(tc, test_refuse_nosym_nofile);
    tcase_add_test(tc, test_params);
    tcase_add_test(tc, test_threshold_refusals);
    tcase_add_test(tc, test_threshold_decisions);
    tcase_add_test(tc, test_gather);
    tcase_add_test(tc, test_emulate_so);
    tcase_add_test(tc, test_guard);
    suite_add_tcase(s, tc);
    return s;
}
