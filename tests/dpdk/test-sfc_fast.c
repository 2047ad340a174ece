/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_fast.c - the SFC's fast-path choices under EAL: the CRC policy, node ports' queues and refusals. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_proto.h"
#include "sfc_dp.h"
#include "sfc_rig.h"

/* Flip one payload byte of a fragment frame (its CRC no longer matches). */
static void corrupt(struct rte_mbuf *m)
{
    rte_pktmbuf_mtod(m, uint8_t *)[EBF_ETH_HLEN + EBF_FRAG_HLEN + 100] ^= 0x5a;
}

/* Pieces of the event frames at the node port whose CRC is wrong, and the
 * frames seen. */
static unsigned node_bad_pieces(struct rig *g, unsigned *frames)
{
    struct rte_mbuf *rx[64];
    unsigned bad = 0;
    uint16_t n;

    while ((n = node_rx(g, rx, 64)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            for (struct rte_mbuf *piece = rx[i]->next; piece; piece = piece->next) {
                struct ebf_frag_hdr h;
                size_t used;
                enum ebf_reason r = ebf_frag_parse(rte_pktmbuf_mtod(piece, uint8_t *),
                                                   piece->data_len, N_SOURCES, 1, &h, &used);
                ck_assert(r == EBF_R_OK || r == EBF_R_BAD_CHECKSUM);
                bad += r == EBF_R_BAD_CHECKSUM;
            }
            (*frames)++;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
    return bad;
}

/* --verify sampled, every 4th frame of each source: of 8 corrupted frames
 * of each of sources 0 and 1, the SFC checks and rejects the 1st and the
 * 5th (bad_checksum); the 12 others reach the node, where the end-to-end
 * check finds each: every corrupted frame is counted, once. */
START_TEST(test_verify_sampled_counts_every_corruption)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 20, .verify = SFC_VERIFY_SAMPLED, .verify_every = 4};
    unsigned frames = 0;

    rig_up_opts(&g, &o);
    credit(&g, 16, NULL, 0);
    for (uint64_t id = 0; id < 8; id++) {
        struct rte_mbuf *m[N_SOURCES];
        for (uint16_t s = 0; s < N_SOURCES; s++) {
            m[s] = fragment_seq(&g, g.sfc_rx_mac, s, id, g.seq[s]++);
            if (s < 2)
                corrupt(m[s]);
        }
        send_frames(g.ro_port, m, N_SOURCES);
        poll_n(&g, 2);
    }
    usleep(40 * 1000);
    poll_n(&g, 8);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 8 * N_SOURCES);
    ck_assert_uint_eq(st->rx_verified, 2 * N_SOURCES);        /* frames 0 and 4 of each */
    ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], 4);
    ck_assert_uint_eq(st->events_sent, 8);
    ck_assert_uint_eq(st->events_complete, 6);
    ck_assert_uint_eq(st->events_incomplete, 2);               /* events 0 and 4 */
    ck_assert_uint_eq(st->missing_by_source[0], 2);
    ck_assert_uint_eq(st->missing_by_source[1], 2);
    ck_assert_uint_eq(node_bad_pieces(&g, &frames), 12);
    ck_assert_uint_eq(frames, 8 * N_SOURCES - 4);
    rig_down(&g);
}
END_TEST

/* 4 events whose source 3 is corrupted, under policy v: full checks every
 * frame (the SFC rejects the 4), none checks none (the node finds all 4). */
static void verify_all_or_none(uint8_t v)
{
    {
        struct rig g;
        struct rig_opts o = {.timeout_ms = 20, .verify = v, .verify_every = 4};
        unsigned frames = 0;

        rig_up_opts(&g, &o);
        credit(&g, 16, NULL, 0);
        for (uint64_t id = 0; id < 4; id++) {
            struct rte_mbuf *m[N_SOURCES];
            for (uint16_t s = 0; s < N_SOURCES; s++) {
                m[s] = fragment_seq(&g, g.sfc_rx_mac, s, id, g.seq[s]++);
                if (s == 3)
                    corrupt(m[s]);
            }
            send_frames(g.ro_port, m, N_SOURCES);
            poll_n(&g, 2);
        }
        usleep(40 * 1000);
        poll_n(&g, 8);
        const struct sfc_stats *st = sfc_dp_stats(g.dp);
        int full = v == SFC_VERIFY_FULL;
        ck_assert_uint_eq(st->rx_verified, full ? 4 * N_SOURCES : 0);
        ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], full ? 4 : 0);
        ck_assert_uint_eq(st->events_sent, 4);
        ck_assert_uint_eq(st->events_incomplete, full ? 4 : 0);
        ck_assert_uint_eq(node_bad_pieces(&g, &frames), full ? 0 : 4);
        ck_assert_uint_eq(frames, full ? 4 * (N_SOURCES - 1) : 4 * N_SOURCES);
        rig_down(&g);
    }
}

START_TEST(test_verify_full)
{
    verify_all_or_none(SFC_VERIFY_FULL);
}
END_TEST

START_TEST(test_verify_none)
{
    verify_all_or_none(SFC_VERIFY_NONE);
}
END_TEST

Suite *sfc_fast_suite(void);

Suite *sfc_fast_suite(void)
{
    Suite *s = suite_create("sfc_fast");
    TCase *tc = tcase_create("sfc_fast");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_verify_sampled_counts_every_corruption);
    tcase_add_test(tc, test_verify_full);
    tcase_add_test(tc, test_verify_none);
    suite_add_tcase(s, tc);
    return s;
}
