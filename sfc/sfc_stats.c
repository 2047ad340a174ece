/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_stats.c - the SFC's final counters in the stats-file format. */
#include <stdio.h>

#include "ebf_kv.h"
#include "sfc_dp.h"

static const char *reason_name(unsigned i)
{
    return ebf_reason_name((enum ebf_reason)i);
}

static const char *drop_name(unsigned i)
{
    return sfc_drop_name((enum sfc_drop)i);
}

static const char *lost_name(unsigned i)
{
    return sfc_lost_name((enum sfc_lost)i);
}

void sfc_dp_write_stats(const struct sfc_dp *dp, FILE *f)
{
    const struct sfc_stats *st = sfc_dp_stats(dp);
    char key[96];

    ebf_kv_put(f, "rx.frames", st->rx_frames);
    ebf_kv_put(f, "rx.bytes", st->rx_bytes);
    ebf_kv_put_each(f, "rx.reject.", st->reject, 1, EBF_R_MAX, reason_name);
    ebf_kv_put_each(f, "rx.drop.", st->drop, 0, SFC_DROP_MAX, drop_name);
    ebf_kv_put_each(f, "lost.", st->lost, 0, SFC_LOST_MAX, lost_name);
    ebf_kv_put(f, "lost_digest", st->lost_digest);
    ebf_kv_put(f, "events.complete", st->events_complete);
    ebf_kv_put(f, "events.incomplete", st->events_incomplete);
    ebf_kv_put(f, "events.sent", st->events_sent);
    ebf_kv_put(f, "tx.frames", st->frames_tx);
    ebf_kv_put(f, "tx.bytes", st->bytes_tx);
    ebf_kv_put(f, "tx.refused", st->tx_refused);
    ebf_kv_put(f, "tx.clone_fail", st->clone_fail);
    ebf_kv_put(f, "tx.payload_bytes", st->payload_bytes_sent);
    ebf_kv_put(f, "credit.frames", st->credit_frames);
    ebf_kv_put(f, "credit.granted", st->credits_granted);
    ebf_kv_put(f, "credit.clamped", st->credits_clamped);
    ebf_kv_put(f, "ack.events", st->acks);
    ebf_kv_put(f, "ack.accept", st->acked_accept);
    ebf_kv_put(f, "ack.reject", st->acked_reject);
    ebf_kv_put(f, "ack.unknown", st->ack_unknown);
    ebf_kv_put(f, "ack.status_errors", st->ack_status_errors);
    ebf_kv_put(f, "backpressure_polls", st->backpressure_polls);
    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++) {
        if (!st->missing_by_source[s])
            continue;
        snprintf(key, sizeof(key), "missing.source.%u", s);
        ebf_kv_put(f, key, st->missing_by_source[s]);
    }
    for (unsigned n = 0; n < SFC_MAX_NODES; n++) {
        if (!st->node_sent[n] && !st->node_acked[n])
            continue;
        snprintf(key, sizeof(key), "node.%u.sent", n);
        ebf_kv_put(f, key, st->node_sent[n]);
        snprintf(key, sizeof(key), "node.%u.acked", n);
        ebf_kv_put(f, key, st->node_acked[n]);
    }
    ebf_hist_write(&st->build_ns, "hist.build_ns", f);
    ebf_hist_write(&st->dispatch_ns, "hist.dispatch_ns", f);
    ebf_hist_write(&st->ack_ns, "hist.ack_ns", f);
}
