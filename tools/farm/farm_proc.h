/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_proc.h - a farm's daemons as processes on this host: found, started, watched, killed. */
#ifndef FARM_PROC_H
#define FARM_PROC_H

#include <stddef.h>
#include <stdio.h>
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

/* The tool's own argv (main's), whose memory a keeper overwrites with its
 * title "ebfarm-keeper NAME RUN_DIR" (/proc/PID/cmdline, ps), so that it
 * does not carry the tool's command line for the farm's life. Without it
 * the keeper is only renamed (comm "ebfkeep-NAME"). */
void farm_proc_title_area(int argc, char **argv);

/*
 * Start argv (argv[0] a path, the list ending in NULL) in a session of its
 * own, stdin from /dev/null, stdout and stderr to <run_dir>/<log_name>.log.
 * A small keeper process (the session leader, the daemon's parent) waits
 * for it and writes how it ended to <run_dir>/exit.<pid> (farm_exit_how).
 * Returns the daemon's pid, or -1 with errno and err naming the log file
 * that cannot be created (with why) or the fork or pipe that failed; a
 * program that cannot be executed exits 127 with the reason in its log.
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

/* The first line of <run_dir>/<name>.log in which a DPDK driver reports a
 * failure ("memif_connect(): mmap failed: Cannot allocate memory": a
 * function name, "(): ", then failed, cannot or error), into buf: 1, or 0
 * when there is none. What a process whose link never came up blames on
 * its peer. */
int farm_log_driver_error(const char *run_dir, const char *name, char *buf, size_t len);

/* farm_log_cause over the log's text read from f. */
int farm_log_cause_stream(FILE *f, const char *name, char *buf, size_t len);

/* How the daemon pid of run_dir ended, as its keeper wrote it ("exited
 * with status 1", "killed by SIGKILL"): 0, or -1 when nothing was written
 * (it runs, or its keeper was killed too). */
int farm_exit_how(const char *run_dir, pid_t pid, char *buf, size_t len);

/* Wait until pid has gone, at most timeout_s. */
void farm_wait_gone(pid_t pid, double timeout_s);

/* Reap the tool's children that have ended (the daemons' keepers). */
void farm_reap(void);

/* Whether pid still runs (or has exited and its keeper has not yet
 * recorded how: farm_spawn). */
int farm_alive(pid_t pid);

/* Whether pid still runs and can answer: alive and not a zombie (an exited
 * daemon its keeper has not yet reaped counts as gone here). For the
 * staged stop and the final counters. */
int farm_running(pid_t pid);

/* Whether pid is stopped by a signal (SIGSTOP, SIGTSTP: /proc state T) or
 * traced (t): it cannot answer until continued. */
int farm_frozen(pid_t pid);

/* Remove path and everything below it; says so on stderr when it cannot. */
void farm_rm_rf(const char *path);

#endif /* FARM_PROC_H */
