/* SPDX-License-Identifier: BSD-3-Clause */
/* check-main.h - what the suite runner (check-main.c) tells the tests it forks: its pid, and the EAL runtime directories it removes when the suite ends. */
#ifndef CHECK_MAIN_H
#define CHECK_MAIN_H

#include <sys/types.h>

/* Every EAL a test starts takes the --file-prefix CHECK_EAL_PREFIX
 * "<runner pid>-<tag><pid>" (test_eal_prefix): a test whose check fails
 * in its forked process ends there, before its teardown's
 * rte_eal_cleanup(), and the runner removes what is left under that name
 * once the suite ends. */
#define CHECK_EAL_PREFIX "ebft"

/* The pid of the process running the suite: the parent of the forked
 * tests (the test process itself under CK_FORK=no). */
pid_t check_runner_pid(void);

/* Removes PATH and, if it is a directory, everything under it (links not
 * followed). Returns 0, or -1 with errno (nftw's, remove's). */
int check_remove_tree(const char *path);

#endif /* CHECK_MAIN_H */
