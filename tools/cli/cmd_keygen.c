/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_keygen.c - ebfarm keygen DIR: a farm's CURVE keys for its tcp:// control and metrics. */
#include "cmd_keygen.h"

#include <stdio.h>
#include <string.h>

#include "ebf_curve.h"

int cmd_keygen(int argc, char **argv)
{
    static const char usage[] =
        "usage: ebfarm keygen DIR\n"
        "  make the farm's CURVE keys in DIR (mode 0700, files 0600): server.key and\n"
        "  server.pub for the daemons, client.key and client.pub for the tools, and\n"
        "  clients/client.pub, the client keys the daemons accept; name DIR in the\n"
        "  farm file as 'keys: DIR'. Existing keys are never replaced.\n";
    char err[1024];

    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fputs(usage, stderr);
        return 2;
    }
    if (ebf_curve_keygen(argv[1], err, sizeof(err)) != 0) {
        fprintf(stderr, "ebfarm keygen: %s\n", err);
        return 1;
    }
    printf("keys in %s: server.key server.pub client.key client.pub clients/client.pub\n",
           argv[1]);
    return 0;
}
