/* SPDX-License-Identifier: BSD-3-Clause */
/* node_ctl.h - the trigger node under run control: parameters, runs, snapshots, metrics. */
#ifndef NODE_CTL_H
#define NODE_CTL_H

#include "ebf_ctl.h"
#include "ebf_plug.h"
#include "node_dp.h"
#include "node_stats.h"

/* The node's run-control plug: the data plane is made afresh at every
 * start, with a new epoch. */
struct node_runner {
    struct ebf_plug plug;        /* dp: a struct node_dp */
    struct node_conf conf, initial;
};

extern const struct ebf_ctl_ops node_ctl_ops;

int node_runner_init(struct node_runner *r, const struct node_conf *c);
void node_runner_fini(struct node_runner *r);

/* Run parameters: accept, accept_seed, trigger_us. */
int node_param(void *conf, const char *key, const char *value, char *err, size_t len);

#endif /* NODE_CTL_H */
