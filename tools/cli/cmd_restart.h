/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_restart.h - ebfarm restart, drain and undrain: one process of a running farm replaced, an SFC's share moved away and back. */
#ifndef CMD_RESTART_H
#define CMD_RESTART_H

/* Each takes the command's own argv (argv[0] is the command name) and
 * returns the exit status: 0 done, 1 refused or failed, 2 usage. */
int cmd_restart(int argc, char **argv);
int cmd_drain(int argc, char **argv);
int cmd_undrain(int argc, char **argv);

#endif /* CMD_RESTART_H */
