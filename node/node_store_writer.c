/* SPDX-License-Identifier: BSD-3-Clause */
/* node_store_writer.c - the storage writer thread: one write() per block, files opened, rotated by size and age, closed with their trailer; a write error fails the storage. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebf_util.h"
#include "node_store_private.h"

/* The storage failed: what and why (errno e), once; later blocks are lost. */
static void fail(struct node_store *s, const char *what, const char *path, int e)
{
    pthread_mutex_lock(&s->mu);
    if (!s->why[0])
        snprintf(s->why, sizeof(s->why), "storage: %s %s: %s (errno %d)", what, path,
                 strerror(e), e);
    pthread_mutex_unlock(&s->mu);
    atomic_store_explicit(&s->failed, 1, memory_order_release);
}

/* All of len bytes at p, or -errno. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* open(2) of path for a new file; out of descriptors (EMFILE, ENFILE),
 * again after giving up one of the reserve's, as long as it lasts. */
static int open_new(struct node_store *s, const char *path)
{
    int fd;

    for (unsigned i = 0;; i++) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || (errno != EMFILE && errno != ENFILE))
            return fd;
        while (i < NODE_STORE_FD_RESERVE && s->reserve[i] < 0)
            i++;
        if (i >= NODE_STORE_FD_RESERVE)
            return -1;
        close(s->reserve[i]);
        s->reserve[i] = -1;
    }
}

/* The reserve's given-up descriptors taken again where they can be. */
static void refill_reserve(struct node_store *s)
{
    for (unsigned i = 0; i < NODE_STORE_FD_RESERVE; i++)
        if (s->reserve[i] < 0)
            s->reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Open the stream's next file: at f->seq, or past the numbers an earlier
 * process of this node left in the directory (a restarted node goes on
 * with its series; an existing file is never overwritten). */
static int open_file(struct node_store *s, uint16_t stream)
{
    struct node_sfile *f = &s->file[stream];
    uint8_t hdr[EBF_STORE_HDR_LEN];
    char name[64], path[sizeof(f->path)];

    for (unsigned tries = 0;; tries++, f->seq++) {
        node_store_file_name(name, sizeof(name), &s->id, stream, f->seq);
        snprintf(path, sizeof(path), "%s/%s", s->c.dir, name);
        memcpy(f->path, path, sizeof(path));
        f->fd = open_new(s, f->path);
        if (f->fd >= 0 || errno != EEXIST || tries >= NODE_STORE_SEQ_SKIP_MAX)
            break;
    }
    struct ebf_store_hdr h = {.run = s->id.run, .node = s->id.node, .stream = stream,
                              .seq = f->seq, .time_ns = ebf_now_ns()};
    memcpy(h.farm, s->id.farm, sizeof(h.farm));
    if (f->fd < 0) {
        fail(s, "open", f->path, errno);
        return -1;
    }
    ebf_store_hdr_write(hdr, &h);
    int rc = write_all(f->fd, hdr, sizeof(hdr));
    if (rc) {
        fail(s, "write", f->path, -rc);
        return -1;
    }
    f->seq++;
    f->off = EBF_STORE_HDR_LEN;
    f->n_idx = 0;
    f->opened_ns = node_store_mono_ns();
    pthread_mutex_lock(&s->mu);
    s->w.files++;
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* Write the trailer, sync as the policy says, close. */
static void close_file(struct node_store *s, struct node_sfile *f)
{
    uint64_t tlen = ebf_store_trailer_len(f->n_idx);
    uint8_t *t = malloc(tlen);
    int rc = t ? 0 : -ENOMEM;

    if (t) {
        ebf_store_trailer_write(t, f->off, f->off - EBF_STORE_HDR_LEN, f->n_idx, f->idx);
        rc = write_all(f->fd, t, tlen);
        free(t);
    }
    if (!rc && s->c.fsync != NODE_FSYNC_NONE && fsync(f->fd) != 0)
        rc = -errno;
    if (close(f->fd) != 0 && !rc)
        rc = -errno;
    f->fd = -1;
    refill_reserve(s);
    if (rc) {
        fail(s, "close", f->path, -rc);
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->w.files_closed++;
    pthread_mutex_unlock(&s->mu);
}

/* The records of b into f's index (their offsets in the file from off). */
static int index_block(struct node_sfile *f, const struct node_blk *b)
{
    if (f->n_idx + b->n_rec > f->cap_idx) {
        uint64_t cap = (f->n_idx + b->n_rec) * 2;
        void *p = realloc(f->idx, cap * sizeof(f->idx[0]));
        if (!p)
            return -ENOMEM;
        f->idx = p;
        f->cap_idx = cap;
    }
    for (uint32_t pos = 0, i = 0; i < b->n_rec; i++) {
        const uint8_t *r = b->buf + pos;
        uint32_t len = (uint32_t)r[4] | (uint32_t)r[5] << 8 | (uint32_t)r[6] << 16 |
                       (uint32_t)r[7] << 24;
        uint64_t id = 0;
        for (int k = 7; k >= 0; k--)
            id = id << 8 | r[8 + k];
        f->idx[f->n_idx++] = (struct ebf_store_idx){.event_id = id, .offset = f->off + pos};
        pos += len;
    }
    return 0;
}

static void count_lost(struct node_store *s, const struct node_blk *b)
{
    pthread_mutex_lock(&s->mu);
    s->w.lost[NODE_SL_FAILED] += b->n_rec;
    s->w.lost_stream[b->stream] += b->n_rec;
    pthread_mutex_unlock(&s->mu);
}

/* At most max_mbs: after len bytes, wait until they would have taken
 * that long (a slower disk, for tests and demos). */
static void pace(struct node_store *s, uint32_t len)
{
    if (s->c.max_mbs <= 0)
        return;
    uint64_t now = node_store_mono_ns();
    if (s->paced_ns < now)
        s->paced_ns = now;
    s->paced_ns += (uint64_t)((double)len * 1e3 / s->c.max_mbs);
    if (s->paced_ns > now) {
        uint64_t d = s->paced_ns - now;
        struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u), .tv_nsec = (long)(d % 1000000000u)};
        nanosleep(&ts, NULL);
    }
}

/* One block into its stream's file: rotate first when it would pass the
 * size limit; on a failure the file is cut back to its last whole block. */
static void write_block(struct node_store *s, const struct node_blk *b)
{
    struct node_sfile *f = &s->file[b->stream];

    if (atomic_load_explicit(&s->failed, memory_order_acquire)) {
        count_lost(s, b);
        return;
    }
    if (f->fd >= 0 && f->n_idx && f->off + b->used > s->max_bytes)
        close_file(s, f);       /* a failure here (the trailer) fails the storage */
    if (atomic_load_explicit(&s->failed, memory_order_acquire) ||
        (f->fd < 0 && open_file(s, b->stream))) {
        count_lost(s, b);
        return;
    }
    if (index_block(f, b)) {
        fail(s, "index of", f->path, ENOMEM);
        count_lost(s, b);
        return;
    }
    uint64_t t0 = node_store_mono_ns();
    int rc = write_all(f->fd, b->buf, b->used);
    uint64_t took = node_store_mono_ns() - t0;
    if (rc) {
        f->n_idx -= b->n_rec;
        if (ftruncate(f->fd, (off_t)f->off) != 0) {
            /* the file keeps a cut record at its end: readers stop there */
        }
        fail(s, "write", f->path, -rc);
        count_lost(s, b);
        return;
    }
    f->off += b->used;
    pace(s, b->used);
    pthread_mutex_lock(&s->mu);
    s->w.events[b->stream] += b->n_rec;
    s->w.bytes[b->stream] += b->used;
    s->w.blocks++;
    ebf_hist_add(&s->w.write_ns, took);
    pthread_mutex_unlock(&s->mu);
}

/* Between blocks: close files older than max_file_s, sync every second
 * under the interval policy. */
static void housekeeping(struct node_store *s)
{
    uint64_t now = node_store_mono_ns();

    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++) {
        struct node_sfile *f = &s->file[i];
        if (f->fd >= 0 && s->c.max_file_s > 0 &&
            (double)(now - f->opened_ns) >= s->c.max_file_s * 1e9)
            close_file(s, f);
    }
    if (s->c.fsync != NODE_FSYNC_INTERVAL || now - s->synced_ns < 1000000000ull)
        return;
    s->synced_ns = now;
    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++)
        if (s->file[i].fd >= 0 && fdatasync(s->file[i].fd) != 0)
            fail(s, "fdatasync", s->file[i].path, errno);
}

void *node_store_writer(void *arg)
{
    struct node_store *s = arg;
    const struct timespec nap = {.tv_nsec = 1000000};

    s->synced_ns = node_store_mono_ns();
    for (;;) {
        struct node_blk *b = node_sring_pop(&s->full);
        if (b) {
            write_block(s, b);
            node_sring_push(&s->free, b);
            continue;
        }
        if (atomic_load_explicit(&s->stop, memory_order_acquire) &&
            node_sring_count(&s->full) == 0)
            break;
        housekeeping(s);
        nanosleep(&nap, NULL);
    }
    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++)
        if (s->file[i].fd >= 0) {
            if (atomic_load_explicit(&s->failed, memory_order_acquire)) {
                close(s->file[i].fd);   /* cut: no room for a trailer to trust */
                s->file[i].fd = -1;
            } else {
                close_file(s, &s->file[i]);
            }
        }
    atomic_store_explicit(&s->done, 1, memory_order_release);
    return NULL;
}
