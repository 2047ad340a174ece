/* SPDX-License-Identifier: BSD-3-Clause */
/* top.c - ebfarm top: placeholder until the live view lands. */
#include <stdio.h>

#include "cmd_farm.h"

int cmd_top(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ebfarm top: not built yet\n");
    return 1;
}
