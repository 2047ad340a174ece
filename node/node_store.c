/* SPDX-License-Identifier: BSD-3-Clause */
/* node_store.c - accepted events packed into blocks on the lcore, handed over single-producer rings to a writer thread that writes, rotates and closes files. */
#include "node_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ebf_proto.h"
#include "node_store_private.h"

static const char *const fsync_names[] = {"none", "close", "interval"};

int node_fsync_parse(const char *s, uint8_t *f)
{
    for (uint8_t i = 0; i < 3; i++)
        if (strcmp(s, fsync_names[i]) == 0) {
            *f = i;
            return 0;
        }
    return -EINVAL;
}

const char *node_fsync_name(uint8_t f)
{
    return f < 3 ? fsync_names[f] : "?";
}

void node_store_file_name(char *buf, size_t len, const struct node_store_id *id, uint16_t stream,
                          uint32_t seq)
{
    snprintf(buf, len, "run%06" PRIu32 "-sfc%02u-node%02u-s%u-%06" PRIu32 ".ebfev", id->run,
             id->sfc, id->node, stream, seq);
}

uint64_t node_store_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- The rings: one producer, one consumer, blocks by pointer --------------- */

int node_sring_push(struct node_sring *r, struct node_blk *b)
{
    unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
    unsigned t = atomic_load_explicit(&r->tail, memory_order_acquire);

    if (h - t >= r->cap)
        return -1;
    r->slot[h % r->cap] = b;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return 0;
}

struct node_blk *node_sring_pop(struct node_sring *r)
{
    unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    unsigned h = atomic_load_explicit(&r->head, memory_order_acquire);

    if (h == t)
        return NULL;
    struct node_blk *b = r->slot[t % r->cap];
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return b;
}

unsigned node_sring_count(const struct node_sring *r)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) -
           atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* --- Create and destroy ------------------------------------------------------ */

static void free_all(struct node_store *s)
{
    if (s->blk)
        for (unsigned i = 0; i < s->n_blk; i++)
            free(s->blk[i].buf);
    free(s->blk);
    free(s->full.slot);
    free(s->free.slot);
    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++)
        free(s->file[i].idx);
    for (unsigned i = 0; i < NODE_STORE_FD_RESERVE; i++)
        if (s->reserve[i] >= 0)
            close(s->reserve[i]);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

static int alloc_all(struct node_store *s)
{
    s->full.cap = s->free.cap = s->n_blk;
    s->full.slot = calloc(s->n_blk, sizeof(s->full.slot[0]));
    s->free.slot = calloc(s->n_blk, sizeof(s->free.slot[0]));
    s->blk = calloc(s->n_blk, sizeof(s->blk[0]));
    if (!s->full.slot || !s->free.slot || !s->blk)
        return -ENOMEM;
    for (unsigned i = 0; i < s->n_blk; i++) {
        s->blk[i].buf = malloc(s->blk_bytes);
        if (!s->blk[i].buf)
            return -ENOMEM;
        node_sring_push(&s->free, &s->blk[i]);
    }
    return 0;
}

struct node_store *node_store_create(const struct node_store_conf *c,
                                     const struct node_store_id *id, char *err, size_t len)
{
    struct node_store *s = calloc(1, sizeof(*s));
    int rc;

    if (!s) {
        snprintf(err, len, "storage: out of memory");
        errno = ENOMEM;
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    for (unsigned i = 0; i < NODE_STORE_FD_RESERVE; i++)
        s->reserve[i] = -1;
    s->c = *c;
    s->id = *id;
    uint64_t buffer = (uint64_t)(c->buffer_mb ? c->buffer_mb : 32) << 20;
    s->n_blk = (unsigned)(buffer / (2u << 20) > 8 ? buffer / (2u << 20) : 8);
    s->blk_bytes = (uint32_t)(buffer / s->n_blk);
    if (c->max_record > s->blk_bytes) {     /* the largest record fits a block */
        s->blk_bytes = (c->max_record + 4095u) & ~4095u;
        s->n_blk = (unsigned)(buffer / s->blk_bytes > 4 ? buffer / s->blk_bytes : 4);
    }
    s->max_bytes = (uint64_t)(c->max_file_mb ? c->max_file_mb : 256) << 20;
    ebf_hist_init(&s->w.write_ns);
    if ((rc = alloc_all(s)) != 0) {
        snprintf(err, len, "storage: cannot allocate %u blocks of %u KiB", s->n_blk,
                 s->blk_bytes / 1024);
        free_all(s);
        errno = -rc;
        return NULL;
    }
    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++)
        s->file[i].fd = -1;
    for (unsigned i = 0; i < NODE_STORE_FD_RESERVE; i++)
        s->reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if ((rc = pthread_create(&s->thread, NULL, node_store_writer, s)) != 0) {
        snprintf(err, len, "storage: cannot start the writer thread: %s", strerror(rc));
        free_all(s);
        errno = rc;
        return NULL;
    }
    pthread_setname_np(s->thread, "ebf-store");
    return s;
}

void node_store_destroy(struct node_store *s)
{
    if (!s)
        return;
    node_store_finish(s);
    pthread_join(s->thread, NULL);
    free_all(s);
}

/* --- The lcore's side -------------------------------------------------------- */

static void lose(struct node_store *s, uint16_t stream, enum node_store_lost why)
{
    s->l.lost[why]++;
    if (stream < NODE_STORE_STREAMS) {
        s->l.accepted[stream]++;
        s->l.lost_stream[stream]++;
    }
}

/* Hand the block of stream to the writer, if it holds anything. */
static void hand_over(struct node_store *s, uint16_t stream)
{
    struct node_blk *b = s->cur[stream];

    if (!b || !b->n_rec)
        return;
    node_sring_push(&s->full, b);   /* never full: it has a slot per block */
    s->cur[stream] = NULL;
}

/* Copy the record into p (len bytes: ebf_store_rec_len of h and frags). */
static void put_record(uint8_t *p, const struct ebf_store_rec *h,
                       const struct ebf_trigger_fragment *frags, const uint16_t *frag_flags)
{
    uint8_t *q = ebf_store_rec_head(p, h);

    for (unsigned src = 0; src < h->n_sources; src++) {
        if (!(h->present[src / 64] >> (src % 64) & 1u))
            continue;
        const struct ebf_trigger_fragment *f = &frags[src];
        q = ebf_store_frag_head(q, (uint16_t)src, frag_flags ? frag_flags[src] : 0, f->len);
        for (uint32_t i = 0; i < f->n_pieces; i++) {
            memcpy(q, f->pieces[i].data, f->pieces[i].len);
            q += f->pieces[i].len;
        }
    }
    ebf_store_rec_seal(p, h->len);
}

enum node_store_put node_store_put(struct node_store *s, uint16_t stream,
                                   const struct ebf_store_rec *h0,
                                   const struct ebf_trigger_fragment *frags,
                                   const uint16_t *frag_flags)
{
    struct ebf_store_rec h = *h0;
    uint64_t payload = 0;

    if (stream >= NODE_STORE_STREAMS) {
        lose(s, stream, NODE_SL_BAD_STREAM);
        return NODE_STORE_LOST;
    }
    if (atomic_load_explicit(&s->failed, memory_order_acquire)) {
        lose(s, stream, NODE_SL_FAILED);
        return NODE_STORE_LOST;
    }
    if (atomic_load_explicit(&s->stop, memory_order_relaxed)) {
        lose(s, stream, NODE_SL_ABANDONED);     /* came after the run's storage closed */
        return NODE_STORE_LOST;
    }
    h.n_frags = 0;
    for (unsigned src = 0; src < h.n_sources; src++)
        if (h.present[src / 64] >> (src % 64) & 1u) {
            h.n_frags++;
            payload += frags[src].len;
            if (frag_flags && (frag_flags[src] & EBF_FRAGF_REPLAY))
                h.flags |= EBF_STORE_REC_REPLAYED;
        }
    uint64_t len = ebf_store_rec_len(h.n_frags, payload);
    if (len > s->blk_bytes) {
        lose(s, stream, NODE_SL_TOO_LARGE);
        return NODE_STORE_LOST;
    }
    struct node_blk *b = s->cur[stream];
    if (b && b->used + len > s->blk_bytes) {
        hand_over(s, stream);
        b = NULL;
    }
    if (!b) {
        b = node_sring_pop(&s->free);
        if (!b)
            return NODE_STORE_AGAIN;
        b->used = b->n_rec = 0;
        b->stream = stream;
        b->since_ns = node_store_mono_ns();
        s->cur[stream] = b;
    }
    h.len = (uint32_t)len;
    put_record(b->buf + b->used, &h, frags, frag_flags);
    b->used += (uint32_t)len;
    b->n_rec++;
    s->l.accepted[stream]++;
    return NODE_STORE_OK;
}

void node_store_tick(struct node_store *s, uint64_t now_ns, uint64_t age_ns)
{
    for (uint16_t i = 0; i < NODE_STORE_STREAMS; i++)
        if (s->cur[i] && now_ns - s->cur[i]->since_ns >= age_ns)
            hand_over(s, i);
}

void node_store_finish(struct node_store *s)
{
    for (uint16_t i = 0; i < NODE_STORE_STREAMS; i++)
        hand_over(s, i);
    atomic_store_explicit(&s->stop, 1, memory_order_release);
}

int node_store_done(const struct node_store *s)
{
    return atomic_load_explicit(&s->done, memory_order_acquire);
}

int node_store_failed(struct node_store *s, char *why, size_t len)
{
    if (!atomic_load_explicit(&s->failed, memory_order_acquire))
        return 0;
    if (!why)
        return 1;
    pthread_mutex_lock(&s->mu);
    snprintf(why, len, "%s", s->why);
    pthread_mutex_unlock(&s->mu);
    return 1;
}

void node_store_stats_read(struct node_store *s, struct node_store_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->w;
    pthread_mutex_unlock(&s->mu);
    out->on = 1;
    out->failed = atomic_load_explicit(&s->failed, memory_order_acquire);
    for (unsigned i = 0; i < NODE_STORE_STREAMS; i++) {
        out->accepted[i] = s->l.accepted[i];
        out->lost_stream[i] += s->l.lost_stream[i];
    }
    for (unsigned r = 0; r < NODE_SL_MAX; r++)
        out->lost[r] += s->l.lost[r];
    out->queue_blocks = node_sring_count(&s->full);
    out->free_blocks = node_sring_count(&s->free);
}
