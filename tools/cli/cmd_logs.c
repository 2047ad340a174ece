/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_logs.c - ebfarm logs: a process's log read back from its host (the log file, or the journal of its unit). */
#include "cmd_logs.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "farm_host.h"
#include "farm_launch.h"
#include "farm_state.h"

static const char usage[] =
    "usage: ebfarm logs PROC [--farm NAME] [--lines N] [--follow]\n"
    "  prints the log of process PROC of a farm that is up, read on its host: the\n"
    "  log file in the run directory, or the journal of its systemd unit, this\n"
    "  process's lines (journalctl -u ebfarm-FARM-PROC _PID=PID); --lines N only\n"
    "  its last N lines (what status sends you to when a process is in ERROR or\n"
    "  gone); --follow keeps printing what comes\n";

/* cmd (farm_launch_log_cmd's) cut to the last `lines` lines: the journal's
 * -n, tail's -n (following), or a tail after cat. */
static void last_lines(char *cmd, size_t len, unsigned long lines, int follow)
{
    char n[32], *tail = strstr(cmd, "tail -n +1 -f ");

    snprintf(n, sizeof(n), "%lu", lines);
    if (!strncmp(cmd, "journalctl ", 11)) {
        snprintf(cmd + strlen(cmd), len - strlen(cmd), " -n %s", n);
    } else if (follow && tail) {
        char rest[1024];
        snprintf(rest, sizeof(rest), "%s", tail + strlen("tail -n +1 -f "));
        snprintf(tail, len - (size_t)(tail - cmd), "tail -n %s -f %s", n, rest);
    } else {
        snprintf(cmd + strlen(cmd), len - strlen(cmd), " | tail -n %s", n);
    }
}

/* Replace this process with cmd run on p's host (sh here, ssh there). */
static int exec_on_host(const struct farm_state *st, const struct farm_proc *p, const char *cmd)
{
    const struct farm_host *h = farm_host_of(st, p);
    const char *argv[48];

    fflush(NULL);
    if (!h || h->kind == FF_HOST_LOCAL) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    } else if (farm_host_ssh_argv(st, h, NULL, cmd, argv, 48)) {
        execvp(argv[0], (char *const *)argv);
    }
    fprintf(stderr, "ebfarm logs: cannot run %s: %s\n",
            h && h->kind != FF_HOST_LOCAL ? "ssh" : "/bin/sh", strerror(errno));
    return 1;
}

int cmd_logs(int argc, char **argv)
{
    static const struct option lo[] = {
        {"farm", 1, 0, 'f'}, {"follow", 0, 0, 'F'}, {"lines", 1, 0, 'n'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0},
    };
    const char *farm = NULL;
    unsigned long lines = 0;
    char *end;
    struct farm_state *st = malloc(sizeof(*st));
    char err[1024], cmd[1024];
    int follow = 0, ch, rc = 1;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (ch) {
        case 'f': farm = optarg; break;
        case 'F': follow = 1; break;
        case 'n':
            lines = strtoul(optarg, &end, 10);
            if (*optarg < '1' || *optarg > '9' || *end || lines > 1000000) {
                fprintf(stderr, "ebfarm logs: --lines \"%s\" is not a count in 1..1000000\n",
                        optarg);
                free(st);
                return 2;
            }
            break;
        case 'h': printf("%s", usage); free(st); return 0;
        default: fprintf(stderr, "%s", usage); free(st); return 2;
        }
    }
    if (optind != argc - 1 || !st) {
        fprintf(stderr, "%s", usage);
        free(st);
        return 2;
    }
    if (farm_state_find(farm, st, err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm logs: %s\n", err);
        goto out;
    }
    for (unsigned i = 0; i < st->n; i++) {
        if (strcmp(st->proc[i].name, argv[optind]) != 0)
            continue;
        farm_launch_log_cmd(st, &st->proc[i], follow, cmd, sizeof(cmd));
        if (lines)
            last_lines(cmd, sizeof(cmd), lines, follow);
        rc = exec_on_host(st, &st->proc[i], cmd);
        goto out;
    }
    fprintf(stderr, "ebfarm logs: farm '%s' has no process '%s' (it has:", st->name,
            argv[optind]);
    for (unsigned i = 0; i < st->n; i++)
        fprintf(stderr, " %s", st->proc[i].name);
    fprintf(stderr, ")\n");
out:
    free(st);
    return rc;
}
