/* SPDX-License-Identifier: BSD-3-Clause */
/* test-eal.c - EAL start-up and ring ports for the dpdk-suite tests. */
#include "test-eal.h"

#include <check.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>

#include "check-main.h"

void test_eal_prefix(char *arg, size_t n, const char *tag, pid_t pid)
{
    snprintf(arg, n, "--file-prefix=" CHECK_EAL_PREFIX "%d-%s%d", (int)check_runner_pid(), tag,
             (int)pid);
}

void test_eal_init(void)
{
    char prefix[64];
    test_eal_prefix(prefix, sizeof(prefix), "t", getpid());
    char *argv[] = {"test", "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
                    "-l", "0", prefix, "--log-level=*:warning", NULL};
    ck_assert_int_ge(rte_eal_init(10, argv), 0);
}

struct rte_ring *test_ring(const char *name, unsigned size)
{
    struct rte_ring *r = rte_ring_create(name, size, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
    ck_assert_ptr_nonnull(r);
    return r;
}

uint16_t test_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx)
{
    int p = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);
    ck_assert_int_ge(p, 0);
    return (uint16_t)p;
}
