/* SPDX-License-Identifier: BSD-3-Clause */
/* farm.c - the demo: a farm file's processes up, one run, the staged stop, down. */
#include "farm.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "farmctl.h"

void farm_conf_default(struct farm_conf *c)
{
    memset(c, 0, sizeof(*c));
    c->events = 200000;
    c->sources = 8;
    c->nodes = 2;
    c->frag_min = c->frag_max = 1024;
    c->trigger_us = 1;
    c->accept = 0.1;
    c->timeout_ms = 100;
    c->credits = 32;
    c->max_seconds = 300;
    c->stall_ms = 1000;
    c->frag_dist = FF_DIST_FIXED;
    c->seed = 1;
    c->silence_source = FF_NO_SILENCE;
}

int farm_build_dir(char *buf, unsigned len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        return -errno;
    exe[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -ENOENT;
        *slash = '\0';
    }
    if (strlen(exe) + 1 > len)
        return -ENAMETOOLONG;
    strcpy(buf, exe);
    return 0;
}

/* Fault injection: SIGKILL node 0 after c->kill_node_after events, and
 * start it again c->restart_after_ms later when asked. */
static int kill_and_restart(const struct farm_conf *c, const struct farm_spec *spec,
                            struct farm_state *st, struct farm_result *r)
{
    if (farmctl_kill_node_after(st, 0, c->kill_node_after, c->max_seconds + 30, r->error,
                                sizeof(r->error)))
        return -1;
    if (c->restart_after_ms <= 0)
        return 0;
    struct timespec ts = {(time_t)(c->restart_after_ms / 1000),
                          (long)(fmod(c->restart_after_ms, 1000) * 1e6)};
    nanosleep(&ts, NULL);
    return farmctl_respawn_node(st, spec, c->build_dir, 0, r->error, sizeof(r->error));
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
    if (farmctl_demo_spec(c, c->farm_file ? c->farm_file : EBF_SOURCE_DIR "/farms/demo.yaml",
                          spec, r->error, sizeof(r->error)))
        goto out;
    if (!mkdtemp(run_dir)) {
        snprintf(r->error, sizeof(r->error), "cannot create a run directory: %s", strerror(errno));
        goto out;
    }
    if (farmctl_up(spec, c->build_dir, run_dir, st, r->error, sizeof(r->error)) != 0) {
        rmdir(run_dir);
        goto out;
    }
    if (farmctl_start(st, r->error, sizeof(r->error)) == 0 &&
        (!c->kill_node_after || kill_and_restart(c, spec, st, r) == 0) &&
        (!c->stall_nodes_after ||
         farmctl_stall_nodes(st, c->stall_nodes_after, c->stall_ms, c->max_seconds + 30, r->error,
                             sizeof(r->error)) == 0) &&
        farmctl_wait_finished(st, c->max_seconds + 30, r->error, sizeof(r->error)) == 0)
        rc = farmctl_stop(st, r, r->error, sizeof(r->error));
    /* Down in any case; its own failure counts only when the run was good. */
    if (farmctl_down(st, c->keep || rc != 0, err, sizeof(err)) != 0 && rc == 0) {
        snprintf(r->error, sizeof(r->error), "%s", err);
        rc = -1;
    }
    snprintf(r->run_dir, sizeof(r->run_dir), "%s", run_dir);
out:
    free(spec);
    free(st);
    return rc;
}

void farm_result_free(struct farm_result *r)
{
    ebf_kv_free(&r->readout);
    ebf_kv_free(&r->sfc);
    for (unsigned i = 0; i < FARM_MAX_NODES; i++)
        ebf_kv_free(&r->node[i].kv);
}
