/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_wire.c - the control thread's ZeroMQ side: requests in, replies and published snapshots out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_log.h>
#include <zmq.h>

#include "ebf_ctl_private.h"
#include "ebf_pb.h"
#include "ebf_util.h"

/* The snapshot message of snap; seq is the published sequence number (a
 * status reply carries the last one published). */
static Ebfarm__Snapshot *snapshot_msg(struct ebf_ctl *ctl, const void *snap, uint64_t seq)
{
    ebf_ctl_metrics(ctl, snap);
    Ebfarm__Snapshot *s = ebf_pb_snapshot(&ctl->ms, ctl->ops->component, ctl->instance,
                                          seq, ctl->run_number, ctl->state);
    if (s) {
        s->time_ns = ebf_now_ns();
        s->farm = ctl->farm;
    }
    return s;
}

void ebf_ctl_reply(struct ebf_ctl *ctl, int ok, const char *err, const void *snap)
{
    Ebfarm__Reply r = EBFARM__REPLY__INIT;
    Ebfarm__Status st = EBFARM__STATUS__INIT;
    Ebfarm__Snapshot *msg = snap ? snapshot_msg(ctl, snap, ctl->seq) : NULL;

    st.component = (char *)ctl->ops->component;
    st.instance = ctl->instance;
    st.state = (Ebfarm__State)ctl->state;
    st.run_number = ctl->run_number;
    st.pid = (uint64_t)getpid();
    st.error = ctl->error;
    st.state_since_ns = ctl->since_ns;
    st.finished = ctl->finished;
    st.metrics = msg;
    r.ok = ok;
    r.error = (char *)err;
    r.status = &st;
    size_t n = ebfarm__reply__get_packed_size(&r);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__reply__pack(&r, buf);
        if (zmq_send(ctl->rep, buf, n, 0) < 0)
            CTL_LOG(WARNING, "cannot send a reply: %s\n", zmq_strerror(errno));
        free(buf);
    }
    ebf_pb_snapshot_free(msg);
}

Ebfarm__Request *ebf_ctl_recv(struct ebf_ctl *ctl, int *got)
{
    zmq_msg_t msg;

    *got = 0;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, ctl->rep, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        return NULL;
    }
    *got = 1;
    Ebfarm__Request *rq = ebfarm__request__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    zmq_msg_close(&msg);
    return rq;
}

/* 1 when the len bytes at k are a key: 1..EBF_CTL_KEY_MAX of a-z, 0-9, _. */
static int key_ok(const uint8_t *k, size_t len)
{
    if (len == 0 || len > EBF_CTL_KEY_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
            return 0;
    return 1;
}

int ebf_ctl_take_params(struct ebf_ctl *ctl, const Ebfarm__Request *rq, char *err, size_t len)
{
    char q[96];

    if (rq->n_params > EBF_CTL_PARAMS_MAX)
        return snprintf(err, len, "%zu parameters in one request (at most %d)", rq->n_params,
                        EBF_CTL_PARAMS_MAX), -1;
    for (size_t i = 0; i < rq->n_params; i++) {
        const ProtobufCBinaryData *k = &rq->params[i]->key, *v = &rq->params[i]->value;
        struct ebf_ctl_param *p = &ctl->params[i];
        if (!key_ok(k->data, k->len))
            return snprintf(err, len, "parameter key \"%s\" is not a name (1 to %d characters "
                            "of a-z, 0-9 and _)", ebf_quote((const char *)k->data, k->len, q,
                                                             sizeof(q)), EBF_CTL_KEY_MAX), -1;
        memcpy(p->key, k->data, k->len);
        p->key[k->len] = '\0';
        if (v->len > EBF_CTL_VALUE_MAX)
            return snprintf(err, len, "parameter '%s': a value of %zu bytes (at most %d)",
                            p->key, v->len, EBF_CTL_VALUE_MAX), -1;
        if (v->len && memchr(v->data, '\0', v->len))
            return snprintf(err, len, "parameter '%s': \"%s\" holds a NUL byte (a value is "
                            "text)", p->key, ebf_quote((const char *)v->data, v->len, q,
                                                       sizeof(q))), -1;
        if (v->len)
            memcpy(p->value, v->data, v->len);
        p->value[v->len] = '\0';
        for (size_t j = 0; j < i; j++)
            if (strcmp(ctl->params[j].key, p->key) == 0)
                return snprintf(err, len, "parameter '%s' is given twice (each key at most "
                                "once)", p->key), -1;
    }
    return 0;
}

void ebf_ctl_send_snapshot(struct ebf_ctl *ctl, const void *snap)
{
    Ebfarm__Snapshot *s = snapshot_msg(ctl, snap, ++ctl->seq);
    if (!s)
        return;
    size_t n = ebfarm__snapshot__get_packed_size(s);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__snapshot__pack(s, buf);
        zmq_send(ctl->pub, buf, n, ZMQ_DONTWAIT);   /* no subscriber: dropped by design */
        free(buf);
    }
    ebf_pb_snapshot_free(s);
}

int ebf_ctl_secure(struct ebf_ctl *ctl)
{
    const char *who = ctl->ops->component;
    char err[512];

    if (!ctl->c.curve_keys)
        return 0;
    ctl->keys = malloc(sizeof(*ctl->keys));
    if (!ctl->keys) {
        errno = ENOMEM;
        return -1;
    }
    if (ebf_curve_server_load(ctl->c.curve_keys, ctl->keys, err, sizeof(err)) != 0 ||
        !(ctl->zap = ebf_zap_start(ctl->zctx, ctl->keys, err, sizeof(err)))) {
        fprintf(stderr, "%s: option '--curve-keys': %s\n", who, err);
        errno = EACCES;
        return -1;
    }
    return 0;
}

/* 0 when s may be bound to ep: a tcp:// endpoint gets CURVE or is allowed
 * plain by insecure; an ipc:// path is new or a socket. Else -1, errno set. */
static int bind_allowed(struct ebf_ctl *ctl, void *s, const char *ep)
{
    const char *who = ctl->ops->component;
    struct stat sb;

    if (ebf_curve_applies(ep)) {
        if (ctl->keys)
            return ebf_curve_server_socket(s, ctl->keys);
        if (ctl->c.insecure)
            return 0;
        fprintf(stderr,
                "%s: refusing to bind '%s' without keys: give --curve-keys DIR "
                "(made by 'ebfarm keygen DIR') or --insecure\n", who, ep);
        errno = EPERM;
        return -1;
    }
    if (!strncmp(ep, "ipc://", 6) && lstat(ep + 6, &sb) == 0 && !S_ISSOCK(sb.st_mode)) {
        fprintf(stderr, "%s: refusing to bind '%s': '%s' exists and is not a socket "
                        "(an existing file is never replaced)\n", who, ep, ep + 6);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

void *ebf_ctl_bind(struct ebf_ctl *ctl, int type, const char *ep)
{
    void *s = zmq_socket(ctl->zctx, type);
    int64_t max = EBF_CTL_MSG_MAX;
    int zero = 0;

    if (!s)
        return NULL;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    /* A request over the limit is never read into memory: ZeroMQ drops it
     * and the connection it came on (the client sees no reply). */
    if (type == ZMQ_REP)
        zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof(max));
    if (bind_allowed(ctl, s, ep) != 0) {
        int e = errno;
        zmq_close(s);
        errno = e;
        return NULL;
    }
    if (zmq_bind(s, ep) != 0) {
        int e = errno;
        fprintf(stderr, "%s: cannot bind '%s': %s\n", ctl->ops->component, ep, zmq_strerror(e));
        zmq_close(s);
        errno = e;
        return NULL;
    }
    return s;
}
