/* SPDX-License-Identifier: BSD-3-Clause */
/* snapsub.c - a farm's metrics endpoints as ZMQ_SUB sockets, newest two snapshots per process. */
#include "snapsub.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ebf_curve.h"
#include "farm_state.h"
#include "farmfile.h"

double snapsub_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The farm file's metrics period in seconds; 1 when it cannot be read. */
static double farm_period(const struct farm_state *st)
{
    struct farm_spec *spec = malloc(sizeof(*spec));
    char err[512];
    double p = 1.0;

    if (spec && farm_spec_load(st->farm_file, spec, err, sizeof(err)) == 0 &&
        spec->run.metrics_period_ms > 0)
        p = spec->run.metrics_period_ms * 1e-3;
    free(spec);
    return p;
}

/* The client keys of st's farm into *k (1), or none (0); -1 with err. */
static int farm_keys(const struct farm_state *st, struct ebf_curve_client *k, char *err,
                     size_t len)
{
    char e[512];

    if (!st->keys[0])
        return 0;
    if (ebf_curve_client_load(st->keys, k, e, sizeof(e)) != 0) {
        snprintf(err, len, "farm '%s': %s", st->name, e);
        return -1;
    }
    return 1;
}

int snapsub_open(struct snapsub *ss, const struct farm_state *st, char *err, size_t len)
{
    struct ebf_curve_client keys;
    int zero = 0, have_keys;

    memset(ss, 0, sizeof(*ss));
    if ((have_keys = farm_keys(st, &keys, err, len)) < 0)
        return -1;
    ss->period_s = farm_period(st);
    ss->zctx = zmq_ctx_new();
    if (!ss->zctx) {
        snprintf(err, len, "cannot make a ZeroMQ context: %s", zmq_strerror(errno));
        return -1;
    }
    for (unsigned i = 0; i < st->n; i++) {
        struct snapsub_proc *p = &ss->p[i];
        const struct farm_proc *fp = &st->proc[i];
        snprintf(p->name, sizeof(p->name), "%s", fp->name);
        p->component = farm_role_name(fp->role);
        ss->n = i + 1;
        p->sub = zmq_socket(ss->zctx, ZMQ_SUB);
        if (!p->sub || zmq_setsockopt(p->sub, ZMQ_LINGER, &zero, sizeof(zero)) != 0 ||
            zmq_setsockopt(p->sub, ZMQ_SUBSCRIBE, "", 0) != 0 ||
            (have_keys && ebf_curve_applies(fp->metrics) &&
             ebf_curve_client_socket(p->sub, &keys) != 0) ||
            zmq_connect(p->sub, fp->metrics) != 0) {
            snprintf(err, len, "%s: cannot subscribe to its metrics endpoint '%s': %s", fp->name,
                     fp->metrics, zmq_strerror(errno));
            snapsub_close(ss);
            return -1;
        }
    }
    return 0;
}

void snapsub_close(struct snapsub *ss)
{
    for (unsigned i = 0; i < ss->n; i++) {
        if (ss->p[i].sub)
            zmq_close(ss->p[i].sub);
        if (ss->p[i].cur)
            ebfarm__snapshot__free_unpacked(ss->p[i].cur, NULL);
        if (ss->p[i].prev)
            ebfarm__snapshot__free_unpacked(ss->p[i].prev, NULL);
    }
    if (ss->zctx)
        zmq_ctx_term(ss->zctx);
    memset(ss, 0, sizeof(*ss));
}

void snapsub_pollitems(const struct snapsub *ss, zmq_pollitem_t *items)
{
    for (unsigned i = 0; i < ss->n; i++) {
        memset(&items[i], 0, sizeof(items[i]));
        items[i].socket = ss->p[i].sub;
        items[i].events = ZMQ_POLLIN;
    }
}

unsigned snapsub_recv(struct snapsub *ss, unsigned i)
{
    struct snapsub_proc *p = &ss->p[i];
    unsigned got = 0;
    zmq_msg_t msg;

    for (;;) {
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, p->sub, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&msg);
            return got;
        }
        Ebfarm__Snapshot *s =
            ebfarm__snapshot__unpack(NULL, zmq_msg_size(&msg), zmq_msg_data(&msg));
        zmq_msg_close(&msg);
        if (!s) {
            p->bad++;
            continue;
        }
        if (p->prev)
            ebfarm__snapshot__free_unpacked(p->prev, NULL);
        p->prev = p->cur;
        p->cur = s;
        p->cur_at = snapsub_now();
        p->received++;
        got++;
    }
}

int snapsub_fresh(const struct snapsub *ss, unsigned i, double now)
{
    return ss->p[i].cur && now - ss->p[i].cur_at <= 3 * ss->period_s;
}
