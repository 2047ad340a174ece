/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_sim.h - ebfarm sim FARM.yaml: the farm simulated in virtual time (sim/). */
#ifndef CMD_SIM_H
#define CMD_SIM_H

/* ebfarm sim FARM.yaml [--json] [--seed N] [--duration S] (argv[0] is the
 * command name). Returns 0 when the simulated ledger closes, 1 when it
 * does not or the run failed, 2 for bad arguments or a bad farm file. */
int cmd_sim(int argc, char **argv);

#endif /* CMD_SIM_H */
