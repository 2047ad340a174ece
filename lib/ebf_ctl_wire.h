/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_wire.h - the control thread's ZeroMQ side: sockets (CURVE on tcp://), requests in, replies and published snapshots out. */
#ifndef EBF_CTL_WIRE_H
#define EBF_CTL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ebf_ctl_types.h"
#include "ebf_curve.h"
#include "ebf_metrics.h"

/* The sockets of one control thread; that thread only. */
struct ebf_ctl_wire {
    const char *who;             /* the component, naming it in messages */
    void *zctx, *rep, *pub;      /* rep, pub: NULL when not asked for */
    struct ebf_curve_server *keys;   /* NULL: no CURVE (ipc:// only, or insecure) */
    struct ebf_zap *zap;         /* the ZAP handler when keys are set */
    uint64_t seq;                /* of the last snapshot published */
};

/* Where to listen and how. */
struct ebf_ctl_wire_conf {
    const char *who;             /* the component */
    const char *control;         /* REP endpoint; NULL: none */
    const char *metrics;         /* PUB endpoint; NULL: none */
    const char *curve_keys;      /* key directory: CURVE on tcp:// endpoints */
    int insecure;                /* tcp:// without keys allowed */
};

/* What a receive found. */
enum ebf_ctl_got {
    EBF_CTL_GOT_NONE,            /* no message */
    EBF_CTL_GOT_REQUEST,         /* a request, its parameters checked */
    EBF_CTL_GOT_GARBAGE,         /* not an ebfarm.Request: err says so */
    EBF_CTL_GOT_BAD_PARAMS,      /* a request (command set) with parameters refused: err */
    EBF_CTL_GOT_MULTIPART,       /* more than one frame: read to its end, refused whole: err */
};

/* The context, the ZAP handler when c has keys, the sockets: a tcp://
 * endpoint with CURVE (keys) or insecure, else EPERM; an ipc:// path that
 * exists and is not a socket is kept, EEXIST. 0, or the errno of what
 * failed, with the cause on stderr (close frees what was made). */
int ebf_ctl_wire_open(struct ebf_ctl_wire *w, const struct ebf_ctl_wire_conf *c);

/* Close the sockets, stop the ZAP handler, end the context. */
void ebf_ctl_wire_close(struct ebf_ctl_wire *w);

/* Wait up to ms for a request: 1 when one is there; without a REP socket
 * sleep ms and give 0. */
int ebf_ctl_wire_wait(struct ebf_ctl_wire *w, int ms);

/* The next request into rq (parameters as checked C strings: each value
 * taken with its length, a NUL inside refused, keys that are names, each
 * once, at most EBF_CTL_PARAMS_MAX), or why it was refused in err. A
 * request is one frame: a message of several is read to its last frame
 * (freed as it is read, none decoded) and refused whole. */
enum ebf_ctl_got ebf_ctl_wire_recv(struct ebf_ctl_wire *w, struct ebf_ctl_request *rq, char *err,
                                   size_t len);

/* The reply to the request just received: ok or err, the status st and,
 * unless ms is NULL, the snapshot of ms with the last sequence number. */
void ebf_ctl_wire_reply(struct ebf_ctl_wire *w, int ok, const char *err,
                        const struct ebf_ctl_status *st, const struct ebf_metrics *ms);

/* The snapshot of ms on the PUB socket with the next sequence number
 * (dropped when nobody listens). */
void ebf_ctl_wire_publish(struct ebf_ctl_wire *w, const struct ebf_ctl_status *st,
                          const struct ebf_metrics *ms);

#endif /* EBF_CTL_WIRE_H */
