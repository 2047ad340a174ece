/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_restart.c - ebfarm restart, drain and undrain: one process of a running farm replaced, an SFC's share moved away and back. */
#include "cmd_restart.h"

#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlclient.h"
#include "farm_proc.h"
#include "farm_restart.h"
#include "farm_signal.h"
#include "farm_state.h"
#include "farmfile.h"

#define DRAIN_TIMEOUT_S 120.0

struct restart_opts {
    const char *farm;
    double timeout_s;
    const char *proc;
};

/* --farm NAME, --timeout S (drain, undrain), one process name. 0, 2 for
 * a usage error (after the usage), or -1 for --help (printed). */
static int parse(int argc, char **argv, struct restart_opts *o, const char *usage, int timeout)
{
    static const struct option lo[] = {
        {"farm", 1, 0, 'f'}, {"timeout", 1, 0, 't'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    char *end;
    int ch;

    o->timeout_s = DRAIN_TIMEOUT_S;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'f': o->farm = optarg; break;
        case 't':
            o->timeout_s = strtod(optarg, &end);
            if (!timeout || *end || end == optarg || !(o->timeout_s > 0) || o->timeout_s > 86400) {
                fprintf(stderr, "ebfarm %s: --timeout: \"%s\" is not a number of seconds "
                        "(above 0, at most 86400)%s\n", argv[0], optarg,
                        timeout ? "" : "; restart takes no --timeout");
                return 2;
            }
            break;
        case 'h': printf("%s", usage); return -1;
        default: fprintf(stderr, "%s", usage); return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "ebfarm %s: name one process%s\n%s", argv[0],
                optind < argc - 1 ? ", not several" : "", usage);
        return 2;
    }
    o->proc = argv[optind];
    return 0;
}

/* The farm that is up (by --farm, or the only one), its command lock
 * (held until exit) and its farm file. 0, or 1 after a message. */
static int farm_of(const struct restart_opts *o, const char *cmd, struct farm_state *st,
                   struct farm_spec *spec)
{
    char err[1024];

    if (farm_state_find(o->farm, st, err, sizeof(err)) != 0 ||
        ctl_use_keys(st->keys, err, sizeof(err)) != 0 ||
        farm_state_lock(st->name, cmd, err, sizeof(err)) < 0 ||
        farm_state_find(st->name, st, err, sizeof(err)) != 0 ||
        farm_spec_load(st->farm_file, spec, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        return 1;
    }
    return 0;
}

int cmd_restart(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm restart PROC [--farm NAME]\n"
        "  stops one process of a farm that is up and starts it again with the same\n"
        "  command line, into the run in progress: a node rejoins its SFC as a new\n"
        "  incarnation; a readout stops in stages and begins again at the event after\n"
        "  the last any readout generated; an SFC (failover on, another SFC live) is\n"
        "  killed once every readout declared it dead and rejoins at a join id\n";
    struct restart_opts o = {0};
    struct farm_spec *spec = malloc(sizeof(*spec));
    struct farm_state *st = malloc(sizeof(*st));
    struct farm_restart_info info;
    char build[PATH_MAX], err[1024];
    int rc = 1;

    if (!spec || !st)
        goto out;
    if ((rc = parse(argc, argv, &o, usage, 0)) != 0) {
        rc = rc < 0 ? 0 : rc;
        goto out;
    }
    rc = 1;
    if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm restart: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        goto out;
    }
    if (farm_of(&o, "restart", st, spec))
        goto out;
    farm_signal_catch();
    if (farm_restart(st, spec, build, o.proc, &info, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm restart: %s\n", err);
        goto out;
    }
    printf("%s restarted (", o.proc);
    if (!info.was_running)
        printf("it had exited)");
    else if (info.killed && info.dead_after_s >= 0)
        printf("killed %.2f s after its freeze, once %s declared it dead)", info.dead_after_s,
               farm_proc_named(st, o.proc)->role == FARM_SFC ? "every readout" : "its SFC");
    else if (info.killed)
        printf("killed)");
    else
        printf("stopped in stages at event %" PRIu64 ")", info.last_event);
    if (info.run)
        printf(" into run %u", info.run);
    if (info.run && info.from_event)
        printf(", %s event %" PRIu64, farm_proc_named(st, o.proc)->role == FARM_SFC
                                          ? "rejoins at" : "from", info.from_event);
    printf(", %.1f s\n", info.took_s);
    rc = 0;
out:
    free(spec);
    free(st);
    return rc;
}

/* drain (drain 1) or undrain (0) with argv. */
static int drain_cmd(int argc, char **argv, int drain, const char *usage)
{
    const char *cmd = drain ? "drain" : "undrain";
    struct restart_opts o = {0};
    struct farm_spec *spec = malloc(sizeof(*spec));
    struct farm_state *st = malloc(sizeof(*st));
    struct farm_drain_info info;
    char err[1024];
    int rc = 1;

    if (!spec || !st)
        goto out;
    if ((rc = parse(argc, argv, &o, usage, 1)) != 0) {
        rc = rc < 0 ? 0 : rc;
        goto out;
    }
    rc = 1;
    if (farm_of(&o, cmd, st, spec))
        goto out;
    farm_signal_catch();
    if (farm_drain(st, spec, o.proc, drain, o.timeout_s, NULL, &info, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm %s: %s\n", cmd, err);
        goto out;
    }
    if (drain)
        printf("%s drained: its share goes to the other SFCs from event %" PRIu64 "; it holds "
               "nothing (%.1f s)\n", o.proc, info.at, info.took_s);
    else
        printf("%s undrained: its share is back from event %" PRIu64 " (%.1f s)\n", o.proc,
               info.at, info.took_s);
    rc = 0;
out:
    free(spec);
    free(st);
    return rc;
}

int cmd_drain(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm drain SFC [--farm NAME] [--timeout S]\n"
        "  moves an SFC's share of the events to the other SFCs from a leave id every\n"
        "  readout switches at, and waits (at most S seconds, 120) until it holds\n"
        "  nothing; it then stays idle (ebfarm undrain, restart or down). Needs failover\n"
        "  (run: replay_mb) and another SFC live\n";

    return drain_cmd(argc, argv, 1, usage);
}

int cmd_undrain(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm undrain SFC [--farm NAME] [--timeout S]\n"
        "  gives a drained SFC its share back from a join id ahead of every readout,\n"
        "  and waits (at most S seconds, 120) until every readout passed it\n";

    return drain_cmd(argc, argv, 0, usage);
}
