/* SPDX-License-Identifier: BSD-3-Clause */
/* lb_ctl.c - summary serialisation and the control sockets of the two-process mode. */
#include "lb_ctl.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

void lb_rx_sum_streams(struct lb_rx_sum *s, const struct lb_seq *seq, unsigned streams)
{
    for (unsigned k = 0; k < streams; k++) {
        const struct lb_seq *q = &seq[k];
        s->rx += q->rx;
        s->unique += lb_seq_unique(q);
        s->lost += q->lost;
        s->dup += q->dup;
        s->reordered += q->reordered;
        s->late += q->late;
        s->bursts += q->bursts;
        if (q->max_burst > s->max_burst)
            s->max_burst = q->max_burst;
        for (unsigned b = 0; b < q->bursts_kept && s->n_bursts < 8; b++)
            s->burst[s->n_bursts++] = q->burst[b];
    }
}

#define PUT(k) fprintf(f, #k " %" PRIu64 "\n", s->k)

void lb_rx_sum_write(FILE *f, const struct lb_rx_sum *s)
{
    PUT(rx); PUT(unique); PUT(lost); PUT(dup); PUT(reordered); PUT(late);
    PUT(bursts); PUT(max_burst); PUT(lat_invalid); PUT(imissed); PUT(rx_nombuf);
    PUT(ierrors); PUT(first_tsc); PUT(loop_p99);
    for (unsigned r = 0; r < LB_RX_DROP_MAX; r++)
        fprintf(f, "drop.%s %" PRIu64 "\n", lb_rx_drop_name(r), s->drop[r]);
    for (unsigned b = 0; b < s->n_bursts; b++)
        fprintf(f, "burst %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s->burst[b].first_seq,
                s->burst[b].len, s->burst[b].tsc);
    ebf_hist_write(&s->lat, "lat", f);
    fprintf(f, "end\n");
    fflush(f);
}

#undef PUT

static int field(const char *key, const char *name, uint64_t v, uint64_t *dst)
{
    if (strcmp(key, name))
        return 0;
    *dst = v;
    return 1;
}

int lb_rx_sum_read(FILE *f, struct lb_rx_sum *s)
{
    char line[256], key[96];
    uint64_t v, a, b;

    memset(s, 0, sizeof(*s));
    ebf_hist_init(&s->lat);
    while (fgets(line, sizeof(line), f)) {
        if (!strcmp(line, "end\n"))
            return 0;
        if (sscanf(line, "burst %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b, &v) == 3) {
            if (s->n_bursts < 8)
                s->burst[s->n_bursts++] = (struct lb_burst){a, b, v};
            continue;
        }
        if (sscanf(line, "%95s %" SCNu64, key, &v) != 2)
            return -EPROTO;
        unsigned bk;
        if (sscanf(key, "lat.bucket.%u", &bk) == 1 && bk < EBF_HIST_BUCKETS) {
            s->lat.bucket[bk] = v;
            continue;
        }
        int hit = field(key, "rx", v, &s->rx) || field(key, "unique", v, &s->unique) ||
                  field(key, "lost", v, &s->lost) || field(key, "dup", v, &s->dup) ||
                  field(key, "reordered", v, &s->reordered) || field(key, "late", v, &s->late) ||
                  field(key, "bursts", v, &s->bursts) ||
                  field(key, "max_burst", v, &s->max_burst) ||
                  field(key, "lat_invalid", v, &s->lat_invalid) ||
                  field(key, "imissed", v, &s->imissed) ||
                  field(key, "rx_nombuf", v, &s->rx_nombuf) ||
                  field(key, "ierrors", v, &s->ierrors) ||
                  field(key, "first_tsc", v, &s->first_tsc) ||
                  field(key, "loop_p99", v, &s->loop_p99) ||
                  field(key, "lat.count", v, &s->lat.count) ||
                  field(key, "lat.sum", v, &s->lat.sum) || field(key, "lat.min", v, &s->lat.min) ||
                  field(key, "lat.max", v, &s->lat.max);
        for (unsigned r = 0; !hit && r < LB_RX_DROP_MAX; r++)
            if (!strncmp(key, "drop.", 5) && !strcmp(key + 5, lb_rx_drop_name(r)))
                s->drop[r] = v, hit = 1;
        (void)hit;               /* unknown keys: a newer peer, ignored */
    }
    return -EPROTO;
}

int lb_ctl_is_local(const char *addr)
{
    return strncmp(addr, "tcp:", 4) != 0;
}

/* Resolve addr into a socket address; returns the family or -errno. */
static int resolve(const char *addr, struct sockaddr_storage *ss, socklen_t *len, int passive)
{
    memset(ss, 0, sizeof(*ss));
    if (lb_ctl_is_local(addr)) {
        struct sockaddr_un *un = (struct sockaddr_un *)ss;
        if (strlen(addr) >= sizeof(un->sun_path))
            return -ENAMETOOLONG;
        un->sun_family = AF_UNIX;
        strcpy(un->sun_path, addr);
        *len = sizeof(*un);
        return AF_UNIX;
    }
    char host[256];
    snprintf(host, sizeof(host), "%s", addr + 4);
    char *port = strrchr(host, ':');
    if (!port)
        return -EINVAL;
    *port++ = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = passive ? AI_PASSIVE : 0};
    struct addrinfo *ai;
    if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai) != 0)
        return -EHOSTUNREACH;
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    int fam = ai->ai_family;
    freeaddrinfo(ai);
    return fam;
}

int lb_ctl_accept(const char *addr, unsigned timeout_ms)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fam = resolve(addr, &ss, &len, 1), one = 1;

    if (fam < 0)
        return fam;
    int l = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0)
        return -errno;
    if (fam == AF_UNIX)
        unlink(addr);
    else
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(l, (struct sockaddr *)&ss, len) || listen(l, 1)) {
        int e = -errno;
        close(l);
        return e;
    }
    struct pollfd p = {.fd = l, .events = POLLIN};
    int rc = poll(&p, 1, (int)timeout_ms);
    int fd = rc > 0 ? accept4(l, NULL, NULL, SOCK_CLOEXEC) : -1;
    int e = rc == 0 ? -ETIMEDOUT : -errno;
    close(l);
    if (fam == AF_UNIX)
        unlink(addr);
    return fd >= 0 ? fd : e;
}

int lb_ctl_connect(const char *addr, unsigned timeout_ms)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int fam = resolve(addr, &ss, &len, 0);

    if (fam < 0)
        return fam;
    for (unsigned waited = 0;; waited += 50) {
        int fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -errno;
        if (connect(fd, (struct sockaddr *)&ss, len) == 0)
            return fd;
        int e = -errno;
        close(fd);
        if (waited >= timeout_ms)
            return e;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
}
