/* SPDX-License-Identifier: BSD-3-Clause */
/* test-lb_dp.c - loopback TX/RX lcores over crossed net_ring ports: exact accounting of injected faults, a search against a port that drops above a known rate, the loops' busy cycles. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ebf_port.h"
#include "ebf_proto.h"
#include "lb_run.h"
#include "test-eal.h"

/* EAL with three floating lcores (main, TX, RX) on whatever CPUs we have. */
static void eal3(void)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "lb", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--lcores=0@(0,1),1@(0,1),2@(0,1)", prefix, "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(9, argv), 0);
}

/* The rate of the trials whose counts are asserted exactly: they last 1 s,
 * so that the sender's give-up point (125 % of the trial plus 10 ms) lies
 * 260 ms past the end. At 40,000 frames/s (0.25 s, 72 ms of margin) a
 * sender preempted on a loaded 2-core machine gave up after 9,631 of
 * 10,000 frames. */
#define EXACT_FPS 10000

/* --- Fault injection on the RX port ------------------------------------------ */

/*
 * An RX callback that rewrites the stream deterministically by sequence
 * number: drops s % 97 == 5, duplicates s % 211 == 7, delays s % 331 == 9
 * behind the next frame; and, when police_fps is set, passes only a
 * police/offered share of frames (frame k passes when floor((k+1) * p / o)
 * > floor(k * p / o)): a port that drops deterministically above a rate.
 * Output goes through a FIFO so that duplicates never overflow a burst.
 */
struct faults {
    int inject;
    double police_fps, offered_fps;
    uint64_t k;                          /* frames seen by the policer */
    struct rte_mbuf *held;
    struct rte_mbuf *fifo[4096];
    unsigned head, n;
};

static struct faults fl;

static uint32_t frame_seq(struct rte_mbuf *m)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *) + 14 + 4;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void push(struct rte_mbuf *m)
{
    ck_assert_uint_lt(fl.n, 4096);
    fl.fifo[(fl.head + fl.n++) % 4096] = m;
}

static void one_frame(struct rte_mbuf *m)
{
    uint32_t s = frame_seq(m);
    if (fl.police_fps > 0 && fl.offered_fps > fl.police_fps) {
        double q = fl.police_fps / fl.offered_fps;
        uint64_t k = fl.k++;
        if ((uint64_t)((double)(k + 1) * q) == (uint64_t)((double)k * q)) {
            rte_pktmbuf_free(m);
            return;
        }
    }
    if (fl.inject && s % 97 == 5) {
        rte_pktmbuf_free(m);
        return;
    }
    if (fl.inject && s % 211 == 7) {
        rte_pktmbuf_refcnt_update(m, 1);
        push(m);
        push(m);
        return;
    }
    if (fl.inject && s % 331 == 9) {
        fl.held = m;
        return;
    }
    push(m);
    if (fl.held) {
        push(fl.held);
        fl.held = NULL;
    }
}

static uint16_t rx_faults(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                          uint16_t max, void *arg)
{
    (void)port, (void)q, (void)arg;
    for (uint16_t i = 0; i < n; i++)
        one_frame(pkts[i]);
    uint16_t out = 0;
    while (out < max && fl.n) {
        pkts[out++] = fl.fifo[fl.head];
        fl.head = (fl.head + 1) % 4096;
        fl.n--;
    }
    return out;
}

/* --- Set-up ------------------------------------------------------------------ */

static struct lb_runner run;
static struct lb_report rep;
static unsigned rx_lcore;
static volatile int no_stop;

static void setup(void)
{
    memset(&fl, 0, sizeof(fl));
    memset(&rep, 0, sizeof(rep));
    eal3();
    struct rte_ring *a = test_ring("lb_a", 8192), *b = test_ring("lb_b", 8192);
    uint16_t tx = test_ring_port("lb_tx", b, a), rx = test_ring_port("lb_rx", a, b);
    struct rte_mempool *pool = ebf_pool_create("lb_pool", 8191, 2048, 0);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(ebf_port_start(tx, pool, 0, 1024, 1024), 0);
    ck_assert_int_eq(ebf_port_start(rx, pool, 0, 1024, 1024), 0);
    ck_assert_ptr_nonnull(rte_eth_add_rx_callback(rx, 0, rx_faults, NULL));
    run = (struct lb_runner){
        .tx_port = tx, .rx_port = rx, .tx_pool = pool, .burst = 32, .streams = 1,
        .trial_s = 0.25, .tolerance = 0.2, .drain_s = 0.05, .idle = EBF_IDLE_BACKOFF,
        .stop = &no_stop, .frame_size = 64, .mode = "throughput", .report = &rep,
        .next_trial_id = 1, .latency_valid = 1,
    };
    run.rx = rte_zmalloc("lb_rx", sizeof(*run.rx), RTE_CACHE_LINE_SIZE);
    ck_assert_ptr_nonnull(run.rx);
    lb_rx_init(run.rx);
    run.rx->port = rx;
    run.rx->streams = 1;
    run.rx->check_crc = 1;
    run.rx->idle = EBF_IDLE_BACKOFF;
    run.tx_lcore[0] = rte_get_next_lcore(-1, 1, 0);
    rx_lcore = rte_get_next_lcore(run.tx_lcore[0], 1, 0);
    ck_assert_uint_lt(rx_lcore, RTE_MAX_LCORE);
    ck_assert_int_eq(rte_eal_remote_launch(lb_rx_loop, run.rx, rx_lcore), 0);
}

static void teardown(void)
{
    lb_rx_command(run.rx, LB_RX_QUIT, 0, NULL);
    rte_eal_wait_lcore(rx_lcore);
    lb_report_free(&rep);
    ebf_eal_cleanup();
}

/* 10000 frames through drops, duplicates and delays: every count exact. */
START_TEST(test_faults_exact)
{
    setup();
    fl.inject = 1;
    uint64_t exp_lost = 0, exp_dup = 0, exp_reordered = 0;
    for (uint32_t s = 0; s < 10000; s++) {
        if (s % 97 == 5)
            exp_lost++;
        else if (s % 211 == 7)
            exp_dup++;
        else if (s % 331 == 9)
            exp_reordered++;
    }
    struct lb_trial_req req = {.fps = EXACT_FPS, .count = 10000};
    struct lb_trial_out out;
    uint64_t t0 = rte_rdtsc();
    ck_assert_int_eq(lb_run_trial(&run, &req, &out), 0);
    uint64_t t1 = rte_rdtsc();
    const struct lb_trial_rec *t = &rep.trial[0];
    /* The RX loop's passes of the trial: the first to the last frame is
     * inside them, and they are inside the trial. */
    const struct lb_rx_result *rr = &run.rx->r;
    uint64_t rx_cycles = rr->cycles.busy_cycles + rr->cycles.idle_cycles;
    ck_assert_uint_gt(rr->cycles.busy_passes, 0);
    ck_assert_uint_le(rr->cycles.busy_passes, 10000 + exp_dup);
    ck_assert_uint_gt(rr->cycles.idle_passes, 0);
    ck_assert_msg(rx_cycles >= rr->last_tsc - rr->first_tsc && rx_cycles <= t1 - t0,
                  "rx cycles %lu outside [%lu, %lu]", (unsigned long)rx_cycles,
                  (unsigned long)(rr->last_tsc - rr->first_tsc), (unsigned long)(t1 - t0));
    ck_assert_uint_eq(t->sent, 10000);
    ck_assert_uint_eq(t->tx_accepted, 10000);
    ck_assert_uint_eq(t->lost, exp_lost);
    ck_assert_uint_eq(t->dup, exp_dup);
    ck_assert_uint_eq(t->reordered, exp_reordered);
    ck_assert_uint_eq(t->rx, 10000 - exp_lost + exp_dup);
    ck_assert_uint_eq(t->unique, 10000 - exp_lost);
    ck_assert_uint_eq(t->bursts, exp_lost);         /* isolated single drops */
    ck_assert_uint_eq(t->max_burst, 1);
    ck_assert_uint_eq(t->late + t->foreign + t->stale + t->bad_checksum + t->bad_frame, 0);
    ck_assert_uint_eq(t->unattributed, exp_lost);   /* dropped behind the port's back */
    ck_assert(t->lat.valid);
    ck_assert_uint_eq(t->lat.count, 10000 - exp_lost + exp_dup);
    ck_assert(t->lat.min > 0 && t->lat.min <= t->lat.p50 && t->lat.p50 <= t->lat.p99 &&
              t->lat.p99 <= t->lat.max);
    ck_assert_uint_eq(out.lost, exp_lost);
    teardown();
}
END_TEST

/* The TX loop's passes: a burst sent is busy, a wait for the schedule idle;
 * from the schedule's start to the last burst is inside them, and they are
 * inside the call. */
START_TEST(test_tx_cycles)
{
    static volatile int stop;
    static struct lb_tx_stats st;    /* cache-aligned, as its cycles need */

    setup();
    struct lb_tx_conf c = {
        .port = run.tx_port, .pool = run.tx_pool, .burst = 32, .frame_size = 64,
        .fps = EXACT_FPS / 5, .count = 2000, .trial_id = 99, .streams = 1,
        .idle = EBF_IDLE_BACKOFF, .stop = &stop,
    };
    uint64_t t0 = rte_rdtsc();
    ck_assert_int_eq(lb_tx_run(&c, &st), 0);
    uint64_t t1 = rte_rdtsc();
    uint64_t cycles = st.cycles.busy_cycles + st.cycles.idle_cycles;
    ck_assert_uint_eq(st.accepted, 2000);
    ck_assert_uint_ge(st.cycles.busy_passes, (2000 + 31) / 32);
    ck_assert_uint_le(st.cycles.busy_passes, 2000);
    ck_assert_uint_gt(st.cycles.idle_passes, 0);
    ck_assert_msg(cycles >= st.last_tsc - st.t0 && cycles <= t1 - t0,
                  "tx cycles %lu outside [%lu, %lu]", (unsigned long)cycles,
                  (unsigned long)(st.last_tsc - st.t0), (unsigned long)(t1 - t0));
    ck_assert_int_eq(st.cycles.on, 0);
    teardown();
}
END_TEST

/* A trial function that tells the policer the offered rate first. */
static int policed_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    fl.offered_fps = req->fps;
    fl.k = 0;
    return lb_run_trial(ctx, req, out);
}

/* A port that drops above 15000 fps: the search ends within its resolution
 * below, and every failed trial lost exactly what the policer dropped. */
START_TEST(test_search_policed)
{
    setup();
    fl.police_fps = 15000;
    struct lb_search_conf c = {.max_fps = 40000, .resolution_fps = 1000, .loss_ratio = 0,
                               .max_trials = 12};
    struct lb_search_result r;
    ck_assert_int_eq(lb_search_throughput(&c, policed_trial, &run, &r), 0);
    ck_assert(r.found);
    ck_assert_msg(r.fps <= 15000 && r.fps > 14000, "found %f", r.fps);
    ck_assert_uint_eq(r.invalid, 0);
    ck_assert_uint_eq(r.trials, rep.n_trials);
    for (unsigned i = 0; i < rep.n_trials; i++) {
        const struct lb_trial_rec *t = &rep.trial[i];
        double q = 15000 / t->requested_fps;
        uint64_t pass = t->requested_fps > 15000 ? (uint64_t)((double)t->sent * q) : t->sent;
        ck_assert(t->valid);
        ck_assert_uint_eq(t->lost, t->sent - pass);
    }
    teardown();
}
END_TEST

/* --- Queues ------------------------------------------------------------------- */

/*
 * An RX callback on each queue of the 2-queue port: counts the frames of
 * each stream it sees (stream q comes from UDP source port LB_UDP_PORT + 1
 * + q, or in a VLAN-tagged frame with VLAN ID 1 + q; q_tagged counts those)
 * and, on queue 0, drops sequence numbers s % 97 == 5.
 */
static uint64_t q_seen[2][2];           /* [queue][stream] */
static uint64_t q_tagged[2];

static uint16_t rx_queue_cb(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n,
                            uint16_t max, void *arg)
{
    uint16_t out = 0;
    (void)port, (void)max, (void)arg;
    for (uint16_t i = 0; i < n; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(pkts[i], const uint8_t *), *s;
        unsigned stream;
        if (p[12] == 0x81 && p[13] == 0x00) {                       /* 802.1Q */
            ck_assert_uint_eq((unsigned)p[16] << 8 | p[17], EBF_ETHERTYPE);
            stream = ((unsigned)(p[14] & 0x0f) << 8 | p[15]) - 1;   /* VLAN ID - 1 */
            s = p + 18 + 4;                                         /* fragment seq */
            q_tagged[q]++;
        } else {
            stream = ((unsigned)p[34] << 8 | p[35]) - LB_UDP_PORT - 1;  /* UDP source port */
            s = p + 42 + 4;
        }
        uint32_t seq = (uint32_t)s[0] << 24 | (uint32_t)s[1] << 16 | (uint32_t)s[2] << 8 | s[3];
        ck_assert_uint_lt(stream, 2);
        q_seen[q][stream]++;
        if (q == 0 && seq % 97 == 5)
            rte_pktmbuf_free(pkts[i]);
        else
            pkts[out++] = pkts[i];
    }
    return out;
}

/* Two TX and two RX queues over crossed 2-queue net_ring ports (queue q of
 * one is queue q of the other), five lcores on what CPUs there are: the
 * receivers get 0.3 s after the last send to take every frame off their
 * rings (0.05 s was once too short on a loaded 2-CPU machine). */
static unsigned rx_lcores[2];

static void setup_queues(unsigned frame_size)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "lbq", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "--lcores=0@(0,1),1@(0,1),2@(0,1),3@(0,1),4@(0,1)", prefix,
                    "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(9, argv), 0);
    memset(&rep, 0, sizeof(rep));
    memset(q_seen, 0, sizeof(q_seen));
    memset(q_tagged, 0, sizeof(q_tagged));
    struct rte_ring *a[2] = {test_ring("lbq_a0", 8192), test_ring("lbq_a1", 8192)};
    struct rte_ring *b[2] = {test_ring("lbq_b0", 8192), test_ring("lbq_b1", 8192)};
    int tx = rte_eth_from_rings("lbq_tx", b, 2, a, 2, 0);
    int rx = rte_eth_from_rings("lbq_rx", a, 2, b, 2, 0);
    ck_assert(tx >= 0 && rx >= 0);
    struct rte_mempool *pool = ebf_pool_create("lbq_pool", 8191, 2048, 0);
    ck_assert_ptr_nonnull(pool);
    ck_assert_int_eq(ebf_port_start_rss((uint16_t)tx, pool, 0, 1024, 1024, 2), 0);
    ck_assert_int_eq(ebf_port_start_rss((uint16_t)rx, pool, 0, 1024, 1024, 2), 0);
    for (uint16_t q = 0; q < 2; q++)
        ck_assert_ptr_nonnull(rte_eth_add_rx_callback((uint16_t)rx, q, rx_queue_cb, NULL));
    run = (struct lb_runner){
        .tx_port = (uint16_t)tx, .rx_port = (uint16_t)rx, .tx_pool = pool, .burst = 32,
        .streams = 2, .queues = 2, .trial_s = 0.25, .tolerance = 0.2, .drain_s = 0.3,
        .idle = EBF_IDLE_BACKOFF, .stop = &no_stop, .frame_size = frame_size, .mode = "throughput",
        .report = &rep, .next_trial_id = 1, .latency_valid = 1,
    };
    unsigned l = rte_get_next_lcore(-1, 1, 0);
    for (unsigned q = 0; q < 2; q++, l = rte_get_next_lcore(l, 1, 0))
        run.tx_lcore[q] = l;
    for (unsigned q = 0; q < 2; q++, l = rte_get_next_lcore(l, 1, 0)) {
        ck_assert_uint_lt(l, RTE_MAX_LCORE);
        rx_lcores[q] = l;
        run.rxq[q] = rte_zmalloc("lb_rx", sizeof(*run.rxq[q]), RTE_CACHE_LINE_SIZE);
        ck_assert_ptr_nonnull(run.rxq[q]);
        lb_rx_init(run.rxq[q]);
        run.rxq[q]->port = (uint16_t)rx;
        run.rxq[q]->queue = (uint16_t)q;
        run.rxq[q]->streams = 2;
        run.rxq[q]->check_crc = 1;
        run.rxq[q]->idle = EBF_IDLE_BACKOFF;
        ck_assert_int_eq(rte_eal_remote_launch(lb_rx_loop, run.rxq[q], l), 0);
    }
    run.rx = run.rxq[0];
}

/* One 10000-frame trial of --queues 2 over setup_queues()' ports: each
 * TX queue sends its stream's 5000, each RX queue gets exactly its own
 * stream's, queue 0 loses the numbers s % 97 == 5 of its stream (52 of
 * them: 5, 102, ..., 4952), and the totals add up. */
static void check_queues_trial(void)
{
    uint64_t drops = 0;
    for (uint32_t s = 0; s < 5000; s++)
        drops += s % 97 == 5;
    ck_assert_uint_eq(drops, 52);
    struct lb_trial_req req = {.fps = EXACT_FPS, .count = 10000};
    struct lb_trial_out out;
    ck_assert_int_eq(lb_run_trial(&run, &req, &out), 0);
    const struct lb_trial_rec *t = &rep.trial[0];
    ck_assert_uint_eq(t->n_queues, 2);
    for (unsigned q = 0; q < 2; q++) {
        ck_assert_uint_eq(t->queue[q].tx_sent, 5000);
        ck_assert_uint_eq(t->queue[q].tx_accepted, 5000);
        ck_assert_uint_eq(q_seen[q][q], 5000);          /* its own stream, all of it */
        ck_assert_uint_eq(q_seen[q][1 - q], 0);         /* none of the other's */
    }
    ck_assert_uint_eq(t->queue[0].rx, 5000 - drops);
    ck_assert_uint_eq(t->queue[1].rx, 5000);
    ck_assert_uint_eq(t->queue_split, 0);
    ck_assert_uint_eq(t->sent, 10000);
    ck_assert_uint_eq(t->tx_accepted, 10000);
    ck_assert_uint_eq(t->rx, 10000 - drops);
    ck_assert_uint_eq(t->unique, 10000 - drops);
    ck_assert_uint_eq(t->lost, drops);
    ck_assert_uint_eq(t->bursts, drops);
    ck_assert_uint_eq(t->dup + t->late + t->foreign + t->stale + t->bad_checksum + t->bad_frame, 0);
    ck_assert(t->lat.valid);
    ck_assert_uint_eq(t->lat.count, 10000 - drops);
    ck_assert_uint_eq(out.lost, drops);
    for (unsigned q = 0; q < 2; q++) {
        lb_rx_command(run.rxq[q], LB_RX_QUIT, 0, NULL);
        rte_eal_wait_lcore(rx_lcores[q]);
    }
    lb_report_free(&rep);
    ebf_eal_cleanup();
}

/* --queues 2 with 128-byte frames: IPv4/UDP from source port LB_UDP_PORT
 * + 1 + q, no VLAN tag. */
START_TEST(test_queues_exact)
{
    setup_queues(128);
    check_queues_trial();
    ck_assert_uint_eq(q_tagged[0] + q_tagged[1], 0);
}
END_TEST

/* --queues 2 with 64-byte frames, too short for IPv4/UDP: Ethernet frames
 * tagged with VLAN ID 1 + q, every one of them, counted as exactly. */
START_TEST(test_queues_vlan_exact)
{
    setup_queues(64);
    check_queues_trial();
    ck_assert_uint_eq(q_tagged[0], 5000);
    ck_assert_uint_eq(q_tagged[1], 5000);
}
END_TEST

Suite *lb_dp_suite(void);

Suite *lb_dp_suite(void)
{
    Suite *s = suite_create("lb_dp");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_faults_exact);
    tcase_add_test(tc, test_search_policed);
    tcase_add_test(tc, test_tx_cycles);
    tcase_add_test(tc, test_queues_exact);
    tcase_add_test(tc, test_queues_vlan_exact);
    suite_add_tcase(s, tc);
    return s;
}
