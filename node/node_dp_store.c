/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_store.c - the node's storage stage: accepted events into the store, the wait for blocks (back-pressure), the drain. */
#include "node_dp_store.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#define TICK_MS 50               /* a partly filled block waits at most this long */

int node_dp_store_init(struct node_dp_store *s, const struct node_store_conf *conf,
                       uint16_t node_id, uint16_t credits, struct node_view *v)
{
    *s = (struct node_dp_store){.conf = conf, .v = v, .node_id = node_id, .credits = credits};
    if (!conf->dir[0])
        return 0;
    s->wait = rte_zmalloc("node_wait", sizeof(s->wait[0]) * credits, 0);
    if (!s->wait)
        return -ENOMEM;
    s->tick_tsc = rte_get_tsc_hz() / 1000 * TICK_MS;
    return 0;
}

void node_dp_store_free(struct node_dp_store *s)
{
    node_store_destroy(s->store);
    s->store = NULL;
    rte_free(s->wait);
    s->wait = NULL;
}

int node_dp_store_begin(struct node_dp_store *s, uint32_t run, const char *farm, char *err,
                        size_t len)
{
    struct node_store_id id = {.run = run, .sfc = s->conf->sfc, .node = s->node_id};

    if (!s->conf->dir[0] || s->store)
        return 0;
    snprintf(id.farm, sizeof(id.farm), "%s", farm ? farm : "");
    s->store = node_store_create(s->conf, &id, err, len);
    return s->store ? 0 : -errno;
}

int node_dp_store_failed(struct node_dp_store *s, char *why, size_t len)
{
    return s->store && node_store_failed(s->store, why, len);
}

/* The record of e in slot (fragments from the view) into the store; its
 * flags are the event frame's: INCOMPLETE, and REDISPATCHED as the record's
 * REPLAYED (both a copy that another node may have stored too). */
static enum node_store_put put(struct node_dp_store *s, const struct node_ev *e, uint16_t slot)
{
    struct ebf_store_rec h = {
        .event_id = e->id, .n_sources = e->n_sources,
        .flags = (e->flags & EBF_EVF_INCOMPLETE ? EBF_STORE_REC_INCOMPLETE : 0) |
                 (e->flags & EBF_EVF_REDISPATCHED ? EBF_STORE_REC_REPLAYED : 0),
        .present = {e->present[0], e->present[1]},
    };

    if (node_view_build(s->v, slot, e->n_sources))
        return NODE_STORE_LOST;  /* cannot happen: decide saw it whole */
    return node_store_put(s->store, e->stream, &h, s->v->frags, s->v->frag_flags);
}

int node_dp_store_event(struct node_dp_store *s, const struct node_ev *e, uint16_t slot)
{
    if (s->wait_n || put(s, e, slot) == NODE_STORE_AGAIN) {
        s->waits++;             /* in order behind the others */
        s->wait[(s->wait_head + s->wait_n) % s->credits] = slot;
        if (s->wait_n++ == 0)
            s->bp_since = rte_get_tsc_cycles();
        return 0;
    }
    return 1;
}

unsigned node_dp_store_take(struct node_dp_store *s, const struct node_ev *ev, uint16_t *done,
                            unsigned max)
{
    unsigned n = 0;

    while (s->wait_n && n < max) {
        uint16_t slot = s->wait[s->wait_head];
        if (put(s, &ev[slot], slot) == NODE_STORE_AGAIN)
            break;
        s->wait_head = (uint16_t)((s->wait_head + 1) % s->credits);
        s->wait_n--;
        done[n++] = slot;
    }
    if (n && !s->wait_n) {
        s->bp_cycles += rte_get_tsc_cycles() - s->bp_since;
        s->bp_since = 0;
    }
    return n;
}

void node_dp_store_tick(struct node_dp_store *s)
{
    uint64_t now = rte_get_tsc_cycles();
    /* Failed storage: every block goes now, to be counted lost at once. */
    int failed = node_store_failed(s->store, NULL, 0);

    if (failed || now >= s->next_tick) {
        node_store_tick(s->store, node_store_mono_ns(), failed ? 0 : (uint64_t)TICK_MS * 1000000u);
        s->next_tick = now + s->tick_tsc;
    }
}

int node_dp_store_drained(struct node_dp_store *s)
{
    if (!s->store)
        return 1;
    if (s->wait_n)
        return 0;
    if (!s->finishing) {
        node_store_finish(s->store);
        s->finishing = 1;
    }
    return node_store_done(s->store);
}

void node_dp_store_read(struct node_dp_store *s, struct node_store_stats *out)
{
    uint64_t bp = s->bp_cycles;

    memset(out, 0, sizeof(*out));
    if (!s->store)
        return;
    node_store_stats_read(s->store, out);
    if (s->wait_n)
        bp += rte_get_tsc_cycles() - s->bp_since;
    out->backpressure_ns = (uint64_t)((double)bp * 1e9 / (double)rte_get_tsc_hz());
    out->waiting = s->wait_n;
    out->waits = s->waits;
}
