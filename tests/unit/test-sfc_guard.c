/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_guard.c - unit tests of the SFC's receive guard: sequence windows, source binding, verify sampling, the readouts a throttle frame goes to. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "sfc_guard.h"

static const uint8_t MAC_A[6] = {2, 0, 0, 0, 0, 0xa}, MAC_B[6] = {2, 0, 0, 0, 0, 0xb},
                     MAC_C[6] = {2, 0, 0, 0, 0, 0xc};

struct seq_frame {
    uint16_t s;
    uint32_t seq;
};

/* Feed frames to a fresh guard; counts into st. */
static void feed(struct sfc_seq_stats *st, const struct seq_frame *f, unsigned n)
{
    static struct sfc_guard g;   /* 5 KB: off the stack */
    struct sfc_guard_conf c = {0};

    sfc_guard_init(&g, &c);
    memset(st, 0, sizeof(*st));
    for (unsigned i = 0; i < n; i++)
        sfc_guard_seq(&g, st, f[i].s, f[i].seq);
}

static void expect_seq(const struct sfc_seq_stats *st, unsigned n_src, const uint64_t *gap,
                       const uint64_t *reorder, const uint64_t *dup, const uint64_t *resync)
{
    for (unsigned s = 0; s < n_src; s++) {
        ck_assert_uint_eq(st->gap[s], gap[s]);
        ck_assert_uint_eq(st->reorder[s], reorder[s]);
        ck_assert_uint_eq(st->dup[s], dup[s]);
        ck_assert_uint_eq(st->resync[s], resync[s]);
    }
}

/* The frames of the dpdk suite's test_sequence_gaps (test-sfc_dp.c), with
 * its counts: missing numbers are gaps, a late one a reorder, a repeat a
 * dup. */
START_TEST(test_seq_gaps)
{
    static const struct seq_frame f[] = {
        {0, 0}, {0, 1}, {0, 2}, {0, 5}, {0, 6},
        {1, 0}, {1, 3}, {1, 1}, {1, 3},
        {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4},
        {3, 10},
    };
    static const uint64_t gap[] = {2, 2, 0, 10}, reorder[] = {0, 1, 0, 0},
                          dup[] = {0, 1, 0, 0}, resync[] = {0, 0, 0, 0};
    struct sfc_seq_stats st;

    feed(&st, f, sizeof(f) / sizeof(f[0]));
    expect_seq(&st, 4, gap, reorder, dup, resync);
}
END_TEST

/* test-sfc_dp.c's test_sequence_wraps_at_2_32: the wrap is in order; two
 * half-range jumps are a resync each, re-based on the next number. */
START_TEST(test_seq_wraps)
{
    static const uint32_t seq[] = {0, 1, 2147483648u, 2147483649u, 4294967293u, 4294967294u,
                                   4294967295u, 0, 1, 2};
    struct seq_frame f[10];
    static const uint64_t gap[] = {0}, reorder[] = {0}, dup[] = {0}, resync[] = {2};
    struct sfc_seq_stats st;

    for (unsigned i = 0; i < 10; i++)
        f[i] = (struct seq_frame){0, seq[i]};
    feed(&st, f, 10);
    expect_seq(&st, 1, gap, reorder, dup, resync);
}
END_TEST

/* A source whose first numbers wrap: the window starts at its first
 * frame, not at 0, so nothing is counted; a first number beyond the
 * window from 0 likewise; a first number in it counts the frames before. */
START_TEST(test_seq_wrap_at_start)
{
    static const struct seq_frame f[] = {
        {0, 0xFFFFFFFEu}, {0, 0xFFFFFFFFu}, {0, 0}, {0, 1},
        {1, 1000000}, {1, 1000001},
        {2, 3}, {2, 4},
    };
    static const uint64_t gap[] = {0, 0, 3}, reorder[] = {0, 0, 0}, dup[] = {0, 0, 0},
                          resync[] = {0, 0, 0};
    struct sfc_seq_stats st;

    feed(&st, f, sizeof(f) / sizeof(f[0]));
    expect_seq(&st, 3, gap, reorder, dup, resync);
}
END_TEST

/* test-sfc_trust.c's test_sequence_resync: a lone forged number is a
 * resync and nothing else; a restart re-bases; beyond the window is not
 * 2^16 gaps; a late start (beyond the window from 0) starts the window at
 * its first number, nothing counted. */
START_TEST(test_seq_resync)
{
    static const struct seq_frame f[] = {
        {0, 0}, {0, 1}, {0, 2}, {0, 0x80000002u}, {0, 3}, {0, 4},
        {1, 0}, {1, 1}, {1, 1000000}, {1, 1000001}, {1, 1000003},
        {2, 0}, {2, 65535}, {2, 65536 + 65536},
        {3, 100000}, {3, 100001}, {3, 100002}, {3, 100000},
    };
    static const uint64_t gap[] = {0, 1, 65534, 0}, resync[] = {1, 1, 1, 0},
                          reorder[] = {0, 0, 0, 0}, dup[] = {0, 0, 0, 1};
    struct sfc_seq_stats st;

    feed(&st, f, sizeof(f) / sizeof(f[0]));
    expect_seq(&st, 4, gap, reorder, dup, resync);
}
END_TEST

/* The 64 numbers below the one due are told apart: a late one inside them
 * is a reorder once, then a dup; one 64 or more back is a dup. */
START_TEST(test_seq_window_64)
{
    static const struct seq_frame f[] = {
        {0, 0}, {0, 100},       /* 1..99 skipped: 99 gaps */
        {0, 37},                /* 63 back: still told apart, a reorder */
        {0, 37},                /* again: a dup */
        {0, 36},                /* 64 back: too old to tell, a dup */
        {0, 99}, {0, 101},      /* a reorder, then in order */
    };
    static const uint64_t gap[] = {99}, reorder[] = {2}, dup[] = {2}, resync[] = {0};
    struct sfc_seq_stats st;

    feed(&st, f, sizeof(f) / sizeof(f[0]));
    expect_seq(&st, 1, gap, reorder, dup, resync);
}
END_TEST

/* The first MAC heard for a source binds it: the same MAC is taken, another
 * is source_spoofed; another source may bind another MAC. */
START_TEST(test_bind_any)
{
    static struct sfc_guard g;
    struct sfc_guard_conf c = {0};

    sfc_guard_init(&g, &c);
    ck_assert_int_eq(sfc_guard_source(&g, 0, MAC_A), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 0, MAC_A), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 0, MAC_B), SFC_DROP_SOURCE_SPOOFED);
    ck_assert_int_eq(sfc_guard_source(&g, 1, MAC_B), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 1, MAC_A), SFC_DROP_SOURCE_SPOOFED);
    ck_assert_int_eq(sfc_guard_source(&g, 0, MAC_A), SFC_DROP_MAX);
}
END_TEST

/* With readouts configured, a stranger is foreign_source before anything
 * is bound; a configured one heard second for a source is spoofed. */
START_TEST(test_bind_configured)
{
    static const uint8_t cfg[2][6] = {{2, 0, 0, 0, 0, 0xa}, {2, 0, 0, 0, 0, 0xb}};
    static struct sfc_guard g;
    struct sfc_guard_conf c = {.n_readouts = 2, .readout_mac = cfg};

    sfc_guard_init(&g, &c);
    ck_assert_int_eq(sfc_guard_source(&g, 5, MAC_C), SFC_DROP_FOREIGN_SOURCE);
    ck_assert_int_eq(sfc_guard_source(&g, 5, MAC_B), SFC_DROP_MAX);
    ck_assert_int_eq(sfc_guard_source(&g, 5, MAC_A), SFC_DROP_SOURCE_SPOOFED);
    ck_assert_int_eq(sfc_guard_source(&g, 5, MAC_C), SFC_DROP_FOREIGN_SOURCE);
    ck_assert_uint_eq(g.n_ro, 2);       /* configured: throttle frames to these */
    sfc_guard_readout_note(&g, MAC_C);  /* not learned: the list is configured */
    ck_assert_uint_eq(g.n_ro, 2);
}
END_TEST

/* Sampled: the first frame of each source and every 4th after it; full:
 * every one; none: none. */
START_TEST(test_verify_sampling)
{
    static struct sfc_guard g;
    struct sfc_guard_conf c = {.verify = SFC_VERIFY_SAMPLED, .verify_every = 4};
    unsigned due0 = 0, due1 = 0;

    sfc_guard_init(&g, &c);
    for (unsigned i = 0; i < 9; i++) {
        int d = sfc_guard_verify_due(&g, 0);
        ck_assert_int_eq(d, i % 4 == 0);
        due0 += (unsigned)d;
    }
    for (unsigned i = 0; i < 5; i++)
        due1 += (unsigned)sfc_guard_verify_due(&g, 1);
    ck_assert_uint_eq(due0, 3);
    ck_assert_uint_eq(due1, 2);
    c.verify = SFC_VERIFY_FULL;
    sfc_guard_init(&g, &c);
    for (unsigned i = 0; i < 5; i++)
        ck_assert_int_eq(sfc_guard_verify_due(&g, 0), 1);
    c.verify = SFC_VERIFY_NONE;
    sfc_guard_init(&g, &c);
    for (unsigned i = 0; i < 5; i++)
        ck_assert_int_eq(sfc_guard_verify_due(&g, 0), 0);
}
END_TEST

/* Learned readouts hear the throttle; while on, one behind the furthest
 * (by the sources bound to it) is told off; off, every one is told off. */
START_TEST(test_throttle_to_behind)
{
    static struct sfc_guard g;
    struct sfc_guard_conf c = {.rx_port = 3};
    struct sfc_ro_dest d[SFC_MAX_READOUTS];
    uint64_t next[3] = {10, 5, 10};

    sfc_guard_init(&g, &c);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 3, d), 0);
    sfc_guard_source(&g, 0, MAC_A);
    sfc_guard_source(&g, 1, MAC_B);
    sfc_guard_source(&g, 2, MAC_A);
    sfc_guard_readout_note(&g, MAC_A);
    sfc_guard_readout_note(&g, MAC_A);
    sfc_guard_readout_note(&g, MAC_B);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 3, d), 2);
    ck_assert_mem_eq(d[0].mac, MAC_A, 6);
    ck_assert_uint_eq(d[0].port, 3);
    ck_assert_uint_eq(d[0].on, 1);
    ck_assert_mem_eq(d[1].mac, MAC_B, 6);
    ck_assert_uint_eq(d[1].on, 0);      /* behind: spared */
    next[1] = 10;
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 3, d), 2);
    ck_assert_uint_eq(d[0].on + d[1].on, 2);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 0, next, 3, d), 2);
    ck_assert_uint_eq(d[0].on + d[1].on, 0);
}
END_TEST

/* With several readout ports a readout gets throttle frames only once it
 * was heard on one, on the last one heard. */
START_TEST(test_throttle_to_ports)
{
    static struct sfc_guard g;
    struct sfc_guard_conf c = {.multi_rx = 1};
    struct sfc_ro_dest d[SFC_MAX_READOUTS];
    uint64_t next[1] = {0};

    sfc_guard_init(&g, &c);
    sfc_guard_readout_note(&g, MAC_A);
    sfc_guard_readout_note(&g, MAC_B);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 1, d), 0);
    sfc_guard_readout_port(&g, MAC_B, 7);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 1, d), 1);
    ck_assert_mem_eq(d[0].mac, MAC_B, 6);
    ck_assert_uint_eq(d[0].port, 7);
    sfc_guard_readout_port(&g, MAC_A, 6);
    sfc_guard_readout_port(&g, MAC_B, 8);
    ck_assert_uint_eq(sfc_guard_throttle_to(&g, 1, next, 1, d), 2);
    ck_assert_uint_eq(d[0].port, 6);
    ck_assert_uint_eq(d[1].port, 8);
}
END_TEST

/* A UDP fragment frame with 24 bytes of IP options and a piece of 1412
 * B: its IP packet is 1504 B, past MTU 1500, so it is oversize (the
 * options count as IP bytes, not as headers); without the options (1480
 * B) it is accepted. */
START_TEST(test_oversize_ip_options)
{
    static uint8_t f[1600];
    static const uint8_t sfc[6] = {2, 0, 0, 0, 0, 2}, ro[6] = {2, 0, 0, 0, 0, 1};
    struct sfc_judge_conf c = {.n_sources = 8, .udp_port = EBF_UDP_PORT_DEFAULT, .mtu = 1500,
                               .check_crc = 1};
    struct ebf_frag_hdr h = {.source = 1, .event_id = 9, .frag_len = 1412, .piece_len = 1412};
    struct ebf_l2l3 l;

    memcpy(c.mac, sfc, 6);
    for (unsigned opt = 0; opt <= 24; opt += 24) {
        uint8_t *ip = f + EBF_ETH_HLEN, *udp = ip + 20 + opt;
        uint16_t total = (uint16_t)(20 + opt + 8 + EBF_FRAG_HLEN + 1412);
        memset(f, 0, sizeof(f));
        memcpy(f, sfc, 6);
        memcpy(f + 6, ro, 6);
        f[12] = 0x08;
        ip[0] = (uint8_t)(0x40 | (20 + opt) / 4);
        ip[2] = (uint8_t)(total >> 8), ip[3] = (uint8_t)total;
        ip[6] = 0x40, ip[8] = 64, ip[9] = 17;
        uint16_t ck = ebf_ipv4_cksum(ip, 20 + opt);
        ip[10] = (uint8_t)(ck >> 8), ip[11] = (uint8_t)ck;
        udp[0] = udp[2] = (uint8_t)(EBF_UDP_PORT_DEFAULT >> 8);
        udp[1] = udp[3] = (uint8_t)EBF_UDP_PORT_DEFAULT;
        udp[4] = (uint8_t)((total - 20 - opt) >> 8), udp[5] = (uint8_t)(total - 20 - opt);
        ebf_frag_write(udp + 8, &h);
        struct sfc_verdict v = sfc_guard_judge(&c, f, EBF_ETH_HLEN + total, &l, &h);
        ck_assert_int_eq(v.reject, EBF_R_OK);
        ck_assert_uint_eq(v.rule, opt ? 6 : 0);
        ck_assert_int_eq(v.drop, opt ? SFC_DROP_OVERSIZE : SFC_DROP_MAX);
    }
}
END_TEST

Suite *sfc_guard_suite(void);

Suite *sfc_guard_suite(void)
{
    Suite *s = suite_create("guard");
    TCase *tc = tcase_create("sequence");

    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_seq_gaps);
    tcase_add_test(tc, test_seq_wraps);
    tcase_add_test(tc, test_seq_wrap_at_start);
    tcase_add_test(tc, test_seq_resync);
    tcase_add_test(tc, test_seq_window_64);
    suite_add_tcase(s, tc);
    tc = tcase_create("who");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_bind_any);
    tcase_add_test(tc, test_bind_configured);
    tcase_add_test(tc, test_verify_sampling);
    tcase_add_test(tc, test_throttle_to_behind);
    tcase_add_test(tc, test_throttle_to_ports);
    tcase_add_test(tc, test_oversize_ip_options);
    suite_add_tcase(s, tc);
    return s;
}
