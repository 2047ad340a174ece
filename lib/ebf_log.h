/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_log.h - a log stream whose every line carries a UTC timestamp and the instance name. */
#ifndef EBF_LOG_H
#define EBF_LOG_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

/*
 * DPDK 22.11 logs have no timestamp (the EAL option --log-timestamp came in
 * 24.11), so a daemon hands EAL this stream (rte_openlog_stream): every line
 * written to it goes to fd as
 *
 *   2026-11-23T16:40:01.123Z sfc0: EAL: Detected CPU lcores: 2
 *
 * in one write(2), so lines from several threads and processes sharing the
 * file do not mix. A line longer than the buffer (1 KiB) is cut in pieces,
 * each with the prefix. stdio locks the stream around each write, so any
 * thread may log.
 */

/* The stream; NULL with errno set. fclose() writes a last unfinished line. */
FILE *ebf_log_open(const char *name, int fd);

/*
 * The same, with tag() called as each line is written: what it returns
 * (NULL or "" for nothing) goes between the name and the text, so that
 * error lines can be told from the rest:
 *
 *   2026-11-23T16:40:01.123Z sfc0: error: EAL: lcore 4 unavailable
 */
FILE *ebf_log_open_tagged(const char *name, int fd, const char *(*tag)(void));

/*
 * Logs are bounded: when a stream's file (a regular file; a pipe or the
 * journal is left alone) has taken EBF_LOG_MAX_BYTES through the stream,
 * it is renamed to PATH.1 (replacing an older one) and a new PATH is
 * started on the same descriptor, and on stdout and stderr when they
 * write the same file; its first line says so. A process's log thus
 * never holds more than twice the bound, however long it runs.
 */
#define EBF_LOG_MAX_BYTES (64ull << 20)

/* ebf_log_open_tagged with another bound (0: none); for tests. */
FILE *ebf_log_open_bounded(const char *name, int fd, const char *(*tag)(void),
                           unsigned long long max_bytes);

/* The prefix for time ts: "2026-11-23T16:40:01.123Z name: " into buf;
 * returns its length (truncated to len - 1 at most). */
size_t ebf_log_prefix(char *buf, size_t len, const struct timespec *ts, const char *name);

#endif /* EBF_LOG_H */
