/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_types.h - what the control side's layers share, types only: a request's limits and parameters, and the daemon's status as a reply and telemetry show it. */
#ifndef EBF_CTL_TYPES_H
#define EBF_CTL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_fsm.h"

/* The largest request the control socket takes (ZMQ_MAXMSGSIZE): ZeroMQ
 * drops a larger message and the connection it came on, unanswered. */
#define EBF_CTL_MSG_MAX 65536
/* How long a connection may take to complete its ZeroMQ handshake
 * (ZMQ_HANDSHAKE_IVL; ZeroMQ's default is 30 s): a peer without the keys,
 * or a bare TCP connection, is closed after this. */
#define EBF_CTL_HANDSHAKE_MS 2000
/* The listen backlog of a tcp:// control or metrics socket (ZMQ_BACKLOG;
 * ZeroMQ's default is 100, the kernel caps it at net.core.somaxconn). With
 * 100, a burst of bare connections fills the accept queue before the I/O
 * thread empties it and the kernel drops further SYNs: an operator's
 * status then waits for its SYN's retransmission (1 s, then 3 s more) and
 * times out although the daemon is well. */
#define EBF_CTL_BACKLOG 4096

/* The largest run number a daemon starts (as the tools give it: one
 * below UINT32_MAX, so that the next one still fits). */
#define EBF_CTL_RUN_MAX 4294967294u

/* What a configure may hold: keys are names of a-z, 0-9 and _. */
#define EBF_CTL_PARAMS_MAX 64
#define EBF_CTL_KEY_MAX 63
#define EBF_CTL_VALUE_MAX 255

/* One configure parameter, checked and made C strings by the wire side. */
struct ebf_ctl_param {
    char key[EBF_CTL_KEY_MAX + 1];
    char value[EBF_CTL_VALUE_MAX + 1];
};

/* A request as the wire side decoded it. */
struct ebf_ctl_request {
    int command;                 /* enum ebf_cmd */
    uint32_t run_number;
    uint64_t start_at_ns;        /* START: event 0 due at (CLOCK_REALTIME ns); 0: now */
    size_t n_params;
    struct ebf_ctl_param params[EBF_CTL_PARAMS_MAX];
};

/* The daemon as a reply, a published snapshot and telemetry show it; the
 * strings are the control block's. */
struct ebf_ctl_status {
    const char *component;       /* "readout", "sfc", "node" */
    const char *instance;
    const char *farm;            /* "" before a configure names one */
    const char *error;           /* why it is in ERROR, else "" */
    enum ebf_state state;
    uint32_t run_number;
    uint64_t since_ns;           /* in this state since */
    int finished;                /* the run has nothing left to do */
    double period_ms;            /* the metrics period */
};

#endif /* EBF_CTL_TYPES_H */
