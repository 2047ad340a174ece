/* SPDX-License-Identifier: BSD-3-Clause */
/* node_ctl.h - the trigger node under run control: parameters, runs, snapshots, metrics. */
#ifndef NODE_CTL_H
#define NODE_CTL_H

#include "ebf_ctl.h"
#include "ebf_plug.h"
#include "node_dp.h"

struct node_snap {
    struct node_stats st;
    struct node_gauges g;
    uint64_t port_ipackets, port_opackets, port_imissed, port_rx_nombuf;
    int link_up, running, paused;
};

/* The node's run-control plug: the data plane is made afresh at every
 * start, with a new epoch. */
struct node_runner {
    struct ebf_plug plug;        /* dp: a struct node_dp */
    struct node_conf conf, initial;
};

extern const struct ebf_ctl_ops node_ctl_ops;

int node_runner_init(struct node_runner *r, const struct node_conf *c);
void node_runner_fini(struct node_runner *r);

void node_metrics(const void *snap, struct ebf_metrics *ms);

/* Run parameters: accept, accept_seed, trigger_us. */
int node_param(void *conf, const char *key, const char *value, char *err, size_t len);

#endif /* NODE_CTL_H */
