/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_own.c - who holds a received mbuf once its event goes out: the frame chained itself (the first one the head, headers in its headroom), a clone only while it is in a chain in flight, every mbuf back in its pool. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_proto.h"
#include "sfc_dp.h"
#include "sfc_rig.h"

/* An MTU at which the four pieces of an event share one event frame. */
#define BIG_MTU 9000

static struct rte_mempool *pool_of(const char *name)
{
    struct rte_mempool *p = rte_mempool_lookup(name);

    ck_assert_ptr_nonnull(p);
    return p;
}

/* No mbuf went back to pool twice: the last ones freed (on top of the
 * lcore's cache) are taken and must all differ. The in-use count alone
 * does not tell (it is clamped at 0). */
static void check_no_double_free(struct rte_mempool *pool)
{
    void *m[16];

    ck_assert_int_eq(rte_mempool_get_bulk(pool, m, 16), 0);
    for (unsigned i = 0; i < 16; i++)
        for (unsigned j = i + 1; j < 16; j++)
            ck_assert_ptr_ne(m[i], m[j]);
    rte_mempool_put_bulk(pool, m, 16);
}

/* Event id's fragments from every source, kept in orig, received by the SFC. */
static void send_kept(struct rig *g, uint64_t id, struct rte_mbuf **orig)
{
    for (uint16_t s = 0; s < N_SOURCES; s++)
        orig[s] = fragment(g, g->sfc_rx_mac, s, id);
    send_frames(g->ro_port, orig, N_SOURCES);
    poll_n(g, 4);
}

/* Where orig's piece (fragment header + piece) starts: it ends where the
 * frame's data ends, whatever headers are in front of it. */
static const uint8_t *piece_of(const struct rte_mbuf *orig)
{
    return rte_pktmbuf_mtod(orig, const uint8_t *) + orig->data_len - (EBF_FRAG_HLEN + FRAG_LEN);
}

/* One event frame carrying all of orig's pieces as the frames themselves,
 * in order: orig[0] its head, the Ethernet and event headers in its
 * headroom before its piece, the others chained after it; each orig at
 * refcnt refs. */
static void check_owned_chain(const struct rte_mbuf *h, struct rte_mbuf **orig, uint16_t refs)
{
    const struct rte_mbuf *seg = h;

    ck_assert_ptr_eq(h, orig[0]);
    ck_assert_uint_eq(h->nb_segs, N_SOURCES);
    ck_assert_uint_eq(h->pkt_len,
                      EBF_ETH_HLEN + EBF_EVENT_HLEN + N_SOURCES * (EBF_FRAG_HLEN + FRAG_LEN));
    ck_assert_uint_eq(h->data_off, RTE_PKTMBUF_HEADROOM - EBF_EVENT_HLEN);
    ck_assert_uint_eq(h->data_len, EBF_ETH_HLEN + EBF_EVENT_HLEN + EBF_FRAG_HLEN + FRAG_LEN);
    for (uint16_t s = 0; s < N_SOURCES; s++, seg = seg->next) {
        ck_assert_ptr_eq(seg, orig[s]);
        ck_assert(RTE_MBUF_DIRECT(seg));
        if (s > 0) {
            ck_assert_uint_eq(seg->data_off, RTE_PKTMBUF_HEADROOM + EBF_ETH_HLEN);
            ck_assert_uint_eq(seg->data_len, EBF_FRAG_HLEN + FRAG_LEN);
        }
        ck_assert_uint_eq(rte_mbuf_refcnt_read(seg), refs);
    }
    ck_assert_ptr_null(seg);
}

/* The same with a header mbuf and indirect clones of orig's frames (the
 * same bytes: each piece, not the headers in front of orig[0]'s). */
static void check_cloned_chain(const struct rte_mbuf *h, struct rte_mbuf **orig)
{
    const struct rte_mbuf *seg = h->next;

    ck_assert_uint_eq(h->nb_segs, 1 + N_SOURCES);
    ck_assert_uint_eq(h->data_len, EBF_ETH_HLEN + EBF_EVENT_HLEN);
    for (uint16_t s = 0; s < N_SOURCES; s++, seg = seg->next) {
        ck_assert(RTE_MBUF_CLONED(seg));
        ck_assert_ptr_eq(rte_mbuf_from_indirect((struct rte_mbuf *)seg), orig[s]);
        ck_assert_ptr_eq(rte_pktmbuf_mtod(seg, const uint8_t *), piece_of(orig[s]));
        ck_assert_uint_eq(seg->data_len, EBF_FRAG_HLEN + FRAG_LEN);
    }
    ck_assert_ptr_null(seg);
}

/* Dispatch chains the received frames themselves (trimmed to fragment
 * header + piece; the first one the head, the headers in its headroom),
 * no clone or header mbuf allocated; the chain's free and the ack's
 * release each drop one reference; at the end every mbuf is back. A chain
 * freed first leaves the frame's next stale, which the release must not
 * follow (it would free the next piece's frame twice). */
START_TEST(test_dispatch_owns_frames)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 1000, .mtu = BIG_MTU};
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    rig_up_opts(&g, &o);
    struct rte_mempool *clone = pool_of("test_clone"), *hdr = pool_of("test_hdr");
    send_kept(&g, 7, orig);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), N_SOURCES);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 1);   /* the table's */
    credit(&g, 2, NULL, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(sfc_dp_stats(g.dp)->events_sent, 1);
    ck_assert_uint_eq(node_rx(&g, rx, 16), 1);
    check_owned_chain(rx[0], orig, 2);                          /* table + chain */
    ck_assert_uint_eq(rte_mempool_in_use_count(clone), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(hdr), 0);        /* no header mbuf */

    rte_pktmbuf_free(rx[0]);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 1);
    ck_assert_ptr_eq(orig[0]->next, orig[1]);                   /* stale, as DPDK leaves it */
    ck_assert_uint_eq(orig[0]->nb_segs, N_SOURCES);             /* the same */
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), N_SOURCES);
    ck_assert_uint_eq(rte_mempool_in_use_count(hdr), 0);

    struct ebf_ack ack = {.event_id = 7, .decision = EBF_DEC_ACCEPT};
    credit(&g, 0, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(sfc_dp_stats(g.dp)->acks, 1);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(clone), 0);
    check_no_double_free(g.pool);
    rig_down(&g);
}
END_TEST

/* The ack may come before the node frees the frame (a port that holds
 * it): the release drops the table's reference, the chain's free returns
 * the frames. */
START_TEST(test_ack_before_chain_freed)
{
    struct rig g;
    struct rig_opts o = {.timeout_ms = 1000, .mtu = BIG_MTU};
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    rig_up_opts(&g, &o);
    send_kept(&g, 9, orig);
    struct ebf_ack ack = {.event_id = 9, .decision = EBF_DEC_ACCEPT};
    credit(&g, 2, NULL, 0);
    poll_n(&g, 4);
    credit(&g, 0, &ack, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(sfc_dp_stats(g.dp)->acks, 1);
    ck_assert_uint_eq(node_rx(&g, rx, 16), 1);
    check_owned_chain(rx[0], orig, 1);                          /* the chain's alone */
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), N_SOURCES);
    rte_pktmbuf_free(rx[0]);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    check_no_double_free(g.pool);
    rig_down(&g);
}
END_TEST

/* Node 0 dies with event id unacked; node 1 alive with credits after
 * heartbeats over the node timeout; the event is redispatched to it. */
static void kill_node0(struct rig *g)
{
    credit_from(g, 1, 7, 2, NULL, 0);
    for (int t = 0; t < 10; t++) {
        usleep(10 * 1000);
        credit_from(g, 1, 7, 0, NULL, 0);
        poll_n(g, 4);
    }
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->nodes_dead, 1);
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->redispatched, 1);
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->events_sent, 2);
}

/* A rig of two nodes (node timeout 50 ms), event 5 sent to node 0 (node
 * 1 alive, no credit), its frames in orig. */
static void send_to_node0(struct rig *g, struct rte_mbuf **orig)
{
    struct rig_opts o = {.timeout_ms = 1000, .n_nodes = 2, .node_timeout_ms = 50, .mtu = BIG_MTU};

    rig_up_opts(g, &o);
    credit_from(g, 0, 7, 1, NULL, 0);
    credit_from(g, 1, 7, 0, NULL, 0);
    poll_n(g, 2);
    send_kept(g, 5, orig);
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->events_sent, 1);
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->node_sent[0], 1);
}

/* Node 1 acks event 5 (its chains freed): every rx and clone mbuf back. */
static void ack_all_back(struct rig *g)
{
    struct ebf_ack ack = {.event_id = 5, .decision = EBF_DEC_ACCEPT};

    credit_from(g, 1, 7, 0, &ack, 1);
    poll_n(g, 4);
    ck_assert_uint_eq(sfc_dp_stats(g->dp)->acks, 1);
    ck_assert_uint_eq(rte_mempool_in_use_count(g->pool), 0);
    ck_assert_uint_eq(rte_mempool_in_use_count(pool_of("test_clone")), 0);
    check_no_double_free(g->pool);
}

/* Redispatched while the first sending still sits unfreed at the port:
 * the frames are in that chain, so the new one gets clones (refcnt 3:
 * table, first chain, clone); freeing both chains and the ack return
 * every mbuf, clones included. */
START_TEST(test_redispatch_in_flight_clones)
{
    struct rig g;
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    send_to_node0(&g, orig);
    struct rte_mempool *clone = pool_of("test_clone");
    kill_node0(&g);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 3);
    ck_assert_uint_eq(rte_mempool_in_use_count(clone), N_SOURCES);
    ck_assert_uint_eq(rte_mempool_in_use_count(pool_of("test_hdr")), 1);   /* the redispatch's */
    ck_assert_uint_eq(node_rx(&g, rx, 16), 2);
    check_owned_chain(rx[0], orig, 3);                          /* the first sending */
    check_cloned_chain(rx[1], orig);                            /* the redispatch */
    rte_pktmbuf_free_bulk(rx, 2);
    for (uint16_t s = 0; s < N_SOURCES; s++)
        ck_assert_uint_eq(rte_mbuf_refcnt_read(orig[s]), 1);
    ck_assert_uint_eq(rte_mempool_in_use_count(clone), 0);

    ack_all_back(&g);
    rig_down(&g);
}
END_TEST

/* Redispatched after the first sending was freed: the frames are the
 * table's alone again and are chained themselves, their stale next and
 * nb_segs rewritten (the last one's next cleared), the first one's headers
 * written again in its headroom. */
START_TEST(test_redispatch_after_free_owns)
{
    struct rig g;
    struct rte_mbuf *orig[N_SOURCES], *rx[16];

    send_to_node0(&g, orig);
    struct rte_mempool *clone = pool_of("test_clone");
    ck_assert_uint_eq(node_rx(&g, rx, 16), 1);
    rte_pktmbuf_free(rx[0]);
    kill_node0(&g);
    ck_assert_uint_eq(rte_mempool_in_use_count(clone), 0);
    ck_assert_uint_eq(node_rx(&g, rx, 16), 1);
    check_owned_chain(rx[0], orig, 2);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), N_SOURCES);
    rte_pktmbuf_free(rx[0]);

    ack_all_back(&g);
    rig_down(&g);
}
END_TEST

Suite *sfc_own_suite(void);

Suite *sfc_own_suite(void)
{
    Suite *s = suite_create("sfc_own");
    TCase *tc = tcase_create("sfc_own");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dispatch_owns_frames);
    tcase_add_test(tc, test_ack_before_chain_freed);
    tcase_add_test(tc, test_redispatch_in_flight_clones);
    tcase_add_test(tc, test_redispatch_after_free_owns);
    suite_add_tcase(s, tc);
    return s;
}
