/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_release.c - the SFC's release stage: the period, the watermark, one release frame per readout. */
#include <string.h>

#include "sfc_release.h"

void sfc_release_init(struct sfc_release *rel, uint16_t place, uint16_t epoch, uint64_t period_ns)
{
    memset(rel, 0, sizeof(*rel));
    rel->place = place;
    rel->epoch = epoch;
    rel->period_ns = period_ns;
}

void sfc_release_announce(struct sfc_release *rel, uint8_t flag, uint64_t at, uint64_t until_ns)
{
    rel->flags = flag;
    rel->at = at;
    rel->until_ns = until_ns;
}

void sfc_release_leave(struct sfc_release *rel, uint64_t at)
{
    sfc_release_announce(rel, EBF_RELF_LEAVE, at, UINT64_MAX);
}

uint8_t sfc_release_flags(struct sfc_release *rel, uint64_t now_ns, uint64_t *at)
{
    if (rel->flags && now_ns >= rel->until_ns)
        rel->flags = 0;
    *at = rel->flags ? rel->at : 0;
    return rel->flags;
}

void sfc_release_new_epoch(struct sfc_release *rel, uint16_t epoch)
{
    rel->epoch = (int16_t)(uint16_t)(epoch - rel->epoch) > 0 ? epoch : (uint16_t)(rel->epoch + 1);
    rel->seq = 0;
}

uint64_t sfc_release_join_id(uint64_t next_max, double ids_per_s, double ago_s, double margin_s)
{
    double ahead = ids_per_s > 0 ? ids_per_s * (ago_s + margin_s) : 0;
    double margin = ids_per_s * margin_s;

    if (margin < SFC_RELEASE_JOIN_MIN)
        ahead += SFC_RELEASE_JOIN_MIN - margin;
    return next_max + (uint64_t)(ahead + 0.5);
}

int sfc_release_due(struct sfc_release *rel, uint64_t now_ns)
{
    if (now_ns < rel->next_ns)
        return 0;
    rel->next_ns += rel->period_ns;
    if (rel->next_ns <= now_ns)
        rel->next_ns = now_ns + rel->period_ns;
    rel->rounds++;
    return 1;
}

uint64_t sfc_release_low(const struct sfc_guard *g, uint64_t held_low,
                         const uint64_t *next_by_source, uint16_t n_sources)
{
    uint64_t low = held_low;
    int any = held_low != SFC_RELEASE_NONE_HELD;

    for (uint16_t s = 0; s < n_sources && s < EBF_MAX_SOURCES; s++) {
        if (!g->bind[s].bound)
            continue;
        any = 1;
        if (next_by_source[s] < low)
            low = next_by_source[s];
    }
    return any ? low : 0;
}

unsigned sfc_release_make(struct sfc_release *rel, const struct sfc_guard *g, uint16_t ro,
                          uint16_t n_sources, uint64_t low, uint8_t flags, uint64_t at,
                          struct ebf_release_hdr *h)
{
    unsigned n = 0;

    h->place = rel->place;
    h->flags = flags;
    h->epoch = rel->epoch;
    h->seq = rel->seq++;
    h->low = low;
    h->at = at;
    for (uint16_t s = 0; s < n_sources && s < EBF_MAX_SOURCES && ro < g->n_ro; s++) {
        if (!g->bind[s].bound || memcmp(g->bind[s].mac, g->ro_mac[ro], 6) != 0)
            continue;
        if (n == EBF_RELEASE_MAX_SRC)
            break;
        h->src[n].source = s;
        h->src[n++].next_seq = g->seq[s].next;
    }
    h->n_src = (uint8_t)n;
    return n;
}

int sfc_notice_take(struct sfc_notices *n, const struct ebf_release_hdr *h, uint16_t place,
                    uint16_t epoch, int ro, uint64_t now_ns)
{
    if (h->flags != EBF_RELF_DEAD || h->place != place || h->epoch != epoch) {
        n->ignored++;
        return 0;
    }
    if (!n->since_ns)
        n->since_ns = now_ns ? now_ns : 1;
    n->low = h->low > n->low ? h->low : n->low;
    if (ro >= 0 && ro < 64)
        n->from |= UINT64_C(1) << ro;
    n->taken++;
    return 1;
}

int sfc_notice_due(struct sfc_notices *n, uint64_t known, uint64_t last_low, uint64_t now_ns,
                   uint64_t *x)
{
    int all = known && (n->from & known) == known;

    if (!n->since_ns || (!all && now_ns - n->since_ns < SFC_NOTICE_WAIT_NS))
        return 0;
    *x = all ? n->low : last_low;
    n->since_ns = 0;
    n->low = 0;
    n->from = 0;
    return 1;
}
