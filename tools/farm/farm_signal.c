/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_signal.c - Ctrl-C and SIGTERM on the ebfarm tool: counted, then seen by the tool's waits. */
#include "farm_signal.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ctlclient.h"

static volatile sig_atomic_t caught, last;

static void on_signal(int sig)
{
    if (caught < 2)
        caught++;
    last = sig;
}

/* A wait for a daemon's reply outlasts the first signal (the staged stop
 * goes on), not the second. */
static int second_signal(void)
{
    return caught >= 2;
}

void farm_signal_catch(void)
{
    struct sigaction sa;

    ctl_cancelled = second_signal;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a sleep or a poll in a wait returns at once. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int farm_signal_count(void)
{
    return caught;
}

int farm_signal_last(void)
{
    return last;
}

int farm_signal_check(int level, char *err, size_t len)
{
    if (caught < level)
        return 0;
    snprintf(err, len, "interrupted by %s", last == SIGTERM ? "SIGTERM" : "SIGINT");
    return -1;
}
