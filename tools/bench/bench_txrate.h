/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_txrate.h - the readout's transmit rate against dpdk-testpmd txonly on net_null, same frame size. */
#ifndef BENCH_TXRATE_H
#define BENCH_TXRATE_H

#include "bench_env.h"

/* Bytes of one frame the readout sends for a fragment of frag_size bytes
 * (Ethernet header, fragment header, payload: one frame per fragment). */
unsigned bench_tx_frame_size(unsigned frag_size);

/* One run: the readout (reference 0) or dpdk-testpmd --forward-mode=txonly
 * (reference 1) on net_null0,no-rx=1; *value is frames per second. */
int bench_txrate_side(struct bench_env *env, int reference, double *value, char *err,
                      size_t len);

#endif /* BENCH_TXRATE_H */
