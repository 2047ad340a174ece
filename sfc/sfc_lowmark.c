/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_lowmark.c - counts of held events per id bucket, and the lowest id held from them. */
#include <string.h>

#include "sfc_lowmark.h"

#define RING(b) ((uint32_t)((b) & (SFC_LOWMARK_BUCKETS - 1)))

void sfc_lowmark_init(struct sfc_lowmark *m)
{
    memset(m, 0, sizeof(*m));
    m->under_min = SFC_LOWMARK_NONE;
}

void sfc_lowmark_add(struct sfc_lowmark *m, uint64_t id)
{
    uint64_t b = id >> SFC_LOWMARK_SHIFT;

    if (!m->held && !m->under && !m->over)
        m->base = b;                   /* empty: the window starts here */
    if (b < m->base) {
        m->under++;
        if (id < m->under_min)
            m->under_min = id;
    } else if (b - m->base >= SFC_LOWMARK_BUCKETS) {
        m->over++;
    } else {
        m->count[RING(b)]++;
        m->held++;
    }
}

void sfc_lowmark_remove(struct sfc_lowmark *m, uint64_t id)
{
    uint64_t b = id >> SFC_LOWMARK_SHIFT;

    if (b < m->base) {
        if (--m->under == 0)
            m->under_min = SFC_LOWMARK_NONE;
    } else if (b - m->base >= SFC_LOWMARK_BUCKETS) {
        m->over--;
    } else {
        m->count[RING(b)]--;
        m->held--;
    }
}

uint64_t sfc_lowmark_low(struct sfc_lowmark *m)
{
    uint64_t low;

    /* the base moves only while no id is above the window, so that each
     * id is removed from where it was added */
    while (m->held && !m->over && m->count[RING(m->base)] == 0)
        m->base++;
    if (m->held)
        low = m->base << SFC_LOWMARK_SHIFT;   /* its bucket is the lowest nonempty unless over */
    else if (m->over)
        low = (m->base + SFC_LOWMARK_BUCKETS) << SFC_LOWMARK_SHIFT;
    else
        low = SFC_LOWMARK_NONE;
    return m->under_min < low ? m->under_min : low;
}
