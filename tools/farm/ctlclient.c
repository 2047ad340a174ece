/* SPDX-License-Identifier: BSD-3-Clause */
/* ctlclient.c - one run-control request over a ZeroMQ REQ socket. */
#include "ctlclient.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zmq.h>

int ctl_request(void *zctx, const char *endpoint, enum ebf_cmd cmd, uint32_t run_number,
                const struct ctl_param *params, unsigned n_params, int timeout_ms,
                Ebfarm__Reply **reply, char *err, size_t len)
{
    Ebfarm__Request rq = EBFARM__REQUEST__INIT;
    Ebfarm__Param pv[32], *pp[32];
    int zero = 0, rc = 0;

    *reply = NULL;
    if (n_params > 32) {
        snprintf(err, len, "%s: more than 32 parameters", endpoint);
        return -EINVAL;
    }
    rq.command = (Ebfarm__Command)cmd;
    rq.run_number = run_number;
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
    void *s = zmq_socket(zctx, ZMQ_REQ);
    if (!s) {
        snprintf(err, len, "%s: %s", endpoint, zmq_strerror(errno));
        return -errno;
    }
    zmq_setsockopt(s, ZMQ_LINGER, &zero, sizeof(zero));
    zmq_setsockopt(s, ZMQ_RCVTIMEO, &timeout_ms, sizeof(timeout_ms));
    zmq_setsockopt(s, ZMQ_SNDTIMEO, &timeout_ms, sizeof(timeout_ms));
    size_t n = ebfarm__request__get_packed_size(&rq);
    uint8_t buf[4096];
    if (n > sizeof(buf)) {
        snprintf(err, len, "%s: request too large", endpoint);
        rc = -E2BIG;
        goto out;
    }
    ebfarm__request__pack(&rq, buf);
    if (zmq_connect(s, endpoint) != 0 || zmq_send(s, buf, n, 0) < 0) {
        rc = -errno;
        snprintf(err, len, "%s: cannot send: %s", endpoint, zmq_strerror(errno));
        goto out;
    }
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, s, 0) < 0) {
        rc = errno == EAGAIN ? -ETIMEDOUT : -errno;
        snprintf(err, len, "%s: no reply within %d ms", endpoint, timeout_ms);
        zmq_msg_close(&msg);
        goto out;
    }
    *reply = ebfarm__reply__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
    zmq_msg_close(&msg);
    if (!*reply) {
        snprintf(err, len, "%s: the reply is not an ebfarm.Reply message", endpoint);
        rc = -EPROTO;
    }
out:
    zmq_close(s);
    return rc;
}
