/* SPDX-License-Identifier: BSD-3-Clause */
/* test-node_tally.c - Check unit tests of a decided event's count: decision words, verify flags, latency, exact counters. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_mix.h"
#include "node_tally.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */

static struct node_stats st;
static struct node_ev ev;

static void setup(void)
{
    memset(&st, 0, sizeof(st));
    ebf_hist_init(&st.e2e_ns);
    memset(&ev, 0, sizeof(ev));
    ev.id = 42;
    ev.got_bytes = 300;
    ev.first_tx_ns = 1000;
}

/* Accepted on stream 5: one event accepted, its bytes, digest, latency. */
START_TEST(test_tally_accept)
{
    uint16_t stream = 99;

    ck_assert_int_eq(node_tally_decided(&st, &ev, NODE_DEC_ACCEPT | 5, 4000, &stream), 1);
    ck_assert_uint_eq(stream, 5);
    ck_assert_uint_eq(st.events, 1);
    ck_assert_uint_eq(st.accepted, 1);
    ck_assert_uint_eq(st.rejected, 0);
    ck_assert_uint_eq(st.payload_bytes, 300);
    ck_assert_uint_eq(st.decided_digest, ebf_mix64(42));
    ck_assert_uint_eq(st.e2e_ns.count, 1);
    ck_assert_uint_eq(st.e2e_ns.sum, 3000);
    ck_assert_uint_eq(st.events_bad, 0);
    ck_assert_uint_eq(st.trigger_slow, 0);
    ck_assert_uint_eq(st.incomplete, 0);
}
END_TEST

/* Rejected, slow, incomplete, with two verify flags; no latency without
 * a transmit time, nor one from the future. */
START_TEST(test_tally_reject_flags)
{
    uint16_t stream = 99;

    ev.flags = EBF_EVF_INCOMPLETE;
    ev.status = EBF_ACKS_BAD_CRC | EBF_ACKS_BAD_SOURCES;
    ev.first_tx_ns = UINT64_MAX;
    ck_assert_int_eq(node_tally_decided(&st, &ev, NODE_DEC_SLOW | 3, 4000, &stream), 0);
    ck_assert_uint_eq(stream, 3);
    ck_assert_uint_eq(st.rejected, 1);
    ck_assert_uint_eq(st.trigger_slow, 1);
    ck_assert_uint_eq(st.incomplete, 1);
    ck_assert_uint_eq(st.verify[NODE_V_BAD_CRC], 1);
    ck_assert_uint_eq(st.verify[NODE_V_BAD_SOURCES], 1);
    ck_assert_uint_eq(st.verify[NODE_V_BAD_PATTERN], 0);
    ck_assert_uint_eq(st.verify[NODE_V_BAD_EVENT_ID], 0);
    ck_assert_uint_eq(st.events_bad, 1);
    ck_assert_uint_eq(st.e2e_ns.count, 0);
    ev.first_tx_ns = 5000;
    node_tally_decided(&st, &ev, NODE_DEC_ACCEPT, 4000, &stream);
    ck_assert_uint_eq(st.e2e_ns.count, 0);
    ck_assert_uint_eq(st.events, 2);
    ck_assert_uint_eq(st.events_bad, 2);
    ck_assert_uint_eq(st.decided_digest, 2 * ebf_mix64(42));
}
END_TEST

/* The plug-in did not decide: rejected whatever else the word says,
 * stream 0, counted by reason. */
START_TEST(test_tally_failed)
{
    uint16_t stream = 99;

    ck_assert_int_eq(node_tally_decided(&st, &ev,
                                        NODE_DEC_FAIL(NODE_TF_VIEW_OVERFLOW) | NODE_DEC_ACCEPT | 7,
                                        2000, &stream),
                     0);
    ck_assert_uint_eq(stream, 0);
    ck_assert_uint_eq(st.trigger_fail[NODE_TF_VIEW_OVERFLOW], 1);
    ck_assert_uint_eq(st.trigger_fail[NODE_TF_ERROR], 0);
    ck_assert_uint_eq(st.rejected, 1);
    ck_assert_int_eq(node_tally_decided(&st, &ev, NODE_DEC_SLOW | NODE_DEC_FAIL(NODE_TF_ERROR),
                                        2000, &stream),
                     0);
    ck_assert_uint_eq(st.trigger_fail[NODE_TF_ERROR], 1);
    ck_assert_uint_eq(st.trigger_slow, 1);
    ck_assert_uint_eq(st.events, 2);
    ck_assert_uint_eq(st.accepted, 0);
}
END_TEST

/* The word's fields: a reason survives every other bit. */
START_TEST(test_tally_word)
{
    for (unsigned r = 0; r < NODE_TF_MAX; r++) {
        uint32_t w = NODE_DEC_FAIL(r) | NODE_DEC_SLOW | NODE_DEC_ACCEPT | 0xffff;
        ck_assert_uint_eq(NODE_DEC_REASON(w), r);
        ck_assert_uint_eq(w & NODE_DEC_FAILED, NODE_DEC_FAILED);
    }
    ck_assert_uint_eq(NODE_DEC_REASON(NODE_DEC_ACCEPT | NODE_DEC_SLOW | 0xffff), 0);
}
END_TEST

Suite *node_tally_suite(void);   /* called by check-main.c, which has no header */

Suite *node_tally_suite(void)
{
    Suite *s = suite_create("node_tally");
    TCase *tc = tcase_create("tally");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_tally_accept);
    tcase_add_test(tc, test_tally_reject_flags);
    tcase_add_test(tc, test_tally_failed);
    tcase_add_test(tc, test_tally_word);
    suite_add_tcase(s, tc);
    return s;
}
