/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_big.c - events larger than a node port's queue sent over many polls and reassembled, events past --max-event refused, frames past the MTU counted. */
#include <check.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_pattern.h"
#include "node_reasm.h"
#include "sfc_rig.h"
#include "test-eal.h"

#define BIG 1500000u             /* 1,063 pieces at MTU 1500: more frames than a node port's queue */
#define HUGE 10000000u           /* 1,123 pieces at MTU 9000 */
#define SMALL 1000u

static uint32_t piece_max = 1412;   /* the MTU - 48 - 40: the largest piece */

/* One fragment frame of source 0: piece [off, off + len) of a fragment of
 * frag_len bytes of event id, the pattern as payload, sequence seq. */
static struct rte_mbuf *piece(struct rig *g, uint64_t id, uint32_t frag_len, uint32_t off,
                              uint16_t len, uint32_t seq)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};

    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->sfc_rx_mac, 6);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + EBF_FRAG_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + len);
    struct ebf_frag_hdr h = {.source = 0, .seq = seq, .event_id = id, .frag_len = frag_len,
                             .offset = off, .piece_len = len, .tx_ns = 1000};
    ebf_frag_write_pattern(p + EBF_ETH_HLEN, &h);
    return m;
}

/* Send the fragment of event id (frag_len bytes in pieces of at most
 * piece_max) from source 0, polling the SFC and taking what reaches the node
 * (take) between bursts, so that no ring overflows. */
typedef void take_fn(struct rig *g);
static void send_fragment(struct rig *g, uint64_t id, uint32_t frag_len, take_fn *take)
{
    struct rte_mbuf *m[128];
    uint32_t off = 0;

    while (off < frag_len) {
        uint16_t n = 0;
        while (n < 128 && off < frag_len) {
            uint16_t len = (uint16_t)(frag_len - off < piece_max ? frag_len - off : piece_max);
            m[n++] = piece(g, id, frag_len, off, len, g->seq[0]++);
            off += len;
        }
        send_frames(g->ro_port, m, n);
        for (int i = 0; i < 4; i++) {
            poll_n(g, 1);
            take(g);
        }
    }
}

/* The node's side: every event frame verified by the node's reassembly
 * rules into its event (one slot per id, ids 1..8). */
static struct node_ev ev[9];
static uint64_t piece_reject[EBF_R_MAX];
static unsigned frames_at_node;

static void node_verify(struct rig *g)
{
    struct rte_mbuf *rx[64];
    uint16_t n;

    while ((n = node_rx(g, rx, 64)) > 0) {
        for (uint16_t i = 0; i < n; i++) {
            static uint8_t buf[9100];
            const uint8_t *p = rte_pktmbuf_read(rx[i], 0, rx[i]->pkt_len, buf);
            struct ebf_event_hdr h;
            ck_assert_uint_le(rx[i]->pkt_len, piece_max + 88 + EBF_ETH_HLEN);
            ck_assert_int_eq(ebf_event_parse(p + EBF_ETH_HLEN, rx[i]->pkt_len - EBF_ETH_HLEN,
                                             &h), EBF_R_OK);
            ck_assert_uint_lt(h.event_id, 9);
            struct node_ev *e = &ev[h.event_id];
            if (e->frames_got == 0) {
                e->id = h.event_id;
                e->n_sources = h.n_sources;
                e->frame_count = h.frame_count;
                e->bytes = h.event_bytes;
                e->present[0] = h.present[0];
                e->present[1] = h.present[1];
                e->flags = h.flags;
            }
            ck_assert_uint_eq(h.frame_index, e->frames_got);    /* in order */
            node_reasm_header(e, &h);
            struct node_reasm r = node_reasm_start(e, p, p + EBF_ETH_HLEN + EBF_EVENT_HLEN,
                                                   rx[i]->pkt_len - EBF_ETH_HLEN -
                                                       EBF_EVENT_HLEN, h.n_pieces);
            struct node_piece pc;
            while (node_reasm_next(&r, piece_reject, &pc))
                ;
            if (++e->frames_got == e->frame_count)
                node_reasm_finish(e);
            frames_at_node++;
        }
        rte_pktmbuf_free_bulk(rx, n);
    }
}

static void ack(struct rig *g, uint64_t id)
{
    struct ebf_ack a = {.event_id = id, .decision = EBF_DEC_ACCEPT, .status = 0};
    credit(g, 1, &a, 1);
}

/* Five events of one source at mtu, the third of big bytes (frames event
 * frames), between small ones. Every event reaches the node whole and
 * verified by the node's reassembly rules, in order, the big one over many
 * polls with its credit held; nothing is lost. */
static void big_between_small(uint16_t mtu, uint32_t big, uint32_t frames)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 10000, .n_sources = 1, .max_frames = 2048, .mtu = mtu};
    const uint32_t len[] = {0, SMALL, SMALL, big, SMALL, SMALL};

    memset(ev, 0, sizeof(ev));
    memset(piece_reject, 0, sizeof(piece_reject));
    frames_at_node = 0;
    piece_max = mtu - EBF_EVENT_HLEN - EBF_FRAG_HLEN;
    rig_up_opts(&g, &o);
    credit(&g, 8, NULL, 0);
    poll_n(&g, 2);
    for (uint64_t id = 1; id <= 5; id++)
        send_fragment(&g, id, len[id], node_verify);
    for (int i = 0; i < 2000 && ev[5].frames_got < ev[5].frame_count + !ev[5].frame_count; i++) {
        poll_n(&g, 1);
        node_verify(&g);
    }
    for (uint64_t id = 1; id <= 5; id++) {
        ck_assert_uint_eq(ev[id].frames_got, ev[id].frame_count);
        ck_assert_uint_eq(ev[id].got_bytes, len[id]);
        ck_assert_uint_eq(ev[id].bytes, len[id]);
        ck_assert_uint_eq(ev[id].status, 0);
        ack(&g, id);
    }
    ck_assert_uint_eq(ev[3].frame_count, frames);
    ck_assert_uint_eq(frames_at_node, frames + 4);
    for (unsigned r = 0; r < EBF_R_MAX; r++)
        ck_assert_uint_eq(piece_reject[r], 0);
    poll_n(&g, 4);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->events_complete, 5);
    ck_assert_uint_eq(st->events_sent, 5);
    ck_assert_uint_eq(st->frames_tx, frames + 4);
    ck_assert_uint_eq(st->acked_accept, 5);
    drain(&g);
    ck_assert_uint_eq(lost_total(sfc_dp_stats(g.dp)), 0);
    rig_down(&g);
    piece_max = 1412;
}

/* The event found wedging the farm: one source, 1.5 MB at MTU 1500 (1,063
 * pieces and event frames, more than the 1,023 a node port's queue takes). */
START_TEST(test_big_event_between_small)
{
    big_between_small(1500, BIG, 1063);
}
END_TEST

/* 10 MB at MTU 9000 (pieces of 8912 bytes: 1,123 frames). */
START_TEST(test_huge_event_at_9000)
{
    big_between_small(9000, HUGE, 1123);
}
END_TEST

/* --max-event 1 MB: the 1.5 MB event is refused piece by piece
 * (rx.drop.event_too_big, 1,063), never takes a slot, and the small
 * events around it are built and sent. */
START_TEST(test_event_past_max_refused)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 10000, .n_sources = 1, .max_frames = 2048,
                         .max_event = 1000000};
    static const uint32_t len[] = {0, SMALL, SMALL, BIG, SMALL, SMALL};

    memset(ev, 0, sizeof(ev));
    frames_at_node = 0;
    rig_up_opts(&g, &o);
    credit(&g, 8, NULL, 0);
    poll_n(&g, 2);
    for (uint64_t id = 1; id <= 5; id++)
        send_fragment(&g, id, len[id], node_verify);
    poll_n(&g, 8);
    node_verify(&g);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->drop[SFC_DROP_EVENT_TOO_BIG], 1063);
    ck_assert_uint_eq(st->events_complete, 4);
    ck_assert_uint_eq(st->events_sent, 4);
    ck_assert_uint_eq(frames_at_node, 4);
    ck_assert_uint_eq(ev[3].frames_got, 0);
    for (uint64_t id = 1; id <= 5; id++)
        ck_assert_uint_eq(ev[id].got_bytes, len[id] == BIG ? 0 : SMALL);
    rig_down(&g);
}
END_TEST

/* Pieces past what an event frame at the MTU (1500) carries: 1460 bytes
 * (the frame itself 1500 after Ethernet: the most the readout link takes)
 * and 1413 (one more than 1412) are counted rx.drop.oversize, never
 * forwarded; a piece of 1412 is taken and reaches the node. */
START_TEST(test_oversize_counted)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 10000, .n_sources = 1};
    struct rte_mbuf *m[3];

    memset(ev, 0, sizeof(ev));
    frames_at_node = 0;
    rig_up_opts(&g, &o);
    credit(&g, 8, NULL, 0);
    poll_n(&g, 2);
    m[0] = piece(&g, 1, 1460, 0, 1460, 0);       /* 1500 after Ethernet */
    m[1] = piece(&g, 2, 1413, 0, 1413, 1);       /* piece 1413 */
    m[2] = piece(&g, 3, 1412, 0, 1412, 2);       /* the largest piece: taken */
    send_frames(g.ro_port, m, 3);
    poll_n(&g, 4);
    node_verify(&g);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    ck_assert_uint_eq(st->drop[SFC_DROP_OVERSIZE], 2);
    ck_assert_uint_eq(st->events_sent, 1);
    ck_assert_uint_eq(frames_at_node, 1);
    ck_assert_uint_eq(ev[3].got_bytes, 1412);
    rig_down(&g);
}
END_TEST

Suite *sfc_big_suite(void);

Suite *sfc_big_suite(void)
{
    Suite *s = suite_create("sfc_big");
    TCase *tc = tcase_create("big");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_big_event_between_small);
    tcase_add_test(tc, test_huge_event_at_9000);
    tcase_add_test(tc, test_event_past_max_refused);
    tcase_add_test(tc, test_oversize_counted);
    suite_add_tcase(s, tc);
    return s;
}
