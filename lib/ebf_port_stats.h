/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_port_stats.h - the DPDK port counters every daemon publishes, one name each; no DPDK. */
#ifndef EBF_PORT_STATS_H
#define EBF_PORT_STATS_H

#include <stdint.h>

#include "ebf_counters.h"

/*
 * The rte_eth_stats totals of a port, copied by ebf_port_stats_read()
 * (lib/ebf_port.h) on the lcore that polls it. Every daemon lists them
 * with ebf_port_metrics() under the label port="<role>": "sfc" on the
 * readout and the node (their one port), "readout" and "node<i>" on the
 * SFC. So "port.rx_nombuf" is ebfarm_port_rx_nombuf_total{port=...} on
 * every component.
 *   X(ID, SHAPE, name, field, args, flags, help): lib/ebf_counters.h
 */
#define EBF_FOREACH_PORT_COUNTER(X)                                                                \
    X(IPACKETS, C, "port.ipackets", ipackets, (), 0,                                               \
      "Frames the port received (rte_eth_stats ipackets).")                                        \
    X(OPACKETS, C, "port.opackets", opackets, (), 0,                                               \
      "Frames the port sent (rte_eth_stats opackets).")                                            \
    X(IBYTES, C, "port.ibytes", ibytes, (), 0,                                                     \
      "Bytes of the frames the port received (rte_eth_stats ibytes).")                             \
    X(OBYTES, C, "port.obytes", obytes, (), 0,                                                     \
      "Bytes of the frames the port sent (rte_eth_stats obytes).")                                 \
    X(IMISSED, C, "port.imissed", imissed, (), 0,                                                  \
      "Frames the port dropped because its receive queue was full (rte_eth_stats imissed).")       \
    X(IERRORS, C, "port.ierrors", ierrors, (), 0,                                                  \
      "Erroneous frames the port received (rte_eth_stats ierrors).")                               \
    X(OERRORS, C, "port.oerrors", oerrors, (), 0,                                                  \
      "Frames the port failed to send (rte_eth_stats oerrors).")                                   \
    X(RX_NOMBUF, C, "port.rx_nombuf", rx_nombuf, (), 0,                                            \
      "Receive mbuf allocation failures of the port (rte_eth_stats rx_nombuf).")

struct ebf_port_stats {
    uint64_t ipackets, opackets, ibytes, obytes;
    uint64_t imissed, ierrors, oerrors, rx_nombuf;
};

enum ebf_port_counter_id {
#define EBF_PORT_ID(id, ...) EBF_PORT_M_##id,
    EBF_FOREACH_PORT_COUNTER(EBF_PORT_ID)
#undef EBF_PORT_ID
    EBF_PORT_M_MAX
};

extern const struct ebf_counter_table ebf_port_counter_table;

/* The label that tells a process's ports apart. */
#define EBF_PORT_LABEL "port"

/* Append ps's counters to ms labelled port=role. */
void ebf_port_metrics(const struct ebf_port_stats *ps, const char *role, struct ebf_metrics *ms);

#endif /* EBF_PORT_STATS_H */
