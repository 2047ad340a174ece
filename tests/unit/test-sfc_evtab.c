/* SPDX-License-Identifier: BSD-3-Clause */
/* test-sfc_evtab.c - unit tests of the SFC event table: assembly, refusals, timeouts, acks, index. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_mix.h"
#include "ebf_proto.h"
#include "sfc_evtab.h"

/*
 * Frames are small structs that count how often the table kept and freed
 * them; every test ends by destroying the table and checking that each frame
 * was freed exactly as often as it was stored (once or never).
 */

#define DATA_OFF 42              /* where a fragment header starts after UDP */

struct tframe {
    uint32_t stored;             /* the table kept it */
    uint32_t freed;              /* free_frame calls for it */
};

struct ctx {
    struct sfc_evtab *t;
    struct tframe *fr;
    uint32_t n_fr, max_fr;       /* frames handed out, frames allocated */
    uint32_t last;               /* index of the frame of the last offer */
    uint64_t n_freed;            /* free_frame calls in all */
    uint64_t bad_frees;          /* calls for an unknown or unstored frame */
    struct tframe reject;        /* offered where the table must refuse */
};

/* ck_assert writes a mark point per call; the stress loops check millions of
 * facts, so they call into Check only on failure. */
#define FAST_EQ(a, b)                                                          \
    do {                                                                       \
        uintmax_t a_ = (uintmax_t)(a), b_ = (uintmax_t)(b);                    \
        if (a_ != b_)                                                          \
            ck_abort_msg("%s == %ju, %s == %ju", #a, a_, #b, b_);              \
    } while (0)

static void free_frame_cb(void *frame, void *arg)
{
    struct ctx *c = arg;
    uintptr_t a = (uintptr_t)frame, base = (uintptr_t)c->fr;

    c->n_freed++;
    if (frame == &c->reject) {
        c->reject.freed++;
        c->bad_frees++;
        return;
    }
    if (a < base || a >= base + (uintptr_t)c->n_fr * sizeof(struct tframe) ||
        (a - base) % sizeof(struct tframe) != 0) {
        c->bad_frees++;
        return;
    }
    struct tframe *f = frame;
    f->freed++;
    if (f->freed > f->stored)
        c->bad_frees++;
}

static void ctx_init(struct ctx *c, uint32_t capacity, uint32_t max_frames,
                     uint16_t n_sources, uint32_t done_window, uint32_t max_fr)
{
    memset(c, 0, sizeof(*c));
    c->fr = calloc(max_fr, sizeof(*c->fr));
    ck_assert_ptr_nonnull(c->fr);
    c->max_fr = max_fr;

    struct sfc_evtab_conf conf = {
        .capacity = capacity,
        .max_frames = max_frames,
        .n_sources = n_sources,
        .done_window = done_window,
        .free_frame = free_frame_cb,
        .free_arg = c,
    };
    c->t = sfc_evtab_create(&conf);
    ck_assert_ptr_nonnull(c->t);
}

/* Destroy the table and check that every frame was freed exactly once if the
 * table kept it, and never otherwise. */
static void ctx_fini(struct ctx *c)
{
    sfc_evtab_destroy(c->t);
    c->t = NULL;
    uint64_t stored = 0;
    for (uint32_t i = 0; i < c->n_fr; i++) {
        if (c->fr[i].stored > 1 || c->fr[i].freed != c->fr[i].stored)
            ck_abort_msg("frame %u: stored %u, freed %u", i, c->fr[i].stored,
                         c->fr[i].freed);
        stored += c->fr[i].stored;
    }
    ck_assert_uint_eq(c->reject.freed, 0);
    ck_assert_uint_eq(c->bad_frees, 0);
    ck_assert_uint_eq(c->n_freed, stored);
    free(c->fr);
    c->fr = NULL;
}

static struct ebf_frag_hdr hdr(uint16_t source, uint64_t event_id, uint32_t frag_len,
                               uint32_t offset, uint16_t piece_len, uint64_t tx_ns)
{
    struct ebf_frag_hdr h = {
        .source = source,
        .event_id = event_id,
        .frag_len = frag_len,
        .offset = offset,
        .piece_len = piece_len,
        .tx_ns = tx_ns,
    };
    return h;
}

/* Offer h in frame fi; marks the frame stored if the table kept it. */
static enum sfc_add_result offer_frame(struct ctx *c, const struct ebf_frag_hdr *h,
                                       uint32_t fi, uint64_t now, uint32_t *slot)
{
    uint32_t s = SFC_NONE;
    enum sfc_add_result r = sfc_evtab_add(c->t, h, &c->fr[fi], DATA_OFF, now, &s);

    if (r == SFC_ADD_PARTIAL || r == SFC_ADD_COMPLETE)
        c->fr[fi].stored++;
    c->last = fi;
    if (slot)
        *slot = s;
    return r;
}

/* Offer one piece in a fresh frame. */
static enum sfc_add_result offer(struct ctx *c, uint16_t source, uint64_t event_id,
                                 uint32_t frag_len, uint32_t offset, uint16_t piece_len,
                                 uint64_t tx_ns, uint64_t now, uint32_t *slot)
{
    struct ebf_frag_hdr h = hdr(source, event_id, frag_len, offset, piece_len, tx_ns);

    ck_assert_uint_lt(c->n_fr, c->max_fr);
    return offer_frame(c, &h, c->n_fr++, now, slot);
}

/* Offer a piece in the reject frame, which the table must not keep. */
static enum sfc_add_result offer_reject(struct ctx *c, const struct ebf_frag_hdr *h,
                                        uint64_t now)
{
    uint32_t s;
    return sfc_evtab_add(c->t, h, &c->reject, DATA_OFF, now, &s);
}

static void expect_counts_at(const struct sfc_evtab *t, int line, uint32_t building,
                             uint32_t ready, uint32_t sent, uint32_t free_slots,
                             uint32_t free_records)
{
    struct sfc_evtab_counts n;

    sfc_evtab_counts(t, &n);
    ck_assert_msg(n.building == building && n.ready == ready && n.sent == sent &&
                  n.free_slots == free_slots && n.free_records == free_records,
                  "line %d: counts building %u ready %u sent %u free_slots %u "
                  "free_records %u, expected %u %u %u %u %u", line, n.building,
                  n.ready, n.sent, n.free_slots, n.free_records, building, ready,
                  sent, free_slots, free_records);
}

#define EXPECT_COUNTS(t, b, r, s, fs, fr) expect_counts_at(t, __LINE__, b, r, s, fs, fr)

static uint64_t rnd(uint64_t *state)
{
    return ebf_mix64((*state)++);
}

/* A 2-word present mask with bits for the sources listed in src[0..n). */
static void mask_of(uint64_t m[2], const uint16_t *src, unsigned n)
{
    m[0] = m[1] = 0;
    for (unsigned i = 0; i < n; i++)
        ebf_present_set(m, src[i]);
}

static void expect_present(const struct sfc_event *e, const uint16_t *src, unsigned n)
{
    uint64_t m[2];

    mask_of(m, src, n);
    ck_assert_uint_eq(e->present[0], m[0]);
    ck_assert_uint_eq(e->present[1], m[1]);
}

/* --- Create ------------------------------------------------------------------ */

struct bad_conf {
    const char *what;
    uint32_t capacity, max_frames;
    uint16_t n_sources;
    int null_free;
};

static const struct bad_conf bad_confs[] = {
    { "capacity 0", 0, 16, 4, 0 },
    { "n_sources 0", 8, 16, 0, 0 },
    { "n_sources above EBF_MAX_SOURCES", 8, 16, EBF_MAX_SOURCES + 1, 0 },
    { "n_sources 1000", 8, 16, 1000, 0 },
    { "NULL free_frame", 8, 16, 4, 1 },
    { "max_frames 0", 8, 0, 4, 0 },
};

START_TEST(test_create_bad_conf)
{
    const struct bad_conf *b = &bad_confs[_i];
    struct ctx c = {0};
    struct sfc_evtab_conf conf = {
        .capacity = b->capacity,
        .max_frames = b->max_frames,
        .n_sources = b->n_sources,
        .done_window = 64,
        .free_frame = b->null_free ? NULL : free_frame_cb,
        .free_arg = &c,
    };

    errno = 0;
    ck_assert_msg(sfc_evtab_create(&conf) == NULL, "%s: created", b->what);
    ck_assert_msg(errno == EINVAL, "%s: errno %d", b->what, errno);
}
END_TEST

START_TEST(test_create_null_conf)
{
    errno = 0;
    ck_assert_ptr_null(sfc_evtab_create(NULL));
    ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_create_empty)
{
    struct ctx c;

    ctx_init(&c, 5, 33, EBF_MAX_SOURCES, 0, 1);
    EXPECT_COUNTS(c.t, 0, 0, 0, 5, 33);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 0), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 12345), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 0, 0), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1000000, 1, 100, &(uint64_t){0}), 0);
    ctx_fini(&c);
}
END_TEST

/* A done window above 2^31 cannot be rounded to a power of two in 32 bits:
 * create must reject it (or cope), not hang. */
START_TEST(test_create_huge_done_window)
{
    struct ctx c = {0};
    struct sfc_evtab_conf conf = {
        .capacity = 4,
        .max_frames = 16,
        .n_sources = 2,
        .done_window = 0x80000001u,
        .free_frame = free_frame_cb,
        .free_arg = &c,
    };

    errno = 0;
    struct sfc_evtab *t = sfc_evtab_create(&conf);
    if (t)
        sfc_evtab_destroy(t);
    else
        ck_assert_msg(errno == EINVAL || errno == ENOMEM, "errno %d", errno);
}
END_TEST

/* --- Assembly ---------------------------------------------------------------- */

static const uint16_t scramble_n[] = { 1, 2, 8, 64, 65, EBF_MAX_SOURCES };

/* One single-piece fragment per source, sources in a shuffled order. */
START_TEST(test_complete_scrambled)
{
    const uint16_t n = scramble_n[_i];
    const uint64_t id = 0x1122334455667788ull;
    uint16_t order[EBF_MAX_SOURCES];
    uint64_t rng = 1000 + (uint64_t)_i, min_tx = UINT64_MAX, bytes = 0;
    uint32_t slot0 = SFC_NONE;
    struct ctx c;

    ctx_init(&c, 4, 200, n, 64, 200);
    for (uint16_t s = 0; s < n; s++)
        order[s] = s;
    for (uint16_t s = n; s > 1; s--) {
        uint16_t j = (uint16_t)(rnd(&rng) % s), x = order[s - 1];
        order[s - 1] = order[j];
        order[j] = x;
    }

    for (uint16_t k = 0; k < n; k++) {
        uint16_t s = order[k];
        uint16_t len = (uint16_t)(100 + 7 * s);
        uint64_t tx = 50000 + rnd(&rng) % 100000;
        uint32_t slot;

        min_tx = tx < min_tx ? tx : min_tx;
        bytes += len;
        enum sfc_add_result r = offer(&c, s, id, len, 0, len, tx, 100 + k, &slot);
        ck_assert_int_eq(r, k + 1 == n ? SFC_ADD_COMPLETE : SFC_ADD_PARTIAL);
        if (k == 0)
            slot0 = slot;
        ck_assert_uint_eq(slot, slot0);
        if (k + 1 < n) {
            const struct sfc_event *e = sfc_evtab_event(c.t, slot0);
            ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), SFC_NONE);
            ck_assert_uint_eq(sfc_evtab_building_head(c.t), slot0);
            ck_assert_uint_eq(e->state, SFC_EV_BUILDING);
            ck_assert_uint_eq(e->n_complete, k + 1);
            expect_present(e, order, k + 1u);
            EXPECT_COUNTS(c.t, 1, 0, 0, 3, 200 - (k + 1u));
        }
    }

    const struct sfc_event *e = sfc_evtab_event(c.t, slot0);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot0);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, id), slot0);
    ck_assert_uint_eq(e->event_id, id);
    ck_assert_uint_eq(e->state, SFC_EV_READY);
    ck_assert_uint_eq(e->incomplete, 0);
    expect_present(e, order, n);
    ck_assert_uint_eq(ebf_present_count(e->present), n);
    ck_assert_uint_eq(e->n_complete, n);
    ck_assert_uint_eq(e->n_frames, n);
    ck_assert_uint_eq(e->bytes, bytes);
    ck_assert_uint_eq(sfc_evtab_cold(c.t, slot0)->first_tx_ns, min_tx);
    ck_assert_uint_eq(e->first_tick, 100);
    ck_assert_uint_eq(sfc_evtab_cold(c.t, slot0)->ready_tick, 100 + n - 1u);
    EXPECT_COUNTS(c.t, 0, 1, 0, 3, 200 - n);

    /* The records list the pieces in arrival order. */
    uint32_t r = e->first_rec, k = 0, prev = SFC_NONE;
    while (r != SFC_NONE) {
        const struct sfc_frame_rec *x = sfc_evtab_rec(c.t, r);
        ck_assert_uint_lt(k, n);
        ck_assert_ptr_eq(x->frame, &c.fr[k]);
        ck_assert_uint_eq(x->source, order[k]);
        ck_assert_uint_eq(x->offset, 0);
        ck_assert_uint_eq(x->piece_len, 100 + 7 * order[k]);
        ck_assert_uint_eq(x->data_off, DATA_OFF);
        prev = r;
        r = x->next;
        k++;
    }
    ck_assert_uint_eq(k, n);
    ck_assert_uint_eq(e->last_rec, prev);
    ck_assert_uint_eq(c.n_freed, 0);
    ctx_fini(&c);
}
END_TEST

/* A 3000-byte fragment in pieces of 1000 arriving 2, 0, 1 completes only with
 * its last piece. */
START_TEST(test_multi_piece)
{
    static const uint16_t src1[] = { 1 }, both[] = { 0, 1 };
    struct ctx c;
    uint32_t slot, s2;

    ctx_init(&c, 4, 16, 2, 64, 16);
    ck_assert_int_eq(offer(&c, 1, 9, 500, 0, 500, 70, 1, &slot), SFC_ADD_PARTIAL);
    const struct sfc_event *e = sfc_evtab_event(c.t, slot);
    ck_assert_uint_eq(e->n_complete, 1);
    ck_assert_uint_eq(e->bytes, 500);
    expect_present(e, src1, 1);

    ck_assert_int_eq(offer(&c, 0, 9, 3000, 2000, 1000, 60, 2, &s2), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(s2, slot);
    ck_assert_int_eq(offer(&c, 0, 9, 3000, 0, 1000, 80, 3, &s2), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(s2, slot);
    ck_assert_uint_eq(e->n_complete, 1);
    ck_assert_uint_eq(e->bytes, 500);
    ck_assert_uint_eq(e->n_frames, 3);
    expect_present(e, src1, 1);
    ck_assert_uint_eq(e->state, SFC_EV_BUILDING);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), SFC_NONE);

    ck_assert_int_eq(offer(&c, 0, 9, 3000, 1000, 1000, 90, 4, &s2), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s2, slot);
    ck_assert_uint_eq(e->state, SFC_EV_READY);
    ck_assert_uint_eq(e->n_complete, 2);
    ck_assert_uint_eq(e->bytes, 3500);
    ck_assert_uint_eq(e->n_frames, 4);
    ck_assert_uint_eq(sfc_evtab_cold(c.t, slot)->first_tx_ns, 60);
    ck_assert_uint_eq(sfc_evtab_cold(c.t, slot)->ready_tick, 4);
    expect_present(e, both, 2);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot);

    static const uint32_t offs[] = { 0, 2000, 0, 1000 };
    uint32_t r = e->first_rec;
    for (unsigned k = 0; k < 4; k++) {
        const struct sfc_frame_rec *x = sfc_evtab_rec(c.t, r);
        ck_assert_ptr_eq(x->frame, &c.fr[k]);
        ck_assert_uint_eq(x->offset, offs[k]);
        r = x->next;
    }
    ck_assert_uint_eq(r, SFC_NONE);

    /* Uneven pieces: 2500 = 1000 + 1000 + 500, arriving 1, 2, 0. */
    ck_assert_int_eq(offer(&c, 1, 10, 10, 0, 10, 5, 5, &slot), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 10, 2500, 1000, 1000, 5, 6, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 10, 2500, 2000, 500, 5, 7, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 10, 2500, 0, 1000, 5, 8, &s2), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s2, slot);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot)->bytes, 2510);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot)->n_frames, 4);
    EXPECT_COUNTS(c.t, 0, 2, 0, 2, 8);
    ctx_fini(&c);
}
END_TEST

/* Events 1..50, four sources in two pieces each, all 400 pieces shuffled. */
START_TEST(test_interleaved)
{
    enum { NEV = 50, NSRC = 4, NP = NEV * NSRC * 2 };
    struct piece { uint16_t ev, s, half; } p[NP];
    uint32_t remaining[NEV + 1], slot_of[NEV + 1], done_order[NEV], n_done = 0;
    uint64_t rng = 77;
    struct ctx c;

    ctx_init(&c, 64, NP, NSRC, 64, NP);
    unsigned n = 0;
    for (uint16_t ev = 1; ev <= NEV; ev++) {
        remaining[ev] = NSRC * 2;
        slot_of[ev] = SFC_NONE;
        for (uint16_t s = 0; s < NSRC; s++)
            for (uint16_t half = 0; half < 2; half++)
                p[n++] = (struct piece){ ev, s, half };
    }
    for (unsigned i = NP; i > 1; i--) {
        unsigned j = (unsigned)(rnd(&rng) % i);
        struct piece x = p[i - 1];
        p[i - 1] = p[j];
        p[j] = x;
    }

    for (unsigned i = 0; i < NP; i++) {
        uint32_t len = 200u + 10u * p[i].ev + p[i].s, first = len / 2, slot;
        uint32_t off = p[i].half ? first : 0;
        uint16_t plen = (uint16_t)(p[i].half ? len - first : first);

        enum sfc_add_result r = offer(&c, p[i].s, p[i].ev, len, off, plen, i, i, &slot);
        remaining[p[i].ev]--;
        ck_assert_int_eq(r, remaining[p[i].ev] == 0 ? SFC_ADD_COMPLETE : SFC_ADD_PARTIAL);
        if (slot_of[p[i].ev] == SFC_NONE)
            slot_of[p[i].ev] = slot;
        ck_assert_uint_eq(slot, slot_of[p[i].ev]);
        ck_assert_uint_eq(sfc_evtab_lookup(c.t, p[i].ev), slot);
        if (r == SFC_ADD_COMPLETE)
            done_order[n_done++] = p[i].ev;
    }
    ck_assert_uint_eq(n_done, NEV);
    EXPECT_COUNTS(c.t, 0, NEV, 0, 64 - NEV, 0);

    /* The ready FIFO holds the events in completion order. */
    uint32_t slot = sfc_evtab_ready_peek(c.t);
    for (unsigned k = 0; k < NEV; k++) {
        const struct sfc_event *e = sfc_evtab_event(c.t, slot);
        uint16_t ev = (uint16_t)done_order[k];
        ck_assert_uint_eq(slot, slot_of[ev]);
        ck_assert_uint_eq(e->event_id, ev);
        ck_assert_uint_eq(e->state, SFC_EV_READY);
        ck_assert_uint_eq(e->n_frames, NSRC * 2);
        ck_assert_uint_eq(e->n_complete, NSRC);
        ck_assert_uint_eq(e->bytes, NSRC * (200u + 10u * ev) + 0 + 1 + 2 + 3);
        ck_assert_uint_eq(e->present[0], 0xf);
        ck_assert_uint_eq(e->present[1], 0);
        slot = e->next;
    }
    ck_assert_uint_eq(slot, SFC_NONE);
    ctx_fini(&c);
}
END_TEST

/* --- Refusals ---------------------------------------------------------------- */

START_TEST(test_duplicate_overlap)
{
    struct ctx c;
    uint32_t slot;

    ctx_init(&c, 4, 16, 2, 64, 32);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 0, 1000, 1, 1, &slot), SFC_ADD_PARTIAL);
    const struct sfc_event *e = sfc_evtab_event(c.t, slot);

    /* Same offset, overlapping from inside, overlapping by one byte. */
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 0, 1000, 1, 2, NULL), SFC_ADD_DUPLICATE);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 500, 1000, 1, 2, NULL), SFC_ADD_DUPLICATE);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 0, 3000, 1, 2, NULL), SFC_ADD_DUPLICATE);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 999, 1, 1, 2, NULL), SFC_ADD_DUPLICATE);
    ck_assert_uint_eq(e->n_frames, 1);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 15);

    /* Adjacent pieces are not overlaps; the same range of another source is
     * not a duplicate. */
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 1000, 1000, 1, 3, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 5, 2000, 0, 1000, 1, 3, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 2000, 1000, 1, 4, NULL), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(e->n_complete, 1);

    /* Any piece of a complete source is a duplicate; so is an overlap in
     * the second source. */
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 2500, 500, 1, 5, NULL), SFC_ADD_DUPLICATE);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 0, 3000, 1, 5, NULL), SFC_ADD_DUPLICATE);
    ck_assert_int_eq(offer(&c, 1, 5, 2000, 500, 100, 1, 5, NULL), SFC_ADD_DUPLICATE);
    ck_assert_uint_eq(e->n_frames, 4);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 12);
    ck_assert_uint_eq(c.n_freed, 0);

    ck_assert_int_eq(offer(&c, 1, 5, 2000, 1000, 1000, 1, 6, NULL), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(e->n_frames, 5);
    ck_assert_uint_eq(e->bytes, 5000);
    ck_assert_uint_eq(c.n_fr, 12);
    ctx_fini(&c);     /* the 7 refused frames must not have been freed */
}
END_TEST

START_TEST(test_len_mismatch)
{
    struct ctx c;
    uint32_t slot;

    ctx_init(&c, 4, 16, 2, 64, 16);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 0, 1000, 1, 1, &slot), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 5, 2000, 1000, 1000, 1, 2, NULL), SFC_ADD_LEN_MISMATCH);
    ck_assert_int_eq(offer(&c, 0, 5, 3001, 1000, 1000, 1, 2, NULL), SFC_ADD_LEN_MISMATCH);
    ck_assert_int_eq(offer(&c, 1, 5, 400, 0, 400, 1, 3, NULL), SFC_ADD_PARTIAL);
    /* Also for a complete source. */
    ck_assert_int_eq(offer(&c, 1, 5, 800, 400, 400, 1, 3, NULL), SFC_ADD_LEN_MISMATCH);
    const struct sfc_event *e = sfc_evtab_event(c.t, slot);
    ck_assert_uint_eq(e->n_frames, 2);
    ck_assert_uint_eq(e->n_complete, 1);
    ck_assert_uint_eq(e->bytes, 400);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 14);
    ck_assert_int_eq(offer(&c, 0, 5, 3000, 1000, 2000, 1, 4, NULL), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(e->bytes, 3400);
    ctx_fini(&c);
}
END_TEST

/* Pieces of READY, SENT and released events are late and not kept. */
START_TEST(test_late)
{
    struct ctx c;
    uint32_t slot;

    ctx_init(&c, 4, 16, 2, 16, 32);
    ck_assert_int_eq(offer(&c, 0, 1, 100, 0, 100, 1, 1, &slot), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 1, 2, NULL), SFC_ADD_COMPLETE);
    EXPECT_COUNTS(c.t, 0, 1, 0, 3, 14);

    ck_assert_int_eq(offer(&c, 0, 1, 100, 0, 100, 1, 3, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 1, 1, 999, 500, 10, 1, 3, NULL), SFC_ADD_DUP_SENT);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot)->n_frames, 2);
    EXPECT_COUNTS(c.t, 0, 1, 0, 3, 14);

    sfc_evtab_mark_sent(c.t, slot, 2);
    ck_assert_int_eq(offer(&c, 0, 1, 100, 0, 100, 1, 4, NULL), SFC_ADD_DUP_SENT);
    EXPECT_COUNTS(c.t, 0, 0, 1, 3, 14);

    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 1, 2), slot);
    sfc_evtab_release(c.t, slot);
    EXPECT_COUNTS(c.t, 0, 0, 0, 4, 16);
    ck_assert_uint_eq(c.fr[0].freed, 1);
    ck_assert_uint_eq(c.fr[1].freed, 1);

    /* Released: the done window remembers it, no new event is made. */
    ck_assert_int_eq(offer(&c, 0, 1, 100, 0, 100, 1, 5, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 1, 5, NULL), SFC_ADD_DUP_SENT);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 1), SFC_NONE);
    EXPECT_COUNTS(c.t, 0, 0, 0, 4, 16);
    ck_assert_uint_eq(c.n_freed, 2);

    /* Another id is still accepted. */
    ck_assert_int_eq(offer(&c, 0, 2, 100, 0, 100, 1, 6, NULL), SFC_ADD_PARTIAL);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 15);
    ctx_fini(&c);
}
END_TEST

/* After its event is done, a piece of a source the event delivered is a
 * duplicate, one of a source it lacked is late, for as long as the done
 * window (16 ids here) remembers the id; older ids are stale, never a new
 * event. A requeued SENT event is READY again at the head of the FIFO. */
START_TEST(test_dup_sent_late_stale)
{
    struct ctx c;
    uint32_t s1, s2, slot;
    uint64_t dropped = 0;

    ctx_init(&c, 4, 32, 2, 16, 64);
    /* event 1 complete; event 2 times out with source 1 missing */
    ck_assert_int_eq(offer(&c, 0, 1, 100, 0, 100, 1, 1, &s1), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 1, 1, NULL), SFC_ADD_COMPLETE);
    ck_assert_int_eq(offer(&c, 0, 2, 100, 0, 100, 1, 1, &s2), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 100, 10, 8, &dropped), 1);
    ck_assert_int_eq(offer(&c, 0, 2, 100, 0, 100, 1, 101, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 1, 2, 100, 0, 100, 1, 101, NULL), SFC_ADD_LATE);

    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), s1);
    sfc_evtab_mark_sent(c.t, s1, 0);
    sfc_evtab_mark_sent(c.t, s2, 1);
    /* node 0 died: event 1 goes back to the head, before nothing else */
    sfc_evtab_requeue(c.t, s1);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), s1);
    ck_assert_uint_eq(sfc_evtab_event(c.t, s1)->state, SFC_EV_READY);
    ck_assert_uint_eq(sfc_evtab_event(c.t, s1)->requeued, 1);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 1, 0), SFC_NONE);
    EXPECT_COUNTS(c.t, 0, 1, 1, 2, 29);
    sfc_evtab_mark_sent(c.t, s1, 1);
    sfc_evtab_release(c.t, sfc_evtab_find_sent(c.t, 1, 1));
    sfc_evtab_release(c.t, sfc_evtab_find_sent(c.t, 2, 1));
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 1, 200, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 0, 2, 100, 0, 100, 1, 200, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 1, 2, 100, 0, 100, 1, 200, NULL), SFC_ADD_LATE);

    /* event 17 takes event 1's window entry: 1 is stale from now on */
    ck_assert_int_eq(offer(&c, 0, 17, 100, 0, 100, 1, 300, &slot), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 17, 100, 0, 100, 1, 300, NULL), SFC_ADD_COMPLETE);
    sfc_evtab_mark_sent(c.t, slot, 0);
    sfc_evtab_release(c.t, slot);
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 1, 400, NULL), SFC_ADD_STALE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 1), SFC_NONE);
    /* event 33 would take it next: it is new */
    ck_assert_int_eq(offer(&c, 1, 33, 100, 0, 100, 1, 400, NULL), SFC_ADD_PARTIAL);
    ctx_fini(&c);
}
END_TEST

START_TEST(test_table_full)
{
    struct ctx c;
    uint32_t slot[5], s;

    ctx_init(&c, 4, 64, 2, 64, 64);
    for (uint64_t id = 1; id <= 4; id++)
        ck_assert_int_eq(offer(&c, 0, id, 100, 0, 100, 0, id, &slot[id]), SFC_ADD_PARTIAL);
    EXPECT_COUNTS(c.t, 4, 0, 0, 0, 60);

    ck_assert_int_eq(offer(&c, 0, 5, 100, 0, 100, 0, 5, NULL), SFC_ADD_TABLE_FULL);
    ck_assert_int_eq(offer(&c, 1, 5, 100, 0, 100, 0, 6, NULL), SFC_ADD_REFUSED);
    ck_assert_int_eq(offer(&c, 0, 5, 100, 0, 100, 0, 6, NULL), SFC_ADD_REFUSED);
    ck_assert_int_eq(offer(&c, 0, 6, 100, 0, 100, 0, 7, NULL), SFC_ADD_TABLE_FULL);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 5), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 6), SFC_NONE);
    EXPECT_COUNTS(c.t, 4, 0, 0, 0, 60);

    /* Held events still take pieces; a READY event still holds its slot. */
    ck_assert_int_eq(offer(&c, 1, 2, 100, 0, 100, 0, 8, &s), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s, slot[2]);
    ck_assert_int_eq(offer(&c, 0, 7, 100, 0, 100, 0, 9, NULL), SFC_ADD_TABLE_FULL);
    EXPECT_COUNTS(c.t, 3, 1, 0, 0, 59);

    sfc_evtab_mark_sent(c.t, slot[2], 0);
    ck_assert_int_eq(offer(&c, 0, 8, 100, 0, 100, 0, 10, NULL), SFC_ADD_TABLE_FULL);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 2, 0), slot[2]);
    sfc_evtab_release(c.t, slot[2]);
    EXPECT_COUNTS(c.t, 3, 0, 0, 1, 61);

    /* A slot is free again: a new id is accepted, into the freed slot;
     * refused ids stay refused. */
    ck_assert_int_eq(offer(&c, 0, 9, 100, 0, 100, 0, 11, &s), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(s, slot[2]);
    EXPECT_COUNTS(c.t, 4, 0, 0, 0, 60);
    ck_assert_int_eq(offer(&c, 1, 5, 100, 0, 100, 0, 12, NULL), SFC_ADD_REFUSED);
    ck_assert_int_eq(offer(&c, 0, 10, 100, 0, 100, 0, 12, NULL), SFC_ADD_TABLE_FULL);
    ck_assert_uint_eq(c.n_freed, 2);
    ctx_fini(&c);
}
END_TEST

START_TEST(test_no_record)
{
    struct ctx c;
    uint32_t s1, s2, s3;

    ctx_init(&c, 4, 3, 2, 64, 16);
    ck_assert_int_eq(offer(&c, 0, 1, 2000, 0, 1000, 0, 1, &s1), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 1, 2000, 1000, 1000, 0, 2, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 2, 500, 0, 500, 0, 3, &s2), SFC_ADD_PARTIAL);
    EXPECT_COUNTS(c.t, 2, 0, 0, 2, 0);

    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 0, 4, NULL), SFC_ADD_NO_RECORD);
    ck_assert_uint_eq(sfc_evtab_event(c.t, s1)->n_frames, 2);
    ck_assert_uint_eq(sfc_evtab_event(c.t, s1)->n_complete, 1);
    /* A new event gets no slot when it cannot store its piece. */
    ck_assert_int_eq(offer(&c, 0, 3, 100, 0, 100, 0, 5, NULL), SFC_ADD_NO_RECORD);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 3), SFC_NONE);
    EXPECT_COUNTS(c.t, 2, 0, 0, 2, 0);
    ck_assert_uint_eq(c.n_freed, 0);

    sfc_evtab_drop(c.t, s2);
    ck_assert_uint_eq(c.fr[2].freed, 1);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 1);

    /* Lack of records did not refuse event 3. */
    ck_assert_int_eq(offer(&c, 0, 3, 100, 0, 100, 0, 6, &s3), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 3), s3);
    EXPECT_COUNTS(c.t, 2, 0, 0, 2, 0);
    ck_assert_int_eq(offer(&c, 1, 1, 100, 0, 100, 0, 7, NULL), SFC_ADD_NO_RECORD);
    ctx_fini(&c);
}
END_TEST

/* --- Timeouts ---------------------------------------------------------------- */

START_TEST(test_expire)
{
    static const uint16_t s0[] = { 0 }, s2[] = { 2 };
    struct ctx c;
    uint32_t e10, e11, e12, e13;
    uint64_t dropped = 5;

    ctx_init(&c, 8, 64, 3, 64, 32);
    ck_assert_int_eq(offer(&c, 0, 10, 400, 0, 400, 9, 100, &e10), SFC_ADD_PARTIAL);   /* f0 */
    ck_assert_int_eq(offer(&c, 1, 10, 1500, 0, 500, 9, 120, NULL), SFC_ADD_PARTIAL);  /* f1 */
    ck_assert_int_eq(offer(&c, 2, 11, 300, 0, 300, 9, 150, &e11), SFC_ADD_PARTIAL);   /* f2 */
    ck_assert_int_eq(offer(&c, 0, 12, 200, 0, 100, 9, 200, &e12), SFC_ADD_PARTIAL);   /* f3 */
    ck_assert_int_eq(offer(&c, 1, 10, 1500, 500, 500, 9, 300, NULL), SFC_ADD_PARTIAL); /* f4 */
    ck_assert_int_eq(offer(&c, 0, 13, 50, 0, 50, 9, 1000, &e13), SFC_ADD_PARTIAL);    /* f5 */
    ck_assert_int_eq(offer(&c, 0, 11, 300, 0, 100, 9, 1050, NULL), SFC_ADD_PARTIAL);  /* f6 */
    EXPECT_COUNTS(c.t, 4, 0, 0, 4, 57);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), e10);

    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1100, 500, 0, &dropped), 0);
    ck_assert_uint_eq(dropped, 5);

    /* Three events are old enough; max 2 takes the first two by first arrival. */
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1100, 500, 2, &dropped), 2);
    ck_assert_uint_eq(dropped, 5 + 3);
    static const uint32_t freed_now[] = { 0, 1, 0, 0, 1, 0, 1 };
    for (unsigned i = 0; i < 7; i++)
        ck_assert_uint_eq(c.fr[i].freed, freed_now[i]);
    EXPECT_COUNTS(c.t, 2, 2, 0, 4, 60);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), e10);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), e12);

    const struct sfc_event *e = sfc_evtab_event(c.t, e10);
    ck_assert_uint_eq(e->state, SFC_EV_READY);
    ck_assert_uint_eq(e->incomplete, 1);
    expect_present(e, s0, 1);
    ck_assert_uint_eq(e->n_complete, 1);
    ck_assert_uint_eq(e->n_frames, 1);
    ck_assert_uint_eq(e->bytes, 400);
    ck_assert_uint_eq(sfc_evtab_cold(c.t, e10)->ready_tick, 1100);
    ck_assert_uint_eq(e->first_tick, 100);
    ck_assert_uint_eq(e->first_rec, e->last_rec);
    ck_assert_ptr_eq(sfc_evtab_rec(c.t, e->first_rec)->frame, &c.fr[0]);
    ck_assert_uint_eq(sfc_evtab_rec(c.t, e->first_rec)->next, SFC_NONE);
    ck_assert_uint_eq(e->next, e11);

    e = sfc_evtab_event(c.t, e11);
    ck_assert_uint_eq(e->incomplete, 1);
    expect_present(e, s2, 1);
    ck_assert_uint_eq(e->n_frames, 1);
    ck_assert_uint_eq(e->bytes, 300);
    ck_assert_ptr_eq(sfc_evtab_rec(c.t, e->first_rec)->frame, &c.fr[2]);

    /* The third: nothing complete, nothing kept. */
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1100, 500, 8, &dropped), 1);
    ck_assert_uint_eq(dropped, 9);
    ck_assert_uint_eq(c.fr[3].freed, 1);
    e = sfc_evtab_event(c.t, e12);
    ck_assert_uint_eq(e->state, SFC_EV_READY);
    ck_assert_uint_eq(e->incomplete, 1);
    ck_assert_uint_eq(e->present[0] | e->present[1], 0);
    ck_assert_uint_eq(e->n_complete, 0);
    ck_assert_uint_eq(e->n_frames, 0);
    ck_assert_uint_eq(e->bytes, 0);
    ck_assert_uint_eq(e->first_rec, SFC_NONE);
    ck_assert_uint_eq(e->last_rec, SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_event(c.t, e11)->next, e12);
    EXPECT_COUNTS(c.t, 1, 3, 0, 4, 61);

    /* Event 13 (first piece at 1000) is too new until now - 500 reaches 1000. */
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), e13);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1100, 500, 8, &dropped), 0);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1499, 500, 8, &dropped), 0);
    ck_assert_uint_eq(sfc_evtab_event(c.t, e13)->state, SFC_EV_BUILDING);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1500, 500, 8, &dropped), 1);
    ck_assert_uint_eq(dropped, 9);
    e = sfc_evtab_event(c.t, e13);
    ck_assert_uint_eq(e->incomplete, 1);
    expect_present(e, s0, 1);
    ck_assert_uint_eq(e->n_frames, 1);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 5000, 500, 8, &dropped), 0);
    EXPECT_COUNTS(c.t, 0, 4, 0, 4, 61);

    /* The missing pieces arrive now: late, not kept. */
    ck_assert_int_eq(offer(&c, 1, 10, 1500, 1000, 500, 9, 1600, NULL), SFC_ADD_LATE);
    ck_assert_int_eq(offer(&c, 1, 12, 10, 0, 10, 9, 1600, NULL), SFC_ADD_LATE);
    EXPECT_COUNTS(c.t, 0, 4, 0, 4, 61);

    /* Ready order e10, e11, e12, e13: send and release them all. */
    const uint32_t want[] = { e10, e11, e12, e13 };
    for (unsigned k = 0; k < 4; k++) {
        uint32_t slot = sfc_evtab_ready_peek(c.t);
        ck_assert_uint_eq(slot, want[k]);
        sfc_evtab_mark_sent(c.t, slot, (uint16_t)k);
        ck_assert_uint_eq(sfc_evtab_find_sent(c.t, sfc_evtab_event(c.t, slot)->event_id,
                                              (uint16_t)k), slot);
        sfc_evtab_release(c.t, slot);
    }
    EXPECT_COUNTS(c.t, 0, 0, 0, 8, 64);
    ck_assert_uint_eq(c.n_freed, 7);
    ctx_fini(&c);
}
END_TEST

/* --- Dispatch, acks, drops --------------------------------------------------- */

/* Three complete events of three single-piece sources: frames 3k..3k+2. */
static void three_ready(struct ctx *c, uint32_t slot[3])
{
    for (unsigned k = 0; k < 3; k++)
        for (uint16_t s = 0; s < 3; s++)
            ck_assert_int_eq(offer(c, s, 100 + k, 10, 0, 10, 0, k, &slot[k]),
                             s == 2 ? SFC_ADD_COMPLETE : SFC_ADD_PARTIAL);
}

static void expect_freed(const struct ctx *c, uint32_t first, uint32_t n, uint32_t want)
{
    for (uint32_t i = first; i < first + n; i++)
        ck_assert_msg(c->fr[i].freed == want, "frame %u freed %u, want %u", i,
                      c->fr[i].freed, want);
}

START_TEST(test_send_find_release)
{
    struct ctx c;
    uint32_t slot[3];

    ctx_init(&c, 4, 16, 3, 64, 16);
    three_ready(&c, slot);
    EXPECT_COUNTS(c.t, 0, 3, 0, 1, 7);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot[0]);

    /* Send the middle one first. */
    sfc_evtab_mark_sent(c.t, slot[1], 5);
    EXPECT_COUNTS(c.t, 0, 2, 1, 1, 7);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot[1])->state, SFC_EV_SENT);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot[1])->node, 5);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot[0]);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot[0])->next, slot[2]);

    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 101, 5), slot[1]);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 101, 4), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 101, 6), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 100, 5), SFC_NONE);   /* READY */
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 999, 5), SFC_NONE);   /* unknown */
    ck_assert_uint_eq(c.n_freed, 0);

    sfc_evtab_release(c.t, slot[1]);
    expect_freed(&c, 0, 3, 0);
    expect_freed(&c, 3, 3, 1);
    expect_freed(&c, 6, 3, 0);
    EXPECT_COUNTS(c.t, 0, 2, 0, 2, 10);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 101), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 101, 5), SFC_NONE);

    sfc_evtab_mark_sent(c.t, sfc_evtab_ready_peek(c.t), 0);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot[2]);
    sfc_evtab_mark_sent(c.t, slot[2], 1);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), SFC_NONE);
    EXPECT_COUNTS(c.t, 0, 0, 2, 2, 10);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 102, 0), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 102, 1), slot[2]);
    sfc_evtab_release(c.t, slot[2]);
    EXPECT_COUNTS(c.t, 0, 0, 1, 3, 13);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 100, 0), slot[0]);
    sfc_evtab_release(c.t, slot[0]);
    EXPECT_COUNTS(c.t, 0, 0, 0, 4, 16);
    expect_freed(&c, 0, 9, 1);
    ck_assert_uint_eq(c.n_freed, 9);
    ctx_fini(&c);
}
END_TEST

START_TEST(test_drop_building)
{
    struct ctx c;
    uint32_t s7, s8;

    ctx_init(&c, 4, 16, 3, 64, 16);
    ck_assert_int_eq(offer(&c, 0, 7, 10, 0, 10, 0, 1, &s7), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 7, 20, 0, 10, 0, 2, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 8, 10, 0, 10, 0, 3, &s8), SFC_ADD_PARTIAL);
    EXPECT_COUNTS(c.t, 2, 0, 0, 2, 13);

    sfc_evtab_drop(c.t, s7);
    expect_freed(&c, 0, 2, 1);
    expect_freed(&c, 2, 1, 0);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 15);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), s8);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 7), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_lookup(c.t, 8), s8);
    ck_assert_int_eq(offer(&c, 1, 7, 20, 10, 10, 0, 4, NULL), SFC_ADD_LATE);
    ck_assert_int_eq(offer(&c, 2, 7, 5, 0, 5, 0, 4, NULL), SFC_ADD_LATE);
    EXPECT_COUNTS(c.t, 1, 0, 0, 3, 15);

    /* Dropping the only building event empties the FIFO. */
    sfc_evtab_drop(c.t, s8);
    ck_assert_uint_eq(sfc_evtab_building_head(c.t), SFC_NONE);
    EXPECT_COUNTS(c.t, 0, 0, 0, 4, 16);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 1000, 1, 10, &(uint64_t){0}), 0);
    ck_assert_uint_eq(c.n_freed, 3);
    ctx_fini(&c);
}
END_TEST

/* The pieces of the last piece's event skip the index, but only while that
 * slot builds that id: a finished event, a dropped one, its slot taken by
 * another id, give what the index gives. */
START_TEST(test_last_slot)
{
    struct ctx c;
    uint32_t a, b, s;

    ctx_init(&c, 2, 16, 2, 64, 16);
    ck_assert_int_eq(offer(&c, 0, 5, 10, 0, 10, 0, 1, &a), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 6, 10, 0, 10, 0, 1, &b), SFC_ADD_PARTIAL);
    ck_assert_uint_ne(a, b);
    ck_assert_int_eq(offer(&c, 1, 5, 10, 0, 10, 0, 2, &s), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s, a);
    ck_assert_int_eq(offer(&c, 1, 5, 10, 0, 10, 0, 2, NULL), SFC_ADD_DUP_SENT);  /* ready */
    ck_assert_int_eq(offer(&c, 1, 6, 10, 0, 10, 0, 3, &s), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s, b);
    sfc_evtab_mark_sent(c.t, a, 0);
    sfc_evtab_release(c.t, a);
    /* slot a again (the free slots are a stack), now for event 7 */
    ck_assert_int_eq(offer(&c, 0, 7, 10, 0, 10, 0, 4, &s), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(s, a);
    ck_assert_int_eq(offer(&c, 0, 5, 10, 0, 10, 0, 4, NULL), SFC_ADD_DUP_SENT);
    ck_assert_int_eq(offer(&c, 1, 7, 10, 0, 10, 0, 5, &s), SFC_ADD_COMPLETE);
    ck_assert_uint_eq(s, a);
    EXPECT_COUNTS(c.t, 0, 2, 0, 0, 12);
    /* dropped while the last piece's: a piece of it after is late */
    sfc_evtab_mark_sent(c.t, a, 0);
    sfc_evtab_release(c.t, a);
    ck_assert_int_eq(offer(&c, 0, 8, 10, 0, 10, 0, 6, &s), SFC_ADD_PARTIAL);
    sfc_evtab_drop(c.t, s);
    ck_assert_int_eq(offer(&c, 1, 8, 10, 0, 10, 0, 7, NULL), SFC_ADD_LATE);
    EXPECT_COUNTS(c.t, 0, 1, 0, 1, 14);
    ctx_fini(&c);
}
END_TEST

START_TEST(test_drop_ready)
{
    struct ctx c;
    uint32_t slot[3];

    ctx_init(&c, 4, 16, 3, 64, 16);
    three_ready(&c, slot);

    sfc_evtab_drop(c.t, slot[1]);
    expect_freed(&c, 3, 3, 1);
    ck_assert_uint_eq(c.n_freed, 3);
    EXPECT_COUNTS(c.t, 0, 2, 0, 2, 10);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot[0]);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot[0])->next, slot[2]);
    ck_assert_uint_eq(sfc_evtab_event(c.t, slot[2])->prev, slot[0]);
    ck_assert_int_eq(offer(&c, 0, 101, 10, 0, 10, 0, 9, NULL), SFC_ADD_DUP_SENT);

    sfc_evtab_drop(c.t, slot[0]);
    expect_freed(&c, 0, 3, 1);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), slot[2]);
    EXPECT_COUNTS(c.t, 0, 1, 0, 3, 13);

    /* A SENT event can be dropped too (end of run). */
    sfc_evtab_mark_sent(c.t, slot[2], 3);
    sfc_evtab_drop(c.t, slot[2]);
    ck_assert_uint_eq(sfc_evtab_ready_peek(c.t), SFC_NONE);
    ck_assert_uint_eq(sfc_evtab_find_sent(c.t, 102, 3), SFC_NONE);
    EXPECT_COUNTS(c.t, 0, 0, 0, 4, 16);
    expect_freed(&c, 0, 9, 1);
    ctx_fini(&c);
}
END_TEST

/* Destroy hands every held frame, in any state, to free_frame once. */
START_TEST(test_destroy_frees_held)
{
    struct ctx c;
    uint32_t slot[3];

    ctx_init(&c, 8, 32, 3, 64, 32);
    three_ready(&c, slot);                       /* frames 0..8 */
    sfc_evtab_mark_sent(c.t, slot[0], 1);
    ck_assert_int_eq(offer(&c, 0, 200, 30, 0, 10, 0, 5, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 200, 30, 20, 10, 0, 5, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 1, 201, 10, 0, 10, 0, 6, NULL), SFC_ADD_PARTIAL);
    ck_assert_int_eq(offer(&c, 0, 201, 10, 0, 10, 0, 6, NULL), SFC_ADD_PARTIAL);
    ck_assert_uint_eq(sfc_evtab_expire(c.t, 6, 1, 1, &(uint64_t){0}), 1);  /* 200 */
    ck_assert_uint_eq(c.n_freed, 2);
    EXPECT_COUNTS(c.t, 1, 3, 1, 3, 21);
    ck_assert_uint_eq(c.n_fr, 13);
    ctx_fini(&c);
    ck_assert_uint_eq(c.n_freed, 2 + 11);
}
END_TEST

/* --- Stress ------------------------------------------------------------------ */

/*
 * A driver keeps its own model of every event and checks the table against
 * it after each step: pieces of up to `window` events arrive in random order,
 * some events lose a piece and time out, READY events are sent (a few are
 * dropped instead), SENT events are acked in random order.
 */

#define ST_SRC 4
#define ST_PIECES 3              /* pieces per fragment at most */
#define ST_NODES 8

struct stress_conf {
    uint32_t n_events;
    uint32_t capacity;
    uint32_t window;             /* events whose pieces may be in flight */
    uint32_t max_sent;           /* unacked events before an ack is forced */
    uint32_t lossy_1_in;         /* one event in this many loses a piece; 0 none */
    uint64_t timeout;            /* ticks; one piece arrives per tick */
    int check_lookup;            /* check the index after every step */
    uint64_t seed;
};

static const struct stress_conf stress_confs[] = {
    { 100000, 64, 8, 32, 0, 1000, 0, 1 },
    { 100000, 64, 8, 32, 64, 300, 0, 2 },
    { 5000, 16, 4, 11, 16, 200, 1, 3 },
    { 5000, 4, 2, 2, 8, 100, 1, 4 },
    { 2000, 1, 1, 1, 4, 50, 1, 5 },
};

enum { D_NEW, D_BUILDING, D_READY, D_SENT, D_DONE };

struct dev {
    uint64_t id;
    uint64_t first_tick;
    uint64_t min_tx;
    uint32_t first_frame;
    uint32_t slot;
    uint32_t bprev, bnext;       /* model of the building FIFO */
    uint16_t node;
    uint8_t npc[ST_SRC];         /* pieces per source */
    uint8_t got[ST_SRC];         /* pieces of each source stored */
    uint8_t n_pieces;
    uint8_t pending;             /* pieces not yet offered */
    uint8_t state;
    uint8_t expired;
};

struct pend {
    uint32_t e;
    uint8_t s, p;
};

struct stress {
    const struct stress_conf *sc;
    struct ctx c;
    struct dev *dv;
    struct pend *pend;
    uint32_t n_pend;
    uint32_t *slot_ev;           /* slot -> event number, or SFC_NONE */
    uint32_t *ready_q;           /* model of the ready FIFO */
    uint32_t rq_head, rq_n;
    uint32_t *sent;
    uint32_t n_sent;
    uint32_t bhead, btail, n_building;
    uint32_t started, released, n_open, in_table, held_frames;
    uint32_t last_released;
    uint64_t now, rng, dropped, want_dropped;
};

static void st_frag(const struct stress *st, uint32_t e, unsigned s, uint32_t *frag_len,
                    uint8_t *npc)
{
    uint64_t x = ebf_mix64(st->sc->seed * 1000003u + (uint64_t)e * ST_SRC + s);

    *frag_len = 100 + (uint32_t)(x % 4000);
    *npc = (uint8_t)(1 + (x >> 32) % ST_PIECES);
}

static struct ebf_frag_hdr st_hdr(const struct stress *st, uint32_t e, unsigned s,
                                  unsigned p, uint64_t tx)
{
    uint32_t frag_len, ps, off;
    uint8_t npc;

    st_frag(st, e, s, &frag_len, &npc);
    ps = (frag_len + npc - 1) / npc;
    off = p * ps;
    return hdr((uint16_t)s, st->dv[e].id, frag_len, off,
               (uint16_t)(p + 1u == npc ? frag_len - off : ps), tx);
}

static uint32_t st_frame(const struct dev *d, unsigned s, unsigned p)
{
    uint32_t fi = d->first_frame;
    for (unsigned k = 0; k < s; k++)
        fi += d->npc[k];
    return fi + p;
}

static int st_src_complete(const struct dev *d, unsigned s)
{
    return d->got[s] == d->npc[s];
}

static void st_building_remove(struct stress *st, uint32_t e)
{
    struct dev *d = &st->dv[e];

    if (d->bprev == SFC_NONE)
        st->bhead = d->bnext;
    else
        st->dv[d->bprev].bnext = d->bnext;
    if (d->bnext == SFC_NONE)
        st->btail = d->bprev;
    else
        st->dv[d->bnext].bprev = d->bprev;
    st->n_building--;
}

static void st_building_append(struct stress *st, uint32_t e)
{
    struct dev *d = &st->dv[e];

    d->bprev = st->btail;
    d->bnext = SFC_NONE;
    if (st->btail == SFC_NONE)
        st->bhead = e;
    else
        st->dv[st->btail].bnext = e;
    st->btail = e;
    st->n_building++;
}

static void st_ready_push(struct stress *st, uint32_t e)
{
    FAST_EQ(st->rq_n < st->sc->capacity, 1);
    st->ready_q[(st->rq_head + st->rq_n++) % st->sc->capacity] = e;
    st->dv[e].state = D_READY;
}

static void st_open(struct stress *st)
{
    uint32_t e = st->started++;
    struct dev *d = &st->dv[e];
    uint32_t frag_len, lost = SFC_NONE;

    memset(d, 0, sizeof(*d));
    /* Ids in generation order, as a readout makes them: the done window
     * is indexed by id and assumes ids arrive roughly in order. */
    d->id = st->sc->seed * 7919u + 0x100000000ull + e;
    d->slot = SFC_NONE;
    d->min_tx = UINT64_MAX;
    d->first_frame = st->c.n_fr;
    for (unsigned s = 0; s < ST_SRC; s++) {
        st_frag(st, e, s, &frag_len, &d->npc[s]);
        d->n_pieces = (uint8_t)(d->n_pieces + d->npc[s]);
    }
    FAST_EQ(st->c.n_fr + d->n_pieces <= st->c.max_fr, 1);
    st->c.n_fr += d->n_pieces;
    if (st->sc->lossy_1_in && rnd(&st->rng) % st->sc->lossy_1_in == 0)
        lost = (uint32_t)(rnd(&st->rng) % d->n_pieces);
    for (unsigned s = 0, k = 0; s < ST_SRC; s++)
        for (unsigned p = 0; p < d->npc[s]; p++, k++)
            if (k != lost)
                st->pend[st->n_pend++] = (struct pend){ e, (uint8_t)s, (uint8_t)p };
    d->pending = (uint8_t)(d->n_pieces - (lost != SFC_NONE));
    st->n_open++;
}

static void st_pend_take(struct stress *st, uint32_t k)
{
    struct dev *d = &st->dv[st->pend[k].e];

    st->pend[k] = st->pend[--st->n_pend];
    if (--d->pending == 0)
        st->n_open--;
}

/* Offer every pending piece of event e now: they must all be late. */
static void st_flush_late(struct stress *st, uint32_t e)
{
    for (uint32_t k = 0; k < st->n_pend;) {
        if (st->pend[k].e != e) {
            k++;
            continue;
        }
        struct pend p = st->pend[k];
        struct ebf_frag_hdr h = st_hdr(st, e, p.s, p.p, st->now);
        uint32_t fi = st_frame(&st->dv[e], p.s, p.p);
        st_pend_take(st, k);
        FAST_EQ(offer_frame(&st->c, &h, fi, st->now, NULL), SFC_ADD_LATE);
    }
}

static void st_deliver(struct stress *st)
{
    uint32_t k = (uint32_t)(rnd(&st->rng) % st->n_pend), slot;
    struct pend p = st->pend[k];
    struct dev *d = &st->dv[p.e];
    uint64_t tx = st->now * 16 + rnd(&st->rng) % 4096;
    struct ebf_frag_hdr h = st_hdr(st, p.e, p.s, p.p, tx);
    uint32_t fi = st_frame(d, p.s, p.p);

    st_pend_take(st, k);
    enum sfc_add_result r = offer_frame(&st->c, &h, fi, st->now, &slot);
    FAST_EQ(d->state == D_NEW || d->state == D_BUILDING, 1);

    d->got[p.s]++;
    d->min_tx = tx < d->min_tx ? tx : d->min_tx;
    st->held_frames++;
    int complete = 1;
    for (unsigned s = 0; s < ST_SRC; s++)
        complete &= st_src_complete(d, s);
    FAST_EQ(r, complete ? SFC_ADD_COMPLETE : SFC_ADD_PARTIAL);
    if (d->state == D_NEW) {
        FAST_EQ(slot < st->sc->capacity, 1);
        FAST_EQ(st->slot_ev[slot], SFC_NONE);
        st->slot_ev[slot] = p.e;
        d->slot = slot;
        d->first_tick = st->now;
        d->state = D_BUILDING;
        st->in_table++;
        st_building_append(st, p.e);
    }
    FAST_EQ(slot, d->slot);
    if (complete) {
        st_building_remove(st, p.e);
        st_ready_push(st, p.e);
    }
    /* Now and then the same piece again. */
    if (rnd(&st->rng) % 64 == 0)
        FAST_EQ(offer_reject(&st->c, &h, st->now),
                d->state == D_BUILDING ? SFC_ADD_DUPLICATE : SFC_ADD_DUP_SENT);
}

static void st_expire(struct stress *st)
{
    uint32_t max = 1 + (uint32_t)(rnd(&st->rng) % 3), want = 0;
    uint64_t before = st->dropped, drop = 0;

    for (uint32_t e = st->bhead; e != SFC_NONE && want < max; e = st->dv[e].bnext) {
        if (st->now - st->dv[e].first_tick < st->sc->timeout)
            break;
        want++;
    }
    FAST_EQ(sfc_evtab_expire(st->c.t, st->now, st->sc->timeout, max, &st->dropped), want);
    for (uint32_t n = 0; n < want; n++) {
        uint32_t e = st->bhead;
        struct dev *d = &st->dv[e];
        st_building_remove(st, e);
        for (unsigned s = 0; s < ST_SRC; s++) {
            if (st_src_complete(d, s))
                continue;
            drop += d->got[s];
            for (unsigned p = 0; p < d->npc[s]; p++) {
                const struct tframe *f = &st->c.fr[st_frame(d, s, p)];
                FAST_EQ(f->freed, f->stored);
            }
        }
        d->expired = 1;
        st_ready_push(st, e);
        st_flush_late(st, e);
    }
    FAST_EQ(st->dropped - before, drop);
    st->want_dropped += drop;
    st->held_frames -= (uint32_t)drop;
}

/* Event e was released or dropped: its frames are all freed, its id is done. */
static void st_finish(struct stress *st, uint32_t e, uint32_t n_frames)
{
    struct dev *d = &st->dv[e];

    for (uint32_t i = d->first_frame; i < d->first_frame + d->n_pieces; i++)
        FAST_EQ(st->c.fr[i].freed, st->c.fr[i].stored);
    st->held_frames -= n_frames;
    st->slot_ev[d->slot] = SFC_NONE;
    st->in_table--;
    st->released++;
    st->last_released = e;
    d->state = D_DONE;
    FAST_EQ(sfc_evtab_lookup(st->c.t, d->id), SFC_NONE);
    struct ebf_frag_hdr h = hdr(0, d->id, 10, 0, 10, 0);
    FAST_EQ(offer_reject(&st->c, &h, st->now), st_src_complete(d, 0) ? SFC_ADD_DUP_SENT : SFC_ADD_LATE);
    st_flush_late(st, e);
}

static void st_check_event(struct stress *st, uint32_t e)
{
    const struct dev *d = &st->dv[e];
    const struct sfc_event *x = sfc_evtab_event(st->c.t, d->slot);
    uint64_t m[2] = { 0, 0 };
    uint32_t n_complete = 0, frames = 0, bytes = 0, frag_len;
    uint8_t npc;

    for (unsigned s = 0; s < ST_SRC; s++) {
        if (!st_src_complete(d, s))
            continue;
        ebf_present_set(m, s);
        n_complete++;
        frames += d->npc[s];
        st_frag(st, e, s, &frag_len, &npc);
        bytes += frag_len;
    }
    FAST_EQ(x->event_id, d->id);
    FAST_EQ(x->state, SFC_EV_READY);
    FAST_EQ(x->incomplete, d->expired);
    FAST_EQ(x->present[0], m[0]);
    FAST_EQ(x->present[1], m[1]);
    FAST_EQ(x->n_complete, n_complete);
    FAST_EQ(x->n_frames, frames);
    FAST_EQ(x->bytes, bytes);
    FAST_EQ(x->first_tick, d->first_tick);
    if (!d->expired)
        FAST_EQ(sfc_evtab_cold(st->c.t, d->slot)->first_tx_ns, d->min_tx);
}

static void st_dispatch(struct stress *st)
{
    while (st->rq_n > 0) {
        uint32_t e = st->ready_q[st->rq_head];
        struct dev *d = &st->dv[e];

        st->rq_head = (st->rq_head + 1) % st->sc->capacity;
        st->rq_n--;
        FAST_EQ(sfc_evtab_ready_peek(st->c.t), d->slot);
        st_check_event(st, e);
        if (rnd(&st->rng) % 64 == 0) {
            uint32_t n_frames = sfc_evtab_event(st->c.t, d->slot)->n_frames;
            sfc_evtab_drop(st->c.t, d->slot);
            st_finish(st, e, n_frames);
        } else {
            d->node = (uint16_t)(rnd(&st->rng) % ST_NODES);
            sfc_evtab_mark_sent(st->c.t, d->slot, d->node);
            d->state = D_SENT;
            st->sent[st->n_sent++] = e;
        }
    }
    FAST_EQ(sfc_evtab_ready_peek(st->c.t), SFC_NONE);
}

static void st_ack(struct stress *st)
{
    uint32_t k = (uint32_t)(rnd(&st->rng) % st->n_sent), e = st->sent[k];
    struct dev *d = &st->dv[e];

    st->sent[k] = st->sent[--st->n_sent];
    FAST_EQ(sfc_evtab_find_sent(st->c.t, d->id, d->node), d->slot);
    FAST_EQ(sfc_evtab_find_sent(st->c.t, d->id, (uint16_t)(d->node + 1)), SFC_NONE);

    const struct sfc_event *x = sfc_evtab_event(st->c.t, d->slot);
    FAST_EQ(x->state, SFC_EV_SENT);
    FAST_EQ(x->node, d->node);
    uint32_t n = 0, last = SFC_NONE;
    for (uint32_t r = x->first_rec; r != SFC_NONE; r = sfc_evtab_rec(st->c.t, r)->next) {
        const struct sfc_frame_rec *rec = sfc_evtab_rec(st->c.t, r);
        uintptr_t a = (uintptr_t)rec->frame;
        uintptr_t lo = (uintptr_t)&st->c.fr[d->first_frame];
        FAST_EQ(a >= lo && a < lo + d->n_pieces * sizeof(struct tframe), 1);
        FAST_EQ(ebf_present_test(x->present, rec->source), 1);
        FAST_EQ(rec->data_off, DATA_OFF);
        last = r;
        n++;
    }
    FAST_EQ(n, x->n_frames);
    FAST_EQ(x->last_rec, last);
    sfc_evtab_release(st->c.t, d->slot);
    st_finish(st, e, n);
}

static void st_check(struct stress *st)
{
    struct sfc_evtab_counts n;
    const struct stress_conf *sc = st->sc;

    sfc_evtab_counts(st->c.t, &n);
    FAST_EQ(n.building, st->n_building);
    FAST_EQ(n.ready, 0);
    FAST_EQ(n.sent, st->n_sent);
    FAST_EQ(n.free_slots, sc->capacity - st->in_table);
    FAST_EQ(n.free_records, sc->capacity * ST_SRC * ST_PIECES - st->held_frames);
    FAST_EQ(sfc_evtab_building_head(st->c.t),
            st->bhead == SFC_NONE ? SFC_NONE : st->dv[st->bhead].slot);
    if (!sc->check_lookup)
        return;
    for (uint32_t s = 0; s < sc->capacity; s++)
        if (st->slot_ev[s] != SFC_NONE)
            FAST_EQ(sfc_evtab_lookup(st->c.t, st->dv[st->slot_ev[s]].id), s);
    if (st->last_released != SFC_NONE)
        FAST_EQ(sfc_evtab_lookup(st->c.t, st->dv[st->last_released].id), SFC_NONE);
    for (uint32_t e = st->started; e < st->started + 4 && e < sc->n_events; e++)
        FAST_EQ(sfc_evtab_lookup(st->c.t, sc->seed * 7919u + 0x100000000ull + e),
                SFC_NONE);
}

START_TEST(test_stress)
{
    const struct stress_conf *sc = &stress_confs[_i];
    const uint32_t max_frames = sc->capacity * ST_SRC * ST_PIECES;
    struct stress st;

    memset(&st, 0, sizeof(st));
    st.sc = sc;
    st.rng = sc->seed;
    st.bhead = st.btail = st.last_released = SFC_NONE;
    ctx_init(&st.c, sc->capacity, max_frames, ST_SRC, 256,
             sc->n_events * ST_SRC * ST_PIECES);
    st.dv = calloc(sc->n_events, sizeof(*st.dv));
    st.pend = calloc((size_t)sc->window * ST_SRC * ST_PIECES, sizeof(*st.pend));
    st.slot_ev = malloc(sc->capacity * sizeof(uint32_t));
    st.ready_q = calloc(sc->capacity, sizeof(uint32_t));
    st.sent = calloc(sc->capacity, sizeof(uint32_t));
    ck_assert(st.dv && st.pend && st.slot_ev && st.ready_q && st.sent);
    memset(st.slot_ev, 0xff, sc->capacity * sizeof(uint32_t));

    const uint64_t max_steps = (uint64_t)sc->n_events * 100;
    while (st.released < sc->n_events) {
        FAST_EQ(st.now < max_steps, 1);
        st.now++;
        while (st.n_open < sc->window && st.started < sc->n_events &&
               st.started - st.released < sc->capacity)
            st_open(&st);
        if (st.n_pend > 0)
            st_deliver(&st);
        st_expire(&st);
        if (st.bhead != SFC_NONE && rnd(&st.rng) % 1024 == 0) {
            uint32_t e = st.bhead, slot = st.dv[e].slot;
            uint32_t n_frames = sfc_evtab_event(st.c.t, slot)->n_frames;
            st_building_remove(&st, e);
            sfc_evtab_drop(st.c.t, slot);
            st_finish(&st, e, n_frames);
        }
        st_dispatch(&st);
        if (st.n_sent > 0 &&
            (st.n_sent >= sc->max_sent || st.started - st.released >= sc->capacity ||
             st.started == sc->n_events || rnd(&st.rng) % 2 == 0))
            st_ack(&st);
        st_check(&st);
    }

    EXPECT_COUNTS(st.c.t, 0, 0, 0, sc->capacity, max_frames);
    ck_assert_uint_eq(st.n_pend, 0);
    ck_assert_uint_eq(st.dropped, st.want_dropped);
    if (sc->lossy_1_in)
        ck_assert_uint_gt(st.dropped, 0);
    for (uint32_t e = 0; e < sc->n_events; e++)
        FAST_EQ(st.dv[e].state, D_DONE);
    uint64_t freed_before = st.c.n_freed;
    ctx_fini(&st.c);             /* nothing is left to free */
    ck_assert_uint_eq(st.c.n_freed, freed_before);
    free(st.dv);
    free(st.pend);
    free(st.slot_ev);
    free(st.ready_q);
    free(st.sent);
}
END_TEST

static void no_free(void *frame, void *arg)
{
    (void)frame, (void)arg;
}

/* With a lowmark, the table adds each event's id when it starts holding
 * it and removes it when it stops (dropped, or released after its ack):
 * the mark's low follows the lowest held id (to its bucket of 64, exactly
 * below the window's base). */
START_TEST(test_lowmark_follows_holds)
{
    static struct sfc_lowmark m;       /* 256 KiB */
    static char frames[3];
    const uint64_t id[3] = {700, 130, 1000};
    uint32_t slot[3];

    sfc_lowmark_init(&m);
    struct sfc_evtab_conf conf = {
        .capacity = 16, .max_frames = 64, .n_sources = 1, .done_window = 64,
        .free_frame = no_free, .lowmark = &m,
    };
    struct sfc_evtab *t = sfc_evtab_create(&conf);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(sfc_lowmark_low(&m), SFC_LOWMARK_NONE);
    for (unsigned i = 0; i < 3; i++) {
        struct ebf_frag_hdr h = hdr(0, id[i], 100, 0, 100, 0);
        ck_assert_int_eq(sfc_evtab_add(t, &h, &frames[i], 0, 1, &slot[i]), SFC_ADD_COMPLETE);
    }
    ck_assert_uint_eq(sfc_lowmark_low(&m), 130);       /* below the base (700's bucket): exact */
    sfc_evtab_drop(t, slot[1]);
    ck_assert_uint_eq(sfc_lowmark_low(&m), 640);
    sfc_evtab_mark_sent(t, slot[0], 0);
    ck_assert_uint_eq(sfc_lowmark_low(&m), 640);       /* sent, unacked: still held */
    sfc_evtab_release(t, slot[0]);
    ck_assert_uint_eq(sfc_lowmark_low(&m), 960);
    sfc_evtab_drop(t, slot[2]);
    ck_assert_uint_eq(sfc_lowmark_low(&m), SFC_LOWMARK_NONE);
    sfc_evtab_destroy(t);
}
END_TEST

Suite *sfc_evtab_suite(void);

Suite *sfc_evtab_suite(void)
{
    Suite *s = suite_create("evtab");
    TCase *tc;

    tc = tcase_create("create");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, test_create_bad_conf, 0,
                        (int)(sizeof(bad_confs) / sizeof(bad_confs[0])));
    tcase_add_test(tc, test_create_null_conf);
    tcase_add_test(tc, test_create_empty);
    suite_add_tcase(s, tc);

    tc = tcase_create("create_limits");
    tcase_set_timeout(tc, 5);
    tcase_add_test(tc, test_create_huge_done_window);
    suite_add_tcase(s, tc);

    tc = tcase_create("assembly");
    tcase_set_timeout(tc, 10);
    tcase_add_loop_test(tc, test_complete_scrambled, 0,
                        (int)(sizeof(scramble_n) / sizeof(scramble_n[0])));
    tcase_add_test(tc, test_multi_piece);
    tcase_add_test(tc, test_interleaved);
    suite_add_tcase(s, tc);

    tc = tcase_create("refusals");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_duplicate_overlap);
    tcase_add_test(tc, test_len_mismatch);
    tcase_add_test(tc, test_late);
    tcase_add_test(tc, test_dup_sent_late_stale);
    tcase_add_test(tc, test_table_full);
    tcase_add_test(tc, test_no_record);
    suite_add_tcase(s, tc);

    tc = tcase_create("timeouts");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_expire);
    suite_add_tcase(s, tc);

    tc = tcase_create("dispatch");
    tcase_set_timeout(tc, 10);
    tcase_add_test(tc, test_send_find_release);
    tcase_add_test(tc, test_drop_building);
    tcase_add_test(tc, test_last_slot);
    tcase_add_test(tc, test_drop_ready);
    tcase_add_test(tc, test_destroy_frees_held);
    tcase_add_test(tc, test_lowmark_follows_holds);
    suite_add_tcase(s, tc);

    tc = tcase_create("stress");
    tcase_set_timeout(tc, 100);
    tcase_add_loop_test(tc, test_stress, 0,
                        (int)(sizeof(stress_confs) / sizeof(stress_confs[0])));
    suite_add_tcase(s, tc);
    return s;
}
