/* SPDX-License-Identifier: BSD-3-Clause */
/* farm.c - the demo: a farm file's processes up, one run with its faults, the staged stop, down. */
#include "farm.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "farm_ask.h"
#include "farm_collect.h"
#include "farm_demo_netns.h"
#include "farm_proc.h"
#include "farm_scenario.h"
#include "farm_signal.h"
#include "farmctl.h"
#include "farmfile.h"

/* The stop in stages with the places of spec's shape (the demo's, which
 * is not its file's). */
static int stop_run(const struct farm_spec *spec, struct farm_state *st, struct farm_result *r,
                    char *err, size_t len)
{
    int place[FARM_MAX_PROCS];

    for (unsigned i = 0; i < st->n; i++)
        place[i] = farm_spec_place(spec, st->proc[i].name);
    return farmctl_stop_places(st, place, r, err, len);
}

/* Start the run, inject c's faults, wait for the readouts to finish and
 * stop it in stages, r receiving the final counters: 0, or -1 with r->error. */
static int one_run(const struct farm_conf *c, const struct farm_spec *spec, struct farm_state *st,
                   struct farm_result *r)
{
    char *err = r->error;
    size_t len = sizeof(r->error);
    double timeout_s = c->max_seconds + 30;

    if (farmctl_start(st, 1, err, len))     /* a fresh run directory: run 1 */
        return -1;
    if (c->kill_node_after && farm_kill_and_restart(st, spec, c->build_dir, 0, c->kill_node_after,
                                                    c->restart_after_ms, timeout_s, err, len))
        return -1;
    if (c->kill_sfc_after &&
        farm_kill_sfc_after(st, spec->n_sfcs - 1, c->kill_sfc_after,
                            spec->sfc[spec->n_sfcs - 1].port.kind == FF_PORT_MEMIF, timeout_s,
                            err, len))
        return -1;
    if (c->freeze_sfc_after &&
        farm_freeze_sfc_after(st, spec->n_sfcs - 1, c->freeze_sfc_after, c->freeze_ms, timeout_s,
                              err, len))
        return -1;
    if (c->mute_sfc_after &&
        farm_act_sfc_after(st, spec->n_sfcs - 1, c->mute_sfc_after, "mute", c->mute_ms, timeout_s,
                           err, len))
        return -1;
    if (c->stall_sfc_after &&
        farm_act_sfc_after(st, spec->n_sfcs - 1, c->stall_sfc_after, "stall", c->stall_sfc_ms,
                           timeout_s, err, len))
        return -1;
    if (c->stall_nodes_after &&
        farm_stall_nodes(st, c->stall_nodes_after, c->stall_ms, timeout_s, err, len))
        return -1;
    if (farm_wait_finished(st, timeout_s, err, len))
        return -1;
    return stop_run(spec, st, r, err, len);
}

/* One Ctrl-C or SIGTERM ended the run's waits: stop it in stages, so the
 * ledger of what was generated closes; r->interrupted names the signal.
 * 0, or -1 with r->error (a second signal ends the stop too). */
static int stop_early(const struct farm_spec *spec, struct farm_state *st, struct farm_result *r)
{
    int sig = farm_signal_last();

    fprintf(stderr, "ebfarm: %s: stopping the run in stages (once more to kill)\n",
            sig == SIGTERM ? "SIGTERM" : "SIGINT");
    if (stop_run(spec, st, r, r->error, sizeof(r->error)) != 0)
        return -1;
    r->interrupted = sig;
    return 0;
}

int farm_run(const struct farm_conf *c, struct farm_result *r)
{
    struct farm_spec *spec = malloc(sizeof(*spec));
    struct farm_state *st = malloc(sizeof(*st));
    char run_dir[] = "/tmp/ebfarm-run-XXXXXX", err[sizeof(r->error)];
    int rc = -1;

    memset(r, 0, sizeof(*r));
    if (!spec || !st) {
        snprintf(r->error, sizeof(r->error), "out of memory");
        goto out;
    }
    if (farm_demo_spec(c, c->farm_file ? c->farm_file : EBF_SOURCE_DIR "/farms/demo.yaml", spec,
                       r->error, sizeof(r->error)))
        goto out;
    if (!mkdtemp(run_dir)) {
        snprintf(r->error, sizeof(r->error), "cannot create a run directory: %s", strerror(errno));
        goto out;
    }
    if (c->netns && (farm_demo_netns(spec, run_dir, r->error, sizeof(r->error)) ||
                     farm_spec_check(spec, r->error, sizeof(r->error)))) {
        farm_rm_rf(run_dir);
        goto out;
    }
    if (farmctl_up(spec, c->build_dir, run_dir, st, r->error, sizeof(r->error)) != 0) {
        /* Its logs stay for a failure, not for a Ctrl-C. */
        if (farm_signal_count() && !c->keep)
            farm_rm_rf(run_dir);
        else
            rmdir(run_dir);
        goto out;
    }
    rc = one_run(c, spec, st, r);
    if (rc != 0 && farm_signal_count() == 1)
        rc = stop_early(spec, st, r);
    farm_result_hosts(spec, r);
    /* Down in any case; its own failure counts only when the run was good.
     * The logs stay for a failure, not for a Ctrl-C. */
    int keep = c->keep || (rc != 0 && !farm_signal_count());
    if (farmctl_down(st, keep, err, sizeof(err)) != 0 && rc == 0) {
        snprintf(r->error, sizeof(r->error), "%s", err);
        rc = -1;
    }
    snprintf(r->run_dir, sizeof(r->run_dir), "%s", run_dir);
    /* A second signal cut the run short: that, not what it broke, is why. */
    if (rc != 0 && farm_signal_count() >= 2)
        farm_signal_check(2, r->error, sizeof(r->error));
out:
    free(spec);
    free(st);
    return rc;
}
