/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_trust.c - an SFC that trusts only its own farm: unicast only, its readouts only, a source bound to its MAC, sequence resynchronisation. */
#include <check.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_proto.h"
#include "sfc_dp.h"
#include "sfc_rig.h"

/* Fragments to a broadcast or multicast MAC are dropped as not_unicast
 * before the sequence sees them; the event itself builds as if they had
 * not come. A credit frame to broadcast is dropped the same way. */
START_TEST(test_not_unicast)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0, 0, 1};
    struct rig g;
    struct rte_mbuf *m[2];

    rig_up(&g, 1000);
    memset(g.seq, 0, sizeof(g.seq));
    m[0] = fragment_seq(&g, bcast, 0, 1, 0);
    m[1] = fragment_seq(&g, mcast, 1, 1, 0);
    send_frames(g.ro_port, m, 2);
    send_event(&g, 1, ALL);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, N_SOURCES + 2);
    ck_assert_uint_eq(st->drop[SFC_DROP_NOT_UNICAST], 2);
    ck_assert_uint_eq(st->drop[SFC_DROP_NOT_FOR_US], 0);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE], 0);
    ck_assert_uint_eq(st->events_complete, 1);
    ck_assert_uint_eq(st->seq.dup[0] + st->seq.dup[1], 0);
    ck_assert_uint_eq(st->seq.gap[0] + st->seq.gap[1], 0);
    ck_assert_str_eq(sfc_drop_name(SFC_DROP_NOT_UNICAST), "not_unicast");

    /* a credit frame to broadcast grants nothing */
    credit_to(&g, bcast, 0, 1, 4, NULL, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_NOT_UNICAST], 3);
    ck_assert_uint_eq(st->credit_frames, 0);
    ck_assert_uint_eq(st->events_sent, 0);
    credit(&g, 4, NULL, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->credit_frames, 1);
    ck_assert_uint_eq(st->events_sent, 1);
    rig_down(&g);
}
END_TEST

/* With --readout-mac: a fragment from another MAC is foreign_source; a
 * source already heard from one readout and sent by another is
 * source_spoofed; neither reaches the event, the sequence or the throttle
 * targets. */
START_TEST(test_foreign_and_spoofed)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 1000, .n_readouts = 2};
    struct rte_mbuf *m[2];

    rig_up_opts(&g, &o);
    memset(g.seq, 0, sizeof(g.seq));
    send_event(&g, 1, ALL);                         /* binds sources 0..3 to ro_mac */
    m[0] = fragment_from(&g, stranger_mac, g.sfc_rx_mac, 3, 2, 1);
    m[1] = fragment_from(&g, ro2_mac, g.sfc_rx_mac, 2, 2, 1);
    send_frames(g.ro_port, m, 2);
    send_event(&g, 2, ALL);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 2 * N_SOURCES + 2);
    ck_assert_str_eq(sfc_drop_name(SFC_DROP_FOREIGN_SOURCE), "foreign_source");
    ck_assert_str_eq(sfc_drop_name(SFC_DROP_SOURCE_SPOOFED), "source_spoofed");
    ck_assert_uint_eq(st->drop[SFC_DROP_FOREIGN_SOURCE], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_SOURCE_SPOOFED], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE], 0);
    ck_assert_uint_eq(st->events_complete, 2);
    for (unsigned s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(st->seq.gap[s] + st->seq.dup[s] + st->seq.resync[s], 0);
    rig_down(&g);
}
END_TEST

/* Without --readout-mac any MAC may send, but a source stays bound to the
 * first MAC heard for it. */
START_TEST(test_source_bound_without_list)
{
    struct rig g;
    struct rte_mbuf *m[2];

    rig_up(&g, 1000);
    m[0] = fragment_from(&g, ro2_mac, g.sfc_rx_mac, 0, 1, 0);
    m[1] = fragment_from(&g, stranger_mac, g.sfc_rx_mac, 1, 1, 0);
    send_frames(g.ro_port, m, 2);
    m[0] = fragment_from(&g, stranger_mac, g.sfc_rx_mac, 0, 1, 1);   /* 0 is ro2's */
    m[1] = fragment_from(&g, ro_mac, g.sfc_rx_mac, 1, 1, 1);         /* 1 is stranger's */
    send_frames(g.ro_port, m, 2);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_SOURCE_SPOOFED], 2);
    ck_assert_uint_eq(st->drop[SFC_DROP_FOREIGN_SOURCE], 0);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE], 0);
    struct sfc_gauges gg;
    sfc_dp_gauges(g.dp, &gg);
    ck_assert_uint_eq(gg.building, 1);
    rig_down(&g);
}
END_TEST

/* A sequence number beyond the window is a resynchronisation, not 2^31
 * gaps: a lone forged one changes nothing else; a real jump (the number
 * after it comes next) re-bases the sequence, and gaps count from there. */
START_TEST(test_sequence_resync)
{
    static const struct { uint16_t s; uint32_t seq; } f[] = {
        {0, 0}, {0, 1}, {0, 2}, {0, 0x80000002u}, {0, 3}, {0, 4},     /* forged */
        {1, 0}, {1, 1}, {1, 1000000}, {1, 1000001}, {1, 1000003},    /* restart, 1 lost */
        {2, 0}, {2, 65535}, {2, 65536 + 65536},                      /* in, beyond */
        {3, 100000}, {3, 100001}, {3, 100002}, {3, 100000},          /* late start: window there */
    };
    struct rig g;
    struct rte_mbuf *m[32];
    unsigned n = sizeof(f) / sizeof(f[0]);

    rig_up(&g, 1000);
    for (unsigned i = 0; i < n; i++)
        m[i] = fragment_seq(&g, g.sfc_rx_mac, f[i].s, 100 + i, f[i].seq);
    send_frames(g.ro_port, m, (uint16_t)n);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, n);
    static const uint64_t gap[] = {0, 1, 65534, 0}, resync[] = {1, 1, 1, 0},
                          reorder[] = {0, 0, 0, 0}, dup[] = {0, 0, 0, 1};
    for (unsigned s = 0; s < N_SOURCES; s++) {
        ck_assert_uint_eq(st->seq.gap[s], gap[s]);
        ck_assert_uint_eq(st->seq.resync[s], resync[s]);
        ck_assert_uint_eq(st->seq.reorder[s], reorder[s]);
        ck_assert_uint_eq(st->seq.dup[s], dup[s]);
    }
    rig_down(&g);
}
END_TEST

/* With --readout-mac, throttle frames go to the configured readouts (one
 * never heard included) and to nobody else, whoever sent frames. */
START_TEST(test_throttle_to_configured)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 10000, .n_readouts = 2};
    struct rte_mbuf *rx[32];
    unsigned to_ro = 0, to_ro2 = 0, other = 0;
    uint16_t n;

    rig_up_opts(&g, &o);
    struct rte_mbuf *m = fragment_from(&g, stranger_mac, g.sfc_rx_mac, 0, 999, 0);
    send_frames(g.ro_port, &m, 1);
    for (uint64_t id = 0; id < 48; id++)            /* 48 held: on */
        send_event(&g, id, ALL);
    poll_n(&g, 16);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->drop[SFC_DROP_FOREIGN_SOURCE], 1);
    ck_assert_uint_eq(st->throttle_on, 1);
    while ((n = rte_eth_rx_burst(g.ro_port, 0, rx, 32)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            const uint8_t *p = rte_pktmbuf_mtod(rx[i], const uint8_t *);
            to_ro += memcmp(p, ro_mac, 6) == 0;
            to_ro2 += memcmp(p, ro2_mac, 6) == 0;
            other += memcmp(p, ro_mac, 6) != 0 && memcmp(p, ro2_mac, 6) != 0;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
    ck_assert_uint_ge(to_ro, 1);                    /* "on", and a refresh after 50 ms */
    ck_assert_uint_eq(to_ro2, to_ro);
    ck_assert_uint_eq(other, 0);
    ck_assert_uint_eq(st->throttle_frames, to_ro + to_ro2);
    rig_down(&g);
}
END_TEST

Suite *sfc_trust_suite(void);

Suite *sfc_trust_suite(void)
{
    Suite *s = suite_create("sfc_trust");
    TCase *tc = tcase_create("sfc_trust");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_not_unicast);
    tcase_add_test(tc, test_foreign_and_spoofed);
    tcase_add_test(tc, test_source_bound_without_list);
    tcase_add_test(tc, test_sequence_resync);
    tcase_add_test(tc, test_throttle_to_configured);
    suite_add_tcase(s, tc);
    return s;
}
