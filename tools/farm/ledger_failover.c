/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_failover.c - the failover ledger: generated against live acks, replayed acks, the dead places' acks below the watermark and the losses. */
#include <string.h>

#include "ledger_failover.h"

uint64_t ledger_fo_count(const struct ebf_idset *s)
{
    uint64_t n = 0;

    for (unsigned c = 0; c < EBF_IDSET_PART_CELLS; c++)
        n += s->count[c];
    return n;
}

int ledger_failover_close(const struct ledger_fo_in *in, struct ledger_fo_out *out)
{
    struct ebf_idset d;

    memset(out, 0, sizeof(*out));
    ebf_idset_init(&d);
    ebf_idset_add_range(&d, in->id_lo, in->n);
    ebf_idset_merge(&d, in->acked_live, -1);
    ebf_idset_merge(&d, in->replay_acked, -1);
    ebf_idset_merge(&d, in->dead_acks, -1);
    ebf_idset_merge(&d, in->after_release, +1);
    ebf_idset_merge(&d, in->lost, -1);
    out->redecided = ledger_fo_count(in->after_release);
    out->unaccounted = (int64_t)ledger_fo_count(&d);
    out->closed = ebf_idset_empty(&d);
    out->listed = ebf_idset_list(&d, out->missing, &out->n_missing, out->extra, &out->n_extra,
                                 LEDGER_FO_LIST);
    return out->closed;
}
