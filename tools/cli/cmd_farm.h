/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_farm.h - ebfarm's farm commands: up, start, stop, down, status. */
#ifndef CMD_FARM_H
#define CMD_FARM_H

/* Each takes the command's own argv (argv[0] is the command name) and
 * returns the process exit status. */
int cmd_up(int argc, char **argv);
int cmd_start(int argc, char **argv);
int cmd_stop(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif /* CMD_FARM_H */
