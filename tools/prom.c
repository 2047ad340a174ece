/* SPDX-License-Identifier: BSD-3-Clause */
/* prom.c - ebfarm metrics: placeholder until the exporter lands. */
#include <stdio.h>

#include "cmd_farm.h"

int cmd_metrics(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ebfarm metrics: not built yet\n");
    return 1;
}
