/* SPDX-License-Identifier: BSD-3-Clause */
/* ebfarm.c - the ebfarm command line: subcommands that run and measure farms. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_bench.h"
#include "cmd_demo.h"
#include "cmd_events.h"
#include "cmd_farm.h"
#include "cmd_keygen.h"
#include "cmd_logs.h"
#include "cmd_restart.h"
#include "cmd_conform.h"
#include "cmd_runctl.h"
#include "cmd_sim.h"
#include "cmd_soak.h"
#include "farm_proc.h"
#include "prom.h"
#include "top.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: ebfarm COMMAND [options]\n"
            "commands:\n"
            "  demo     run readout, one SFC and trigger nodes on this host over memif\n"
            "           and print the run summary with its ledger\n"
            "  up FARM.yaml   start a farm's processes, configure them, start run 1\n"
            "  start    start the next run of a farm that is up\n"
            "  stop     staged stop of the run; prints the run summary and ledger\n"
            "  down     shut every process of the farm down and clean up\n"
            "  pause    hold the run: readouts stop generating (resume goes on)\n"
            "  resume   readouts of a paused run generate again\n"
            "  reset    processes in ERROR (or CONFIGURED) back to CONFIGURED\n"
            "  status   state of every process and the farm's totals (--json)\n"
            "  top      live view of the farm, refreshed every second\n"
            "  logs PROC   a process's log, read on its host (--follow)\n"
            "  restart PROC   stop one process of a running farm and start it again\n"
            "           into the run (a node, a readout, an SFC with failover on)\n"
            "  drain SFC   move an SFC's share to the other SFCs and wait until it holds\n"
            "           nothing (failover on); it then stays idle\n"
            "  undrain SFC   give a drained SFC its share back\n"
            "  soak FARM.yaml --duration D   run a farm for D, sample it every interval,\n"
            "           judge it (ledger, losses, memory, latency tails) and write a report\n"
            "           (JSON lines, CSV, HTML); --help lists the options (docs/soak.md)\n"
            "  keygen DIR   make the farm's CURVE keys (farm file: keys: DIR)\n"
            "  events   verify|dump|stats FILE...: read the event files nodes store\n"
            "           (docs/storage.md)\n"
            "  metrics  --prometheus [--listen ADDR]: serve the farm's metrics over HTTP\n"
            "  bench    ebfarm against dpdk-testpmd and CRC32C reference runs, side by side\n"
            "           (--quick, --json, --csv; --help lists the options)\n"
            "  loopback frame-drop benchmark (RFC 2544) of a TX port cabled to an RX port:\n"
            "           ebfarm loopback --tx PORT --rx PORT [options]; --help lists them\n"
            "           (docs/loopback.md)\n"
            "  sim FARM.yaml   simulate the farm in virtual time at any size, with the\n"
            "           SFC's own event table and credits; prints the simulated ledger\n"
            "           (--json, --seed N, --duration S; docs/scale.md)\n"
            "  conform FILE.pcapng   judge a readout board's captured frames against\n"
            "           docs/protocol.md: per rule, per source, a verdict (--json)\n"
            "  help     this text\n"
            "(from the repository root, ./ebfarm test builds and runs the test suite)\n");
}

/* Run <build>/loopback/ebfarm-loopback with the rest of the arguments. */
static int cmd_loopback(int argc, char **argv)
{
    char build[PATH_MAX], exe[PATH_MAX + 32];
    if (farm_build_dir(build, sizeof(build)) != 0) {
        fprintf(stderr, "ebfarm loopback: cannot find the build directory; set EBFARM_BUILD_DIR\n");
        return 1;
    }
    snprintf(exe, sizeof(exe), "%s/loopback/ebfarm-loopback", build);
    argv[0] = exe;
    execv(exe, argv);
    fprintf(stderr, "ebfarm loopback: cannot run %s: %s\n", exe, strerror(errno));
    (void)argc;
    return 1;
}

int main(int argc, char **argv)
{
    farm_proc_title_area(argc, argv);       /* the farm's keepers retitle themselves */
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "demo") == 0)
        return cmd_demo(argc - 1, argv + 1);
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"up", cmd_up}, {"start", cmd_start}, {"stop", cmd_stop}, {"down", cmd_down},
        {"status", cmd_status}, {"top", cmd_top}, {"metrics", cmd_metrics},
        {"keygen", cmd_keygen}, {"bench", cmd_bench}, {"logs", cmd_logs},
        {"keygen", cmd_keygen}, {"bench", cmd_bench}, {"soak", cmd_soak},
        {"events", cmd_events}, {"sim", cmd_sim}, {"conform", cmd_conform},
        {"restart", cmd_restart}, {"drain", cmd_drain}, {"undrain", cmd_undrain},
        {"pause", cmd_pause}, {"resume", cmd_resume}, {"reset", cmd_reset},
    };
    for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(argv[1], cmds[i].name) == 0)
            return cmds[i].fn(argc - 1, argv + 1);
    if (strcmp(argv[1], "loopback") == 0)
        return cmd_loopback(argc - 1, argv + 1);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "test") == 0) {
        fprintf(stderr, "ebfarm: 'test' is run from the repository root: ./ebfarm test\n");
        return 2;
    }
    fprintf(stderr, "ebfarm: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
