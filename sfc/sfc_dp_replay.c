/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_replay.c - a survivor's replayed pieces and the readouts' replay ends: what becomes of a replayed event that timed out incomplete (docs/protocol.md 13.4, 13.4.1). */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "sfc_dp.h"
#include "sfc_dp_private.h"

void sfc_dp_replay_piece(struct sfc_dp *dp, const struct ebf_frag_hdr *h,
                         enum sfc_add_result a, uint32_t slot, uint64_t now)
{
    dp->st.replay_pieces++;
    dp->fo.replay_tsc = now ? now : 1;
    dp->fo.replay_src_tsc[h->source] = now ? now : 1;
    if (a == SFC_ADD_PARTIAL || a == SFC_ADD_COMPLETE)
        sfc_evtab_event(dp->tab, slot)->replayed = 1;
    else if (a == SFC_ADD_DUP_SENT || a == SFC_ADD_LATE || a == SFC_ADD_DUPLICATE) {
        dp->st.replay_dup++;    /* its event was finished here: not built twice */
        if (dp->st.fences && a != SFC_ADD_DUPLICATE)
            sfc_dp_fence_dup(dp, h->event_id);
    }
}

uint64_t sfc_dp_timeout(const struct sfc_dp *dp, uint64_t now)
{
    const struct sfc_dp_fo *f = &dp->fo;

    if (f->replay_tsc && now - f->replay_tsc < f->grace_tsc && f->grace_tsc > dp->timeout_tsc)
        return f->grace_tsc;
    return dp->timeout_tsc;
}

int sfc_dp_replay_orphan(const struct sfc_dp *dp, const struct sfc_event *e)
{
    for (uint16_t s = 0; s < dp->c.n_sources && s < EBF_MAX_SOURCES; s++)
        if (!ebf_present_test(e->present, s) && dp->fo.src_tsc[s] >= e->first_tick)
            return 0;
    return 1;
}

/* The places whose replay end from source s's readout covers event id e
 * (bit p: its first event routed around p is above e). */
static uint64_t ended(const struct sfc_dp_fo *f, uint16_t s, uint64_t e)
{
    uint64_t m = 0;

    for (unsigned p = 0; p < SFC_END_PLACES; p++)
        m |= (uint64_t)(f->end_from[s][p] > e) << p;
    return m;
}

/* Whether source s's readout (the sources the last replay end that
 * listed s listed too) sent a piece of e: one of those sources is in it. */
static int ro_sent(const struct sfc_dp_fo *f, const struct sfc_event *e, uint16_t s, uint16_t n)
{
    if (!f->end_ro[s])
        return 0;               /* no end named s yet: its readout unknown */
    for (uint16_t t = 0; t < n; t++)
        if (f->end_ro[t] == f->end_ro[s] && ebf_present_test(e->present, t))
            return 1;
    return 0;
}

/* Rule 1 on e; with lost, a missing source whose readout sent a piece of
 * e proves nothing (it did send e: that piece was lost on the way), and
 * when every missing source is such, SFC_PROOF_LOST. */
static enum sfc_replay_proof proof(const struct sfc_dp *dp, const struct sfc_event *e, int lost)
{
    uint64_t need = 0;
    uint16_t n = dp->c.n_sources < EBF_MAX_SOURCES ? dp->c.n_sources : EBF_MAX_SOURCES;
    int absent = 0;

    for (uint16_t s = 0; s < n; s++)
        if (ebf_present_test(e->present, s))
            need |= ended(&dp->fo, s, e->event_id);
    for (uint16_t s = 0; s < n; s++) {
        if (ebf_present_test(e->present, s) || (lost && ro_sent(&dp->fo, e, s, n)))
            continue;
        absent = 1;
        if (!need || (ended(&dp->fo, s, e->event_id) & need) != need)
            return SFC_PROOF_NONE;  /* no end covers it, or s's readout did not end past it */
    }
    return absent ? SFC_PROOF_DECIDED : SFC_PROOF_LOST;
}

enum sfc_replay_proof sfc_dp_replay_proven(const struct sfc_dp *dp, const struct sfc_event *e)
{
    return proof(dp, e, 1);
}

enum sfc_replay_verdict sfc_dp_replay_verdict(struct sfc_dp *dp, uint32_t slot, uint64_t now,
                                              int wait)
{
    const struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
    uint64_t since = sfc_evtab_cold(dp->tab, slot)->wait_tick;
    enum sfc_replay_proof p = sfc_dp_replay_proven(dp, e);

    if (p == SFC_PROOF_DECIDED)
        return SFC_REPLAY_DROP;         /* every missing readout replayed past it without it */
    if (p == SFC_PROOF_LOST) {          /* counted where rules 1 to 3 alone drop or keep it */
        dp->st.replay_unsound += proof(dp, e, 0) == SFC_PROOF_DECIDED ||
                                 !sfc_dp_replay_orphan(dp, e);
        return SFC_REPLAY_BUILD;
    }
    if (sfc_dp_replay_orphan(dp, e))
        return SFC_REPLAY_BUILD;
    if (!wait || (since && now - since >= dp->fo.wait_max_tsc))
        return SFC_REPLAY_CAP;
    return SFC_REPLAY_WAIT;
}

void sfc_dp_replay_partial(struct sfc_dp *dp, uint32_t slot)
{
    dp->st.replay_partial++;
    sfc_evtab_drop(dp->tab, slot);
}

/* The kept replayed events (waiting for a replay end) that the replay ends
 * taken so far prove decided by the dead place: dropped now. */
static void recheck(struct sfc_dp *dp)
{
    uint32_t slot = sfc_evtab_building_head(dp->tab);

    while (slot != SFC_NONE) {
        const struct sfc_event *e = sfc_evtab_event(dp->tab, slot);
        uint32_t next = e->next;

        if (e->replayed && sfc_evtab_cold(dp->tab, slot)->wait_tick &&
            sfc_dp_replay_proven(dp, e) == SFC_PROOF_DECIDED) {
            dp->st.replay_ended++;
            sfc_dp_replay_partial(dp, slot);
        }
        slot = next;
    }
}

/* Replay end rec taken: per source it speaks for, the highest first
 * routed-around id of its place and its readout (the end's sources);
 * the kept events it proves decided go. */
static void end_apply(struct sfc_dp *dp, const struct sfc_end_rec *rec)
{
    uint8_t ro = 0;             /* 1 + the end's lowest source: its readout's mark */

    for (unsigned s = 0; s < EBF_MAX_SOURCES; s++)
        if (rec->src[s / 64] >> (s % 64) & 1) {
            uint64_t *from = &dp->fo.end_from[s][rec->place];
            *from = rec->low > *from ? rec->low : *from;
            ro = ro ? ro : (uint8_t)(s + 1);
            dp->fo.end_ro[s] = ro;
        }
    recheck(dp);
}

/* Worker 0: rec to every other worker's ring (a replayed event of the
 * place may sit on any); a full ring loses it for that worker alone,
 * counted (replay.end_ring_full: its kept events wait for the cap). */
static void end_hand(struct sfc_dp *dp, struct sfc_end_rec *rec)
{
    for (uint16_t w = 1; w < dp->c.workers && w < SFC_WORKERS_MAX; w++)
        if (dp->c.end_ring[w] &&
            rte_ring_sp_enqueue_elem(dp->c.end_ring[w], rec, sizeof(*rec)) != 0)
            dp->st.replay_end_ring_full++;
}

void sfc_dp_replay_end(struct sfc_dp *dp, const struct ebf_release_hdr *h, const uint8_t *mac)
{
    struct sfc_end_rec rec = {.low = h->low, .place = h->place};

    if (h->place >= SFC_END_PLACES) {
        dp->st.replay_end_refused++;
        return;
    }
    for (unsigned i = 0; i < h->n_src; i++) {
        uint16_t s = h->src[i].source;
        if (s >= dp->c.n_sources || s >= EBF_MAX_SOURCES ||
            sfc_guard_source(&dp->guard, s, mac) != SFC_DROP_MAX) {
            dp->st.replay_end_refused++;    /* not that readout's source: taken for none */
            return;
        }
        rec.src[s / 64] |= UINT64_C(1) << (s % 64);
    }
    dp->st.replay_ends++;
    end_apply(dp, &rec);
    if (dp->c.worker == 0)
        end_hand(dp, &rec);
}

unsigned sfc_dp_ends_take(struct sfc_dp *dp)
{
    struct sfc_end_rec rec[8];
    struct rte_ring *r = dp->c.worker ? dp->c.end_ring[dp->c.worker] : NULL;
    unsigned n = r ? rte_ring_sc_dequeue_burst_elem(r, rec, sizeof(rec[0]), 8, NULL) : 0;

    for (unsigned i = 0; i < n; i++)
        end_apply(dp, &rec[i]);
    return n;
}
