/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_failover.c - the readout's view of the SFC places: detection by silence, joins and leaves at event ids, the route. */
#include <errno.h>
#include <string.h>

#include "ro_failover.h"

int ro_failover_init(struct ro_failover *fo, uint32_t n, uint64_t dead_ns)
{
    memset(fo, 0, sizeof(*fo));
    if (n == 0 || n > EBF_ROUTE_MAX)
        return -EINVAL;
    fo->n = n;
    fo->dead_ns = dead_ns;
    fo->next_change = RO_FO_NEVER;
    for (uint32_t p = 0; p < EBF_ROUTE_MAX; p++)
        fo->join_at[p] = fo->leave_at[p] = RO_FO_NEVER;
    return ebf_route_set(&fo->route, n, NULL);
}

/* The lowest pending join or leave id. */
static void next_change(struct ro_failover *fo)
{
    fo->next_change = RO_FO_NEVER;
    for (uint32_t p = 0; p < fo->n; p++) {
        if (fo->join_at[p] < fo->next_change)
            fo->next_change = fo->join_at[p];
        if (fo->leave_at[p] < fo->next_change)
            fo->next_change = fo->leave_at[p];
    }
}

/* Records h's join or leave id for its place, unless already passed. A
 * place out with its join still due takes a leave (an SFC drained before
 * its join: out again from the leave, at or after the join), a place in
 * with its leave due a join (undrained before its leave). */
static void announce(struct ro_failover *fo, const struct ebf_release_hdr *h, uint64_t next_id)
{
    int join = (h->flags & EBF_RELF_JOIN) != 0;
    uint64_t *at = join ? &fo->join_at[h->place] : &fo->leave_at[h->place];
    uint64_t other = join ? fo->leave_at[h->place] : fo->join_at[h->place];
    int is_out = ebf_places_has(&fo->out, h->place);

    if (!(h->flags & (EBF_RELF_JOIN | EBF_RELF_LEAVE)) || *at == h->at)
        return;
    if (*at == RO_FO_NEVER && join != is_out && other == RO_FO_NEVER)
        return; /* already in the announced state: a repeat after the switch */
    if (h->at < next_id) {
        fo->join_late++;
        return;
    }
    *at = h->at;
    next_change(fo);
}

int ro_failover_offer(struct ro_failover *fo, const struct ebf_release_hdr *h, uint64_t next_id,
                      uint64_t now_ns)
{
    uint16_t p = h->place;

    if (p >= fo->n)
        return 0;
    if (ebf_places_has(&fo->heard, p) &&
        !ebf_release_newer(h->epoch, h->seq, fo->epoch[p], fo->seq[p])) {
        fo->stale++;
        return 0;
    }
    if (ebf_places_has(&fo->heard, p) && h->epoch != fo->epoch[p] &&
        !ebf_places_has(&fo->out, p)) {
        /* A new incarnation of a place still routed to: it restarted, or
         * fenced itself after a pause, and holds nothing of what it had.
         * It is dead to us now (its records are replayed) and rejoins. */
        ebf_places_add(&fo->out, p);
        ebf_places_add(&fo->dead, p);
        ebf_places_add(&fo->reborn, p);
        fo->deaths++;
        ebf_route_set(&fo->route, fo->n, &fo->out);
    }
    if (ebf_places_has(&fo->silent_dead, p)) {
        if (h->epoch == fo->epoch[p]) {
            fo->false_deaths++;         /* alive all along */
            ebf_places_add(&fo->alive_dead, p);
        }
        ebf_places_del(&fo->silent_dead, p);
    }
    if (ebf_places_has(&fo->alive_dead, p)) {
        if (h->epoch == fo->epoch[p])
            ebf_places_add(&fo->notice, p);     /* tell it: it fences and rejoins */
        else
            ebf_places_del(&fo->alive_dead, p); /* it did: a new incarnation */
    }
    ebf_places_add(&fo->heard, p);
    fo->epoch[p] = h->epoch;
    fo->seq[p] = h->seq;
    fo->last_ns[p] = now_ns;
    announce(fo, h, next_id);
    return 1;
}

/* Whether some place has a join announced and not yet applied: with every
 * other place dead, ro_failover_join_early takes it in at once. */
static int join_pending(const struct ro_failover *fo)
{
    for (uint32_t p = 0; p < fo->n; p++)
        if (fo->join_at[p] != RO_FO_NEVER)
            return 1;
    return 0;
}

uint32_t ro_failover_poll(struct ro_failover *fo, uint64_t now_ns, struct ebf_places *died)
{
    uint64_t gap = now_ns - fo->last_poll_ns;
    uint32_t n_died = 0;

    if (fo->last_poll_ns && now_ns > fo->last_poll_ns && gap > fo->dead_ns / 2) {
        for (uint32_t p = 0; p < fo->n; p++)
            if (fo->last_ns[p] < fo->last_poll_ns)
                fo->last_ns[p] += gap;  /* the readout did not look: not their silence */
        fo->own_stalls++;
    }
    fo->last_poll_ns = now_ns;

    struct ebf_places silent = {0};
    uint32_t n_silent = 0;
    for (uint32_t p = 0; p < fo->n; p++) {
        if (!ebf_places_has(&fo->heard, p) || ebf_places_has(&fo->out, p))
            continue;
        if (now_ns > fo->last_ns[p] && now_ns - fo->last_ns[p] >= fo->dead_ns) {
            ebf_places_add(&silent, p);
            n_silent++;
        }
    }
    if (n_silent && fo->keep_last && n_silent == fo->n - ebf_places_count(&fo->out, fo->n) &&
        !join_pending(fo)) {
        fo->all_silent++;       /* every survivor silent at once: this readout's view */
        n_silent = 0;
    }
    *died = fo->reborn;
    for (uint32_t p = 0; n_silent && p < fo->n; p++)
        if (ebf_places_has(&silent, p)) {
            ebf_places_add(died, p);
            ebf_places_add(&fo->out, p);
            ebf_places_add(&fo->dead, p);
            ebf_places_add(&fo->silent_dead, p);
            n_died++;
        }
    if (n_died) {
        fo->deaths += n_died;
        ebf_route_set(&fo->route, fo->n, &fo->out);
    }
    memset(&fo->reborn, 0, sizeof(fo->reborn));
    return ebf_places_count(died, fo->n);
}

uint32_t ro_failover_notices(struct ro_failover *fo, struct ebf_places *due)
{
    *due = fo->notice;
    memset(&fo->notice, 0, sizeof(fo->notice));
    return ebf_places_count(due, fo->n);
}

/* Applies every join and leave due at e. */
static void apply_changes(struct ro_failover *fo, uint64_t e)
{
    for (uint32_t p = 0; p < fo->n; p++) {
        if (fo->join_at[p] <= e) {
            fo->join_at[p] = RO_FO_NEVER;
            ebf_places_del(&fo->out, p);
            ebf_places_del(&fo->dead, p);
            ebf_places_del(&fo->silent_dead, p);
            ebf_places_del(&fo->alive_dead, p);
            ebf_places_del(&fo->notice, p);
            fo->joins++;
        }
        if (fo->leave_at[p] <= e) {
            fo->leave_at[p] = RO_FO_NEVER;
            ebf_places_add(&fo->out, p);
            fo->leaves++;
        }
    }
    ebf_route_set(&fo->route, fo->n, &fo->out);
    next_change(fo);
}

int ro_failover_join_early(struct ro_failover *fo, uint64_t e)
{
    if (ebf_places_count(&fo->out, fo->n) < fo->n)
        return 1;
    for (uint32_t p = 0; p < fo->n; p++)
        if (fo->join_at[p] != RO_FO_NEVER) {
            fo->join_at[p] = e;
            fo->join_early++;
        }
    if (fo->next_change != RO_FO_NEVER)
        apply_changes(fo, e);
    return ebf_places_count(&fo->out, fo->n) < fo->n;
}

uint32_t ro_failover_place(struct ro_failover *fo, uint64_t e)
{
    if (e >= fo->next_change)
        apply_changes(fo, e);
    uint32_t p = ebf_route_of(&fo->route, e);
    if (p == EBF_ROUTE_NONE && ro_failover_join_early(fo, e))
        p = ebf_route_of(&fo->route, e);
    return p;
}
