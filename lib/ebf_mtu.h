/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_mtu.h - the MTU a port and a pool carry: the check at start, the data room pools need. */
#ifndef EBF_MTU_H
#define EBF_MTU_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mempool.h>

/*
 * A frame at an MTU is at most mtu + EBF_L2_MAX_HLEN bytes (Ethernet header
 * and one VLAN tag, ebf_proto.h). The daemons size their pools with
 * ebf_port_rx_room() so that every frame lands in one mbuf, and check every
 * port with ebf_port_mtu_check() before starting it, so that an MTU a port
 * or a pool cannot carry is refused at start rather than met on the fast
 * path. Called from main() after EAL started; never on the fast path.
 */

/* The default data room of a pool (DPDK's RTE_MBUF_DEFAULT_DATAROOM): every
 * pool had it before jumbo frames, and pools keep at least it. */
#define EBF_ROOM_DEFAULT 2048

/*
 * The data room (headroom not counted) that a pool receiving from port
 * needs so that each frame of mtu lands in one mbuf: the largest frame
 * (mtu + EBF_L2_MAX_HLEN), at least EBF_ROOM_DEFAULT, and at least one
 * buffer of a buffer-limited driver (net_memif: its bsize, so that every
 * descriptor lands in one mbuf; net_af_packet: its framesz less 32 B, which
 * its RX requires). port UINT16_MAX: no port, the frame and the default only.
 */
uint16_t ebf_port_rx_room(uint16_t port, uint16_t mtu);

/*
 * Whether port (called name in messages) carries frames of mtu, each in one
 * mbuf of rx_pool: mtu within the driver's min_mtu and max_mtu; the largest
 * frame within its max_rx_pktlen, or, for net_memif and net_af_packet
 * (DPDK 22.11 reports 1518 for both but they carry whatever fits their
 * buffers), within the buffer their bsize or framesz devarg gives; mtu
 * within the MTU of the kernel interface behind the port, if any; and the
 * frame within the pool's data room. Returns 0, or -EMSGSIZE with err
 * naming the limit and where it comes from, e.g.
 *   port 'net_memif0' carries at most 2030 (memif bsize 2048; give bsize=9018 or more)
 *   the pool's data room of 2048 B carries at most 2030
 * or another -errno when the port cannot be asked.
 */
int ebf_port_mtu_check(uint16_t port, const char *name, uint16_t mtu,
                       struct rte_mempool *rx_pool, char *err, size_t len);

/* 1 when port's driver is limited by its buffers (net_memif, net_af_packet:
 * ebf_port_start leaves their MTU at ethdev's default), else 0. */
int ebf_port_mtu_by_buffer(uint16_t port);

#endif /* EBF_MTU_H */
