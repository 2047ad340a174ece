/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_launch.h - a farm's daemons on any of its hosts: prepared, started, watched, signalled, their logs read, removed. */
#ifndef FARM_LAUNCH_H
#define FARM_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

#include "farm_types.h"

/*
 * A process on the local host is a child of the tool (farm_proc.h). On a
 * remote host (ssh, or a network namespace reached over ssh) it is, by
 * the host's launch (farm_launch_prepare decides):
 *
 * - PLAIN: started by a few lines of sh sent over ssh (the keeper): it
 *   runs the daemon in the run directory with its output in
 *   <run_dir>/<name>.log, prints "PID KEEPER_PID", waits for it and
 *   writes how it ended to <run_dir>/exit.<pid> ("exited with status 1",
 *   "killed by SIGKILL"; an exit status above 128 reads as a signal, as sh
 *   reports both alike).
 * - UNIT: systemd-run --unit=ebfarm-<farm>-<name>, where systemd runs the
 *   host (/run/systemd/system exists and systemd-run is there), with the
 *   properties of the templates in systemd/ (Restart=no, LimitNOFILE,
 *   LimitMEMLOCK, TimeoutStopSec); logs in the journal; an ExecStopPost
 *   writes <run_dir>/exit.unit.<name> ("exited 1", "killed KILL"). A unit
 *   that failed stays failed for systemctl until down resets it.
 *
 * $EBFARM_LAUNCH=plain makes every remote host PLAIN; =unit makes it UNIT
 * and refuses a host without systemd.
 */

/* The unit name of p of farm st: "ebfarm-<farm>-<name>.service". */
void farm_launch_unit(const struct farm_state *st, const struct farm_proc *p, char *buf,
                      size_t len);

/*
 * Make every remote host of st that runs a process ready: its master ssh
 * connection, the run directory (mode 0700), the farm's CURVE keys copied
 * to <run_dir>/keys (server.key, server.pub, clients/\*.pub; mode 0600;
 * the tool's client.key stays here), and its launch (PLAIN or UNIT) into
 * st. 0, or -1 with err naming the host.
 */
int farm_launch_prepare(struct farm_state *st, char *err, size_t len);

/* The script that starts argv as p on its host (for the tests and the
 * docs): PLAIN's keeper or UNIT's systemd-run, into buf. 0, or -E2BIG. */
int farm_launch_script(const struct farm_state *st, const struct farm_proc *p,
                       const struct farm_host *h, char *const argv[], char *buf, size_t len);

/* Start argv (argv[0] the daemon's path on its host) as p: p->pid (and
 * p->kpid) set. 0, or -1 with err naming the host and what failed. */
int farm_launch_spawn(const struct farm_state *st, struct farm_proc *p, char *const argv[],
                      char *err, size_t len);

/* As farm_alive, farm_running (farm_proc.h) for p on its host. A host
 * that cannot be reached counts as alive and running (the waits that ask
 * end on their own time limits, then say so). */
int farm_launch_alive(const struct farm_state *st, const struct farm_proc *p);
int farm_launch_running(const struct farm_state *st, const struct farm_proc *p);

/* Whether p can answer: running and, on this machine (a local host or a
 * namespace of it), not frozen (farm_frozen). A frozen process counts as
 * gone for start, the staged stop and the ledger. */
int farm_launch_answers(const struct farm_state *st, const struct farm_proc *p);

/* Send sig to p on its host: 0, or -1 (errno, or EHOSTUNREACH). */
int farm_launch_signal(const struct farm_state *st, const struct farm_proc *p, int sig);

/* Wait until p has gone, at most timeout_s. */
void farm_launch_wait_gone(const struct farm_state *st, const struct farm_proc *p,
                           double timeout_s);

/* How p ended (farm_exit_how): 0, or -1 when nothing was recorded. */
int farm_launch_exit_how(const struct farm_state *st, const struct farm_proc *p, char *buf,
                         size_t len);

/* Why p failed, from its log (farm_log_cause): 1 with the text, or 0. */
int farm_launch_log_cause(const struct farm_state *st, const struct farm_proc *p, char *buf,
                          size_t len);

/* Where an operator reads p's log, for messages: "<run_dir>/<name>.log",
 * with " on host H" for an ssh host, or "journalctl -u UNIT _PID=PID on
 * host H" for a unit. */
void farm_launch_log_where(const struct farm_state *st, const struct farm_proc *p, char *buf,
                           size_t len);

/* The shell command that prints p's log on its host: cat of the log file,
 * or for a unit journalctl -b -u UNIT _PID=PID, the lines of this process
 * and not of earlier ones of the unit (tail -f / journalctl -f with
 * follow). */
void farm_launch_log_cmd(const struct farm_state *st, const struct farm_proc *p, int follow,
                         char *buf, size_t len);

/* SIGKILL every process of st that still runs, on every host. */
void farm_launch_kill_all(const struct farm_state *st);

/* Remove, on every host, the DPDK runtime directory of every process and
 * its unit (UNIT hosts); then the run directory of every ssh host (a
 * namespace shares this machine's), with keep only its sockets, exit
 * records and keys (the logs stay); then close the master connections. */
void farm_launch_cleanup(const struct farm_state *st, int keep);

#endif /* FARM_LAUNCH_H */
