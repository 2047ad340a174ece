/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_throttle.c - Check unit tests of the readout's throttle view: holds, refreshes, stale frames, several SFCs. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "ebf_proto.h"
#include "ro_throttle.h"

#define T_TIMEOUT 30            /* seconds per test; valgrind runs are slow */
#define T_PORT EBF_UDP_PORT_DEFAULT
#define T_LEN 60                /* a throttle frame padded to the Ethernet minimum */
#define T_SEC 1000000000ull

/* A raw Ethernet throttle frame from sfc_id, padded to T_LEN bytes; f must
 * hold T_LEN. Returns the offset of the throttle header. */
static size_t throttle_frame(uint8_t *f, uint16_t sfc_id, int on, uint32_t seq)
{
    struct ebf_throttle_hdr h = {.sfc_id = sfc_id, .on = (uint8_t)on, .fill = 800, .seq = seq};
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH, .dst_mac = {2, 0, 0, 0, 0, 1},
                         .src_mac = {2, 0, 0, 0, 0, 2}};

    memset(f, 0, T_LEN);
    size_t hl = ebf_encap_write(f, &a, EBF_THROTTLE_LEN);
    ebf_throttle_write(f + hl, &h);
    return hl;
}

static enum ebf_reason offer(struct ro_throttle_view *v, uint16_t sfc_id, int on, uint32_t seq,
                             uint64_t now_ns)
{
    uint8_t f[T_LEN];

    throttle_frame(f, sfc_id, on, seq);
    return ro_throttle_view_offer(v, f, T_LEN, T_PORT, now_ns);
}

/* "On" holds until "off" or until it is not refreshed; a frame seen again is
 * stale and changes nothing. */
START_TEST(test_throttle_view_hold)
{
    uint8_t f[T_LEN];
    struct ro_throttle_view v;
    uint32_t seq = 0x01020304;

    ro_throttle_view_init(&v);
    ck_assert_int_eq(ro_throttle_view_held(&v, 0), 0);
    /* on at t = 1 s: held until 1.5 s unless refreshed */
    throttle_frame(f, 3, 1, seq);
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, T_SEC), EBF_R_OK);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC + EBF_THROTTLE_HOLD_NS - 1), 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC + EBF_THROTTLE_HOLD_NS), 0);
    /* the same frame again is stale and changes nothing */
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, 1400000000), EBF_R_OK);
    ck_assert_uint_eq(v.stale, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, 1600000000), 0);
    /* a refresh (next seq) extends it; off ends it */
    ck_assert_int_eq(offer(&v, 3, 1, ++seq, 1400000000), EBF_R_OK);
    ck_assert_int_eq(ro_throttle_view_held(&v, 1600000000), 1);
    ck_assert_int_eq(offer(&v, 3, 0, ++seq, 1500000000), EBF_R_OK);
    ck_assert_int_eq(ro_throttle_view_held(&v, 1500000000), 0);
    ck_assert_uint_eq(v.frames, 4);
    ck_assert_uint_eq(v.on_frames, 2);
    ck_assert_uint_eq(v.off_frames, 1);
    ck_assert_uint_eq(v.stale, 1);
    ck_assert_uint_eq(v.rejected, 0);
}
END_TEST

/* What is not a throttle frame is not counted as rejected; a throttle frame
 * with a bad field or an sfc_id beyond the view is. */
START_TEST(test_throttle_view_rejects)
{
    uint8_t f[T_LEN];
    struct ro_throttle_view v;
    size_t hl = throttle_frame(f, 3, 1, 7);

    ro_throttle_view_init(&v);
    /* another frame type is not the view's business */
    f[hl + 1] = EBF_T_CREDIT;
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, 0), EBF_R_BAD_FIELD);
    ck_assert_uint_eq(v.rejected, 0);
    /* nor is another protocol (an IPv6 EtherType) */
    f[hl + 1] = EBF_T_THROTTLE;
    f[12] = 0x86;
    f[13] = 0xdd;
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, 0), EBF_R_NOT_EBFARM);
    ck_assert_uint_eq(v.rejected, 0);
    /* a throttle frame with a bad field is */
    f[12] = 0x88;
    f[13] = 0xb5;
    f[hl + 4] = 2;
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, 0), EBF_R_BAD_FIELD);
    ck_assert_uint_eq(v.rejected, 1);
    /* and so is a truncated one */
    f[hl + 4] = 1;
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, hl + EBF_THROTTLE_LEN - 1, T_PORT, 0),
                     EBF_R_TRUNCATED);
    ck_assert_uint_eq(v.rejected, 2);
    /* and an SFC the view has no room for */
    ck_assert_int_eq(offer(&v, RO_THROTTLE_MAX_SFCS, 1, 1, 0), EBF_R_BAD_SOURCE);
    ck_assert_uint_eq(v.rejected, 3);
    ck_assert_int_eq(offer(&v, RO_THROTTLE_MAX_SFCS - 1, 1, 1, 0), EBF_R_OK);
    ck_assert_uint_eq(v.rejected, 3);
    ck_assert_uint_eq(v.frames, 1);
    ck_assert_uint_eq(v.on_frames, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, 0), 1);
}
END_TEST

/* A readout is held while any SFC holds it; each SFC's sequence is its own. */
START_TEST(test_throttle_view_many_sfcs)
{
    struct ro_throttle_view v;

    ro_throttle_view_init(&v);
    ck_assert_int_eq(offer(&v, 0, 1, 10, T_SEC), EBF_R_OK);
    ck_assert_int_eq(offer(&v, 5, 1, 10, T_SEC), EBF_R_OK);
    ck_assert_uint_eq(v.stale, 0);              /* the same seq from another SFC */
    ck_assert_int_eq(offer(&v, 0, 0, 11, T_SEC), EBF_R_OK);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 1);      /* SFC 5 still holds */
    ck_assert_int_eq(offer(&v, 5, 0, 9, T_SEC), EBF_R_OK);      /* older: stale */
    ck_assert_uint_eq(v.stale, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 1);
    ck_assert_int_eq(offer(&v, 5, 0, 11, T_SEC), EBF_R_OK);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 0);
    ck_assert_uint_eq(v.frames, 5);
    ck_assert_uint_eq(v.on_frames, 2);
    ck_assert_uint_eq(v.off_frames, 2);
}
END_TEST

/* Sequence numbers wrap: 0 follows 0xffffffff; a frame 2^31 or more behind
 * the last one is stale. */
START_TEST(test_throttle_view_seq_wrap)
{
    struct ro_throttle_view v;

    ro_throttle_view_init(&v);
    ck_assert_int_eq(offer(&v, 1, 1, 0xffffffffu, T_SEC), EBF_R_OK);
    ck_assert_int_eq(offer(&v, 1, 0, 0, T_SEC), EBF_R_OK);
    ck_assert_uint_eq(v.stale, 0);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 0);
    ck_assert_int_eq(offer(&v, 1, 1, 0x80000000u, T_SEC), EBF_R_OK);    /* 2^31 ahead */
    ck_assert_uint_eq(v.stale, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 0);
    ck_assert_int_eq(offer(&v, 1, 1, 0x7fffffffu, T_SEC), EBF_R_OK);    /* 2^31 - 1 ahead */
    ck_assert_uint_eq(v.stale, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 1);
    ck_assert_uint_eq(v.last_seq[1], 0x7fffffffu);
}
END_TEST

/* --- Suite ----------------------------------------------------------------- */

/* With the SFC MACs given, a throttle frame from another MAC holds
 * nothing: it is counted as foreign, not as taken or rejected. */
START_TEST(test_throttle_view_trusted_macs)
{
    static const uint8_t sfcs[2][6] = {{2, 0, 0, 0, 0, 7}, {2, 0, 0, 0, 0, 2}};
    uint8_t f[T_LEN];
    struct ro_throttle_view v;

    ro_throttle_view_init(&v);
    ro_throttle_view_trust(&v, sfcs, 1);            /* 02:..:07 only */
    throttle_frame(f, 3, 1, 1);                     /* from 02:..:02 */
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, T_SEC), EBF_R_BAD_SOURCE);
    ck_assert_uint_eq(v.foreign, 1);
    ck_assert_uint_eq(v.frames, 0);
    ck_assert_uint_eq(v.rejected, 0);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 0);
    ro_throttle_view_trust(&v, sfcs, 2);            /* and 02:..:02 */
    ck_assert_int_eq(ro_throttle_view_offer(&v, f, T_LEN, T_PORT, T_SEC), EBF_R_OK);
    ck_assert_uint_eq(v.foreign, 1);
    ck_assert_uint_eq(v.frames, 1);
    ck_assert_int_eq(ro_throttle_view_held(&v, T_SEC), 1);
}
END_TEST

Suite *ro_throttle_suite(void);   /* called by check-main.c, which has no header */

Suite *ro_throttle_suite(void)
{
    Suite *s = suite_create("ro_throttle");
    TCase *tc = tcase_create("view");

    tcase_set_timeout(tc, T_TIMEOUT);
    tcase_add_test(tc, test_throttle_view_hold);
    tcase_add_test(tc, test_throttle_view_rejects);
    tcase_add_test(tc, test_throttle_view_many_sfcs);
    tcase_add_test(tc, test_throttle_view_seq_wrap);
    tcase_add_test(tc, test_throttle_view_trusted_macs);
    suite_add_tcase(s, tc);
    return s;
}
