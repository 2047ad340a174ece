/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_signal.h - Ctrl-C and SIGTERM on the ebfarm tool: the first stops a run in stages, the second kills. */
#ifndef FARM_SIGNAL_H
#define FARM_SIGNAL_H

#include <stddef.h>

/*
 * The daemons run in sessions of their own (farm_spawn), so a Ctrl-C at the
 * terminal reaches only the tool. After farm_signal_catch(), the tool's
 * waits end early: the first SIGINT or SIGTERM ends the waits of a run in
 * progress (start-up, a scenario, the readouts finishing), and the caller
 * stops the run in stages so that its ledger closes; a second one also ends
 * the waits of the staged stop and of down, which then kills what is left.
 * Either way everything the tool created is removed. One thread only.
 */
void farm_signal_catch(void);

/* Signals caught so far: 0, 1 (stop in stages) or 2 and more (kill). */
int farm_signal_count(void);

/* The number of the last signal caught (SIGINT, SIGTERM), 0 when none. */
int farm_signal_last(void);

/* For a wait that a signal count of at least level ends: 0 while it goes
 * on, or -1 with err saying which signal ended it. */
int farm_signal_check(int level, char *err, size_t len);

#endif /* FARM_SIGNAL_H */
