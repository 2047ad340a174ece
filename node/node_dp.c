/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp.c - trigger node poll loop: reassemble, verify every piece, decide, ack. */
#include "node_dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ebf_args.h"
#include "ebf_kv.h"
#include "ebf_mix.h"
#include "ebf_util.h"
#include "node_dp_private.h"

#define BURST_MAX NODE_BURST_MAX
_Static_assert(FRAME_MAX >= EBF_MTU_MAX + EBF_L2_MAX_HLEN, "scratch below the largest frame");
#define DONE_WINDOW 65536

static const uint8_t verify_bit[] = {
#define NODE_VERIFY_BIT(n, s, b) b,
    NODE_FOREACH_VERIFY(NODE_VERIFY_BIT)
#undef NODE_VERIFY_BIT
};


/* No event held: every slot free (slot 0 handed out first), the index empty. */
static void events_reset(struct node_dp *dp)
{
    memset(dp->ev, 0, sizeof(*dp->ev) * dp->c.credits);
    for (uint32_t i = 0; i <= dp->idx_mask; i++)
        dp->idx[i].slot = NODE_EV_NONE;
    for (uint16_t i = 0; i < dp->c.credits; i++)
        dp->free_ev[i] = (uint16_t)(dp->c.credits - 1 - i);
    dp->n_free_ev = dp->c.credits;
}

uint16_t node_max_acks(uint16_t mtu)
{
    size_t fit = ((mtu ? mtu : 1500) - ebf_credit_len(0)) / EBF_ACK_LEN;

    return (uint16_t)(fit < EBF_MAX_ACKS ? fit : EBF_MAX_ACKS);
}

struct node_dp *node_dp_create(const struct node_conf *conf)
{
    struct node_dp *dp = rte_zmalloc("node_dp", sizeof(*dp), RTE_CACHE_LINE_SIZE);

    if (!dp || conf->credits == 0) {
        rte_free(dp);
        errno = dp ? EINVAL : ENOMEM;
        return NULL;
    }
    dp->c = *conf;
    if (dp->c.burst == 0 || dp->c.burst > BURST_MAX)
        dp->c.burst = 32;
    dp->max_acks = node_max_acks(conf->mtu);
    if (dp->c.ack_batch == 0 || dp->c.ack_batch > EBF_MAX_ACKS)
        dp->c.ack_batch = 16;
    if (dp->c.ack_batch > dp->max_acks)
        dp->c.ack_batch = dp->max_acks;
    dp->ev = rte_zmalloc("node_ev", sizeof(*dp->ev) * conf->credits, RTE_CACHE_LINE_SIZE);
    dp->done = rte_zmalloc("node_done", sizeof(uint64_t) * DONE_WINDOW, 0);
    dp->done_ack = rte_zmalloc("node_done_ack", sizeof(struct ebf_ack) * DONE_WINDOW, 0);
    dp->idx_mask = 1;
    while (dp->idx_mask + 1 < 2u * conf->credits)
        dp->idx_mask = (dp->idx_mask << 1) | 1;
    dp->idx = rte_malloc("node_idx", sizeof(*dp->idx) * (dp->idx_mask + 1), RTE_CACHE_LINE_SIZE);
    dp->free_ev = rte_malloc("node_free_ev", sizeof(uint16_t) * conf->credits, 0);
    dp->ack_cap = (uint16_t)(conf->credits + ACK_QUEUE_EXTRA);
    dp->ack = rte_malloc("node_acks", sizeof(*dp->ack) * dp->ack_cap, 0);
    if (!dp->ev || !dp->done || !dp->done_ack || !dp->idx || !dp->free_ev || !dp->ack) {
        node_dp_destroy(dp);
        errno = ENOMEM;
        return NULL;
    }
    int rc = node_dp_store_init(dp);
    if (rc) {
        node_dp_destroy(dp);
        errno = -rc;
        return NULL;
    }
    rc = node_dp_trigger_start(dp);
    if (rc) {
        dp->tp = NULL;
        node_dp_destroy(dp);
        errno = -rc;
        return NULL;
    }
    rc = node_dp_workers_start(dp);
    if (rc) {
        node_dp_destroy(dp);
        errno = -rc;
        return NULL;
    }
    events_reset(dp);
    dp->credits_owed = conf->credits;
    dp->hb_tsc = (uint64_t)(conf->heartbeat_ms * 1e-3 * (double)rte_get_tsc_hz());
    ebf_hist_init(&dp->st.e2e_ns);
    ebf_idset_init(&dp->st.acked_ids);
    return dp;
}

void node_dp_destroy(struct node_dp *dp)
{
    if (!dp)
        return;
    node_dp_workers_stop(dp);
    node_dp_store_free(dp);
    node_dp_trigger_stop(dp);
    rte_free(dp->ev);
    rte_free(dp->idx);
    rte_free(dp->free_ev);
    rte_free(dp->ack);
    rte_free(dp->done);
    rte_free(dp->done_ack);
    rte_free(dp);
}

/* --- Credit frames --------------------------------------------------------- */

/* Send one credit frame with the oldest pending acks (up to max_acks), the
 * credit each returns, and extra credits. Returns 1 when the port took it,
 * 0 when it must be tried again (the port's refusal counted once until a
 * frame goes). */
static int send_credit(struct node_dp *dp, uint16_t extra)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(dp->c.pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    uint16_t k = dp->n_ack < dp->max_acks ? dp->n_ack : dp->max_acks;
    uint16_t credits = (uint16_t)(extra + k);

    if (!m)
        return 0;
    size_t len = ebf_credit_len(k);
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len));
    if (!p) {                    /* the pool's room is below the MTU's frame */
        rte_pktmbuf_free(m);
        dp->st.tx_no_room++;
        return 0;
    }
    memcpy(a.dst_mac, dp->c.sfc_mac, 6);
    memcpy(a.src_mac, dp->c.mac, 6);
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {
        .node_id = dp->c.node_id, .credits = credits, .n_acks = k,
        .epoch = dp->c.epoch, .seq = dp->seq,
    };
    ebf_credit_write(p + EBF_ETH_HLEN, &h, dp->ack);
    if (rte_eth_tx_burst(dp->c.port, 0, &m, 1) != 1) {
        rte_pktmbuf_free(m);
        dp->st.tx_refused += !dp->refusing;
        dp->refusing = 1;
        return 0;
    }
    dp->refusing = 0;
    dp->seq++;
    dp->st.credit_frames++;
    dp->st.acks_sent += k;
    dp->st.credits_granted += credits;
    if (credits == 0 && k == 0)
        dp->st.heartbeats++;
    dp->n_ack = (uint16_t)(dp->n_ack - k);
    memmove(dp->ack, dp->ack + k, dp->n_ack * sizeof(dp->ack[0]));
    dp->last_tx_tsc = rte_get_tsc_cycles();
    return 1;
}

/* Each ack returns the credit of its event. */
static unsigned flush_acks(struct node_dp *dp)
{
    if (dp->n_ack == 0)
        return 0;
    return (unsigned)send_credit(dp, 0);
}

/* --- Events ---------------------------------------------------------------- */

static inline uint32_t idx_home(const struct node_dp *dp, uint64_t id)
{
    return (uint32_t)ebf_mix64(id) & dp->idx_mask;
}

/* The event of h by its id (an index probe, not a scan of the slots), or
 * a new one in a free slot; NULL when every slot is taken. */
static struct node_ev *find_event(struct node_dp *dp, const struct ebf_event_hdr *h)
{
    uint32_t i = idx_home(dp, h->event_id);

    for (; dp->idx[i].slot != NODE_EV_NONE; i = (i + 1) & dp->idx_mask)
        if (dp->idx[i].id == h->event_id)
            return &dp->ev[dp->idx[i].slot];
    if (dp->n_free_ev == 0)
        return NULL;
    uint16_t slot = dp->free_ev[--dp->n_free_ev];
    struct node_ev *free_ev = &dp->ev[slot];
    dp->idx[i] = (struct node_idx){.id = h->event_id, .slot = slot};
    memset(free_ev, 0, offsetof(struct node_ev, src_len));
    memset(free_ev->src_len, 0, sizeof(free_ev->src_len[0]) * h->n_sources);
    memset(free_ev->src_got, 0, sizeof(free_ev->src_got[0]) * h->n_sources);
    free_ev->used = 1;
    free_ev->id = h->event_id;
    free_ev->n_sources = h->n_sources;
    free_ev->flags = h->flags;
    free_ev->frame_count = h->frame_count;
    free_ev->present[0] = h->present[0];
    free_ev->present[1] = h->present[1];
    free_ev->bytes = h->event_bytes;
    free_ev->first_tx_ns = UINT64_MAX;
    return free_ev;
}

/* The event is done: out of the index (later entries of its probe run
 * shifted back), its slot free. */
static void event_free(struct node_dp *dp, struct node_ev *e)
{
    uint32_t i = idx_home(dp, e->id), j;

    while (dp->idx[i].id != e->id || dp->idx[i].slot == NODE_EV_NONE)
        i = (i + 1) & dp->idx_mask;
    for (j = i;;) {
        j = (j + 1) & dp->idx_mask;
        if (dp->idx[j].slot == NODE_EV_NONE)
            break;
        uint32_t k = idx_home(dp, dp->idx[j].id);
        int stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            dp->idx[i] = dp->idx[j];
            i = j;
        }
    }
    dp->idx[i].slot = NODE_EV_NONE;
    e->used = 0;
    dp->free_ev[dp->n_free_ev++] = (uint16_t)(e - dp->ev);
}

static void flag(struct node_ev *e, enum node_verify v)
{
    e->status |= verify_bit[v];
}

/* Verify the pieces of one event frame (len bytes after the event header);
 * when the frame is held (the plug-in reads payload), note where each
 * piece's payload lies in it (base: the frame's first byte as read). */
static void verify_pieces(struct node_dp *dp, struct node_ev *e, const uint8_t *p,
                          size_t len, uint16_t n_pieces, const struct rte_mbuf *held,
                          const uint8_t *base)
{
    for (uint16_t i = 0; i < n_pieces; i++) {
        struct ebf_frag_hdr h;
        size_t used;
        int pattern_bad = 0;
        enum ebf_reason r = ebf_frag_parse(p, len, e->n_sources, 0, &h, &used);
        if (r == EBF_R_OK)
            r = ebf_frag_verify(p, &h, &pattern_bad);   /* CRC and pattern, one pass */
        if (r == EBF_R_BAD_CHECKSUM) {
            /* Lengths and source were checked before the CRC: the piece can
             * be stepped over, its bytes are just not to be trusted. */
            dp->st.piece_reject[r]++;
            flag(e, NODE_V_BAD_CRC);
            used = EBF_FRAG_HLEN + (size_t)h.piece_len;
        } else if (r != EBF_R_OK) {
            dp->st.piece_reject[r]++;
            flag(e, NODE_V_BAD_SOURCES);
            return;             /* the rest of the frame cannot be located */
        } else if (pattern_bad) {
            flag(e, NODE_V_BAD_PATTERN);
        }
        if (h.event_id != e->id)
            flag(e, NODE_V_BAD_EVENT_ID);
        if (!ebf_present_test(e->present, h.source) ||
            (e->src_got[h.source] && e->src_len[h.source] != h.frag_len))
            flag(e, NODE_V_BAD_SOURCES);
        if (held)
            node_view_add(&dp->v, (uint16_t)(e - dp->ev), held,
                          (uint32_t)(p + EBF_FRAG_HLEN - base), h.piece_len, h.source, h.offset,
                          h.flags);
        e->src_len[h.source] = h.frag_len;
        e->src_got[h.source] += h.piece_len;
        e->got_bytes += h.piece_len;
        if (h.tx_ns < e->first_tx_ns)
            e->first_tx_ns = h.tx_ns;
        p += used;
        len -= used;
    }
}

static void queue_ack(struct node_dp *dp, const struct ebf_ack *a);

/* e is decided and, when accepted with storage on, stored or lost at
 * storage: remember the decision, free the slot, queue the ack. */
static void complete_event(struct node_dp *dp, struct node_ev *e, int accept)
{
    struct ebf_ack a = {
        .event_id = e->id, .decision = accept ? EBF_DEC_ACCEPT : EBF_DEC_REJECT,
        .status = e->status,
    };
    dp->done[e->id % DONE_WINDOW] = e->id + 1;
    dp->done_ack[e->id % DONE_WINDOW] = a;
    node_dp_release(dp, e);
    event_free(dp, e);
    e->waiting = 0;
    queue_ack(dp, &a);
}

static void complete_accepted(struct node_dp *dp, struct node_ev *e)
{
    complete_event(dp, e, 1);
}

/* e is decided (outcome: a decision word): count it, store an accepted
 * event and queue the ack (an event waiting for storage keeps its slot, so
 * its credit stays with the node). */
static void event_decided(struct node_dp *dp, struct node_ev *e, uint32_t outcome)
{
    uint16_t stream = 0;
    int accept = node_dp_decided(dp, outcome, &stream);
    uint64_t now = ebf_now_ns();
    if (e->first_tx_ns != UINT64_MAX && now > e->first_tx_ns)
        ebf_hist_add(&dp->st.e2e_ns, now - e->first_tx_ns);
    dp->st.events++;
    dp->st.accepted += accept;
    dp->st.rejected += !accept;
    dp->st.incomplete += (e->flags & EBF_EVF_INCOMPLETE) != 0;
    dp->st.payload_bytes += e->got_bytes;
    dp->st.decided_digest += ebf_mix64(e->id);
    for (unsigned v = 0; v < NODE_V_MAX; v++)
        dp->st.verify[v] += (e->status & verify_bit[v]) != 0;
    dp->st.events_bad += e->status != 0;
    e->stream = stream;
    if (accept && dp->store && !node_dp_store_event(dp, e))
        return;
    complete_event(dp, e, accept);
}

/* Every frame of e is in: check the source set, then decide here or hand
 * e to a trigger worker (its decision comes back through
 * node_dp_workers_poll). */
static void finish_event(struct node_dp *dp, struct node_ev *e)
{
    for (unsigned s = 0; s < e->n_sources; s++) {
        int present = ebf_present_test(e->present, s);
        if (present ? e->src_got[s] != e->src_len[s] || e->src_len[s] == 0 : e->src_got[s] != 0)
            flag(e, NODE_V_BAD_SOURCES);
    }
    if (e->got_bytes != e->bytes)
        flag(e, NODE_V_BAD_SOURCES);
    if (dp->w)
        node_dp_workers_give(dp, e);
    else
        event_decided(dp, e, node_dp_decide_in(dp, e, &dp->dx));
}

/* Queue an ack (and the credit it returns); flush a full batch. Every ack
 * goes into the ledger's record: the SFC sees each exactly once. There is
 * room: node_dp_poll receives only while a burst's acks fit (no wait on
 * the port here). */
static void queue_ack(struct node_dp *dp, const struct ebf_ack *a)
{
    ebf_idset_add(&dp->st.acked_ids, a->event_id);
    dp->ack[dp->n_ack++] = *a;
    if (dp->n_ack >= dp->c.ack_batch)
        flush_acks(dp);
}

/* One received frame; returns 1 when the event's view holds it (the
 * caller must not free it). */
static int handle_frame(struct node_dp *dp, struct rte_mbuf *m)
{
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    size_t len = m->pkt_len;
    struct ebf_l2l3 l;
    struct ebf_event_hdr h;

    dp->st.rx_frames++;
    dp->st.rx_bytes += len;
    if (m->nb_segs > 1) {
        if (len > FRAME_MAX) {
            dp->st.reject[EBF_R_BAD_LENGTH]++;
            return 0;
        }
        p = rte_pktmbuf_read(m, 0, (uint32_t)len, dp->scratch);
    }
    enum ebf_reason r = ebf_parse_l2l3(p, len, EBF_UDP_PORT_DEFAULT, &l);
    if (r == EBF_R_OK && l.type != EBF_T_EVENT) {
        dp->st.wrong_type++;
        return 0;
    }
    if (r == EBF_R_OK)
        r = ebf_event_parse(p + l.hlen, l.len, &h);
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return 0;
    }
    if (dp->done[h.event_id % DONE_WINDOW] == h.event_id + 1) {
        /* Sent again (the SFC took us for dead): the event was decided
         * once and stays so; its last frame gets the same ack again, which
         * returns the credit the SFC spent on it. */
        dp->st.dup_frames++;
        if (h.frame_index + 1 == h.frame_count) {
            dp->st.dup_events++;
            queue_ack(dp, &dp->done_ack[h.event_id % DONE_WINDOW]);
        }
        return 0;
    }
    struct node_ev *e = find_event(dp, &h);
    if (!e) {
        dp->st.no_slot++;
        return 0;
    }
    if (e->waiting) {           /* decided, waiting for storage: a frame sent again */
        dp->st.dup_frames++;
        return 0;
    }
    if (h.n_sources != e->n_sources || h.flags != e->flags ||
        h.frame_count != e->frame_count || h.present[0] != e->present[0] ||
        h.present[1] != e->present[1])
        flag(e, NODE_V_BAD_SOURCES);
    int keep = dp->view && node_view_hold(&dp->v, (uint16_t)(e - dp->ev), m);
    verify_pieces(dp, e, p + l.hlen + EBF_EVENT_HLEN, l.len - EBF_EVENT_HLEN, h.n_pieces,
                  keep ? m : NULL, p);
    if (++e->frames_got == e->frame_count)
        finish_event(dp, e);
    return keep;
}

unsigned node_dp_poll(struct node_dp *dp)
{
    struct rte_mbuf *pkts[BURST_MAX];
    unsigned work = 0;

    if (dp->credits_owed && send_credit(dp, dp->credits_owed)) {
        dp->credits_owed = 0;
        work++;
    }
    if (dp->w)
        work += node_dp_workers_poll(dp, event_decided);
    if (dp->store)
        work += node_dp_store_poll(dp, complete_accepted);
    if (dp->n_ack + dp->c.burst > dp->ack_cap) {
        work += flush_acks(dp);
        if (dp->n_ack + dp->c.burst > dp->ack_cap)
            return work;        /* acks first: the port has not taken them yet */
    }
    uint16_t n = rte_eth_rx_burst(dp->c.port, 0, pkts, dp->c.burst), n_free = 0;
    for (uint16_t i = 0; i < n; i++)
        if (!handle_frame(dp, pkts[i]))
            pkts[n_free++] = pkts[i];
    if (n_free)
        rte_pktmbuf_free_bulk(pkts, n_free);
    work += n;
    if (n < dp->c.burst)         /* caught up: do not sit on acks */
        work += flush_acks(dp);
    if (dp->hb_tsc && rte_get_tsc_cycles() - dp->last_tx_tsc > dp->hb_tsc) {
        if (dp->n_ack)
            flush_acks(dp);
        else
            send_credit(dp, 0);     /* heartbeat */
    }
    return work;
}

void node_dp_drain_begin(struct node_dp *dp)
{
    dp->draining = 1;
    dp->drain_last = rte_get_tsc_cycles();
    dp->drain_frames = dp->st.rx_frames;
}

unsigned node_dp_drain_poll(struct node_dp *dp, int *done)
{
    uint64_t quiet = (uint64_t)(dp->c.drain_quiet_ms * 1e-3 * (double)rte_get_tsc_hz());
    unsigned work = node_dp_poll(dp);
    uint64_t now = rte_get_tsc_cycles();

    *done = 0;
    if (dp->st.rx_frames != dp->drain_frames) {
        dp->drain_frames = dp->st.rx_frames;
        dp->drain_last = now;
    }
    /* Quiet and every ack out; or the SFC is gone and acks cannot leave.
     * Either way only once storage has taken every accepted event. */
    if (((now - dp->drain_last >= quiet && !dp->n_ack) || now - dp->drain_last > 10 * quiet) &&
        !dp->n_deciding && node_dp_store_drained(dp)) {
        for (uint16_t i = 0; i < dp->c.credits; i++) {
            dp->st.stopped_partial += dp->ev[i].used;
            if (dp->view)
                node_view_reset(&dp->v, i);
        }
        events_reset(dp);
        dp->draining = 0;
        *done = 1;
    }
    return work;
}

void node_dp_run(struct node_dp *dp, const volatile sig_atomic_t *stop)
{
    struct ebf_idle idle = dp->c.idle;
    int done = 0;

    dp->last_tx_tsc = rte_get_tsc_cycles();
    while (!*stop)
        ebf_idle_note(&idle, node_dp_poll(dp));
    node_dp_drain_begin(dp);
    while (!done)
        ebf_idle_note(&idle, node_dp_drain_poll(dp, &done));
}

void node_dp_gauges(const struct node_dp *dp, struct node_gauges *g)
{
    memset(g, 0, sizeof(*g));
    for (uint16_t i = 0; i < dp->c.credits; i++)
        g->events_in_progress += dp->ev[i].used;
    g->acks_pending = dp->n_ack;
    g->credits = dp->c.credits;
    g->epoch = dp->c.epoch;
    g->pool_in_use = rte_mempool_in_use_count(dp->c.pool);
}

const struct node_stats *node_dp_stats(const struct node_dp *dp)
{
    return &dp->st;
}
