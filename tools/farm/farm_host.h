/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_host.h - a farm's hosts as the tool reaches them: this machine, or OpenSSH with a master connection per host. */
#ifndef FARM_HOST_H
#define FARM_HOST_H

#include <stddef.h>

#include "farm_types.h"

/*
 * Every remote host is reached with the system's ssh client:
 *
 *   ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5
 *       -o LogLevel=ERROR -o ControlMaster=no -o ControlPath=SSH_DIR/cm-%C
 *       [-i SSH_DIR/id_ed25519 -o IdentitiesOnly=yes
 *        -o UserKnownHostsFile=SSH_DIR/known_hosts -o StrictHostKeyChecking=yes]
 *       [-l USER] ADDRESS -- SCRIPT
 *
 * The bracketed options are for network-namespace hosts, whose sshd and keys
 * the run made (farm_netns.h); an ssh host uses the operator's own keys,
 * agent and known_hosts, or, with $EBFARM_SSH_CONFIG set, "-F FILE" first:
 * that ssh_config(5) file instead of ~/.ssh/config and the system's (a
 * farm's own port, identity and known hosts without touching ~/.ssh). A master connection per host (farm_host_open)
 * makes each later command cost a round trip, not a handshake; without it
 * (it exited after 300 s idle) a command connects on its own.
 * Children run in process groups of their own, so a Ctrl-C at the terminal
 * reaches the tool only, which then decides.
 */

/* The ssh directory of the run in run_dir: /run/ebfarm-ssh/<8 hex digits
 * of a hash of run_dir>. Its parents are root's and not writable by others
 * (sshd's StrictModes checks the path of the authorized keys). */
#define FARM_SSH_BASE "/run/ebfarm-ssh"
void farm_host_ssh_dir(const char *run_dir, char *buf, size_t len);

/* st's hosts from spec s: names, kinds, users and ssh addresses; a
 * network namespace's address is set later (farm_netns_plan), its user is
 * root. Launch: LOCAL until farm_launch_prepare has made a remote host
 * ready (PLAIN or UNIT); a remote host still LOCAL was never reached. */
void farm_host_table(struct farm_state *st, const struct farm_spec *s);

/* The host p runs on, or NULL when st does not list it (a state file of
 * an older tool: then p is on this machine). */
const struct farm_host *farm_host_of(const struct farm_state *st, const struct farm_proc *p);

/* Append s, quoted for sh ('...' with ' as '\''), to buf (len bytes) at
 * *o; *o ends at len - 1 when it does not fit (check before using buf). */
void farm_sh_quote(char *buf, size_t len, size_t *o, const char *s);

/* The ssh command line for script on h (argv, NULL-ended, at most max
 * entries with the NULL; pointers into st, h, script and static text):
 * how many entries, or 0 when max is too small. extra: one more -o
 * option before the address, or NULL. */
unsigned farm_host_ssh_argv(const struct farm_state *st, const struct farm_host *h,
                            const char *extra, const char *script, const char **argv,
                            unsigned max);

/*
 * Run argv (argv[0] a path or a name in PATH) in a process group of its
 * own, stdin from /dev/null, stdout and stderr into out (len bytes,
 * NUL-terminated; the rest is read and dropped). Returns its exit status
 * (0..255; 128 + N when killed by signal N), or -1 with errno when it
 * could not be started.
 */
int farm_run_argv(const char *const argv[], char *out, size_t len);

/* Run script with /bin/sh on h: here, or over ssh (255: ssh could not
 * reach h). As farm_run_argv. */
int farm_host_sh(const struct farm_state *st, const struct farm_host *h, const char *script,
                 char *out, size_t len);

/* Open the master connection to h (a remote host): 0, or -1 with err
 * naming the host, its address and what ssh said. */
int farm_host_open(const struct farm_state *st, const struct farm_host *h, char *err, size_t len);

/* Close the master connection to h, if it is open. */
void farm_host_close(const struct farm_state *st, const struct farm_host *h);

#endif /* FARM_HOST_H */
