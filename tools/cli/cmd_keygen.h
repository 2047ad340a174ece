/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_keygen.h - ebfarm keygen DIR: a farm's CURVE keys for its tcp:// control and metrics. */
#ifndef CMD_KEYGEN_H
#define CMD_KEYGEN_H

/* ebfarm keygen DIR (argv[0] is the command name): the daemons' and the
 * tools' keypairs in DIR (lib/ebf_curve.h), never over existing keys.
 * Returns 0, 1 when they cannot be made, 2 for bad arguments. */
int cmd_keygen(int argc, char **argv);

#endif /* CMD_KEYGEN_H */
