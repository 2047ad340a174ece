/* SPDX-License-Identifier: BSD-3-Clause */
/* test-eal.h - EAL and net_ring plumbing shared by the dpdk-suite tests. */
#ifndef TEST_EAL_H
#define TEST_EAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_ring.h>

/* rte_eal_init() in this (forked) test process: --no-huge -m 256, no PCI,
 * lcore 0, its own --file-prefix (test_eal_prefix, tag "t"). Fails the
 * test when EAL does not start. End the test with ebf_eal_cleanup(). */
void test_eal_init(void);

/* The EAL argument --file-prefix=NAME of process PID of this suite (the
 * test process, or one it forked), NAME being CHECK_EAL_PREFIX, the
 * runner's pid, "-", TAG and PID: unique per process, and removed by the
 * runner at the suite's end if the test left it (check-main.h). Written
 * into ARG (N bytes, 64 are enough for a short TAG). */
void test_eal_prefix(char *arg, size_t n, const char *tag, pid_t pid);

/* A single-producer, single-consumer ring of size slots (size - 1 usable). */
struct rte_ring *test_ring(const char *name, unsigned size);

/* A net_ring port that receives from rx and transmits into tx. */
uint16_t test_ring_port(const char *name, struct rte_ring *rx, struct rte_ring *tx);

#endif /* TEST_EAL_H */
