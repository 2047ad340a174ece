/* SPDX-License-Identifier: BSD-3-Clause */
/* ledger_store.c - the ledger's storage part from the nodes' counters, and its summary lines. */
#include "ledger_store.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "node_stats.h"

/* Add the node's array "<name>.<i>" entries into v. */
static void add_streams(const struct ebf_kv *kv, const char *name, uint64_t v[LEDGER_STREAMS])
{
    char key[96];

    for (unsigned i = 0; i < LEDGER_STREAMS; i++) {
        snprintf(key, sizeof(key), "%s.%u", name, i);
        v[i] += ebf_kv_u64(kv, key, 0);
    }
}

/* The node's "store.lost.<reason>" entries, by name. */
static void add_reasons(const struct ebf_kv *kv, struct ledger_store *s)
{
    const char *pre = NODE_NAME(STORE_LOST);
    size_t n = strlen(pre);

    for (unsigned i = 0; i < kv->n; i++) {
        const struct ebf_kv_pair *p = &kv->pair[i];
        if (strncmp(p->key, pre, n) != 0 || p->key[n] != '.')
            continue;
        unsigned k = 0;
        while (k < s->n_lost && strcmp(s->lost_name[k], p->key + n + 1) != 0)
            k++;
        if (k == s->n_lost) {
            if (s->n_lost == LEDGER_STORE_REASONS)
                continue;
            snprintf(s->lost_name[s->n_lost++], sizeof(s->lost_name[0]), "%s", p->key + n + 1);
        }
        uint64_t v = strtoull(p->val, NULL, 0);
        s->lost[k] += v;
        s->lost_total += v;
    }
}

/* The node's histogram "hist.<name>.*" merged into h. */
static void add_hist(const struct ebf_kv *kv, const char *name, struct ebf_hist *h)
{
    struct ebf_hist x;
    char key[96];

    ebf_hist_init(&x);
    snprintf(key, sizeof(key), "hist.%s.count", name);
    x.count = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "hist.%s.sum", name);
    x.sum = ebf_kv_u64(kv, key, 0);
    snprintf(key, sizeof(key), "hist.%s.min", name);
    x.min = x.count ? ebf_kv_u64(kv, key, 0) : UINT64_MAX;
    snprintf(key, sizeof(key), "hist.%s.max", name);
    x.max = ebf_kv_u64(kv, key, 0);
    for (unsigned b = 0; b < EBF_HIST_BUCKETS; b++) {
        snprintf(key, sizeof(key), "hist.%s.bucket.%u", name, b);
        x.bucket[b] = ebf_kv_u64(kv, key, 0);
    }
    ebf_hist_merge(h, &x);
}

void ledger_store_close(const struct farm_result *r, uint64_t accepted, struct ledger_store *s)
{
    memset(s, 0, sizeof(*s));
    ebf_hist_init(&s->write_ns);
    for (unsigned i = 0; i < r->n_nodes; i++) {
        const struct ebf_kv *kv = &r->node[i].kv;
        if (r->node[i].gone || !ebf_kv_u64(kv, NODE_NAME(STORE_ON), 0))
            continue;
        s->on = 1;
        add_streams(kv, NODE_NAME(STORE_ACCEPTED), s->s_accepted);
        add_streams(kv, NODE_NAME(STORE_EVENTS), s->s_stored);
        add_streams(kv, NODE_NAME(STORE_LOST_STREAM), s->s_lost);
        uint64_t bytes[LEDGER_STREAMS] = {0};
        add_streams(kv, NODE_NAME(STORE_BYTES), bytes);
        for (unsigned k = 0; k < LEDGER_STREAMS; k++)
            s->bytes += bytes[k];
        add_reasons(kv, s);
        s->files += ebf_kv_u64(kv, NODE_NAME(STORE_FILES), 0);
        s->waits += ebf_kv_u64(kv, NODE_NAME(STORE_WAITS), 0);
        s->backpressure_ns += ebf_kv_u64(kv, NODE_NAME(STORE_BACKPRESSURE_NS), 0);
        s->failed_nodes += ebf_kv_u64(kv, NODE_NAME(STORE_FAILED), 0) != 0;
        add_hist(kv, NODE_NAME(STORE_WRITE_NS), &s->write_ns);
    }
    /* Events lost for a bad stream have no stream: they count in all only. */
    s->balanced = 1;
    for (unsigned k = 0; k < LEDGER_STREAMS; k++) {
        s->accepted += s->s_accepted[k];
        s->stored += s->s_stored[k];
        s->balanced &= s->s_accepted[k] == s->s_stored[k] + s->s_lost[k];
    }
    uint64_t bad_stream = 0;
    for (unsigned k = 0; k < s->n_lost; k++)
        if (strcmp(s->lost_name[k], node_store_lost_name(NODE_SL_BAD_STREAM)) == 0)
            bad_stream = s->lost[k];
    s->accepted += bad_stream;
    s->balanced &= s->accepted == s->stored + s->lost_total && s->accepted == accepted;
}

void ledger_store_text(FILE *out, const struct ledger_store *s)
{
    if (!s->on)
        return;
    fprintf(out, "  store    accepted %" PRIu64 " = stored %" PRIu64 " + lost at storage %"
            PRIu64 " (%s); %" PRIu64 " files, %.1f MB; back-pressure %.3f s (%" PRIu64
            " waits)\n           writes %" PRIu64 ", p50 %.1f us p99 %.1f us max %.1f us\n"
            "           by stream (accepted/stored/lost):", s->accepted, s->stored,
            s->lost_total, s->balanced ? "balanced" : "NOT BALANCED", s->files,
            (double)s->bytes / 1e6, (double)s->backpressure_ns / 1e9, s->waits,
            s->write_ns.count, ebf_hist_quantile(&s->write_ns, 0.5) / 1e3,
            ebf_hist_quantile(&s->write_ns, 0.99) / 1e3, (double)s->write_ns.max / 1e3);
    for (unsigned k = 0; k < LEDGER_STREAMS; k++)
        if (s->s_accepted[k])
            fprintf(out, " %u %" PRIu64 "/%" PRIu64 "/%" PRIu64, k, s->s_accepted[k],
                    s->s_stored[k], s->s_lost[k]);
    fprintf(out, "\n           lost at storage by reason:");
    for (unsigned k = 0; k < s->n_lost; k++)
        fprintf(out, " %s %" PRIu64 "%s", s->lost_name[k], s->lost[k],
                k + 1 < s->n_lost ? "," : "");
    if (!s->n_lost)
        fprintf(out, " none");
    if (s->failed_nodes)
        fprintf(out, "; storage FAILED on %u node(s)", s->failed_nodes);
    fputc('\n', out);
}

/* Stream k's line: {"accepted": N, "stored": N, "lost": N}. */
static json_t *stream_json(const struct ledger_store *s, unsigned k)
{
    return json_pack("{s:o, s:o, s:o}", "accepted", jout_u64(s->s_accepted[k]), "stored",
                     jout_u64(s->s_stored[k]), "lost", jout_u64(s->s_lost[k]));
}

/* "lost" by reason and "by_stream" (the streams that had events). */
static int store_lists(const struct ledger_store *s, json_t *lost, json_t *by)
{
    char k[16];
    int rc = !lost || !by;

    for (unsigned i = 0; !rc && i < s->n_lost; i++)
        rc = jout_set(lost, s->lost_name[i], jout_u64(s->lost[i]));
    for (unsigned i = 0; !rc && i < LEDGER_STREAMS; i++) {
        snprintf(k, sizeof(k), "%u", i);
        rc = s->s_accepted[i] ? jout_set(by, k, stream_json(s, i)) : 0;
    }
    return rc ? -1 : 0;
}

static json_t *store_json(const struct ledger_store *s)
{
    json_t *lost = json_object(), *by = json_object();

    if (store_lists(s, lost, by) != 0) {
        json_decref(lost);
        json_decref(by);
        return NULL;
    }
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, "
                     "s:{s:o, s:o, s:o, s:o}, s:b}",
                     "accepted", jout_u64(s->accepted), "stored", jout_u64(s->stored),
                     "lost_total", jout_u64(s->lost_total), "lost", lost, "by_stream", by,
                     "bytes", jout_u64(s->bytes), "files", jout_u64(s->files), "waits",
                     jout_u64(s->waits), "backpressure_ns", jout_u64(s->backpressure_ns),
                     "failed_nodes", (int)s->failed_nodes, "write_ns", "count",
                     jout_u64(s->write_ns.count), "p50",
                     jout_u64(ebf_hist_quantile(&s->write_ns, 0.5)), "p99",
                     jout_u64(ebf_hist_quantile(&s->write_ns, 0.99)), "max",
                     jout_u64(s->write_ns.max), "balanced", s->balanced);
}

int ledger_store_json(json_t *ledger, const struct ledger_store *s)
{
    if (!s->on)
        return jout_set(ledger, "stored", json_null()) | jout_set(ledger, "store", json_null());
    return jout_set(ledger, "stored", jout_u64(s->stored)) |
           jout_set(ledger, "store", store_json(s));
}
