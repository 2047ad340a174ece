/* SPDX-License-Identifier: BSD-3-Clause */
/* sfc_ctl.h - the SFC under run control: parameters, runs, snapshots, metrics. */
#ifndef SFC_CTL_H
#define SFC_CTL_H

#include <rte_mempool.h>

#include "ebf_ctl.h"
#include "ebf_plug.h"
#include "sfc_dp.h"
#include "sfc_stats.h"

/* The SFC's run-control plug: the data plane is made afresh at every start,
 * from conf. */
struct sfc_runner {
    struct ebf_plug plug;        /* dp: a struct sfc_workers (one data plane or W) */
    struct sfc_conf conf, initial;
    struct rte_mempool *rx_pool;
};

extern const struct ebf_ctl_ops sfc_ctl_ops;

/* Set up r around a data plane made from c (validating c); -errno. */
int sfc_runner_init(struct sfc_runner *r, const struct sfc_conf *c, struct rte_mempool *rx_pool);
void sfc_runner_fini(struct sfc_runner *r);

/* Run parameters: sources, timeout_ms, drain_quiet_ms, drain_timeout_ms,
 * node_timeout_ms. */
int sfc_param(void *conf, const char *key, const char *value, char *err, size_t len);

#endif /* SFC_CTL_H */
