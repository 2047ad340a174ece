/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fault_tx.c - the fault stage between the readout's frame builder and its port. */
#include "ro_fault_tx.h"

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "ebf_mix.h"

#define OUT_MAX (2 * RO_FAULT_BURST_MAX + RO_FAULT_HOLD_MAX)
#define HDR_FLAGS_LO 27          /* fragment header byte XORed by corrupt_header */

struct held {
    struct rte_mbuf *m;
    uint64_t due_index;          /* released after this frame index; 0: by time */
    uint64_t due_tsc;
};

struct ro_fault_tx {
    struct ro_fault_conf conf;
    struct ro_fault_plan plan;
    struct ro_fault_stats st;
    struct rte_mempool *pool;
    uint16_t hlen;               /* encapsulation bytes before the fragment header */
    int finishing;
    int cur_open, cur_intact;    /* the event whose frames are passing now */
    uint64_t cur_event;
    uint64_t index;              /* frames that took a draw so far */
    uint64_t delay_tsc;
    uint64_t min_index, min_tsc; /* earliest release among the held frames */
    unsigned n_held, n_out;
    struct held hold[RO_FAULT_HOLD_MAX];
    struct rte_mbuf *out[OUT_MAX];
};

struct ro_fault_tx *ro_fault_tx_create(const struct ro_fault_conf *fc, enum ebf_encap encap,
                                       struct rte_mempool *pool, int socket)
{
    if (!fc || !pool || fc->window == 0 || fc->window > RO_FAULT_WINDOW_MAX ||
        fc->delay_frames > RO_FAULT_WINDOW_MAX || fc->dup_frames > RO_FAULT_WINDOW_MAX) {
        errno = EINVAL;
        return NULL;
    }
    struct ro_fault_tx *f = rte_zmalloc_socket("ro_fault_tx", sizeof(*f),
                                               RTE_CACHE_LINE_SIZE, socket);
    if (!f) {
        errno = ENOMEM;
        return NULL;
    }
    f->conf = *fc;
    ro_fault_plan_init(&f->plan, fc);
    f->pool = pool;
    f->hlen = (uint16_t)ebf_encap_hlen(encap);
    f->delay_tsc = (uint64_t)fc->delay_us * rte_get_tsc_hz() / 1000000;
    f->min_index = UINT64_MAX;
    f->min_tsc = UINT64_MAX;
    ebf_idset_init(&f->st.withheld);
    return f;
}

void ro_fault_tx_free(struct ro_fault_tx *f)
{
    if (!f)
        return;
    ro_fault_tx_discard(f);
    rte_free(f);
}

static inline uint64_t rd_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* The event whose frames just passed is over: withheld when none of its
 * frames left intact. */
static void event_close(struct ro_fault_tx *f)
{
    if (f->cur_open && !f->cur_intact) {
        f->st.withheld_events++;
        f->st.withheld_digest += ebf_mix64(f->cur_event);
        ebf_idset_add(&f->st.withheld, f->cur_event);
    }
    f->cur_open = 0;
}

/* Frame of event_id about to pass: closes the previous event at a new id. */
static inline void event_note(struct ro_fault_tx *f, uint64_t event_id)
{
    if (f->cur_open && event_id == f->cur_event)
        return;
    event_close(f);
    f->cur_open = 1;
    f->cur_intact = 0;
    f->cur_event = event_id;
}

/* Move every held frame that is due (all of them when finishing) to out,
 * in the order they were held, and recompute the earliest release. */
static void release_due(struct ro_fault_tx *f, uint64_t now)
{
    unsigned j = 0;

    if (f->n_held == 0 ||
        (!f->finishing && f->index < f->min_index && now < f->min_tsc))
        return;
    f->min_index = UINT64_MAX;
    f->min_tsc = UINT64_MAX;
    for (unsigned i = 0; i < f->n_held; i++) {
        struct held h = f->hold[i];
        int due = f->finishing || (h.due_index ? h.due_index <= f->index : h.due_tsc <= now);
        if (due) {
            f->out[f->n_out++] = h.m;
            continue;
        }
        if (h.due_index)
            f->min_index = RTE_MIN(f->min_index, h.due_index);
        else
            f->min_tsc = RTE_MIN(f->min_tsc, h.due_tsc);
        f->hold[j++] = h;
    }
    f->n_held = j;
}

/* Hold m until frame index due_index (or due_tsc when due_index is 0).
 * Returns 0, or -ENOSPC when the hold is full. */
static int hold(struct ro_fault_tx *f, struct rte_mbuf *m, uint64_t due_index, uint64_t due_tsc)
{
    if (f->n_held == RO_FAULT_HOLD_MAX)
        return -ENOSPC;
    f->hold[f->n_held++] = (struct held){.m = m, .due_index = due_index, .due_tsc = due_tsc};
    if (due_index)
        f->min_index = RTE_MIN(f->min_index, due_index);
    else
        f->min_tsc = RTE_MIN(f->min_tsc, due_tsc);
    return 0;
}

/* Apply fault k (with its draw arg) to m, a frame of source src whose
 * fragment header is at frag and piece is piece_len bytes. */
static void apply(struct ro_fault_tx *f, struct rte_mbuf *m, enum ro_fault_kind k, uint32_t arg,
                  uint16_t src, uint8_t *frag, uint16_t piece_len, uint64_t now)
{
    struct rte_mbuf *copy;
    int rc;

    switch (k) {
    case RO_FK_DROP:
        rte_pktmbuf_free(m);
        f->st.dropped_source[src % EBF_MAX_SOURCES]++;
        break;
    case RO_FK_DUP:
        f->out[f->n_out++] = m;
        copy = rte_pktmbuf_copy(m, f->pool, 0, UINT32_MAX);
        if (!copy) {
            f->st.dup_failed++;
            return;
        }
        if (f->conf.dup_frames == 0)
            f->out[f->n_out++] = copy;
        else if (hold(f, copy, f->index + f->conf.dup_frames, 0) != 0) {
            f->out[f->n_out++] = copy;  /* sent at once, counted */
            f->st.hold_full++;
        }
        break;
    case RO_FK_REORDER:
    case RO_FK_DELAY:
        if (k == RO_FK_DELAY && arg == 0)
            rc = hold(f, m, 0, now + f->delay_tsc);
        else
            rc = hold(f, m, f->index + arg, 0);
        if (rc) {
            f->out[f->n_out++] = m;
            f->st.hold_full++;
            return;
        }
        break;
    case RO_FK_CORRUPT_PAYLOAD:
        frag[EBF_FRAG_HLEN + arg % piece_len] ^= 0xff;
        f->out[f->n_out++] = m;
        break;
    case RO_FK_CORRUPT_HEADER:
        frag[HDR_FLAGS_LO] ^= 0xff;
        f->out[f->n_out++] = m;
        break;
    default:
        f->out[f->n_out++] = m;
        return;
    }
    f->st.n[k]++;
}

uint16_t ro_fault_tx_burst(struct ro_fault_tx *f, struct rte_mbuf **pkts, uint16_t n,
                           struct rte_mbuf ***out)
{
    uint64_t now = rte_get_tsc_cycles();

    f->n_out = 0;
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        uint8_t *frag = rte_pktmbuf_mtod(m, uint8_t *) + f->hlen;

        f->st.frames_in++;
        if (m->data_len < f->hlen + EBF_FRAG_HLEN + 1) {
            f->out[f->n_out++] = m;     /* not a fragment frame: left alone */
            continue;
        }
        uint16_t src = (uint16_t)rd_be(frag + 2, 2);
        uint64_t event_id = rd_be(frag + 8, 8);
        uint16_t piece_len = (uint16_t)rd_be(frag + 24, 2);
        event_note(f, event_id);
        if (src == f->conf.silence_source && event_id >= f->conf.silence_event) {
            f->st.silenced_frames++;
            f->st.silenced_fragments += rd_be(frag + 20, 4) == 0;
            rte_pktmbuf_free(m);
            continue;
        }
        f->index++;
        uint32_t arg;
        enum ro_fault_kind k = ro_fault_decide(&f->plan, &arg);
        if (piece_len == 0 && k == RO_FK_CORRUPT_PAYLOAD)
            k = RO_FK_NONE;             /* nothing to corrupt; never built */
        apply(f, m, k, arg, src, frag, piece_len, now);
        f->cur_intact |= k != RO_FK_DROP && k != RO_FK_CORRUPT_PAYLOAD && k != RO_FK_CORRUPT_HEADER;
        release_due(f, now);
    }
    release_due(f, now);
    *out = f->out;
    return (uint16_t)f->n_out;
}

void ro_fault_tx_finish(struct ro_fault_tx *f)
{
    f->finishing = 1;
}

void ro_fault_tx_end(struct ro_fault_tx *f)
{
    event_close(f);
}

unsigned ro_fault_tx_held(const struct ro_fault_tx *f)
{
    return f->n_held;
}

unsigned ro_fault_tx_discard(struct ro_fault_tx *f)
{
    unsigned n = f->n_held;

    for (unsigned i = 0; i < n; i++)
        rte_pktmbuf_free(f->hold[i].m);
    f->n_held = 0;
    f->min_index = UINT64_MAX;
    f->min_tsc = UINT64_MAX;
    return n;
}

int ro_fault_tx_gap(struct ro_fault_tx *f, uint64_t event_id, int sleep_ok,
                    const volatile sig_atomic_t *stop)
{
    uint32_t every = f->conf.burst_events;

    if (every == 0 || event_id == 0 || event_id % every)
        return 0;
    f->st.burst_gaps++;
    uint64_t hz = rte_get_tsc_hz();
    uint64_t due = rte_get_tsc_cycles() + (uint64_t)f->conf.burst_gap_us * hz / 1000000;
    for (;;) {
        uint64_t now = rte_get_tsc_cycles();
        if (*stop)
            return 1;
        if (now >= due)
            return 0;
        uint64_t left_us = (due - now) * 1000000 / hz;
        if (sleep_ok && left_us > 20)
            rte_delay_us_sleep((unsigned)(left_us > 1000 ? 1000 : left_us - 10));
        else
            rte_pause();
    }
}

const struct ro_fault_stats *ro_fault_tx_stats(const struct ro_fault_tx *f)
{
    return &f->st;
}
