/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_sfc.h - the SFC's busy cycles per frame against dpdk-testpmd io-forward from the same memif link. */
#ifndef BENCH_SFC_H
#define BENCH_SFC_H

#include "bench_env.h"

/* One run: the SFC of `ebfarm demo --json` (reference 0: its summary's
 * capacity.sfc.cycles_per_frame), or dpdk-testpmd --forward-mode=io
 * --record-core-cycles with a memif server as port 0, fed by a readout,
 * and net_null0,no-rx=1 as port 1 (reference 1: total busy cycles over
 * the packets it forwarded; a failed testpmd run is run again, 3 times at
 * most). *value is cycles per frame. With 2 CPUs or more both sides are
 * placed alike: the forwarding lcore (the SFC's, spinning; testpmd's
 * lcore 1) alone on the tool's second CPU, everything else (readout,
 * nodes, testpmd's main lcore, every control thread) on its first.
 * env->per_poll: frames per busy poll, the SFC's (its summary's frames
 * over busy_passes) or testpmd's (--record-burst-stats: packets per
 * non-empty receive burst), when known. */
/* 1 when the runs are placed (2 CPUs or more), else 0 with why in note. */
int bench_sfc_pinned(char *note, size_t len);

int bench_sfc_side(struct bench_env *env, int reference, double *value, char *err, size_t len);

#endif /* BENCH_SFC_H */
