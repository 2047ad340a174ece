/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_fo.c - the readout's failover glue: release frames taken from their place's MAC only, stale ones refused, records released by (low, next_seq), the room bound, a dead place's frames capped at its low until its replay, other frames left alone, the time to recover, the dead notice and the replay end (exact bytes). */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "ebf_proto.h"
#include "ebf_release.h"
#include "ro_fo.h"

static const uint8_t sfc_mac[2][6] = {{2, 0, 0, 0, 1, 0}, {2, 0, 0, 0, 1, 1}};
static const uint8_t ro_mac[6] = {2, 0, 0, 0, 0, 9};

/* An Ethernet release frame from mac: place, seq, low, and one record per
 * source 4 and 5 with next_seq n4, n5. Returns its length. */
static size_t release_frame_at(uint8_t *buf, const uint8_t *mac, uint16_t place, uint16_t epoch,
                               uint32_t seq, uint64_t low, uint32_t n4, uint32_t n5)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    struct ebf_release_hdr h = {.place = place, .epoch = epoch, .seq = seq, .low = low,
                                .n_src = 2};

    h.src[0] = (struct ebf_release_src){.source = 4, .next_seq = n4};
    h.src[1] = (struct ebf_release_src){.source = 5, .next_seq = n5};
    memcpy(a.src_mac, mac, 6);
    memcpy(a.dst_mac, ro_mac, 6);
    size_t len = ebf_release_len(2);
    ebf_encap_write(buf, &a, len);
    ck_assert_uint_eq(ebf_release_write(buf + EBF_ETH_HLEN, &h), len);
    return EBF_ETH_HLEN + len;
}

/* The same at epoch 7. */
static size_t release_frame(uint8_t *buf, const uint8_t *mac, uint16_t place, uint32_t seq,
                            uint64_t low, uint32_t n4, uint32_t n5)
{
    return release_frame_at(buf, mac, place, 7, seq, low, n4, n5);
}

/* Place 0 at epoch 7 releases below 4 (events 0, 2); a frame of its epoch
 * 8 (it fenced itself) with low 100 and every frame arrived makes it dead
 * (reborn) and frees only below the old low 4: nothing more, the events
 * its fence may have dropped are replayed. */
START_TEST(test_fo_reborn_frees_below_old_low)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint32_t next[2][2] = {{0, 0}, {0, 0}};
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    for (uint64_t e = 0; e < 10; e++) {
        uint16_t p = (uint16_t)(e % 2);
        next[p][0]++, next[p][1]++;
        ro_fo_sent(f, e, p, 100, next[p]);
    }
    size_t n = release_frame(buf, sfc_mac[0], 0, 1, 4, 5, 5);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(f->rb.released, 2);
    n = release_frame_at(buf, sfc_mac[0], 0, 8, 0, 100, 99, 99);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->frames, 2);
    ck_assert(ebf_places_has(&f->view.reborn, 0));
    ck_assert_uint_eq(f->rb.released, 2);
    ck_assert_uint_eq(f->rb.held_events, 8);
    ck_assert_uint_eq(f->low[0], 4);
    ro_fo_destroy(f);
}
END_TEST

/* The same reborn place 0, looked at (declared dead, then joined at
 * once): its next frame of epoch 8, low 100, every frame arrived, comes
 * while its replay is under way (a refusing port polled) and still frees
 * nothing; once the replay is done (ro_fo_tx_replay clears replay_due)
 * the next one frees its 3 events left (4, 6, 8). */
START_TEST(test_fo_reborn_capped_until_replayed)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint32_t next[2][2] = {{0, 0}, {0, 0}};
    struct ebf_places died;
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    for (uint64_t e = 0; e < 10; e++) {
        uint16_t p = (uint16_t)(e % 2);
        next[p][0]++, next[p][1]++;
        ro_fo_sent(f, e, p, 100, next[p]);
    }
    size_t n = release_frame(buf, sfc_mac[0], 0, 1, 4, 5, 5);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    n = release_frame_at(buf, sfc_mac[0], 0, 8, 0, 100, 99, 99);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->replay_due, 1);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 3000, &died), 1);
    ck_assert(!ebf_places_has(&f->view.reborn, 0));
    n = release_frame_at(buf, sfc_mac[0], 0, 8, 1, 100, 99, 99);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 4000), 1);
    ck_assert_uint_eq(f->rb.released, 2);
    ck_assert_uint_eq(f->rb.held_events, 8);
    f->replay_due = 0;
    n = release_frame_at(buf, sfc_mac[0], 0, 8, 2, 100, 99, 99);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 5000), 1);
    ck_assert_uint_eq(f->rb.released, 5);
    ck_assert_uint_eq(f->rb.held_events, 5);
    ck_assert_uint_eq(f->frames, 4);
    ro_fo_destroy(f);
}
END_TEST

/* Events 0..9 alternate between places 0 and 1, one frame per source
 * each, 100 bytes; place 0 releases below 6 with every frame of its
 * events 0, 2, 4 arrived: exactly those 3 leave the buffer. */
START_TEST(test_fo_release)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint32_t next[2][2] = {{0, 0}, {0, 0}};
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    for (uint64_t e = 0; e < 10; e++) {
        uint16_t p = (uint16_t)(e % 2);
        next[p][0]++, next[p][1]++;
        ro_fo_sent(f, e, p, 100, next[p]);
    }
    ck_assert_uint_eq(f->rb.held_events, 10);
    ck_assert_uint_eq(f->rb.held_bytes, 1000);
    /* from place 1's MAC claiming place 0: foreign, nothing released */
    size_t n = release_frame(buf, sfc_mac[1], 0, 1, 6, 3, 3);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(f->foreign, 1);
    ck_assert_uint_eq(f->rb.held_events, 10);
    n = release_frame(buf, sfc_mac[0], 0, 1, 6, 3, 3);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(f->frames, 1);
    ck_assert_uint_eq(f->rb.released, 3);
    ck_assert_uint_eq(f->rb.held_events, 7);
    ck_assert_uint_eq(f->rb.held_bytes, 700);
    /* the same frame again is stale */
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->stale, 1);
    /* source 5's frames of event 8 not yet arrived at place 0: 6 released, not 8 */
    n = release_frame(buf, sfc_mac[0], 0, 2, 100, 5, 4);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 3000), 1);
    ck_assert_uint_eq(f->rb.released, 4);
    ck_assert_uint_eq(f->rb.held_events, 6);
    /* a throttle frame is not ours */
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.src_mac, sfc_mac[0], 6);
    ebf_encap_write(buf, &a, EBF_THROTTLE_LEN);
    struct ebf_throttle_hdr th = {.sfc_id = 0, .on = 1, .seq = 1};
    ebf_throttle_write(buf + EBF_ETH_HLEN, &th);
    ck_assert_int_eq(ro_fo_offer(f, buf, EBF_ETH_HLEN + EBF_THROTTLE_LEN, 0, 10, 4000), 0);
    ck_assert_uint_eq(f->frames, 2);
    ro_fo_destroy(f);
}
END_TEST

/* 1 MiB of 100 KiB events: 10 fit, the 11th does not (room says 0,
 * counted), and a release makes room again. */
START_TEST(test_fo_room)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 1, 4, 2, 1, 102400, 102400, EBF_RELEASE_DEAD_NS);
    uint32_t next[2] = {0, 0};
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    for (uint64_t e = 0; e < 10; e++) {
        ck_assert_int_eq(ro_fo_room(f), 1);
        next[0]++, next[1]++;
        ro_fo_sent(f, e, 0, 102400, next);
    }
    ck_assert_int_eq(ro_fo_room(f), 0);
    ck_assert_uint_eq(f->full_polls, 1);
    size_t n = release_frame(buf, sfc_mac[0], 0, 1, 1, 10, 10);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_int_eq(ro_fo_room(f), 1);
    ro_fo_destroy(f);
    ck_assert_ptr_null(ro_fo_create(sfc_mac, 1, 4, 0, 1, 1, 1, EBF_RELEASE_DEAD_NS));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_ptr_null(ro_fo_create(sfc_mac, 1, 4, 2, 0, 1, 1, EBF_RELEASE_DEAD_NS));
}
END_TEST

/* The hold for room: 1 MiB of 100 KiB events, full after 10; held (1)
 * until hold_max, then the oldest are dropped until one fits (1 here)
 * and the time held is counted; a later room ends nothing more. */
START_TEST(test_fo_hold)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 1, 4, 2, 1, 102400, 102400, EBF_RELEASE_DEAD_NS);
    uint32_t next[2] = {0, 0};

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->hold_max_ns, 1000000000ull);
    ck_assert_int_eq(ro_fo_hold(f, 5), 0);
    for (uint64_t e = 0; e < 10; e++) {
        next[0]++, next[1]++;
        ro_fo_sent(f, e, 0, 102400, next);
    }
    ck_assert_int_eq(ro_fo_hold(f, 1000), 1);
    ck_assert_int_eq(ro_fo_hold(f, 1000 + 999999999ull), 1);
    ck_assert_uint_eq(f->rb.dropped, 0);
    ck_assert_int_eq(ro_fo_hold(f, 1000 + 1000000000ull), 0);
    ck_assert_uint_eq(f->rb.dropped, 1);
    ck_assert_uint_eq(f->rb.held_events, 9);
    ck_assert_uint_eq(f->held_ns, 1000000000ull);
    ck_assert_uint_eq(f->full_since_ns, 0);
    ro_fo_destroy(f);
}
END_TEST

/* A record of a place already out (it died while the event was being
 * sent) is kept, to be replayed; the highest low per place is kept. */
START_TEST(test_fo_sent_to_dead)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint32_t next[2] = {1, 1};
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    ebf_places_add(&f->view.out, 1);
    ro_fo_sent(f, 7, 1, 100, next);
    ck_assert_uint_eq(f->rb.held_events, 1);
    size_t n = release_frame(buf, sfc_mac[0], 0, 1, 40, 1, 1);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    n = release_frame(buf, sfc_mac[0], 0, 2, 30, 1, 1);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->low[0], 40);
    ro_fo_destroy(f);
}
END_TEST

/* A place declared dead keeps the watermark it had then: its later
 * release frames (a false death: it was only starved) still free records
 * but do not raise release.low, which would put events the readouts
 * replayed below the ledger's X. A join makes it count again. */
START_TEST(test_fo_dead_low_frozen)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    size_t n = release_frame(buf, sfc_mac[1], 1, 1, 20, 1, 1);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 30, 1000), 1);
    ck_assert_uint_eq(f->low[1], 20);
    struct ebf_places died;
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000, &died), 0);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000 + 50000000, &died), 0);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000 + 100000000, &died), 1);
    ck_assert_uint_eq(died.w[0], 1u << 1);
    ck_assert_uint_eq(f->view.dead.w[0], 1u << 1);
    n = release_frame(buf, sfc_mac[1], 1, 2, 90, 1, 1);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 100, 1000 + 110000000), 1);
    ck_assert_uint_eq(f->frames, 2);
    ck_assert_uint_eq(f->low[1], 20);
    f->view.join_at[1] = 120;
    f->view.next_change = 120;
    ck_assert_uint_eq(ro_failover_place(&f->view, 121), 1);
    ck_assert_uint_eq(f->view.dead.w[0], 0);
    n = release_frame(buf, sfc_mac[1], 1, 3, 95, 1, 1);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 122, 1000 + 120000000), 1);
    ck_assert_uint_eq(f->low[1], 95);
    ro_fo_destroy(f);
}
END_TEST

/* Place 1 (events 1, 3, .. 9) releases below 4 (1, 3), falls silent and
 * is declared dead (ro_fo_died: its replay due); heard again at its epoch
 * 7 (a false death: only its release frames were muted) with low 100 and
 * every frame arrived while the replay is under way, it frees nothing at
 * or above its old low 4, which stays: its fence takes every ack from 4
 * on for replayed. Once the replay is done (ro_fo_tx_replay clears
 * replay_due) its next frame frees 5, 7, 9. */
START_TEST(test_fo_dead_capped_until_replayed)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 100, 100, EBF_RELEASE_DEAD_NS);
    uint32_t next[2][2] = {{0, 0}, {0, 0}};
    struct ebf_places died;
    uint8_t buf[256];

    ck_assert_ptr_nonnull(f);
    for (uint64_t e = 0; e < 10; e++) {
        uint16_t p = (uint16_t)(e % 2);
        next[p][0]++, next[p][1]++;
        ro_fo_sent(f, e, p, 100, next[p]);
    }
    size_t n = release_frame(buf, sfc_mac[1], 1, 1, 4, 5, 5);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(f->rb.released, 2);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000, &died), 0);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000 + 50000000, &died), 0);
    ck_assert_uint_eq(ro_failover_poll(&f->view, 1000 + 100000000, &died), 1);
    ck_assert_uint_eq(died.w[0], 1u << 1);
    ro_fo_died(f, 1);
    ck_assert_uint_eq(f->replay_due, 2);
    n = release_frame(buf, sfc_mac[1], 1, 2, 100, 5, 5);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000 + 110000000), 1);
    ck_assert_uint_eq(f->frames, 2);
    ck_assert_uint_eq(f->view.false_deaths, 1);
    ck_assert_uint_eq(f->rb.released, 2);
    ck_assert_uint_eq(f->rb.held_events, 8);
    ck_assert_uint_eq(f->low[1], 4);
    f->replay_due = 0;
    n = release_frame(buf, sfc_mac[1], 1, 3, 100, 5, 5);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000 + 120000000), 1);
    ck_assert_uint_eq(f->frames, 3);
    ck_assert_uint_eq(f->rb.released, 5);
    ck_assert_uint_eq(f->rb.held_events, 5);
    ck_assert_uint_eq(f->low[1], 4);
    ro_fo_destroy(f);
}
END_TEST

/* Time to recover: a death whose place was last heard at 1000 ns begins a
 * recovery; a second death (last heard at 900) before the replay ended
 * moves its beginning back, one at 5000 does not; the replay's end at
 * 101000 ends it (100100 ns), a second end changes nothing; the next
 * recovery (heard at 200000, replayed at 250000) is shorter: the last is
 * 50000, the longest stays 100100; a clock going back counts 0. */
START_TEST(test_fo_recover)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 1024, 1024, EBF_RELEASE_DEAD_NS);

    ck_assert_ptr_nonnull(f);
    ro_fo_recover_end(f, 500);
    ck_assert_uint_eq(f->recoveries, 0);
    ro_fo_recover_begin(f, 1000);
    ro_fo_recover_begin(f, 900);
    ro_fo_recover_begin(f, 5000);
    ck_assert_uint_eq(f->recover_since_ns, 900);
    ro_fo_recover_end(f, 101000);
    ro_fo_recover_end(f, 999999);
    ck_assert_uint_eq(f->recoveries, 1);
    ck_assert_uint_eq(f->recover_ns, 100100);
    ck_assert_uint_eq(f->recover_max_ns, 100100);
    ck_assert_uint_eq(f->recover_since_ns, 0);
    ro_fo_recover_begin(f, 200000);
    ro_fo_recover_end(f, 250000);
    ck_assert_uint_eq(f->recoveries, 2);
    ck_assert_uint_eq(f->recover_ns, 50000);
    ck_assert_uint_eq(f->recover_max_ns, 100100);
    ro_fo_recover_begin(f, 300000);
    ro_fo_recover_end(f, 299000);
    ck_assert_uint_eq(f->recoveries, 3);
    ck_assert_uint_eq(f->recover_ns, 0);
    ck_assert_uint_eq(f->recover_max_ns, 100100);
    ro_fo_destroy(f);
}
END_TEST

/* A dead notice to place 1 after its death: flag DEAD, the epoch it died
 * in (7), low the readout's frozen release.low of it (4), no records,
 * numbered; a notice coming to a readout is refused. */
START_TEST(test_fo_notice)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 1024, 1024, EBF_RELEASE_DEAD_NS);
    uint8_t buf[256], b[EBF_RELEASE_HLEN];
    struct ebf_release_hdr h;

    ck_assert_ptr_nonnull(f);
    size_t n = release_frame(buf, sfc_mac[1], 1, 1, 4, 0, 0);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(ro_fo_notice(f, 1, b), EBF_RELEASE_HLEN);
    ck_assert_uint_eq(ro_fo_notice(f, 1, b), EBF_RELEASE_HLEN);
    ck_assert_int_eq(ebf_release_parse(b, sizeof(b), &h), EBF_R_OK);
    ck_assert_uint_eq(h.flags, EBF_RELF_DEAD);
    ck_assert_uint_eq(h.place, 1);
    ck_assert_uint_eq(h.epoch, 7);
    ck_assert_uint_eq(h.low, 4);
    ck_assert_uint_eq(h.seq, 1);
    ck_assert_uint_eq(h.n_src, 0);
    ck_assert_uint_eq(f->notices, 2);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.src_mac, sfc_mac[1], 6);
    memcpy(a.dst_mac, ro_mac, 6);
    ebf_encap_write(buf, &a, EBF_RELEASE_HLEN);
    memcpy(buf + EBF_ETH_HLEN, b, EBF_RELEASE_HLEN);
    uint64_t rej = f->rejected;
    ck_assert_int_eq(ro_fo_offer(f, buf, EBF_ETH_HLEN + EBF_RELEASE_HLEN, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->rejected, rej + 1);
    ro_fo_destroy(f);
}
END_TEST

/* The replay end of dead place 1 (heard at epoch 7) to a survivor:
 * exact bytes (flag END, epoch 7, seq counting from 0, low the first
 * routed-around id 0x1234, at 1 + the highest replayed id 0x1200, one
 * record per local source 4 and 5 with its next seq toward the
 * survivor); one coming to a readout is refused. */
START_TEST(test_fo_end)
{
    struct ro_fo *f = ro_fo_create(sfc_mac, 2, 4, 2, 1, 1024, 1024, EBF_RELEASE_DEAD_NS);
    const uint32_t next[2] = {0x0a0b0c0d, 3};
    const uint8_t want[48] = {
        1, 5, 0, 1, 0x08, 2, 0, 7, 0, 0, 0, 1,
        0, 0, 0, 0, 0, 0, 0x12, 0x34,
        0, 0, 0, 0, 0, 0, 0x12, 0x00, 0, 0, 0, 0,
        0, 4, 0, 0, 0x0a, 0x0b, 0x0c, 0x0d,
        0, 5, 0, 0, 0, 0, 0, 3};
    uint8_t buf[256], b[EBF_RELEASE_LEN_MAX];

    ck_assert_ptr_nonnull(f);
    size_t n = release_frame(buf, sfc_mac[1], 1, 1, 4, 0, 0);
    ck_assert_int_eq(ro_fo_offer(f, buf, n, 0, 10, 1000), 1);
    ck_assert_uint_eq(ro_fo_end(f, 1, 0x1234, 0x1200, next, b), 48);
    ck_assert_uint_eq(ro_fo_end(f, 1, 0x1234, 0x1200, next, b), 48);
    ck_assert_mem_eq(b, want, 48);
    ck_assert_uint_eq(f->ends, 2);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.src_mac, sfc_mac[1], 6);
    memcpy(a.dst_mac, ro_mac, 6);
    ebf_encap_write(buf, &a, 48);
    memcpy(buf + EBF_ETH_HLEN, b, 48);
    uint64_t rej = f->rejected;
    ck_assert_int_eq(ro_fo_offer(f, buf, EBF_ETH_HLEN + 48, 0, 10, 2000), 1);
    ck_assert_uint_eq(f->rejected, rej + 1);
    ro_fo_destroy(f);
}
END_TEST

Suite *ro_fo_suite(void);

Suite *ro_fo_suite(void)
{
    Suite *s = suite_create("ro_fo");
    TCase *tc = tcase_create("ro_fo");

    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_fo_release);
    tcase_add_test(tc, test_fo_end);
    tcase_add_test(tc, test_fo_reborn_frees_below_old_low);
    tcase_add_test(tc, test_fo_reborn_capped_until_replayed);
    tcase_add_test(tc, test_fo_room);
    tcase_add_test(tc, test_fo_hold);
    tcase_add_test(tc, test_fo_sent_to_dead);
    tcase_add_test(tc, test_fo_dead_low_frozen);
    tcase_add_test(tc, test_fo_dead_capped_until_replayed);
    tcase_add_test(tc, test_fo_recover);
    tcase_add_test(tc, test_fo_notice);
    suite_add_tcase(s, tc);
    return s;
}
