/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_wire.c - the control thread's ZeroMQ side: requests in, replies and published snapshots out. */
#include "ebf_ctl_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "ebf_ctl_log.h"
#include "ebf_pb.h"
#include "ebf_util.h"

/* The snapshot message of ms; seq is the published sequence number (a
 * status reply carries the last one published). */
static Ebfarm__Snapshot *snapshot_msg(const struct ebf_ctl_status *st,
                                      const struct ebf_metrics *ms, uint64_t seq)
{
    Ebfarm__Snapshot *s = ebf_pb_snapshot(ms, st->component, st->instance, seq, st->run_number,
                                          st->state);
    if (s) {
        s->time_ns = ebf_now_ns();
        s->farm = (char *)st->farm;
    }
    return s;
}

void ebf_ctl_wire_reply(struct ebf_ctl_wire *w, int ok, const char *err,
                        const struct ebf_ctl_status *st, const struct ebf_metrics *ms)
{
    Ebfarm__Reply r = EBFARM__REPLY__INIT;
    Ebfarm__Status s = EBFARM__STATUS__INIT;
    Ebfarm__Snapshot *msg = ms ? snapshot_msg(st, ms, w->seq) : NULL;

    s.component = (char *)st->component;
    s.instance = (char *)st->instance;
    s.state = (Ebfarm__State)st->state;
    s.run_number = st->run_number;
    s.pid = (uint64_t)getpid();
    s.error = (char *)st->error;
    s.state_since_ns = st->since_ns;
    s.finished = st->finished;
    s.metrics = msg;
    r.ok = ok;
    r.error = (char *)err;
    r.status = &s;
    size_t n = ebfarm__reply__get_packed_size(&r);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__reply__pack(&r, buf);
        if (zmq_send(w->rep, buf, n, 0) < 0)
            CTL_LOG(WARNING, "cannot send a reply: %s\n", zmq_strerror(errno));
        free(buf);
    }
    ebf_pb_snapshot_free(msg);
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

/* The parameters of m into out as checked C strings. 0, or -1 with err
 * naming the key and value. */
static int take_params(struct ebf_ctl_request *out, const Ebfarm__Request *m, char *err,
                       size_t len)
{
    char q[96];

    if (m->n_params > EBF_CTL_PARAMS_MAX)
        return snprintf(err, len, "%zu parameters in one request (at most %d)", m->n_params,
                        EBF_CTL_PARAMS_MAX), -1;
    for (size_t i = 0; i < m->n_params; i++) {
        const ProtobufCBinaryData *k = &m->params[i]->key, *v = &m->params[i]->value;
        struct ebf_ctl_param *p = &out->params[i];
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
            if (strcmp(out->params[j].key, p->key) == 0)
                return snprintf(err, len, "parameter '%s' is given twice (each key at most "
                                "once)", p->key), -1;
    }
    out->n_params = m->n_params;
    return 0;
}

/* The frames after the first one in msg read and freed to the message's
 * end, none decoded; the refusal (frames, bytes) in err. */
static enum ebf_ctl_got drain_multipart(struct ebf_ctl_wire *w, zmq_msg_t *msg, char *err,
                                        size_t len)
{
    unsigned long frames = 1;
    size_t bytes = zmq_msg_size(msg);
    int more = 1;

    while (more) {
        zmq_msg_close(msg);
        zmq_msg_init(msg);
        if (zmq_msg_recv(msg, w->rep, ZMQ_DONTWAIT) < 0)
            break;               /* cannot happen: the parts come together */
        frames++;
        bytes += zmq_msg_size(msg);
        more = zmq_msg_more(msg);
    }
    zmq_msg_close(msg);
    snprintf(err, len, "a request of %lu frames (%zu bytes) is refused whole: a request is one "
             "frame of at most %d bytes", frames, bytes, EBF_CTL_MSG_MAX);
    return EBF_CTL_GOT_MULTIPART;
}

enum ebf_ctl_got ebf_ctl_wire_recv(struct ebf_ctl_wire *w, struct ebf_ctl_request *rq, char *err,
                                   size_t len)
{
    zmq_msg_t msg;

    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, w->rep, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        return EBF_CTL_GOT_NONE;
    }
    if (zmq_msg_more(&msg))
        return drain_multipart(w, &msg, err, len);
    Ebfarm__Request *m = ebfarm__request__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    zmq_msg_close(&msg);
    if (!m) {
        snprintf(err, len, "the request is not an ebfarm.Request message");
        return EBF_CTL_GOT_GARBAGE;
    }
    rq->command = (int)m->command;
    rq->run_number = m->run_number;
    rq->start_at_ns = m->start_at_ns;
    rq->n_params = 0;
    int rc = take_params(rq, m, err, len);
    ebfarm__request__free_unpacked(m, NULL);
    return rc ? EBF_CTL_GOT_BAD_PARAMS : EBF_CTL_GOT_REQUEST;
}

int ebf_ctl_wire_wait(struct ebf_ctl_wire *w, int ms)
{
    if (!w->rep) {
        usleep((useconds_t)ms * 1000);
        return 0;
    }
    zmq_pollitem_t it = {.socket = w->rep, .events = ZMQ_POLLIN};
    return zmq_poll(&it, 1, ms) > 0 && (it.revents & ZMQ_POLLIN);
}

void ebf_ctl_wire_publish(struct ebf_ctl_wire *w, const struct ebf_ctl_status *st,
                          const struct ebf_metrics *ms)
{
    Ebfarm__Snapshot *s = snapshot_msg(st, ms, ++w->seq);
    if (!s)
        return;
    size_t n = ebfarm__snapshot__get_packed_size(s);
    uint8_t *buf = malloc(n ? n : 1);
    if (buf) {
        ebfarm__snapshot__pack(s, buf);
        zmq_send(w->pub, buf, n, ZMQ_DONTWAIT);   /* no subscriber: dropped by design */
        free(buf);
    }
    ebf_pb_snapshot_free(s);
}

/* Load c's curve_keys and start the ZAP handler (nothing without keys).
 * 0, or -1 with errno set and the cause on stderr. Before any bind. */
static int secure(struct ebf_ctl_wire *w, const struct ebf_ctl_wire_conf *c)
{
    char err[512];

    if (!c->curve_keys)
        return 0;
    w->keys = malloc(sizeof(*w->keys));
    if (!w->keys) {
        errno = ENOMEM;
        return -1;
    }
    if (ebf_curve_server_load(c->curve_keys, w->keys, err, sizeof(err)) != 0 ||
        !(w->zap = ebf_zap_start(w->zctx, w->keys, err, sizeof(err)))) {
        fprintf(stderr, "%s: option '--curve-keys': %s\n", w->who, err);
        errno = EACCES;
        return -1;
    }
    return 0;
}

/* 0 when s may be bound to ep: a tcp:// endpoint gets CURVE or is allowed
 * plain by insecure; an ipc:// path is new or a socket. Else -1, errno set. */
static int bind_allowed(struct ebf_ctl_wire *w, int insecure, void *s, const char *ep)
{
    struct stat sb;

    if (ebf_curve_applies(ep)) {
        if (w->keys)
            return ebf_curve_server_socket(s, w->keys);
        if (insecure)
            return 0;
        fprintf(stderr,
                "%s: refusing to bind '%s' without keys: give --curve-keys DIR "
                "(made by 'ebfarm keygen DIR') or --insecure\n", w->who, ep);
        errno = EPERM;
        return -1;
    }
    if (!strncmp(ep, "ipc://", 6) && lstat(ep + 6, &sb) == 0 && !S_ISSOCK(sb.st_mode)) {
        fprintf(stderr, "%s: refusing to bind '%s': '%s' exists and is not a socket "
                        "(an existing file is never replaced)\n", w->who, ep, ep + 6);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

/* A socket of type bound to ep, or NULL with errno set and the cause on
 * stderr. */
static void *bind_socket(struct ebf_ctl_wire *w, int insecure, int type, const char *ep)
{
    void *s = zmq_socket(w->zctx, type);
    int64_t max = EBF_CTL_MSG_MAX;
    int zero = 0, hs = EBF_CTL_HANDSHAKE_MS, backlog = EBF_CTL_BACKLOG;

    if (!s)
        return NULL;
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    /* A frame over the limit is never read into memory: ZeroMQ drops it
     * and the connection it came on (the client sees no reply). On the PUB
     * socket too: what a subscriber sends (subscriptions) is bounded. */
    zmq_setsockopt(s, ZMQ_MAXMSGSIZE, &max, sizeof(max));
    /* A peer that connects and never completes its handshake (no keys, or
     * a bare TCP connection) holds a descriptor at most this long. */
    zmq_setsockopt(s, ZMQ_HANDSHAKE_IVL, &hs, sizeof(hs));
    zmq_setsockopt(s, ZMQ_BACKLOG, &backlog, sizeof(backlog));
    if (bind_allowed(w, insecure, s, ep) != 0) {
        int e = errno;
        zmq_close(s);
        errno = e;
        return NULL;
    }
    if (zmq_bind(s, ep) != 0) {
        int e = errno;
        fprintf(stderr, "%s: cannot bind '%s': %s\n", w->who, ep, zmq_strerror(e));
        zmq_close(s);
        errno = e;
        return NULL;
    }
    return s;
}

int ebf_ctl_wire_open(struct ebf_ctl_wire *w, const struct ebf_ctl_wire_conf *c)
{
    *w = (struct ebf_ctl_wire){.who = c->who};
    w->zctx = zmq_ctx_new();
    if (!w->zctx)
        return ENOMEM;
    if (secure(w, c) != 0)
        return errno;
    if (c->control && !(w->rep = bind_socket(w, c->insecure, ZMQ_REP, c->control)))
        return errno ? errno : EADDRINUSE;
    if (c->metrics && !(w->pub = bind_socket(w, c->insecure, ZMQ_PUB, c->metrics)))
        return errno ? errno : EADDRINUSE;
    return 0;
}

void ebf_ctl_wire_close(struct ebf_ctl_wire *w)
{
    if (w->rep)
        zmq_close(w->rep);
    if (w->pub)
        zmq_close(w->pub);
    ebf_zap_stop(w->zap);           /* closes its socket: before the context ends */
    free(w->keys);
    if (w->zctx)
        zmq_ctx_term(w->zctx);
    *w = (struct ebf_ctl_wire){0};
}
