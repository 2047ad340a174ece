/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_replay.c - a survivor SFC's handling of replayed fragments (docs/protocol.md 13.4), and a fenced SFC's own replays coming back to it: pieces of early and late readouts joined into one event, a partial replay dropped only when every missing source's readout sent its replay end past it (13.4.1), built incomplete when its missing sources died too, else kept for a late readout's replay, 5 s at most. */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "ebf_idset.h"
#include "ebf_release.h"
#include "sfc_dp.h"
#include "sfc_rig.h"
#include "sfc_stats.h"

#define TIMEOUT_MS 20           /* the SFC's --timeout-ms: far below the grace */
#define EARLY 0x3u              /* sources 0 and 1: readouts that detected the death first */
#define LATE 0xcu               /* sources 2 and 3: readouts that detected it later */

/* The ids a record holds: its first partition's counts add up to them. */
static uint64_t idset_n(const struct ebf_idset *s)
{
    uint64_t n = 0;

    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++)
        n += s->count[c];
    return n;
}

/* Event frames at the node: how many, the event id of the first. */
static unsigned took(struct rig *g, uint64_t *first)
{
    uint64_t ids[64];
    uint8_t to[64];
    unsigned n = node_take(g, ids, to, 64);

    *first = n ? ids[0] : UINT64_MAX;
    return n;
}

/* A replay end of dead place `place` from mac (ro_mac: send_end) for the sources of
 * mask: first routed-around id `from`, at 0, each source's next seq. */
static void send_end_from(struct rig *g, const uint8_t mac[6], uint16_t place, uint64_t from,
                          unsigned mask)
{
    struct ebf_release_hdr h = {.place = place, .flags = EBF_RELF_END, .low = from};
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};

    for (uint16_t s = 0; s < N_SOURCES; s++)
        if (mask & (1u << s))
            h.src[h.n_src++] = (struct ebf_release_src){.source = s, .next_seq = g->seq[s]};
    ck_assert_ptr_nonnull(m);
    memcpy(a.src_mac, mac, 6);
    memcpy(a.dst_mac, g->sfc_rx_mac, 6);
    size_t len = ebf_release_len(h.n_src);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    ck_assert_ptr_nonnull(p);
    ebf_encap_write(p, &a, len);
    ck_assert_uint_eq(ebf_release_write(p + EBF_ETH_HLEN, &h), len);
    send_frames(g->ro_port, &m, 1);
}

static void send_end(struct rig *g, uint16_t place, uint64_t from, unsigned mask)
{
    send_end_from(g, ro_mac, place, from, mask);
}

/*
 * The flake of the demo's failover (--timeout-ms 100, the detection bound
 * 100 ms): the readouts of sources 0 and 1 declared the SFC dead and
 * replayed event 5 to this survivor; those of sources 2 and 3 declared it
 * dead three timeouts later. The event waits for them (the grace, 1 s)
 * and is built once, complete: before, it was dropped at the timeout as
 * "decided by the dead place" (replay.partial), the late pieces were
 * counted replay.dup, and no node decided it.
 */
/*
 * A fence whose replays come back to the same SFC (it was the last live
 * place, docs/protocol.md 13.4): event 1 acked before the fence (in its
 * record), event 2 at the node, event 3 building (dropped). After the
 * pause (the bound 200 ms: a loop stopped over 180 ms fences) the
 * readouts replay all three to it: 3 is built anew (its pieces are not
 * late), 1 and 2 are duplicates decided once, so they leave the record
 * (2's ack, which comes after, stays out of it): replay.fence_dup 2, the
 * record empty.
 */
START_TEST(test_fence_replays_come_back)
{
    struct rig_opts o = {.timeout_ms = 1000, .release_ms = 10, .sfc_dead_ms = 200};
    struct ebf_ack ack1 = {.event_id = 1, .decision = EBF_DEC_ACCEPT};
    struct ebf_ack ack2 = {.event_id = 2, .decision = EBF_DEC_REJECT};
    struct rig g;
    uint64_t id;

    rig_up_opts(&g, &o);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event(&g, 1, ALL);
    send_event(&g, 2, ALL);
    send_event(&g, 3, EARLY);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), 2 * N_SOURCES);
    credit(&g, 0, &ack1, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 1);
    usleep(250 * 1000);         /* the pause */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->fences, 1);
    ck_assert_uint_eq(st->replay_fenced, 1);                /* event 3 */
    ck_assert_uint_eq(idset_n(&st->ledger_fence_acked), 1);  /* event 1 */
    ck_assert_uint_eq(st->fence_acked_accept, 1);
    send_event_flagged(&g, 3, ALL, EBF_FRAGF_REPLAY);
    send_event_flagged(&g, 1, ALL, EBF_FRAGF_REPLAY);
    send_event_flagged(&g, 2, ALL, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_pieces, 3 * N_SOURCES);
    ck_assert_uint_eq(st->replay_dup, 2 * N_SOURCES);
    ck_assert_uint_eq(st->replay_fence_dup, 2);
    ck_assert_uint_eq(st->events_complete, 3);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 3);
    credit(&g, 0, &ack2, 1);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->acks, 2);
    ck_assert_uint_eq(st->fences, 1);
    ck_assert_uint_eq(idset_n(&st->ledger_fence_acked), 0);
    ck_assert_uint_eq(st->fence_acked_accept, 0);
    ck_assert_uint_eq(st->fence_acked_digest, 0);
    rig_down(&g);
}
END_TEST

/* A release round: the next one is due within 10 ms (--release-ms). */
static void round_n(struct rig *g)
{
    usleep(12 * 1000);
    poll_n(g, 2);
}

/* Acks of ids, decided accept, with 8 credits. */
static void ack_ids(struct rig *g, const uint64_t *ids, uint16_t n)
{
    struct ebf_ack a[4];

    for (uint16_t i = 0; i < n; i++)
        a[i] = (struct ebf_ack){.event_id = ids[i], .decision = EBF_DEC_ACCEPT};
    credit(g, 8, a, n);
    poll_n(g, 4);
}

/* Up to the fence of test_fence_holds_low*: event 128 decided, 192
 * (sources 0-2) and 200 (source 3) building, so the low is 192 (the
 * lowmark's bucket of 64 ids); the pause (the bound 200 ms) fences: both
 * dropped, and the round at once announces 192, not 193 (1 + the highest
 * id of sources 0-2, all that is left without the hold). */
static const struct sfc_stats *fence_at_192(struct rig *g)
{
    struct rig_opts o = {.timeout_ms = 1000, .release_ms = 10, .sfc_dead_ms = 200};
    uint64_t id = 128;

    rig_up_opts(g, &o);
    const struct sfc_stats *st = sfc_dp_stats(g->dp);
    credit(g, 8, NULL, 0);
    send_event(g, 128, ALL);
    send_event(g, 192, 0x7u);
    send_event(g, 200, 0x8u);
    poll_n(g, 4);
    ack_ids(g, &id, 1);
    round_n(g);
    ck_assert_uint_eq(st->release_low, 192);
    usleep(250 * 1000);         /* the pause */
    poll_n(g, 1);
    ck_assert_uint_eq(st->fences, 1);
    ck_assert_uint_eq(st->replay_fenced, 2);
    ck_assert_uint_eq(st->release_low, 192);
    ck_assert_uint_eq(st->fence_held, 1);
    return st;
}

/*
 * A fenced SFC announces no low above what its fence dropped undecided
 * (docs/protocol.md 13.4, rule 3), here with its replays coming back to it
 * (it was the last live place): 192 and 200 replayed whole are built and
 * sent (the lowmark holds 192); acked, the low would be 201, but the
 * hold keeps it at 192 until every source sent a fragment after its
 * replayed ones (event 256, new): then 256, the hold over.
 */
START_TEST(test_fence_holds_low_until_replayed)
{
    struct rig g;
    uint64_t id, replayed[] = {192, 200}, e256 = 256;
    const struct sfc_stats *st = fence_at_192(&g);

    send_event_flagged(&g, 192, ALL, EBF_FRAGF_REPLAY);
    send_event_flagged(&g, 200, ALL, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), 3 * N_SOURCES);        /* 128, then 192 and 200 again */
    round_n(&g);
    ck_assert_uint_eq(st->release_low, 192);
    ack_ids(&g, replayed, 2);
    round_n(&g);
    ck_assert_uint_eq(st->release_low, 192);                /* 201 without the hold */
    ck_assert_uint_eq(st->fence_held, 2);
    send_event(&g, 256, ALL);
    poll_n(&g, 4);
    round_n(&g);
    ck_assert_uint_eq(st->release_low, 256);
    ck_assert_uint_eq(st->fence_held, 2);
    ack_ids(&g, &e256, 1);
    round_n(&g);
    ck_assert_uint_eq(st->release_low, 257);
    ck_assert_uint_eq(st->fence_held, 2);
    ck_assert_uint_eq(st->events_sent, 4);
    rig_down(&g);
}
END_TEST

/*
 * The fence's replays went to other places (they were live): none comes
 * back. Event 300, sent before the readouts heard the new epoch (below the
 * join id), is new, but does not end the hold: low 192 (301 without it).
 * A fragment of every source at or above the join id (at least 65536 ids
 * above the highest heard) ends it: the low is 1 + that id.
 */
START_TEST(test_fence_holds_low_until_join)
{
    struct rig g;
    uint64_t id, e300 = 300, far = UINT64_C(1) << 24;
    const struct sfc_stats *st = fence_at_192(&g);

    send_event(&g, 300, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), 2 * N_SOURCES);        /* 128, 300 */
    ack_ids(&g, &e300, 1);
    round_n(&g);
    ck_assert_uint_eq(st->release_low, 192);
    ck_assert_uint_eq(st->fence_held, 2);
    send_event(&g, far, ALL);
    poll_n(&g, 4);
    ack_ids(&g, &far, 1);
    round_n(&g);
    ck_assert_uint_eq(st->release_low, far + 1);
    ck_assert_uint_eq(st->fence_held, 2);
    ck_assert_uint_eq(st->replay_pieces, 0);
    rig_down(&g);
}
END_TEST

START_TEST(test_replay_waits_for_late_readouts)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 5, EARLY, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    usleep(3 * TIMEOUT_MS * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->events_sent, 0);
    send_event_flagged(&g, 5, LATE, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_pieces, 4);
    ck_assert_uint_eq(st->replay_dup, 0);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->events_complete, 1);
    ck_assert_uint_eq(st->events_sent, 1);
    ck_assert_uint_eq(st->events_incomplete, 0);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 5);
    rig_down(&g);
}
END_TEST

/*
 * The other half of the flake: event 6 was made after the early readouts
 * declared the death, so they routed it here as a new event (no flag),
 * while the late ones still sent it to the dead SFC and replay it later.
 * With replayed pieces arriving (event 4's) it waits for them and is built
 * complete, not incomplete at the timeout (before: 903 events built
 * without sources 2 and 3, their replays counted replay.dup).
 */
START_TEST(test_rerouted_waits_during_failover)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 4, ALL, EBF_FRAGF_REPLAY);
    send_event(&g, 6, EARLY);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 4);
    usleep(3 * TIMEOUT_MS * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 1);
    send_event_flagged(&g, 6, LATE, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_complete, 2);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(st->events_incomplete, 0);
    ck_assert_uint_eq(st->replay_dup, 0);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 6);
    rig_down(&g);
}
END_TEST

/*
 * The grace is a floor, not a new timeout: a replayed event still partial
 * a grace after the last replayed piece is dropped (replay.partial,
 * replay.ended) when every missing source's readout sent its replay end
 * for the dead place past it (sources 2 and 3: their readout replayed
 * event 9 and ended place 1 at id 50 without event 7, so it had 7
 * released, and the dead place decided it; each readout sends its own
 * end, as one end of all four would make them one readout that sent a
 * piece of 7: test_lost_piece_built_incomplete), its late pieces then
 * replay.dup; once no replayed piece came for the grace, an event missing
 * a source goes out incomplete at the SFC's own timeout.
 */
START_TEST(test_partial_replay_dropped_after_grace)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 7, EARLY, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    send_event_flagged(&g, 9, ALL, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 50, EARLY);
    send_end(&g, 1, 50, LATE);
    send_event(&g, 100, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_ends, 2);
    ck_assert_uint_eq(took(&g, &id), 2 * N_SOURCES);
    ck_assert_uint_eq(id, 9);
    usleep(1100 * 1000);        /* past SFC_REPLAY_GRACE_NS */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_partial, 1);
    ck_assert_uint_eq(st->replay_ended, 1);
    ck_assert_uint_eq(st->replay_waits, 0);
    ck_assert_uint_eq(st->replay_wait_cap, 0);
    ck_assert_uint_eq(st->events_sent, 2);
    send_event(&g, 8, ALL & ~0x8u);
    poll_n(&g, 4);
    usleep(3 * TIMEOUT_MS * 1000);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->events_sent, 3);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES - 1);
    ck_assert_uint_eq(id, 8);
    send_event_flagged(&g, 7, LATE, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_dup, 2);
    ck_assert_uint_eq(st->events_sent, 3);
    rig_down(&g);
}
END_TEST

/*
 * A readout that declares the death later than the grace (a starved
 * machine: 4.7 s was seen) while its sources go on sending new events:
 * replayed events 7 and 8 lack its sources 2 and 3, which sent no replay
 * end, so they are kept past the grace (replay.waits), not dropped as
 * decided. Its replay comes 1.6 s late: event 7 (it had 8 released), then
 * its replay end of place 1 at id 50: event 7 is built complete, and
 * event 8, now proven decided by the dead place, is dropped at that
 * moment (replay.partial, replay.ended; not the cap).
 */
START_TEST(test_replay_waits_for_readout_later_than_grace)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 8, NULL, 0);
    send_event_flagged(&g, 7, EARLY, EBF_FRAGF_REPLAY);
    send_event_flagged(&g, 8, EARLY, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 50, EARLY);
    poll_n(&g, 4);
    send_event(&g, 100, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 100);
    usleep(1100 * 1000);        /* past SFC_REPLAY_GRACE_NS */
    send_event(&g, 101, ALL);   /* the late readout is alive: not an orphan */
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 101);
    usleep(500 * 1000);
    send_event(&g, 102, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->replay_waits, 2);
    ck_assert_uint_eq(st->events_incomplete, 0);
    send_event_flagged(&g, 7, LATE, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 7);
    ck_assert_uint_eq(st->replay_partial, 0);
    send_end(&g, 1, 50, LATE);
    poll_n(&g, 1);              /* event 8 is dropped as the end comes, no timeout */
    ck_assert_uint_eq(st->replay_ends, 2);
    ck_assert_uint_eq(st->replay_partial, 1);
    ck_assert_uint_eq(st->replay_ended, 1);
    ck_assert_uint_eq(st->replay_wait_cap, 0);
    ck_assert_uint_eq(st->replay_waits, 2);
    ck_assert_uint_eq(st->replay_dup, 0);
    ck_assert_uint_eq(st->events_sent, 4);
    ck_assert_uint_eq(st->events_complete, 4);
    ck_assert_uint_eq(st->events_incomplete, 0);
    rig_down(&g);
}
END_TEST

/*
 * Replay ends that do not prove an event decided keep it: a missing
 * source's end of place 1 at id 20 (its first routed-around id is the
 * event's own: it sends event 20 as a new one, to come) and an end of
 * another place (2) while the present sources ended place 1 above 20. The
 * event waits; its missing pieces come (source 2 as new, source 3
 * replayed) and it is built complete, nothing dropped.
 */
START_TEST(test_end_not_past_event_kept)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 8, NULL, 0);
    send_event_flagged(&g, 20, EARLY, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 30, EARLY);
    send_end(&g, 1, 20, 0x4u);
    send_end(&g, 2, 30, 0x8u);
    poll_n(&g, 4);
    usleep(1100 * 1000);        /* past SFC_REPLAY_GRACE_NS */
    send_event(&g, 101, ALL);   /* sources 2 and 3 live: not an orphan */
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 101);
    ck_assert_uint_eq(st->replay_ends, 3);
    ck_assert_uint_eq(st->replay_waits, 1);
    ck_assert_uint_eq(st->replay_partial, 0);
    send_event(&g, 20, 0x4u);
    send_event_flagged(&g, 20, 0x8u, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 20);
    ck_assert_uint_eq(st->events_complete, 2);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->replay_ended, 0);
    rig_down(&g);
}
END_TEST

/*
 * A missing source whose readout died (silent since the event's first
 * piece) sends no replay end: the event is built incomplete at the grace,
 * the present sources' ends notwithstanding (the loss is the dead
 * readout's).
 */
START_TEST(test_end_dead_readout_incomplete)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 11, ALL & ~0x8u, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 50, ALL & ~0x8u);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_ends, 1);
    usleep(1100 * 1000);
    poll_n(&g, 8);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->replay_waits, 0);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(st->missing_by_source[3], 1);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES - 1);
    ck_assert_uint_eq(id, 11);
    rig_down(&g);
}
END_TEST

/*
 * A lost piece is no proof (issue 22): the readout of sources 0 and 1
 * replays event 7, but source 1's piece is lost on the way (a lossy
 * switch: the replay is an incast); the readout of sources 2 and 3
 * replays it whole. Both end place 1 past it (id 50). Source 1's end
 * proves nothing, as its readout did send event 7: at the grace the
 * event is built incomplete (replay.unsound), not dropped as decided by
 * the dead place (replay.ended 0), which no node did.
 */
START_TEST(test_lost_piece_built_incomplete)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 7, ALL & ~0x2u, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 50, EARLY);
    send_end(&g, 1, 50, LATE);
    send_event(&g, 100, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_ends, 2);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 100);
    usleep(1100 * 1000);        /* past SFC_REPLAY_GRACE_NS */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->replay_ended, 0);
    ck_assert_uint_eq(st->replay_unsound, 1);
    ck_assert_uint_eq(st->replay_waits, 0);
    ck_assert_uint_eq(st->replay_wait_cap, 0);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(st->events_incomplete, 1);
    ck_assert_uint_eq(st->missing_by_source[1], 1);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES - 1);
    ck_assert_uint_eq(id, 7);
    rig_down(&g);
}
END_TEST

/*
 * Replay ends refused: one naming a source bound to another readout's MAC
 * is taken for none of its sources (replay.end_refused), one of a place at
 * or above 64 likewise; one with no source record fails the parser
 * (rx.reject bad_field). None proves event 12 decided: it waits.
 */
START_TEST(test_end_refused)
{
    struct rig g;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event(&g, 1, ALL);                     /* every source bound to ro_mac */
    send_event_flagged(&g, 12, EARLY, EBF_FRAGF_REPLAY);
    send_end(&g, 1, 50, EARLY);
    send_end_from(&g, ro2_mac, 1, 50, LATE);
    send_end(&g, 64, 50, LATE);
    send_end(&g, 1, 50, 0);
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_ends, 1);
    ck_assert_uint_eq(st->replay_end_refused, 2);
    ck_assert_uint_eq(st->reject[EBF_R_BAD_FIELD], 1);
    usleep(1100 * 1000);
    send_event(&g, 2, ALL);                     /* sources 2 and 3 live */
    poll_n(&g, 4);
    ck_assert_uint_eq(st->replay_waits, 1);
    ck_assert_uint_eq(st->replay_partial, 0);
    rig_down(&g);
}
END_TEST

/*
 * The bound of a wait: sources 2 and 3 go on sending new events but never
 * replay past event 7 (their readout had nothing of the dead place left
 * above it), so event 7 is kept from its first timeout (the grace) on and
 * dropped at its first look 5 s later (SFC_REPLAY_WAIT_MAX_NS): replay.partial and
 * replay.wait_cap 1, the new events all built complete meanwhile.
 */
START_TEST(test_replay_wait_bounded)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 16, NULL, 0);
    send_event_flagged(&g, 7, EARLY, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    for (uint64_t e = 100; e < 105; e++) {     /* 7.5 s, a new event every 1.5 s */
        usleep(1500 * 1000);
        send_event(&g, e, ALL);
        poll_n(&g, 4);
        ck_assert_uint_eq(took(&g, &id), N_SOURCES);
        ck_assert_uint_eq(id, e);
        ck_assert_uint_eq(st->replay_waits, 1);
        ck_assert_uint_eq(st->replay_partial, e >= 104 ? 1 : 0);
    }
    ck_assert_uint_eq(st->replay_wait_cap, 1);
    ck_assert_uint_eq(st->events_sent, 5);
    ck_assert_uint_eq(st->events_incomplete, 0);
    rig_down(&g);
}
END_TEST

/*
 * A readout killed together with the SFC: source 3 sends nothing after
 * the death, so nothing replays its fragment of event 11. Past the grace
 * the event is built incomplete (the readout's loss), not dropped as if
 * the dead place had decided it.
 */
START_TEST(test_orphan_replay_built_incomplete)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 11, ALL & ~0x8u, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    send_event(&g, 101, ALL & ~0x8u);
    poll_n(&g, 4);
    usleep(1100 * 1000);
    poll_n(&g, 8);
    ck_assert_uint_eq(st->replay_partial, 0);
    ck_assert_uint_eq(st->events_sent, 2);
    ck_assert_uint_eq(st->events_incomplete, 2);
    ck_assert_uint_eq(st->missing_by_source[3], 2);
    ck_assert_uint_eq(took(&g, &id), 2 * (N_SOURCES - 1));
    ck_assert_uint_eq(id, 11);
    rig_down(&g);
}
END_TEST

/*
 * The staged stop times out what is building at once, by the same rule: a
 * replayed event whose missing sources still sent is dropped
 * (replay.partial), not built incomplete a second time after the dead
 * place's node decided it.
 */
START_TEST(test_drain_drops_partial_replay)
{
    struct rig g;
    uint64_t id;

    rig_up(&g, TIMEOUT_MS);
    const struct sfc_stats *st = sfc_dp_stats(g.dp);
    credit(&g, 4, NULL, 0);
    send_event_flagged(&g, 12, EARLY, EBF_FRAGF_REPLAY);
    poll_n(&g, 4);
    send_event(&g, 13, ALL);
    poll_n(&g, 4);
    ck_assert_uint_eq(took(&g, &id), N_SOURCES);
    ck_assert_uint_eq(id, 13);
    credit(&g, 4, (const struct ebf_ack[]){{.event_id = 13}}, 1);
    poll_n(&g, 4);
    drain(&g);
    ck_assert_uint_eq(st->replay_partial, 1);
    ck_assert_uint_eq(st->events_sent, 1);
    ck_assert_uint_eq(st->events_incomplete, 0);
    rig_down(&g);
}
END_TEST

Suite *sfc_replay_suite(void);

Suite *sfc_replay_suite(void)
{
    Suite *s = suite_create("sfc_replay");
    TCase *tc = tcase_create("sfc_replay");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_replay_waits_for_late_readouts);
    tcase_add_test(tc, test_fence_replays_come_back);
    tcase_add_test(tc, test_fence_holds_low_until_replayed);
    tcase_add_test(tc, test_fence_holds_low_until_join);
    tcase_add_test(tc, test_rerouted_waits_during_failover);
    tcase_add_test(tc, test_partial_replay_dropped_after_grace);
    tcase_add_test(tc, test_replay_waits_for_readout_later_than_grace);
    tcase_add_test(tc, test_replay_wait_bounded);
    tcase_add_test(tc, test_end_not_past_event_kept);
    tcase_add_test(tc, test_end_dead_readout_incomplete);
    tcase_add_test(tc, test_lost_piece_built_incomplete);
    tcase_add_test(tc, test_end_refused);
    tcase_add_test(tc, test_orphan_replay_built_incomplete);
    tcase_add_test(tc, test_drain_drops_partial_replay);
    suite_add_tcase(s, tc);
    return s;
}
