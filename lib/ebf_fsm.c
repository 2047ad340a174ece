/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_fsm.c - the run-control transition table and its names. */
#include "ebf_fsm.h"

#include <stdio.h>
#include <string.h>

#define I EBF_S_INITIAL
#define C EBF_S_CONFIGURED
#define R EBF_S_RUNNING
#define P EBF_S_PAUSED
#define D EBF_S_DRAINING
#define E EBF_S_ERROR

/* next[state][command]; 0: refused. */
static const unsigned char next_state[EBF_S_END][EBF_C_END] = {
    /*            -  configure start pause resume stop reset status shutdown act */
    [EBF_S_INITIAL]    = {0, C, 0, 0, 0, 0, 0, I, I, 0},
    [EBF_S_CONFIGURED] = {0, C, R, 0, 0, 0, I, C, C, 0},
    [EBF_S_RUNNING]    = {0, 0, 0, P, 0, D, 0, R, 0, R},
    [EBF_S_PAUSED]     = {0, 0, 0, 0, R, D, 0, P, 0, P},
    [EBF_S_DRAINING]   = {0, 0, 0, 0, 0, 0, 0, D, 0, 0},
    [EBF_S_ERROR]      = {0, 0, 0, 0, 0, 0, I, E, E, 0},
};

#undef I
#undef C
#undef R
#undef P
#undef D
#undef E

static const char *const state_names[EBF_S_END] = {
    "?", "INITIAL", "CONFIGURED", "RUNNING", "PAUSED", "DRAINING", "ERROR",
};

static const char *const cmd_names[EBF_C_END] = {
    "?", "configure", "start", "pause", "resume", "stop", "reset", "status", "shutdown", "act",
};

enum ebf_state ebf_fsm_next(enum ebf_state s, enum ebf_cmd c)
{
    if ((unsigned)s >= EBF_S_END || (unsigned)c >= EBF_C_END)
        return 0;
    return (enum ebf_state)next_state[s][c];
}

const char *ebf_state_name(enum ebf_state s)
{
    return (unsigned)s < EBF_S_END ? state_names[s] : "?";
}

const char *ebf_cmd_name(enum ebf_cmd c)
{
    return (unsigned)c < EBF_C_END ? cmd_names[c] : "?";
}

enum ebf_cmd ebf_cmd_parse(const char *name)
{
    for (unsigned c = 1; c < EBF_C_END; c++)
        if (strcmp(name, cmd_names[c]) == 0)
            return (enum ebf_cmd)c;
    return 0;
}

void ebf_fsm_refusal(enum ebf_state s, enum ebf_cmd c, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "command '%s' is not allowed in state %s (allowed:",
                                ebf_cmd_name(c), ebf_state_name(s));
    const char *sep = " ";

    for (unsigned k = 1; k < EBF_C_END && o < len; k++) {
        if (!ebf_fsm_next(s, (enum ebf_cmd)k))
            continue;
        o += (size_t)snprintf(buf + o, len - o, "%s%s", sep, cmd_names[k]);
        sep = ", ";
    }
    if (o < len)
        snprintf(buf + o, len - o, ")");
}
