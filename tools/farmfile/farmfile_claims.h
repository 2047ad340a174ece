/* SPDX-License-Identifier: BSD-3-Clause */
/* farmfile_claims.h - what the processes of one host may not share: CPUs, ports, memif links. */
#ifndef FARMFILE_CLAIMS_H
#define FARMFILE_CLAIMS_H

#include <stddef.h>

#include "farmfile_types.h"

/*
 * On each host of s (every process's host index valid): no two processes
 * claim one CPU through explicit lcores ("auto" claims none: it floats
 * over the CPUs the process may use), or one port: a PCI device, or a
 * kernel interface a vdev names with an iface= argument (iface, rx_iface,
 * tx_iface, ...; a vdev's own name is per process). A node's sfc_port is
 * its SFC's. The two ends of a memif link are on one host. Returns 0, or
 * -EINVAL with "<where>: key '...': ..." naming both processes.
 */
int ff_check_claims(const struct farm_spec *s, const char *where, char *err, size_t errlen);

#endif /* FARMFILE_CLAIMS_H */
