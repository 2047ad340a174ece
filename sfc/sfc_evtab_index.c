/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_evtab_index.c - the event table's id index (open addressing, backward-shift delete) and its window of finished ids. */
#include "sfc_evtab.h"

#include "sfc_evtab_private.h"

/* --- Index ----------------------------------------------------------------- */

uint32_t sfc_evtab_index_pos(const struct sfc_evtab *t, uint64_t id)
{
    for (uint32_t i = sfc_evtab_home(t, id);; i = (i + 1) & t->index_mask) {
        const struct idx_ent *x = &t->index[i];
        if (x->slot == SFC_NONE || x->id == id)
            return i;
    }
}

uint32_t sfc_evtab_lookup(const struct sfc_evtab *t, uint64_t event_id)
{
    return t->index[sfc_evtab_index_pos(t, event_id)].slot;
}

void sfc_evtab_prefetch(const struct sfc_evtab *t, uint64_t event_id)
{
    __builtin_prefetch(&t->index[sfc_evtab_home(t, event_id)]);
}

void sfc_evtab_index_delete(struct sfc_evtab *t, uint32_t i)
{
    uint32_t j = i;
    for (;;) {
        j = (j + 1) & t->index_mask;
        if (t->index[j].slot == SFC_NONE)
            break;
        uint32_t k = sfc_evtab_home(t, t->index[j].id);
        /* Entry j may move to i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            t->index[i] = t->index[j];
            i = j;
        }
    }
    t->index[i].slot = SFC_NONE;
}

/* --- Done window ----------------------------------------------------------- */

int sfc_evtab_done_get(const struct sfc_evtab *t, uint64_t id, const uint64_t **present)
{
    uint32_t h = (uint32_t)id & t->done_mask;

    if (t->done_tag[h] == DONE_EMPTY)
        return DONE_EMPTY;
    if (t->done_id[h] == id) {
        *present = t->done_present[h];
        return t->done_tag[h];
    }
    return t->done_id[h] > id ? DONE_STALE : DONE_EMPTY;
}

void sfc_evtab_done_put(struct sfc_evtab *t, uint64_t id, int tag, const uint64_t present[2])
{
    uint32_t h = (uint32_t)id & t->done_mask;
    t->done_id[h] = id;
    t->done_tag[h] = (uint8_t)tag;
    t->done_present[h][0] = present ? present[0] : 0;
    t->done_present[h][1] = present ? present[1] : 0;
}
