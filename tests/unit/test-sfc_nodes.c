/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_nodes.c - unit tests of the SFC's nodes: dead on silence exactly once, revived, rejoined with a new epoch, old epochs ignored, events taken back, credit frames told apart. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sfc_evtab.h"
#include "sfc_nodes.h"

#define TIMEOUT 100

static const struct sfc_node_conf NODE[3] = {
    {.port = 4, .mac = {2, 0, 0, 0, 1, 0}},
    {.port = 4, .mac = {2, 0, 0, 0, 1, 1}},
    {.port = 5, .mac = {2, 0, 0, 0, 1, 2}},
};
static const uint16_t PORT_OF[3] = {0, 0, 1};     /* nodes 0 and 1 share node port 0 */

static void mk(struct sfc_nodes *n, uint64_t mask)
{
    struct sfc_nodes_conf c = {
        .n_nodes = 3, .node = NODE, .max_credits = 8, .timeout_tsc = TIMEOUT, .mask = mask,
        .port_of = PORT_OF,
    };
    ck_assert_int_eq(sfc_nodes_init(n, &c), 0);
}

/* A node silent past the timeout is declared dead once (not at exactly
 * the timeout), its credits revoked and its port's live count down; heard
 * again with its epoch it is revived (acks late). */
START_TEST(test_dead_once_then_revived)
{
    static struct sfc_nodes n;
    uint16_t dead[SFC_MAX_NODES];

    mk(&n, 0);
    ck_assert_uint_eq(n.q_alive[0], 2);
    ck_assert_uint_eq(n.q_alive[1], 1);
    ck_assert_int_eq(sfc_nodes_heard(&n, 0, 7, 1000), SFC_HEARD_OK);
    ck_assert_int_eq(sfc_nodes_alive(&n, 0), 1);
    ck_assert_uint_eq(sfc_credit_grant(n.credit, 0, 5), 5);
    ck_assert_uint_eq(sfc_nodes_check(&n, 1000 + TIMEOUT, dead), 0);
    ck_assert_uint_eq(sfc_nodes_check(&n, 1000 + TIMEOUT + 1, dead), 1);
    ck_assert_uint_eq(dead[0], 0);
    ck_assert_uint_eq(sfc_nodes_check(&n, 5000, dead), 0);         /* once */
    ck_assert_int_eq(sfc_nodes_alive(&n, 0), 0);
    ck_assert_uint_eq(sfc_credit_available(n.credit, 0), 0);
    ck_assert_uint_eq(n.q_alive[0], 1);
    ck_assert_int_eq(sfc_nodes_port_quiet(&n, 0), 0);
    ck_assert_int_eq(sfc_nodes_heard(&n, 0, 7, 6000), SFC_HEARD_LATE);
    ck_assert_int_eq(sfc_nodes_alive(&n, 0), 1);
    ck_assert_int_eq(sfc_nodes_was_dead(&n, 0), 1);
    ck_assert_uint_eq(n.q_alive[0], 2);
    ck_assert_int_eq(sfc_nodes_heard(&n, 0, 7, 6001), SFC_HEARD_OK);
    sfc_nodes_fini(&n);
}
END_TEST

/* A new epoch from a live node: the old incarnation is declared dead
 * (REJOIN_DEAD) and its credits revoked; from a dead one a plain REJOIN;
 * an older epoch's frame is OLD_EPOCH and changes nothing. */
START_TEST(test_epochs)
{
    static struct sfc_nodes n;
    uint16_t dead[SFC_MAX_NODES];

    mk(&n, 0);
    ck_assert_int_eq(sfc_nodes_heard(&n, 2, 3, 10), SFC_HEARD_OK);
    sfc_credit_grant(n.credit, 2, 4);
    ck_assert_int_eq(sfc_nodes_heard(&n, 2, 4, 20), SFC_HEARD_REJOIN_DEAD);
    ck_assert_uint_eq(sfc_credit_available(n.credit, 2), 0);
    ck_assert_uint_eq(sfc_nodes_epoch(&n, 2), 4);
    ck_assert_int_eq(sfc_nodes_alive(&n, 2), 1);
    ck_assert_uint_eq(n.q_alive[1], 1);
    sfc_credit_grant(n.credit, 2, 4);
    ck_assert_int_eq(sfc_nodes_heard(&n, 2, 3, 30), SFC_HEARD_OLD_EPOCH);
    ck_assert_uint_eq(sfc_credit_available(n.credit, 2), 4);
    ck_assert_uint_eq(sfc_nodes_epoch(&n, 2), 4);
    /* An old epoch's frame does not keep it alive. */
    ck_assert_uint_eq(sfc_nodes_check(&n, 20 + TIMEOUT + 1, dead), 1);
    ck_assert_int_eq(sfc_nodes_port_quiet(&n, 1), 1);
    ck_assert_int_eq(sfc_nodes_heard(&n, 2, 5, 500), SFC_HEARD_REJOIN);
    ck_assert_int_eq(sfc_nodes_port_quiet(&n, 1), 0);
    ck_assert_uint_eq(n.q_alive[1], 1);
    /* Epochs wrap: 0 is newer than 0xffffffff. */
    ck_assert_int_eq(sfc_nodes_heard(&n, 1, 0xffffffffu, 600), SFC_HEARD_OK);
    ck_assert_int_eq(sfc_nodes_heard(&n, 1, 0, 601), SFC_HEARD_REJOIN_DEAD);
    sfc_nodes_fini(&n);
}
END_TEST

/* No timeout: never dead. A node not served here is not counted on its
 * port. */
START_TEST(test_no_timeout_and_mask)
{
    static struct sfc_nodes n;
    struct sfc_nodes_conf c = {
        .n_nodes = 3, .node = NODE, .max_credits = 8, .timeout_tsc = 0, .mask = 0x5,
        .port_of = PORT_OF,
    };
    uint16_t dead[SFC_MAX_NODES];

    ck_assert_int_eq(sfc_nodes_init(&n, &c), 0);
    ck_assert_uint_eq(n.q_alive[0], 1);
    ck_assert_int_eq(sfc_nodes_serves(&n, 1), 0);
    ck_assert_int_eq(sfc_nodes_heard(&n, 0, 1, 1), SFC_HEARD_OK);
    ck_assert_uint_eq(sfc_nodes_check(&n, UINT64_MAX, dead), 0);
    sfc_nodes_fini(&n);
}
END_TEST

static void no_free(void *frame, void *arg)
{
    (void)frame;
    (void)arg;
}

/* The events sent to a node and not acked go back to the ready queue; the
 * other node's stay sent. */
START_TEST(test_take_back)
{
    struct sfc_evtab_conf tc = {
        .capacity = 8, .max_frames = 16, .n_sources = 1, .done_window = 64,
        .free_frame = no_free,
    };
    struct sfc_evtab *t = sfc_evtab_create(&tc);
    struct sfc_evtab_counts k;
    int frame[4];

    ck_assert_ptr_nonnull(t);
    for (unsigned i = 0; i < 4; i++) {
        struct ebf_frag_hdr h = {.source = 0, .event_id = 10 + i, .frag_len = 8, .piece_len = 8};
        uint32_t slot;
        ck_assert_int_eq(sfc_evtab_add(t, &h, &frame[i], 42, 1, &slot), SFC_ADD_COMPLETE);
    }
    for (unsigned i = 0; i < 4; i++)
        sfc_evtab_mark_sent(t, sfc_evtab_ready_peek(t), (uint16_t)(i % 2));
    ck_assert_uint_eq(sfc_nodes_take_back(t, 8, 1), 2);
    sfc_evtab_counts(t, &k);
    ck_assert_uint_eq(k.ready, 2);
    ck_assert_uint_eq(k.sent, 2);
    ck_assert_uint_eq(sfc_nodes_take_back(t, 8, 1), 0);
    sfc_evtab_destroy(t);
}
END_TEST

/* A credit frame from node 1 on its port, written by proto, into buf;
 * returns its length. */
static uint16_t credit_frame(uint8_t *buf, uint16_t node_id, const uint8_t *src,
                             const uint8_t *dst, uint8_t type_fragment)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    struct ebf_credit_hdr h = {.node_id = node_id, .credits = 3, .n_acks = 1, .epoch = 9};
    struct ebf_ack ack = {.event_id = 77, .decision = EBF_DEC_ACCEPT};
    size_t len = ebf_credit_len(1);

    memcpy(a.src_mac, src, 6);
    memcpy(a.dst_mac, dst, 6);
    size_t hl = ebf_encap_write(buf, &a, len);
    if (type_fragment) {
        struct ebf_frag_hdr f = {.source = 0, .event_id = 1, .frag_len = 0};
        ebf_frag_write(buf + hl, &f);
        return (uint16_t)(hl + EBF_FRAG_HLEN);
    }
    ebf_credit_write(buf + hl, &h, &ack);
    return (uint16_t)(hl + len);
}

/* A node's credit frame names it; one from a stranger, a multicast, a
 * fragment frame or a truncated one are told apart by reason. */
START_TEST(test_parse)
{
    static struct sfc_nodes n;
    static const uint8_t us[6] = {2, 0, 0, 0, 2, 0}, mcast[6] = {3, 0, 0, 0, 2, 0};
    uint8_t buf[256];
    struct ebf_credit_hdr h;
    struct ebf_ack acks[EBF_MAX_ACKS];
    enum ebf_reason r;
    enum sfc_drop d;
    uint16_t len;

    mk(&n, 0);
    len = credit_frame(buf, 1, NODE[1].mac, us, 0);
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, len, 0, &h, acks, &r, &d), 1);
    ck_assert_uint_eq(h.credits, 3);
    ck_assert_uint_eq(h.epoch, 9);
    ck_assert_uint_eq(acks[0].event_id, 77);
    ck_assert_int_eq(sfc_nodes_parse(&n, 5, buf, len, 0, &h, acks, &r, &d), -1);   /* port */
    ck_assert_int_eq(r, EBF_R_OK);
    ck_assert_int_eq(d, SFC_DROP_UNKNOWN_NODE);
    len = credit_frame(buf, 1, NODE[0].mac, us, 0);                                  /* MAC */
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, len, 0, &h, acks, &r, &d), -1);
    ck_assert_int_eq(d, SFC_DROP_UNKNOWN_NODE);
    len = credit_frame(buf, 3, NODE[1].mac, us, 0);                                  /* id */
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, len, 0, &h, acks, &r, &d), -1);
    ck_assert_int_eq(d, SFC_DROP_UNKNOWN_NODE);
    len = credit_frame(buf, 1, NODE[1].mac, mcast, 0);
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, len, 0, &h, acks, &r, &d), -1);
    ck_assert_int_eq(d, SFC_DROP_NOT_UNICAST);
    len = credit_frame(buf, 1, NODE[1].mac, us, 1);
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, len, 0, &h, acks, &r, &d), -1);
    ck_assert_int_eq(r, EBF_R_OK);
    ck_assert_int_eq(d, SFC_DROP_WRONG_TYPE);
    len = credit_frame(buf, 1, NODE[1].mac, us, 0);
    ck_assert_int_eq(sfc_nodes_parse(&n, 4, buf, (uint16_t)(len - 1), 0, &h, acks, &r, &d), -1);
    ck_assert_int_ne(r, EBF_R_OK);
    sfc_nodes_fini(&n);
}
END_TEST

Suite *sfc_nodes_suite(void);

Suite *sfc_nodes_suite(void)
{
    Suite *s = suite_create("nodes");
    TCase *tc = tcase_create("liveness");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_dead_once_then_revived);
    tcase_add_test(tc, test_epochs);
    tcase_add_test(tc, test_no_timeout_and_mask);
    tcase_add_test(tc, test_take_back);
    tcase_add_test(tc, test_parse);
    suite_add_tcase(s, tc);
    return s;
}
