/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_multi.h - a farm of several readouts and SFCs: one SFC list, sources per readout, memif links per pair. */
#ifndef FARMFILE_MULTI_H
#define FARMFILE_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "farmfile_types.h"

/*
 * Every readout sends every event: event e goes, from each readout, to the
 * SFC readouts[i].sfcs[e % n] (the same list for all), and the readouts
 * share an event's sources out in file order, run.sources / readouts
 * each. ff_check_multi checks this shape after every value is valid: each
 * readout lists the same SFCs in the same order; run.sources is a
 * multiple of the readouts; bare `memif` ports (a link per readout-SFC
 * pair) only on readouts and SFCs, on both ends of every pair, each pair on
 * one host. Returns 0, or -EINVAL with "<where>: key '...': ..." in err.
 */
int ff_check_multi(const struct farm_spec *s, const char *where, char *err, size_t errlen);

/* The sources readout i sends: *first and *count (run.sources / readouts). */
void ff_readout_sources(const struct farm_spec *s, unsigned i, uint16_t *first, uint16_t *count);

/* The memif link between readout r and SFC k when both have port memif:
 * "<readout>-<sfc>" into buf. */
void ff_pair_link(const struct farm_spec *s, unsigned r, unsigned k, char *buf, size_t len);

/* SFC workers (sfcs[].workers > 1): readouts send event e to worker
 * (e / n) % W of SFC e % n, as if the list held n * W SFCs, worker-major
 * (place k + n * w). So every SFC a readout lists has the same workers,
 * and the SFC has a node per worker at least, on node ports of their own
 * (at least W) or all on one (ff_check_multi). With a bare memif port,
 * worker w of SFC k has its link from readout r, "<readout>-<sfc>" for
 * worker 0 and "<readout>-<sfc>-w<w>" after; on any other port the workers
 * share it (sfc/sfc_dist.h). Its MAC,
 * the SFC's with w added to the fourth byte (02:eb:00:00:00:01, worker 1:
 * 02:eb:00:01:00:01), checked unique with every other MAC. */
static inline unsigned ff_sfc_workers(const struct ff_sfc *x)
{
    return x->workers > 1 ? x->workers : 1;
}
void ff_worker_link(const struct farm_spec *s, unsigned r, unsigned k, unsigned w, char *buf,
                    size_t len);
void ff_worker_mac(const struct farm_spec *s, unsigned k, unsigned w, uint8_t mac[6]);

/*
 * Latencies that compare a readout's transmit time with another process's
 * clock (the SFC's build time, a node's end to end) mean something only
 * when both run on one machine: hosts a and b share a clock when they are
 * the same host, both this machine (local hosts and network namespaces of
 * it), or ssh hosts at the same address.
 */
int ff_hosts_share_clock(const struct farm_spec *s, unsigned a, unsigned b);

/* 1 when a readout that sends to SFC k runs on a host whose clock SFC k
 * does not share; then so does every node of SFC k. */
int ff_sfc_readouts_apart(const struct farm_spec *s, unsigned k);

/* 1 when a readout that sends to node j's SFC runs on a host whose clock
 * node j does not share. */
int ff_node_readouts_apart(const struct farm_spec *s, unsigned j);

#endif /* FARMFILE_MULTI_H */
