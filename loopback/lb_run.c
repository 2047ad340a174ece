/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_run.c - run loopback trials on DPDK ports, locally or against an RX process. */
#include "lb_run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lb_queues.h"
#include "lb_rate.h"

_Static_assert(LB_MAX_QUEUES == LB_REPORT_QUEUES, "per-queue records hold every queue");

struct tx_job {
    struct lb_tx_conf c;
    struct lb_tx_stats st;
    int rc;
    int done;
};

static int tx_main(void *arg)
{
    struct tx_job *j = arg;
    /* Sleeps in the schedule's waits (--idle backoff) end on time, not up
     * to the default 50 us of timer slack later. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    uint64_t w0 = lb_run_delay_ns();
    j->rc = lb_tx_run(&j->c, &j->st);
    /* The run-queue wait counts as a stall too (preemption inside
     * tx_burst's system call is invisible to the loop's own timing). */
    uint64_t w1 = lb_run_delay_ns();
    uint64_t waited = (uint64_t)((double)(w1 > w0 ? w1 - w0 : 0) * (double)rte_get_tsc_hz() / 1e9);
    if (waited > j->st.stall_cycles)
        j->st.stall_cycles = waited;
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    return j->rc;
}

uint64_t lb_tsc_read_cycles(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 10000; i++) {
        uint64_t a = rte_rdtsc_precise(), b = rte_rdtsc_precise();
        if (b - a < best)
            best = b - a;
    }
    return best;
}

/* --- The receiver, local or remote ------------------------------------------ */

static int ctl_line(FILE *ctl, char *reply, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Send one request line and read one reply line. Returns 0 or -EPIPE. */
static int ctl_line(FILE *ctl, char *reply, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(ctl, fmt, ap);
    va_end(ap);
    fputc('\n', ctl);
    if (fflush(ctl) != 0)
        return -EPIPE;
    if (!reply)
        return 0;
    return fgets(reply, (int)len, ctl) ? 0 : -EPIPE;
}

static unsigned n_queues(const struct lb_runner *r)
{
    return r->queues > 1 ? r->queues : 1;
}

/* Local receiver of queue q. */
static struct lb_rx *rxq(const struct lb_runner *r, unsigned q)
{
    return q == 0 ? r->rx : r->rxq[q];
}

static int rx_start(struct lb_runner *r, uint64_t trial, struct rte_eth_stats *before)
{
    char reply[64];
    if (r->rx) {
        rte_eth_stats_get(r->rx_port, before);
        for (unsigned q = 0; q < n_queues(r); q++)
            lb_rx_command(rxq(r, q), LB_RX_START, trial, NULL);
        return 0;
    }
    if (ctl_line(r->ctl, reply, sizeof(reply), "start %" PRIu64 " %u", trial, r->streams))
        return -EPIPE;
    return strcmp(reply, "ok\n") ? -EPROTO : 0;
}

/* Stop the receivers: their summary into s, per queue into rx_q, split. */
static int rx_stop(struct lb_runner *r, const uint64_t *sent, const struct rte_eth_stats *before,
                   struct lb_rx_sum *s, uint64_t *rx_q, uint64_t *split)
{
    if (r->rx) {
        struct rte_eth_stats after;
        const struct lb_rx *all[LB_MAX_QUEUES];
        for (unsigned q = 0; q < n_queues(r); q++) {
            all[q] = rxq(r, q);
            lb_rx_command(rxq(r, q), LB_RX_STOP, 0, sent);
        }
        rte_eth_stats_get(r->rx_port, &after);
        lb_queues_rx_sum(all, n_queues(r), before, &after, s, rx_q, split);
        return 0;
    }
    fprintf(r->ctl, "stop");
    for (unsigned k = 0; k < r->streams; k++)
        fprintf(r->ctl, " %" PRIu64, sent[k]);
    if (ctl_line(r->ctl, NULL, 0, "%s", ""))
        return -EPIPE;
    return lb_rx_sum_read(r->ctl, s);
}

/* Live figures of the receiver: unique frames, lost so far, p99 cycles. */
static void rx_peek(struct lb_runner *r, uint64_t *rx, uint64_t *lost, uint64_t *p99)
{
    char reply[128];
    *rx = *lost = *p99 = 0;
    for (unsigned q = 0; r->rx && q < n_queues(r); q++) {
        const struct lb_rx *x = rxq(r, q);
        uint64_t p = __atomic_load_n(&x->live_p99, __ATOMIC_RELAXED);
        *rx += __atomic_load_n(&x->live_rx, __ATOMIC_RELAXED);
        *lost += __atomic_load_n(&x->live_lost, __ATOMIC_RELAXED);
        *p99 = p > *p99 ? p : *p99;
    }
    if (!r->rx) if (ctl_line(r->ctl, reply, sizeof(reply), "peek") == 0) {
        sscanf(reply, "live %" SCNu64 " %" SCNu64 " %" SCNu64, rx, lost, p99);
    }
}

void lb_run_rx_sum(const struct lb_rx *rx, const struct rte_eth_stats *before,
                   const struct rte_eth_stats *after, struct lb_rx_sum *s)
{
    uint64_t rx_q, split;
    lb_queues_rx_sum(&rx, 1, before, after, s, &rx_q, &split);
}

/* --- One trial ---------------------------------------------------------------- */

/* Whether every TX job is done; *tx their frames sent so far. */
static int tx_done(struct tx_job *j, unsigned n, uint64_t *tx)
{
    int done = 1;
    *tx = 0;
    for (unsigned q = 0; q < n; q++) {
        done &= __atomic_load_n(&j[q].done, __ATOMIC_ACQUIRE);
        *tx += __atomic_load_n(&j[q].st.live_accepted, __ATOMIC_RELAXED);
    }
    return done;
}

/* Wait for the TX lcores, printing a live line each second. */
static void wait_tx(struct lb_runner *r, struct tx_job *j)
{
    uint64_t hz = rte_get_tsc_hz(), t0 = rte_get_tsc_cycles(), next = t0 + hz;
    uint64_t last_tx = 0, tx;

    while (!tx_done(j, n_queues(r), &tx)) {
        rte_delay_us_sleep(20000);
        uint64_t now = rte_get_tsc_cycles();
        if (!r->live || now < next)
            continue;
        uint64_t rx, lost, p99;
        rx_peek(r, &rx, &lost, &p99);
        double secs = (double)(now - next + hz) / (double)hz;
        double loss = rx + lost ? (double)lost / (double)(rx + lost) : 0;
        lb_print_live(r->live, (double)(now - t0) / (double)hz, r->frame_size,
                      (double)(tx - last_tx) / secs, loss,
                      r->latency_valid ? (double)p99 * 1e9 / (double)hz : -1);
        last_tx = tx;
        next = now + hz;
    }
    for (unsigned q = 0; q < n_queues(r); q++)
        rte_eal_wait_lcore(r->tx_lcore[q]);
}

/* The trial's record from the sender's statistics st (all TX lcores as one;
 * tx_rc: an lcore's error), the receiver's summary and the ports' deltas. */
static void record(struct lb_runner *r, const struct lb_trial_req *req,
                   const struct lb_tx_stats *st, int tx_rc, const struct lb_rx_sum *s,
                   const struct rte_eth_stats *txb, const struct rte_eth_stats *txa,
                   struct lb_trial_rec *t)
{
    double hz = (double)rte_get_tsc_hz();

    memset(t, 0, sizeof(*t));
    t->path = "dpdk";
    t->mode = r->mode;
    t->frame_size = r->frame_size;
    t->requested_fps = req->fps;
    t->achieved_fps = lb_achieved_fps(st->accepted, st->t0, st->last_tsc, st->tsc_per_frame,
                                      rte_get_tsc_hz());
    t->duration_s = st->last_tsc > st->t0 ? (double)(st->last_tsc - st->t0) / hz : 0;
    t->stall_ms = (double)st->stall_cycles * 1e3 / hz;
    struct lb_tx_facts fx = {
        .requested_fps = req->fps, .achieved_fps = t->achieved_fps, .tolerance = r->tolerance,
        .scheduled = st->scheduled, .refused = st->drop[LB_TX_REFUSED],
        .nombuf = st->drop[LB_TX_NOMBUF], .duration_s = t->duration_s,
        .stall_s = t->stall_ms / 1e3, .stopped = *r->stop || tx_rc != 0,
    };
    t->invalid_reason = lb_invalid_reason(&fx);
    t->valid = t->invalid_reason == LB_INVALID_NONE;
    t->phase = req->phase ? req->phase : "search";
    t->intended_s = (double)st->count / req->fps;
    t->sent = st->scheduled;
    t->tx_accepted = st->accepted;
    t->tx_refused = st->drop[LB_TX_REFUSED];
    t->tx_nombuf = st->drop[LB_TX_NOMBUF];
    t->rx = s->rx;
    t->unique = s->unique;
    t->lost = s->lost;
    t->dup = s->dup;
    t->reordered = s->reordered;
    t->late = s->late;
    t->bursts = s->bursts;
    t->max_burst = s->max_burst;
    t->foreign = s->drop[LB_RX_FOREIGN];
    t->bad_frame = s->drop[LB_RX_BAD_FRAME] + s->drop[LB_RX_BAD_STREAM];
    t->bad_checksum = s->drop[LB_RX_BAD_CHECKSUM];
    t->stale = s->drop[LB_RX_STALE];
    t->imissed = s->imissed;
    t->rx_nombuf = s->rx_nombuf;
    t->ierrors = s->ierrors;
    t->oerrors = txa->oerrors - txb->oerrors;
    uint64_t known = t->tx_refused + t->tx_nombuf + t->imissed + t->rx_nombuf + t->bad_checksum +
                     t->bad_frame;
    t->unattributed = t->lost > known ? t->lost - known : 0;
    t->loss_ratio = t->sent ? (double)t->lost / (double)t->sent : 0;
    t->ns_per_unit = 1e9 / hz;
    t->lat_hist = s->lat;
    lb_latency_from_hist(&s->lat, t->ns_per_unit, &t->lat);
    t->lat.valid = r->latency_valid && s->lat.count > 0;
    t->tx_lag_p99_ns = (double)ebf_hist_quantile(&st->lag, 0.99) * t->ns_per_unit;
    t->tx_hold_p99_ns = (double)ebf_hist_quantile(&st->hold, 0.99) * t->ns_per_unit;
    t->rx_loop_p99_ns = (double)s->loop_p99 * t->ns_per_unit;
    for (unsigned b = 0; b < s->n_bursts && b < LB_BURSTS_SHOWN; b++) {
        t->burst[b].first_seq = s->burst[b].first_seq;
        t->burst[b].len = s->burst[b].len;
        t->burst[b].t_ms = s->burst[b].tsc > st->t0 && r->latency_valid
                               ? (double)(s->burst[b].tsc - st->t0) * 1e3 / hz
                               : -1;
        t->n_bursts_shown = b + 1;
    }
}

/* With queues: each queue's frames sent, taken and received, and the
 * frames that arrived on another queue than their stream's. */
static void record_queues(const struct tx_job *j, unsigned n, const uint64_t *rx_q,
                          uint64_t split, struct lb_trial_rec *t)
{
    t->n_queues = n > 1 ? n : 0;
    for (unsigned q = 0; q < t->n_queues; q++) {
        t->queue[q].tx_sent = j[q].st.scheduled;
        t->queue[q].tx_accepted = j[q].st.accepted;
        t->queue[q].rx = rx_q[q];
    }
    t->queue_split = split;
}

/* The TX conf of the whole trial (one sender's, before any split). */
static void trial_conf(const struct lb_runner *r, const struct lb_trial_req *req, uint64_t trial,
                       struct lb_tx_conf *c)
{
    double d = req->duration_s > 0 ? req->duration_s : r->trial_s;

    *c = (struct lb_tx_conf){
        .port = r->tx_port, .pool = r->tx_pool, .burst = r->burst, .hold_us = r->hold_us,
        .frame_size = r->frame_size, .fps = req->fps,
        .count = req->count ? req->count : (uint64_t)llround(req->fps * d),
        .poisson = r->poisson, .seed = r->seed + trial, .trial_id = trial,
        .streams = r->streams, .idle = r->idle, .stop = r->stop,
    };
    if (c->count < n_queues(r))
        c->count = n_queues(r);
    memcpy(c->src_mac, r->src_mac, 6);
    memcpy(c->dst_mac, r->dst_mac, 6);
}

/* Launch the trial on the TX lcores (queue q's share on tx_lcore[q]). On a
 * failure the jobs not launched are marked done. */
static int launch(struct lb_runner *r, struct tx_job *j, const struct lb_tx_conf *all)
{
    unsigned n = n_queues(r);
    int rc = 0;

    for (unsigned q = 0; q < n; q++) {
        if (n == 1)
            j[q].c = *all;
        else
            lb_queues_tx_conf(all, n, q, &j[q].c);
        if (rc == 0)
            rc = rte_eal_remote_launch(tx_main, &j[q], r->tx_lcore[q]);
        if (rc)
            j[q].done = 1;
    }
    return rc;
}

/* Send and count one trial with the jobs j; its record into t. */
static int run_jobs(struct lb_runner *r, const struct lb_trial_req *req, struct tx_job *j,
                    struct lb_tx_stats *sum, struct lb_trial_rec *t)
{
    const struct lb_tx_stats *st[LB_MAX_QUEUES];
    struct rte_eth_stats rxb, txb, txa;
    struct lb_tx_conf all;
    struct lb_rx_sum s;
    uint64_t rx_q[LB_MAX_QUEUES], split = 0, trial = r->next_trial_id++;
    unsigned n = n_queues(r);
    int rc, tx_rc = 0;

    trial_conf(r, req, trial, &all);
    rc = rx_start(r, trial, &rxb);
    if (rc == 0) {
        rte_eth_stats_get(r->tx_port, &txb);
        rc = launch(r, j, &all);
        wait_tx(r, j);
    }
    if (rc)
        return rc;
    rte_delay_us_sleep((unsigned)(r->drain_s * 1e6));
    rte_eth_stats_get(r->tx_port, &txa);
    for (unsigned q = 0; q < n; q++) {
        st[q] = &j[q].st;
        tx_rc = tx_rc ? tx_rc : j[q].rc;
    }
    lb_queues_tx_sum(st, n, sum);
    rc = rx_stop(r, sum->per_stream, &rxb, &s, rx_q, &split);
    if (rc == 0) {
        record(r, req, sum, tx_rc, &s, &txb, &txa, t);
        record_queues(j, n, rx_q, split, t);
    }
    return rc;
}

/* One attempt of a trial (lb_run_trial). */
static int run_once(struct lb_runner *r, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    /* aligned: the TX stats hold cache-aligned cycle counters */
    size_t n = n_queues(r), jsize = n * sizeof(struct tx_job);
    struct tx_job *j = aligned_alloc(_Alignof(struct tx_job), jsize);
    struct lb_tx_stats *sum = aligned_alloc(_Alignof(struct lb_tx_stats), sizeof(*sum));
    struct lb_trial_rec *t = malloc(sizeof(*t));
    int rc = -ENOMEM;

    if (j && sum && t) {
        memset(j, 0, jsize);
        rc = run_jobs(r, req, j, sum, t);
    }
    if (rc == 0) {
        r->last_trial = lb_report_trial(r->report, t, r->live, out);
        rc = r->last_trial < 0 ? r->last_trial : 0;
    }
    free(j);
    free(sum);
    free(t);
    return *r->stop ? -EINTR : rc;
}

int lb_run_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct lb_runner *r = ctx;
    int rc;

    for (unsigned k = 0;; k++) {
        rc = run_once(r, req, out);
        if (rc || out->valid || k >= r->retries ||
            r->report->trial[r->last_trial].invalid_reason != LB_INVALID_TX_PREEMPTED)
            return rc;
        r->report->trial[r->last_trial].retried = 1;
    }
}

/* --- The RX role --------------------------------------------------------------- */

int lb_run_serve(struct lb_rx *rx, int fd, const char *driver)
{
    FILE *f = fdopen(fd, "r+");
    char line[512];
    struct rte_eth_stats before;
    uint64_t trial;
    unsigned streams;

    if (!f)
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        if (!strcmp(line, "hello\n")) {
            struct rte_ether_addr ea;
            char mac[RTE_ETHER_ADDR_FMT_SIZE];
            rte_eth_macaddr_get(rx->port, &ea);
            rte_ether_format_addr(mac, sizeof(mac), &ea);
            fprintf(f, "hello %s %" PRIu64 " %s\n", driver, rte_get_tsc_hz(), mac);
        } else if (sscanf(line, "start %" SCNu64 " %u", &trial, &streams) == 2) {
            rx->streams = (uint16_t)(streams > LB_MAX_STREAMS ? LB_MAX_STREAMS : streams);
            rte_eth_stats_get(rx->port, &before);
            lb_rx_command(rx, LB_RX_START, trial, NULL);
            fprintf(f, "ok\n");
        } else if (!strcmp(line, "peek\n")) {
            fprintf(f, "live %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                    __atomic_load_n(&rx->live_rx, __ATOMIC_RELAXED),
                    __atomic_load_n(&rx->live_lost, __ATOMIC_RELAXED),
                    __atomic_load_n(&rx->live_p99, __ATOMIC_RELAXED));
        } else if (!strncmp(line, "stop", 4)) {
            uint64_t sent[LB_MAX_STREAMS] = {0};
            char *p = line + 4;
            for (unsigned k = 0; k < LB_MAX_STREAMS; k++)
                sent[k] = strtoull(p, &p, 10);
            struct rte_eth_stats after;
            struct lb_rx_sum s;
            lb_rx_command(rx, LB_RX_STOP, 0, sent);
            rte_eth_stats_get(rx->port, &after);
            lb_run_rx_sum(rx, &before, &after, &s);
            lb_rx_sum_write(f, &s);
        } else if (!strcmp(line, "quit\n")) {
            /* The receiving lcore leaves its loop before "bye": the sender
             * closes its port only after "bye", and a memif peer that
             * disconnects while this side still polls unmaps the rings
             * under the poll. */
            lb_rx_command(rx, LB_RX_QUIT, 0, NULL);
            fprintf(f, "bye\n");
            fclose(f);
            return 0;
        } else {
            fprintf(f, "error unknown request\n");
        }
        fflush(f);
    }
    lb_rx_command(rx, LB_RX_QUIT, 0, NULL);
    fclose(f);
    return -EPIPE;
}
