/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_memory.h - the memory an SFC's mbuf pools take at the run's MTU, checked against its memory_mb before anything starts. */
#ifndef FARMFILE_MEMORY_H
#define FARMFILE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "farmfile_types.h"

/*
 * A lower bound of the bytes an SFC's mbuf pools take (sfc/main.c: mbufs
 * receive mbufs and as many clones, 4095 ack and 8191 header mbufs), at
 * MTU mtu: each mbuf its struct, headroom and data room (mtu + 18, at least
 * 2048 B), without the pools' own overheads. DPDK-free: the sizes are
 * DPDK 22.11's, checked against it by the farm suite (ebf_param_use).
 */
uint64_t ff_sfc_pool_bytes(uint16_t mtu, uint32_t mbufs);

/* The sizes ff_sfc_pool_bytes assumes: sizeof(struct rte_mbuf),
 * RTE_PKTMBUF_HEADROOM, EBF_ROOM_DEFAULT, EBF_L2_MAX_HLEN. */
#define FF_MBUF_STRUCT 128
#define FF_MBUF_HEADROOM 128
#define FF_ROOM_MIN 2048
#define FF_L2_MAX_HLEN 18

/*
 * Every SFC's memory_mb against ff_sfc_pool_bytes at run.mtu: refused
 * (what run.mtu: 9000 did only at start, "mempool ... Cannot allocate
 * memory") naming the key, what the pools take and the memory_mb to give.
 * Returns 0, or -EINVAL with "<where>: key 'sfcs[i].memory_mb': ..." in err.
 */
int ff_check_memory(const struct farm_spec *s, const char *where, char *err, size_t errlen);

#endif /* FARMFILE_MEMORY_H */
