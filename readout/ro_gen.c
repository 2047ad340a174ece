/* SPDX-License-Identifier: BSD-3-Clause */
/* ro_gen.c - the readout emulator's generate, pace and transmit loop. */
#include "ro_gen.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "ebf_kv.h"
#include "ebf_mix.h"
#include "ebf_param.h"
#include "ebf_util.h"

RTE_LOG_REGISTER_DEFAULT(ro_logtype, INFO);
#define RO_LOG(level, ...) rte_log(RTE_LOG_##level, ro_logtype, "readout: " __VA_ARGS__)


uint32_t ro_max_piece(const struct ro_conf *c)
{
    return ebf_piece_max(c->encap, c->mtu);     /* as the checks of fragment sizes count */
}

uint32_t ro_frag_size(const struct ro_conf *c, uint16_t source, uint64_t event_id)
{
    if (c->size_dist == RO_SIZE_LOGNORMAL)
        return ro_size_lognormal(c->seed, source, event_id, c->size_mu, c->size_sigma,
                                 c->size_min, c->size_max);
    if (c->size_max <= c->size_min)
        return c->size_min;
    uint64_t r = ebf_mix64(c->seed ^ ebf_mix64(event_id) ^ ((uint64_t)source << 40));
    return c->size_min + (uint32_t)(r % ((uint64_t)c->size_max - c->size_min + 1));
}

#define RX_BURST 32
_Static_assert(RO_MAX_SFCS <= RO_THROTTLE_MAX_MACS, "the throttle view trusts every --sfc-mac");

/* 1 when some SFC on port p is not given up: the port is still used. */
static int port_used(const struct ro_gen *g, uint16_t p)
{
    for (uint16_t k = 0; k < g->c->n_sfcs; k++)
        if (g->sfc_port[k] == p && !g->st->sfc_gone[k])
            return 1;
    return 0;
}

/* Take what one port received: throttle frames go to the view, everything
 * is freed and counted. Returns the frames taken. */
static unsigned rx_port(struct ro_gen *g, uint16_t port, uint64_t now_ns)
{
    struct rte_mbuf *m[RX_BURST];
    struct ro_stats *st = g->st;
    struct ro_throttle_view *v = &g->tv;
    uint16_t n = rte_eth_rx_burst(port, 0, m, RX_BURST);

    if (n == 0)
        return 0;
    for (uint16_t i = 0; i < n; i++) {
        uint64_t rejected = v->rejected + v->foreign;
        if (g->tag_pool)
            ro_tag_clear(m[i]);     /* received bytes: no prebuilt payload any more */
        enum ebf_reason r = ro_throttle_view_offer(v, rte_pktmbuf_mtod(m[i], const uint8_t *),
                                                   rte_pktmbuf_data_len(m[i]),
                                                   g->c->udp_port, now_ns);
        st->rx_other += r != EBF_R_OK && v->rejected + v->foreign == rejected;
    }
    rte_pktmbuf_free_bulk(m, n);
    st->rx_frames += n;
    return n;
}

/* Take what every port still in use received (a port whose SFCs are all
 * given up is no longer touched: its peer may be gone). */
static unsigned rx_poll(struct ro_gen *g, uint64_t now_ns)
{
    struct ro_stats *st = g->st;
    const struct ro_throttle_view *v = &g->tv;
    unsigned n = 0;

    for (uint16_t i = 0; i < g->n_ports; i++)
        if (g->n_ports == 1 || port_used(g, g->port[i]))
            n += rx_port(g, g->port[i], now_ns);
    if (n == 0)
        return 0;
    st->throttle_frames = v->frames;
    st->throttle_on_frames = v->on_frames;
    st->throttle_off_frames = v->off_frames;
    st->throttle_stale = v->stale;
    st->throttle_rejected = v->rejected;
    st->throttle_foreign = v->foreign;
    return n;
}

/* The end of a hold at TSC now: its time is counted, and the schedule moves
 * on by it (no catch-up burst). */
static void hold_end(struct ro_gen *g, uint64_t now)
{
    uint64_t d = now - g->held_since;

    g->st->throttle_held_ns += (uint64_t)((double)d * 1e9 / (double)rte_get_tsc_hz());
    g->t0 += d;
    g->held_since = 0;
}

/* Whether an SFC holds the readout now; a hold that begins is counted, and
 * every poll held. now: the TSC, or 0 when the caller did not read it. */
static int held(struct ro_gen *g, uint64_t now_ns, uint64_t now)
{
    if (!ro_throttle_view_held(&g->tv, now_ns))
        return 0;
    if (!g->held_since) {
        g->held_since = now ? now : rte_get_tsc_cycles();  /* ro_next may not have read it */
        g->st->throttle_holds++;
    }
    g->st->throttle_held_polls++;
    return 1;
}

/* Give SFC k up from event e on: nothing more goes to it (its frames are
 * counted), its port is no longer polled unless another SFC uses it. */
static void sfc_give_up(struct ro_gen *g, uint16_t k, uint64_t e, const char *why)
{
    struct ro_stats *st = g->st;
    const uint8_t *m = g->c->sfc_mac[k];

    st->sfc_gone[k] = 1;
    st->sfc_gone_from[k] = e;
    st->sfcs_gone++;
    RO_LOG(WARNING, "SFC %u (%02x:%02x:%02x:%02x:%02x:%02x) given up from event %" PRIu64
           " on: %s; its events are not sent, the other SFCs are served\n", k, m[0], m[1],
           m[2], m[3], m[4], m[5], e, why);
}

/* After a try that left frames toward SFC k unsent: is the SFC gone? Its
 * link is down, or its port refused everything since sfc_timeout ago
 * with no throttle frame from it in that time (an SFC that holds us
 * repeats "on" every 50 ms). */
static int sfc_vanished(struct ro_gen *g, uint16_t k, uint16_t took, uint64_t e)
{
    struct rte_eth_link link;
    uint64_t now = rte_get_tsc_cycles();

    if (took || !g->sfc_timeout_tsc)
        return 0;
    if (rte_eth_link_get_nowait(g->sfc_port[k], &link) == 0 &&
        link.link_status == RTE_ETH_LINK_DOWN) {
        sfc_give_up(g, k, e, "its link is down");
        return 1;
    }
    if (!g->refused_since[k]) {
        g->refused_since[k] = now;
        return 0;
    }
    uint64_t heard = ro_throttle_view_heard(&g->tv, k), now_ns = ebf_now_ns();
    uint64_t span_ns = (uint64_t)(g->c->sfc_timeout_ms * 1e6);
    if (now - g->refused_since[k] < g->sfc_timeout_tsc || (heard && now_ns - heard < span_ns))
        return 0;
    sfc_give_up(g, k, e, "its port refused every frame and it sent no throttle frame for "
                "--sfc-timeout-ms");
    return 1;
}

/* The SFC a queued frame goes to, by its destination MAC (frames the fault
 * stage held may be of earlier events). */
static uint16_t sfc_of(const struct ro_gen *g, struct rte_mbuf *m)
{
    const uint8_t *dst = rte_pktmbuf_mtod(m, const uint8_t *);

    for (uint16_t k = 0; k < g->c->n_sfcs; k++)
        if (memcmp(dst, g->c->sfc_mac[k], 6) == 0)
            return k;
    return 0;
}

/*
 * Hand n frames toward SFC k to its port, retrying what it refuses (calling
 * the conf's yield hook between tries, so control requests are answered
 * under back-pressure) until the SFC is given up. Returns 0, or -EINTR when
 * *force cut it short (the rest freed and counted).
 */
static int tx_run(struct ro_gen *g, struct rte_mbuf **pkt, uint16_t n, uint16_t k,
                  const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    uint16_t done = 0;
    int first = 1;

    while (done < n && !st->sfc_gone[k]) {
        uint16_t took = rte_eth_tx_burst(g->sfc_port[k], 0, pkt + done, n - done);
        if (first)
            st->tx_refused += (uint64_t)(n - took);     /* once per frame */
        done += took;
        st->sfc_frames[k] += took;
        if (took)
            g->refused_since[k] = 0;        /* it takes frames: alive */
        ebf_idle_note(&g->idle, took);
        /* Refused: from here each try is a pass of the lcore's loop (its
         * busy cycles, c->cycles), charged after its back-off: the first
         * busy, as it made the frames; a later one busy when the port took
         * frames, else idle. A burst taken at once stays in the caller's pass. */
        if (c->cycles && (done < n || !first))
            ebf_cycles_note(c->cycles, first ? 1u : took);
        first = 0;
        if (done < n && *force) {
            st->tx_abandoned += n - done;
            rte_pktmbuf_free_bulk(pkt + done, n - done);
            return -EINTR;
        }
        if (done < n && sfc_vanished(g, k, took, g->next_event))
            break;
        if (done < n) {
            /* The SFC may be saying why: a hold heard now counts from now,
             * though the event in hand is finished first. */
            uint64_t now_ns = ebf_now_ns();
            rx_poll(g, now_ns);
            held(g, now_ns, rte_get_tsc_cycles());
        }
        if (done < n && c->yield)
            c->yield(c->yield_arg);
    }
    if (done < n) {             /* its SFC is gone */
        st->sfc_gone_frames += n - done;
        rte_pktmbuf_free_bulk(pkt + done, n - done);
    }
    return 0;
}

/* Hand every queued frame to its SFC's port, in order per SFC. Returns 0,
 * or -EINTR when *force cut it short. */
static int flush(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    struct ro_txq *q = &g->q;
    struct rte_mbuf **pkt = q->pkt;
    uint16_t n = q->n;

    if (c->fault)               /* the frames the fault stage lets out now */
        n = ro_fault_tx_burst(c->fault, q->pkt, q->n, &pkt);
    q->n = 0;
    if (!c->fault || c->n_sfcs == 1)
        return tx_run(g, pkt, n, c->fault ? 0 : g->q_sfc, force);
    for (uint16_t i = 0; i < n;) {
        uint16_t k = sfc_of(g, pkt[i]), j = i + 1;
        while (j < n && sfc_of(g, pkt[j]) == k)
            j++;
        int rc = tx_run(g, pkt + i, j - i, k, force);
        if (rc) {
            rte_pktmbuf_free_bulk(pkt + j, n - j);
            g->st->tx_abandoned += n - j;
            return rc;
        }
        i = j;
    }
    return 0;
}

/* One mbuf for a frame: from the spares, which are refilled a burst at a
 * time (rte_pktmbuf_alloc_bulk), else alone when the pool has fewer left.
 * NULL when the pool is empty. */
static inline __attribute__((always_inline)) struct rte_mbuf *frame_mbuf(struct ro_gen *g)
{
    struct ro_txq *q = &g->q;

    if (q->n_spare == 0 && rte_pktmbuf_alloc_bulk(g->c->pool, q->spare, g->c->burst) == 0)
        q->n_spare = g->c->burst;
    if (q->n_spare)
        return q->spare[--q->n_spare];
    return rte_pktmbuf_alloc(g->c->pool);
}

/* The payload and header of the piece h of local source s into frame m at
 * frag. Per event: filled and checksummed in one pass. Prebuilt: the bytes
 * are copied unless m holds them already (its tag, when g->tags), the
 * header's CRC combined with theirs. */
static inline void put_piece(struct ro_gen *g, struct rte_mbuf *m, uint8_t *frag,
                             struct ebf_frag_hdr *h, uint16_t s)
{
    if (g->tags) {
        uint64_t *tag = rte_mbuf_to_priv(m), want = ro_payload_tag(&g->pay, h, s);
        if (*tag != want) {
            ro_payload_copy(&g->pay, frag, h, s);
            *tag = want;
        }
        ro_payload_header(&g->pay, frag, h, s);
        return;
    }
    if (g->tag_pool)
        ro_tag_clear(m);        /* its bytes are this frame's, maybe changed on the way */
    if (g->c->payload == RO_PAYLOAD_PREBUILT)
        ro_payload_write(&g->pay, frag, h, s);
    else
        ebf_frag_write_pattern(frag, h);
}

/* The addresses of a UDP frame toward SFC sfc. */
static void ro_frame_addr(const struct ro_conf *c, uint16_t sfc, struct ebf_addr *a)
{
    memset(a, 0, sizeof(*a));
    a->encap = c->encap;
    a->udp_port = c->udp_port;
    a->src_ip = c->src_ip;
    a->dst_ip = c->sfc_ip[sfc];
    memcpy(a->src_mac, c->src_mac, 6);
    memcpy(a->dst_mac, c->sfc_mac[sfc], 6);
}

/* The SFC of event e: no 64-bit division per event with one SFC. */
static inline uint16_t event_sfc(const struct ro_conf *c, uint64_t e)
{
    return c->n_sfcs == 1 ? 0 : (uint16_t)(e % c->n_sfcs);
}

/* Build the frames of one source's fragment of event e toward SFC sfc into the queue
 * (flushing when it fills). Returns 0, -ENOMEM (no mbuf), -EMSGSIZE (an
 * mbuf without room for the frame: the pool's data room is below the
 * MTU's frame; counted in tx_no_room), or -EINTR from flush. */
static int emit_fragment(struct ro_gen *g, const volatile sig_atomic_t *force, uint16_t s,
                         uint64_t e, uint16_t sfc, uint64_t now_ns)
{
    uint16_t source = (uint16_t)(g->c->source_base + s);
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    struct ro_txq *q = &g->q;
    uint32_t len = ro_frag_size(c, source, e), max_piece = g->max_piece;
    struct ebf_addr a;
    size_t hlen = g->hlen;

    g->q_sfc = sfc;
    if (c->encap != EBF_ENCAP_ETH)     /* raw Ethernet copies eth_hdr[sfc] instead */
        ro_frame_addr(c, sfc, &a);
    for (uint32_t off = 0; off < len;) {
        uint16_t piece = (uint16_t)(len - off < max_piece ? len - off : max_piece);
        struct rte_mbuf *m = frame_mbuf(g);
        if (!m) {
            /* Every mbuf is queued or in the driver: push and retry. */
            int rc = q->n ? flush(g, force) : 0;
            if (rc)
                return rc;
            m = frame_mbuf(g);
            if (!m)
                return -ENOMEM;
        }
        size_t flen = hlen + EBF_FRAG_HLEN + piece;
        /* A fresh mbuf: one segment, no data yet (rte_pktmbuf_append
         * without its walk to the last segment). */
        uint8_t *p = flen <= rte_pktmbuf_tailroom(m) ? rte_pktmbuf_mtod(m, uint8_t *) : NULL;
        if (p)
            m->data_len = (uint16_t)(m->pkt_len = (uint32_t)flen);
        if (!p) {
            rte_pktmbuf_free(m);
            st->tx_no_room++;
            return -EMSGSIZE;
        }
        if (c->encap == EBF_ENCAP_ETH)
            memcpy(p, g->eth_hdr[sfc], EBF_ETH_HLEN);   /* no length in it: made once */
        else
            ebf_encap_write(p, &a, EBF_FRAG_HLEN + piece);
        struct ebf_frag_hdr h = {
            .source = source, .seq = g->seq[sfc][s]++, .event_id = e, .frag_len = len,
            .offset = off, .piece_len = piece, .tx_ns = now_ns,
        };
        put_piece(g, m, p + hlen, &h, s);
        q->pkt[q->n++] = m;
        st->frames++;
        st->bytes += flen;
        st->payload_bytes += piece;
        off += piece;
        if (q->n == c->burst) {
            int rc = flush(g, force);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/*
 * emit_fragment for a run that g->fast serves (fast_setup): the fragment
 * is one frame, its mbuf has room, the payload is prebuilt and a tag says
 * whether the mbuf holds it already; raw Ethernet. The same frame and
 * counts as emit_fragment, with the header's words made once per run
 * (ro_fast_write) and nothing looked up per frame that does not change.
 */
static inline int emit_fast(struct ro_gen *g, const volatile sig_atomic_t *force, uint16_t s,
                            uint64_t e, uint16_t sfc, uint64_t now_ns)
{
    struct ro_txq *q = &g->q;
    struct ro_stats *st = g->st;
    struct rte_mbuf *m = frame_mbuf(g);
    uint32_t len = g->fast.len;
    uint16_t flen = g->fast_flen;

    if (unlikely(!m))           /* every mbuf queued or in the driver: push and retry */
        return emit_fragment(g, force, s, e, sfc, now_ns);
    uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
    uint64_t *tag = rte_mbuf_to_priv(m);
    m->data_len = flen;
    m->pkt_len = flen;
    memcpy(p, g->eth_hdr[sfc], EBF_ETH_HLEN);
    if (*tag != g->fast.tag[s]) {
        struct ebf_frag_hdr h = {.offset = 0, .piece_len = (uint16_t)len};
        ro_payload_copy(&g->pay, p + EBF_ETH_HLEN, &h, s);
        *tag = g->fast.tag[s];
    }
    ro_fast_write(&g->fast, p + EBF_ETH_HLEN, s, g->seq[sfc][s]++, e, now_ns);
    g->q_sfc = sfc;
    q->pkt[q->n++] = m;
    st->frames++;
    st->bytes += flen;
    st->payload_bytes += len;
    return q->n == g->c->burst ? flush(g, force) : 0;
}

/* Whether emit_fast may make this run's frames, and its words made: the
 * prebuilt payload kept in tagged mbufs (g->tags: no fault stage), raw
 * Ethernet, one fixed size that fits one frame and the pool's mbufs. */
static void fast_setup(struct ro_gen *g, const struct ro_conf *c)
{
    uint32_t len = c->size_min;
    size_t flen = EBF_ETH_HLEN + EBF_FRAG_HLEN + (size_t)len;
    size_t room = rte_pktmbuf_data_room_size(c->pool);

    if (!g->tags || c->encap != EBF_ENCAP_ETH || c->size_dist != RO_SIZE_UNIFORM ||
        c->size_max > c->size_min || len > g->max_piece || room < RTE_PKTMBUF_HEADROOM ||
        flen > room - RTE_PKTMBUF_HEADROOM)
        return;
    if (ro_fast_init(&g->fast, &g->pay, c->source_base, c->n_sources, len) == 0)
        g->fast_flen = (uint16_t)flen;
}

/* Each SFC's port, and the distinct ones among them. */
static void map_ports(struct ro_gen *g, const struct ro_conf *c)
{
    for (uint16_t k = 0; k < c->n_sfcs; k++) {
        uint16_t p = c->n_sfc_ports ? c->sfc_port[k] : c->port, i = 0;
        g->sfc_port[k] = p;
        while (i < g->n_ports && g->port[i] != p)
            i++;
        if (i == g->n_ports)
            g->port[g->n_ports++] = p;
    }
}

int ro_begin(struct ro_gen *g, const struct ro_conf *c, struct ro_stats *st)
{
    uint64_t hz = rte_get_tsc_hz();

    memset(g, 0, sizeof(*g));
    memset(st, 0, sizeof(*st));
    if (c->burst == 0 || c->burst > RO_BURST_MAX || c->n_sfcs == 0 || c->n_sfcs > RO_MAX_SFCS ||
        (c->n_sfc_ports && c->n_sfc_ports != c->n_sfcs) || c->n_sources == 0 ||
        (unsigned)c->source_base + c->n_sources > EBF_MAX_SOURCES) {
        g->done = 1;
        return -EINVAL;
    }
    if (c->payload == RO_PAYLOAD_PREBUILT &&
        ro_payload_build(&g->pay, c->source_base, c->n_sources, c->size_max, ro_max_piece(c))) {
        g->done = 1;
        return -ENOMEM;
    }
    /* Frames keep their prebuilt bytes between uses when the pool has room
     * for a tag and nothing else writes into them: no fault stage (a
     * corrupt fault writes payloads, a duplicate copies into another mbuf). */
    g->tag_pool = rte_pktmbuf_priv_size(c->pool) >= RO_TAG_PRIV_SIZE;
    g->tags = g->tag_pool && c->payload == RO_PAYLOAD_PREBUILT && !c->fault;
    map_ports(g, c);
    g->max_piece = ro_max_piece(c);
    g->hlen = ebf_encap_hlen(c->encap);
    fast_setup(g, c);
    for (uint16_t k = 0; k < c->n_sfcs; k++) {
        struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
        memcpy(a.src_mac, c->src_mac, 6);
        memcpy(a.dst_mac, c->sfc_mac[k], 6);
        ebf_encap_write(g->eth_hdr[k], &a, 0);
    }
    g->sfc_timeout_tsc = (uint64_t)(c->sfc_timeout_ms * 1e-3 * (double)hz);
    g->c = c;
    g->st = st;
    g->idle = c->idle;
    g->t0 = rte_get_tsc_cycles();
    g->end = c->duration_s > 0 ? g->t0 + (uint64_t)(c->duration_s * (double)hz) : UINT64_MAX;
    g->tsc_per_event = c->rate > 0 ? (double)hz / c->rate : 0;
    ro_throttle_view_init(&g->tv);
    ro_throttle_view_trust(&g->tv, (const uint8_t (*)[6])c->sfc_mac, c->n_sfcs);
    st->start_ns = ebf_now_ns();
    return 0;
}

/* Frames of earlier events still queued (unpaced, they wait to fill a
 * burst) go out before the generator waits or ends; a forced stop frees
 * what the port did not take (tx_abandoned). */
static void flush_waiting(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    if (g->q.n && flush(g, force) == -EINTR)
        g->forced = 1;
}

/* The frames of event e: every source's fragment in pieces of at most
 * ro_max_piece, as emit_fragment builds them. */
static uint64_t event_frames(const struct ro_conf *c, uint64_t e)
{
    uint32_t max = ro_max_piece(c);
    uint64_t n = 0;

    for (uint16_t s = 0; s < c->n_sources; s++) {
        uint32_t len = ro_frag_size(c, (uint16_t)(c->source_base + s), e);
        n += (len + max - 1) / max;
    }
    return n;
}

/* The TSC at which event e is due, 0 when unpaced. */
static uint64_t due_tsc(const struct ro_gen *g, uint64_t e)
{
    return g->tsc_per_event > 0 ? g->t0 + (uint64_t)((double)e * g->tsc_per_event) : 0;
}

/* Generate event e at now_ns: every source's fragment queued (or counted
 * as not sent when its SFC is gone), the queue flushed unless it waits for
 * a full burst, the event counted. 0, or 1 when it was cut short (no
 * mbufs, a frame without room, a forced stop): the run is then finished. */
static int gen_event(struct ro_gen *g, const volatile sig_atomic_t *force, uint64_t e,
                     uint64_t now_ns)
{
    const struct ro_conf *c = g->c;
    struct ro_stats *st = g->st;
    uint16_t sfc = event_sfc(c, e);
    int rc = 0;

    if (st->sfc_gone[sfc])
        st->sfc_gone_frames += event_frames(c, e);     /* generated, not sent */
    else
        for (uint16_t s = 0; s < c->n_sources && rc == 0; s++)
            rc = g->fast.len ? emit_fast(g, force, s, e, sfc, now_ns)
                             : emit_fragment(g, force, s, e, sfc, now_ns);
    /* Full bursts: unpaced and with one SFC, the frames wait for the next
     * event's unless they could not all fit with it (at least a frame per
     * source). With several SFCs the queue holds one SFC's frames (q_sfc):
     * each event's go at once, as the next one goes elsewhere. */
    if (rc == 0 && g->q.n &&
        (g->tsc_per_event > 0 || c->n_sfcs > 1 || g->q.n + c->n_sources > c->burst))
        rc = flush(g, force);
    g->next_event = e + 1;
    if (rc) {
        st->events_abandoned++;     /* generated, maybe partly sent */
        st->id_digest += ebf_mix64(e);
        if (rc == -EINTR)
            RO_LOG(NOTICE, "event %" PRIu64 " cut short by a forced stop\n", e);
        else if (rc == -EMSGSIZE)
            RO_LOG(ERR, "event %" PRIu64 " cut short: a frame of --mtu %u does not fit an "
                   "mbuf of the pool\n", e, c->mtu);
        else
            RO_LOG(ERR, "event %" PRIu64 " cut short: no mbufs\n", e);
        g->rc = rc == -EINTR ? 0 : rc;
        g->forced = rc == -EINTR;       /* held frames are then discarded, counted */
        ro_finish(g);
        return 1;
    }
    if (st->events == 0)
        st->first_event = e;
    st->last_event = e;
    st->events++;
    st->id_digest += ebf_mix64(e);
    return 0;
}

/* Whether ro_next goes on with event e in the same call: unpaced, without
 * a fault stage (its bursts and gaps are per event), not held, and while
 * the queue still waits for a full burst (the frames of one event then the
 * next fill it; once it went out, the call ends). A call thus makes about
 * a burst of frames, and the per-call work (the clocks, the receive poll,
 * the hold and deadline checks) is paid once per burst, not per event. */
static int batch_more(const struct ro_gen *g, uint64_t e)
{
    const struct ro_conf *c = g->c;

    return g->tsc_per_event == 0 && !c->fault && !g->done && !g->held_since && g->q.n &&
           !(c->n_events && e >= c->n_events);
}


/* Whether ro_next needs the TSC: pacing, a deadline or a hold in progress
 * (a rdtsc costs about 18 ns in a VM, half a frame's time unpaced). */
static inline int tsc_needed(const struct ro_gen *g)
{
    return g->tsc_per_event > 0 || g->end != UINT64_MAX || g->held_since;
}

int ro_next(struct ro_gen *g, const volatile sig_atomic_t *force)
{
    const struct ro_conf *c = g->c;
    uint64_t e = g->next_event, now = tsc_needed(g) ? rte_get_tsc_cycles() : 0;

    if (g->done)
        return 0;
    g->force = force;
    uint64_t now_ns = ebf_now_ns();
    rx_poll(g, now_ns);
    if ((c->n_events && e >= c->n_events) || now >= g->end || due_tsc(g, e) >= g->end) {
        ro_finish(g);           /* the next event falls after the deadline */
        return 0;
    }
    if (held(g, now_ns, now)) {
        flush_waiting(g, force);    /* what was generated goes before the hold */
        return 0;
    }
    if (g->held_since)
        hold_end(g, now);
    if (now < due_tsc(g, e))
        return 0;
    if (c->fault)
        flush_waiting(g, force);    /* before a burst gap */
    if (c->fault && ro_fault_tx_gap(c->fault, e, c->idle.mode == EBF_IDLE_BACKOFF, force))
        return 0;               /* forced stop between bursts */
    if (c->fault)
        now_ns = ebf_now_ns();  /* after a burst gap */
    for (int n = 0;; e++) {
        if (gen_event(g, force, e, now_ns))
            return n + 1;       /* cut short: the run is over */
        n++;
        if (!batch_more(g, e + 1))
            return n;
    }
}

void ro_finish(struct ro_gen *g)
{
    static const volatile sig_atomic_t no_force;
    const struct ro_conf *c = g->c;

    if (g->done)
        return;
    g->done = 1;
    if (g->q.n && !g->forced)   /* the last events' frames, waiting for a burst */
        g->forced = flush(g, g->force ? g->force : &no_force) == -EINTR;
    if (g->q.n_spare) {
        rte_pktmbuf_free_bulk(g->q.spare, g->q.n_spare);
        g->q.n_spare = 0;
    }
    if (g->held_since)
        hold_end(g, rte_get_tsc_cycles());
    if (c && c->fault)
        ro_fault_tx_end(c->fault);
    if (c && c->fault && g->rc == 0 && !g->forced && ro_fault_tx_held(c->fault)) {
        ro_fault_tx_finish(c->fault);   /* reordered and delayed frames go out */
        flush(g, &no_force);
    }
    if (c && c->fault)
        g->st->tx_abandoned += ro_fault_tx_discard(c->fault);
    ro_payload_free(&g->pay);
    g->st->end_ns = ebf_now_ns();
}

/* Wait for the pacing schedule: spin when close, sleep in back-off mode. */
static void pace(const struct ro_gen *g, const volatile sig_atomic_t *stop)
{
    uint64_t hz = rte_get_tsc_hz(), due = due_tsc(g, g->next_event);

    for (;;) {
        uint64_t now = rte_get_tsc_cycles();
        if (now >= due || *stop)
            return;
        uint64_t left_us = (due - now) * 1000000 / hz;
        if (g->c->idle.mode == EBF_IDLE_BACKOFF && left_us > 20)
            rte_delay_us_sleep((unsigned)(left_us > 1000 ? 1000 : left_us - 10));
        else
            rte_pause();
    }
}

int ro_run(const struct ro_conf *c, struct ro_stats *st, const volatile sig_atomic_t *stop,
           const volatile sig_atomic_t *force)
{
    struct ro_gen g;

    if (ro_begin(&g, c, st))
        return -EINVAL;
    while (!g.done) {
        if (*stop) {
            ro_finish(&g);      /* stopped: send nothing more */
            break;
        }
        if (ro_next(&g, force))
            continue;
        if (g.held_since)
            ebf_idle_note(&g.idle, 0);  /* held by an SFC: back off */
        else
            pace(&g, stop);
    }
    return g.rc;
}
