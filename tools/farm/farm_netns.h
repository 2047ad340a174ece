/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_netns.h - network namespaces as a farm's hosts: the plan of switches, veths and sshds, made and removed by tools/scripts/ebfarm-netns. */
#ifndef FARM_NETNS_H
#define FARM_NETNS_H

#include <stddef.h>

#include "farm_types.h"

/*
 * A farm with netns hosts gets, for its run (names from the hash in
 * st->ssh_dir, TAG, so that two farms never collide):
 *
 *   eb<TAG>m  the management switch (a Linux bridge) with 10.A.B.254/24,
 *             a /24 no interface of this machine has an address in;
 *   eb<TAG>d  the data switch: no address, no learning, no flooding, a
 *             static entry for every MAC of the farm's ports;
 *   per netns host, the namespace of the farm file (which must not exist
 *   yet), a veth "mgmt" with 10.A.B.<k+1>/24 (k: its place among the netns
 *   hosts) and an sshd on that address; per kernel interface that a
 *   process of the host names in a vdev (iface=NAME), a veth NAME into the
 *   data switch with the MAC of the process's port and the farm's MTU.
 *
 * The plan is written to st->ssh_dir/plan before anything is made, so that
 * farm_netns_down removes also what a failed or interrupted up made.
 */

/* Plan the namespaces of s for st (st->ssh_dir set, st's host table made):
 * the addresses of its netns hosts into st, the plan into ssh_dir/plan,
 * st->netns = 1. 0 (also when s has no netns host: nothing done), or -1
 * with err (a host with more than 15 interfaces, no free /24, the plan
 * cannot be written). */
int farm_netns_plan(const struct farm_spec *s, struct farm_state *st, char *err, size_t len);

/* Make what the plan says (ebfarm-netns up): 0, or -1 with err quoting
 * the script's own message; on failure nothing of it is left. */
int farm_netns_up(const struct farm_state *st, char *err, size_t len);

/* Remove what the plan of st says, and ssh_dir (ebfarm-netns down):
 * processes still in the namespaces are killed. 0, or -1 when the script
 * failed (said on stderr). Nothing when st->netns is 0. */
int farm_netns_down(const struct farm_state *st);

/* The ebfarm-netns script: $EBFARM_NETNS_SCRIPT, else the source tree's. */
const char *farm_netns_script(void);

#endif /* FARM_NETNS_H */
