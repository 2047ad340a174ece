/* SPDX-License-Identifier: BSD-3-Clause */
/* prom.h - ebfarm metrics --prometheus: a small HTTP server exporting a farm's latest snapshots. */
#ifndef PROM_H
#define PROM_H

/* ebfarm metrics with its own argv (argv[0] is the command name): serves
 * the farm's metrics on http://HOST:PORT/metrics until Ctrl-C or SIGTERM.
 * Returns the exit status: 0 after a signal, 1 when the farm is not found,
 * the address cannot be bound, or an option is bad. */
int cmd_metrics(int argc, char **argv);

#endif /* PROM_H */
