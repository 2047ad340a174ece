/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_private.h - the control block shared by ebf_ctl.c (commands, thread) and ebf_ctl_lcore.c (the lcore side); the wire and telemetry layers below never see it. */
#ifndef EBF_CTL_PRIVATE_H
#define EBF_CTL_PRIVATE_H

#include <pthread.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ebf_ctl.h"
#include "ebf_ctl_cpus.h"
#include "ebf_ctl_log.h"
#include "ebf_ctl_wire.h"
#include "ebf_fsm.h"
#include "ebf_metrics.h"
#include "ebf_ratelim.h"

#define CTL_METRICS_MAX 4096

/* Why a control request was refused: the label of EBF_METRIC_CTL_REFUSED. */
#define EBF_CTL_FOREACH_REFUSED(X)                                              \
    X(GARBAGE, "garbage")       /* not an ebfarm.Request */                     \
    X(MULTIPART, "multipart")   /* more than one frame */                       \
    X(PARAMS, "params")         /* parameters refused by the wire side */       \
    X(COMMAND, "command")       /* refused by the state machine or the daemon */

enum ebf_ctl_refused {
#define X(id, name) EBF_CTL_REFUSED_##id,
    EBF_CTL_FOREACH_REFUSED(X)
#undef X
    EBF_CTL_REFUSED_END
};

struct ebf_ctl {
    struct ebf_ctl_conf c;
    const struct ebf_ctl_ops *ops;
    char instance[64];
    struct ebf_ctl_wire wire;    /* the sockets (ebf_ctl_wire.c) */
    struct rte_ring *req, *rsp;
    pthread_t thread;

    enum ebf_state state;
    uint64_t since_ns;
    uint32_t run_number;
    char farm[33];               /* configure parameter farm, in every snapshot; "" before one */
    char error[256];
    int shutdown;                /* leave the loop */
    int stop_then_exit;          /* a signal or a finished standalone run */

    void *conf_initial, *conf_cur, *conf_scratch;
    struct ebf_req sync, stop;   /* at most one of each outstanding */
    int sync_lost;               /* sync timed out: the lcore still owes it */
    int stop_out;
    void *snap, *final;
    int have_final;
    int finished;

    struct ebf_metrics ms;       /* the metric list of the last snapshot shown */
    double next_pub;

    struct ebf_ctl_request rq;   /* the request being served */
    struct ebf_ratelim refusals; /* their log lines */
    uint64_t refused[EBF_CTL_REFUSED_END];   /* refused requests by reason */

    /* Owned by the lcore. */
    struct ebf_req *lc_stop;     /* the stop being drained */
    int lc_exit;
    struct ebf_cycles *lc_cycles;    /* the run's cycles (ebf_ctl_serve's) */
};

#endif /* EBF_CTL_PRIVATE_H */
