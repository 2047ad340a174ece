/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_rig.h - the SFC data-plane test rig: EAL, crossed net_ring ports, hand-made fragment and credit frames. */
#ifndef SFC_RIG_H
#define SFC_RIG_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "ebf_proto.h"
#include "sfc_dp.h"

#define N_SOURCES 4
#define FRAG_LEN 1000

struct rig_opts {
    double timeout_ms;
    uint16_t n_nodes;            /* both on the one node port */
    double node_timeout_ms;
    uint16_t n_readouts;         /* --readout-mac: ro_mac, then ro2_mac */
    uint8_t verify;              /* enum sfc_verify (0: full) */
    uint32_t verify_every;
    uint16_t n_sources;          /* 0: N_SOURCES */
    uint32_t max_frames;         /* 0: 1024 */
    uint32_t max_event;          /* 0: no limit */
    uint16_t mtu;                /* 0: 1500 (pools of 2048-byte rooms; larger: rooms to fit) */
    uint32_t release_ms;         /* failover: release rounds (0: off) */
    uint32_t sfc_dead_ms;        /* and the detection bound the fence follows (0: 100) */
};

struct rig {
    uint16_t ro_port, sfc_rx, sfc_node, node_port;
    struct rte_mempool *pool;
    struct sfc_dp *dp;
    uint8_t sfc_rx_mac[6], sfc_node_mac[6];
    uint32_t seq[N_SOURCES];     /* next sequence number per source */
    uint16_t took_flags[64];     /* the event flags of node_take's frames, in order */
};

#define ALL ((1u << N_SOURCES) - 1)

extern const uint8_t node_mac[6], node1_mac[6];    /* nodes 0 and 1 */
extern const uint8_t ro_mac[6];                     /* the readout every helper sends from */
extern const uint8_t ro2_mac[6];                    /* a second readout */
extern const uint8_t stranger_mac[6];               /* no readout of the farm */

/* EAL in this (forked) test process, four ports joined by rings:
 * readout -> sfc_rx (throttle frames back), sfc_node <-> node; the SFC's
 * data plane on them. */
void rig_up_opts(struct rig *g, const struct rig_opts *o);
void rig_up(struct rig *g, double timeout_ms);
void rig_down(struct rig *g);

/* The transmit timestamp the fragments below carry (1000 unless a test sets it). */
extern uint64_t rig_tx_ns;

/* One single-piece fragment frame of (source, event) to dst from ro_mac:
 * sequence number event, or seq; fragment_from sends from src. */
struct rte_mbuf *fragment(struct rig *g, const uint8_t dst[6], uint16_t source, uint64_t event);
struct rte_mbuf *fragment_seq(struct rig *g, const uint8_t dst[6], uint16_t source,
                              uint64_t event, uint32_t seq);
struct rte_mbuf *fragment_from(struct rig *g, const uint8_t src[6], const uint8_t dst[6],
                               uint16_t source, uint64_t event, uint32_t seq);
/* The same with the fragment header's flags (EBF_FRAGF_REPLAY: a replayed one). */
struct rte_mbuf *fragment_flagged(struct rig *g, const uint8_t src[6], const uint8_t dst[6],
                                  uint16_t source, uint64_t event, uint32_t seq, uint16_t flags);
void send_frames(uint16_t port, struct rte_mbuf **m, uint16_t n);

/* Credit frames with acks: from node 0 of epoch 1, from node (0 or 1) of
 * epoch, and the same to the MAC dst. */
void credit(struct rig *g, uint16_t credits, const struct ebf_ack *acks, uint16_t n);
void credit_from(struct rig *g, uint16_t node, uint32_t epoch, uint16_t credits,
                 const struct ebf_ack *acks, uint16_t n);
void credit_to(struct rig *g, const uint8_t dst[6], uint16_t node, uint32_t epoch,
               uint16_t credits, const struct ebf_ack *acks, uint16_t n);

void poll_n(struct rig *g, int n);
uint16_t node_rx(struct rig *g, struct rte_mbuf **m, uint16_t max);

/* The fragments of event id from the sources in mask, each with the next
 * sequence number of its source. */
void send_event(struct rig *g, uint64_t id, unsigned mask);
void send_event_flagged(struct rig *g, uint64_t id, unsigned mask, uint16_t flags);

/* Every event frame at the node port: its event id and the node it went to
 * (0 or 1), its flags in g->took_flags (the first 64); returns the number
 * of frames. */
unsigned node_take(struct rig *g, uint64_t *ids, uint8_t *to, unsigned max);

/* The staged drain to its end; the events the SFC lost, all reasons. */
void drain(struct rig *g);
uint64_t lost_total(const struct sfc_stats *st);

#endif /* SFC_RIG_H */
