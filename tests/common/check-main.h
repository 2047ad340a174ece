/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.h - what the suite runner (check-main.c) tells its tests: its pid, and the EAL runtime directories it removes when the suite ends. */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <stddef.h>
#include <sys/types.h>

/* Every EAL a test starts takes the --file-prefix CHECK_EAL_PREFIX
 * "<runner pid>-<tag><pid>" (test_eal_prefix): a test whose check fails
 * in its forked process ends there, before its teardown's
 * rte_eal_cleanup(), as does one that crashes or that Check kills at its
 * timeout, and the runner removes what is left under that name once the
 * suite ends, also when the run is interrupted (SIGINT, SIGTERM, SIGHUP).
 * Only SIGKILL of the runner itself leaves them. */
#define CHECK_EAL_PREFIX "ebft"

/* The pid of the runner: the test program's first process, which runs the
 * suite in a child (Check's, the parent of the forked tests, or the test
 * process itself under CK_FORK=no) and removes the directories when that
 * child ends. */
pid_t check_runner_pid(void);

/* The folder of EAL runtime directories, as DPDK places them: /var/run/dpdk
 * for root, else $XDG_RUNTIME_DIR/dpdk (/tmp/dpdk when unset). Written
 * into BUF (N bytes). */
void check_runtime_base(char *buf, size_t n);

/* Removes PATH and, if it is a directory, everything under it (links not
 * followed). Returns 0, or -1 with errno (nftw's, remove's). */
int check_remove_tree(const char *path);

#endif /* CHECK_MAIN_H */
