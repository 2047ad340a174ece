/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_cpus.c - the threads the control side starts (ZeroMQ's, the ZAP handler) put on DPDK's control-thread CPUs, off the lcores. */
#include "ebf_ctl_cpus.h"

#include <pthread.h>

#include <rte_lcore.h>

/* What a control thread finds its CPUs to be. */
struct probe {
    cpu_set_t set;
    int ok;
};

static void *probe_main(void *arg)
{
    struct probe *p = arg;

    p->ok = pthread_getaffinity_np(pthread_self(), sizeof(p->set), &p->set) == 0;
    return NULL;
}

int ebf_ctl_cpus_enter(cpu_set_t *saved)
{
    struct probe p = {.ok = 0};
    pthread_t t;

    if (pthread_getaffinity_np(pthread_self(), sizeof(*saved), saved) != 0 ||
        rte_ctrl_thread_create(&t, "ebf-cpus", NULL, probe_main, &p) != 0)
        return 0;
    pthread_join(t, NULL);
    if (!p.ok || CPU_EQUAL(&p.set, saved))
        return 0;
    return pthread_setaffinity_np(pthread_self(), sizeof(p.set), &p.set) == 0;
}

void ebf_ctl_cpus_leave(const cpu_set_t *saved, int moved)
{
    if (moved)
        pthread_setaffinity_np(pthread_self(), sizeof(*saved), saved);
}
