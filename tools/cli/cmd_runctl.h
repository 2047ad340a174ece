/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_runctl.h - ebfarm pause, resume and reset of a farm that is up. */
#ifndef CMD_RUNCTL_H
#define CMD_RUNCTL_H

/* ebfarm pause [--farm NAME]: every running readout holds its generation.
 * Exit status 0, 3 when none was running, 1 on a refusal, 2 bad usage. */
int cmd_pause(int argc, char **argv);

/* ebfarm resume [--farm NAME]: every paused readout generates again.
 * Exit status 0, 3 when none was paused, 1 on a refusal, 2 bad usage. */
int cmd_resume(int argc, char **argv);

/* ebfarm reset [--farm NAME]: every process of a farm with no run in
 * progress (ERROR or CONFIGURED) reset and configured again. Exit status 0,
 * 1 when refused (a run in progress, a process not answering, the farm file
 * changed) or a process refused, 2 bad usage. */
int cmd_reset(int argc, char **argv);

#endif /* CMD_RUNCTL_H */
