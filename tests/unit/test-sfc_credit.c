/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_credit.c - unit tests of the SFC credit scheduler: credit accounting and node choice. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "ebf_mix.h"
#include "ebf_proto.h"
#include "sfc_credit.h"

/* ck_assert writes a mark point per call; the random loop checks millions of
 * facts, so it calls into Check only on failure. */
#define FAST_EQ(a, b)                                                          \
    do {                                                                       \
        intmax_t a_ = (intmax_t)(a), b_ = (intmax_t)(b);                       \
        if (a_ != b_)                                                          \
            ck_abort_msg("%s == %jd, %s == %jd", #a, a_, #b, b_);              \
    } while (0)

static uint64_t rnd(uint64_t *state)
{
    return ebf_mix64((*state)++);
}

static struct sfc_credit *mk(uint16_t n_nodes, uint32_t max_outstanding)
{
    struct sfc_credit *c = sfc_credit_create(n_nodes, max_outstanding);

    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(sfc_credit_nodes(c), n_nodes);
    return c;
}

static void expect_node(const struct sfc_credit *c, uint16_t node, uint32_t available,
                        uint32_t inflight)
{
    ck_assert_msg(sfc_credit_available(c, node) == available &&
                  sfc_credit_inflight(c, node) == inflight,
                  "node %u: available %u inflight %u, expected %u %u", node,
                  sfc_credit_available(c, node), sfc_credit_inflight(c, node),
                  available, inflight);
}

/* --- Create ------------------------------------------------------------------ */

struct bad_create {
    uint16_t n_nodes;
    uint32_t max;
};

static const struct bad_create bad_creates[] = {
    { 0, 4 }, { 4, 0 }, { 0, 0 }, { 1025, 4 }, { UINT16_MAX, 1 },
};

START_TEST(test_create_bad)
{
    const struct bad_create *b = &bad_creates[_i];

    errno = 0;
    ck_assert_ptr_null(sfc_credit_create(b->n_nodes, b->max));
    ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_create_empty)
{
    static const struct bad_create ok[] = { { 1, 1 }, { 3, 8 }, { 1024, UINT32_MAX } };

    for (unsigned k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
        struct sfc_credit *c = mk(ok[k].n_nodes, ok[k].max);
        for (uint16_t n = 0; n < ok[k].n_nodes; n++)
            expect_node(c, n, 0, 0);
        ck_assert_int_eq(sfc_credit_pick(c), -1);
        sfc_credit_destroy(c);
    }
}
END_TEST

/* --- Accounting -------------------------------------------------------------- */

START_TEST(test_grant_clamped)
{
    struct sfc_credit *c = mk(3, 10);

    ck_assert_uint_eq(sfc_credit_grant(c, 1, 4), 4);
    ck_assert_uint_eq(sfc_credit_grant(c, 1, 10), 6);
    ck_assert_uint_eq(sfc_credit_grant(c, 1, 1), 0);
    expect_node(c, 1, 10, 0);
    expect_node(c, 0, 0, 0);
    expect_node(c, 2, 0, 0);

    /* In-flight events count against the bound too. */
    for (int k = 0; k < 3; k++)
        sfc_credit_consume(c, 1);
    expect_node(c, 1, 7, 3);
    ck_assert_uint_eq(sfc_credit_grant(c, 1, 5), 0);
    ck_assert_int_eq(sfc_credit_ack(c, 1), 0);
    ck_assert_int_eq(sfc_credit_ack(c, 1), 0);
    expect_node(c, 1, 7, 1);
    ck_assert_uint_eq(sfc_credit_grant(c, 1, 5), 2);
    expect_node(c, 1, 9, 1);

    ck_assert_uint_eq(sfc_credit_grant(c, 2, UINT32_MAX), 10);
    ck_assert_uint_eq(sfc_credit_grant(c, 0, 0), 0);
    expect_node(c, 2, 10, 0);
    expect_node(c, 0, 0, 0);
    sfc_credit_destroy(c);

    c = mk(1, UINT32_MAX);
    ck_assert_uint_eq(sfc_credit_grant(c, 0, UINT32_MAX - 1), UINT32_MAX - 1);
    ck_assert_uint_eq(sfc_credit_grant(c, 0, 5), 1);
    ck_assert_uint_eq(sfc_credit_grant(c, 0, 5), 0);
    expect_node(c, 0, UINT32_MAX, 0);
    sfc_credit_destroy(c);
}
END_TEST

START_TEST(test_consume_ack)
{
    struct sfc_credit *c = mk(2, 4);

    ck_assert_uint_eq(sfc_credit_grant(c, 0, 2), 2);
    ck_assert_int_eq(sfc_credit_pick(c), 0);
    sfc_credit_consume(c, 0);
    expect_node(c, 0, 1, 1);
    ck_assert_int_eq(sfc_credit_pick(c), 0);
    sfc_credit_consume(c, 0);
    expect_node(c, 0, 0, 2);
    ck_assert_int_eq(sfc_credit_pick(c), -1);

    /* An ack ends an in-flight event; it does not grant a credit. */
    ck_assert_int_eq(sfc_credit_ack(c, 0), 0);
    expect_node(c, 0, 0, 1);
    ck_assert_int_eq(sfc_credit_pick(c), -1);

    /* The node's next grant makes it available again. */
    ck_assert_uint_eq(sfc_credit_grant(c, 0, 1), 1);
    expect_node(c, 0, 1, 1);
    ck_assert_int_eq(sfc_credit_pick(c), 0);
    expect_node(c, 1, 0, 0);
    sfc_credit_destroy(c);
}
END_TEST

START_TEST(test_ack_nothing_inflight)
{
    struct sfc_credit *c = mk(2, 4);

    ck_assert_int_eq(sfc_credit_ack(c, 0), -EINVAL);
    ck_assert_uint_eq(sfc_credit_grant(c, 0, 3), 3);
    ck_assert_int_eq(sfc_credit_ack(c, 0), -EINVAL);      /* credit, nothing sent */
    expect_node(c, 0, 3, 0);
    sfc_credit_consume(c, 0);
    ck_assert_int_eq(sfc_credit_ack(c, 1), -EINVAL);      /* the other node */
    ck_assert_int_eq(sfc_credit_ack(c, 0), 0);
    ck_assert_int_eq(sfc_credit_ack(c, 0), -EINVAL);      /* acked twice */
    expect_node(c, 0, 2, 0);
    expect_node(c, 1, 0, 0);
    sfc_credit_destroy(c);
}
END_TEST

/* --- Choice ------------------------------------------------------------------ */

struct loaded {
    uint16_t n;
    uint32_t avail[6];
    int want;
};

static const struct loaded loaded_cases[] = {
    { 1, { 0 }, -1 },
    { 1, { 3 }, 0 },
    { 3, { 3, 7, 5 }, 1 },
    { 3, { 0, 0, 1 }, 2 },
    { 4, { 9, 0, 0, 0 }, 0 },
    { 6, { 1, 2, 3, 4, 5, 6 }, 5 },
    { 6, { 6, 5, 4, 3, 2, 1 }, 0 },
    { 5, { 2, 1, 8, 8, 0 }, 2 },      /* tie: the first from the start */
    { 6, { 0, 0, 0, 0, 0, 0 }, -1 },
};

/* The node with the most credit is chosen; choosing alone changes nothing. */
START_TEST(test_least_loaded)
{
    const struct loaded *l = &loaded_cases[_i];
    struct sfc_credit *c = mk(l->n, 16);

    for (uint16_t n = 0; n < l->n; n++)
        ck_assert_uint_eq(sfc_credit_grant(c, n, l->avail[n]), l->avail[n]);
    ck_assert_int_eq(sfc_credit_pick(c), l->want);
    for (uint16_t n = 0; n < l->n; n++)
        expect_node(c, n, l->avail[n], 0);
    if (l->want >= 0) {
        /* Consume down to the runner-up: the choice follows the credit. */
        sfc_credit_consume(c, (uint16_t)l->want);
        uint32_t most = 0;
        for (uint16_t n = 0; n < l->n; n++) {
            uint32_t a = sfc_credit_available(c, n);
            most = a > most ? a : most;
        }
        int p = sfc_credit_pick(c);
        if (most == 0) {
            ck_assert_int_eq(p, -1);
        } else {
            ck_assert_int_ge(p, 0);
            ck_assert_uint_eq(sfc_credit_available(c, (uint16_t)p), most);
        }
    }
    sfc_credit_destroy(c);
}
END_TEST

/* Skipped nodes are passed over, the rest chosen as before; a skip of
 * every node with credit gives -1. */
START_TEST(test_pick_skip)
{
    struct sfc_credit *c = mk(4, 16);
    uint32_t avail[4] = {5, 9, 0, 9};

    for (uint16_t n = 0; n < 4; n++)
        sfc_credit_grant(c, n, avail[n]);
    ck_assert_int_eq(sfc_credit_pick_skip(c, 1u << 1), 3);
    ck_assert_int_eq(sfc_credit_pick_skip(c, (1u << 1) | (1u << 3)), 0);
    ck_assert_int_eq(sfc_credit_pick_skip(c, 0xb), -1);        /* 0, 1, 3; 2 has none */
    ck_assert_int_eq(sfc_credit_pick_skip(c, 0), 1);           /* next was 1 after node 0 */
    for (uint16_t n = 0; n < 4; n++)
        expect_node(c, n, avail[n], 0);                     /* picking spends nothing */
    sfc_credit_destroy(c);
}
END_TEST

struct rr {
    uint16_t n;
    uint32_t credits;
};

static const struct rr rr_cases[] = {
    { 1, 3 }, { 2, 4 }, { 3, 3 }, { 5, 2 }, { 8, 1 }, { 1024, 2 },
};

/* Equal credits: successive picks go 0, 1, ..., n-1, 0, 1, ... */
START_TEST(test_round_robin)
{
    const struct rr *r = &rr_cases[_i];
    struct sfc_credit *c = mk(r->n, r->credits);

    for (uint16_t n = 0; n < r->n; n++)
        ck_assert_uint_eq(sfc_credit_grant(c, n, r->credits), r->credits);
    for (uint32_t k = 0; k < (uint32_t)r->n * r->credits; k++) {
        int p = sfc_credit_pick(c);
        FAST_EQ(p, k % r->n);
        sfc_credit_consume(c, (uint16_t)p);
    }
    ck_assert_int_eq(sfc_credit_pick(c), -1);
    for (uint16_t n = 0; n < r->n; n++)
        expect_node(c, n, 0, r->credits);

    /* Acks and equal new grants: the rotation goes on over all nodes. */
    for (uint16_t n = 0; n < r->n; n++) {
        ck_assert_int_eq(sfc_credit_ack(c, n), 0);
        ck_assert_uint_eq(sfc_credit_grant(c, n, 1), 1);
    }
    for (uint16_t n = 0; n < r->n; n++) {
        ck_assert_int_eq(sfc_credit_pick(c), n);
        sfc_credit_consume(c, n);
    }
    ck_assert_int_eq(sfc_credit_pick(c), -1);
    sfc_credit_destroy(c);
}
END_TEST

/* A node refilled at once after each event ties again with all others: the
 * turn still passes on, the refilled node does not keep being chosen. */
START_TEST(test_round_robin_refill)
{
    const uint16_t n = (uint16_t)(2 + _i * 3);
    struct sfc_credit *c = mk(n, 1);

    for (uint16_t k = 0; k < n; k++)
        ck_assert_uint_eq(sfc_credit_grant(c, k, 1), 1);
    for (uint32_t k = 0; k < 10u * n; k++) {
        int p = sfc_credit_pick(c);
        ck_assert_int_eq(p, (int)(k % n));
        sfc_credit_consume(c, (uint16_t)p);
        ck_assert_int_eq(sfc_credit_ack(c, (uint16_t)p), 0);
        ck_assert_uint_eq(sfc_credit_grant(c, (uint16_t)p, 1), 1);
    }
    for (uint16_t k = 0; k < n; k++)
        expect_node(c, k, 1, 0);
    sfc_credit_destroy(c);
}
END_TEST

/* Ties among some nodes only: they take turns, the others wait. */
START_TEST(test_round_robin_subset)
{
    static const uint32_t avail[5] = { 2, 5, 5, 1, 5 };
    static const int want[] = { 1, 2, 4, 1, 2, 4, 1, 2, 4 };
    struct sfc_credit *c = mk(5, 8);

    for (uint16_t n = 0; n < 5; n++)
        sfc_credit_grant(c, n, avail[n]);
    for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        int p = sfc_credit_pick(c);
        ck_assert_int_eq(p, want[k]);
        sfc_credit_consume(c, (uint16_t)p);
    }
    expect_node(c, 0, 2, 0);
    expect_node(c, 1, 2, 3);
    expect_node(c, 2, 2, 3);
    expect_node(c, 3, 1, 0);
    expect_node(c, 4, 2, 3);
    /* Now nodes 0, 1, 2 and 4 tie at 2: each is chosen once before any twice. */
    int seen[5] = { 0 };
    for (unsigned k = 0; k < 4; k++) {
        int p = sfc_credit_pick(c);
        ck_assert_int_ne(p, 3);
        ck_assert_int_ge(p, 0);
        ck_assert_int_eq(seen[p]++, 0);
        sfc_credit_consume(c, (uint16_t)p);
    }
    sfc_credit_destroy(c);
}
END_TEST

/* --- Sequences --------------------------------------------------------------- */

enum op_kind { OP_GRANT, OP_PICK, OP_ACK, OP_END };

/* OP_PICK expects `want` and, if it is a node, consumes one of its credits;
 * OP_GRANT expects `want` credits accepted; OP_ACK expects `want` returned. */
struct op {
    enum op_kind kind;
    uint16_t node;
    uint32_t n;
    int want;
};

struct seq {
    uint16_t n_nodes;
    uint32_t max;
    struct op ops[24];
};

static const struct seq seqs[] = {
    { 3, 4, {
        { OP_PICK, 0, 0, -1 },
        { OP_GRANT, 1, 2, 2 },
        { OP_PICK, 0, 0, 1 },
        { OP_PICK, 0, 0, 1 },
        { OP_PICK, 0, 0, -1 },
        { OP_ACK, 1, 0, 0 },
        { OP_PICK, 0, 0, -1 },
        { OP_ACK, 0, 0, -EINVAL },
        { OP_GRANT, 1, 9, 3 },
        { OP_PICK, 0, 0, 1 },
        { OP_GRANT, 2, 1, 1 },
        { OP_PICK, 0, 0, 1 },      /* node 1 has 2 left, node 2 has 1 */
        { OP_PICK, 0, 0, 2 },      /* tie at 1: node 2 is next in turn */
        { OP_PICK, 0, 0, 1 },
        { OP_PICK, 0, 0, -1 },
        { OP_END, 0, 0, 0 },
    } },
    { 2, 1, {
        { OP_GRANT, 0, 1, 1 },
        { OP_GRANT, 1, 1, 1 },
        { OP_GRANT, 1, 1, 0 },
        { OP_PICK, 0, 0, 0 },
        { OP_PICK, 0, 0, 1 },
        { OP_PICK, 0, 0, -1 },
        { OP_GRANT, 0, 1, 0 },     /* one in flight fills max 1 */
        { OP_ACK, 0, 0, 0 },
        { OP_ACK, 0, 0, -EINVAL },
        { OP_PICK, 0, 0, -1 },
        { OP_GRANT, 0, 1, 1 },
        { OP_PICK, 0, 0, 0 },
        { OP_PICK, 0, 0, -1 },
        { OP_ACK, 1, 0, 0 },
        { OP_ACK, 0, 0, 0 },
        { OP_ACK, 1, 0, -EINVAL },
        { OP_END, 0, 0, 0 },
    } },
    { 4, 3, {
        { OP_GRANT, 3, 3, 3 },
        { OP_GRANT, 0, 1, 1 },
        { OP_PICK, 0, 0, 3 },
        { OP_PICK, 0, 0, 3 },
        { OP_PICK, 0, 0, 0 },      /* 0 and 3 at 1: 0 is next after 3 */
        { OP_PICK, 0, 0, 3 },
        { OP_PICK, 0, 0, -1 },
        { OP_GRANT, 2, 5, 3 },
        { OP_GRANT, 3, 5, 0 },
        { OP_ACK, 3, 0, 0 },
        { OP_GRANT, 3, 5, 1 },
        { OP_PICK, 0, 0, 2 },
        { OP_PICK, 0, 0, 2 },
        { OP_PICK, 0, 0, 3 },      /* 2 and 3 at 1: 3 is next after 2 */
        { OP_PICK, 0, 0, 2 },
        { OP_PICK, 0, 0, -1 },
        { OP_END, 0, 0, 0 },
    } },
};

START_TEST(test_sequences)
{
    const struct seq *q = &seqs[_i];
    struct sfc_credit *c = mk(q->n_nodes, q->max);

    for (unsigned k = 0; q->ops[k].kind != OP_END; k++) {
        const struct op *o = &q->ops[k];
        int got = 0;
        if (o->kind == OP_GRANT) {
            got = (int)sfc_credit_grant(c, o->node, o->n);
        } else if (o->kind == OP_ACK) {
            got = sfc_credit_ack(c, o->node);
        } else {
            got = sfc_credit_pick(c);
            if (got >= 0) {
                ck_assert_uint_gt(sfc_credit_available(c, (uint16_t)got), 0);
                sfc_credit_consume(c, (uint16_t)got);
            }
        }
        ck_assert_msg(got == o->want, "sequence %d op %u: got %d, want %d", _i, k, got,
                      o->want);
        for (uint16_t n = 0; n < q->n_nodes; n++)
            ck_assert_uint_le(sfc_credit_available(c, n) + sfc_credit_inflight(c, n),
                              q->max);
    }
    sfc_credit_destroy(c);
}
END_TEST

struct rand_conf {
    uint16_t n_nodes;
    uint32_t max;
    uint64_t seed;
};

static const struct rand_conf rand_confs[] = {
    { 1, 1, 11 }, { 2, 3, 12 }, { 5, 4, 13 }, { 32, 8, 14 }, { 200, 2, 15 },
};

/*
 * 100000 random grants, picks (with consume) and acks against a model: after
 * every operation each node's credit and in-flight count match the model,
 * a pick returns a node with the most credit (so with credit) and -1 exactly
 * when no node has credit, and no node ever holds more than max_outstanding.
 */
START_TEST(test_random_ops)
{
    const struct rand_conf *rc = &rand_confs[_i];
    struct sfc_credit *c = mk(rc->n_nodes, rc->max);
    uint32_t *avail = calloc(rc->n_nodes, sizeof(uint32_t));
    uint32_t *infl = calloc(rc->n_nodes, sizeof(uint32_t));
    uint64_t rng = rc->seed, picks = 0, empty_picks = 0, bad_acks = 0, clamped = 0;

    ck_assert(avail && infl);
    for (uint32_t i = 0; i < 100000; i++) {
        uint64_t x = rnd(&rng);
        uint16_t node = (uint16_t)((x >> 8) % rc->n_nodes);
        unsigned what = (unsigned)(x % 10);

        if (what < 3) {
            /* Grants are small so that credit often runs out everywhere. */
            uint32_t n = (uint32_t)((x >> 40) % (rc->max + 2));
            uint32_t room = rc->max - avail[node] - infl[node];
            uint32_t want = n < room ? n : room;
            FAST_EQ(sfc_credit_grant(c, node, n), want);
            clamped += want < n;
            avail[node] += want;
        } else if (what < 7) {
            uint32_t most = 0;
            for (uint16_t k = 0; k < rc->n_nodes; k++)
                most = avail[k] > most ? avail[k] : most;
            int p = sfc_credit_pick(c);
            if (most == 0) {
                FAST_EQ(p, -1);
                empty_picks++;
            } else {
                FAST_EQ(p >= 0 && p < rc->n_nodes, 1);
                FAST_EQ(avail[p] > 0, 1);
                FAST_EQ(avail[p], most);
                sfc_credit_consume(c, (uint16_t)p);
                avail[p]--;
                infl[p]++;
                picks++;
            }
        } else {
            int want = infl[node] > 0 ? 0 : -EINVAL;
            FAST_EQ(sfc_credit_ack(c, node), want);
            if (want == 0)
                infl[node]--;
            else
                bad_acks++;
        }
        for (uint16_t k = 0; k < rc->n_nodes; k++) {
            FAST_EQ(sfc_credit_available(c, k), avail[k]);
            FAST_EQ(sfc_credit_inflight(c, k), infl[k]);
            FAST_EQ(avail[k] + infl[k] <= rc->max, 1);
        }
    }
    /* The run reached every case it is meant to check. */
    ck_assert_uint_gt(picks, 1000);
    ck_assert_uint_gt(empty_picks, 0);
    ck_assert_uint_gt(bad_acks, 0);
    ck_assert_uint_gt(clamped, 0);
    free(avail);
    free(infl);
    sfc_credit_destroy(c);
}
END_TEST

Suite *sfc_credit_suite(void);

Suite *sfc_credit_suite(void)
{
    Suite *s = suite_create("credit");
    TCase *tc;

    tc = tcase_create("create");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, test_create_bad, 0,
                        (int)(sizeof(bad_creates) / sizeof(bad_creates[0])));
    tcase_add_test(tc, test_create_empty);
    suite_add_tcase(s, tc);

    tc = tcase_create("accounting");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_grant_clamped);
    tcase_add_test(tc, test_consume_ack);
    tcase_add_test(tc, test_ack_nothing_inflight);
    suite_add_tcase(s, tc);

    tc = tcase_create("choice");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, test_least_loaded, 0,
                        (int)(sizeof(loaded_cases) / sizeof(loaded_cases[0])));
    tcase_add_loop_test(tc, test_round_robin, 0,
                        (int)(sizeof(rr_cases) / sizeof(rr_cases[0])));
    tcase_add_loop_test(tc, test_round_robin_refill, 0, 4);
    tcase_add_test(tc, test_round_robin_subset);
    tcase_add_test(tc, test_pick_skip);
    suite_add_tcase(s, tc);

    tc = tcase_create("sequences");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_sequences, 0, (int)(sizeof(seqs) / sizeof(seqs[0])));
    tcase_add_loop_test(tc, test_random_ops, 0,
                        (int)(sizeof(rand_confs) / sizeof(rand_confs[0])));
    suite_add_tcase(s, tc);
    return s;
}
