/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ebf_plug.c - unit tests of the run-control plug over a fake data plane: runs, pause, drain. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_plug.h"

struct fake_conf {
    int x;
    int twice;                   /* completed by the check: 2 x */
};

struct fake_dp {
    void *ctx;                   /* create's */
    unsigned id;
    uint32_t run;
    int x;
    unsigned polls, intake_polls, drain_polls, drain_begun, holds, begun;
    int paused;
};

static struct {
    unsigned created, destroyed, last_destroyed;
    int fail_create, fail_begin;
    void *ctx;
} fk;

static void *fake_create(void *ctx, const void *conf, uint32_t run)
{
    const struct fake_conf *c = conf;

    fk.ctx = ctx;
    if (fk.fail_create) {
        errno = ENOSPC;
        return NULL;
    }
    struct fake_dp *dp = calloc(1, sizeof(*dp));
    ck_assert_ptr_nonnull(dp);
    dp->ctx = ctx;
    dp->id = ++fk.created;
    dp->run = run;
    dp->x = c->x;
    return dp;
}

static void fake_destroy(void *ctx, void *dp)
{
    ck_assert_ptr_eq(ctx, ((struct fake_dp *)dp)->ctx);
    fk.destroyed++;
    fk.last_destroyed = ((struct fake_dp *)dp)->id;
    free(dp);
}

static int fake_check(void *conf, char *err, size_t len)
{
    struct fake_conf *c = conf;

    if (c->x < 0) {
        snprintf(err, len, "parameter 'x': %d is below 0", c->x);
        return -EINVAL;
    }
    c->twice = 2 * c->x;
    return 0;
}

static int fake_begin(void *ctx, void *dp, char *err, size_t len)
{
    (void)ctx;
    ((struct fake_dp *)dp)->begun++;
    if (!fk.fail_begin)
        return 0;
    snprintf(err, len, "fake: run %u cannot begin", ((struct fake_dp *)dp)->id);
    return -EINVAL;
}

static unsigned fake_poll(void *arg, int intake)
{
    struct fake_dp *dp = arg;

    dp->polls++;
    dp->intake_polls += intake != 0;
    return intake ? 3 : 1;
}

static void fake_drain_begin(void *dp)
{
    ((struct fake_dp *)dp)->drain_begun++;
}

/* Done at the second pass. */
static unsigned fake_drain_poll(void *arg, int *done)
{
    struct fake_dp *dp = arg;

    *done = ++dp->drain_polls >= 2;
    return 5;
}

static void fake_hold(void *arg, int paused)
{
    struct fake_dp *dp = arg;

    dp->holds++;
    dp->paused = paused;
}

static const struct ebf_plug_ops fake_ops = {
    .create = fake_create,
    .destroy = fake_destroy,
    .check = fake_check,
    .begin = fake_begin,
    .poll = fake_poll,
    .drain_begin = fake_drain_begin,
    .drain_poll = fake_drain_poll,
    .pause = fake_hold,
};

/* The bare minimum: no check, begin, drain_begin nor pause. */
static const struct ebf_plug_ops bare_ops = {
    .create = fake_create,
    .destroy = fake_destroy,
    .poll = fake_poll,
    .drain_poll = fake_drain_poll,
};

static struct {
    struct ebf_plug plug;
    struct fake_conf conf, initial;
} r;

static struct ebf_req req;

static void setup(void)
{
    memset(&fk, 0, sizeof(fk));
    memset(&r, 0, sizeof(r));
    r.conf.x = 7;
    ck_assert_int_eq(ebf_plug_init(&r.plug, &fake_ops, &r, &r.conf, &r.initial,
                                   sizeof(r.conf)), 0);
}

static void teardown(void)
{
    ebf_plug_fini(&r.plug);
    ck_assert_uint_eq(fk.destroyed, fk.created);
}

static int apply(enum ebf_op op, uint32_t run, const struct fake_conf *c)
{
    memset(&req, 0, sizeof(req));
    req.op = op;
    req.run_number = run;
    req.conf = c;
    return ebf_plug_apply(&r.plug, &req);
}

static struct fake_dp *dp(void)
{
    return r.plug.dp;
}

/* Poll until the drain ends; the passes it took. */
static unsigned drain(void)
{
    unsigned passes = 0;
    int drained = 0;

    while (!drained && passes < 10) {
        ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 5);
        passes++;
    }
    return passes;
}

START_TEST(test_init)
{
    ck_assert_ptr_eq(fk.ctx, &r);
    ck_assert_uint_eq(fk.created, 1);
    ck_assert_uint_eq(dp()->run, 0);
    ck_assert_int_eq(dp()->x, 7);
    ck_assert_int_eq(r.initial.x, 7);
    ck_assert_int_eq(r.plug.running, 0);
    int drained = 0;
    ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 0);   /* no run: nothing polled */
    ck_assert_uint_eq(dp()->polls, 0);
    ck_assert_int_eq(drained, 0);
    ebf_plug_yield(&r.plug);     /* no control yet: harmless */
}
END_TEST

START_TEST(test_init_fails)
{
    struct ebf_plug p;
    struct fake_conf c = {.x = 1}, i;

    fk.fail_create = 1;
    ck_assert_int_eq(ebf_plug_init(&p, &fake_ops, NULL, &c, &i, sizeof(c)), -ENOSPC);
    ck_assert_ptr_null(p.dp);
    ebf_plug_fini(&p);           /* harmless on a failed init */
    fk.fail_create = 0;
}
END_TEST

/* The first run uses the data plane made at init; later runs fresh ones
 * made with their run number, the last destroyed only then. */
START_TEST(test_runs)
{
    struct fake_dp *first = dp();

    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ck_assert_ptr_eq(dp(), first);
    ck_assert_uint_eq(fk.created, 1);
    ck_assert_uint_eq(first->begun, 1);
    ck_assert_int_eq(r.plug.running, 1);
    ck_assert_uint_eq(r.plug.start_at_ns, 0);          /* no instant: at once */
    int drained = 0;
    ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 3);
    ck_assert_uint_eq(first->intake_polls, 1);
    ebf_plug_stop(&r.plug);
    ck_assert_uint_eq(first->drain_begun, 1);
    ck_assert_uint_eq(drain(), 2);
    ck_assert_int_eq(r.plug.running, 0);
    ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 0);
    ck_assert_uint_eq(first->drain_polls, 2);

    memset(&req, 0, sizeof(req));                       /* run 2 with an instant */
    req.op = EBF_OP_START;
    req.run_number = 2;
    req.start_at_ns = 1800000000123456789ull;
    ck_assert_int_eq(ebf_plug_apply(&r.plug, &req), 0);
    ck_assert_uint_eq(r.plug.start_at_ns, 1800000000123456789ull);
    ck_assert_uint_eq(fk.created, 2);
    ck_assert_uint_eq(fk.destroyed, 1);
    ck_assert_uint_eq(fk.last_destroyed, 1);
    ck_assert_uint_eq(dp()->id, 2);
    ck_assert_uint_eq(dp()->run, 2);
    ck_assert_uint_eq(dp()->begun, 1);
    ck_assert_int_eq(r.plug.running, 1);
    ck_assert_int_eq(r.plug.stopping, 0);
}
END_TEST

/* A configure is checked and completed; the first run then gets a data
 * plane made from it (run 0). */
START_TEST(test_configure)
{
    struct fake_conf c = {.x = 9};

    ck_assert_int_eq(apply(EBF_OP_CONFIGURE, 0, &c), 0);
    ck_assert_int_eq(r.conf.x, 9);
    ck_assert_int_eq(r.conf.twice, 18);
    ck_assert_int_eq(c.twice, 0);            /* the request's copy stays as sent */
    ck_assert_int_eq(r.initial.x, 7);
    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ck_assert_uint_eq(fk.created, 2);
    ck_assert_uint_eq(fk.last_destroyed, 1);
    ck_assert_uint_eq(dp()->run, 0);
    ck_assert_int_eq(dp()->x, 9);
}
END_TEST

START_TEST(test_configure_refused)
{
    struct fake_conf c = {.x = -4};

    ck_assert_int_eq(apply(EBF_OP_CONFIGURE, 0, &c), -EINVAL);
    ck_assert_str_eq(req.err, "parameter 'x': -4 is below 0");
    ck_assert_int_eq(r.conf.x, 7);
    ck_assert_int_eq(r.conf.twice, 0);
}
END_TEST

/* A reset goes back to the command line's parameters, and with them the
 * data plane made at init serves again. */
START_TEST(test_reset)
{
    struct fake_conf c = {.x = 9};

    ck_assert_int_eq(apply(EBF_OP_CONFIGURE, 0, &c), 0);
    ck_assert_int_eq(apply(EBF_OP_RESET, 0, NULL), 0);
    ck_assert_int_eq(r.conf.x, 7);
    ck_assert_int_eq(r.conf.twice, 0);
    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ck_assert_uint_eq(fk.created, 1);
    ck_assert_uint_eq(dp()->id, 1);
}
END_TEST

/* A data plane that cannot be made leaves the last one in place. */
START_TEST(test_create_fails)
{
    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ebf_plug_stop(&r.plug);
    drain();
    fk.fail_create = 1;
    ck_assert_int_eq(apply(EBF_OP_START, 2, NULL), -ENOSPC);
    ck_assert_str_eq(req.err, "cannot make the data plane: No space left on device");
    ck_assert_uint_eq(dp()->id, 1);
    ck_assert_uint_eq(fk.destroyed, 0);
    ck_assert_int_eq(r.plug.running, 0);
    fk.fail_create = 0;
}
END_TEST

/* A run that cannot begin: the fresh data plane goes, the last stays. */
START_TEST(test_begin_fails)
{
    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ebf_plug_stop(&r.plug);
    drain();
    fk.fail_begin = 1;
    ck_assert_int_eq(apply(EBF_OP_START, 2, NULL), -EINVAL);
    ck_assert_str_eq(req.err, "fake: run 2 cannot begin");
    ck_assert_uint_eq(fk.created, 2);
    ck_assert_uint_eq(fk.destroyed, 1);
    ck_assert_uint_eq(fk.last_destroyed, 2);
    ck_assert_uint_eq(dp()->id, 1);
    ck_assert_int_eq(r.plug.running, 0);
}
END_TEST

/* Paused: polled without intake; a stop drains even while paused. */
START_TEST(test_pause)
{
    int drained = 0;

    ck_assert_int_eq(apply(EBF_OP_START, 1, NULL), 0);
    ck_assert_int_eq(apply(EBF_OP_PAUSE, 0, NULL), 0);
    ck_assert_int_eq(r.plug.paused, 1);
    ck_assert_int_eq(dp()->paused, 1);
    ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 1);
    ck_assert_uint_eq(dp()->polls, 1);
    ck_assert_uint_eq(dp()->intake_polls, 0);
    ck_assert_int_eq(apply(EBF_OP_RESUME, 0, NULL), 0);
    ck_assert_int_eq(dp()->paused, 0);
    ck_assert_uint_eq(dp()->holds, 2);
    ck_assert_uint_eq(ebf_plug_poll(&r.plug, &drained), 3);
    ck_assert_int_eq(apply(EBF_OP_PAUSE, 0, NULL), 0);
    ebf_plug_stop(&r.plug);
    ck_assert_uint_eq(drain(), 2);
    ck_assert_uint_eq(dp()->polls, 2);
    ck_assert_int_eq(r.plug.running, 0);
}
END_TEST

START_TEST(test_other_ops)
{
    ck_assert_int_eq(apply(EBF_OP_SNAPSHOT, 0, NULL), -EINVAL);
    ck_assert_int_eq(apply(EBF_OP_EXIT, 0, NULL), -EINVAL);
}
END_TEST

/* Without the optional ops: no check, no begin, pause only flags. */
START_TEST(test_bare)
{
    struct ebf_plug p;
    struct fake_conf c = {.x = 1}, i, neg = {.x = -1};
    int drained = 0;

    ck_assert_int_eq(ebf_plug_init(&p, &bare_ops, NULL, &c, &i, sizeof(c)), 0);
    memset(&req, 0, sizeof(req));
    req.op = EBF_OP_CONFIGURE;
    req.conf = &neg;
    ck_assert_int_eq(ebf_plug_apply(&p, &req), 0);
    ck_assert_int_eq(c.x, -1);
    req.op = EBF_OP_START;
    req.run_number = 1;
    ck_assert_int_eq(ebf_plug_apply(&p, &req), 0);
    struct fake_dp *d = p.dp;
    ck_assert_uint_eq(d->begun, 0);
    ck_assert_int_eq(d->x, -1);
    req.op = EBF_OP_PAUSE;
    ck_assert_int_eq(ebf_plug_apply(&p, &req), 0);
    ck_assert_uint_eq(d->holds, 0);
    ck_assert_uint_eq(ebf_plug_poll(&p, &drained), 1);
    ebf_plug_stop(&p);
    ck_assert_uint_eq(d->drain_begun, 0);
    ck_assert_uint_eq(ebf_plug_poll(&p, &drained), 5);
    ck_assert_uint_eq(ebf_plug_poll(&p, &drained), 5);
    ck_assert_int_eq(drained, 1);
    ebf_plug_fini(&p);
    ck_assert_uint_eq(fk.destroyed, 2);
}
END_TEST

Suite *ebf_plug_suite(void);

Suite *ebf_plug_suite(void)
{
    Suite *s = suite_create("ebf_plug");
    TCase *tc = tcase_create("plug");

    tcase_set_timeout(tc, 10);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_init);
    tcase_add_test(tc, test_init_fails);
    tcase_add_test(tc, test_runs);
    tcase_add_test(tc, test_configure);
    tcase_add_test(tc, test_configure_refused);
    tcase_add_test(tc, test_reset);
    tcase_add_test(tc, test_create_fails);
    tcase_add_test(tc, test_begin_fails);
    tcase_add_test(tc, test_pause);
    tcase_add_test(tc, test_other_ops);
    tcase_add_test(tc, test_bare);
    suite_add_tcase(s, tc);
    return s;
}
