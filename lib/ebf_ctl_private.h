/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_private.h - the control block shared by ebf_ctl.c (commands, thread), ebf_ctl_wire.c, ebf_ctl_tel.c and ebf_ctl_lcore.c. */
#ifndef EBF_CTL_PRIVATE_H
#define EBF_CTL_PRIVATE_H

#include <pthread.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_ring.h>

#include "ebf_ctl.h"
#include "ebf_curve.h"
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
    struct ebf_curve_server *keys;   /* NULL: no CURVE (ipc:// only, or insecure) */
    struct ebf_zap *zap;             /* the ZAP handler when keys are set */
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

    struct ebf_metrics ms;
    uint64_t seq;
    double next_pub;

    struct ebf_ctl_param params[EBF_CTL_PARAMS_MAX];  /* the request being served */
    struct ebf_ratelim refusals; /* their log lines */

    /* Owned by the lcore. */
    struct ebf_req *lc_stop;     /* the stop being drained */
    int lc_exit;
    struct ebf_cycles *lc_cycles;    /* the run's cycles (ebf_ctl_serve's) */
};

/* ZeroMQ side (ebf_ctl_wire.c), control thread; below ebf_ctl.c, which it never calls. */
/* The next request on the REP socket, decoded: *got says whether a message
 * came; NULL with *got set means it was not an ebfarm.Request. Free it with
 * ebfarm__request__free_unpacked. */
Ebfarm__Request *ebf_ctl_recv(struct ebf_ctl *ctl, int *got);
/* The parameters of rq into ctl->params as checked C strings: each value
 * taken with its length (a NUL inside is refused, not cut short), keys
 * that are names, each once, at most EBF_CTL_PARAMS_MAX. 0, or -1 with err
 * naming the key and value. */
int ebf_ctl_take_params(struct ebf_ctl *ctl, const Ebfarm__Request *rq, char *err, size_t len);
/* The reply to the request just received: ok or err, the daemon's status
 * and, unless snap is NULL, the metrics of snap. */
void ebf_ctl_reply(struct ebf_ctl *ctl, int ok, const char *err, const void *snap);
/* The metrics of snap on the PUB socket with the next sequence number
 * (dropped when nobody listens). */
void ebf_ctl_send_snapshot(struct ebf_ctl *ctl, const void *snap);
/* Load c.curve_keys and start the ZAP handler (nothing without keys). 0, or
 * -1 with errno set and the cause on stderr. Before ebf_ctl_bind. */
int ebf_ctl_secure(struct ebf_ctl *ctl);
/* A socket of type bound to ep, or NULL with errno set and the cause on
 * stderr: tcp:// with CURVE (keys) or insecure, else EPERM; an ipc:// path
 * that exists and is not a socket is kept, EEXIST. */
void *ebf_ctl_bind(struct ebf_ctl *ctl, int type, const char *ep);

/* CPUs of the threads the control side starts (ebf_ctl_cpus.c). A thread
 * inherits the CPUs of the thread that starts it: ZeroMQ's (at the first
 * socket) and the ZAP handler would run on the main lcore's CPU, beside a
 * poll loop pinned there. enter moves the calling thread onto the CPUs
 * DPDK gives its control threads (the process's start CPUs less the
 * lcores', or the main lcore's when none is left), saving its own in
 * saved; 1 when it moved. leave moves it back. */
int ebf_ctl_cpus_enter(cpu_set_t *saved);
void ebf_ctl_cpus_leave(const cpu_set_t *saved, int moved);

/* DPDK telemetry (ebf_ctl_tel.c), below ebf_ctl.c and ebf_ctl_wire.c. */
/* Register the /ebfarm/... commands, once per process; any thread. */
void ebf_ctl_tel_register(void);
/* Control thread: ctl->ms := the metric list of snap, and a copy of it and
 * of the daemon's state kept for the telemetry commands (the only thing
 * they read, under a lock of their own). */
void ebf_ctl_metrics(struct ebf_ctl *ctl, const void *snap);

#endif /* EBF_CTL_PRIVATE_H */
