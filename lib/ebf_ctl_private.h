/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_private.h - the control block shared by ebf_ctl.c (commands, thread), ebf_ctl_wire.c and ebf_ctl_lcore.c. */
#ifndef EBF_CTL_PRIVATE_H
#define EBF_CTL_PRIVATE_H

#include <pthread.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_ring.h>

#include "ebf_ctl.h"
#include "ebf_fsm.h"
#include "ebf_metrics.h"
#include "ebf_pb.h"
#include "ebf_ratelim.h"

extern int ebf_ctl_logtype;
#define CTL_LOG(level, ...) rte_log(RTE_LOG_##level, ebf_ctl_logtype, "ctl: " __VA_ARGS__)

#define CTL_METRICS_MAX 4096

/* One configure parameter, checked and made C strings by the wire side. */
struct ebf_ctl_param {
    char key[EBF_CTL_KEY_MAX + 1];
    char value[EBF_CTL_VALUE_MAX + 1];
};

struct ebf_ctl {
    struct ebf_ctl_conf c;
    const struct ebf_ctl_ops *ops;
    char instance[64];
    void *zctx, *rep, *pub;
    struct rte_ring *req, *rsp;
    pthread_t thread;

    enum ebf_state state;
    uint64_t since_ns;
    uint32_t run_number;
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

    struct ebf_metrics ms;
    uint64_t seq;
    double next_pub;

    struct ebf_ctl_param params[EBF_CTL_PARAMS_MAX];  /* the request being served */
    struct ebf_ratelim refusals; /* their log lines */

    /* Owned by the lcore. */
    struct ebf_req *lc_stop;     /* the stop being drained */
    int lc_exit;
};

/* Control thread (ebf_ctl.c). */
double ebf_ctl_mono_s(void);
/* Take the lcore's asynchronous answers (a finished stop) off the ring. */
void ebf_ctl_collect(struct ebf_ctl *ctl);
/* The lcore's counters now into ctl->snap: 0, or -errno when it did not answer. */
int ebf_ctl_snapshot(struct ebf_ctl *ctl);
/* Check command c against the state machine, then carry it out. 0, or -1
 * with err set (a refusal changes nothing). p: configure's parameters. */
int ebf_ctl_command(struct ebf_ctl *ctl, enum ebf_cmd c, uint32_t run,
                    const struct ebf_ctl_param *p, size_t np, char *err, size_t len);
/* Log a refused request (at most as ctl->refusals allows) and report what
 * was left out once its window ended; cmd NULL: only the report (force:
 * whatever is left out now, at exit). */
void ebf_ctl_log_refusal(struct ebf_ctl *ctl, const char *cmd, const char *err, int force);

/* ZeroMQ side (ebf_ctl_wire.c), control thread. */
/* One request from the REP socket: decode, execute, always reply. */
void ebf_ctl_serve_one(struct ebf_ctl *ctl);
/* Publish one snapshot on the PUB socket (dropped when nobody listens). */
void ebf_ctl_publish(struct ebf_ctl *ctl);
/* A socket of type bound to ep, or NULL with errno set and the cause on stderr. */
void *ebf_ctl_bind(struct ebf_ctl *ctl, int type, const char *ep);

#endif /* EBF_CTL_PRIVATE_H */
