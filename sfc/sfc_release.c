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

uint64_t sfc_release_margin(uint64_t per_round, uint64_t period_ns)
{
    uint64_t m = period_ns ? per_round * (SFC_RELEASE_JOIN_NS / period_ns) : 0;

    return m > SFC_RELEASE_JOIN_MIN ? m : SFC_RELEASE_JOIN_MIN;
}

void sfc_release_announce(struct sfc_release *rel, uint8_t flag, uint64_t at)
{
    rel->flags = flag;
    rel->at = at;
    if (flag == EBF_RELF_JOIN)
        rel->join_at = at;
    rel->join_rounds = flag == EBF_RELF_JOIN && rel->period_ns
                           ? 2 * SFC_RELEASE_JOIN_NS / rel->period_ns + 1
                           : 0;
}

void sfc_release_heard(struct sfc_release *rel, uint64_t top)
{
    rel->per_round = top > rel->top ? top - rel->top : 0;
    if (top > rel->top)
        rel->top = top;
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
