/* SPDX-License-Identifier: BSD-3-Clause */
/* farmctl.h - bring a farm file's processes up on this host, run, stop and take them down. */
#ifndef FARMCTL_H
#define FARMCTL_H

#include <stdint.h>
#include <sys/types.h>

#include "ebfarm.pb-c.h"
#include "farm.h"
#include "farmfile.h"

#define FARMCTL_MAX_PROCS (FF_MAX_READOUTS + FF_MAX_SFCS + FF_MAX_NODES)

enum farm_role { FARM_SFC, FARM_NODE, FARM_READOUT };

struct farm_proc {
    char name[FF_NAME_MAX];
    enum farm_role role;
    pid_t pid;
    char prefix[96];             /* EAL --file-prefix */
    char control[FF_STR_MAX];    /* endpoints with {run} substituted */
    char metrics[FF_STR_MAX];
};

/* What `ebfarm up` leaves in <run_dir>/farm.state for the later commands. */
struct farm_state {
    char name[FF_NAME_MAX];
    char run_dir[512];
    char farm_file[512];         /* the file it was brought up from */
    uint32_t run_number;         /* the last run started */
    unsigned n;
    struct farm_proc proc[FARMCTL_MAX_PROCS];
};

/* The directory that holds one run directory per farm that is up:
 * $EBFARM_RUN_DIR, else /run/ebfarm. */
const char *farmctl_base_dir(void);

/*
 * Start every process of spec (SFCs first, then nodes and readouts), wait
 * until each answers on its control endpoint, save the state file in
 * run_dir (created), then configure them all with the spec's run
 * parameters. Returns 0, or -1 with err naming the process and its log;
 * on failure nothing is left running. build_dir holds the daemons.
 */
int farmctl_up(const struct farm_spec *spec, const char *build_dir, const char *run_dir,
               struct farm_state *st, char *err, size_t len);

/* Start run st->run_number + 1 (SFCs, then nodes, then readouts). */
int farmctl_start(struct farm_state *st, char *err, size_t len);

/* Status of every process: replies[i] for st->proc[i], NULL when it did not
 * answer (free with farmctl_free_replies). */
void farmctl_status(const struct farm_state *st, Ebfarm__Reply **replies);
void farmctl_free_replies(const struct farm_state *st, Ebfarm__Reply **replies);

/* Wait until every readout reports its run finished; -1 after timeout_s. */
int farmctl_wait_finished(const struct farm_state *st, double timeout_s, char *err, size_t len);

/* Once the readouts have generated `events` (or finished), kill the
 * node-th node process (fault injection for the demo and the tests):
 * SIGSTOP, then SIGKILL once the SFC has declared it dead (at most 10 s
 * later), which spares the SFC a memif PMD race (see docs/status.md). */
int farmctl_kill_node_after(const struct farm_state *st, unsigned node, uint64_t events,
                            double timeout_s, char *err, size_t len);

/* Once the readouts have generated `events` (or finished), SIGSTOP every
 * node; once the first readout reports a throttle hold, wait hold_ms more
 * and SIGCONT them. -1 with err when the readout is not held within 20 s
 * (the nodes are continued in any case). */
int farmctl_stall_nodes(const struct farm_state *st, uint64_t events, double hold_ms,
                        double timeout_s, char *err, size_t len);

/* Start the node-th node again (it was killed), configure it and start it
 * into the current run: a new process, so a new epoch at its SFC. */
int farmctl_respawn_node(struct farm_state *st, const struct farm_spec *spec, const char *build,
                         unsigned node, char *err, size_t len);

/*
 * The staged stop: readouts stop generating; once they are CONFIGURED the
 * SFCs drain (finish or time out what is building, wait for every ack);
 * then the nodes finish. r receives every process's final counters
 * (readouts and SFCs summed). A node process that is gone (killed) is
 * skipped and counted in r->nodes_silent; a gone SFC or readout is an
 * error. Returns 0, or -1 with err set.
 */
int farmctl_stop(const struct farm_state *st, struct farm_result *r, char *err, size_t len);

/* Shut every process down (stopping a run first), SIGKILL what does not
 * exit, remove the DPDK runtime directories, sockets and, unless keep,
 * the run directory. Returns 0, or -1 with err naming what had to be killed. */
int farmctl_down(const struct farm_state *st, int keep, char *err, size_t len);

/* Save and load the state file. */
int farmctl_save(const struct farm_state *st);
int farmctl_load(const char *run_dir, struct farm_state *st, char *err, size_t len);

/* Find the farm that is up: by name, or the only one. 0, or -1 with err. */
int farmctl_find(const char *name, struct farm_state *st, char *err, size_t len);

/* The summary's view of a spec's run (events, sources, nodes, sizes...). */
void farmctl_conf_of(const struct farm_spec *spec, struct farm_conf *c);

/* The demo's conf as a spec: the demo farm file with the options applied. */
int farmctl_demo_spec(const struct farm_conf *c, const char *farm_file, struct farm_spec *spec,
                      char *err, size_t len);

#endif /* FARMCTL_H */
