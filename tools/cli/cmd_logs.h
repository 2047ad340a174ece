/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_logs.h - ebfarm logs: a process's log read back from its host. */
#ifndef CMD_LOGS_H
#define CMD_LOGS_H

/* ebfarm logs PROC [--farm NAME] [--follow]: the process exit status. */
int cmd_logs(int argc, char **argv);

#endif /* CMD_LOGS_H */
