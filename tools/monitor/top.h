/* SPDX-License-Identifier: BSD-3-Clause */
/* top.h - ebfarm top: a live terminal view of a farm's metrics, or one plain-text frame. */
#ifndef TOP_H
#define TOP_H

/* ebfarm top with its own argv (argv[0] is the command name): finds the
 * farm that is up, subscribes to its metrics and draws until q, Ctrl-C or
 * a signal (with --once, or stdout not a terminal: one frame once every
 * process sent two snapshots). Returns the exit status: 0, or 1 when the
 * farm is not found, a process sent too few snapshots, or an option is bad. */
int cmd_top(int argc, char **argv);

#endif /* TOP_H */
