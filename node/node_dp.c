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
#include "ebf_pattern.h"
#include "ebf_util.h"
#include "node_dp_private.h"

#define BURST_MAX 64
_Static_assert(FRAME_MAX >= EBF_MTU_MAX + EBF_L2_MAX_HLEN, "scratch below the largest frame");
#define DONE_WINDOW 65536

static const uint8_t verify_bit[] = {
#define NODE_VERIFY_BIT(n, s, b) b,
    NODE_FOREACH_VERIFY(NODE_VERIFY_BIT)
#undef NODE_VERIFY_BIT
};


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
    if (!dp->ev || !dp->done || !dp->done_ack) {
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
    node_dp_store_free(dp);
    node_dp_trigger_stop(dp);
    rte_free(dp->ev);
    rte_free(dp->done);
    rte_free(dp->done_ack);
    rte_free(dp);
}

/* --- Credit frames --------------------------------------------------------- */

/* Send one credit frame with the pending acks and credits. Returns 1 when
 * the port took it, 0 when it must be tried again. */
static int send_credit(struct node_dp *dp, uint16_t credits)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(dp->c.pool);
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};

    if (!m)
        return 0;
    size_t len = ebf_credit_len(dp->n_ack);
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
        .node_id = dp->c.node_id, .credits = credits, .n_acks = dp->n_ack,
        .epoch = dp->c.epoch, .seq = dp->seq,
    };
    ebf_credit_write(p + EBF_ETH_HLEN, &h, dp->ack);
    if (rte_eth_tx_burst(dp->c.port, 0, &m, 1) != 1) {
        rte_pktmbuf_free(m);
        dp->st.tx_refused++;
        return 0;
    }
    dp->seq++;
    dp->st.credit_frames++;
    dp->st.acks_sent += dp->n_ack;
    dp->st.credits_granted += credits;
    if (credits == 0 && dp->n_ack == 0)
        dp->st.heartbeats++;
    dp->n_ack = 0;
    dp->last_tx_tsc = rte_get_tsc_cycles();
    return 1;
}

/* Each ack returns the credit of its event. */
static unsigned flush_acks(struct node_dp *dp)
{
    if (dp->n_ack == 0)
        return 0;
    return (unsigned)send_credit(dp, dp->n_ack);
}

/* --- Events ---------------------------------------------------------------- */

static struct node_ev *find_event(struct node_dp *dp, const struct ebf_event_hdr *h)
{
    struct node_ev *free_ev = NULL;

    for (uint16_t i = 0; i < dp->c.credits; i++) {
        struct node_ev *e = &dp->ev[i];
        if (e->used && e->id == h->event_id)
            return e;
        if (!e->used && !free_ev)
            free_ev = e;
    }
    if (!free_ev)
        return NULL;
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
        enum ebf_reason r = ebf_frag_parse(p, len, e->n_sources, 1, &h, &used);
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
        } else if (ebf_pattern_check(p + EBF_FRAG_HLEN, h.piece_len, h.source, h.event_id,
                                     h.offset) >= 0) {
            flag(e, NODE_V_BAD_PATTERN);
        }
        if (h.event_id != e->id)
            flag(e, NODE_V_BAD_EVENT_ID);
        if (!ebf_present_test(e->present, h.source) ||
            (e->src_got[h.source] && e->src_len[h.source] != h.frag_len))
            flag(e, NODE_V_BAD_SOURCES);
        if (held)
            node_view_add(&dp->v, (uint16_t)(e - dp->ev), held,
                          (uint32_t)(p + EBF_FRAG_HLEN - base), h.piece_len, h.source, h.offset);
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
    e->used = 0;
    e->waiting = 0;
    queue_ack(dp, &a);
}

static void complete_accepted(struct node_dp *dp, struct node_ev *e)
{
    complete_event(dp, e, 1);
}

/* Every frame of e is in: check the source set, spend the trigger time,
 * decide, store an accepted event and queue the ack (an event waiting for
 * storage keeps its slot, so its credit stays with the node). */
static void finish_event(struct node_dp *dp, struct node_ev *e)
{
    for (unsigned s = 0; s < e->n_sources; s++) {
        int present = ebf_present_test(e->present, s);
        if (present ? e->src_got[s] != e->src_len[s] || e->src_len[s] == 0 : e->src_got[s] != 0)
            flag(e, NODE_V_BAD_SOURCES);
    }
    if (e->got_bytes != e->bytes)
        flag(e, NODE_V_BAD_SOURCES);
    uint16_t stream = 0;
    int accept = node_dp_decide(dp, e, &stream);
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

/* Queue an ack (and the credit it returns); flush a full batch. Every ack
 * goes into the ledger's record: the SFC sees each exactly once. */
static void queue_ack(struct node_dp *dp, const struct ebf_ack *a)
{
    ebf_idset_add(&dp->st.acked_ids, a->event_id);
    while (dp->n_ack >= dp->max_acks && !flush_acks(dp))
        rte_pause();            /* the port must take the full batch first */
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
    if (dp->store)
        work += node_dp_store_poll(dp, complete_accepted);
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
        node_dp_store_drained(dp)) {
        for (uint16_t i = 0; i < dp->c.credits; i++) {
            dp->st.stopped_partial += dp->ev[i].used;
            if (dp->view)
                node_view_reset(&dp->v, i);
        }
        memset(dp->ev, 0, sizeof(*dp->ev) * dp->c.credits);
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
