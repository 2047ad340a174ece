/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_proc.h - a farm's daemons as processes on this host: found, started, watched, killed. */
#ifndef FARM_PROC_H
#define FARM_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "farm_types.h"

/* Seconds on a monotonic clock. */
double farm_now(void);

/* Sleep ms milliseconds. */
void farm_sleep_ms(unsigned ms);

/*
 * The build directory that holds the daemons (readout/ebfarm-readout,
 * sfc/..., node/...): $EBFARM_BUILD_DIR when set, else two levels above
 * the running executable (build/tools/ebfarm). Returns 0, or -errno
 * (-ENAMETOOLONG when it does not fit in len).
 */
int farm_build_dir(char *buf, size_t len);

/*
 * Start argv (argv[0] a path, the list ending in NULL) in its own session,
 * stdin from /dev/null, stdout and stderr to <run_dir>/<log_name>.log.
 * Returns the child's pid, or -1 with errno and err naming the log file
 * that cannot be created or the fork that failed; a program that cannot be
 * executed exits 127 with the reason in its log.
 */
pid_t farm_spawn(char *const argv[], const char *run_dir, const char *log_name, char *err,
                 size_t len);

/*
 * Why the daemon called name failed, from <run_dir>/<name>.log: the first
 * line it logged as an error ("EAL: lcore 4 unavailable"), or its refusal
 * of an option from before its log started. 1 with the text in buf, 0 when
 * the log holds none (or cannot be read).
 */
int farm_log_cause(const char *run_dir, const char *name, char *buf, size_t len);

/* Whether pid still runs. A child of ours that exited is reaped; a zombie
 * that is not ours (its parent, ebfarm up, is gone) counts as exited. */
int farm_alive(pid_t pid);

/* SIGKILL every process of st that still runs, and reap those that are ours. */
void farm_kill_all(const struct farm_state *st);

/* Remove path and everything below it; says so on stderr when it cannot. */
void farm_rm_rf(const char *path);

/* Remove the DPDK runtime directory (/var/run/dpdk/<prefix>) of every
 * process of st. */
void farm_remove_runtime(const struct farm_state *st);

#endif /* FARM_PROC_H */
