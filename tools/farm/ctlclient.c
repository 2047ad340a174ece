/* SPDX-License-Identifier: BSD-3-Clause */
/* ctlclient.c - one run-control request over a ZeroMQ REQ socket. */
#include "ctlclient.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

#include "ebf_curve.h"

#define PARAMS_MAX 32

/* The request packed into buf of size: its length, or -EINVAL (too many
 * parameters) or -E2BIG (too large) with err naming endpoint. */
static int pack_request(const char *endpoint, enum ebf_cmd cmd, uint32_t run_number,
                        uint64_t start_at_ns, const struct ctl_param *params,
                        unsigned n_params, uint8_t *buf, size_t size, char *err, size_t len)
{
    Ebfarm__Request rq = EBFARM__REQUEST__INIT;
    Ebfarm__Param pv[PARAMS_MAX], *pp[PARAMS_MAX];

    if (n_params > PARAMS_MAX) {
        snprintf(err, len, "%s: more than %d parameters", endpoint, PARAMS_MAX);
        return -EINVAL;
    }
    rq.command = (Ebfarm__Command)cmd;
    rq.run_number = run_number;
    rq.start_at_ns = start_at_ns;
    for (unsigned i = 0; i < n_params; i++) {
        ebfarm__param__init(&pv[i]);
        pv[i].key.data = (uint8_t *)params[i].key;
        pv[i].key.len = strlen(params[i].key);
        pv[i].value.data = (uint8_t *)params[i].value;
        pv[i].value.len = strlen(params[i].value);
        pp[i] = &pv[i];
    }
    rq.n_params = n_params;
    rq.params = pp;
    if (ebfarm__request__get_packed_size(&rq) > size) {
        snprintf(err, len, "%s: request too large", endpoint);
        return -E2BIG;
    }
    return (int)ebfarm__request__pack(&rq, buf);
}

int (*ctl_cancelled)(void);

static struct ebf_curve_client keys;
static int have_keys;

int ctl_use_keys(const char *dir, char *err, size_t len)
{
    have_keys = 0;
    if (!dir || !dir[0])
        return 0;
    if (ebf_curve_client_load(dir, &keys, err, len) != 0)
        return -1;
    have_keys = 1;
    return 0;
}

int ctl_keys_check(const char *dir, const char *farm_file, char *err, size_t len)
{
    struct ebf_curve_server *srv;
    struct ebf_curve_client cli;
    char why[512] = "no memory";
    int rc = 0;

    if (!dir || !dir[0])
        return 0;
    srv = malloc(sizeof(*srv));         /* its client list is large for a stack */
    if (!srv || ebf_curve_client_load(dir, &cli, why, sizeof(why)) != 0 ||
        ebf_curve_server_load(dir, srv, why, sizeof(why)) != 0) {
        snprintf(err, len, "%s: key 'keys': %s: make the keys with 'ebfarm keygen %s', or point "
                 "'keys:' at the directory that holds them (a relative path is taken from the "
                 "farm file's directory)", farm_file, why, dir);
        rc = -1;
    }
    free(srv);
    return rc;
}

/* Wait on s (its receive timeout set) for the reply: 0 with *reply, or
 * -ETIMEDOUT, -EINTR (ctl_cancelled), -errno or -EPROTO with err naming
 * endpoint. */
static int recv_reply(void *s, const char *endpoint, int timeout_ms, Ebfarm__Reply **reply,
                      char *err, size_t len)
{
    zmq_msg_t msg;
    int rc = 0;

    zmq_msg_init(&msg);
    while (zmq_msg_recv(&msg, s, 0) < 0) {
        if (errno == EINTR && !(ctl_cancelled && ctl_cancelled()))
            continue;           /* a signal the caller lets the wait outlast */
        rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
        if (rc == -EINTR)
            snprintf(err, len, "%s: the wait for the reply was interrupted", endpoint);
        else
            snprintf(err, len, "%s: no reply within %d ms", endpoint, timeout_ms);
        zmq_msg_close(&msg);
        return rc;
    }
    *reply = ebfarm__reply__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    zmq_msg_close(&msg);
    if (!*reply) {
        snprintf(err, len, "%s: the reply is not an ebfarm.Reply message", endpoint);
        rc = -EPROTO;
    }
    return rc;
}

/* ctl_request with the START's instant start_at_ns (0: none). */
static int request(void *zctx, const char *endpoint, enum ebf_cmd cmd, uint32_t run_number,
                   uint64_t start_at_ns, const struct ctl_param *params, unsigned n_params,
                   int timeout_ms, Ebfarm__Reply **reply, char *err, size_t len)
{
    uint8_t buf[4096];
    int zero = 0, rc;
    int n = pack_request(endpoint, cmd, run_number, start_at_ns, params, n_params, buf,
                         sizeof(buf), err, len);

    *reply = NULL;
    if (n < 0)
        return n;
    void *s = zmq_socket(zctx, ZMQ_REQ);
    if (!s) {
        rc = -errno;
        snprintf(err, len, "%s: %s", endpoint, zmq_strerror(-rc));
        return rc;
    }
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
    zmq_setsockopt(s, ZMQ_SNDTIMEO, &timeout_ms, sizeof(timeout_ms));
    if (have_keys && ebf_curve_applies(endpoint) && ebf_curve_client_socket(s, &keys) != 0) {
        rc = -errno;
        snprintf(err, len, "%s: cannot set the CURVE keys: %s", endpoint, zmq_strerror(-rc));
    } else if (zmq_connect(s, endpoint) != 0 || zmq_send(s, buf, (size_t)n, 0) < 0) {
        rc = -errno;
        snprintf(err, len, "%s: cannot send: %s", endpoint, zmq_strerror(-rc));
    } else {
        rc = recv_reply(s, endpoint, timeout_ms, reply, err, len);
    }
    zmq_close(s);
    return rc;
}

int ctl_request(void *zctx, const char *endpoint, enum ebf_cmd cmd, uint32_t run_number,
                const struct ctl_param *params, unsigned n_params, int timeout_ms,
                Ebfarm__Reply **reply, char *err, size_t len)
{
    return request(zctx, endpoint, cmd, run_number, 0, params, n_params, timeout_ms, reply, err,
                   len);
}

int ctl_request_start(void *zctx, const char *endpoint, uint32_t run_number,
                      uint64_t start_at_ns, int timeout_ms, Ebfarm__Reply **reply, char *err,
                      size_t len)
{
    return request(zctx, endpoint, EBF_C_START, run_number, start_at_ns, NULL, 0, timeout_ms,
                   reply, err, len);
}
