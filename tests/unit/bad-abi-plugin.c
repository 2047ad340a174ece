/* SPDX-License-Identifier: BSD-3-Clause */
/* bad-abi-plugin.c - a trigger plug-in built for another ABI version: the node must refuse it. */
#include <ebfarm/trigger.h>

static int bad_decide(void *state, const struct ebf_trigger_event *ev,
                      struct ebf_trigger_decision *d)
{
    (void)state;
    (void)ev;
    d->accept = 1;
    return 0;
}

static int bad_init(const struct ebf_trigger_run *run, void **state, char *err, size_t len)
{
    (void)run;
    (void)err;
    (void)len;
    *state = 0;
    return 0;
}

const struct ebf_trigger_plugin ebf_trigger_plugin = {
    .abi_version = EBF_TRIGGER_ABI_VERSION + 41,
    .name = "bad-abi",
    .init = bad_init,
    .decide = bad_decide,
};
