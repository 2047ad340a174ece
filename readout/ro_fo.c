/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_fo.c - the readout's failover glue: release frames in, replay records kept until released. */
#include "ro_fo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ebf_proto.h"

struct ro_fo *ro_fo_create(const uint8_t (*sfc_mac)[6], uint16_t n_sfcs, uint16_t source_base,
                           uint16_t n_sources, uint32_t replay_mb, uint32_t event_min,
                           uint32_t event_max, uint64_t dead_ns)
{
    uint64_t cap_bytes = (uint64_t)replay_mb << 20;
    uint64_t cap_events = cap_bytes / (event_min ? event_min : 1) + 1;
    struct ro_fo *f;

    if (n_sources == 0 || n_sources > RO_REPLAY_MAX_SRC || replay_mb == 0 || event_max == 0) {
        errno = EINVAL;
        return NULL;
    }
    f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    if (cap_events > (1u << 24))
        cap_events = 1u << 24;          /* 16 Mi records: events below 64 B are not made */
    int rc = ro_failover_init(&f->view, n_sfcs, dead_ns);
    if (rc == 0)
        rc = ro_replay_init(&f->rb, (uint32_t)cap_events, cap_bytes, n_sources);
    if (rc != 0) {
        ro_fo_destroy(f);
        errno = -rc;
        return NULL;
    }
    f->sfc_mac = sfc_mac;
    f->n_sfcs = n_sfcs;
    f->source_base = source_base;
    f->n_sources = n_sources;
    f->event_max = event_max;
    f->hold_max_ns = RO_FO_HOLD_MAX_NS;
    f->view.keep_last = 1;
    return f;
}

void ro_fo_destroy(struct ro_fo *f)
{
    if (!f)
        return;
    ro_replay_fini(&f->rb);
    free(f);
}

/* Applies accepted release h to the buffer: the next sequence number of
 * each local source from its record; a source without one releases
 * nothing of its events (0 is never above a record's seq but at wrap). */
static void apply(struct ro_fo *f, const struct ebf_release_hdr *h)
{
    uint32_t next[RO_REPLAY_MAX_SRC] = {0};
    uint32_t have = 0;

    for (unsigned j = 0; j < h->n_src; j++) {
        unsigned i = (unsigned)(h->src[j].source - f->source_base);
        if (h->src[j].source < f->source_base || i >= f->n_sources)
            continue;
        next[i] = h->src[j].next_seq;
        have++;
    }
    if (have == f->n_sources)
        ro_replay_release(&f->rb, h->place, h->low, next);
}

int ro_fo_offer(struct ro_fo *f, const uint8_t *frame, size_t len, uint16_t udp_port,
                uint64_t next_id, uint64_t now_ns)
{
    struct ebf_l2l3 l;
    struct ebf_release_hdr h;
    enum ebf_reason r = ebf_parse_l2l3(frame, len, udp_port, &l);

    /* A release frame is of a type above the core protocol's EBF_T_LAST:
     * the parser says EBF_R_UNKNOWN_TYPE with its offsets set. */
    if (!((r == EBF_R_UNKNOWN_TYPE || (r == EBF_R_OK && l.type == EBF_T_RELEASE)) &&
          frame[l.hlen + 1] == EBF_T_RELEASE))
        return 0;
    if (ebf_release_parse(frame + l.hlen, l.len, &h) != EBF_R_OK) {
        f->rejected++;
        return 1;
    }
    uint32_t p = h.place;

    if (h.flags & (EBF_RELF_DEAD | EBF_RELF_END)) {
        f->rejected++;          /* a notice or replay end goes to an SFC, never to a readout */
        return 1;
    }
    if (p >= f->n_sfcs || p >= EBF_ROUTE_MAX || memcmp(l.src_mac, f->sfc_mac[p], 6) != 0) {
        f->foreign++;
        return 1;
    }
    if (!ro_failover_offer(&f->view, &h, next_id, now_ns)) {
        f->stale++;
        return 1;
    }
    f->frames++;
    /* A new incarnation (reborn: it fenced itself or restarted while
     * routed to) frees only below the old one's last low until this
     * readout replayed what it sent the old one: a fenced SFC's low is
     * past the events its fence dropped (its sources' highest ids heard),
     * and its frames come also while the replay is under way (a port
     * refusing the replay is polled), before the replayed frames reached
     * it. So does a place declared dead whose replay is not done
     * (ro_fo_died): alive after all, its frames at its old epoch would
     * free the records its fence takes for replayed. */
    if (ebf_places_has(&f->view.reborn, p) && p < 64)
        f->replay_due |= UINT64_C(1) << p;
    if (p < 64 && (f->replay_due >> p & 1)) {
        h.low = h.low < f->low[p] ? h.low : f->low[p];
        apply(f, &h);
        return 1;
    }
    /* The watermark of a dead place stays where it was at its death: what
     * it releases later (alive after all, or its frames still coming) is
     * of events already replayed, which the survivors decide; the ledger
     * takes the highest one as its X (docs/protocol.md 13.6). */
    if (h.low > f->low[p] && !ebf_places_has(&f->view.dead, p))
        f->low[p] = h.low;
    apply(f, &h);
    return 1;
}

int ro_fo_room(struct ro_fo *f)
{
    if (ro_replay_fits(&f->rb, f->event_max))
        return 1;
    f->full_polls++;
    return 0;
}

int ro_fo_hold(struct ro_fo *f, uint64_t now_ns)
{
    uint64_t id;

    if (!ro_fo_room(f)) {
        if (!f->full_since_ns)
            f->full_since_ns = now_ns ? now_ns : 1;
        if (now_ns - f->full_since_ns < f->hold_max_ns)
            return 1;
        while (!ro_replay_fits(&f->rb, f->event_max) && ro_replay_drop_oldest(&f->rb, &id))
            ;
    }
    if (f->full_since_ns) {
        f->held_ns += now_ns - f->full_since_ns;
        f->full_since_ns = 0;
    }
    return 0;
}

void ro_fo_sent(struct ro_fo *f, uint64_t e, uint16_t place, uint32_t bytes, const uint32_t *seq)
{
    uint32_t last[RO_REPLAY_MAX_SRC];

    for (uint16_t s = 0; s < f->n_sources; s++)
        last[s] = seq[s] - 1;
    ro_replay_push(&f->rb, e, place, bytes, last);
}

void ro_fo_died(struct ro_fo *f, uint32_t p)
{
    if (p < 64)
        f->replay_due |= UINT64_C(1) << p;
}

void ro_fo_recover_begin(struct ro_fo *f, uint64_t last_ns)
{
    if (last_ns == 0)
        last_ns = 1;            /* 0 means none in progress */
    if (!f->recover_since_ns || last_ns < f->recover_since_ns)
        f->recover_since_ns = last_ns;
}

void ro_fo_recover_end(struct ro_fo *f, uint64_t now_ns)
{
    if (!f->recover_since_ns)
        return;
    f->recover_ns = now_ns > f->recover_since_ns ? now_ns - f->recover_since_ns : 0;
    if (f->recover_ns > f->recover_max_ns)
        f->recover_max_ns = f->recover_ns;
    f->recoveries++;
    f->recover_since_ns = 0;
}

size_t ro_fo_notice(struct ro_fo *f, uint32_t p, uint8_t *buf)
{
    struct ebf_release_hdr h = {.place = (uint16_t)p, .flags = EBF_RELF_DEAD,
                                .epoch = f->view.epoch[p], .seq = f->notice_seq++,
                                .low = f->low[p]};

    f->notices++;
    return ebf_release_write(buf, &h);
}

size_t ro_fo_end(struct ro_fo *f, uint32_t p, uint64_t from, uint64_t hi, const uint32_t *next_seq,
                 uint8_t *buf)
{
    struct ebf_release_hdr h = {.place = (uint16_t)p, .flags = EBF_RELF_END,
                                .n_src = (uint8_t)f->n_sources, .epoch = f->view.epoch[p],
                                .seq = f->end_seq++, .low = from, .at = hi};

    if (f->n_sources > EBF_RELEASE_MAX_SRC)
        return 0;
    for (uint16_t s = 0; s < f->n_sources; s++)
        h.src[s] = (struct ebf_release_src){.source = (uint16_t)(f->source_base + s),
                                            .next_seq = next_seq[s]};
    f->ends++;
    return ebf_release_write(buf, &h);
}
