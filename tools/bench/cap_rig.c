/* SPDX-License-Identifier: BSD-3-Clause */
/* cap_rig.c - the in-process capacity rig: crossed net_ring ports, pre-built fragment frames, an emulated node. */
#include "cap_rig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>

#include "ebf_crc.h"
#include "ebf_param.h"
#include "ebf_pattern.h"
#include "ebf_port.h"
#include "ebf_proto.h"

#define RING_SIZE 8192
#define POOL_MBUFS 16383
#define POOL_MBUFS_JUMBO 8191    /* data rooms over 2 KiB: half as many (memory) */

static const uint8_t ro_mac[6] = {0x02, 0xeb, 0, 0, 0x01, 0x00};

/* Node n (0 or 1) of lane: 02:eb:00:<lane>:02:0n. */
static void node_mac(unsigned lane, unsigned n, uint8_t mac[6])
{
    const uint8_t m[6] = {0x02, 0xeb, 0, (uint8_t)lane, 0x02, (uint8_t)n};
    memcpy(mac, m, 6);
}

/* A lane's ring of RING_SIZE, or of size entries when that is more. */
static struct rte_ring *ring_of(const char *base, unsigned lane, unsigned size)
{
    char name[RTE_RING_NAMESIZE];
    snprintf(name, sizeof(name), "%s%u", base, lane);
    size = size > RING_SIZE ? rte_align32pow2(size) : RING_SIZE;
    struct rte_ring *r = rte_ring_create(name, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!r)
        fprintf(stderr, "sfc-capacity: cannot make ring %s: %s\n", name,
                rte_strerror(rte_errno));
    return r;
}

static struct rte_ring *ring(const char *base, unsigned lane)
{
    return ring_of(base, lane, RING_SIZE);
}

static int ring_port(const char *base, unsigned lane, struct rte_ring *rx, struct rte_ring *tx,
                     uint16_t *port)
{
    char name[32];
    snprintf(name, sizeof(name), "%s%u", base, lane);
    int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);
    if (p < 0) {
        fprintf(stderr, "sfc-capacity: cannot make ring port %s\n", name);
        return -1;
    }
    *port = (uint16_t)p;
    return 0;
}

/* The data room a frame of o->mtu needs (Ethernet header on top of the
 * MTU), at least the usual 2 KiB. */
static uint16_t pool_room(const struct cap_opts *o)
{
    unsigned room = (unsigned)o->mtu + EBF_ETH_HLEN + 4;
    return (uint16_t)(room > 2048 ? room : 2048);
}

/* Mbufs per lane in each pool: fewer for jumbo data rooms; a round's
 * frames and 4096 more (the ports' descriptors, credits), 2^k - 1. */
static unsigned lane_mbufs(const struct cap_opts *o)
{
    unsigned base = pool_room(o) > 2048 ? POOL_MBUFS_JUMBO : POOL_MBUFS;
    unsigned need = rte_align32pow2(o->batch_frames + 4096) - 1;
    return need > base ? need : base;
}

/* Events the SFC's table holds per lane: a round's, at least 4096. */
static unsigned lane_events(const struct cap_rig *g)
{
    return g->batch_events > 4096 ? rte_align32pow2(g->batch_events) : 4096;
}

int cap_pools_up(struct cap_pools *p, const struct cap_opts *o)
{
    unsigned w = o->workers ? o->workers : 1;
    p->mbufs = lane_mbufs(o) * w + (w - 1);      /* 2^k - 1 for 1 lane */
    p->pool = ebf_pool_create("cap_pool", p->mbufs, 2048, 0);    /* credits; frames: lanes' */
    p->hdr_pool = ebf_pool_create("cap_hdr", p->mbufs, 128, 0);
    p->clone_pool = ebf_pool_create("cap_clone", p->mbufs, 0, 0);
    if (!p->pool || !p->hdr_pool || !p->clone_pool) {
        fprintf(stderr, "sfc-capacity: cannot make the pools: %s\n", rte_strerror(rte_errno));
        return -1;
    }
    return 0;
}

/* Node k of lane's id at the SFC: its lane's pair on the lane's own node
 * port (port w to worker w), or on a shared node port W apart (node i to
 * worker i % W). */
static uint16_t node_index(const struct cap_opts *o, unsigned lane, unsigned k)
{
    unsigned n = o->workers ? o->workers : 1;
    return (uint16_t)(o->shared && n > 1 ? k * n + lane : lane * CAP_NODES + k);
}

/* A ring several lanes enqueue into (multi-producer), sized for all. */
static struct rte_ring *shared_ring(const char *name, unsigned lanes)
{
    struct rte_ring *r = rte_ring_create(name, rte_align32pow2(RING_SIZE * lanes), 0,
                                         RING_F_SC_DEQ);
    if (!r)
        fprintf(stderr, "sfc-capacity: cannot make ring %s: %s\n", name,
                rte_strerror(rte_errno));
    return r;
}

/* Shared: lane 0 makes the two ports (the node port with a tx queue per
 * lane, each into that lane's r_down), the others find them. */
static int make_shared_ports(struct cap_rig *g, const struct cap_pools *pl)
{
    unsigned n = g->o.workers;
    struct rte_ring *down[CAP_LANES_MAX];
    struct rte_ether_addr ea;

    g->r_void = ring("cap_void", g->lane);
    if (g->lane == 0) {
        g->r_in = shared_ring("cap_in", n * (g->o.batch_frames / RING_SIZE + 1));
        g->r_up = shared_ring("cap_up", n);
        for (unsigned w = 0; w < n; w++)
            if (!(down[w] = ring("cap_down", w)))
                return -1;
        int p = g->r_in && g->r_up && g->r_void
                    ? rte_eth_from_rings("cap_node0", &g->r_up, 1, down, (unsigned)n, 0) : -1;
        if (p < 0 || ring_port("cap_rx", 0, g->r_in, g->r_void, &g->sfc_rx) != 0)
            return -1;
        g->sfc_node = (uint16_t)p;
        if (ebf_port_start(g->sfc_rx, pl->pool, 0, 1024, 1024) != 0 ||
            ebf_port_start_queues(g->sfc_node, pl->pool, 0, 1024, 1024, 1, (uint16_t)n) != 0)
            return -1;
    } else {
        char name[RTE_RING_NAMESIZE];
        g->r_in = rte_ring_lookup("cap_in");
        g->r_up = rte_ring_lookup("cap_up");
        if (!g->r_in || !g->r_up || !g->r_void ||
            rte_eth_dev_get_port_by_name("net_ring_cap_rx0", &g->sfc_rx) != 0 ||
            rte_eth_dev_get_port_by_name("net_ring_cap_node0", &g->sfc_node) != 0)
            return -1;
        snprintf(name, sizeof(name), "cap_down%u", g->lane);
        down[g->lane] = rte_ring_lookup(name);
    }
    g->r_down = down[g->lane];
    g->pool = pl->pool;
    g->hdr_pool = pl->hdr_pool;
    g->clone_pool = pl->clone_pool;
    rte_eth_macaddr_get(g->sfc_rx, &ea);
    memcpy(g->sfc_rx_mac, ea.addr_bytes, 6);
    g->sfc_rx_mac[3] = (uint8_t)(g->sfc_rx_mac[3] + g->lane);     /* worker lane's MAC */
    rte_eth_macaddr_get(g->sfc_node, &ea);
    memcpy(g->sfc_node_mac, ea.addr_bytes, 6);
    return g->r_down ? 0 : -1;
}

static int make_ports(struct cap_rig *g, const struct cap_pools *pl)
{
    if (g->o.shared && g->o.workers > 1)
        return make_shared_ports(g, pl);
    g->r_in = ring_of("cap_in", g->lane, g->o.batch_frames + 1);    /* a round at once */
    g->r_void = ring("cap_void", g->lane);
    g->r_down = ring("cap_down", g->lane);
    g->r_up = ring("cap_up", g->lane);
    if (!g->r_in || !g->r_void || !g->r_down || !g->r_up)
        return -1;
    if (ring_port("cap_rx", g->lane, g->r_in, g->r_void, &g->sfc_rx) != 0 ||
        ring_port("cap_node", g->lane, g->r_up, g->r_down, &g->sfc_node) != 0)
        return -1;
    g->pool = pl->pool;
    g->hdr_pool = pl->hdr_pool;
    g->clone_pool = pl->clone_pool;
    if (ebf_port_start(g->sfc_rx, g->pool, 0, 1024, 1024) != 0 ||
        ebf_port_start(g->sfc_node, g->pool, 0, 1024, 1024) != 0)
        return -1;
    struct rte_ether_addr ea;
    rte_eth_macaddr_get(g->sfc_rx, &ea);
    memcpy(g->sfc_rx_mac, ea.addr_bytes, 6);
    rte_eth_macaddr_get(g->sfc_node, &ea);
    memcpy(g->sfc_node_mac, ea.addr_bytes, 6);
    return 0;
}

/* One piece frame of source s, piece k: addressing and payload, written
 * once; its headers are rewritten per round. */
static struct rte_mbuf *piece_frame(struct cap_rig *g, uint16_t s, uint32_t k, uint32_t max)
{
    uint32_t off = k * max;
    uint32_t piece = g->o.frag_size - off < max ? g->o.frag_size - off : max;
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->frame_pool);
    if (!m)
        return NULL;
    uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + EBF_FRAG_HLEN + piece));
    if (!p) {
        rte_pktmbuf_free(m);
        return NULL;
    }
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->sfc_rx_mac, 6);
    ebf_encap_write(p, &a, EBF_FRAG_HLEN + piece);
    ebf_pattern_fill(p + EBF_ETH_HLEN + EBF_FRAG_HLEN, piece, s, 0, off);
    return m;
}

/* The lane's pool of exactly n frames. Its per-lcore cache (the readout
 * pool's shape in the daemon) only when the lane's own lcore frees its
 * frames: with shared ports another worker may free them into its own
 * cache, where cap_rig_feed could not take them back. */
static struct rte_mempool *frame_pool(const struct cap_rig *g, uint32_t n)
{
    char name[RTE_MEMPOOL_NAMESIZE];
    unsigned cache = g->o.shared && g->o.workers > 1 ? 0 : n * 2 / 3 < 256 ? n * 2 / 3 : 256;

    snprintf(name, sizeof(name), "cap_frames%u", g->lane);
    struct rte_mempool *mp = rte_pktmbuf_pool_create(
        name, n, cache, 0, (uint16_t)(pool_room(&g->o) + RTE_PKTMBUF_HEADROOM), 0);
    if (!mp)
        fprintf(stderr, "sfc-capacity: cannot make the pool of %u frames: %s\n", n,
                rte_strerror(rte_errno));
    return mp;
}

static int make_frames(struct cap_rig *g)
{
    uint32_t max = ebf_piece_max(EBF_ENCAP_ETH, g->o.mtu);
    g->pieces = (g->o.frag_size + max - 1) / max;
    g->per_event = g->pieces * g->o.sources;
    g->batch_events = g->o.batch_frames / g->per_event ? g->o.batch_frames / g->per_event : 1;
    g->n_frames = g->batch_events * g->per_event;
    g->frame = calloc(g->n_frames, sizeof(*g->frame));
    if (!g->frame || !(g->frame_pool = frame_pool(g, g->n_frames)))
        return -1;
    g->held = 1;
    uint32_t i = 0;
    for (uint32_t e = 0; e < g->batch_events; e++)
        for (uint16_t s = 0; s < g->o.sources; s++)
            for (uint32_t k = 0; k < g->pieces; k++)
                if (!(g->frame[i++] = piece_frame(g, s, k, max))) {
                    fprintf(stderr, "sfc-capacity: out of mbufs for %u frames\n", g->n_frames);
                    return -1;
                }
    return 0;
}

/* The SFC over every lane: lane w's readout port and node port are
 * worker w's (one readout port each, so the runs are single ports; node
 * port w goes to worker w % W = w), its 2 nodes ids 2w and 2w + 1; or
 * shared, lane 0's ports for all (node_index). */
static struct sfc_workers *make_sfc(struct cap_rig *const *lanes, unsigned n,
                                    const struct cap_pools *p)
{
    const struct cap_opts *o = &lanes[0]->o;
    struct sfc_conf c = {
        .rx_port = lanes[0]->sfc_rx, .n_sources = (uint16_t)o->sources,
        .udp_port = EBF_UDP_PORT_DEFAULT, .n_nodes = (uint16_t)(CAP_NODES * n),
        .capacity = lane_events(lanes[0]) * n, .max_frames = lane_mbufs(o) * n,
        .max_credits = 256, .timeout_ms = 1000, .mtu = o->mtu, .burst = 32, .hdr_pool = p->hdr_pool,
        .clone_pool = p->clone_pool, .drain_quiet_ms = 10, .drain_timeout_ms = 100,
        .throttle_on = 0.75, .throttle_off = 0.5, .verify = o->verify,
        .verify_every = o->verify_every, .workers = (uint16_t)n,
    };
    for (unsigned w = 1; w < n && !o->shared; w++)
        c.more_rx[c.n_more_rx++] = lanes[w]->sfc_rx;
    for (unsigned w = 0; w < n; w++)
        for (unsigned k = 0; k < CAP_NODES; k++) {
            uint16_t i = node_index(o, w, k);
            c.node[i].port = lanes[w]->sfc_node;
            node_mac(w, k, c.node[i].mac);
        }
    ebf_idle_init(&c.idle, EBF_IDLE_SPIN);
    struct sfc_workers *sw = sfc_workers_create(&c);
    if (!sw)
        fprintf(stderr, "sfc-capacity: cannot create the SFC's %u data plane(s)\n", n);
    return sw;
}

/* One credit frame from node n: credits and acks. */
static void credit(struct cap_rig *g, unsigned n, uint16_t credits, const struct ebf_ack *acks,
                   uint16_t n_acks)
{
    struct rte_mbuf *m = rte_pktmbuf_alloc(g->pool);
    size_t len = ebf_credit_len(n_acks);
    uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(EBF_ETH_HLEN + len)) : NULL;
    if (!p) {
        fprintf(stderr, "sfc-capacity: out of mbufs for a credit frame\n");
        exit(1);
    }
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.dst_mac, g->sfc_node_mac, 6);
    node_mac(g->lane, n, a.src_mac);
    ebf_encap_write(p, &a, len);
    struct ebf_credit_hdr h = {.node_id = node_index(&g->o, g->lane, n), .credits = credits,
                               .n_acks = n_acks, .epoch = 1, .seq = g->credit_seq[n]++};
    ebf_credit_write(p + EBF_ETH_HLEN, &h, acks);
    if (rte_ring_enqueue(g->r_up, m) != 0) {
        fprintf(stderr, "sfc-capacity: the credit ring is full\n");
        exit(1);
    }
}

int cap_rig_up(struct cap_rig *g, const struct cap_opts *o, unsigned lane,
               const struct cap_pools *p)
{
    memset(g, 0, sizeof(*g));
    g->o = *o;
    g->lane = lane;
    g->next_event = lane;
    return make_ports(g, p) == 0 && make_frames(g) == 0 ? 0 : -1;
}

struct sfc_workers *cap_sfc_up(struct cap_rig *const *lanes, unsigned n,
                               const struct cap_pools *p)
{
    struct sfc_workers *sw = make_sfc(lanes, n, p);

    for (unsigned w = 0; sw && w < n; w++) {
        lanes[w]->dp = sfc_workers_dp(sw, w);
        for (unsigned k = 0; k < CAP_NODES; k++)
            credit(lanes[w], k, 256, NULL, 0);
    }
    return sw;
}

void cap_rig_down(struct cap_rig *g)
{
    if (g->frame && g->held)
        for (uint32_t i = 0; i < g->n_frames; i++)
            rte_pktmbuf_free(g->frame[i]);
    free(g->frame);
}

/* Take the last round's frames back from the lane's pool, where the SFC
 * (or the reference) freed them: all of them, or the round is stuck. Their
 * order may change; every frame has the same addresses and a payload room
 * for any piece, and cap_rig_feed resets its data offset (the SFC keeps a
 * frame trimmed to its fragment) and rewrites its length and headers. */
static void take_back(struct cap_rig *g)
{
    struct rte_mempool_cache *c = rte_mempool_default_cache(g->frame_pool, rte_lcore_id());

    if (c)
        rte_mempool_cache_flush(c, g->frame_pool);
    if (rte_mempool_get_bulk(g->frame_pool, (void **)g->frame, g->n_frames) != 0) {
        fprintf(stderr, "sfc-capacity: a frame of the last round is still held\n");
        exit(1);
    }
    g->held = 1;
}

void cap_rig_feed(struct cap_rig *g)
{
    uint32_t max = ebf_piece_max(EBF_ENCAP_ETH, g->o.mtu), i = 0;
    unsigned step = g->o.workers ? g->o.workers : 1;
    struct ebf_addr a = {.encap = EBF_ENCAP_ETH};
    memcpy(a.src_mac, ro_mac, 6);
    memcpy(a.dst_mac, g->sfc_rx_mac, 6);
    if (!g->held)
        take_back(g);
    for (uint32_t e = 0; e < g->batch_events; e++, g->next_event += step)
        for (uint16_t s = 0; s < g->o.sources; s++)
            for (uint32_t k = 0; k < g->pieces; k++) {
                struct rte_mbuf *m = g->frame[i++];
                uint32_t off = k * max;
                uint32_t piece = g->o.frag_size - off < max ? g->o.frag_size - off : max;
                rte_pktmbuf_reset_headroom(m);      /* as a receive does: the SFC
                                                     * trims what it keeps */
                m->data_len = (uint16_t)(EBF_ETH_HLEN + EBF_FRAG_HLEN + piece);
                m->pkt_len = m->data_len;
                /* the Ethernet header too: the SFC writes an event frame's
                 * headers over it (in front of the piece it keeps) */
                ebf_encap_write(rte_pktmbuf_mtod(m, uint8_t *), &a, EBF_FRAG_HLEN + piece);
                struct ebf_frag_hdr h = {
                    .source = s, .seq = g->seq[s]++, .event_id = g->next_event,
                    .frag_len = g->o.frag_size, .offset = off, .piece_len = (uint16_t)piece,
                    .tx_ns = 1,
                };
                ebf_frag_write(rte_pktmbuf_mtod_offset(m, uint8_t *, EBF_ETH_HLEN), &h);
            }
    g->held = 0;            /* the SFC's now, as a received frame is: a reference of one */
    g->fed_events += g->batch_events;
    g->fed_frames += g->n_frames;
    if (rte_ring_enqueue_bulk(g->r_in, (void **)g->frame, g->n_frames, NULL) != g->n_frames) {
        fprintf(stderr, "sfc-capacity: the input ring is full\n");
        exit(1);
    }
}

/* The node of an event frame (by its destination), its event id and
 * whether it is the event's last frame. */
static int event_of(const struct cap_rig *g, const struct rte_mbuf *m, uint64_t *id, int *last)
{
    uint8_t node1[6];
    node_mac(g->lane, 1, node1);
    const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
    struct ebf_event_hdr eh;
    if (ebf_event_parse(p + EBF_ETH_HLEN, m->data_len - EBF_ETH_HLEN, &eh) != EBF_R_OK)
        return -1;
    *id = eh.event_id;
    *last = eh.frame_index + 1 == eh.frame_count;
    return memcmp(p, node1, 6) == 0;
}

unsigned cap_rig_nodes(struct cap_rig *g)
{
    struct rte_mbuf *m[64];
    struct ebf_ack acks[CAP_NODES][EBF_MAX_ACKS];
    uint16_t n_acks[CAP_NODES] = {0};
    unsigned n = rte_ring_dequeue_burst(g->r_down, (void **)m, 64, NULL), got = n;
    for (unsigned i = 0; i < n && !g->o.io; i++) {
        uint64_t id;
        int last, node = event_of(g, m[i], &id, &last);
        if (node < 0) {
            fprintf(stderr, "sfc-capacity: the node port got a frame that is no event frame\n");
            exit(1);
        }
        if (last)
            acks[node][n_acks[node]++] = (struct ebf_ack){.event_id = id,
                                                          .decision = EBF_DEC_ACCEPT};
    }
    g->node_frames += n;
    if (n)
        rte_pktmbuf_free_bulk(m, n);
    for (unsigned k = 0; k < CAP_NODES; k++)
        if (n_acks[k]) {
            credit(g, k, n_acks[k], acks[k], n_acks[k]);
            g->acked += n_acks[k];
        }
    n = rte_ring_dequeue_burst(g->r_void, (void **)m, 64, NULL);   /* throttle frames */
    if (n)
        rte_pktmbuf_free_bulk(m, n);
    return got;
}

/* The data of m a reference reads, prefetched a few frames ahead as the
 * SFC's intake does (sfc_guard_prefetch): every line for the CRC, else
 * the headers' line. */
static void ref_prefetch(const struct cap_rig *g, const struct rte_mbuf *m)
{
    const void *p = rte_pktmbuf_mtod(m, const void *);
    if (g->o.io == CAP_REF_CRC)
        ebf_crc_prefetch(p, m->data_len);
    else
        __builtin_prefetch(p, 0, 3);
}

void cap_ref_pass(struct cap_rig *g, struct rte_mbuf **m, uint16_t n)
{
    for (uint16_t i = 0; i < n && i < 2 && g->o.io != CAP_REF_IO; i++)
        ref_prefetch(g, m[i]);
    for (uint16_t i = 0; i < n && g->o.io != CAP_REF_IO; i++) {
        const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
        if (i + 2 < n)
            ref_prefetch(g, m[i + 2]);
        struct ebf_l2l3 l;
        struct ebf_frag_hdr h;
        size_t used;
        enum ebf_reason r = ebf_parse_l2l3(p, m[i]->data_len, EBF_UDP_PORT_DEFAULT, &l);
        if (r == EBF_R_OK)
            r = ebf_frag_parse(p + l.hlen, l.len, (uint16_t)g->o.sources, 0, &h, &used);
        if (r == EBF_R_OK && g->o.io == CAP_REF_CRC && !ebf_frag_crc_ok(p + l.hlen, &h))
            r = EBF_R_BAD_CHECKSUM;
        if (r != EBF_R_OK) {
            fprintf(stderr, "sfc-capacity: the reference found a bad frame (%d)\n", (int)r);
            exit(1);
        }
    }
}

int cap_rig_round_done(const struct cap_rig *g)
{
    if (g->o.io)
        return g->node_frames >= g->fed_frames;
    return sfc_dp_stats(g->dp)->acks >= g->fed_events;
}
