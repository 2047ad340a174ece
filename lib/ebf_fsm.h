/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_fsm.h - the run-control state machine every daemon obeys, as a pure table. */
#ifndef EBF_FSM_H
#define EBF_FSM_H

#include <stddef.h>

/* Values equal the protobuf enums ebfarm.State and ebfarm.Command. */
enum ebf_state {
    EBF_S_INITIAL = 1,
    EBF_S_CONFIGURED,
    EBF_S_RUNNING,
    EBF_S_PAUSED,
    EBF_S_DRAINING,
    EBF_S_ERROR,
    EBF_S_END,
};

enum ebf_cmd {
    EBF_C_CONFIGURE = 1,
    EBF_C_START,
    EBF_C_PAUSE,
    EBF_C_RESUME,
    EBF_C_STOP,
    EBF_C_RESET,
    EBF_C_STATUS,
    EBF_C_SHUTDOWN,
    EBF_C_ACT,                   /* a daemon's own action on the run in progress */
    EBF_C_END,
};

/*
 * The state a command leads to from state s, or 0 when the command is not
 * allowed in s. STOP leads to DRAINING; the daemon moves on to CONFIGURED
 * by itself when the drain is over. STATUS leads to s. SHUTDOWN leads to s
 * (the process then exits). Out-of-range arguments are illegal.
 */
enum ebf_state ebf_fsm_next(enum ebf_state s, enum ebf_cmd c);

/* "INITIAL", ... and "configure", ...; "?" when out of range. */
const char *ebf_state_name(enum ebf_state s);
const char *ebf_cmd_name(enum ebf_cmd c);

/* Command by name ("start"), or 0. */
enum ebf_cmd ebf_cmd_parse(const char *name);

/*
 * The refusal of c in s, one line naming both and what s allows:
 * "command 'start' is not allowed in state RUNNING (allowed: pause, stop, status)".
 */
void ebf_fsm_refusal(enum ebf_state s, enum ebf_cmd c, char *buf, size_t len);

#endif /* EBF_FSM_H */
