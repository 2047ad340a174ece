/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_faults.c - the SFC facing faults: sequence gaps, who may send, throttling the readouts, dead and rejoining nodes. */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "sfc_dp_private.h"

void sfc_faults_init(struct sfc_dp *dp)
{
    double hz = (double)rte_get_tsc_hz();
    double on = dp->c.throttle_on > 0 ? dp->c.throttle_on : 0.75;
    double off = dp->c.throttle_off > 0 ? dp->c.throttle_off : 0.5;

    if (off > on)
        off = on;
    dp->on_events = (uint32_t)(on * dp->c.capacity);
    dp->off_events = (uint32_t)(off * dp->c.capacity);
    dp->on_records = (uint32_t)(on * dp->c.max_frames);
    dp->off_records = (uint32_t)(off * dp->c.max_frames);
    dp->throttle_refresh_tsc = (uint64_t)(EBF_THROTTLE_REFRESH_NS * 1e-9 * hz);
    dp->node_timeout_tsc = (uint64_t)(dp->c.node_timeout_ms * 1e-3 * hz);
    for (uint16_t n = 0; n < dp->c.n_nodes; n++)
        if (sfc_serves(dp, n))
            dp->q_alive[dp->node_txq[n]]++;
    for (uint16_t i = 0; i < dp->c.n_readouts && i < SFC_MAX_READOUTS; i++)
        sfc_readout_add(dp, dp->c.readout_mac[i]);  /* throttle frames go to these only */
}

/* --- Sequence numbers ------------------------------------------------------ */

/* A number beyond the window of the one due: counted as a
 * resynchronisation; when the number after it comes next, the sender really
 * moved on (a restart), and the sequence is re-based there. A lone forged
 * number changes nothing else. */
static void seq_jump(struct sfc_dp *dp, struct seq_state *q, uint16_t source, uint32_t seq)
{
    if (q->jumped && seq == q->jump_next) {
        q->next = seq + 1;
        q->seen = 3;                        /* seq and the jump before it */
        q->jumped = 0;
        return;
    }
    dp->st.seq.resync[source]++;
    q->jump_next = seq + 1;
    q->jumped = 1;
}

void sfc_seq_note(struct sfc_dp *dp, uint16_t source, uint32_t seq)
{
    struct seq_state *q = &dp->seq[source];
    uint32_t ahead = seq - q->next;
    uint32_t back = q->next - 1 - seq;      /* 0: the last one again */

    if (ahead >= SFC_SEQ_WINDOW && back >= SFC_SEQ_WINDOW) {
        seq_jump(dp, q, source, seq);
        return;
    }
    q->jumped = 0;
    if (ahead < SFC_SEQ_WINDOW) {
        /* In order (ahead 0) or after a gap of `ahead` frames. */
        dp->st.seq.gap[source] += ahead;
        q->seen = ahead >= 63 ? 1 : (q->seen << (ahead + 1)) | 1;
        q->next = seq + 1;
        return;
    }
    if (back < 64 && !(q->seen & (1ull << back))) {
        q->seen |= 1ull << back;
        dp->st.seq.reorder[source]++;       /* a frame of an earlier gap */
    } else {
        dp->st.seq.dup[source]++;           /* seen, or too old to tell */
    }
}

/* --- Who may send ---------------------------------------------------------- */

static int readout_configured(const struct sfc_dp *dp, const uint8_t *mac)
{
    for (uint16_t i = 0; i < dp->c.n_readouts; i++)
        if (memcmp(dp->c.readout_mac[i], mac, 6) == 0)
            return 1;
    return 0;
}

enum sfc_drop sfc_source_check(struct sfc_dp *dp, uint16_t source, const uint8_t *mac)
{
    struct src_bind *b = &dp->bind[source];

    if (b->bound && memcmp(b->mac, mac, 6) == 0)
        return SFC_DROP_MAX;                /* the usual case: its own readout */
    if (dp->c.n_readouts && !readout_configured(dp, mac))
        return SFC_DROP_FOREIGN_SOURCE;
    if (b->bound)
        return SFC_DROP_SOURCE_SPOOFED;
    memcpy(b->mac, mac, 6);
    b->bound = 1;
    return SFC_DROP_MAX;
}

/* --- Throttling the readouts ---------------------------------------------- */

void sfc_readout_add(struct sfc_dp *dp, const uint8_t *mac)
{
    for (uint16_t i = 0; i < dp->n_ro; i++)
        if (memcmp(dp->ro_mac[i], mac, 6) == 0) {
            dp->last_ro = i;
            return;
        }
    if (dp->n_ro == SFC_MAX_READOUTS)
        return;
    memcpy(dp->ro_mac[dp->n_ro], mac, 6);
    dp->ro_port[dp->n_ro] = dp->c.n_more_rx ? UINT16_MAX : dp->c.rx_port;
    dp->last_ro = dp->n_ro++;
}

void sfc_readout_port(struct sfc_dp *dp, const uint8_t *mac)
{
    uint16_t i = dp->last_ro;

    if (i >= dp->n_ro || memcmp(dp->ro_mac[i], mac, 6) != 0)
        for (i = 0; i < dp->n_ro && memcmp(dp->ro_mac[i], mac, 6) != 0; i++)
            ;
    if (i < dp->n_ro)
        dp->ro_port[i] = dp->cur_rx;
}

/* How far readout i got: 1 + the highest event id heard from a source
 * bound to its MAC; 0 when none. */
static uint64_t readout_progress(const struct sfc_dp *dp, uint16_t i)
{
    uint64_t p = 0;

    for (uint16_t s = 0; s < dp->c.n_sources; s++)
        if (dp->bind[s].bound && memcmp(dp->bind[s].mac, dp->ro_mac[i], 6) == 0 &&
            dp->st.next_by_source[s] > p)
            p = dp->st.next_by_source[s];
    return p;
}

/* While the SFC holds its readouts: 1 for a readout behind the one
 * furthest on. Its frames complete events the table already holds, so
 * it is let go on ("off") until it catches up; held with the others, it
 * could never complete them and they would time out incomplete. */
static int behind(const struct sfc_dp *dp, uint16_t i)
{
    uint64_t lead = 0;

    if (!dp->throttled || dp->n_ro < 2)
        return 0;
    for (uint16_t j = 0; j < dp->n_ro; j++) {
        uint64_t p = readout_progress(dp, j);
        lead = p > lead ? p : lead;
    }
    return readout_progress(dp, i) < lead;
}

/* One throttle frame to every readout configured (--readout-mac), else to
 * every readout seen, on the readout port (with several, on the port the
 * readout was last heard on; one not heard yet fills nothing and gets
 * none): "on" while throttled, except "off" to a readout behind the
 * others. A frame the port refuses is dropped and counted: "on" is
 * repeated anyway. */
static void throttle_send(struct sfc_dp *dp, uint16_t fill, uint64_t now)
{
    dp->throttle_sent_tsc = now;
    if (dp->c.ro_dist && dp->c.worker != 0)
        return;                 /* a shared readout port: worker 0 sends for all */

    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    struct ebf_throttle_hdr h = {
        .sfc_id = dp->c.sfc_id, .on = (uint8_t)dp->throttled, .fill = fill,
        .seq = dp->c.share ? __atomic_fetch_add(&dp->c.share->throttle_seq, 1, __ATOMIC_RELAXED)
                           : dp->throttle_seq++,
    };

    memcpy(a.src_mac, dp->rx_mac, 6);
    for (uint16_t i = 0; i < dp->n_ro; i++) {
        if (dp->ro_port[i] == UINT16_MAX)
            continue;
        struct rte_mbuf *m = rte_pktmbuf_alloc(dp->c.hdr_pool);
        uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, EBF_ETH_HLEN + EBF_THROTTLE_LEN)
                       : NULL;
        if (!p) {
            rte_pktmbuf_free(m);
            dp->st.throttle_tx_fail++;
            continue;
        }
        memcpy(a.dst_mac, dp->ro_mac[i], 6);
        h.on = (uint8_t)(dp->throttled && !behind(dp, i));
        dp->st.throttle_spared += dp->throttled && !h.on;
        ebf_encap_write(p, &a, EBF_THROTTLE_LEN);
        ebf_throttle_write(p + EBF_ETH_HLEN, &h);
        if (rte_eth_tx_burst(dp->ro_port[i], 0, &m, 1) != 1) {
            rte_pktmbuf_free(m);
            dp->st.throttle_tx_fail++;
            continue;
        }
        dp->st.throttle_frames++;
    }
}

/* The throttle the readouts hear: this data plane's want, or with workers
 * on while any worker wants it (each publishes its own). */
static int throttle_heard(struct sfc_dp *dp, int want)
{
    struct sfc_share *s = dp->c.share;

    if (!s)
        return want;
    __atomic_store_n(&s->want[dp->c.worker], (uint8_t)want, __ATOMIC_RELAXED);
    for (uint16_t i = 0; i < s->n; i++)
        if (__atomic_load_n(&s->want[i], __ATOMIC_RELAXED))
            return 1;
    return 0;
}

/*
 * Hysteresis on the fill: events held (building, ready, unacked) against
 * the table, frame records in use against all records. Wanted when either
 * reaches throttle_on, no longer when both are at or below throttle_off;
 * with workers, on while any worker wants it (its transitions counted by
 * worker 0), each sending to its own readout ports. While on, repeated
 * every EBF_THROTTLE_REFRESH_NS so that the readouts' hold does not expire.
 */
unsigned sfc_throttle_poll(struct sfc_dp *dp, uint64_t now)
{
    struct sfc_evtab_counts k;

    sfc_evtab_counts(dp->tab, &k);
    uint32_t held = k.building + k.ready + k.sent;
    uint32_t recs = dp->c.max_frames - k.free_records;

    if (!dp->throttle_want && (held >= dp->on_events || recs >= dp->on_records))
        dp->throttle_want = 1;
    else if (dp->throttle_want && held <= dp->off_events && recs <= dp->off_records)
        dp->throttle_want = 0;
    int on = throttle_heard(dp, dp->throttle_want);
    if (on != dp->throttled) {
        dp->throttled = on;
        if (dp->c.worker == 0)
            on ? dp->st.throttle_on++ : dp->st.throttle_off++;
    } else if (!on || now - dp->throttle_sent_tsc < dp->throttle_refresh_tsc) {
        return 0;
    }
    /* The fill, per mille, for the frame only: the divisions are paid
     * when a frame goes out, not on every pass. */
    uint32_t f1 = (uint32_t)((uint64_t)held * 1000 / dp->c.capacity);
    uint32_t f2 = (uint32_t)((uint64_t)recs * 1000 / dp->c.max_frames);
    throttle_send(dp, (uint16_t)(f1 > f2 ? f1 : f2), now);
    return 1;
}

/* --- Dead and rejoining nodes --------------------------------------------- */

/* Free the frames still queued for node (it is gone); other nodes that
 * share its port keep theirs, in order. */
static void purge_txq(struct sfc_dp *dp, uint16_t node)
{
    struct txq *q = &dp->txq[dp->node_txq[node]];
    uint16_t k = 0, refused = 0;

    for (uint16_t i = 0; i < q->n; i++) {
        struct rte_mbuf *m = q->pkt[i];
        if (memcmp(rte_pktmbuf_mtod(m, const uint8_t *), dp->c.node[node].mac, 6) == 0) {
            rte_pktmbuf_free(m);
        } else {
            refused += i < q->refused;      /* counted as refused before: stays so */
            q->pkt[k++] = m;
        }
    }
    q->n = k;
    q->refused = refused;
}

/* Node is dead: no credit, nothing queued for it, and every event it has
 * not acked back at the head of the ready queue for another node. */
static unsigned node_dead(struct sfc_dp *dp, uint16_t node)
{
    unsigned n = 0;

    dp->live[node].state = NODE_DEAD;
    dp->live[node].was_dead = 1;
    dp->q_alive[dp->node_txq[node]]--;
    dp->st.nodes_dead++;
    sfc_credit_revoke(dp->credit, node);
    purge_txq(dp, node);
    for (uint32_t s = 0; s < dp->c.capacity; s++) {
        struct sfc_event *e = sfc_evtab_event(dp->tab, s);
        if (e->state == SFC_EV_SENT && e->node == node) {
            sfc_evtab_requeue(dp->tab, s);
            n++;
        }
    }
    dp->st.redispatched += n;
    return n;
}

unsigned sfc_nodes_check(struct sfc_dp *dp, uint64_t now)
{
    unsigned n = 0;

    if (!dp->node_timeout_tsc)
        return 0;
    for (uint16_t i = 0; i < dp->c.n_nodes; i++)
        if (dp->live[i].state == NODE_ALIVE && now - dp->live[i].last_tsc > dp->node_timeout_tsc)
            n += node_dead(dp, i) + 1;
    return n;
}

enum sfc_heard sfc_node_heard(struct sfc_dp *dp, uint16_t node, uint32_t epoch, uint64_t now)
{
    struct node_live *l = &dp->live[node];
    enum sfc_heard r = SFC_HEARD_OK;

    if (l->state == NODE_NEW) {
        l->epoch = epoch;
        l->state = NODE_ALIVE;
    } else if ((int32_t)(epoch - l->epoch) > 0) {
        /* A new incarnation: the old one's events will never be acked. */
        if (l->state == NODE_ALIVE)
            node_dead(dp, node);
        dp->q_alive[dp->node_txq[node]]++;
        sfc_credit_revoke(dp->credit, node);
        l->epoch = epoch;
        l->state = NODE_ALIVE;
        l->was_dead = 1;        /* frames of the old one may still be answered */
        dp->st.rejoins++;
    } else if (epoch != l->epoch) {
        return SFC_HEARD_OLD_EPOCH;     /* a frame of a past incarnation */
    } else if (l->state == NODE_DEAD) {
        /* Silent too long but not gone: its events went elsewhere. */
        l->state = NODE_ALIVE;
        dp->q_alive[dp->node_txq[node]]++;
        dp->st.revived++;
        r = SFC_HEARD_LATE;
    }
    l->last_tsc = now;
    return r;
}
