/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_ctl_cpus.h - the CPUs of the threads the control side starts (ZeroMQ's, the ZAP handler), off the lcores. */
#ifndef EBF_CTL_CPUS_H
#define EBF_CTL_CPUS_H

#include <sched.h>

/* CPUs of the threads the control side starts (ebf_ctl_cpus.c). A thread
 * inherits the CPUs of the thread that starts it: ZeroMQ's (at the first
 * socket) and the ZAP handler would run on the main lcore's CPU, beside a
 * poll loop pinned there. enter moves the calling thread onto the CPUs
 * DPDK gives its control threads (the process's start CPUs less the
 * lcores', or the main lcore's when none is left), saving its own in
 * saved; 1 when it moved. leave moves it back. */
int ebf_ctl_cpus_enter(cpu_set_t *saved);
void ebf_ctl_cpus_leave(const cpu_set_t *saved, int moved);

#endif /* EBF_CTL_CPUS_H */
