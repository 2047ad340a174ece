/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_demo_netns.h - the demo's farm moved onto network namespaces: a host per process, af_packet over the switch, tcp with CURVE keys. */
#ifndef FARM_DEMO_NETNS_H
#define FARM_DEMO_NETNS_H

#include <stddef.h>

#include "farm_types.h"

/* `ebfarm demo --netns` without --rate: the events/s that make this many
 * frames/s, which the namespaces' af_packet ports carry without loss on two
 * shared cores. af_packet has no flow control: a receive ring that
 * overflows drops frames, and its TX reports frames it dropped as sent, so
 * a faster readout shows as sequence gaps and an open ledger. */
#define FARM_NETNS_DEMO_FPS 40000

/* The demo's shape on namespaces unless its options say otherwise. */
#define FARM_NETNS_DEMO_READOUTS 4
#define FARM_NETNS_DEMO_SFCS 2
#define FARM_NETNS_DEMO_NODES 4
#define FARM_NETNS_DEMO_BYTES_S 80000000     /* and this much payload: jumbo frames */

/* The default event rate of the netns demo for c (sources, fragment sizes,
 * MTU, encapsulation): FARM_NETNS_DEMO_FPS over its frames per event, or
 * FARM_NETNS_DEMO_BYTES_S over its bytes per event if that is less; with
 * failover on (c->replay_mb, set by then) and N SFCs, (N - 1) / N of it,
 * which the survivors of one death carry. */
double farm_netns_demo_rate(const struct farm_conf *c);

/*
 * Move every process of s onto a network-namespace host of its own (host
 * and namespace "<tag>-<process>", tag "ebd<pid of the tool>"), its ports
 * onto af_packet over the farm's data switch (a readout's and a node's
 * port: iface d0; an SFC's readout port rx, its port toward its nodes nd,
 * shared by its nodes, with sfc_mac 02:eb:00:00:01:<SFC index>), its
 * control and metrics onto tcp://{host}:5550 and :5551, with CURVE keys
 * made in <run_dir>/keys. 0, or -1 with err (the keys cannot be made).
 */
int farm_demo_netns(struct farm_spec *s, const char *run_dir, char *err, size_t len);

#endif /* FARM_DEMO_NETNS_H */
