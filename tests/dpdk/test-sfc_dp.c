/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_dp.c - the SFC data plane under EAL over crossed net_ring ports: zero copy, credits, timeouts, rejects, faults. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_idset.h"
#include "ebf_proto.h"
#include "ebf_util.h"
#include "sfc_dp.h"
#include "sfc_rig.h"

/* A complete event waits for credit, then goes out in the very mbufs the
 * SFC received, each with its event frame's headers in front of its
 * fragment; the ack frees them all. */
START_TEST(test_zero_copy_dispatch_and_ack)
{
    struct rig g;
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    rig_up(&g, 1000);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        orig[s] = fragment(&g, g.sfc_rx_mac, s, 7);
    send_frames(g.ro_port, orig, N_SOURCES);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, N_SOURCES);
    ck_assert_uint_eq(st->events_complete, 1);
    ck_assert_uint_eq(st->events_sent, 0);          /* no credit yet */
    ck_assert_uint_eq(node_rx(&g, rx, 16), 0);

    credit(&g, 2, NULL, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->credits_granted, 2);
    ck_assert_uint_eq(st->events_sent, 1);
    uint16_t n = node_rx(&g, rx, 16);
    ck_assert_uint_eq(n, N_SOURCES);                /* 48 + 2 x 1040 > 1500 */
    ck_assert_uint_eq(st->frames_tx, N_SOURCES);
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *h = rx[i];
        struct ebf_event_hdr eh;
        /* One segment: the received frame itself, the event frame's
         * headers in its headroom, in front of the fragment it kept. */
        ck_assert_ptr_eq(h, orig[i]);
        ck_assert_uint_eq(h->nb_segs, 1);
        ck_assert_ptr_null(h->next);
        ck_assert_uint_eq(h->data_len, EBF_ETH_HLEN + EBF_EVENT_HLEN + EBF_FRAG_HLEN + FRAG_LEN);
        ck_assert_uint_eq(h->pkt_len, h->data_len);
        ck_assert_int_eq(ebf_event_parse(rte_pktmbuf_mtod(h, uint8_t *) + EBF_ETH_HLEN,
                                         EBF_EVENT_HLEN, &eh), EBF_R_OK);
        ck_assert_uint_eq(eh.event_id, 7);
        ck_assert_uint_eq(eh.frame_index, i);
        ck_assert_uint_eq(eh.frame_count, N_SOURCES);
        ck_assert_uint_eq(eh.n_pieces, 1);
        ck_assert_uint_eq(eh.flags, 0);
        ck_assert_uint_eq(eh.event_bytes, N_SOURCES * FRAG_LEN);
        ck_assert_uint_eq(ebf_present_count(eh.present), N_SOURCES);
        /* Byte for byte frame 0's headers (written whole) but for frame_index
         * (event header bytes 16-17) and n_pieces (20-21): the later frames'
         * are frame 0's copied and those two rewritten. */
        const uint8_t *p = rte_pktmbuf_mtod(h, uint8_t *), *p0 = rte_pktmbuf_mtod(rx[0], uint8_t *);
        ck_assert_int_eq(memcmp(p, p0, EBF_ETH_HLEN + 16), 0);
        ck_assert_uint_eq(p[EBF_ETH_HLEN + 16] << 8 | p[EBF_ETH_HLEN + 17], i);
        ck_assert_int_eq(memcmp(p + EBF_ETH_HLEN + 18, p0 + EBF_ETH_HLEN + 18, 2), 0);
        ck_assert_int_eq(memcmp(p + EBF_ETH_HLEN + 22, p0 + EBF_ETH_HLEN + 22, EBF_EVENT_HLEN - 22),
                         0);
        /* Zero copy: the piece is where the received fragment header was
         * (after its Ethernet header), the event headers just before it. */
        ck_assert(RTE_MBUF_DIRECT(h));
        ck_assert_uint_eq(h->data_off, RTE_PKTMBUF_HEADROOM - EBF_EVENT_HLEN);
        struct ebf_frag_hdr fh;
        size_t used;
        ck_assert_int_eq(ebf_frag_parse(p + EBF_ETH_HLEN + EBF_EVENT_HLEN,
                                        EBF_FRAG_HLEN + FRAG_LEN, N_SOURCES, 1, &fh, &used),
                         EBF_R_OK);
        ck_assert_uint_eq(fh.source, i);
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[i]), 2);   /* SFC + in flight */
    }
    rte_pktmbuf_free_bulk(rx, n);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 1);  /* held until acked */

    struct ebf_ack ack = {.event_id = 7, .decision = EBF_DEC_ACCEPT};
    credit(&g, 1, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    ck_assert_uint_eq(st->acked_accept, 1);
    ck_assert_uint_eq(st->ack_unknown, 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);    /* all released */

    /* A second ack of the same event is unknown and changes nothing. */
    credit(&g, 0, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    ck_assert_uint_eq(st->ack_unknown, 1);
    rig_down(&g);
}
END_TEST

/* An event missing a source goes out after the timeout, flagged incomplete,
 * with the missing source named and counted. */
START_TEST(test_timeout_incomplete)
{
    struct rig g;
    struct rte_mbuf *m[N_SOURCES], *rx[16];

    rig_up(&g, 20);
    credit(&g, 4, NULL, 0);
    for (uint16_t s = 0; s < N_SOURCES - 1; s++)
        m[s] = fragment(&g, g.sfc_rx_mac, s, 9);
    send_frames(g.ro_port, m, N_SOURCES - 1);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_sent, 0);
    usleep(40 * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 1);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(st->events_complete, 0);
    ck_assert_uint_eq(st->missing_by_source[N_SOURCES - 1], 1);
    ck_assert_uint_eq(st->missing_by_source[0], 0);
    uint16_t n = node_rx(&g, rx, 16);
    ck_assert_uint_eq(n, N_SOURCES - 1);
    struct ebf_event_hdr eh;
    ck_assert_int_eq(ebf_event_parse(rte_pktmbuf_mtod(rx[0], uint8_t *) + EBF_ETH_HLEN,
                                     EBF_EVENT_HLEN, &eh), EBF_R_OK);
    ck_assert_uint_eq(eh.flags, EBF_EVF_INCOMPLETE);
    ck_assert_uint_eq(eh.present[0], 0x7);
    ck_assert_uint_eq(eh.event_bytes, (N_SOURCES - 1) * FRAG_LEN);
    rte_pktmbuf_free_bulk(rx, n);

    /* The missing piece arriving now is late, counted, and freed. */
    m[0] = fragment(&g, g.sfc_rx_mac, N_SOURCES - 1, 9);
    send_frames(g.ro_port, m, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_LATE], 1);
    rig_down(&g);
}
END_TEST

/* Build time runs on the readout's clock: from the earliest transmit
 * timestamp of an event's pieces to the receive burst that completed it
 * (build_ns), or to its timeout (build_timeout_ns, its own histogram). */
START_TEST(test_build_time_from_transmit)
{
    struct rig g;
    struct rte_mbuf *m[N_SOURCES];

    rig_up(&g, 20);
    credit(&g, 4, NULL, 0);
    uint64_t t0 = ebf_now_ns();
    for (uint16_t s = 0; s < N_SOURCES; s++) {
        rig_tx_ns = t0 - (s == 1 ? 5000000 : 1000000);     /* source 1 sent 5 ms ago */
        m[s] = fragment(&g, g.sfc_rx_mac, s, 7);
    }
    send_frames(g.ro_port, m, N_SOURCES);
    poll_n(&g, 4);
    uint64_t t1 = ebf_now_ns();
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->build_ns.count, 1);
    ck_assert_uint_ge(st->build_ns.max, 5000000);
    ck_assert_uint_le(st->build_ns.max, t1 - t0 + 5000000);
    ck_assert_uint_eq(st->build_timeout_ns.count, 0);
    /* One source short: timed out after 20 ms, counted apart. */
    rig_tx_ns = ebf_now_ns() - 2000000;
    for (uint16_t s = 0; s < N_SOURCES - 1; s++)
        m[s] = fragment(&g, g.sfc_rx_mac, s, 9);
    send_frames(g.ro_port, m, N_SOURCES - 1);
    poll_n(&g, 4);
    usleep(40 * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(st->build_timeout_ns.count, 1);
    ck_assert_uint_ge(st->build_timeout_ns.max, 22000000);
    ck_assert_uint_lt(st->build_timeout_ns.max, 2000000000);
    ck_assert_uint_eq(st->build_ns.count, 1);
    rig_tx_ns = 1000;
    rig_down(&g);
}
END_TEST

/* Event ids across 2^16 and 2^32, with ids that share a done-window slot
 * (equal modulo 65536): each is built, sent and acked exactly once; a piece
 * sent again afterwards never builds an event twice. */
static const uint64_t wide_ids[] = {
    65534, 65535, 65536, 65537, 131072,
    (1ull << 32) - 2, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1, (1ull << 32) + 65536,
    10000000000ull, 10000000001ull,
};
#define N_WIDE (sizeof(wide_ids) / sizeof(wide_ids[0]))

START_TEST(test_ids_beyond_16_and_32_bits)
{
    struct rig g;
    struct rte_mbuf *m[N_SOURCES], *rx[64];
    struct ebf_ack acks[N_WIDE];
    struct ebf_idset want;
    uint16_t n;

    rig_up(&g, 1000);
    credit(&g, 64, NULL, 0);
    ebf_idset_init(&want);
    for (unsigned k = 0; k < N_WIDE; k++) {
        for (uint16_t s = 0; s < N_SOURCES; s++)
            m[s] = fragment_seq(&g, g.sfc_rx_mac, s, wide_ids[k], k);
        send_frames(g.ro_port, m, N_SOURCES);
        poll_n(&g, 4);
        acks[k] = (struct ebf_ack){.event_id = wide_ids[k], .decision = EBF_DEC_REJECT};
        ebf_idset_add(&want, wide_ids[k]);
    }
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_complete, N_WIDE);
    ck_assert_uint_eq(st->events_incomplete, 0);
    ck_assert_uint_eq(st->events_sent, N_WIDE);
    unsigned frames = 0;
    while ((n = node_rx(&g, rx, 64)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            struct ebf_event_hdr eh;
            ck_assert_int_eq(ebf_event_parse(rte_pktmbuf_mtod(rx[i], uint8_t *) + EBF_ETH_HLEN,
                                             EBF_EVENT_HLEN, &eh), EBF_R_OK);
            ck_assert_uint_eq(eh.event_id, wide_ids[frames / N_SOURCES]);   /* full 64 bits */
            frames++;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
    ck_assert_uint_eq(frames, N_WIDE * N_SOURCES);
    credit(&g, 0, acks, N_WIDE);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, N_WIDE);
    ck_assert_uint_eq(st->acked_reject, N_WIDE);
    ck_assert_uint_eq(st->ack_unknown, 0);
    ck_assert_int_eq(memcmp(&want, &st->ledger_acked, sizeof(want)), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    /* Every event's first piece again: dropped (its event was sent, or an
     * id of its window slot came later), none built again. */
    for (unsigned k = 0; k < N_WIDE; k++) {
        m[0] = fragment_seq(&g, g.sfc_rx_mac, 0, wide_ids[k], N_WIDE + k);
        send_frames(g.ro_port, m, 1);
        poll_n(&g, 2);
    }
    ck_assert_uint_eq(st->events_complete, N_WIDE);
    ck_assert_uint_eq(st->events_sent, N_WIDE);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE_SENT] + st->drop[SFC_DROP_STALE], N_WIDE);
    ck_assert_uint_eq(node_rx(&g, rx, 64), 0);
    rig_down(&g);
}
END_TEST

/* Malformed or misaddressed frames are counted by reason and freed. */
START_TEST(test_rejects_counted)
{
    struct rig g;
    struct rte_mbuf *m[4];
    static const uint8_t other[6] = {0x02, 0x99, 0, 0, 0, 1};

    rig_up(&g, 1000);
    m[0] = fragment(&g, g.sfc_rx_mac, 0, 1);
    rte_pktmbuf_mtod(m[0], uint8_t *)[EBF_ETH_HLEN + EBF_FRAG_HLEN + 5] ^= 0x10;
    m[1] = fragment(&g, g.sfc_rx_mac, 1, 1);
    rte_pktmbuf_trim(m[1], FRAG_LEN / 2);
    m[2] = fragment(&g, other, 2, 1);
    m[3] = fragment(&g, g.sfc_rx_mac, 3, 1);
    rte_pktmbuf_mtod(m[3], uint8_t *)[EBF_ETH_HLEN] = 9;        /* version 9 */
    send_frames(g.ro_port, m, 4);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, 4);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_CHECKSUM], 1);
    ck_assert_uint_eq(st->reject[EBF_R_TRUNCATED], 1);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_VERSION], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_NOT_FOR_US], 1);
    ck_assert_uint_eq(st->events_complete + st->events_incomplete, 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* --- Faults ---------------------------------------------------------------- */

/* Duplicates while building, after the event was sent and after it was
 * acked are dropped and counted apart from late pieces (a source the sent
 * event lacked, counted by source); nothing reaches the node twice. */
START_TEST(test_duplicates_and_late)
{
    struct rig g;
    uint64_t ids[64];
    uint8_t to[64];

    rig_up(&g, 20);
    memset(g.seq, 0, sizeof(g.seq));
    credit(&g, 4, NULL, 0);
    send_event(&g, 1, ALL);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_sent, 1);
    send_event(&g, 1, 1u << 2);                     /* after sent, before ack */
    send_event(&g, 2, 0x7);                         /* source 3 missing */
    send_event(&g, 2, 0x1);                         /* while building */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE_SENT], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE], 1);
    usleep(40 * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(st->events_incomplete, 1);
    send_event(&g, 2, 1u << 3);                     /* late: 2 went without 3 */
    send_event(&g, 2, 1u << 1);                     /* 2 delivered source 1 */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_LATE], 1);
    ck_assert_uint_eq(st->late_by_source[3], 1);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE_SENT], 2);

    struct ebf_ack acks[2] = {{.event_id = 1, .decision = EBF_DEC_ACCEPT},
                              {.event_id = 2, .decision = EBF_DEC_REJECT}};
    credit(&g, 2, acks, 2);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 2);
    send_event(&g, 1, ALL);                         /* all four after the ack */
    send_event(&g, 2, 1u << 3);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->drop[SFC_DROP_DUPLICATE_SENT], 6);
    ck_assert_uint_eq(st->drop[SFC_DROP_LATE], 2);
    ck_assert_uint_eq(st->late_by_source[3], 2);
    ck_assert_uint_eq(st->drop[SFC_DROP_STALE], 0);
    ck_assert_uint_eq(st->events_complete, 1);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(st->last_by_source[N_SOURCES - 1], 1);
    /* 4 frames of event 1, 3 of event 2, once each */
    unsigned n = node_take(&g, ids, to, 64), of1 = 0, of2 = 0;
    ck_assert_uint_eq(n, 7);
    for (unsigned i = 0; i < n; i++) {
        of1 += ids[i] == 1;
        of2 += ids[i] == 2;
    }
    ck_assert_uint_eq(of1, 4);
    ck_assert_uint_eq(of2, 3);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* Frames missing from a source's sequence are counted for that source,
 * whatever becomes of their events; a frame that fills a gap later is a
 * reorder, one seen before a duplicate. */
START_TEST(test_sequence_gaps)
{
    static const struct { uint16_t s; uint32_t seq; } f[] = {
        {0, 0}, {0, 1}, {0, 2}, {0, 5}, {0, 6},       /* 3, 4 lost */
        {1, 0}, {1, 3}, {1, 1}, {1, 3},               /* 2 lost, 1 late, 3 twice */
        {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4},
        {3, 10},                                      /* 0..9 lost */
    };
    struct rig g;
    struct rte_mbuf *m[16];
    unsigned n = sizeof(f) / sizeof(f[0]);

    rig_up(&g, 1000);
    for (unsigned i = 0; i < n; i++)
        m[i] = fragment_seq(&g, g.sfc_rx_mac, f[i].s, 100 + i, f[i].seq);
    send_frames(g.ro_port, m, (uint16_t)n);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, n);
    static const uint64_t gap[] = {2, 2, 0, 10}, reorder[] = {0, 1, 0, 0}, dup[] = {0, 1, 0, 0};
    for (unsigned s = 0; s < N_SOURCES; s++) {
        ck_assert_uint_eq(st->seq.gap[s], gap[s]);
        ck_assert_uint_eq(st->seq.reorder[s], reorder[s]);
        ck_assert_uint_eq(st->seq.dup[s], dup[s]);
    }
    rig_down(&g);
}
END_TEST

/* A source's sequence number wraps at 2^32 (after 4.3e9 frames, days at
 * line rate): counted in order, no gap. Two jumps of half the range stand
 * for the frames in between (each a resync, re-based on the next number). */
START_TEST(test_sequence_wraps_at_2_32)
{
    static const uint32_t seq[] = {0, 1, 2147483648u, 2147483649u, 4294967293u, 4294967294u,
                                   4294967295u, 0, 1, 2};
    const unsigned n = sizeof(seq) / sizeof(seq[0]);
    struct rte_mbuf *m[10];
    struct rig g;

    rig_up(&g, 1000);
    for (unsigned i = 0; i < n; i++)
        m[i] = fragment_seq(&g, g.sfc_rx_mac, 0, 200 + i, seq[i]);
    send_frames(g.ro_port, m, (uint16_t)n);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->rx_frames, n);
    ck_assert_uint_eq(st->seq.resync[0], 2);
    ck_assert_uint_eq(st->seq.gap[0], 0);
    ck_assert_uint_eq(st->seq.reorder[0], 0);
    ck_assert_uint_eq(st->seq.dup[0], 0);
    rig_down(&g);
}
END_TEST

/* Node 0 goes silent: after the node timeout it is dead, its credits are
 * revoked, its two unacked events go to node 1 (the held mbufs, freed by
 * node 0 already, chained again); its acks that come afterwards are late,
 * counted and ignored; no event is lost and each is acked once. */
START_TEST(test_dead_node_redispatch)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 1000, .n_nodes = 2, .node_timeout_ms = 50};
    uint64_t ids[64];
    uint8_t to[64];

    rig_up_opts(&g, &o);
    credit_from(&g, 0, 7, 2, NULL, 0);
    credit_from(&g, 1, 7, 2, NULL, 0);
    poll_n(&g, 2);
    for (uint64_t id = 1; id <= 4; id++)
        send_event(&g, id, ALL);
    poll_n(&g, 8);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_sent, 4);
    ck_assert_uint_eq(st->node_sent[0], 2);
    ck_assert_uint_eq(st->node_sent[1], 2);
    unsigned n = node_take(&g, ids, to, 64);
    ck_assert_uint_eq(n, 16);
    for (unsigned i = 0; i < n; i++)
        ck_assert_uint_eq(g.took_flags[i], 0);      /* first sendings: not redispatched */
    uint64_t dead_ids[2], live_ids[2];
    unsigned nd = 0, nl = 0;
    for (unsigned i = 0; i < n; i += N_SOURCES) {
        if (to[i] == 0)
            dead_ids[nd++] = ids[i];
        else
            live_ids[nl++] = ids[i];
    }
    ck_assert_uint_eq(nd, 2);
    ck_assert_uint_eq(nl, 2);

    /* node 1 acks and stays alive (heartbeats); node 0 says nothing */
    struct ebf_ack a[2] = {{.event_id = live_ids[0], .decision = EBF_DEC_ACCEPT},
                           {.event_id = live_ids[1], .decision = EBF_DEC_REJECT}};
    credit_from(&g, 1, 7, 2, a, 2);
    for (int t = 0; t < 10; t++) {
        usleep(10 * 1000);
        credit_from(&g, 1, 7, 0, NULL, 0);
        poll_n(&g, 4);
    }
    ck_assert_uint_eq(st->nodes_dead, 1);
    ck_assert_uint_eq(st->redispatched, 2);
    struct sfc_gauges gg;
    sfc_dp_gauges(g.dp, &gg);
    ck_assert_uint_eq(gg.alive[0], 0);
    ck_assert_uint_eq(gg.alive[1], 1);
    ck_assert_uint_eq(gg.credits[0], 0);
    ck_assert_uint_eq(gg.inflight[0], 0);
    ck_assert_uint_eq(st->events_sent, 6);
    n = node_take(&g, ids, to, 64);
    ck_assert_uint_eq(n, 8);
    for (unsigned i = 0; i < n; i++) {
        ck_assert_uint_eq(to[i], 1);
        ck_assert(ids[i] == dead_ids[0] || ids[i] == dead_ids[1]);
        ck_assert_uint_eq(g.took_flags[i], EBF_EVF_REDISPATCHED);  /* node 0 may store it too */
    }

    /* node 1 acks them; node 0's acks come late and change nothing */
    struct ebf_ack b[2] = {{.event_id = dead_ids[0], .decision = EBF_DEC_ACCEPT},
                           {.event_id = dead_ids[1], .decision = EBF_DEC_ACCEPT}};
    credit_from(&g, 1, 7, 2, b, 2);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 4);
    credit_from(&g, 0, 7, 2, b, 2);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 4);
    ck_assert_uint_eq(st->late_acks, 2);
    ck_assert_uint_eq(st->late_accepted, 2);
    ck_assert_uint_eq(st->ack_unknown, 0);
    ck_assert_uint_eq(st->revived, 1);
    ck_assert_uint_eq(st->rejoins, 0);
    ck_assert_uint_eq(st->acked_accept, 3);
    ck_assert_uint_eq(st->acked_reject, 1);

    drain(&g);
    ck_assert_uint_eq(lost_total(st), 0);
    /* The ledger: ids 1..4 acked exactly once; the late ones listed apart. */
    struct ebf_idset d;
    uint64_t miss[8], extra[8];
    unsigned n_miss, n_extra;
    ebf_idset_init(&d);
    ebf_idset_add_range(&d, 1, 4);
    ebf_idset_merge(&d, &st->ledger_acked, -1);
    ck_assert(ebf_idset_empty(&d));
    d = st->ledger_late;
    ck_assert_int_eq(ebf_idset_list(&d, miss, &n_miss, extra, &n_extra, 8), 1);
    ck_assert_uint_eq(n_miss, 2);
    ck_assert_uint_eq(miss[0], dead_ids[0] < dead_ids[1] ? dead_ids[0] : dead_ids[1]);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* A node that restarts (new epoch) before its timeout: the old incarnation
 * is dead, its unacked event goes out again, to the new incarnation; an
 * ack of the old epoch is late and its credits are ignored. */
START_TEST(test_rejoin_new_epoch)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 1000, .n_nodes = 1, .node_timeout_ms = 1000};
    uint64_t ids[16];
    uint8_t to[16];

    rig_up_opts(&g, &o);
    credit_from(&g, 0, 100, 2, NULL, 0);
    send_event(&g, 5, ALL);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(node_take(&g, ids, to, 16), N_SOURCES);
    credit_from(&g, 0, 101, 2, NULL, 0);            /* restarted */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->nodes_dead, 1);
    ck_assert_uint_eq(st->rejoins, 1);
    ck_assert_uint_eq(st->redispatched, 1);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(node_take(&g, ids, to, 16), N_SOURCES);
    ck_assert_uint_eq(ids[0], 5);
    struct sfc_gauges gg;
    sfc_dp_gauges(g.dp, &gg);
    ck_assert_uint_eq(gg.epoch[0], 101);
    ck_assert_uint_eq(gg.credits[0], 1);
    ck_assert_uint_eq(gg.inflight[0], 1);

    struct ebf_ack a = {.event_id = 5, .decision = EBF_DEC_ACCEPT};
    credit_from(&g, 0, 100, 1, &a, 1);              /* the old incarnation */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->late_acks, 1);
    ck_assert_uint_eq(st->acks, 0);
    sfc_dp_gauges(g.dp, &gg);
    ck_assert_uint_eq(gg.credits[0], 1);            /* its credit ignored */
    credit_from(&g, 0, 101, 1, &a, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    sfc_dp_gauges(g.dp, &gg);
    ck_assert_uint_eq(gg.credits[0], 2);
    ck_assert_uint_eq(gg.inflight[0], 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST

/* Throttle frames read at the readout port: counts of "on" and "off". */
static void ro_throttle(struct rig *g, unsigned *on, unsigned *off)
{
    struct rte_mbuf *rx[32];
    uint16_t n;

    *on = *off = 0;
    while ((n = rte_eth_rx_burst(g->ro_port, 0, rx, 32)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            const uint8_t *p = rte_pktmbuf_mtod(rx[i], const uint8_t *);
            struct ebf_throttle_hdr h;
            ck_assert_int_eq(memcmp(p, ro_mac, 6), 0);
            ck_assert_int_eq(ebf_throttle_parse(p + EBF_ETH_HLEN, rx[i]->data_len - EBF_ETH_HLEN,
                                                &h), EBF_R_OK);
            *on += h.on;
            *off += !h.on;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
}

/* With 64 slots the readouts are throttled when 48 events are held and
 * released at 32, not in between (hysteresis). */
START_TEST(test_throttle_hysteresis)
{
    struct rig g;
    struct ebf_ack acks[16];
    unsigned on, off;

    rig_up(&g, 10000);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    for (uint64_t id = 0; id < 47; id++)
        send_event(&g, id, ALL);
    poll_n(&g, 12);
    ro_throttle(&g, &on, &off);
    ck_assert_uint_eq(st->events_complete, 47);
    ck_assert_uint_eq(on + off, 0);
    send_event(&g, 47, 0x1);                        /* 48 held: on */
    poll_n(&g, 2);
    ro_throttle(&g, &on, &off);
    ck_assert_uint_eq(on, 1);
    ck_assert_uint_eq(off, 0);
    ck_assert_uint_eq(st->throttle_on, 1);

    credit(&g, 16, NULL, 0);                        /* 16 sent, still held */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 16);
    for (unsigned i = 0; i < 16; i++)
        acks[i] = (struct ebf_ack){.event_id = i, .decision = EBF_DEC_REJECT};
    credit(&g, 0, acks, 15);                        /* 33 held: still on */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->throttle_off, 0);
    credit(&g, 0, acks + 15, 1);                    /* 32 held: off */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->throttle_off, 1);
    ro_throttle(&g, &on, &off);
    ck_assert_uint_eq(off, 1);
    ck_assert_uint_le(on, 1);                       /* a refresh after 50 ms at most */

    for (uint64_t id = 100; id < 115; id++)         /* back to 47: still off */
        send_event(&g, id, ALL);
    poll_n(&g, 8);
    ck_assert_uint_eq(st->throttle_on, 1);
    send_event(&g, 115, ALL);                       /* 48: on again */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->throttle_on, 2);
    ro_throttle(&g, &on, &off);
    ck_assert_uint_ge(on, 1);
    ck_assert_uint_eq(off, 0);
    ck_assert_uint_eq(st->throttle_tx_fail, 0);
    ck_assert_uint_ge(st->throttle_frames, 3);     /* 2 on, 1 off, and refreshes */
    rig_down(&g);
}
END_TEST

/* No node alive: the only node goes silent holding two events; they go
 * back to the queue, the queue fills until the readouts are throttled, and
 * a stop in that state loses every held event as no_node, ids recorded. */
/* A readout that does not obey the throttle in time (descheduled on shared
 * cores) is held back by the link, not refused events: the SFC stops
 * reading its input while fewer slots are free than one burst could open
 * (min(burst 32, capacity 64 / 4) = 16). 80 events of 3 of 4 sources (240
 * frames, 3 per event): five bursts of 32 frames open events 0..53 (54
 * building, 10 slots free), then the port is left alone and the rest
 * waits in the link; nothing is refused as event_table_full. */
START_TEST(test_intake_leaves_room_for_a_burst)
{
    struct rig g;
    struct rte_mbuf *m[3];
    struct sfc_gauges ga;

    rig_up(&g, 10000);
    for (uint64_t id = 0; id < 80; id++) {
        for (uint16_t s = 0; s < 3; s++)
            m[s] = fragment(&g, g.sfc_rx_mac, s, id);
        send_frames(g.ro_port, m, 3);
    }
    poll_n(&g, 20);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    sfc_dp_gauges(g.dp, &ga);
    ck_assert_uint_eq(ga.building, 54);
    ck_assert_uint_eq(ga.free_slots, 10);
    ck_assert_uint_eq(st->lost[SFC_LOST_EVENT_TABLE_FULL], 0);
    ck_assert_uint_ge(st->backpressure_polls, 15);
    struct rte_eth_stats es;
    ck_assert_int_eq(rte_eth_stats_get(g.sfc_rx, &es), 0);
    ck_assert_uint_eq(es.ipackets, 160);
    rig_down(&g);
}
END_TEST

START_TEST(test_no_node_alive)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 10000, .n_nodes = 1, .node_timeout_ms = 50};
    uint64_t ids[64];
    uint8_t to[64];
    unsigned on, off;

    rig_up_opts(&g, &o);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit_from(&g, 0, 3, 2, NULL, 0);
    poll_n(&g, 2);
    send_event(&g, 0, ALL);
    send_event(&g, 1, ALL);
    poll_n(&g, 8);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(node_take(&g, ids, to, 64), 2 * N_SOURCES);
    usleep(80 * 1000);                              /* past the node timeout */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->nodes_dead, 1);
    for (uint64_t id = 2; id < 48; id++)            /* 48 held: throttle on */
        send_event(&g, id, ALL);
    poll_n(&g, 16);
    ck_assert_uint_eq(st->events_complete, 48);
    ck_assert_uint_eq(st->events_sent, 2);          /* nothing more went out */
    ck_assert_uint_eq(st->throttle_on, 1);
    ro_throttle(&g, &on, &off);
    ck_assert_uint_eq(on, 1);
    ck_assert_uint_eq(off, 0);

    drain(&g);
    ck_assert_uint_eq(st->lost[SFC_LOST_STOPPED_NO_CREDIT], 48);
    ck_assert_uint_eq(lost_total(st), 48);
    ck_assert_uint_eq(st->acks, 0);
    struct ebf_idset d;
    ebf_idset_init(&d);
    ebf_idset_add_range(&d, 0, 48);
    ebf_idset_merge(&d, &st->ledger_lost, -1);
    ck_assert(ebf_idset_empty(&d));
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    rig_down(&g);
}
END_TEST
Suite *sfc_dp_suite(void);

Suite *sfc_dp_suite(void)
{
    Suite *s = suite_create("sfc_dp");
    TCase *tc = tcase_create("sfc_dp");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_zero_copy_dispatch_and_ack);
    tcase_add_test(tc, test_timeout_incomplete);
    tcase_add_test(tc, test_build_time_from_transmit);
    tcase_add_test(tc, test_ids_beyond_16_and_32_bits);
    tcase_add_test(tc, test_rejects_counted);
    tcase_add_test(tc, test_duplicates_and_late);
    tcase_add_test(tc, test_sequence_gaps);
    tcase_add_test(tc, test_sequence_wraps_at_2_32);
    tcase_add_test(tc, test_dead_node_redispatch);
    tcase_add_test(tc, test_rejoin_new_epoch);
    tcase_add_test(tc, test_throttle_hysteresis);
    tcase_add_test(tc, test_intake_leaves_room_for_a_burst);
    tcase_add_test(tc, test_no_node_alive);
    suite_add_tcase(s, tc);
    return s;
}
