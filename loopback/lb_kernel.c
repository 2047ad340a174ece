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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lb_rate.h"
#include "lb_reason.h"
#include "lb_seq.h"

#define KBATCH 32
#define KHDR 16                  /* trial id u32, seq u32, stamp u64 */

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
    uint8_t buf[KBATCH][9216];
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
        int n = recvmmsg(x->k->rx_fd, mm, KBATCH, 0, NULL);
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

/* Send count frames of the trial on the schedule; returns frames sent. */
static uint64_t ksend(struct lb_kernel *k, const struct lb_trial_req *req, uint64_t count,
                      uint32_t trial, uint64_t *refused, uint64_t *t0, uint64_t *last,
                      uint64_t *numbered)
{
    static uint8_t buf[KBATCH][9216];
    struct mmsghdr mm[KBATCH];
    struct iovec iov[KBATCH];
    size_t len = k->frame_size - 46;
    struct lb_sched s;
    uint64_t i = 0, sent = 0, next_live = 0, live_sent = 0;

    lb_sched_init(&s, mono_ns(), 1000000000ull, req->fps, k->poisson, k->seed + trial);
    *t0 = s.t0;
    next_live = s.t0 + 1000000000ull;
    /* Give up at 125% of the trial (as lb_tx_run does): the trial is then
     * invalid, and only numbered frames count. */
    uint64_t deadline = s.t0 + (uint64_t)((double)count * 1.25e9 / req->fps) + 10000000ull;
    while (i < count && !*k->stop && mono_ns() <= deadline) {
        uint64_t now = mono_ns();
        if (now < lb_sched_due(&s)) {
            uint64_t left = lb_sched_due(&s) - now;
            if (left > 60000) {
                struct timespec ts = {0, (long)(left - 50000)};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        int n = 0;
        while (n < KBATCH && i + (uint64_t)n < count && lb_sched_due(&s) <= now) {
            uint32_t seq = (uint32_t)(i + (uint64_t)n);
            memset(buf[n], 0, len);
            memcpy(buf[n], &trial, 4);
            memcpy(buf[n] + 4, &seq, 4);
            iov[n] = (struct iovec){buf[n], len};
            mm[n] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[n], .msg_iovlen = 1}};
            lb_sched_next(&s);
            n++;
        }
        uint64_t stamp = mono_ns();
        for (int m = 0; m < n; m++)
            memcpy(buf[m] + 8, &stamp, 8);
        int done = sendmmsg(k->tx_fd, mm, (unsigned)n, 0);
        if (done < 0)
            done = 0;
        sent += (uint64_t)done;
        *refused += (uint64_t)(n - done);
        i += (uint64_t)n;
        *last = mono_ns();
        if (k->live && *last >= next_live) {
            lb_print_live(k->live, (double)(*last - s.t0) / 1e9, k->frame_size,
                          (double)(sent - live_sent), 0, -1);
            live_sent = sent;
            next_live += 1000000000ull;
        }
    }
    *numbered = i;
    return sent;
}

int lb_kernel_trial(void *ctx, const struct lb_trial_req *req, struct lb_trial_out *out)
{
    struct lb_kernel *k = ctx;
    struct krx *x = calloc(1, sizeof(*x));
    struct lb_trial_rec *t = calloc(1, sizeof(*t));
    double trial_s = req->duration_s > 0 ? req->duration_s : k->trial_s;
    uint64_t count = req->count ? req->count : (uint64_t)llround(req->fps * trial_s);
    uint64_t refused = 0, t0 = 0, last = 0, numbered = 0;
    pthread_t th;

    if (!x || !t || count == 0 || k->frame_size < 64) {
        free(x);
        free(t);
        return -EINVAL;
    }
    x->k = k;
    x->trial = ++k->next_trial;
    lb_seq_init(&x->seq);
    ebf_hist_init(&x->lat);
    if (pthread_create(&th, NULL, krx_main, x) != 0) {
        free(x);
        free(t);
        return -EAGAIN;
    }
    uint64_t accepted = ksend(k, req, count, x->trial, &refused, &t0, &last, &numbered);
    struct timespec ts = {(time_t)k->drain_s, (long)((k->drain_s - (time_t)k->drain_s) * 1e9)};
    nanosleep(&ts, NULL);
    x->done = 1;
    pthread_join(th, NULL);
    lb_seq_finish(&x->seq, numbered, mono_ns());
    count = numbered;

    t->path = "kernel";
    t->mode = k->mode;
    t->frame_size = k->frame_size;
    t->requested_fps = req->fps;
    t->achieved_fps = lb_achieved_fps(accepted, t0, last, 1e9 / req->fps, 1000000000ull);
    t->duration_s = (double)(last - t0) / 1e9;
    t->intended_s = req->count ? (double)req->count / req->fps : trial_s;
    t->phase = req->phase ? req->phase : "search";
    struct lb_tx_facts fx = {
        .requested_fps = req->fps, .achieved_fps = t->achieved_fps, .tolerance = k->tolerance,
        .scheduled = count, .refused = refused, .duration_s = t->duration_s,
        .stopped = *k->stop,
    };
    t->invalid_reason = lb_invalid_reason(&fx);
    t->valid = t->invalid_reason == LB_INVALID_NONE;
    t->sent = count;
    t->tx_accepted = accepted;
    t->tx_refused = refused;
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
    t->unattributed = t->lost > refused ? t->lost - refused : 0;
    t->loss_ratio = count ? (double)t->lost / (double)count : 0;
    t->ns_per_unit = 1;
    t->lat_hist = x->lat;
    lb_latency_from_hist(&x->lat, 1, &t->lat);
    out->achieved_fps = t->achieved_fps;
    out->sent = count;
    out->lost = t->lost;
    out->valid = t->valid;
    out->p99_ns = t->lat.valid ? t->lat.p99 : -1;
    k->last_trial = lb_report_add(k->report, t);
    if (k->last_trial >= 0 && k->live)
        lb_print_trial_end(k->live, k->last_trial, t);
    free(x);
    free(t);
    return *k->stop ? -EINTR : (k->last_trial < 0 ? k->last_trial : 0);
}
