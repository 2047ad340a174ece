/* SPDX-License-Identifier: BSD-3-Clause */
/* test-ro_fault_tx.c - the readout's fault stage under EAL: what arrives on a crossed net_ring port, frame by frame. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "ebf_idle.h"
#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"
#include "ro_fault.h"
#include "ro_fault_tx.h"
#include "ro_gen.h"
#include "test-eal.h"

#define RING 4096
#define POOL_N 8191
#define MAX_RX (RING - 1)
#define N_SRC 4
#define N_EV 400
#define N_GEN (N_SRC * N_EV)     /* one frame a fragment: 200-byte fragments */

struct rig {
    uint16_t tx_port, rx_port;   /* what tx_port sends, rx_port receives */
    struct rte_mempool *pool;
};

static struct rte_mbuf *rx[MAX_RX];

static void rig_up(struct rig *g)
{
    test_eal_init();
    struct rte_ring *ab = test_ring("f_ab", RING), *ba = test_ring("f_ba", RING);
    g->tx_port = test_ring_port("fa", ba, ab);
    g->rx_port = test_ring_port("fb", ab, ba);
    g->pool = ebf_pool_create("f_pool", POOL_N, 2048, 0);
    ck_assert_ptr_nonnull(g->pool);
    ck_assert_int_eq(ebf_port_start(g->tx_port, g->pool, 0, 512, 512), 0);
    ck_assert_int_eq(ebf_port_start(g->rx_port, g->pool, 0, 512, 512), 0);
}

/* Everything the other port has received. */
static unsigned receive(const struct rig *g)
{
    unsigned n = 0;
    uint16_t k;

    while ((k = rte_eth_rx_burst(g->rx_port, 0, rx + n, (uint16_t)RTE_MIN(32u, MAX_RX - n))))
        n += k;
    ck_assert_uint_lt(n, MAX_RX);
    return n;
}

static void conf_init(struct ro_conf *c, const struct rig *g, uint64_t n_events, uint32_t size)
{
    static const uint8_t src[6] = {0x02, 0xeb, 0, 0, 0, 1}, sfc[6] = {0x02, 0xeb, 0, 0, 1, 0};

    memset(c, 0, sizeof(*c));
    c->port = g->tx_port;
    c->pool = g->pool;
    c->n_sources = N_SRC;
    c->n_events = n_events;
    c->size_min = c->size_max = size;
    c->seed = 1;
    c->encap = EBF_ENCAP_ETH;
    memcpy(c->src_mac, src, 6);
    c->n_sfcs = 1;
    memcpy(c->sfc_mac[0], sfc, 6);
    c->mtu = 1500;
    c->burst = 32;
    ebf_idle_init(&c->idle, EBF_IDLE_SPIN);
}

static uint64_t rd_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The fragment header of a received frame (raw Ethernet). */
static uint8_t *frag_of(struct rte_mbuf *m)
{
    return rte_pktmbuf_mtod(m, uint8_t *) + EBF_ETH_HLEN;
}

/* Frame g of the run: event g / N_SRC, source g % N_SRC. */
static uint32_t gen_index(struct rte_mbuf *m)
{
    const uint8_t *f = frag_of(m);
    return (uint32_t)(rd_be(f + 8, 8) * N_SRC + rd_be(f + 2, 2));
}

enum tag { T_PLAIN, T_COPY, T_CORRUPT_PAYLOAD, T_CORRUPT_HEADER };

struct mframe {
    uint32_t g;
    enum tag tag;
};

/*
 * The model: what the stage should send for frames 0 .. N_GEN-1 under fc,
 * replayed from the same decision stream (ro_fault_decide) with plain
 * arrays. Held frames (delay by frames only) leave, in the order they were
 * held, right after the frame at which they fall due, or at the end.
 */
static unsigned model(const struct ro_fault_conf *fc, struct mframe *out,
                      struct ro_fault_stats *ms)
{
    struct ro_fault_plan pl;
    uint32_t held_g[N_GEN];
    enum tag held_tag[N_GEN];
    uint64_t held_due[N_GEN], idx = 0;
    unsigned n = 0, nh = 0;

    memset(ms, 0, sizeof(*ms));
    ro_fault_plan_init(&pl, fc);
    for (uint32_t g = 0; g < N_GEN; g++) {
        uint32_t s = g % N_SRC, arg;
        ms->frames_in++;
        if (s == fc->silence_source && g / N_SRC >= fc->silence_event) {
            ms->silenced_frames++;
            ms->silenced_fragments++;
            continue;
        }
        idx++;
        enum ro_fault_kind k = ro_fault_decide(&pl, &arg);
        if (k != RO_FK_NONE)
            ms->n[k]++;
        switch (k) {
        case RO_FK_DROP: ms->dropped_source[s]++; break;
        case RO_FK_DUP:
            out[n++] = (struct mframe){g, T_PLAIN};
            if (fc->dup_frames == 0) {
                out[n++] = (struct mframe){g, T_COPY};
                break;
            }
            held_g[nh] = g;
            held_tag[nh] = T_COPY;
            held_due[nh++] = idx + fc->dup_frames;
            break;
        case RO_FK_REORDER:
        case RO_FK_DELAY:
            ck_assert_uint_gt(arg, 0);          /* the cases delay by frames */
            held_g[nh] = g;
            held_tag[nh] = T_PLAIN;
            held_due[nh++] = idx + arg;
            break;
        case RO_FK_CORRUPT_PAYLOAD: out[n++] = (struct mframe){g, T_CORRUPT_PAYLOAD}; break;
        case RO_FK_CORRUPT_HEADER: out[n++] = (struct mframe){g, T_CORRUPT_HEADER}; break;
        default: out[n++] = (struct mframe){g, T_PLAIN}; break;
        }
        unsigned j = 0;
        for (unsigned i = 0; i < nh; i++) {
            if (held_due[i] <= idx)
                out[n++] = (struct mframe){held_g[i], held_tag[i]};
            else
                held_g[j] = held_g[i], held_tag[j] = held_tag[i], held_due[j++] = held_due[i];
        }
        nh = j;
    }
    for (unsigned i = 0; i < nh; i++)
        out[n++] = (struct mframe){held_g[i], held_tag[i]};
    return n;
}

/* A frame that must parse and carry its pattern. */
static void check_plain(struct rte_mbuf *m, uint32_t g)
{
    struct ebf_frag_hdr h;
    size_t used;
    const uint8_t *f = frag_of(m);

    ck_assert_int_eq(ebf_frag_parse(f, m->data_len - EBF_ETH_HLEN, N_SRC, 1, &h, &used),
                     EBF_R_OK);
    ck_assert_uint_eq(h.event_id * N_SRC + h.source, g);
    ck_assert_int_eq(ebf_pattern_check(f + EBF_FRAG_HLEN, h.piece_len, h.source, h.event_id, 0),
                     -1);
}

/* Exactly one piece byte XORed with 0xff, and the CRC says so. */
static void check_corrupt_payload(struct rte_mbuf *m)
{
    struct ebf_frag_hdr h;
    size_t used;
    const uint8_t *f = frag_of(m), *piece = f + EBF_FRAG_HLEN;
    uint16_t len = (uint16_t)rd_be(f + 24, 2), s = (uint16_t)rd_be(f + 2, 2);
    uint64_t e = rd_be(f + 8, 8);
    uint8_t want;

    ck_assert_int_eq(ebf_frag_parse(f, m->data_len - EBF_ETH_HLEN, N_SRC, 1, &h, &used),
                     EBF_R_BAD_CHECKSUM);
    long d = ebf_pattern_check(piece, len, s, e, 0);
    ck_assert_int_ge(d, 0);
    ebf_pattern_fill(&want, 1, s, e, (uint32_t)d);
    ck_assert_uint_eq(piece[d] ^ 0xff, want);
    ck_assert_int_eq(ebf_pattern_check(piece + d + 1, len - (size_t)d - 1, s, e,
                                       (uint32_t)d + 1), -1);
}

/* flags = 0x00ff: bad_field; with byte 27 restored the frame is whole again. */
static void check_corrupt_header(struct rte_mbuf *m, uint32_t g)
{
    struct ebf_frag_hdr h;
    struct ebf_l2l3 l;
    size_t used;
    uint8_t *f = frag_of(m);

    ck_assert_int_eq(ebf_parse_l2l3(rte_pktmbuf_mtod(m, uint8_t *), m->data_len,
                                    EBF_UDP_PORT_DEFAULT, &l), EBF_R_OK);
    ck_assert_int_eq(ebf_frag_parse(f, m->data_len - EBF_ETH_HLEN, N_SRC, 1, &h, &used),
                     EBF_R_BAD_FIELD);
    ck_assert_uint_eq(rd_be(f + 26, 2), 0x00ff);
    f[27] ^= 0xff;
    check_plain(m, g);
}

/* Distinct frames received before rx[j] that were generated after it. */
static unsigned overtaken(unsigned j)
{
    uint32_t g = gen_index(rx[j]), last = UINT32_MAX;
    unsigned n = 0;

    for (unsigned i = 0; i < j; i++) {
        uint32_t x = gen_index(rx[i]);
        n += x > g && x != last;        /* a copy follows its original */
        last = x;
    }
    return n;
}

static void check_counters(const struct ro_fault_stats *fs, const struct ro_fault_stats *ms,
                           const char *spec)
{
    ck_assert_uint_eq(fs->frames_in, ms->frames_in);
    for (unsigned k = 0; k < RO_FK_MAX; k++)
        ck_assert_msg(fs->n[k] == ms->n[k], "\"%s\": %s %" PRIu64 ", model %" PRIu64, spec,
                      ro_fault_counter(k), fs->n[k], ms->n[k]);
    ck_assert_uint_eq(fs->silenced_frames, ms->silenced_frames);
    ck_assert_uint_eq(fs->silenced_fragments, ms->silenced_fragments);
    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++)
        ck_assert_uint_eq(fs->dropped_source[s], ms->dropped_source[s]);
    ck_assert_uint_eq(fs->dup_failed, 0);
    ck_assert_uint_eq(fs->hold_full, 0);
}

/*
 * Each fault kind alone, then mixed, then silences, at fault seed 7: the
 * frames that arrive are the model's frame for frame (order, copies,
 * corruptions), the counters are the model's, received = in - silenced -
 * dropped + duplicated, no frame is overtaken by more (distinct) frames
 * than the window or delay, and every mbuf is back in the pool at the end.
 */
START_TEST(test_faults_table)
{
    static const struct {
        const char *spec;
        uint32_t silence_source;
        uint64_t silence_event;
        uint32_t max_late;       /* window or delay_frames */
    } t[] = {
        {"drop=0.05", RO_FAULT_NO_SILENCE, 0, 0},
        {"dup=0.05", RO_FAULT_NO_SILENCE, 0, 0},
        {"dup=0.05,dup_frames=20", RO_FAULT_NO_SILENCE, 0, 20},
        {"reorder=0.05,window=4", RO_FAULT_NO_SILENCE, 0, 4},
        {"delay=0.05,delay_frames=6", RO_FAULT_NO_SILENCE, 0, 6},
        {"corrupt=0.05", RO_FAULT_NO_SILENCE, 0, 0},
        {"corrupt_header=0.05", RO_FAULT_NO_SILENCE, 0, 0},
        {"drop=0.02,dup=0.02,reorder=0.03,window=5,delay=0.02,delay_frames=3,corrupt=0.02,"
         "corrupt_header=0.02", RO_FAULT_NO_SILENCE, 0, 5},
        {"", 2, 100, 0},
        {"drop=0.05,reorder=0.05,window=8", 1, 250, 8},
    };
    static struct mframe want[2 * N_GEN];
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;
    char err[256];

    rig_up(&g);
    for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct ro_fault_conf fc;
        struct ro_fault_stats ms;

        ro_fault_conf_init(&fc);
        ck_assert_int_eq(ro_fault_parse(t[i].spec, &fc, err, sizeof(err)), 0);
        fc.seed = 7;
        fc.silence_source = t[i].silence_source;
        fc.silence_event = t[i].silence_event;
        conf_init(&c, &g, N_EV, 200);
        c.fault = ro_fault_tx_create(&fc, c.encap, g.pool, 0);
        ck_assert_ptr_nonnull(c.fault);
        ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
        ck_assert_uint_eq(st.events, N_EV);
        ck_assert_uint_eq(st.frames, N_GEN);
        ck_assert_uint_eq(st.tx_abandoned, 0);
        ck_assert_uint_eq(ro_fault_tx_held(c.fault), 0);

        const struct ro_fault_stats *fs = ro_fault_tx_stats(c.fault);
        unsigned nw = model(&fc, want, &ms), n = receive(&g);
        check_counters(fs, &ms, t[i].spec);
        for (unsigned k = 0; k < RO_FK_MAX; k++)
            if (fc.p[k] > 0)                    /* the case exercised its faults */
                ck_assert_msg(fs->n[k] > 0, "\"%s\": no %s", t[i].spec, ro_fault_counter(k));
        ck_assert_uint_eq(n, fs->frames_in - fs->silenced_frames - fs->n[RO_FK_DROP] +
                             fs->n[RO_FK_DUP]);
        ck_assert_uint_eq(n, nw);
        if (t[i].silence_source != RO_FAULT_NO_SILENCE)
            ck_assert_uint_eq(fs->silenced_fragments, N_EV - t[i].silence_event);

        uint32_t high = 0;
        unsigned late = 0, by_tag[4] = {0};
        for (unsigned j = 0; j < n; j++) {
            uint32_t gi = gen_index(rx[j]);
            ck_assert_msg(gi == want[j].g, "\"%s\": frame %u is %u, model %u", t[i].spec, j,
                          gi, want[j].g);
            ck_assert_msg(!(gi % N_SRC == t[i].silence_source &&
                            gi / N_SRC >= t[i].silence_event), "silenced frame %u sent", gi);
            by_tag[want[j].tag]++;
            switch (want[j].tag) {
            case T_PLAIN: check_plain(rx[j], gi); break;
            case T_COPY:
                if (want[j - 1].g == gi) {      /* right after its original */
                    ck_assert_uint_eq(rx[j]->data_len, rx[j - 1]->data_len);
                    ck_assert_int_eq(memcmp(rte_pktmbuf_mtod(rx[j], void *),
                                            rte_pktmbuf_mtod(rx[j - 1], void *),
                                            rx[j]->data_len), 0);
                }
                check_plain(rx[j], gi);
                break;
            case T_CORRUPT_PAYLOAD: check_corrupt_payload(rx[j]); break;
            case T_CORRUPT_HEADER: check_corrupt_header(rx[j], gi); break;
            }
            if (gi < high && want[j].tag != T_COPY) {  /* a held copy is late by design */
                late++;
                ck_assert_msg(overtaken(j) <= t[i].max_late, "\"%s\": frame %u overtaken by "
                              "%u frames", t[i].spec, gi, overtaken(j));
            }
            high = RTE_MAX(high, gi);
        }
        ck_assert_uint_eq(by_tag[T_COPY], fs->n[RO_FK_DUP]);
        ck_assert_uint_eq(by_tag[T_CORRUPT_PAYLOAD], fs->n[RO_FK_CORRUPT_PAYLOAD]);
        ck_assert_uint_eq(by_tag[T_CORRUPT_HEADER], fs->n[RO_FK_CORRUPT_HEADER]);
        ck_assert_uint_le(late, fs->n[RO_FK_REORDER] + fs->n[RO_FK_DELAY]);
        if (fs->n[RO_FK_REORDER] + fs->n[RO_FK_DELAY])
            ck_assert_uint_gt(late, 0);
        rte_pktmbuf_free_bulk(rx, n);
        ro_fault_tx_free(c.fault);
        ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    }
    ebf_eal_cleanup();
}
END_TEST

/*
 * Delay by time (300 us) at 20000 events/s: every frame arrives exactly
 * once, the delayed ones late, and none is held at the end.
 */
START_TEST(test_delay_by_time)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_fault_conf fc;
    volatile sig_atomic_t stop = 0, force = 0;
    char err[256];
    static uint8_t seen[N_GEN];

    rig_up(&g);
    ro_fault_conf_init(&fc);
    ck_assert_int_eq(ro_fault_parse("delay=0.05,delay_us=300", &fc, err, sizeof(err)), 0);
    conf_init(&c, &g, N_EV, 200);
    c.rate = 20000;
    c.fault = ro_fault_tx_create(&fc, c.encap, g.pool, 0);
    ck_assert_ptr_nonnull(c.fault);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    const struct ro_fault_stats *fs = ro_fault_tx_stats(c.fault);
    unsigned n = receive(&g), late = 0;
    uint32_t high = 0;

    ck_assert_uint_eq(n, N_GEN);
    ck_assert_uint_gt(fs->n[RO_FK_DELAY], 0);
    ck_assert_uint_eq(fs->frames_in, N_GEN);
    for (unsigned j = 0; j < n; j++) {
        uint32_t gi = gen_index(rx[j]);
        ck_assert_uint_lt(gi, N_GEN);
        ck_assert_uint_eq(seen[gi]++, 0);
        check_plain(rx[j], gi);
        late += gi < high;
        high = RTE_MAX(high, gi);
    }
    ck_assert_uint_gt(late, 0);
    ck_assert_uint_le(late, fs->n[RO_FK_DELAY]);
    rte_pktmbuf_free_bulk(rx, n);
    ro_fault_tx_free(c.fault);
    ck_assert_uint_eq(rte_mempool_in_use_count(g.pool), 0);
    ebf_eal_cleanup();
}
END_TEST

/* Bursts of 10 events with 3 ms gaps: 30 events take 2 gaps, >= 6 ms. */
START_TEST(test_bursts)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    struct ro_fault_conf fc;
    volatile sig_atomic_t stop = 0, force = 0;

    rig_up(&g);
    ro_fault_conf_init(&fc);
    fc.burst_events = 10;
    fc.burst_gap_us = 3000;
    conf_init(&c, &g, 30, 200);
    c.idle.mode = EBF_IDLE_BACKOFF;
    c.fault = ro_fault_tx_create(&fc, c.encap, g.pool, 0);
    ck_assert_ptr_nonnull(c.fault);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    ck_assert_uint_eq(ro_fault_tx_stats(c.fault)->burst_gaps, 2);
    ck_assert_uint_eq(st.events, 30);
    ck_assert_uint_ge(st.end_ns - st.start_ns, 6000000);
    unsigned n = receive(&g);
    ck_assert_uint_eq(n, 30 * N_SRC);
    for (unsigned j = 0; j < n; j++)
        check_plain(rx[j], j);
    rte_pktmbuf_free_bulk(rx, n);
    ro_fault_tx_free(c.fault);
    ebf_eal_cleanup();
}
END_TEST

/*
 * Log-normal sizes, mean 1000 and sd 300 bytes, 300 events of 4 sources:
 * every fragment's length is ro_frag_size() of its (source, event), the
 * pieces add up to it, and over the 1200 fragments the sample mean and sd
 * are within 45 bytes of 1000 and 300: 5 standard errors (300/sqrt(1200) =
 * 8.7 for the mean, 300 sqrt(3.57/4800) = 8.2 for the sd).
 */
START_TEST(test_lognormal_run)
{
    struct rig g;
    struct ro_conf c;
    struct ro_stats st;
    volatile sig_atomic_t stop = 0, force = 0;
    static uint32_t got[N_SRC][300];
    double sum = 0, sum2 = 0;
    uint64_t want_payload = 0;

    rig_up(&g);
    conf_init(&c, &g, 300, 1);
    c.size_dist = RO_SIZE_LOGNORMAL;
    c.size_min = 1;
    c.size_max = 1u << 20;
    c.seed = 11;
    ro_size_lognormal_params(1000, 300, &c.size_mu, &c.size_sigma);
    ck_assert_int_eq(ro_run(&c, &st, &stop, &force), 0);
    unsigned n = receive(&g);
    ck_assert_uint_eq(n, st.frames);
    for (unsigned j = 0; j < n; j++) {
        struct ebf_frag_hdr h;
        size_t used;
        ck_assert_int_eq(ebf_frag_parse(frag_of(rx[j]), rx[j]->data_len - EBF_ETH_HLEN, N_SRC,
                                        1, &h, &used), EBF_R_OK);
        ck_assert_uint_lt(h.event_id, 300);
        ck_assert_uint_eq(h.frag_len, ro_frag_size(&c, h.source, h.event_id));
        ck_assert_uint_eq(h.frag_len, ro_size_lognormal(11, h.source, h.event_id, c.size_mu,
                                                        c.size_sigma, 1, 1u << 20));
        got[h.source][h.event_id] += h.piece_len;
    }
    for (unsigned s = 0; s < N_SRC; s++) {
        for (unsigned e = 0; e < 300; e++) {
            ck_assert_uint_eq(got[s][e], ro_frag_size(&c, (uint16_t)s, e));
            sum += got[s][e];
            sum2 += (double)got[s][e] * got[s][e];
            want_payload += got[s][e];
        }
    }
    ck_assert_uint_eq(st.payload_bytes, want_payload);
    double mean = sum / 1200, sd = sqrt((sum2 - sum * sum / 1200) / 1199);
    ck_assert_msg(fabs(mean - 1000) < 45 && fabs(sd - 300) < 45, "mean %.1f sd %.1f", mean, sd);
    rte_pktmbuf_free_bulk(rx, n);
    ebf_eal_cleanup();
}
END_TEST

Suite *ro_fault_tx_suite(void);

Suite *ro_fault_tx_suite(void)
{
    Suite *s = suite_create("fault_tx");
    TCase *tc = tcase_create("run");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_faults_table);
    tcase_add_test(tc, test_delay_by_time);
    tcase_add_test(tc, test_bursts);
    tcase_add_test(tc, test_lognormal_run);
    suite_add_tcase(s, tc);
    return s;
}
