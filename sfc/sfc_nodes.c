/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_nodes.c - the SFC's nodes: dead on silence, back with the same or a new epoch, their credits. */
#include "sfc_nodes.h"

#include <errno.h>
#include <string.h>

int sfc_nodes_init(struct sfc_nodes *n, const struct sfc_nodes_conf *c)
{
    memset(n, 0, sizeof(*n));
    n->credit = sfc_credit_create(c->n_nodes, c->max_credits);
    if (!n->credit)
        return -errno;
    n->n_nodes = c->n_nodes;
    n->timeout_tsc = c->timeout_tsc;
    n->mask = c->mask;
    memcpy(n->node, c->node, sizeof(n->node[0]) * c->n_nodes);
    memcpy(n->port_of, c->port_of, sizeof(n->port_of[0]) * c->n_nodes);
    for (uint16_t i = 0; i < c->n_nodes; i++)
        if (sfc_nodes_serves(n, i))
            n->q_alive[n->port_of[i]]++;
    return 0;
}

void sfc_nodes_fini(struct sfc_nodes *n)
{
    sfc_credit_destroy(n->credit);
    n->credit = NULL;
}

int sfc_nodes_parse(const struct sfc_nodes *n, uint16_t port, const uint8_t *p, uint16_t len,
                    uint16_t udp_port, struct ebf_credit_hdr *h, struct ebf_ack *acks,
                    enum ebf_reason *r, enum sfc_drop *d)
{
    struct ebf_l2l3 l;

    *r = ebf_parse_l2l3(p, len, udp_port, &l);
    if (*r == EBF_R_OK && l.type != EBF_T_CREDIT) {
        *d = SFC_DROP_WRONG_TYPE;
        return -1;
    }
    if (*r == EBF_R_OK)
        *r = ebf_credit_parse(p + l.hlen, l.len, h, acks);
    if (*r != EBF_R_OK)
        return -1;
    if (l.dst_mac[0] & 1) {
        *d = SFC_DROP_NOT_UNICAST;      /* broadcast or multicast */
        return -1;
    }
    uint16_t id = h->node_id;
    if (id >= n->n_nodes || n->node[id].port != port || memcmp(n->node[id].mac, l.src_mac, 6)) {
        *d = SFC_DROP_UNKNOWN_NODE;
        return -1;
    }
    return id;
}

/* Node is dead: no credit, not alive on its port. */
static void node_dead(struct sfc_nodes *n, uint16_t node)
{
    n->live[node].state = SFC_NODE_DEAD;
    n->live[node].was_dead = 1;
    n->q_alive[n->port_of[node]]--;
    sfc_credit_revoke(n->credit, node);
}

unsigned sfc_nodes_check(struct sfc_nodes *n, uint64_t now, uint16_t *dead)
{
    unsigned k = 0;

    if (!n->timeout_tsc)
        return 0;
    for (uint16_t i = 0; i < n->n_nodes; i++)
        if (n->live[i].state == SFC_NODE_ALIVE && now - n->live[i].last_tsc > n->timeout_tsc) {
            node_dead(n, i);
            dead[k++] = i;
        }
    return k;
}

enum sfc_heard sfc_nodes_heard(struct sfc_nodes *n, uint16_t node, uint32_t epoch, uint64_t now)
{
    struct sfc_node_live *l = &n->live[node];
    enum sfc_heard r = SFC_HEARD_OK;

    if (l->state == SFC_NODE_NEW) {
        l->epoch = epoch;
        l->state = SFC_NODE_ALIVE;
    } else if ((int32_t)(epoch - l->epoch) > 0) {
        /* A new incarnation: the old one's events will never be acked. */
        r = SFC_HEARD_REJOIN;
        if (l->state == SFC_NODE_ALIVE) {
            node_dead(n, node);
            r = SFC_HEARD_REJOIN_DEAD;
        }
        n->q_alive[n->port_of[node]]++;
        sfc_credit_revoke(n->credit, node);
        l->epoch = epoch;
        l->state = SFC_NODE_ALIVE;
        l->was_dead = 1;        /* frames of the old one may still be answered */
    } else if (epoch != l->epoch) {
        return SFC_HEARD_OLD_EPOCH;     /* a frame of a past incarnation */
    } else if (l->state == SFC_NODE_DEAD) {
        /* Silent too long but not gone: its events went elsewhere. */
        l->state = SFC_NODE_ALIVE;
        n->q_alive[n->port_of[node]]++;
        r = SFC_HEARD_LATE;
    }
    l->last_tsc = now;
    return r;
}

unsigned sfc_nodes_take_back(struct sfc_evtab *tab, uint32_t capacity, uint16_t node)
{
    unsigned k = 0;

    for (uint32_t s = 0; s < capacity; s++) {
        struct sfc_event *e = sfc_evtab_event(tab, s);
        if (e->state == SFC_EV_SENT && e->node == node) {
            sfc_evtab_requeue(tab, s);
            k++;
        }
    }
    return k;
}
