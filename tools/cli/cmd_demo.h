/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_demo.h - ebfarm demo: a whole farm on this host for one run, shaped by its options. */
#ifndef CMD_DEMO_H
#define CMD_DEMO_H

/* ebfarm demo with its own argv (argv[0] is the command name): the demo
 * farm shaped by the options, one run, the summary (text or --json) with
 * its ledger. Returns the exit status: 0 when the ledger closes, 1 when it
 * does not or the run failed, 2 for a bad option (after a message naming
 * it). */
int cmd_demo(int argc, char **argv);

#endif /* CMD_DEMO_H */
