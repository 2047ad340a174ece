/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_runid.h - a run's identity: the run-number counter kept across up and down, UTC times in ISO 8601. */
#ifndef FARM_RUNID_H
#define FARM_RUNID_H

#include <stddef.h>
#include <stdint.h>

#include "farm_types.h"

/*
 * A farm numbers its runs 1, 2, 3, ... and never reuses a number: the next
 * one is kept in <farm_state_base_dir()>/<farm>.next-run, a file that
 * outlives the farm's run directory (ebfarm down removes that), written
 * through a temporary file and a rename. Single-threaded callers.
 */

#define FARM_RUN_MAX 4294967294u  /* so that the next one still fits */

/* The counter file of farm name, into path. */
const char *farm_run_counter_path(const char *name, char *path, size_t len);

/* The next run number of farm name into *next: 1 when it has none yet.
 * 0, or -1 with err naming the file and what it holds. */
int farm_run_next(const char *name, uint32_t *next, char *err, size_t len);

/* Set the next run number of farm name (1 to FARM_RUN_MAX + 1). 0, or -1
 * with err. */
int farm_run_set_next(const char *name, uint64_t next, char *err, size_t len);

/*
 * The run to start now: want (a run number given with --run; 0: none) or
 * else the counter's, into *run; the counter then moves past it before
 * the run starts, so that a number is never used twice even when the start
 * fails half-way. 0, or -1 with err.
 */
int farm_run_take(const char *name, uint32_t want, uint32_t *run, char *err, size_t len);

/* Give run back after a start that no process took (farmctl_start -2):
 * the counter returns to run unless it has moved on since. */
void farm_run_give_back(const char *name, uint32_t run);

/* A run number as --run gives it: 1 to FARM_RUN_MAX in decimal. 0, or -1
 * with err ("--run: \"0\" is not a run number (1 to 4294967294)"). */
int farm_run_parse(const char *txt, uint32_t *run, char *err, size_t len);

/* Now, as milliseconds since the epoch (CLOCK_REALTIME, UTC). */
int64_t farm_utc_now_ms(void);

/* ms since the epoch as ISO 8601 UTC with milliseconds,
 * "2025-06-01T12:00:00.123Z", into buf (25 bytes); "" when ms <= 0. */
const char *farm_utc_iso(int64_t ms, char *buf, size_t len);

#endif /* FARM_RUNID_H */
