/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_runctl.c - ebfarm pause, resume and reset: the daemons' PAUSE, RESUME and RESET for a whole farm. */
#include "cmd_runctl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlclient.h"
#include "ebf_fsm.h"
#include "farm_ask.h"
#include "farm_params.h"
#include "farm_state.h"
#include "farmfile.h"

/* The farm of --farm (or the only one up) into st, under its command lock:
 * 0; 2 after the usage (bad options), 1 after a message, -1 after --help. */
static int runctl_farm(int argc, char **argv, const char *cmd, const char *usage,
                       struct farm_state *st)
{
    static const struct option lo[] = {
        {"farm", 1, 0, 'f'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *farm = NULL;
    char err[1024];
    int ch;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'f': farm = optarg; break;
        case 'h': printf("%s", usage); return -1;
        default: fprintf(stderr, "%s", usage); return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "%s", usage);
        return 2;
    }
    /* Found, locked, then read again: the holder may have changed it. */
    if (farm_state_find(farm, st, err, sizeof(err)) != 0 ||
        farm_state_lock(st->name, cmd, err, sizeof(err)) < 0 ||
        farm_state_find(st->name, st, err, sizeof(err)) != 0 ||
        ctl_use_keys(st->keys, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        return 1;
    }
    return 0;
}

/* Every process's state into s (0 where it does not answer); how many
 * answered. */
static unsigned states(const struct farm_state *st, enum ebf_state *s)
{
    Ebfarm__Reply *rep[FARM_MAX_PROCS];
    unsigned n = 0;

    farm_status(st, rep);
    for (unsigned i = 0; i < st->n; i++) {
        s[i] = rep[i] && rep[i]->status ? (enum ebf_state)rep[i]->status->state : 0;
        n += s[i] != 0;
    }
    farm_free_replies(st, rep);
    return n;
}

/*
 * PAUSE (resume 0) or RESUME (resume 1) to every readout in the state the
 * command leaves: generation held or going on again; SFCs and nodes run
 * on, finishing what is in flight. Exit status: 0; 3 when no readout was
 * in that state (nothing to do: said why); 1 when one refused or did not
 * answer (named).
 */
static int pause_resume(int argc, char **argv, int resume)
{
    static const char pause_usage[] =
        "usage: ebfarm pause [--farm NAME]\n"
        "  holds the run: every readout stops generating events (PAUSED); SFCs and\n"
        "  nodes finish what is in flight. ebfarm resume goes on, ebfarm stop ends it.\n"
        "  Exits 3 when no readout is running (nothing to pause)\n";
    static const char resume_usage[] =
        "usage: ebfarm resume [--farm NAME]\n"
        "  every paused readout generates again (RUNNING). Exits 3 when no readout\n"
        "  is paused\n";
    const char *cmd = resume ? "resume" : "pause";
    enum ebf_state from = resume ? EBF_S_PAUSED : EBF_S_RUNNING, s[FARM_MAX_PROCS];
    struct farm_state *st = malloc(sizeof(*st));
    char err[1024];
    unsigned done = 0, gone = 0;
    int rc = st ? runctl_farm(argc, argv, cmd, resume ? resume_usage : pause_usage, st) : 1;

    if (rc)
        goto out;
    states(st, s);
    for (unsigned i = 0; i < st->n; i++) {
        if (st->proc[i].role != FARM_READOUT || s[i] != from) {
            gone += st->proc[i].role == FARM_READOUT && !s[i];
            continue;
        }
        if (farm_order(&st->proc[i], resume ? EBF_C_RESUME : EBF_C_PAUSE, 0, NULL, 0, err,
                       sizeof(err)) != 0) {
            fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
            rc = 1;
            continue;
        }
        done++;
    }
    if (!done && !rc) {
        fprintf(stderr, "ebfarm %s: farm '%s': no readout is %s%s: nothing to %s\n", cmd,
                st->name, resume ? "paused" : "running", gone ? " (some do not answer)" : "",
                cmd);
        rc = 3;
    } else if (done) {
        printf("farm '%s': run %u %s: %u readout%s %s\n", st->name, st->run_number,
               resume ? "resumed" : "paused", done, done == 1 ? "" : "s",
               resume ? "generating again" : "holding their generation (ebfarm resume goes "
                                             "on, ebfarm stop ends the run)");
    }
out:
    free(st);
    return rc < 0 ? 0 : rc;
}

int cmd_pause(int argc, char **argv)
{
    return pause_resume(argc, argv, 0);
}

int cmd_resume(int argc, char **argv)
{
    return pause_resume(argc, argv, 1);
}

/* The farm file st was brought up from, unchanged since: into spec. 0, or
 * -1 with err naming what differs. */
static int same_spec(const struct farm_state *st, struct farm_spec *spec, char *err, size_t len)
{
    if (farm_spec_load(st->farm_file, spec, err, len) != 0)
        return -1;
    if (strcmp(spec->file_sha256, st->farm_file_sha256) != 0) {
        snprintf(err, len, "the farm file %s changed since the farm came up: reset configures "
                 "what came up; ebfarm down, then ebfarm up for the new file", st->farm_file);
        return -1;
    }
    return 0;
}

/* RESET (unless INITIAL) then CONFIGURE with the farm file's parameters:
 * process i back to CONFIGURED. 0, or -1 with err. */
static int reconfigure(const struct farm_state *st, const struct farm_spec *spec, unsigned i,
                       enum ebf_state s, char *err, size_t len)
{
    struct ctl_param params[FARM_PARAMS_MAX];
    unsigned n = farm_params(spec, st->proc[i].role, params);

    if (s != EBF_S_INITIAL && farm_order(&st->proc[i], EBF_C_RESET, 0, NULL, 0, err, len))
        return -1;
    return farm_order(&st->proc[i], EBF_C_CONFIGURE, 0, params, n, err, len);
}

int cmd_reset(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm reset [--farm NAME]\n"
        "  a farm with no run in progress back to CONFIGURED: every process in ERROR\n"
        "  or CONFIGURED is reset and configured again from the farm file it came up\n"
        "  from (refused when that file changed). Then ebfarm start begins a run.\n";
    struct farm_state *st = malloc(sizeof(*st));
    struct farm_spec *spec = malloc(sizeof(*spec));
    enum ebf_state s[FARM_MAX_PROCS];
    char err[1024] = "";
    unsigned errors = 0;
    int rc = st && spec ? runctl_farm(argc, argv, "reset", usage, st) : 1;

    if (rc)
        goto out;
    rc = 1;
    if (states(st, s) != st->n || same_spec(st, spec, err, sizeof(err)) != 0) {
        for (unsigned i = 0; i < st->n && !err[0]; i++)
            if (!s[i])
                snprintf(err, sizeof(err), "%s does not answer (ebfarm status; ebfarm down, "
                         "then ebfarm up)", st->proc[i].name);
        fprintf(stderr, "ebfarm reset: %s\n", err);
        goto out;
    }
    for (unsigned i = 0; i < st->n; i++)
        if (s[i] == EBF_S_RUNNING || s[i] == EBF_S_PAUSED || s[i] == EBF_S_DRAINING) {
            fprintf(stderr, "ebfarm reset: farm '%s': %s is %s in run %u: ebfarm stop first\n",
                    st->name, st->proc[i].name, ebf_state_name(s[i]), st->run_number);
            goto out;
        }
    for (unsigned i = 0; i < st->n; i++) {
        errors += s[i] == EBF_S_ERROR;
        if (reconfigure(st, spec, i, s[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "ebfarm reset: %s\n", err);
            goto out;
        }
    }
    printf("farm '%s' is reset: %u processes CONFIGURED (%u were in ERROR); ebfarm start "
           "begins the next run\n", st->name, st->n, errors);
    rc = 0;
out:
    free(st);
    free(spec);
    return rc < 0 ? 0 : rc;
}
