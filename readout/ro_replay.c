/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_replay.c - the readout's replay buffer bookkeeping: push, release by (low, next_seq), replay iteration, drop when full. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ro_replay.h"

int ro_replay_init(struct ro_replay *rb, uint32_t cap_events, uint64_t cap_bytes, uint16_t n_src)
{
    uint32_t cap = 1;

    memset(rb, 0, sizeof(*rb));
    if (cap_events == 0 || cap_events > (1u << 30) || n_src == 0 || n_src > RO_REPLAY_MAX_SRC)
        return -EINVAL;
    while (cap < cap_events)
        cap <<= 1;
    rb->rec = calloc(cap, sizeof(*rb->rec));
    rb->seq = calloc((size_t)cap * n_src, sizeof(*rb->seq));
    if (!rb->rec || !rb->seq) {
        ro_replay_fini(rb);
        return -ENOMEM;
    }
    rb->cap = cap;
    rb->n_src = n_src;
    rb->cap_bytes = cap_bytes;
    return 0;
}

void ro_replay_fini(struct ro_replay *rb)
{
    free(rb->rec);
    free(rb->seq);
    memset(rb, 0, sizeof(*rb));
}

int ro_replay_fits(const struct ro_replay *rb, uint32_t bytes)
{
    return rb->tail - rb->head < rb->cap && rb->held_bytes + bytes <= rb->cap_bytes;
}

/* The sequence numbers of ring slot i. */
static uint32_t *rec_seq(struct ro_replay *rb, uint32_t i)
{
    return rb->seq + (size_t)(i & (rb->cap - 1)) * rb->n_src;
}

int ro_replay_push(struct ro_replay *rb, uint64_t id, uint16_t place, uint32_t bytes,
                   const uint32_t *seq)
{
    struct ro_replay_rec *r;

    if (!ro_replay_fits(rb, bytes))
        return -ENOSPC;
    if (rb->tail != rb->head && rb->rec[(rb->tail - 1) & (rb->cap - 1)].id >= id)
        return -EINVAL;
    r = &rb->rec[rb->tail & (rb->cap - 1)];
    *r = (struct ro_replay_rec){.id = id, .bytes = bytes, .place = place};
    memcpy(rec_seq(rb, rb->tail), seq, rb->n_src * sizeof(*seq));
    rb->tail++;
    rb->held_bytes += bytes;
    rb->held_events++;
    if (rb->held_bytes > rb->peak_bytes)
        rb->peak_bytes = rb->held_bytes;
    return 0;
}

/* Frees record r (not yet released): its bytes leave the bound now. */
static void rec_free(struct ro_replay *rb, struct ro_replay_rec *r)
{
    r->released = 1;
    rb->held_bytes -= r->bytes;
    rb->held_events--;
}

/* Drops released records from the head. */
static void trim(struct ro_replay *rb)
{
    while (rb->head != rb->tail && rb->rec[rb->head & (rb->cap - 1)].released)
        rb->head++;
}

/* 1 when every frame of slot i arrived: seq[s] < next_seq[s], wrapping. */
static int all_arrived(struct ro_replay *rb, uint32_t i, const uint32_t *next_seq)
{
    const uint32_t *q = rec_seq(rb, i);

    for (uint16_t s = 0; s < rb->n_src; s++)
        if ((int32_t)(next_seq[s] - q[s]) <= 0)
            return 0;
    return 1;
}

uint32_t ro_replay_release(struct ro_replay *rb, uint16_t place, uint64_t low,
                           const uint32_t *next_seq)
{
    uint32_t n = 0;

    for (uint32_t i = rb->head; i != rb->tail; i++) {
        struct ro_replay_rec *r = &rb->rec[i & (rb->cap - 1)];

        if (r->id >= low)
            break; /* sorted by id: nothing further is below low */
        if (r->released || r->place != place || !all_arrived(rb, i, next_seq))
            continue;
        rec_free(rb, r);
        n++;
    }
    rb->released += n;
    trim(rb);
    return n;
}

struct ro_replay_rec *ro_replay_next_of(struct ro_replay *rb, uint16_t place, uint32_t *cursor)
{
    while (*cursor < rb->tail - rb->head) {
        struct ro_replay_rec *r = &rb->rec[(rb->head + (*cursor)++) & (rb->cap - 1)];

        if (!r->released && r->place == place)
            return r;
    }
    return NULL;
}

struct ro_replay_rec *ro_replay_next_in(struct ro_replay *rb, uint64_t places, uint32_t *cursor)
{
    if ((int32_t)(*cursor - rb->head) < 0)
        *cursor = rb->head;             /* the head moved past it: those were released */
    while (*cursor != rb->tail) {
        struct ro_replay_rec *r = &rb->rec[(*cursor)++ & (rb->cap - 1)];

        if (!r->released && r->place < 64 && (places >> r->place & 1))
            return r;
    }
    return NULL;
}

void ro_replay_moved(struct ro_replay *rb, struct ro_replay_rec *rec, uint16_t new_place,
                     const uint32_t *seq)
{
    uint32_t i = (uint32_t)(rec - rb->rec);

    rec->place = new_place;
    if (rec->replays < UINT8_MAX)
        rec->replays++;
    memcpy(rb->seq + (size_t)i * rb->n_src, seq, rb->n_src * sizeof(*seq));
    rb->replayed++;
}

int ro_replay_drop_oldest(struct ro_replay *rb, uint64_t *id)
{
    for (uint32_t i = rb->head; i != rb->tail; i++) {
        struct ro_replay_rec *r = &rb->rec[i & (rb->cap - 1)];

        if (r->released)
            continue;
        *id = r->id;
        rec_free(rb, r);
        rb->dropped++;
        trim(rb);
        return 1;
    }
    return 0;
}
