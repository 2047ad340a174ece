/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_kernel.c - UDP sender and receiver through kernel sockets across network namespaces. */
#include "lb_kernel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lb_rate.h"
#include "lb_reason.h"
#include "lb_seq.h"

#define KBATCH 64                /* the largest burst (LB_BURST_MAX) */
#define KHDR 16                  /* trial id u32, seq u32, stamp u64 */
#define KMAX_PAYLOAD 9216
#define KSLEEP_NS 25000          /* the sender sleeps only when the next send is further */
#define KEARLY_NS 10000          /* ... and wakes this much before it, then spins */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A socket created inside network namespace ns (by name, /run/netns/ns). */
static int socket_in(const char *ns, int type)
{
    if (!ns || !*ns)
        return socket(AF_INET, type | SOCK_CLOEXEC, 0);
    char path[256];
    snprintf(path, sizeof(path), "/run/netns/%s", ns);
    int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    int target = open(path, O_RDONLY | O_CLOEXEC);
    int fd = -1, e = 0;
    if (self < 0 || target < 0)
        e = errno;
    else if (setns(target, CLONE_NEWNET) != 0)
        e = errno;
    else {
        fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
        e = errno;
        if (setns(self, CLONE_NEWNET) != 0)
            abort();            /* cannot return to our own namespace */
    }
    if (self >= 0)
        close(self);
    if (target >= 0)
        close(target);
    errno = e;
    return fd;
}

int lb_kernel_open(struct lb_kernel *k, const char *tx_netns, const char *rx_netns)
{
    int big = 32 << 20;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(k->port)};
    struct timeval tv = {0, 10000};

    k->tx_fd = socket_in(tx_netns, SOCK_DGRAM);
    if (k->tx_fd < 0) {
        fprintf(stderr, "loopback: kernel sender socket in netns '%s': %s\n",
                tx_netns ? tx_netns : "", strerror(errno));
        return -errno;
    }
    k->rx_fd = socket_in(rx_netns, SOCK_DGRAM);
    if (k->rx_fd < 0 || bind(k->rx_fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = errno;
        fprintf(stderr, "loopback: kernel receiver socket on UDP port %u in netns '%s': %s\n",
                k->port, rx_netns ? rx_netns : "", strerror(e));
        lb_kernel_close(k);
        return -e;
    }
    setsockopt(k->rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
    setsockopt(k->tx_fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
    setsockopt(k->rx_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    a.sin_addr.s_addr = htonl(k->dst_ip);
    if (connect(k->tx_fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = errno;
        fprintf(stderr, "loopback: kernel sender cannot reach %s: %s\n", inet_ntoa(a.sin_addr),
                strerror(e));
        lb_kernel_close(k);
        return -e;
    }
    return 0;
}

void lb_kernel_close(struct lb_kernel *k)
{
    if (k->tx_fd >= 0)
        close(k->tx_fd);
    if (k->rx_fd >= 0)
        close(k->rx_fd);
    k->tx_fd = k->rx_fd = -1;
}

struct krx {
    struct lb_kernel *k;
    uint32_t trial;
    volatile int done;
    struct lb_seq seq;
    struct ebf_hist lat;
    uint64_t stale, foreign;
    uint8_t buf[KBATCH][KMAX_PAYLOAD];
};

static void *krx_main(void *arg)
{
    struct krx *x = arg;
    struct mmsghdr mm[KBATCH];
    struct iovec iov[KBATCH];

    for (int i = 0; i < KBATCH; i++) {
        iov[i] = (struct iovec){x->buf[i], sizeof(x->buf[i])};
        mm[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
    }
    while (!x->done) {
        /* MSG_WAITFORONE: return what has come once one has (not after
         * KBATCH or the 10 ms timeout): the receive stamp is then on time. */
        int n = recvmmsg(x->k->rx_fd, mm, KBATCH, MSG_WAITFORONE, NULL);
        uint64_t now = mono_ns();
        for (int i = 0; i < n; i++) {
            uint32_t trial, seq;
            uint64_t stamp;
            if (mm[i].msg_len < KHDR) {
                x->foreign++;
                continue;
            }
            memcpy(&trial, x->buf[i], 4);
            memcpy(&seq, x->buf[i] + 4, 4);
            memcpy(&stamp, x->buf[i] + 8, 8);
            if (trial != x->trial) {
                x->stale++;
                continue;
            }
            lb_seq_add(&x->seq, seq, now);
            if (stamp <= now)
                ebf_hist_add(&x->lat, now - stamp);
        }
    }
    return NULL;
}

/* What the sender did in one trial. */
struct ktx {
    uint64_t t0, last;           /* schedule start, last sendmmsg() return (ns) */
    uint64_t numbered;           /* frames given a number */
    uint64_t accepted, refused;  /* of those, taken by the socket or not */
    uint64_t stall_ns;           /* time lost between passes or in late wakes
                                  * (each over LB_STALL_US): the CPU was taken */
    uint64_t next_live, live_sent;
};

/*
 * Wait until due (CLOCK_MONOTONIC ns): an absolute sleep when it is more
 * than KSLEEP_NS away, to KEARLY_NS before it (the trial runs with 1 ns of
 * timer slack, so the wake is on time when the CPU is free), then a spin.
 * Returns the time it returned; a return more than LB_STALL_US late adds its
 * lateness to *stall.
 */
static uint64_t kwait(uint64_t due, const volatile int *stop, uint64_t *stall)
{
    uint64_t now = mono_ns();

    while (now < due && !*stop) {
        if (due - now > KSLEEP_NS) {
            uint64_t at = due - KEARLY_NS;
            struct timespec ts = {(time_t)(at / 1000000000ull), (long)(at % 1000000000ull)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
        now = mono_ns();
    }
    if (now > due + LB_STALL_US * 1000ull)
        *stall += now - due;
    return now;
}

/* Number frames first .. first + n - 1 of the trial, stamp them once and
 * send them in one sendmmsg(); counts into x. */
static void kburst(struct lb_kernel *k, struct ktx *x, uint64_t first, unsigned n, uint32_t trial)
{
    static uint8_t buf[KBATCH][KMAX_PAYLOAD];
    struct mmsghdr mm[KBATCH];
    struct iovec iov[KBATCH];
    size_t len = k->frame_size - 46;

    for (unsigned m = 0; m < n; m++) {
        uint32_t seq = (uint32_t)(first + m);
        memset(buf[m], 0, len);
        memcpy(buf[m], &trial, 4);
        memcpy(buf[m] + 4, &seq, 4);
        iov[m] = (struct iovec){buf[m], len};
        mm[m] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[m], .msg_iovlen = 1}};
    }
    uint64_t stamp = mono_ns();
    for (unsigned m = 0; m < n; m++)
        memcpy(buf[m] + 8, &stamp, 8);
    int done = sendmmsg(k->tx_fd, mm, n, 0);
    if (done < 0)
        done = 0;
    x->accepted += (uint64_t)done;
    x->refused += (uint64_t)(n - (unsigned)done);
    x->last = mono_ns();
    if (k->live && x->last >= x->next_live) {
        lb_print_live(k->live, (double)(x->last - x->t0) / 1e9, k->frame_size,
                      (double)(x->accepted - x->live_sent), 0, -1);
        x->live_sent = x->accepted;
        x->next_live += 1000000000ull;
    }
}

/*
 * Send count frames of the trial on the absolute schedule, in bursts as
 * lb_tx_run() does: the frames due go out in one sendmmsg() when k->burst
 * of them are due, when the first has waited k->hold_us, or when they are
 * the last; a late sender sends everything due, up to a burst, and catches
 * up. One system call per frame (the frame sent the moment it falls due)
 * is what limited this sender before.
 */
static void ksend(struct lb_kernel *k, const struct lb_trial_req *req, uint64_t count,
                  uint32_t trial, struct ktx *x)
{
    unsigned burst = k->burst >= 1 && k->burst <= KBATCH ? k->burst : KBATCH / 2;
    uint64_t hold = (uint64_t)(k->hold_us * 1e3), i = 0;
    struct lb_sched s;

    lb_sched_init(&s, mono_ns(), 1000000000ull, req->fps, k->poisson, k->seed + trial);
    x->t0 = x->last = s.t0;
    x->next_live = s.t0 + 1000000000ull;
    /* Give up at 125% of the trial (as lb_tx_run does): the trial is then
     * invalid, and only numbered frames count. */
    uint64_t deadline = s.t0 + (uint64_t)((double)count * 1.25e9 / req->fps) + 10000000ull;
    uint64_t prev = s.t0;
    while (i < count && !*k->stop) {
        uint64_t due = lb_sched_due(&s), now = mono_ns();
        if (now - prev > LB_STALL_US * 1000ull)
            x->stall_ns += now - prev;
        if (now > deadline)
            break;
        if (now < due) {
            prev = kwait(due, k->stop, &x->stall_ns);
            continue;
        }
        struct lb_sched peek = s;
        unsigned n = 0;
        while (n < burst && i + n < count && lb_sched_due(&peek) <= now) {
            lb_sched_next(&peek);
            n++;
        }
        if (n < burst && i + n < count && now < due + hold) {
            uint64_t until = lb_sched_fill_due(&peek, burst - n, count - i - n, due + hold);
            prev = kwait(until, k->stop, &x->stall_ns);
            continue;
        }
        s = peek;
        kburst(k, x, i, n, trial);
        i += n;
        prev = x->last;
    }
    x->numbered = i;
}

/* The trial's record t from what the sender (tx) and the receiver (x) counted. */
static void krecord(const struct lb_kernel *k, const struct lb_trial_req *req, double trial_s,
                    const struct ktx *tx, const struct krx *x, struct lb_trial_rec *t)
{
    uint64_t count = tx->numbered;

    t->path = "kernel";
    t->mode = k->mode;
    t->frame_size = k->frame_size;
    t->requested_fps = req->fps;
    t->achieved_fps = lb_achieved_fps(tx->accepted, tx->t0, tx->last, 1e9 / req->fps,
                                      1000000000ull);
    t->duration_s = (double)(tx->last - tx->t0) / 1e9;
    t->stall_ms = (double)tx->stall_ns / 1e6;
    t->intended_s = req->count ? (double)req->count / req->fps : trial_s;
    t->phase = req->phase ? req->phase : "search";
    struct lb_tx_facts fx = {
        .requested_fps = req->fps, .achieved_fps = t->achieved_fps, .tolerance = k->tolerance,
        .scheduled = count, .refused = tx->refused, .duration_s = t->duration_s,
        .stall_s = t->stall_ms / 1e3, .stopped = *k->stop,
    };
    t->invalid_reason = lb_invalid_reason(&fx);
    t->valid = t->invalid_reason == LB_INVALID_NONE;
    t->sent = count;
    t->tx_accepted = tx->accepted;
    t->tx_refused = tx->refused;
    t->rx = x->seq.rx;
    t->unique = lb_seq_unique(&x->seq);
    t->lost = x->seq.lost;
    t->dup = x->seq.dup;
    t->reordered = x->seq.reordered;
    t->late = x->seq.late;
    t->bursts = x->seq.bursts;
    t->max_burst = x->seq.max_burst;
    t->stale = x->stale;
    t->foreign = x->foreign;
    t->unattributed = t->lost > tx->refused ? t->lost - tx->refused : 0;
    t->loss_ratio = count ? (double)t->lost / (double)count : 0;
    t->ns_per_unit = 1;
    t->lat_hist = x->lat;
    lb_latency_from_hist(&x->lat, 1, &t->lat);
}

/* Send and count one trial with the receiver x (its thread started here);
 * its record into t. The sender runs with 1 ns of timer slack. */
static int krun(struct lb_kernel *k, const struct lb_trial_req *req, struct krx *x,
                struct lb_trial_rec *t)
{
    double trial_s = req->duration_s > 0 ? req->duration_s : k->trial_s;
    uint64_t count = req->count ? req->count : (uint64_t)llround(req->fps * trial_s);
    struct ktx tx;
    pthread_t th;

    if (count == 0 || k->frame_size < 64 || k->frame_size - 46 > KMAX_PAYLOAD)
        return -EINVAL;
    memset(&tx, 0, sizeof(tx));
    x->k = k;
    x->trial = ++k->next_trial;
    lb_seq_init(&x->seq);
    ebf_hist_init(&x->lat);
    if (pthread_create(&th, NULL, krx_main, x) != 0)
        return -EAGAIN;
    int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    uint64_t w0 = lb_run_delay_ns();
    ksend(k, req, count, x->trial, &tx);
    uint64_t w1 = lb_run_delay_ns();
    if (w1 > w0 && w1 - w0 > tx.stall_ns)      /* preempted inside sendmmsg() too */
        tx.stall_ns = w1 - w0;
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0UL, 0UL, 0UL);
    struct timespec ts = {(time_t)k->drain_s, (long)((k->drain_s - (time_t)k->drain_s) * 1e9)};
    nanosleep(&ts, NULL);
    x->done = 1;
    pthread_join(th, NULL);
    lb_seq_finish(&x->seq, tx.numbered, mono_ns());
    krecord(k, req, trial_s, &tx, x, t);
    return 0;
}

/* One attempt of a trial (lb_kernel_trial). */
static int kattempt(struct lb_kernel *k, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct krx *x = calloc(1, sizeof(*x));
    struct lb_trial_rec *t = calloc(1, sizeof(*t));
    int rc = x && t ? krun(k, req, x, t) : -ENOMEM;

    if (rc == 0) {
        k->last_trial = lb_report_trial(k->report, t, k->live, out);
        rc = k->last_trial < 0 ? k->last_trial : 0;
    }
    free(x);
    free(t);
    return *k->stop ? -EINTR : rc;
}

int lb_kernel_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct lb_kernel *k = ctx;

    for (unsigned a = 0;; a++) {
        int rc = kattempt(k, req, out);
        if (rc || out->valid || a >= k->retries ||
            k->report->trial[k->last_trial].invalid_reason != LB_INVALID_TX_PREEMPTED)
            return rc;
        k->report->trial[k->last_trial].retried = 1;
    }
}
