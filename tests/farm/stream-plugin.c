/* SPDX-License-Identifier: BSD-3-Clause */
/* stream-plugin.c - a trigger plug-in that sends accepted events to several output streams, and one to a stream that does not exist. */
#include <stdlib.h>

#include <ebfarm/trigger.h>

/* Parameters: accept_every=N (accept ids that are multiples of N, 4),
 * streams=S (accepted id goes to stream (id / N) % S, 3), bad_stream_at=ID
 * (that id goes to stream 200, which no node stores: lost as
 * store_bad_stream; 0: none). */
struct st {
    unsigned long long every, streams, bad_at;
};

static const char *const known[] = {"accept_every", "streams", "bad_stream_at", NULL};

static unsigned long long num(const struct ebf_trigger_run *run, const char *key,
                              unsigned long long def)
{
    const char *v = ebf_trigger_param_get(run, key);

    return v ? strtoull(v, NULL, 10) : def;
}

static int st_init(const struct ebf_trigger_run *run, void **state, char *err, size_t len)
{
    struct st *s;

    if (ebf_trigger_params_known(run, known, err, len))
        return -1;
    s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    s->every = num(run, "accept_every", 4);
    s->streams = num(run, "streams", 3);
    s->bad_at = num(run, "bad_stream_at", 0);
    if (!s->every || !s->streams) {
        snprintf(err, len, "accept_every and streams must be above 0");
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int st_decide(void *state, const struct ebf_trigger_event *ev,
                     struct ebf_trigger_decision *d)
{
    const struct st *s = state;

    d->accept = ev->event_id % s->every == 0;
    d->stream = (uint16_t)(ev->event_id / s->every % s->streams);
    if (s->bad_at && ev->event_id == s->bad_at)
        d->stream = 200;
    return 0;
}

const struct ebf_trigger_plugin ebf_trigger_plugin = {
    .abi_version = EBF_TRIGGER_ABI_VERSION,
    .name = "streams",
    .init = st_init,
    .decide = st_decide,
    .fini = free,
};
