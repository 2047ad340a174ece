/* SPDX-License-Identifier: BSD-3-Clause */
/* node_dp.c - trigger node poll loop: receive, then the stages (event table, reassembly, trigger, workers, storage) in one direction, then count and ack with credit. */
#include "node_dp.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ebf_crc.h"
#include "ebf_param.h"
#include "ebf_port.h"
#include "ebf_util.h"
#include "node_dp_private.h"
#include "node_reasm.h"
#include "node_tally.h"

#define BURST_MAX NODE_BURST_MAX
_Static_assert(FRAME_MAX >= EBF_MTU_MAX + EBF_L2_MAX_HLEN, "scratch below the largest frame");

uint16_t node_max_acks(uint16_t mtu)
{
    size_t fit = ((mtu ? mtu : 1500) - ebf_credit_len(0)) / EBF_ACK_LEN;

    return (uint16_t)(fit < EBF_MAX_ACKS ? fit : EBF_MAX_ACKS);
}

uint32_t node_view_frames(const struct node_conf *c)
{
    uint32_t size = c->pool ? c->pool->size : 0;

    if (c->view_frames)
        return c->view_frames;
    return size > 2 * NODE_VIEW_RESERVE ? size - NODE_VIEW_RESERVE : size / 2;
}

/* The stages: the event table, storage, the trigger, the held frames (when
 * the plug-in or storage reads payload), the workers. 0 or -errno. */
static int stages_start(struct node_dp *dp)
{
    const struct node_conf *c = &dp->c;
    struct node_dp_trigger_conf tc = {
        .trigger = c->trigger, .run = c->run, .node_id = c->node_id, .accept = c->accept,
        .accept_seed = c->accept_seed, .trigger_us = c->trigger_us,
        .timeout_ms = c->trigger_timeout_ms,
    };
    void *mem = rte_zmalloc("node_evtab", node_evtab_mem(c->credits), RTE_CACHE_LINE_SIZE);

    if (!mem)
        return -ENOMEM;
    node_evtab_init(&dp->evt, c->credits, mem);
    dp->view = node_dp_trigger_reads(&tc) || c->store.dir[0];
    int rc = node_dp_store_init(&dp->sto, &c->store, c->node_id, c->credits, &dp->v);
    if (rc == 0 && dp->view && node_view_init(&dp->v, c->credits, node_view_frames(c)))
        rc = -ENOMEM;
    if (rc == 0)
        rc = node_dp_trigger_start(&dp->trig, &tc, dp->view ? &dp->v : NULL);
    if (rc == 0 && node_decide_scratch_init(&dp->dx, &dp->trig)) {
        node_dp_trigger_stop(&dp->trig);
        rc = -ENOMEM;
    }
    if (rc == 0 && c->workers > NODE_WORKERS_MAX)
        rc = -EINVAL;
    if (rc == 0)
        rc = node_dp_workers_start(&dp->ws, c->workers, c->credits, &dp->trig, dp->evt.ev,
                                   &c->idle);
    return rc;
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
    dp->ack_cap = (uint16_t)(conf->credits + ACK_QUEUE_EXTRA);
    dp->ack = rte_malloc("node_acks", sizeof(*dp->ack) * dp->ack_cap, 0);
    int rc = dp->ack ? stages_start(dp) : -ENOMEM;
    if (rc) {
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
    node_dp_workers_stop(&dp->ws);
    node_dp_store_free(&dp->sto);
    if (dp->view)
        node_view_free(&dp->v);
    node_dp_trigger_stop(&dp->trig);
    node_decide_scratch_free(&dp->dx);
    rte_free(dp->evt.ev);
    rte_free(dp->ack);
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

/* Once a second: a memif link that went down (the SFC died) is restarted
 * until it is up again (ebf_port_relink); once up, the SFC is a new one
 * (ebfarm restart) that holds none of this node's credits: it is granted
 * every slot that no event holds (the others come back with their acks).
 * A link that never goes down (af_packet) is told so instead, by
 * node_dp_sfc_new. */
static void relink(struct node_dp *dp)
{
    uint64_t now = rte_get_tsc_cycles();
    struct rte_eth_link link;

    if (now - dp->link_tsc < rte_get_tsc_hz())
        return;
    dp->link_tsc = now;
    if (rte_eth_link_get_nowait(dp->c.port, &link) != 0)
        return;
    if (!link.link_status) {
        dp->relinked |= ebf_port_relink(dp->c.port);
        return;
    }
    if (!dp->relinked)
        return;
    uint32_t held = node_evtab_used(&dp->evt) + dp->n_ack;
    dp->credits_owed = (uint16_t)(dp->c.credits > held ? dp->c.credits - held : 0);
    dp->relinked = 0;
    dp->regrant_due = 0;
    dp->mark.open = 0;              /* what comes now is the new SFC's */
    dp->st.relinks++;
}

/* Each ack returns the credit of its event. */
static unsigned flush_acks(struct node_dp *dp)
{
    if (dp->n_ack == 0)
        return 0;
    return (unsigned)send_credit(dp, 0);
}

/* --- Events ---------------------------------------------------------------- */

/* Queue an ack (and the credit it returns); flush a full batch. Every ack
 * goes into the ledger's record: the SFC sees each exactly once. There is
 * room: node_dp_poll receives only while a burst's acks fit (no wait on
 * the port here). */
static void queue_ack(struct node_dp *dp, const struct ebf_ack *a)
{
    ebf_idset_add(&dp->st.acked_ids, a->event_id);
    if (unlikely(dp->mark.open))
        node_dp_mark_ack(dp, a);    /* an event held at a restart's mark */
    dp->ack[dp->n_ack++] = *a;
    if (dp->n_ack >= dp->c.ack_batch)
        flush_acks(dp);
}

/* e is decided and, when accepted with storage on, stored or lost at
 * storage: remember the decision, free the slot, queue the ack. */
static void complete_event(struct node_dp *dp, struct node_ev *e, int accept)
{
    struct ebf_ack a = {
        .event_id = e->id, .decision = accept ? EBF_DEC_ACCEPT : EBF_DEC_REJECT,
        .status = e->status,
    };
    node_evtab_note_done(&dp->evt, &a);
    if (dp->view)
        node_view_reset(&dp->v, node_evtab_slot(&dp->evt, e));
    node_evtab_free(&dp->evt, e);
    e->waiting = 0;
    queue_ack(dp, &a);
}

/* e is decided (outcome: a decision word): count it, store an accepted
 * event and queue the ack (an event waiting for storage keeps its slot, so
 * its credit stays with the node). */
static void event_decided(struct node_dp *dp, struct node_ev *e, uint32_t outcome)
{
    int accept = node_tally_decided(&dp->st, e, outcome, ebf_now_ns(), &e->stream);

    e->waiting = 0;
    if (accept && node_dp_store_on(&dp->sto) &&
        !node_dp_store_event(&dp->sto, e, node_evtab_slot(&dp->evt, e))) {
        e->waiting = 1;         /* waits for a block, in order */
        return;
    }
    complete_event(dp, e, accept);
}

/* Every frame of e is in: check the source set, then decide here or hand
 * e to a trigger worker (its decision comes back in workers_poll). */
static void finish_event(struct node_dp *dp, struct node_ev *e)
{
    uint16_t slot = node_evtab_slot(&dp->evt, e);

    node_reasm_finish(e);
    if (dp->ws.n) {
        e->waiting = 1;         /* at a worker: frames sent again are dropped */
        node_dp_workers_give(&dp->ws, slot);
    } else {
        event_decided(dp, e, node_dp_trigger_decide(&dp->trig, e, slot, &dp->dx));
    }
}

/* A frame of an event already decided (the SFC took us for dead and sent
 * it again): it stays decided; its last frame gets the same ack again,
 * which returns the credit the SFC spent on it. */
static void frame_again(struct node_dp *dp, const struct ebf_event_hdr *h,
                        const struct ebf_ack *a)
{
    dp->st.dup_frames++;
    if (h->frame_index + 1 == h->frame_count) {
        dp->st.dup_events++;
        queue_ack(dp, a);
    }
}

/* The pieces of frame m (at p, event header h, its event e) verified into
 * e; held (the plug-in reads payload): their places noted in the view. */
static void frame_pieces(struct node_dp *dp, struct node_ev *e, const struct rte_mbuf *held,
                         const uint8_t *p, const struct ebf_l2l3 *l, uint16_t n_pieces)
{
    struct node_reasm r = node_reasm_start(e, p, p + l->hlen + EBF_EVENT_HLEN,
                                           l->len - EBF_EVENT_HLEN, n_pieces);
    uint16_t slot = node_evtab_slot(&dp->evt, e);
    struct node_piece pc;

    while (node_reasm_next(&r, dp->st.piece_reject, &pc))
        if (held)
            node_view_add(&dp->v, slot, held, pc.off, pc.len, pc.source, pc.frag_off, pc.flags);
}

/* The frame's bytes at *p and its event header in h: 0, or 1 when it is
 * not a good event frame (counted). */
static int frame_parse(struct node_dp *dp, struct rte_mbuf *m, const uint8_t **p,
                       struct ebf_l2l3 *l, struct ebf_event_hdr *h)
{
    size_t len = m->pkt_len;

    *p = rte_pktmbuf_mtod(m, const uint8_t *);
    dp->st.rx_frames++;
    dp->st.rx_bytes += len;
    if (m->nb_segs > 1) {
        if (len > FRAME_MAX) {
            dp->st.reject[EBF_R_BAD_LENGTH]++;
            return 1;
        }
        *p = rte_pktmbuf_read(m, 0, (uint32_t)len, dp->scratch);
    }
    enum ebf_reason r = ebf_parse_l2l3(*p, len, EBF_UDP_PORT_DEFAULT, l);
    if (r == EBF_R_OK && l->type != EBF_T_EVENT) {
        dp->st.wrong_type++;
        return 1;
    }
    if (r == EBF_R_OK)
        r = ebf_event_parse(*p + l->hlen, l->len, h);
    if (r != EBF_R_OK) {
        dp->st.reject[r]++;
        return 1;
    }
    return 0;
}

/* One received frame; returns 1 when the event's view holds it (the
 * caller must not free it). */
static int handle_frame(struct node_dp *dp, struct rte_mbuf *m)
{
    const uint8_t *p;
    struct ebf_l2l3 l;
    struct ebf_event_hdr h;

    if (frame_parse(dp, m, &p, &l, &h))
        return 0;
    const struct ebf_ack *again = node_evtab_done(&dp->evt, h.event_id);
    if (again) {
        frame_again(dp, &h, again);
        return 0;
    }
    struct node_ev *e = node_evtab_find(&dp->evt, &h);
    if (!e) {
        dp->st.no_slot++;
        return 0;
    }
    if (e->waiting) {           /* deciding or waiting for storage: a frame sent again */
        dp->st.dup_frames++;
        return 0;
    }
    node_reasm_header(e, &h);
    int keep = dp->view && node_view_hold(&dp->v, node_evtab_slot(&dp->evt, e), m);
    frame_pieces(dp, e, keep ? m : NULL, p, &l, h.n_pieces);
    if (++e->frames_got == e->frame_count)
        finish_event(dp, e);
    return keep;
}

/* The decisions the workers hand back, each counted, stored and acked. */
static unsigned workers_poll(struct node_dp *dp)
{
    struct node_decided d[NODE_WORKERS_MAX * NODE_WORKERS_BURST];
    unsigned n = node_dp_workers_poll(&dp->ws, d);

    for (unsigned i = 0; i < n; i++)
        event_decided(dp, &dp->evt.ev[d[i].slot], d[i].outcome);
    return n;
}

/* The events storage hands back as blocks come free, each acked. */
static unsigned store_poll(struct node_dp *dp)
{
    uint16_t done[NODE_BURST_MAX];
    unsigned n, work = 0;

    do {
        n = node_dp_store_take(&dp->sto, dp->evt.ev, done, NODE_BURST_MAX);
        for (unsigned i = 0; i < n; i++)
            complete_event(dp, &dp->evt.ev[done[i]], 1);
        work += n;
    } while (n == NODE_BURST_MAX);
    node_dp_store_tick(&dp->sto);
    return work;
}

/* Receive a burst and handle each frame, every line of the next frame
 * prefetched (its pieces are all verified: ebf_crc_prefetch) while this
 * one is checked; returns the frames received. */
static unsigned rx_poll(struct node_dp *dp)
{
    struct rte_mbuf *pkts[BURST_MAX];
    uint16_t n = rte_eth_rx_burst(dp->c.port, 0, pkts, dp->c.burst), n_free = 0;

    if (n)
        ebf_crc_prefetch(rte_pktmbuf_mtod(pkts[0], void *), pkts[0]->data_len);
    for (uint16_t i = 0; i < n; i++) {
        if (i + 1 < n)
            ebf_crc_prefetch(rte_pktmbuf_mtod(pkts[i + 1], void *), pkts[i + 1]->data_len);
        if (!handle_frame(dp, pkts[i]))
            pkts[n_free++] = pkts[i];
    }
    if (n_free)
        rte_pktmbuf_free_bulk(pkts, n_free);
    return n;
}

unsigned node_dp_poll(struct node_dp *dp)
{
    unsigned work = 0;

    if (dp->credits_owed && send_credit(dp, dp->credits_owed)) {
        dp->credits_owed = 0;
        work++;
    }
    if (dp->ws.n_deciding)
        work += workers_poll(dp);
    if (node_dp_store_on(&dp->sto))
        work += store_poll(dp);
    if (dp->n_ack + dp->c.burst > dp->ack_cap) {
        work += flush_acks(dp);
        if (dp->n_ack + dp->c.burst > dp->ack_cap)
            return work;        /* acks first: the port has not taken them yet */
    }
    unsigned n = rx_poll(dp);
    work += n;
    if (n < dp->c.burst)         /* caught up: do not sit on acks */
        work += flush_acks(dp);
    relink(dp);
    if (unlikely(dp->mark.open) && node_evtab_used(&dp->evt) == 0)
        dp->mark.open = 0;          /* every event held at the mark decided */
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

/* The drain ends: events still partial counted, every slot free. */
static void drain_end(struct node_dp *dp)
{
    dp->st.stopped_partial += node_evtab_used(&dp->evt);
    if (dp->view)
        for (uint16_t i = 0; i < dp->c.credits; i++)
            node_view_reset(&dp->v, i);
    node_evtab_reset(&dp->evt);
    dp->draining = 0;
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
        !dp->ws.n_deciding && node_dp_store_drained(&dp->sto)) {
        drain_end(dp);
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

/* --- What control reads ---------------------------------------------------- */

int node_dp_begin(struct node_dp *dp, uint32_t run, const char *farm, char *err, size_t len)
{
    return node_dp_store_begin(&dp->sto, run, farm, err, len);
}

int node_dp_failed(struct node_dp *dp, char *why, size_t len)
{
    return node_dp_store_failed(&dp->sto, why, len);
}

void node_dp_store_stats(struct node_dp *dp, struct node_store_stats *out)
{
    node_dp_store_read(&dp->sto, out);
}

uint16_t node_dp_worker_slots(const struct node_dp *dp, unsigned w)
{
    return node_dp_workers_slots(dp->c.workers, dp->c.credits, w);
}

void node_dp_worker_cycles(const struct node_dp *dp, struct ebf_lcore_stats *out)
{
    node_dp_workers_cycles(&dp->ws, out);
}

void node_dp_gauges(const struct node_dp *dp, struct node_gauges *g)
{
    memset(g, 0, sizeof(*g));
    g->events_in_progress = node_evtab_used(&dp->evt);
    g->acks_pending = dp->n_ack;
    g->credits = dp->c.credits;
    g->epoch = dp->c.epoch;
    g->pool_in_use = rte_mempool_in_use_count(dp->c.pool);
}

const struct node_stats *node_dp_stats(const struct node_dp *dp)
{
    return &dp->st;
}
