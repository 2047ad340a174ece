/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_state.h - the run directory of a farm that is up and its state file, farm.state. */
#ifndef FARM_STATE_H
#define FARM_STATE_H

#include <stddef.h>

#include "farm_types.h"

/* The directory that holds one run directory per farm that is up:
 * $EBFARM_RUN_DIR, else /run/ebfarm for root, else $XDG_RUNTIME_DIR/ebfarm
 * (/tmp/ebfarm-<uid> without it). Every user of it checks it with
 * farm_rundir_secure: this user's, 0700 when made, no link. */
const char *farm_state_base_dir(void);

/* The name of a role as the state file, the status and the metrics say it:
 * "sfc", "node", "readout" ("unknown" for anything else). */
const char *farm_role_name(enum farm_role role);

/*
 * Append process p of spec s, as role, to st (which has room: a spec has
 * at most FARM_MAX_PROCS processes): its name, its EAL --file-prefix
 * (unique per ebfarm process, farm and name) and its endpoints with every
 * "{run}" replaced by st->run_dir. Not started: pid 0.
 */
void farm_state_add(struct farm_state *st, const struct farm_spec *s, const struct ff_proc *p,
                    enum farm_role role);

/* Write <st->run_dir>/farm.state (through a temporary file and a rename).
 * Returns 0 or -errno. */
int farm_state_save(const struct farm_state *st);

/* farm_state_save, with err ("cannot write <path>: <why>") on failure. */
int farm_state_save_err(const struct farm_state *st, char *err, size_t len);

/*
 * Whether run_dir takes the daemons' logs and the state: FARM_STATE_ROOM
 * bytes are written to a file in it (then removed). 0, or -errno with err
 * naming the directory, the file and why ("No space left on device",
 * "Read-only file system"): a daemon whose log cannot be written would
 * fail, or run, with nothing to say.
 */
#define FARM_STATE_ROOM (64 * 1024)
int farm_state_dir_check(const char *run_dir, char *err, size_t len);

/* Read <run_dir>/farm.state into st. Returns 0, or -1 with err when the
 * file cannot be read or names no farm or no process. */
int farm_state_load(const char *run_dir, struct farm_state *st, char *err, size_t len);

/* Find the farm that is up under farm_state_base_dir(): by name, or the
 * only one when name is NULL. Returns 0, or -1 with err saying that none
 * (or several, named) are up and what to do. */
int farm_state_find(const char *name, struct farm_state *st, char *err, size_t len);

/*
 * Take the command lock of farm name for cmd ("stop", "down", ...): an
 * exclusive flock on <base>/.<name>.lock, which notes the holder's command
 * and pid. Returns the descriptor that holds the lock until it is closed or
 * the process exits, or -1 with err naming the holder ("farm 'demo' is
 * busy: 'ebfarm stop' (pid 1234) holds it; try again when it is done") or
 * the file that could not be opened and why.
 */
int farm_state_lock(const char *name, const char *cmd, char *err, size_t len);

/* Remove the lock file of farm name when this process holds it and the
 * farm has no state (down done, or an up that failed), so that lock files
 * do not pile up in the base directory; else nothing. A command that opened
 * the old file and locks it after this sees it unlinked and opens the new
 * one (farm_state_lock checks). */
void farm_state_lock_remove(const char *name);

#endif /* FARM_STATE_H */
