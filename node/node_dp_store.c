/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp_store.c - the node data plane's storage glue: accepted events into the store, the wait for blocks (back-pressure), the drain. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "node_dp_private.h"

#define TICK_MS 50               /* a partly filled block waits at most this long */

int node_dp_store_init(struct node_dp *dp)
{
    if (!dp->c.store.dir[0])
        return 0;
    dp->wait = rte_zmalloc("node_wait", sizeof(dp->wait[0]) * dp->c.credits, 0);
    if (!dp->wait)
        return -ENOMEM;
    dp->tick_tsc = rte_get_tsc_hz() / 1000 * TICK_MS;
    return 0;
}

void node_dp_store_free(struct node_dp *dp)
{
    node_store_destroy(dp->store);
    dp->store = NULL;
    rte_free(dp->wait);
    dp->wait = NULL;
}

int node_dp_begin(struct node_dp *dp, uint32_t run, const char *farm, char *err, size_t len)
{
    struct node_store_id id = {.run = run, .node = dp->c.node_id};

    if (!dp->c.store.dir[0] || dp->store)
        return 0;
    snprintf(id.farm, sizeof(id.farm), "%s", farm ? farm : "");
    dp->store = node_store_create(&dp->c.store, &id, err, len);
    return dp->store ? 0 : -errno;
}

int node_dp_failed(struct node_dp *dp, char *why, size_t len)
{
    return dp->store && node_store_failed(dp->store, why, len);
}

/* The record header of e (fragments from the view). */
static enum node_store_put put(struct node_dp *dp, struct node_ev *e)
{
    struct ebf_store_rec h = {
        .event_id = e->id, .flags = e->flags, .n_sources = e->n_sources,
        .present = {e->present[0], e->present[1]},
    };

    if (node_view_build(&dp->v, (uint16_t)(e - dp->ev), e->n_sources))
        return NODE_STORE_LOST;  /* cannot happen: decide saw it whole */
    return node_store_put(dp->store, e->stream, &h, dp->v.frags, dp->v.frag_flags);
}

static void wait_push(struct node_dp *dp, struct node_ev *e)
{
    uint16_t slot = (uint16_t)(e - dp->ev);

    e->waiting = 1;
    dp->store_waits++;
    dp->wait[(dp->wait_head + dp->wait_n) % dp->c.credits] = slot;
    if (dp->wait_n++ == 0)
        dp->bp_since = rte_get_tsc_cycles();
}

int node_dp_store_event(struct node_dp *dp, struct node_ev *e)
{
    if (dp->wait_n || put(dp, e) == NODE_STORE_AGAIN) {
        wait_push(dp, e);       /* in order behind the others */
        return 0;
    }
    return 1;
}

unsigned node_dp_store_poll(struct node_dp *dp,
                            void (*complete)(struct node_dp *, struct node_ev *))
{
    unsigned work = 0;
    uint64_t now = rte_get_tsc_cycles();

    while (dp->wait_n) {
        struct node_ev *e = &dp->ev[dp->wait[dp->wait_head]];
        if (put(dp, e) == NODE_STORE_AGAIN)
            break;
        dp->wait_head = (uint16_t)((dp->wait_head + 1) % dp->c.credits);
        dp->wait_n--;
        complete(dp, e);
        work++;
    }
    if (work && !dp->wait_n) {
        dp->bp_cycles += now - dp->bp_since;
        dp->bp_since = 0;
    }
    /* Failed storage: every block goes now, to be counted lost at once. */
    int failed = node_store_failed(dp->store, NULL, 0);
    if (failed || now >= dp->next_tick) {
        node_store_tick(dp->store, node_store_mono_ns(), failed ? 0 : (uint64_t)TICK_MS * 1000000u);
        dp->next_tick = now + dp->tick_tsc;
    }
    return work;
}

int node_dp_store_drained(struct node_dp *dp)
{
    if (!dp->store)
        return 1;
    if (dp->wait_n)
        return 0;
    if (!dp->store_finishing) {
        node_store_finish(dp->store);
        dp->store_finishing = 1;
    }
    return node_store_done(dp->store);
}

void node_dp_store_stats(struct node_dp *dp, struct node_store_stats *out)
{
    uint64_t bp = dp->bp_cycles;

    memset(out, 0, sizeof(*out));
    if (!dp->store)
        return;
    node_store_stats_read(dp->store, out);
    if (dp->wait_n)
        bp += rte_get_tsc_cycles() - dp->bp_since;
    out->backpressure_ns = (uint64_t)((double)bp * 1e9 / (double)rte_get_tsc_hz());
    out->waiting = dp->wait_n;
    out->waits = dp->store_waits;
}
