/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_env.c - what every case of a bench run shares: the unique DPDK file prefix of each run. */
#include "bench_env.h"

#include <stdio.h>
#include <unistd.h>

void bench_env_prefix(struct bench_env *env, char *buf, size_t len)
{
    snprintf(buf, len, "ebfbench%ld-%u", (long)getpid(), env->seq++);
}
