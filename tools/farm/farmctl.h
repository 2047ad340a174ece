/* SPDX-License-Identifier: BSD-3-Clause */
/* farmctl.h - a farm's processes on this host through a run: up, start, the staged stop, down. */
#ifndef FARMCTL_H
#define FARMCTL_H

#include <stddef.h>

#include "farm_types.h"

/*
 * Start every process of spec (SFCs first, then nodes and readouts), wait
 * until each answers on its control endpoint, save the state file in
 * run_dir (created), then configure them all with the spec's run
 * parameters. Returns 0, or -1 with err naming the process and its log;
 * on failure nothing is left running. build_dir holds the daemons. The
 * processes start on their hosts (farm_launch.h): network namespaces are
 * made first (farm_netns.h), remote hosts prepared (run directory, keys).
 */
int farmctl_up(const struct farm_spec *spec, const char *build_dir, const char *run_dir,
               struct farm_state *st, char *err, size_t len);

/* Start run `run` (above 0: the caller numbers runs, farm_runid.h) on
 * SFCs, then nodes, then readouts, note its number and start time in st
 * and save the state file. The readouts' STARTs carry one common instant
 * of event 0 (wall clock, FARM_START_LEAD_NS to FARM_START_LEAD_MAX_NS
 * ahead: docs/operations.md), so they pace as one trigger; it returns once
 * that instant is past. Returns 0; or with err naming the process that
 * refused or did not answer, -1 when some process had started the run
 * (its number is used), -2 when none had (st unchanged). A process gone or
 * frozen (farm_launch_answers) is found before any order: -2 naming each. */
#define FARM_START_LEAD_NS 50000000ull       /* the readouts' start instant: at least */
#define FARM_START_LEAD_MAX_NS 1000000000ull  /* ... and at most this far ahead */
int farmctl_start(struct farm_state *st, uint32_t run, char *err, size_t len);

/*
 * The staged stop: readouts stop generating; once they are CONFIGURED the
 * SFCs drain (finish or time out what is building, wait for every ack);
 * then the nodes finish. r receives every process's final counters
 * (farm_collect.h: readouts and SFCs summed). A process that is gone
 * (killed) or frozen (SIGSTOP: farm_launch_answers), before the stop or
 * when its order fails, is skipped and named gone in r (a node counted in
 * r->nodes_silent). r->id says which run it was (its stop time: when
 * every process was back in CONFIGURED). Returns 0, or -1 with err set;
 * r is zeroed first in any case (free it with farm_result_free).
 */
int farmctl_stop(const struct farm_state *st, struct farm_result *r, char *err, size_t len);

/* The same, with the place of each process given (places[i] for
 * st->proc[i], farm_spec_place) where the farm's shape is not its file's
 * (the demo shapes it in memory); NULL: from the file. */
int farmctl_stop_places(const struct farm_state *st, const int *places, struct farm_result *r,
                        char *err, size_t len);

/* Whether some process of st reports a run in progress (RUNNING or PAUSED). */
int farmctl_run_in_progress(const struct farm_state *st);

/* Shut every process down (stopping a run first), SIGKILL what does not
 * exit, remove the DPDK runtime directories, sockets and, unless keep,
 * the run directory. Returns 0, or -1 with err naming what had to be killed. */
int farmctl_down(const struct farm_state *st, int keep, char *err, size_t len);

#endif /* FARMCTL_H */
