/* SPDX-License-Identifier: BSD-3-Clause */
/* misbehave-plugin.c - a trigger plug-in that fails on purpose: an error, a slow decide or a crash on chosen events. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ebfarm/trigger.h>

/* Parameters (each optional, 0: never): fail_every=N (decide returns an
 * error on ids that are multiples of N), slow_every=N and slow_ms=T (sleep
 * T ms on multiples of N), crash_at=ID (SIGSEGV on event ID). Every
 * event it decides is accepted. */
struct mis {
    unsigned long long fail_every, slow_every, slow_ms, crash_at;
};

static const char *const known[] = {"fail_every", "slow_every", "slow_ms", "crash_at", NULL};

static unsigned long long num(const struct ebf_trigger_run *run, const char *key)
{
    const char *v = ebf_trigger_param_get(run, key);

    return v ? strtoull(v, NULL, 10) : 0;
}

static int mis_init(const struct ebf_trigger_run *run, void **state, char *err, size_t len)
{
    struct mis *m;

    if (ebf_trigger_params_known(run, known, err, len))
        return -1;
    m = calloc(1, sizeof(*m));
    if (!m)
        return -1;
    m->fail_every = num(run, "fail_every");
    m->slow_every = num(run, "slow_every");
    m->slow_ms = num(run, "slow_ms");
    m->crash_at = num(run, "crash_at");
    *state = m;
    return 0;
}

static int mis_decide(void *state, const struct ebf_trigger_event *ev,
                      struct ebf_trigger_decision *d)
{
    const struct mis *m = state;

    if (m->crash_at && ev->event_id == m->crash_at) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (m->slow_every && ev->event_id % m->slow_every == 0) {
        struct timespec ts = {(time_t)(m->slow_ms / 1000), (long)(m->slow_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (m->fail_every && ev->event_id % m->fail_every == 0)
        return -1;
    d->accept = 1;
    d->stream = 0;
    return 0;
}

static void mis_fini(void *state)
{
    free(state);
}

const struct ebf_trigger_plugin ebf_trigger_plugin = {
    .abi_version = EBF_TRIGGER_ABI_VERSION,
    .name = "misbehave",
    .init = mis_init,
    .decide = mis_decide,
    .fini = mis_fini,
};
