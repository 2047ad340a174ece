/* SPDX-License-Identifier: BSD-3-Clause */
/* node_emulate.c - the built-in trigger plug-in: busy trigger_us per event, accept a fraction drawn from the event id. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ebf_opt.h"
#include "node_decide.h"
#include "node_trigger.h"

/* Built into the node as node_emulate_plugin; plugins/emulate builds the
 * same file as a loadable plug-in under the exported name. */
#ifndef NODE_EMULATE_SYMBOL
#define NODE_EMULATE_SYMBOL node_emulate_plugin
#endif

struct emulate {
    double accept, trigger_us;
    uint64_t seed;
};

static const char *const known[] = {"accept", "accept_seed", "trigger_us", NULL};

static int emulate_init(const struct ebf_trigger_run *run, void **state, char *err, size_t len)
{
    struct emulate e = {.accept = 0.1}, *s;
    const char *v;
    int rc = 0;

    if (ebf_trigger_params_known(run, known, err, len))
        return -EINVAL;
    if ((v = ebf_trigger_param_get(run, "accept")))
        rc = ebf_param_double("accept", v, 0, 1, &e.accept, err, len);
    if (!rc && (v = ebf_trigger_param_get(run, "accept_seed")))
        rc = ebf_param_u64("accept_seed", v, 0, UINT64_MAX, &e.seed, err, len);
    if (!rc && (v = ebf_trigger_param_get(run, "trigger_us")))
        rc = ebf_param_double("trigger_us", v, 0, 1e6, &e.trigger_us, err, len);
    if (rc)
        return rc;
    s = malloc(sizeof(*s));
    if (!s) {
        snprintf(err, len, "out of memory");
        return -ENOMEM;
    }
    *s = e;
    *state = s;
    return 0;
}

static uint64_t mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int emulate_decide(void *state, const struct ebf_trigger_event *ev,
                          struct ebf_trigger_decision *d)
{
    const struct emulate *s = state;

    if (s->trigger_us > 0) {     /* whole microseconds, as a busy CPU */
        uint64_t end = mono_us() + (unsigned)s->trigger_us;
        while (mono_us() < end)
            ;
    }
    d->accept = node_decide(ev->event_id, s->seed, s->accept);
    d->stream = 0;
    return 0;
}

static void emulate_fini(void *state)
{
    free(state);
}

const struct ebf_trigger_plugin NODE_EMULATE_SYMBOL = {
    .abi_version = EBF_TRIGGER_ABI_VERSION,
    .name = "emulate",
    .init = emulate_init,
    .decide = emulate_decide,
    .fini = emulate_fini,
};
