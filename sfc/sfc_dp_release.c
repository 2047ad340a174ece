/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_dp_release.c - the loop's failover steps: every --release-ms the watermark and one release frame (type 5) to each readout heard; replayed pieces; the fence of a frozen SFC and its join (docs/protocol.md 13). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "ebf_mix.h"
#include "ebf_util.h"
#include "sfc_dp.h"
#include "sfc_dp_private.h"
#include "sfc_lowmark.h"

extern int sfc_logtype;          /* sfc_dp.c's */
#define SFC_LOG(level, ...) rte_log(RTE_LOG_##level, sfc_logtype, "sfc: " __VA_ARGS__)

/* Sends one release frame h to readout ro of the guard on the port it was
 * last heard on. 1 when the port took it. */
/* Whether the port's link is up (a memif link connected): a round's frame
 * to a readout whose link is down is not a refusal (release.link_down). */
static int port_up(uint16_t port)
{
    struct rte_eth_link link;

    return rte_eth_link_get_nowait(port, &link) != 0 || link.link_status;
}

static int send_one(struct sfc_dp *dp, uint16_t ro, const struct ebf_release_hdr *h)
{
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    size_t len = ebf_release_len(h->n_src);
    struct rte_mbuf *m = rte_pktmbuf_alloc(dp->c.hdr_pool);
    uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len)) : NULL;

    if (!p) {
        rte_pktmbuf_free(m);
        return 0;
    }
    memcpy(a.src_mac, dp->rx_mac, 6);
    memcpy(a.dst_mac, dp->guard.ro_mac[ro], 6);
    ebf_encap_write(p, &a, len);
    ebf_release_write(p + EBF_ETH_HLEN, h);
    if (rte_eth_tx_burst(dp->guard.ro_port[ro], 0, &m, 1) != 1) {
        rte_pktmbuf_free(m);
        return 0;
    }
    return 1;
}

/* Position of the first entry of the fence list whose id is >= id. */
static uint32_t fenced_pos(const struct sfc_dp_fo *f, uint64_t id)
{
    uint32_t lo = 0, hi = f->n_fenced;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((f->fenced[mid] & SFC_FENCED_ID) < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sfc_dp_fence_dup(struct sfc_dp *dp, uint64_t id)
{
    struct sfc_dp_fo *f = &dp->fo;
    uint32_t s = sfc_evtab_lookup(dp->tab, id);

    if (s != SFC_NONE) {
        if (sfc_evtab_event(dp->tab, s)->state == SFC_EV_SENT &&
            sfc_evtab_cold(dp->tab, s)->fenced) {
            sfc_evtab_cold(dp->tab, s)->fenced = 0;
            dp->st.replay_fence_dup++;
        }
        return;
    }
    uint32_t i = f->n_fenced ? fenced_pos(f, id) : 0;
    if (i == f->n_fenced || (f->fenced[i] & SFC_FENCED_ID) != id ||
        (f->fenced[i] & SFC_FENCED_OUT))
        return;
    f->fenced[i] |= SFC_FENCED_OUT;
    ebf_idset_remove(&dp->st.ledger_fence_acked, id);
    dp->st.fence_acked_accept -= f->fenced[i] >> 63;
    dp->st.fence_acked_digest -= ebf_mix64(id);
    dp->st.replay_fence_dup++;
}

/* Frames waiting on a readout port from before the pause: discarded. */
static uint64_t discard_port(uint16_t port)
{
    struct rte_mbuf *m[SFC_BURST_MAX];
    uint64_t n = 0;
    uint16_t k;

    while ((k = rte_eth_rx_burst(port, 0, m, SFC_BURST_MAX)) > 0) {
        rte_pktmbuf_free_bulk(m, k);
        n += k;
    }
    return n;
}

/* Id (accepted or not) into ledger.fence_acked, and at the end of the
 * fence list when it has room (fence_acks sorts it; a full list only
 * loses fence_dup's correction of a replay that comes back). */
static void fence_record(struct sfc_dp *dp, uint64_t id, int accept)
{
    struct sfc_dp_fo *f = &dp->fo;

    ebf_idset_add(&dp->st.ledger_fence_acked, id);
    dp->st.fence_acked_accept += accept != 0;
    dp->st.fence_acked_digest += ebf_mix64(id);
    if (f->n_fenced < SFC_FENCED_MAX)
        f->fenced[f->n_fenced++] = id | (uint64_t)(accept != 0) << 63;
}

static int cmp_fenced(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a & SFC_FENCED_ID, y = *(const uint64_t *)b & SFC_FENCED_ID;

    return x < y ? -1 : x > y;
}

/* The acks below floor leave the recent list (round_mark follows the
 * ones taken before the last round). */
static void drop_below(struct sfc_dp_fo *f, uint64_t floor)
{
    uint32_t n = 0, mark = 0;

    for (uint32_t i = 0; i < f->n_recent; i++)
        if ((f->recent[i] & ~(UINT64_C(1) << 63)) >= floor) {
            mark += i < f->round_mark;
            f->recent[n++] = f->recent[i];
        }
    f->n_recent = n;
    f->round_mark = mark;
    f->pruned_below = floor > f->pruned_below ? floor : f->pruned_below;
}

void sfc_dp_fence_ack(struct sfc_dp *dp, uint64_t id, int accept, int fenced)
{
    struct sfc_dp_fo *f = &dp->fo;

    if (fenced) {
        uint32_t n = f->n_fenced;
        fence_record(dp, id, accept);
        /* into its place: the list stays sorted for fence_dup */
        for (uint32_t i = n; i < f->n_fenced && i > 0 &&
                             (f->fenced[i - 1] & SFC_FENCED_ID) > id; i--) {
            uint64_t v = f->fenced[i];
            f->fenced[i] = f->fenced[i - 1];
            f->fenced[i - 1] = v;
        }
        return;
    }
    /* Full: the lag's older acks go first (a notice's X may then find
     * them gone: fence_overflow), so that a pause's record stays whole. */
    if (f->n_recent == SFC_RECENT_ACKS)
        drop_below(f, dp->st.release_low);
    if (f->n_recent < SFC_RECENT_ACKS)
        f->recent[f->n_recent++] = id | (uint64_t)(accept != 0) << 63;
    else
        f->recent_overflow = 1;
}

/* This round's low joins the last SFC_PRUNE_LAG; the acks below the
 * lowest of them leave the list (every event below it was decided and a
 * readout heard it released, also one that holds this SFC dead since a
 * round that old); an overflow ends once the list is empty. */
static void prune_recent(struct sfc_dp_fo *f, uint64_t low)
{
    uint64_t floor = low;

    f->lows[f->n_lows++ % SFC_PRUNE_LAG] = low;
    for (uint32_t i = 0; i < SFC_PRUNE_LAG && i < f->n_lows; i++)
        floor = f->lows[i] < floor ? f->lows[i] : floor;
    f->pruned_below = 0;
    drop_below(f, floor);
    f->round_mark = f->n_recent;        /* what comes after was taken after this round */
    f->recent_overflow &= f->n_recent != 0;
}

/* What a fence leaves to be decided twice (docs/protocol.md 13.6): the
 * acks at or above x (the highest low a readout accepted: the readouts
 * replay the events from there) and those taken since the last round go
 * into ledger.fence_acked now, and the events at a node are marked so that
 * their acks go there too. An x below what the list still holds is a
 * record that may lack acks (overflow). */
static void fence_acks(struct sfc_dp *dp, uint64_t x)
{
    struct sfc_dp_fo *f = &dp->fo;

    f->n_fenced = 0;            /* a new fence: the last one's replays came */
    for (uint32_t i = 0; i < f->n_recent; i++)
        if ((f->recent[i] & ~(UINT64_C(1) << 63)) >= x || i >= f->round_mark)
            fence_record(dp, f->recent[i] & ~(UINT64_C(1) << 63), (int)(f->recent[i] >> 63));
    qsort(f->fenced, f->n_fenced, sizeof(f->fenced[0]), cmp_fenced);
    dp->st.fence_overflow += f->recent_overflow || x < f->pruned_below;
    f->n_recent = 0;
    f->round_mark = 0;
    f->recent_overflow = 0;
    for (uint32_t s = 0; s < dp->c.capacity; s++)
        if (sfc_evtab_event(dp->tab, s)->state == SFC_EV_SENT)
            sfc_evtab_cold(dp->tab, s)->fenced = 1;
}

/* The low of the moment: the lowest id held, each bound source's next
 * id (sfc_release_low); a round announces it, a fence holds it. */
static uint64_t held_low(const struct sfc_dp *dp)
{
    return sfc_release_low(&dp->guard, sfc_lowmark_low(dp->low), dp->st.next_by_source,
                           dp->c.n_sources);
}

/* The fence itself (see sfc_dp_fence_check), its record from x (a pause:
 * the last round's low; notices: sfc_notice_due's X); the readout ports'
 * frames from before a pause are discarded. Events already sent to a node
 * stay: the node decides them and its ack counts (the readouts' replays
 * of them are the ledger's redecided, ledger.fence_acked). The low of
 * the moment, before the drop, becomes the fence's hold (fence_hold; the
 * lower of two while an earlier one lasts). Returns the join id announced. */
static uint64_t fence(struct sfc_dp *dp, uint64_t now, uint64_t x, int pause)
{
    struct sfc_dp_fo *f = &dp->fo;
    double hz = (double)rte_get_tsc_hz(), rate = 0;
    uint64_t low0 = held_low(dp);

    for (uint32_t s = 0; s < dp->c.capacity; s++) {
        uint8_t state = sfc_evtab_event(dp->tab, s)->state;
        if (state != SFC_EV_BUILDING && state != SFC_EV_READY)
            continue;
        sfc_evtab_drop_as(dp->tab, s, 0);      /* its replays build it anew */
        dp->st.replay_fenced++;
    }
    fence_acks(dp, x);
    for (uint16_t i = 0; pause && i <= dp->c.n_more_rx; i++)
        dp->st.fence_frames += discard_port(i ? dp->c.more_rx[i - 1] : dp->c.rx_port);
    sfc_release_new_epoch(&dp->rel, (uint16_t)(ebf_now_ns() / 1000000000ull));
    memset(&f->notices, 0, sizeof(f->notices));     /* of the old epoch */
    if (f->heard_tsc > f->tsc0)
        rate = (double)(f->heard_max - f->id0) * hz / (double)(f->heard_tsc - f->tsc0);
    uint64_t j = sfc_release_join_id(f->heard_max, rate, (double)(now - f->heard_tsc) / hz, 0.2);
    sfc_release_announce(&dp->rel, EBF_RELF_JOIN, j, tsc_to_ns(dp, now) + SFC_RELEASE_JOIN_NS);
    f->hold_low = f->hold_on && f->hold_low < low0 ? f->hold_low : low0;
    f->hold_join = j;
    f->hold_tsc = now;
    f->hold_on = 1;
    dp->rel.next_ns = 0;                /* a round at once: the readouts hear the epoch */
    dp->st.fences++;
    dp->st.release_epoch = dp->rel.epoch;
    return j;
}

/*
 * A round's low under the last fence's hold (docs/protocol.md 13.4, rule
 * 3): at most the SFC's low at the fence, which is below every event the
 * fence dropped undecided and every frame it discarded, until each bound
 * source's readout is past its replay of what it sent before the fence:
 * a fragment of that source at or above the fence's join id came (a new
 * event: every replayed one is below it), or a fragment after a replayed
 * piece of it (a readout replays before any new event, on the same FIFO
 * link, so its replay here is all in the table, held by the lowmark).
 * Then the hold ends. Counted per round it lowered (fence_held).
 */
static uint64_t fence_hold(struct sfc_dp *dp, uint64_t low)
{
    struct sfc_dp_fo *f = &dp->fo;

    if (!f->hold_on)
        return low;
    for (uint16_t s = 0; s < dp->c.n_sources && s < EBF_MAX_SOURCES; s++) {
        if (!dp->guard.bind[s].bound || dp->st.next_by_source[s] > f->hold_join ||
            (f->replay_src_tsc[s] >= f->hold_tsc && f->src_tsc[s] > f->replay_src_tsc[s]))
            continue;
        dp->st.fence_held += low > f->hold_low;
        return low < f->hold_low ? low : f->hold_low;
    }
    f->hold_on = 0;
    return low;
}

/* The fault SFC_STALL (tests): the loop stops for stall_ms once, between
 * a round's low and its first frame, where a SIGSTOP may stop it. */
static void stall(struct sfc_dp *dp)
{
    uint64_t ms = dp->stall_ms;
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};

    dp->stall_ms = 0;
    dp->st.release_stalls++;
    nanosleep(&ts, NULL);
}

/* Bit r: guard readout r (below 64) that this SFC sends release frames to. */
static uint64_t known_readouts(const struct sfc_dp *dp)
{
    uint64_t k = 0;

    for (uint16_t r = 0; r < dp->guard.n_ro && r < 64; r++)
        if (dp->guard.ro_port[r] != SFC_NO_PORT)
            k |= UINT64_C(1) << r;
    return k;
}

void sfc_dp_notice(struct sfc_dp *dp, const uint8_t *b, size_t len, const uint8_t *mac,
                   uint64_t now)
{
    struct ebf_release_hdr h;
    enum ebf_reason r = ebf_release_parse(b, len, &h);
    int ro = -1;

    if (r == EBF_R_OK && h.flags == EBF_RELF_END) {
        sfc_dp_replay_end(dp, &h, mac);     /* a readout's replay end (13.4.1): taken like
                                             * a replayed piece, failover on or not */
        return;
    }
    r = r == EBF_R_OK && !dp->low ? EBF_R_UNKNOWN_TYPE : r;
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return;
    }
    for (uint16_t i = 0; i < dp->guard.n_ro && ro < 0; i++)
        if (memcmp(dp->guard.ro_mac[i], mac, 6) == 0)
            ro = i;
    if (sfc_notice_take(&dp->fo.notices, &h, dp->rel.place, dp->rel.epoch, ro,
                        tsc_to_ns(dp, now)))
        dp->st.release_notices++;
}

/* Readouts' notices due (sfc_notice_due): the fence. */
static void notice_check(struct sfc_dp *dp, uint64_t now)
{
    uint64_t x;

    if (!sfc_notice_due(&dp->fo.notices, known_readouts(dp), dp->fo.told_low,
                        tsc_to_ns(dp, now), &x))
        return;
    uint64_t j = fence(dp, now, x, 0);
    dp->st.fence_notices++;
    SFC_LOG(WARNING, "readouts hold this SFC dead although it lives: fenced (%" PRIu64
            " events dropped, acks from event %" PRIu64 " on decided twice), epoch %u, join at "
            "event %" PRIu64 "\n", dp->st.replay_fenced, x, dp->rel.epoch, j);
}

int sfc_dp_fence_check(struct sfc_dp *dp, uint64_t now)
{
    struct sfc_dp_fo *f = &dp->fo;
    uint64_t last = f->last_pass;

    f->last_pass = now;
    if (!f->fence_tsc) {
        /* the readouts hear silence for the gap plus at most a period
         * (the round due at the stop is sent on waking): fence when that
         * may reach the bound, with a period to spare */
        uint64_t dead = dp->c.sfc_dead_ms ? dp->c.sfc_dead_ms * 1000000ull : EBF_RELEASE_DEAD_NS;
        uint64_t ns = dead > 2 * dp->rel.period_ns ? dead - 2 * dp->rel.period_ns : dead / 2;
        f->fence_tsc = (uint64_t)((double)ns * (double)rte_get_tsc_hz() / 1e9);
    }
    if (dp->c.workers > 1 && dp->c.worker != 0)
        return 0;
    if (last && now - last > f->fence_tsc) {
        uint64_t j = fence(dp, now, f->told_low, 1);
        SFC_LOG(WARNING, "the poll loop stopped for %.1f ms: fenced (%" PRIu64 " events "
                "dropped), epoch %u, join at event %" PRIu64 "\n",
                (double)(now - last) * 1e3 / (double)rte_get_tsc_hz(), dp->st.replay_fenced,
                dp->rel.epoch, j);
        return 1;
    }
    if (f->notices.since_ns)
        notice_check(dp, now);
    return 0;
}

/* The highest id heard (1 + it) and when it grew: the join id's rate. */
static uint64_t note_heard(struct sfc_dp *dp, uint64_t now)
{
    struct sfc_dp_fo *f = &dp->fo;
    uint64_t max = 0;

    for (uint16_t s = 0; s < dp->c.n_sources && s < EBF_MAX_SOURCES; s++)
        if (dp->st.next_by_source[s] > max)
            max = dp->st.next_by_source[s];
    if (max > f->heard_max) {
        if (!f->tsc0) {
            f->id0 = max;
            f->tsc0 = now;
        }
        f->heard_max = max;
        f->heard_tsc = now;
    }
    return max;
}

/*
 * Off (0 work) unless release_ms was set and this is the data plane that
 * talks to the readouts (one data plane, or worker 0; another worker
 * takes the replay ends worker 0 handed it instead). When a round is
 * due: low = min(lowest id held, each bound source's next id); a frame to
 * each readout the guard has heard on a port (as throttle frames), with
 * its sources' next sequence numbers (a first incarnation: to readouts it
 * heard; a restarted one, which the readouts route around until its join,
 * to every readout whose port it knows); none to a readout whose link is down
 * (release.link_down: a memif link not connected yet, or its peer dead).
 * One frame per readout per round; a refused frame is counted and the
 * next round's supersedes it. A round first looks at the pass gap again
 * (sfc_dp_fence_check): a stop after the pass began fences before it.
 */
unsigned sfc_dp_release(struct sfc_dp *dp, uint64_t now)
{
    struct ebf_release_hdr h;
    uint64_t now_ns = tsc_to_ns(dp, now), at;

    if (dp->c.worker)
        return sfc_dp_ends_take(dp);    /* worker 0 sends the rounds, the others take ends */
    if (!dp->low || !sfc_release_due(&dp->rel, now_ns))
        return 0;
    /* A stop within this pass, after its fence check (the acks it took
     * since are of events the readouts replay from the last low): the
     * fence comes first, from that low, not from this round's */
    sfc_dp_fence_check(dp, rte_get_tsc_cycles());
    if (now_ns < dp->mute_until_ns) {
        dp->st.release_muted++;         /* the fault: this round is lost */
        return 1;
    }
    if (dp->rel.rounds == 1 && dp->c.join_at)  /* restarted: back from join_at */
        sfc_release_announce(&dp->rel, EBF_RELF_JOIN, dp->c.join_at, now_ns + SFC_RELEASE_JOIN_NS);
    note_heard(dp, now);
    uint64_t low = fence_hold(dp, held_low(dp));
    uint8_t flags = sfc_release_flags(&dp->rel, now_ns, &at);
    dp->st.release_low = low;
    dp->st.release_epoch = dp->rel.epoch;
    prune_recent(&dp->fo, low);
    if (dp->stall_ms)
        stall(dp);              /* the fault: a stop here, as a SIGSTOP may */
    int told = 0;
    for (uint16_t ro = 0; ro < dp->guard.n_ro; ro++) {
        if (dp->guard.ro_port[ro] == SFC_NO_PORT)
            continue;                   /* not heard yet: nothing of it held */
        if (!dp->join_at && !dp->c.join_at && !sfc_guard_heard(&dp->guard, ro, dp->c.n_sources))
            continue;                   /* a first incarnation: its readouts come to it */
        if (!port_up(dp->guard.ro_port[ro])) {
            dp->st.release_link_down++;
            continue;
        }
        /* A stop since the round's first look and before any readout
         * took it: they hold this SFC dead at the last low they took, and
         * this round, of the old epoch, would tell them nothing; the
         * fence comes first, from that low (its record: every ack above) */
        if (!told && sfc_dp_fence_check(dp, rte_get_tsc_cycles()))
            return 1;
        sfc_release_make(&dp->rel, &dp->guard, ro, dp->c.n_sources, low, flags, at, &h);
        if (send_one(dp, ro, &h)) {
            dp->st.release_frames++;
            dp->fo.told_low = low;
            told = 1;
        } else {
            dp->st.release_tx_fail++;
        }
    }
    return 1;
}

/* The join id the SFC would announce now: the highest id it heard, the
 * ids made since at the rate it heard them, and the margin (13.5). */
static uint64_t join_id_now(const struct sfc_dp *dp, uint64_t now)
{
    const struct sfc_dp_fo *f = &dp->fo;
    double hz = (double)rte_get_tsc_hz(), rate = 0;

    if (f->heard_tsc > f->tsc0)
        rate = (double)(f->heard_max - f->id0) * hz / (double)(f->heard_tsc - f->tsc0);
    return sfc_release_join_id(f->heard_max, rate, (double)(now - f->heard_tsc) / hz, 0.2);
}

int sfc_dp_leave(struct sfc_dp *dp, enum sfc_leave how, uint64_t at, char *err, size_t len)
{
    uint64_t now = rte_get_tsc_cycles();

    if (!dp->low) {
        snprintf(err, len, "failover is off (no --release-ms): the readouts route by e %% n "
                 "and cannot move this SFC's share");
        return -ENOTSUP;
    }
    if (how == SFC_MUTE || how == SFC_STALL) {
        if (!at) {
            snprintf(err, len, "%s: give the milliseconds", how == SFC_MUTE ? "mute" : "stall");
            return -EINVAL;
        }
        if (how == SFC_STALL)
            dp->stall_ms = at;
        else
            dp->mute_until_ns = tsc_to_ns(dp, now) + at * 1000000ull;
        return 0;
    }
    if (dp->c.workers > 1 && dp->c.worker != 0) {
        snprintf(err, len, "only worker 0 announces joins and leaves");
        return -EINVAL;
    }
    uint64_t drained = dp->rel.flags == EBF_RELF_LEAVE ? dp->rel.at : 0;
    if (how == SFC_LEAVE && drained) {
        snprintf(err, len, "already drained from event %" PRIu64 " on", drained);
        return -EALREADY;
    }
    if (how == SFC_UNDRAIN && !drained) {
        snprintf(err, len, "not drained (undrain gives back the share of a drained SFC)");
        return -EALREADY;
    }
    if (!at)
        at = join_id_now(dp, now);
    /* drained with its own join still ahead (a restarted SFC has heard
     * nothing of its new share yet): the leave at or after that join */
    uint64_t joins = dp->join_at > dp->c.join_at ? dp->join_at : dp->c.join_at;
    if (how == SFC_LEAVE && at < joins)
        at = joins;
    if (how == SFC_LEAVE)
        sfc_release_leave(&dp->rel, at);
    else
        sfc_release_announce(&dp->rel, EBF_RELF_JOIN, at,
                             tsc_to_ns(dp, now) + SFC_RELEASE_JOIN_NS);
    dp->join_at = how == SFC_LEAVE ? dp->join_at : at;
    dp->st.release_leaves += how == SFC_LEAVE;
    dp->st.release_joins += how != SFC_LEAVE;
    return 0;
}
