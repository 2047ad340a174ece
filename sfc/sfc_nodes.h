/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_nodes.h - the SFC's nodes: liveness, epochs, which node ports have a live node, and their credits (sfc_credit); no DPDK. */
#ifndef SFC_NODES_H
#define SFC_NODES_H

#include <stdint.h>

#include "ebf_proto.h"
#include "sfc_credit.h"
#include "sfc_evtab.h"
#include "sfc_stats.h"

enum sfc_node_state { SFC_NODE_NEW = 0, SFC_NODE_ALIVE, SFC_NODE_DEAD };

struct sfc_node_live {
    uint64_t last_tsc;           /* last credit frame of the current epoch */
    uint32_t epoch;
    uint8_t state;               /* enum sfc_node_state */
    uint8_t was_dead;            /* declared dead once, or an earlier epoch was:
                                  * its acks of events it does not hold are late */
};

/* A node's address: the port it is on and its MAC. */
struct sfc_node_conf {
    uint16_t port;
    uint8_t mac[6];
};

struct sfc_nodes_conf {
    uint16_t n_nodes;
    const struct sfc_node_conf *node;   /* [n_nodes] */
    uint32_t max_credits;        /* credits + in-flight per node */
    uint64_t timeout_tsc;        /* silent this long: dead; 0 never */
    uint64_t mask;               /* bit i: node i is served here; 0: every node */
    const uint16_t *port_of;     /* node i's node port (an index, < n_nodes) */
};

/* One data plane's nodes; one lcore only. */
struct sfc_nodes {
    struct sfc_credit *credit;
    uint64_t timeout_tsc;
    uint64_t mask;
    uint16_t n_nodes;
    struct sfc_node_conf node[SFC_MAX_NODES];
    uint16_t port_of[SFC_MAX_NODES];
    uint16_t q_alive[SFC_MAX_NODES];     /* per node port: nodes served and not dead */
    struct sfc_node_live live[SFC_MAX_NODES];
};

/* What a credit frame from a node with its epoch means. */
enum sfc_heard {
    SFC_HEARD_OK,                /* a live node: acks and credits count */
    SFC_HEARD_LATE,              /* it was dead (revived): its acks are late, credits count */
    SFC_HEARD_OLD_EPOCH,         /* an older incarnation: acks late, credits ignored */
    SFC_HEARD_REJOIN,            /* a new epoch (rejoined): acks and credits count */
    SFC_HEARD_REJOIN_DEAD,       /* the same, and the old incarnation, alive till
                                  * now, is declared dead: take its events back */
};

/* Every node NEW, every served node counted alive on its port; the credit
 * table made. 0, or -errno (sfc_credit_create's). */
int sfc_nodes_init(struct sfc_nodes *n, const struct sfc_nodes_conf *c);
void sfc_nodes_fini(struct sfc_nodes *n);

/* A frame from node port port (p, len; UDP-encapsulated on udp_port) as a
 * credit frame into h and acks: the node it came from, or -1 when it is not
 * a valid unicast credit frame of a known node on that port: *r the parse
 * failure (EBF_R_OK: none), else *d the reason to drop it (wrong_type,
 * not_unicast, unknown_node). */
int sfc_nodes_parse(const struct sfc_nodes *n, uint16_t port, const uint8_t *p, uint16_t len,
                    uint16_t udp_port, struct ebf_credit_hdr *h, struct ebf_ack *acks,
                    enum ebf_reason *r, enum sfc_drop *d);

/* Declare dead the nodes silent past the timeout (their credits revoked);
 * their ids into dead (room for SFC_MAX_NODES). Returns how many. */
unsigned sfc_nodes_check(struct sfc_nodes *n, uint64_t now, uint16_t *dead);

/* A credit frame from node with epoch at now: its liveness and epoch
 * updated (credits revoked on a new epoch); what it means for its acks
 * and credits. */
enum sfc_heard sfc_nodes_heard(struct sfc_nodes *n, uint16_t node, uint32_t epoch, uint64_t now);

/* Every event of tab sent to node and not acked back at the head of the
 * ready queue, for another node. Returns how many. */
unsigned sfc_nodes_take_back(struct sfc_evtab *tab, uint32_t capacity, uint16_t node);

static inline int sfc_nodes_serves(const struct sfc_nodes *n, uint16_t node)
{
    return !n->mask || (n->mask >> node & 1);
}

/* No live node on node port q: it is polled now and then only. */
static inline int sfc_nodes_port_quiet(const struct sfc_nodes *n, uint16_t q)
{
    return n->q_alive[q] == 0;
}

static inline int sfc_nodes_was_dead(const struct sfc_nodes *n, uint16_t node)
{
    return n->live[node].was_dead;
}

static inline int sfc_nodes_alive(const struct sfc_nodes *n, uint16_t node)
{
    return n->live[node].state == SFC_NODE_ALIVE;
}

static inline uint32_t sfc_nodes_epoch(const struct sfc_nodes *n, uint16_t node)
{
    return n->live[node].epoch;
}

#endif /* SFC_NODES_H */
