/* SPDX-License-Identifier: BSD-3-Clause */
/* conform_live.h - frames of a kernel network interface judged as they arrive (ebfarm conform --port): a board cabled to a port for N seconds. */
#ifndef CONFORM_LIVE_H
#define CONFORM_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "conform.h"

/*
 * Every frame interface ifname receives (promiscuous, through an
 * AF_PACKET socket: a kernel interface, a mirror port or a veth, not a
 * port DPDK holds) into c, numbered from 1 in *n, stamped with the
 * real-time clock at reception, for seconds or until max_frames (0: no
 * limit) were read. Frames the host sends on it are not judged. 0, or
 * -errno with err saying why (no such interface, no permission:
 * CAP_NET_RAW).
 */
int conform_live(struct conform *c, const char *ifname, double seconds, uint64_t max_frames,
                 uint64_t *n, char *err, size_t len);

#endif /* CONFORM_LIVE_H */
